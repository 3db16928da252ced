"""Shape functions with NumPy's signatures, over the shape primitives."""
import numpy as np

from ..ops import elementwise as ew, reductions as red, shape as sh
from ._util import as_operand, dtype_of, xp_of, ndim, normalize_axes, normalize_axis, shape


def _tuple(shape_arg):
    if type(shape_arg) is tuple:
        for d in shape_arg:
            if type(d) is not int:
                break
        else:
            return shape_arg  # the usual case, already a tuple of ints
    if isinstance(shape_arg, (int, np.integer)):
        return (int(shape_arg),)
    return tuple(map(int, shape_arg))


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """`a` with a new shape (one -1 is inferred), as numpy.reshape; a view where NumPy makes one."""
    if shape is None:
        shape = newshape
    return sh.reshape(as_operand(a), shape=_tuple(shape), order=order)


def ravel(a, order="C"):
    """`a` flattened to 1-d (C order), as numpy.ravel."""
    return sh.reshape(as_operand(a), shape=(-1,), order=order)


def flatten(a, order="C"):
    return ravel(a, order)


def transpose(a, axes=None):
    """`a` with its axes permuted (reversed by default), as numpy.transpose."""
    a = as_operand(a)
    if axes is not None:
        axes = tuple(axes)
        if len(axes) != ndim(a):
            raise ValueError(f"transpose: axes {axes} don't match an array of shape {shape(a)}: "
                             f"give a permutation of its {ndim(a)} axes")
        axes = tuple(normalize_axis(ax, ndim(a)) for ax in axes)
    return sh.transpose(a, axes=axes)


def moveaxis(a, source, destination):
    """`a` with `source` axes moved to `destination`, as numpy.moveaxis."""
    a = as_operand(a)
    nd = ndim(a)
    source = normalize_axes(source, nd)
    destination = normalize_axes(destination, nd)
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [i for i in range(nd) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return sh.transpose(a, axes=tuple(order))


def swapaxes(a, axis1, axis2):
    """`a` with two axes exchanged, as numpy.swapaxes."""
    a = as_operand(a)
    nd = ndim(a)
    axes = list(range(nd))
    i, j = normalize_axis(axis1, nd), normalize_axis(axis2, nd)
    axes[i], axes[j] = axes[j], axes[i]
    return sh.transpose(a, axes=tuple(axes))


def expand_dims(a, axis):
    """`a` with new length-1 axes at `axis`, as numpy.expand_dims."""
    a = as_operand(a)
    s = shape(a)
    axes = normalize_axes(axis, len(s) + (len(axis) if isinstance(axis, (tuple, list)) else 1))
    it = iter(s)
    new = tuple(1 if i in axes else next(it) for i in range(len(s) + len(axes)))
    return sh.reshape(a, shape=new)


def squeeze(a, axis=None):
    """`a` without its length-1 axes (or only those in `axis`), as numpy.squeeze."""
    a = as_operand(a)
    s = shape(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(s) if d == 1)
    else:
        axes = normalize_axes(axis, len(s))
        for ax in axes:
            if s[ax] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
    return sh.reshape(a, shape=tuple(d for i, d in enumerate(s) if i not in axes))


def broadcast_to(array, shape, subok=False):
    """As numpy.broadcast_to: `array` broadcast to `shape`.

    Read-only view semantics; the derivative sums over the broadcast axes.

    Args:
        array: an array (or a value under a transform).
        shape: the target shape (an int or a tuple of ints).
        subok: accepted for NumPy compatibility; ignored.

    Returns:
        An array of shape `shape`.

    Raises:
        ValueError: array does not broadcast to `shape`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.broadcast_to(np.array([1, 2]), (2, 2))
        array([[1, 2],
               [1, 2]])
    """
    return sh.broadcast_to(as_operand(array), shape=_tuple(shape))


def broadcast_shapes(*shapes):
    """As numpy.broadcast_shapes: the shape the given shapes broadcast to.

    Args:
        *shapes: shapes (tuples of ints, or ints).

    Returns:
        A tuple of ints.

    Raises:
        ValueError: the shapes do not broadcast.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.broadcast_shapes((2, 1), (3,))
        (2, 3)
    """
    return np.broadcast_shapes(*shapes)


def broadcast_arrays(*args, subok=False):
    """As numpy.broadcast_arrays: the arguments broadcast against each other.

    Args:
        *args: arrays (or values under a transform).
        subok: accepted for NumPy compatibility; ignored.

    Returns:
        A tuple of arrays, all of the broadcast shape.

    Raises:
        ValueError: the shapes do not broadcast.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> x, y = fnp.broadcast_arrays(np.array([[1], [2]]), np.array([3, 4, 5]))
        >>> x.shape, y.shape
        ((2, 3), (2, 3))
    """
    target = np.broadcast_shapes(*(shape(a) for a in args))
    return tuple(a if shape(a) == target else broadcast_to(a, target) for a in args)


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """As numpy.concatenate: the arrays joined along an existing `axis`.

    Args:
        arrays: a sequence of arrays (or values under a transform) whose shapes agree except
            along `axis`.
        axis: the axis to join along; None flattens the arrays first.
        out: not supported.
        dtype: the result's dtype (default: the arrays' common dtype).
        casting: accepted for NumPy compatibility; ignored.

    Returns:
        The joined array.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.concatenate([np.array([[1, 2]]), np.array([[3, 4]])], axis=0)
        array([[1, 2],
               [3, 4]])
    """
    if out is not None:
        raise TypeError("functorch_lite.numpy.concatenate does not support out=")
    arrays = [as_operand(a) for a in arrays]
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    out = sh.concatenate(*arrays, axis=axis)
    return out if dtype is None else ew.astype(out, dtype=np.dtype(dtype))


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """The arrays joined along a new `axis`, as numpy.stack."""
    arrays = [as_operand(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, ndim(arrays[0]) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis, out=out, dtype=dtype)


def atleast_1d(*arys):
    """As numpy.atleast_1d: the inputs with at least one dimension.

    Args:
        *arys: arrays or scalars (or values under a transform).

    Returns:
        The array for one input, else a tuple of arrays; 0-d inputs become shape (1,).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.atleast_1d(np.array(3))
        array([3])
    """
    res = [reshape(a, (1,)) if ndim(a) == 0 else as_operand(a) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):
    """As numpy.atleast_2d: the inputs with at least two dimensions.

    Args:
        *arys: arrays or scalars (or values under a transform).

    Returns:
        The array for one input, else a tuple of arrays; 0-d inputs become shape (1, 1), 1-d
        inputs of length n shape (1, n).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.atleast_2d(np.array([1, 2]))
        array([[1, 2]])
    """
    def two(a):
        nd = ndim(a)
        return reshape(a, (1, 1)) if nd == 0 else expand_dims(a, 0) if nd == 1 else as_operand(a)
    res = [two(a) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """The arrays joined along axis 1 (axis 0 for 1-d inputs), as numpy.hstack."""
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if ndim(arrs[0]) == 1 else 1, dtype=dtype)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """The arrays joined along axis 0 after making them at least 2-d, as numpy.vstack."""
    return concatenate([atleast_2d(a) for a in tup], axis=0, dtype=dtype)


def _split_points(n, indices_or_sections, strict):
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and n % sections:
            raise ValueError("array split does not result in an equal division")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        return list(np.cumsum([0] + sizes))
    return [0] + [int(i) for i in indices_or_sections] + [n]


def array_split(ary, indices_or_sections, axis=0):
    """As numpy.array_split: split `ary` into sections that may differ in size.

    Args:
        ary: an array (or a value under a transform).
        indices_or_sections: an int N (N sections, the first ones one longer when the length
            does not divide), or a sorted sequence of split indices.
        axis: the axis to split along.

    Returns:
        A list of arrays.

    Raises:
        ValueError: the number of sections is not positive.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.array_split(np.arange(5), 2)
        [array([0, 1, 2]), array([3, 4])]
    """
    ary = as_operand(ary)
    axis = normalize_axis(axis, ndim(ary))
    n = shape(ary)[axis]
    points = _split_points(n, indices_or_sections, strict=False)
    from ._indexing import getitem
    lead = (slice(None),) * axis
    return [getitem(ary, lead + (slice(lo, hi),)) for lo, hi in zip(points[:-1], points[1:])]


def split(ary, indices_or_sections, axis=0):
    """A list of sub-arrays of `a` along `axis`: equal sections or cut at given indices, as
    numpy.split."""
    ary = as_operand(ary)
    n = shape(ary)[normalize_axis(axis, ndim(ary))]
    _split_points(n, indices_or_sections, strict=True)
    return array_split(ary, indices_or_sections, axis)


def flip(m, axis=None):
    """`a` reversed along `axis` (all axes by default), as numpy.flip."""
    m = as_operand(m)
    axes = normalize_axes(axis, ndim(m))
    from ._indexing import getitem
    return getitem(m, tuple(slice(None, None, -1) if i in axes else slice(None)
                            for i in range(ndim(m))))


def roll(a, shift, axis=None):
    """`a` rotated by `shift` along `axis` (the flattened array when None), as numpy.roll."""
    a = as_operand(a)
    if axis is None:
        return reshape(sh.roll(ravel(a), shift=shift, axis=0), shape(a))
    if isinstance(axis, (tuple, list)):
        axis = tuple(normalize_axis(ax, ndim(a)) for ax in axis)
        shift = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,) * len(axis)
    else:
        axis = normalize_axis(axis, ndim(a))
    return sh.roll(a, shift=shift, axis=axis)


def tile(A, reps):
    """`a` repeated `reps` times along each axis, as numpy.tile."""
    A = as_operand(A)
    reps = _tuple(reps)
    s = shape(A)
    nd = max(len(s), len(reps))
    s = (1,) * (nd - len(s)) + s
    reps = (1,) * (nd - len(reps)) + reps
    x = reshape(A, sum(((1, d) for d in s), ()))
    x = broadcast_to(x, sum(((r, d) for r, d in zip(reps, s)), ()))
    return reshape(x, tuple(r * d for r, d in zip(reps, s)))


def repeat(a, repeats, axis=None):
    """Each element of `a` repeated `repeats` times along `axis`, as numpy.repeat."""
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    n = shape(a)[axis]
    index = xp_of(a).asarray(np.repeat(np.arange(n), np.asarray(repeats)))
    from ._indexing import take
    return take(a, index, axis=axis)


def pad(array, pad_width, mode="constant", constant_values=0):
    """`a` padded by `pad_width` with the given `mode`, as numpy.pad; an unsupported mode raises an
    error naming it."""
    if mode != "constant":
        raise NotImplementedError(f"pad mode {mode!r} is not supported (only 'constant')")
    array = as_operand(array)
    nd = ndim(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (nd, 2))
    return sh.pad(array, pad_width=tuple((int(b), int(e)) for b, e in widths),
                  constant_values=constant_values)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """As numpy.diagonal: the diagonal `offset` of the planes (`axis1`, `axis2`).

    Args:
        a: an array of at least two dimensions (or a value under a transform).
        offset: the diagonal: 0 the main one, > 0 above it, < 0 below it.
        axis1: the first axis of the planes.
        axis2: the second axis of the planes.

    Returns:
        An array: a's other axes, then the diagonal as the last axis.

    Raises:
        numpy.exceptions.AxisError: axis1 or axis2 is out of range.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.diagonal(np.array([[1, 2], [3, 4]]))
        array([1, 4])
    """
    a = as_operand(a)
    nd = ndim(a)
    return sh.diagonal(a, offset=offset, axis1=normalize_axis(axis1, nd),
                       axis2=normalize_axis(axis2, nd))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along diagonal `offset` of the planes (`axis1`, `axis2`), as numpy.trace."""
    if out is not None:
        raise TypeError("functorch_lite.numpy.trace does not support out=")
    return red.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def _triangle(m, k, lower):
    m = as_operand(m)
    rows, cols = shape(m)[-2:]
    mask = np.tri(rows, cols, k if lower else k - 1, dtype=bool)
    if not lower:
        mask = ~mask
    xp = xp_of(m)
    return ew.where(xp.asarray(mask), m, xp.zeros((), dtype_of(m)))


def tril(m, k=0):
    """`a` with the elements above diagonal `k` set to zero, as numpy.tril."""
    return _triangle(m, k, lower=True)


def triu(m, k=0):
    """`a` with the elements below diagonal `k` set to zero, as numpy.triu."""
    return _triangle(m, k, lower=False)
