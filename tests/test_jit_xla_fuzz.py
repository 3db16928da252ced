"""Differential fuzz of the XLA backend: random programs under random stacks of transforms
(fuzz_programs.py; in one case of two x holds a NaN), each level jitted on both backends and
called on fresh inputs; XLA's results
equal the NumPy backend's (xla_checks.py: 1e-12 of each result's scale in float64, NaNs and
infinities at the same places). FT_FUZZ_EXAMPLES sets the count, as in test_fuzz_compositions."""
import os
import warnings

import numpy as np
import optree
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import functorch_lite as ft
from fuzz_programs import Case, HypothesisDraw
from xla_checks import assert_backends_agree, from_jax

jax = pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")

EXAMPLES = max(1, int(os.environ.get("FT_FUZZ_EXAMPLES", "40")) // 2)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 2 ** 31))
def test_random_program_jitted_on_xla_matches_the_numpy_backend(data, seed):
    case = Case(HypothesisDraw(data), seed, nans=True)
    with warnings.catch_warnings():  # special points make NaN on purpose
        warnings.simplefilter("ignore", RuntimeWarning)
        for k, stage in enumerate(case.stages):
            on_numpy = ft.jit(stage.fn, backend="numpy")
            on_xla = ft.jit(stage.fn, backend="xla")
            for call in range(3):   # the tracing call, then compiled replays on new inputs
                x, y = case.inputs_for(stage, np.random.default_rng(seed + 7 * k + call))
                want = on_numpy(x, y)
                what = f"call {call} of level {k} ({stage.desc}) of {case.describe()}"
                assert_backends_agree(on_xla(x, y), want, what)
                with jax.enable_x64(True):   # the same values as JAX arrays: JAX arrays out
                    jx, jy = jax.device_put(x), jax.device_put(y)
                out = on_xla(jx, jy)
                assert all(isinstance(o, jax.Array) for o in optree.tree_leaves(out)
                           if not isinstance(o, (bool, int, float, complex)))
                assert_backends_agree(from_jax(out, want), want, what + " on JAX arrays")
            assert on_xla.traces == 2   # one signature of NumPy arrays, one of JAX arrays
