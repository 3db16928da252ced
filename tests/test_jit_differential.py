"""The differential tester of ft.jit (jit_differential.py): random programs under random stacks
of transforms, each run eagerly and jitted over a sequence of calls (new values, a captured
array changed in place, static arguments that hash equal, Python scalars of every kind, two
dtypes), compared bit for bit, with no output sharing memory with an argument or another output.

The suite runs FT_JIT_FUZZ_EXAMPLES examples (default 80, about 20 CPU-seconds; derandomized
under CI like every hypothesis test). `benchmarks/fuzz_jit.py --examples 20000` is the long run.
"""
import os
import warnings

from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_programs import HypothesisDraw
from jit_differential import JitCase

EXAMPLES = int(os.environ.get("FT_JIT_FUZZ_EXAMPLES", "80"))


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 2 ** 31))
def test_jitted_equals_eager_bit_for_bit(data, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # special points make NaN on purpose; retrace warnings
        JitCase(HypothesisDraw(data), seed).run()
