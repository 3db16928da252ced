"""The fast path of the `scatter` kernel for a basic index (ints, slices, None, Ellipsis: an
in-place ufunc on the view instead of ufunc.at, which is several times slower) gives ufunc.at's
results, in every mode. This is the reverse-mode rule of basic slicing (x[:-1])."""
import numpy as np
import pytest

from functorch_lite.ops.indexing import scatter

RNG = np.random.default_rng(0)


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
