"""The composition fuzz on device backends: each random program under a random stack of
transforms (fuzz_programs.py) runs on device arrays, every level and the top one under ft.jit,
jvp and vjp, and must give device arrays equal to the NumPy run (which test_fuzz_compositions.py
checks against loops and finite differences).

FT_DEVICE_FUZZ_EXAMPLES examples (default 100, about 20 CPU-seconds; derandomized under CI
like every hypothesis test). For a long run, `benchmarks/fuzz_compositions.py --device
--examples 10000`.
"""
import os
import warnings

from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_programs import Case, HypothesisDraw

EXAMPLES = int(os.environ.get("FT_DEVICE_FUZZ_EXAMPLES", "100"))


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])  # dxp is the same module
@given(data=st.data(), seed=st.integers(0, 2 ** 31))
def test_random_program_under_random_transforms_on_device(dxp, data, seed):
    with warnings.catch_warnings():  # special points make NaN on purpose
        warnings.simplefilter("ignore", RuntimeWarning)
        Case(HypothesisDraw(data), seed).check_device(dxp)
