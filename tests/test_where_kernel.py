"""The branch-free CPU kernel of `where` equals numpy.where bit for bit (large arrays, where it
is used): dtypes, broadcasting, Python scalars, NaN, infinities and signed zeros."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from functorch_lite.ops import branchless, elementwise

SHAPES = [((80, 60), (80, 60), (80, 60)), ((80, 1), (1, 70), ()), ((), (90, 50), (50,)),
          ((70, 70), (70,), (70, 1))]


@settings(max_examples=40, deadline=None)
@given(shapes=st.sampled_from(SHAPES),
       dtype=st.sampled_from([np.float16, np.float32, np.float64, np.int16, np.int32, np.int64,
                              np.uint32]),
       scalar=st.sampled_from([None, 0, 2.5, -1]), seed=st.integers(0, 1000))
def test_branchless_where_equals_numpy_where(shapes, dtype, scalar, seed):
    rng = np.random.default_rng(seed)
    cond = rng.random(shapes[0]) < 0.5
    x = (rng.standard_normal(shapes[1]) * 10).astype(dtype)
    y = (rng.standard_normal(shapes[2]) * 10).astype(dtype) if scalar is None else scalar
    if np.dtype(dtype).kind == "f" and x.size > 3:
        x.flat[:3] = [np.nan, -np.inf, -0.0]
    expected = np.where(cond, x, y)
    got = branchless.where(cond, x, y)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))
    assert elementwise.where.numpy_impl is branchless.where


@pytest.mark.parametrize("args", [(np.ones(5000, bool), np.ones(5000, complex), 0),
                                  (np.ones(5000) > 0, np.ones(5000, bool), False),
                                  (np.array(True), 1.0, 2.0)])
def test_other_dtypes_and_small_inputs_use_numpy_where(args):
    expected = np.where(*args)
    got = branchless.where(*args)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
