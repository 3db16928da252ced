"""NumPy fast paths inside two kernels give NumPy's own results bit for bit: `where` on large
float arrays (a bit blend instead of numpy.where's per-element branch) and `scatter` with a
basic index (an in-place ufunc on the view instead of ufunc.at). The generic sample tests use
small arrays and array indices, so these paths are checked here."""
import numpy as np
import pytest

from functorch_lite.ops.elementwise import where
from functorch_lite.ops.indexing import scatter

RNG = np.random.default_rng(0)
SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -3.5, 7.0])


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_where_blend_matches_numpy_bit_for_bit(dtype):
    with np.errstate(over="ignore"):
        x = RNG.choice(SPECIAL, (16, 32, 64)).astype(dtype)
    cond = RNG.random(x.shape) < 0.5
    for y in [0, 0.0, -2.5, np.zeros_like(x), RNG.standard_normal(64).astype(dtype),
              RNG.choice(SPECIAL, x.shape).astype(dtype), np.float64(1.0), 2 ** 30]:
        _same_bits(where(cond, x, y), np.where(cond, x, y))
    row_cond = RNG.random((16, 32, 1)) < 0.5           # broadcast condition
    _same_bits(where(row_cond, x, 1.5), np.where(row_cond, x, 1.5))


@pytest.mark.parametrize("mode, ufunc", [("add", np.add), ("multiply", np.multiply),
                                         ("min", np.minimum), ("max", np.maximum)])
def test_scatter_with_a_basic_index_matches_ufunc_at(mode, ufunc):
    x = RNG.standard_normal((3, 4, 5))
    for index, shape in [((slice(None, -1),), (2, 4, 5)), ((1, 2), ()), ((1, 2), (5,)),
                         ((Ellipsis, 3), (3, 4)), ((None, slice(1, 3)), (1, 2, 4, 5)), ((), ())]:
        values = RNG.standard_normal(shape)
        expected = x.copy()
        ufunc.at(expected, index, values)
        np.testing.assert_array_equal(scatter(x, values, index=index, mode=mode), expected)
