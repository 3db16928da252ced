"""Shape functions with NumPy's signatures, over the shape primitives."""
import operator

import numpy as np

from ..ops import shape as sh
from ._util import as_operand, ndim, normalize_axes, normalize_axis, shape


def shape_tuple(shape_arg):
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
    return sh.reshape(as_operand(a), shape=shape_tuple(shape), order=order)


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
    return sh.broadcast_to(as_operand(array), shape=shape_tuple(shape))


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
