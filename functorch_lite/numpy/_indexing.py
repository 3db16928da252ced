"""Indexing: `x[idx]`, functional `.at[idx]` updates, take, take_along_axis, put_along_axis."""
import numpy as np

from ..ops import elementwise as ew
from ..ops.indexing import ARRAY, getitem as getitem_p, scatter as scatter_p
from ..tensor import Tensor
from ._shape import ravel
from ._util import as_operand, ndim, normalize_axis, shape, xp_of


def parse_index(idx, xp=np):
    """Split a NumPy index into (static index with ARRAY slots, array operands). Lists,
    booleans and, for a device `xp`, NumPy index arrays become arrays of `xp` (the indexed
    value's array module): CuPy takes NumPy index arrays, so the library does too."""
    kind = type(idx)
    if kind is int:  # fast paths for the commonest single indices
        return (idx,), []
    if kind is np.ndarray:
        return (ARRAY,), [idx if xp is np else xp.asarray(idx)]
    if isinstance(idx, Tensor):
        return (ARRAY,), [idx]
    if kind is str or kind is list and idx and all(type(i) is str for i in idx):
        _refuse_field_read(idx)
    if not isinstance(idx, tuple):
        idx = (idx,)
    static, arrays = [], []
    for item in idx:
        if item is None or item is Ellipsis or isinstance(item, (int, np.integer)) and \
                not isinstance(item, (bool, np.bool_)):
            static.append(int(item) if isinstance(item, (int, np.integer)) else item)
        elif isinstance(item, slice):
            for bound in (item.start, item.stop, item.step):
                if isinstance(bound, Tensor):
                    raise TypeError("slice bounds must be Python ints, not traced values; "
                                    "use fnp.take or integer-array indexing for dynamic indices")
            static.append(item)
        else:
            if isinstance(item, str):
                _refuse_field_read(item)
            if isinstance(item, (list, tuple, bool, np.bool_)) or (
                    xp is not np and isinstance(item, np.ndarray)):
                item = xp.asarray(item)
            static.append(ARRAY)
            arrays.append(item)
    return tuple(static), arrays


def _refuse_field_read(name):
    """A structured array's field read (s['a']) on a value of a transform: the ops compute on
    numeric arrays only (the XLA backend has no structured dtypes at all), so the fix is the
    user's: one array per field."""
    raise TypeError(f"indexing by the field name {name!r} reads a field of a structured array: "
                    "structured dtypes are not supported under transforms (vmap, grad, jvp, "
                    "ft.jit); pass the fields as separate arrays, e.g. f(s['a'], s['b']) for a "
                    "structured array s")


def on_device_of(a, *data, size=None):
    """`a`, an operand that only selects (an integer index array, labels, a condition), moved
    to the device module of the first of `data` (the values it picks from) that has one. CuPy
    takes NumPy index arrays in indexing; the library takes them wherever an operand selects.

    A NumPy array, NumPy scalar or Python int is copied over. A value under vmap holding NumPy
    data (batched labels or conditions) moves through indexing, whose rules carry NumPy index
    arrays to the data under every transform: it picks from a device table, arange(size) for
    integers known to lie in [0, size) (labels), else [False, True] by its truth values (a
    condition). Anything else, and everything on a NumPy program, passes unchanged."""
    if not isinstance(a, (np.ndarray, np.generic, Tensor, int)):
        return a
    xp = next((m for m in map(xp_of, data) if m is not np), np)
    if xp is np or xp_of(a) is not np:
        return a
    if not isinstance(a, Tensor):
        return xp.asarray(a)
    if a.dtype == np.bool_ or size is None:
        return getitem(xp.asarray([False, True]), ew.astype(ew.not_equal(a, 0), dtype=np.intp))
    return getitem(xp.arange(size, dtype=a.dtype), a)


def getitem(a, idx):
    """a[idx] for ints, slices, None, Ellipsis, integer arrays and boolean masks; a boolean mask
    makes the shape depend on the values, so it works on plain arrays and under grad and jvp, not
    under vmap or ft.jit (use fnp.where there)."""
    index, arrays = parse_index(idx, xp_of(a))
    return getitem_p(a, *arrays, index=index)


def numpy_scalar(a):
    """a, or a[()] when it is 0-d: the NumPy scalar NumPy's own function gives for a 0-d result
    (its last step a ufunc or a reduction). Recorded on a wrapper, so ft.jit returns that type
    too (Note [output types] in compiler/trace.py)."""
    return getitem_p(a, index=()) if ndim(a) == 0 else a


class _IndexUpdateRef:
    """`x.at[idx]`: the functional updates of JAX (`set`, `add`, `multiply`, ...)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def _update(self, values, mode):
        index, arrays = parse_index(self.index, xp_of(self.array))
        return scatter_p(self.array, values, *arrays, index=index, mode=mode)

    def get(self):
        return getitem(self.array, self.index)

    def set(self, values):
        """A copy with x[idx] = values."""
        return self._update(values, "set")

    def add(self, values):
        """A copy with values added at idx; repeated indices accumulate (as np.add.at)."""
        return self._update(values, "add")

    def subtract(self, values):
        return self._update(ew.negative(values), "add")

    def multiply(self, values):
        """A copy with x[idx] multiplied by values; repeated indices accumulate."""
        return self._update(values, "multiply")

    def divide(self, values):
        return self._update(ew.reciprocal(values), "multiply")

    def min(self, values):
        """A copy with x[idx] = minimum(x[idx], values), accumulating over repeats."""
        return self._update(values, "min")

    def max(self, values):
        """A copy with x[idx] = maximum(x[idx], values), accumulating over repeats."""
        return self._update(values, "max")


class _IndexUpdateHelper:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


def at(x):
    """Functional updates of `x` (an array or wrapper): `fnp.at(x)[idx].set(v)` is
    `x.at[idx].set(v)` and also works on plain arrays."""
    return _IndexUpdateHelper(as_operand(x))


def take(a, indices, axis=None, out=None, mode=None):
    """As numpy.take: the elements of `a` at `indices` along `axis`.

    Args:
        a: the array.
        indices: integer array or list of indices.
        axis: the axis (None: the flattened array).
        out, mode: not supported.

    Returns:
        An array where axis is replaced by indices' shape.

    Raises:
        TypeError: out= or mode= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.take(np.array([[1, 2, 3], [4, 5, 6]]), [2, 0], axis=1)
        array([[3, 1],
               [6, 4]])
    """
    if out is not None or mode is not None:
        raise TypeError("functorch_lite.numpy.take does not support out= or mode=")
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    return getitem(a, (slice(None),) * axis + (indices,))  # lists: arrays of a.xp


def _along_axis_index(arr, indices, axis):
    """The advanced index that pairs `indices` with aranges over arr's other axes (which
    broadcast against the indices' sizes there, as NumPy's)."""
    nd = ndim(arr)
    if ndim(indices) != nd:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    xp = xp_of(arr)
    arr_shape = shape(arr)
    index = []
    for dim in range(nd):
        if dim == axis:
            index.append(indices)
        else:
            fancy = [1] * nd
            fancy[dim] = arr_shape[dim]
            index.append(xp.arange(arr_shape[dim]).reshape(fancy))
    return tuple(index)


def take_along_axis(arr, indices, axis):
    """As numpy.take_along_axis: elements of `arr` picked by `indices` along `axis`.

    Args:
        arr: the array.
        indices: integer array of arr's number of dimensions (as argsort returns).
        axis: the axis indices run along (None: the flattened array).

    Returns:
        An array of the broadcast shape of arr and indices.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> a = np.array([[3, 1, 2]])
        >>> fnp.take_along_axis(a, np.argsort(a, axis=1), axis=1)
        array([[1, 2, 3]])
    """
    arr, indices = as_operand(arr), as_operand(indices)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = normalize_axis(axis, ndim(arr))
    return getitem(arr, _along_axis_index(arr, indices, axis))


def put_along_axis(arr, indices, values, axis, inplace=False, mode=None):
    """As numpy.put_along_axis: a copy of arr with values put at indices.

    NumPy's version mutates arr; this one returns the updated copy (as jax.numpy does).

    Args:
        arr: the array.
        indices: integer array of arr's number of dimensions, indexing along axis.
        values: broadcast to indices' shape.
        axis: the axis indices run along.
        inplace: must be False.
        mode: accepted for compatibility.

    Returns:
        A new array of arr's shape.

    Raises:
        TypeError: inplace=True.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.put_along_axis(np.array([[1, 2, 3]]), np.array([[2]]), 9, axis=1)
        array([[1, 2, 9]])
    """
    if inplace:
        raise TypeError("put_along_axis(..., inplace=True) would mutate its input; "
                        "functorch_lite returns the updated copy (pass inplace=False)")
    arr, indices = as_operand(arr), as_operand(indices)
    axis = normalize_axis(axis, ndim(arr))
    return at(arr)[_along_axis_index(arr, indices, axis)].set(values)


def add_along_axis(arr, indices, values, axis):
    """A copy of arr with values added at indices along axis; repeated indices accumulate
    (the scatter-add transpose of take_along_axis)."""
    arr, indices = as_operand(arr), as_operand(indices)
    axis = normalize_axis(axis, ndim(arr))
    return at(arr)[_along_axis_index(arr, indices, axis)].add(values)


def nonzero(a):
    """As numpy.nonzero: the indices of the nonzero elements.

    The result's shape depends on the values, so this needs a concrete array: it is refused
    under vmap. Integer results carry no derivative.

    Args:
        a: array_like.

    Returns:
        A tuple of ndim(a) integer index arrays, one per axis.

    Raises:
        TypeError: `a` is batched (under vmap).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.nonzero(np.array([0, 3, 0, 5]))
        (array([1, 3]),)
        >>> fnp.nonzero(np.array([[1, 0], [0, 2]]))
        (array([0, 1]), array([0, 1]))
    """
    a = _concrete(a)
    return xp_of(a).nonzero(a)


def argwhere(a):
    """As numpy.argwhere: the indices of the nonzero elements, one row each.

    The result's shape depends on the values, so it is refused under vmap.

    Args:
        a: an array (or a value under a transform).

    Returns:
        An integer array of shape (number of nonzero elements, a.ndim).

    Raises:
        TypeError: a is batched (under vmap).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.argwhere(np.array([[0, 3], [4, 0]]))
        array([[0, 1],
               [1, 0]])
    """
    a = _concrete(a)
    return xp_of(a).argwhere(a)


def _concrete(a):
    """The raw array of `a`: derivative levels are dropped (integer results carry none); a
    batched value is refused (the result's shape would differ per example)."""
    if isinstance(a, Tensor):
        a = ew.stop_gradient(a)
    if isinstance(a, Tensor):
        return a._concretize("array")
    return a if hasattr(a, "shape") else np.asarray(a)
