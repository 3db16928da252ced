"""broadcast_to at level 0 is a direct strided view (ops/shape.py); it must behave exactly as
np.broadcast_to: same values, shape and dtype, a read-only view of the input, and NumPy's own
error for incompatible or negative shapes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite.numpy as fnp

_BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
_RO = np.arange(4.0)
_RO.flags.writeable = False
INPUTS = {
    "contiguous": _BASE,
    "size-1 axis": _BASE[:, :1],
    "strided": _BASE[:, :, ::2],
    "transposed": _BASE.T,
    "0-d": np.array(5.0),
    "read-only": _RO,
    "empty": np.zeros((0, 1)),
    "object": np.array([1, "a"], dtype=object),
    "numpy scalar": np.float32(3.0),
    "list": [1.0, 2.0],
}
SHAPES = [(2, 3, 4), (5, 2, 3, 4), (2, 1, 4), (2, 3, 2), (4, 3, 2), (3, 0, 4), (4,), (2, 4),
          (0, 4), (7, 2), (), (-1, 4), (2, 5, 3, 1)]


@pytest.mark.parametrize("name", INPUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_same_as_numpy(name, shape):
    x = INPUTS[name]
    try:
        ref = np.broadcast_to(x, shape)
    except ValueError as e:
        with pytest.raises(ValueError) as info:
            fnp.broadcast_to(x, shape)
        assert str(info.value) == str(e)
        return
    out = fnp.broadcast_to(x, shape)
    assert type(out) is np.ndarray
    assert out.shape == ref.shape and out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)
    assert not out.flags.writeable
    if isinstance(x, np.ndarray) and out.size:
        assert np.shares_memory(out, x)  # a view, not a copy
        with pytest.raises(ValueError, match="read-only"):
            out[...] = 0


def test_error_names_the_shapes():
    with pytest.raises(ValueError, match=r"\(2,3,4\).*\(2,3,5\)"):
        fnp.broadcast_to(_BASE, (2, 3, 5))


def test_view_sees_later_writes_to_the_input():
    x = np.zeros(3)
    out = fnp.broadcast_to(x, (2, 3))
    x[1] = 7.0
    np.testing.assert_array_equal(out, [[0, 7, 0], [0, 7, 0]])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), max_size=3), st.lists(st.integers(1, 3), max_size=2),
       st.data())
def test_random_shapes(xshape, lead, data):
    # each input axis either kept, or of size 1 and stretched to a random size
    xshape = tuple(xshape)
    target = tuple(lead) + tuple(d if d != 1 else data.draw(st.integers(0, 3)) for d in xshape)
    x = np.arange(int(np.prod(xshape)), dtype=np.float64).reshape(xshape)
    out = fnp.broadcast_to(x, target)
    np.testing.assert_array_equal(out, np.broadcast_to(x, target))
    assert not out.flags.writeable
