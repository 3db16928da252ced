"""Rearranging, tiling and padding arrays and their diagonals and triangles with NumPy's
signatures (flip, roll, tile, repeat, pad, diagonal, trace, tril, triu)."""
import numpy as np

from ..ops import elementwise as ew, reductions as red, shape as sh
from ._indexing import getitem, take
from ._util import as_operand, dtype_of, xp_of, ndim, normalize_axes, normalize_axis, shape
from ._shape import shape_tuple, broadcast_to, ravel, reshape


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
    reps = shape_tuple(reps)
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
