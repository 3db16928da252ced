"""Searching, interpolation, partial sorting and unique: searchsorted and argpartition are
primitives with integer results; interp, partition and unique compose them (and unique, whose
result's shape depends on the values, needs concrete values: it is refused under vmap)."""
import numpy as np

from ..ops import elementwise as ew, searching
from ..tensor import Tensor
from ._indexing import _concrete, numpy_scalar, take, take_along_axis
from ._shape import ravel
from ._util import as_operand, dtype_of, ndim, reject, shape, xp_of


def searchsorted(a, v, side="left", sorter=None):
    """As numpy.searchsorted: where v would be inserted into sorted `a` to keep it sorted.

    Batched on both sides under vmap (a batch of tables, of queries, or both).

    Args:
        a: a sorted 1-d array (or sorted by sorter).
        v: the values to insert.
        side: "left" (first suitable index) or "right" (last).
        sorter: integer indices that sort a.

    Returns:
        An integer array of v's shape.

    Raises:
        ValueError: a is not 1-d, or side is neither "left" nor "right".

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.searchsorted(np.array([1, 2, 3]), np.array([2, 5]))
        array([1, 3])
    """
    a, v = as_operand(a), as_operand(v)
    if ndim(a) != 1:
        raise ValueError(f"searchsorted: a must be 1-d, got shape {shape(a)}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
    if sorter is not None:
        a = take(a, as_operand(sorter))
    return searching.searchsorted(a, v, side=side)


def interp(x, xp, fp, left=None, right=None, period=None):
    """As numpy.interp: piecewise-linear interpolation of the points (xp, fp) at x.

    fp[0] (or `left`) below xp[0], fp[-1] (or `right`) above xp[-1]. Differentiable in x, xp
    and fp; the result is float64, as NumPy's.

    Args:
        x: array_like, where to evaluate.
        xp: 1-d increasing array_like, the sample points.
        fp: 1-d array_like of xp's length, the sample values.
        left, right: the values below xp[0] and above xp[-1] (default fp[0] and fp[-1]).
        period: not supported.

    Returns:
        A float64 array of x's shape.

    Raises:
        ValueError: xp and fp are not 1-d of the same non-zero length.
        TypeError: period= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.interp(np.array([0, 1, 5]), np.array([0, 2, 4]), np.array([0, 4, 2]))
        array([0., 2., 2.])
    """
    reject("interp", period=period)
    x, xp, fp = as_operand(x), as_operand(xp), as_operand(fp)
    if ndim(xp) != 1 or shape(xp) != shape(fp) or shape(xp)[0] == 0:
        raise ValueError("interp: xp and fp must be 1-d sequences of the same, non-zero length")
    x, xp, fp = (_as_float64(t) for t in (x, xp, fp))
    n = shape(xp)[0]
    if n == 1:
        out = ew.add(ew.multiply(x, 0.0), fp[0])
    else:
        i = ew.minimum(ew.maximum(searching.searchsorted(xp, x, side="right"), 1), n - 1)
        x0, x1, f0, f1 = take(xp, i - 1), take(xp, i), take(fp, i - 1), take(fp, i)
        out = f0 + (x - x0) / (x1 - x0) * (f1 - f0)
    out = ew.where(ew.less(x, xp[0]), fp[0] if left is None else left, out)
    return numpy_scalar(ew.where(ew.greater(x, xp[-1]), fp[-1] if right is None else right,
                                 out))


def _as_float64(t):
    return t if dtype_of(t) == np.float64 else ew.astype(t, dtype=np.dtype(np.float64))


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """As numpy.argpartition: indices that put the kth element(s) in sorted place.

    Smaller elements come before, larger after; an integer result with zero derivative.

    Args:
        a: an array (or a value under a transform).
        kth: an int or a sequence of ints, the position(s) to put in sorted place.
        axis: an int (default -1), or None to partition the flattened array.
        kind: accepted for NumPy compatibility; ignored.
        order: not supported.

    Returns:
        An integer array of a's shape (1-d with axis=None).

    Raises:
        TypeError: order= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> a = np.array([5, 1, 4, 2])
        >>> int(a[fnp.argpartition(a, 1)][1])
        2
    """
    reject("argpartition", order=order)
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), -1
    return searching.argpartition(a, kth=kth, axis=axis)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """As numpy.partition: `a` with its kth element in sorted place.

    Smaller elements come before it and larger after (the arrangement of argpartition).
    Differentiable: the values move with their derivatives.

    Args:
        a: the array.
        kth: int or sequence of ints, the position(s) to put in sorted place.
        axis: the axis (-1 by default; None flattens).
        kind: accepted for NumPy compatibility.
        order: not supported.

    Returns:
        An array of a's shape (flattened when axis is None).

    Raises:
        TypeError: order= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.partition(np.array([3, 1, 2]), 1)[1]
        np.int64(2)
    """
    reject("partition", order=order)
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), -1
    return take_along_axis(a, searching.argpartition(a, kth=kth, axis=axis), axis)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True):
    """As numpy.unique: the sorted unique values (on concrete values).

    Under grad and jvp each unique value carries the derivative of its first occurrence;
    under vmap and ft.jit, whose results need shapes known without the values, it is refused.

    Args:
        ar: the array.
        return_index: also return the indices of the first occurrences.
        return_inverse: also return the indices that rebuild ar from the unique values.
        return_counts: also return how often each value occurs.
        axis: unique sub-arrays along this axis (None flattens).
        equal_nan: treat NaNs as one value.

    Returns:
        The unique values, or a tuple with the requested extra arrays.

    Raises:
        TypeError: called under vmap or ft.jit (TracerConversionError there).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.unique(np.array([3, 1, 3, 2]))
        array([1, 2, 3])
    """
    ar = as_operand(ar)
    try:
        concrete = _concrete(ar)
    except TypeError as e:
        raise type(e)("functorch_lite.numpy.unique cannot run under vmap or ft.jit: the "
                      "number of unique values depends on the values, so under vmap it would "
                      "differ per example and ft.jit could not compile it. Call "
                      "it outside the transformed (or jitted) function, or use a fixed-size "
                      "alternative (fnp.sort, a comparison with fnp.equal).") from e
    result = xp_of(concrete).unique(concrete, return_index=True, return_inverse=return_inverse,
                                    return_counts=return_counts, axis=axis,
                                    equal_nan=equal_nan)
    values, index, rest = result[0], result[1], result[2:]
    if isinstance(ar, Tensor):
        values = take(ar, index, axis=axis)
    out = (values,) + ((index,) if return_index else ()) + tuple(rest)
    return out if len(out) > 1 else out[0]

