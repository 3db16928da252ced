"""Shape functions with NumPy's signatures, over the shape primitives."""
import operator

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
    if isinstance(shape_arg, (int, np.integer)) or getattr(shape_arg, "ndim", None) == 0:
        return (operator.index(shape_arg),)   # a 0-d array as NumPy takes it; a traced one
    return tuple(map(int, shape_arg))         # raises its transform's conversion error


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """As numpy.reshape: `a` with a new shape.

    Args:
        a: the array.
        shape: int or tuple of ints; one -1 is inferred (newshape is its old name).
        order: "C" (default) or another NumPy order.
        copy: accepted for NumPy compatibility.

    Returns:
        An array of the new shape (a view where NumPy makes one).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.reshape(np.arange(6), (2, -1))
        array([[0, 1, 2],
               [3, 4, 5]])
    """
    if shape is None:
        shape = newshape
    return sh.reshape(as_operand(a), shape=_tuple(shape), order=order)


def ravel(a, order="C"):
    """As numpy.ravel: `a` flattened to 1-d.

    order "K" reads the elements in the order of the memory of a raw array (or of the array
    ft.jit's tracer stands for), as NumPy: its axes by decreasing stride; a value under
    another transform has no memory layout of its own, and is read in C order.

    Args:
        a: the array.
        order: "C" (default) or another NumPy order.

    Returns:
        A 1-d array of a's size.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ravel(np.array([[1, 2], [3, 4]]))
        array([1, 2, 3, 4])
        >>> fnp.ravel(np.array([[1, 2], [3, 4]]).T, order="K")
        array([1, 2, 3, 4])
    """
    a = as_operand(a)
    if order == "K":
        raw = a.value if getattr(a, "replays_layout", False) else a
        strides = getattr(raw, "strides", None)
        if strides is not None and ndim(a) > 1:
            a = transpose(a, sorted(range(ndim(a)), key=lambda i: -abs(strides[i])))
        order = "C"
    return sh.reshape(a, shape=(-1,), order=order)


def flatten(a, order="C"):
    return ravel(a, order)


def transpose(a, axes=None):
    """As numpy.transpose: `a` with its axes permuted.

    Args:
        a: the array.
        axes: a permutation of a's axes (reversed when None).

    Returns:
        The permuted array.

    Raises:
        ValueError: axes does not have one entry per axis of a.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.transpose(np.array([[1, 2, 3]]))
        array([[1],
               [2],
               [3]])
    """
    a = as_operand(a)
    if axes is not None:
        axes = tuple(axes)
        if len(axes) != ndim(a):
            raise ValueError(f"transpose: axes {axes} don't match an array of shape {shape(a)}: "
                             f"give a permutation of its {ndim(a)} axes")
        axes = tuple(normalize_axis(ax, ndim(a)) for ax in axes)
    return sh.transpose(a, axes=axes)


def moveaxis(a, source, destination):
    """As numpy.moveaxis: `a` with the `source` axes moved to `destination`.

    Args:
        a: array_like.
        source: int or sequence of ints, the axes to move.
        destination: int or sequence of ints, their positions in the result.

    Returns:
        A transpose of `a`; the other axes keep their relative order.

    Raises:
        ValueError: `source` and `destination` differ in length, or an axis is given twice.
        numpy.exceptions.AxisError: an axis out of range.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
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
    """As numpy.swapaxes: `a` with two axes exchanged.

    Args:
        a: the array.
        axis1: the first axis.
        axis2: the second axis.

    Returns:
        The array with axis1 and axis2 exchanged.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.swapaxes(np.zeros((2, 3, 4)), 0, 2).shape
        (4, 3, 2)
    """
    a = as_operand(a)
    nd = ndim(a)
    axes = list(range(nd))
    i, j = normalize_axis(axis1, nd), normalize_axis(axis2, nd)
    axes[i], axes[j] = axes[j], axes[i]
    return sh.transpose(a, axes=tuple(axes))


def expand_dims(a, axis):
    """As numpy.expand_dims: `a` with new length-1 axes inserted at `axis`.

    Args:
        a: array_like.
        axis: int or tuple of ints, positions of the new axes in the result.

    Returns:
        A view-like reshape of `a` with ndim(a) + number of new axes dimensions.

    Raises:
        numpy.exceptions.AxisError: an axis out of range for the result.
        ValueError: an axis given twice.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.expand_dims(np.array([1, 2]), 0).shape
        (1, 2)
        >>> fnp.expand_dims(np.array([1, 2]), (0, -1)).shape
        (1, 2, 1)
    """
    a = as_operand(a)
    s = shape(a)
    axes = normalize_axes(axis, len(s) + (len(axis) if isinstance(axis, (tuple, list)) else 1))
    it = iter(s)
    new = tuple(1 if i in axes else next(it) for i in range(len(s) + len(axes)))
    return sh.reshape(a, shape=new)


def squeeze(a, axis=None):
    """As numpy.squeeze: `a` without its length-1 axes.

    Args:
        a: the array.
        axis: int or tuple of ints to remove (all length-1 axes when None).

    Returns:
        The array with those axes removed.

    Raises:
        ValueError: an axis in `axis` does not have length 1.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.squeeze(np.array([[[1], [2]]])).shape
        (2,)
    """
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
    """As numpy.stack: the arrays joined along a new `axis`.

    Args:
        arrays: a sequence of arrays of one shape.
        axis: the position of the new axis in the result.
        dtype: the result dtype.
        casting: accepted for NumPy compatibility.
        out: not supported.

    Returns:
        An array with one more axis than the inputs.

    Raises:
        ValueError: no arrays, or arrays of different shapes.
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.stack([np.array([1, 2]), np.array([3, 4])], axis=1)
        array([[1, 3],
               [2, 4]])
    """
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
    """As numpy.hstack: the arrays joined along axis 1 (axis 0 for 1-d inputs).

    Args:
        tup: sequence of array_like; 0-d inputs become 1-d.
        dtype: dtype of the result (default: the promoted dtype of the inputs).
        casting: accepted for NumPy compatibility.

    Returns:
        The concatenated array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.hstack([np.array([1, 2]), np.array([3])])
        array([1, 2, 3])
        >>> fnp.hstack([np.array([[1], [2]]), np.array([[3], [4]])])
        array([[1, 3],
               [2, 4]])
    """
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if ndim(arrs[0]) == 1 else 1, dtype=dtype)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """As numpy.vstack: the arrays joined along axis 0, after making them at least 2-d.

    Args:
        tup: a sequence of arrays.
        dtype: the result dtype.
        casting: accepted for NumPy compatibility.

    Returns:
        The stacked array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.vstack([np.array([1, 2]), np.array([3, 4])])
        array([[1, 2],
               [3, 4]])
    """
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
    return list(sh.split(ary, points=tuple(int(p) for p in points), axis=axis))


def split(ary, indices_or_sections, axis=0):
    """As numpy.split: a list of sub-arrays of `ary` along `axis`.

    Args:
        ary: the array.
        indices_or_sections: an int N (N equal sections) or a sorted sequence of cut indices.
        axis: the axis to split along.

    Returns:
        A list of arrays.

    Raises:
        ValueError: N sections do not divide the axis equally, or N is not positive.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.split(np.arange(4), 2)
        [array([0, 1]), array([2, 3])]
    """
    ary = as_operand(ary)
    n = shape(ary)[normalize_axis(axis, ndim(ary))]
    _split_points(n, indices_or_sections, strict=True)
    return array_split(ary, indices_or_sections, axis)


def unstack(x, /, *, axis=0):
    """As numpy.unstack: the slices of `x` along `axis`, as a tuple.

    One primitive however many slices: its reverse-mode rule stacks the slices' cotangents
    once (indexing slice by slice would scatter into a zero array per slice).

    Args:
        x: an array of at least one dimension.
        axis: the axis to slice along.

    Returns:
        A tuple of x.shape[axis] arrays, each of x's shape without that axis.

    Raises:
        ValueError: x is 0-d.
        numpy.exceptions.AxisError: axis out of range.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.unstack(np.array([[1, 2], [3, 4]]), axis=1)
        (array([1, 3]), array([2, 4]))
    """
    x = as_operand(x)
    if ndim(x) == 0:
        raise ValueError("Input array must be at least 1-d.")
    return sh.unstack(x, axis=normalize_axis(axis, ndim(x)))


def flip(m, axis=None):
    """As numpy.flip: `m` reversed along `axis` (all axes by default).

    Args:
        m: array_like.
        axis: None (all axes), an int or a tuple of ints.

    Returns:
        An array of `m`'s shape with the elements reversed along the given axes.

    Raises:
        numpy.exceptions.AxisError: an axis out of range.
        ValueError: an axis given twice.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.flip(np.array([[1, 2], [3, 4]]), axis=1)
        array([[2, 1],
               [4, 3]])
    """
    m = as_operand(m)
    axes = normalize_axes(axis, ndim(m))
    from ._indexing import getitem
    return getitem(m, tuple(slice(None, None, -1) if i in axes else slice(None)
                            for i in range(ndim(m))))


def roll(a, shift, axis=None):
    """As numpy.roll: `a` rotated by `shift` along `axis`.

    Args:
        a: the array.
        shift: int, or tuple of ints matching a tuple axis.
        axis: int, tuple of ints, or None (the flattened array, shape restored).

    Returns:
        An array of a's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.roll(np.array([1, 2, 3, 4]), 1)
        array([4, 1, 2, 3])
    """
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
    """As numpy.tile: `A` repeated `reps` times along each axis.

    Args:
        A: the array.
        reps: int or tuple of ints; the shorter of A's shape and reps is padded with leading 1s.

    Returns:
        The tiled array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.tile(np.array([1, 2]), 2)
        array([1, 2, 1, 2])
    """
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
    """As numpy.repeat: each element of `a` repeated along `axis`.

    Args:
        a: the array.
        repeats: static int or sequence of ints, one per element along axis.
        axis: the axis (None flattens first).

    Returns:
        The array with the repeated elements.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.repeat(np.array([1, 2]), 2)
        array([1, 1, 2, 2])
    """
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, ndim(a))
    n = shape(a)[axis]
    index = xp_of(a).asarray(np.repeat(np.arange(n), np.asarray(repeats)))
    from ._indexing import take
    return take(a, index, axis=axis)


def pad(array, pad_width, mode="constant", constant_values=0):
    """As numpy.pad: `array` padded with a constant.

    Args:
        array: the array to pad.
        pad_width: an int, a (before, after) pair, or one pair per axis.
        mode: only "constant".
        constant_values: the padding value (0 by default).

    Returns:
        The padded array; the padding has a zero derivative.

    Raises:
        NotImplementedError: a mode other than "constant".

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.pad(np.array([1, 2]), (1, 2))
        array([0, 1, 2, 0, 0])
    """
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
    """As numpy.trace: the sum along a diagonal.

    Args:
        a: an array of at least 2 dimensions.
        offset: the diagonal (0 main, positive above, negative below).
        axis1: the first axis of the planes.
        axis2: the second axis of the planes.
        dtype: the accumulation and result dtype.
        out: not supported.

    Returns:
        An array of a's shape without axis1 and axis2 (0-d for a matrix).

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.trace(np.array([[1, 2], [3, 4]]))
        np.int64(5)
    """
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
    """As numpy.tril: `m` with the elements above diagonal `k` set to zero.

    Args:
        m: an array of at least 2 dimensions (the last two form the matrices).
        k: the diagonal (0 main, positive above, negative below).

    Returns:
        An array of m's shape and dtype.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.tril(np.array([[1, 2], [3, 4]]))
        array([[1, 0],
               [3, 4]])
    """
    return _triangle(m, k, lower=True)


def triu(m, k=0):
    """As numpy.triu: `m` with the elements below diagonal `k` set to zero.

    Args:
        m: an array of at least 2 dimensions (the last two form the matrices).
        k: the diagonal (0 main, positive above, negative below).

    Returns:
        An array of m's shape and dtype.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.triu(np.array([[1, 2], [3, 4]]))
        array([[1, 2],
               [0, 4]])
    """
    return _triangle(m, k, lower=False)
