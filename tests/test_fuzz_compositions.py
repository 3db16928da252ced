"""Composition fuzz: random small programs under random stacks of 2 or 3 transforms, each level
checked against a loop (vmap) or finite differences (every derivative); see fuzz_programs.py.

The suite runs FT_FUZZ_EXAMPLES examples (default 40, a few seconds; derandomized under CI like
every hypothesis test). For a long run, `benchmarks/fuzz_compositions.py --examples 2000`
keeps going past failures and prints a reproducer for each.
"""
import os
import warnings

from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_programs import Case, HypothesisDraw

EXAMPLES = int(os.environ.get("FT_FUZZ_EXAMPLES", "40"))


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 2 ** 31))
def test_random_program_under_random_transforms(data, seed):
    with warnings.catch_warnings():  # special points make NaN on purpose
        warnings.simplefilter("ignore", RuntimeWarning)
        Case(HypothesisDraw(data), seed).check()
