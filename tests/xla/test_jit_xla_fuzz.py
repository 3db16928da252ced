"""Differential fuzz of the XLA backend: random programs under random stacks of transforms
(fuzz_programs.py; in one case of two x holds a NaN), each level jitted on both backends and
called on fresh inputs; XLA's results equal the NumPy backend's (xla_checks.py: 1e-12 of each
result's scale in float64, NaNs and infinities at the same places). Half the cases mix
subnormal and tiny values into the inputs; random integer programs (fuzz_integer_programs.py)
check NumPy's integer rules. FT_FUZZ_EXAMPLES sets the count, as in test_fuzz_compositions."""
import os
import warnings

import numpy as np
import optree
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import functorch_lite as ft
import fuzz_integer_programs
from fuzz_programs import Case, HypothesisDraw
from xla_checks import assert_backends_agree, from_jax

jax = pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")

EXAMPLES = max(1, int(os.environ.get("FT_FUZZ_EXAMPLES", "40")) // 2)


TINY = np.array([5e-324, -1e-310, 2e-308, -1e-150, 1e-120, -1e-100])
"""Subnormal values, and tiny normal ones whose products stay normal or underflow past the
subnormals: a subnormal intermediate (the smallest normal number times 0.5) that reaches a kink
(abs, where) would take the other side on XLA, which flushes it to zero (docs/jit.md), and no
input read as zero could say which."""


def _with_tiny(v, rng):
    return np.where(rng.random(np.shape(v)) < 0.4, rng.choice(TINY, np.shape(v)), v)


def _flushed(v):
    return np.where(np.abs(v) < np.finfo(np.float64).tiny, 0.0, v)


def _agree(got, want, x, y, on_numpy, what):
    """XLA's results are the NumPy backend's on (x, y), or, where an input is subnormal, on
    (x, y) with subnormals read as zero: XLA's CPU runtime does so (docs/jit.md), which decides
    a comparison (the derivative of abs at 5e-324 is 1 on NumPy, 0 on XLA)."""
    try:
        assert_backends_agree(got, want, what)
    except AssertionError:
        if all(np.array_equal(_flushed(v), v, equal_nan=True) for v in (x, y)):
            raise
        assert_backends_agree(got, on_numpy(_flushed(x), _flushed(y)),
                              what + " (subnormal inputs read as zero)")


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 2 ** 31), tiny=st.booleans())
def test_random_program_jitted_on_xla_matches_the_numpy_backend(data, seed, tiny):
    case = Case(HypothesisDraw(data), seed, nans=True)
    with warnings.catch_warnings():  # special points make NaN on purpose
        warnings.simplefilter("ignore", RuntimeWarning)
        for k, stage in enumerate(case.stages):
            on_numpy = ft.jit(stage.fn, backend="numpy")
            on_xla = ft.jit(stage.fn, backend="xla")
            for call in range(3):   # the tracing call, then compiled replays on new inputs
                rng = np.random.default_rng(seed + 7 * k + call)
                x, y = case.inputs_for(stage, rng)
                if tiny:
                    x, y = _with_tiny(x, rng), _with_tiny(y, rng)
                want = on_numpy(x, y)
                what = (f"call {call} of level {k} ({stage.desc}) of {case.describe()}"
                        f"{', tiny inputs' if tiny else ''}")
                _agree(on_xla(x, y), want, x, y, on_numpy, what)
                with jax.enable_x64(True):   # the same values as JAX arrays: JAX arrays out
                    jx, jy = jax.device_put(x), jax.device_put(y)
                out = on_xla(jx, jy)
                assert all(isinstance(o, jax.Array) for o in optree.tree_leaves(out)
                           if not isinstance(o, (bool, int, float, complex)))
                _agree(from_jax(out, want), want, x, y, on_numpy, what + " on JAX arrays")
            assert on_xla.traces == 2   # one signature of NumPy arrays, one of JAX arrays


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 2 ** 31))
def test_random_integer_program_jitted_on_xla_matches_the_numpy_backend(data, seed):
    case = fuzz_integer_programs.Case(HypothesisDraw(data), seed)
    on_numpy = ft.jit(case.fn, backend="numpy")
    on_xla = ft.jit(case.fn, backend="xla")
    with warnings.catch_warnings(), np.errstate(all="ignore"):   # NumPy warns as it wraps
        warnings.simplefilter("ignore", RuntimeWarning)
        for call in range(3):
            x, y = case.inputs(np.random.default_rng(seed + call))
            assert_backends_agree(on_xla(x, y), on_numpy(x, y),
                                  f"call {call} of {case.describe()}")
    assert on_xla.traces == 1
