"""Reductions with NumPy's signatures: primitives plus mean/var/std as composites."""
import numpy as np

from ..ops import elementwise as ew, reductions as red
from . import _reduction_args as args_
from ._util import as_operand, dtype_of, reject


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """As numpy.sum: the sum over `axis`.

    Args:
        a: the array.
        axis: int, tuple of ints or None (all axes).
        dtype: the accumulation and result dtype.
        keepdims: keep the reduced axes with length 1.
        initial: a starting value added to the sum.
        where: a boolean mask broadcast against `a`: only its True entries are summed.
        out: not supported.

    Returns:
        The sum; a 0-d array when all axes are reduced.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.sum(np.array([[1, 2], [3, 4]]), axis=0)
        array([4, 6])
    """
    if out is not None:
        reject("sum", out=out)
    a = as_operand(a)
    if initial is not None or where is not None:
        return args_.sum_with(a, _axis(axis), keepdims, dtype, initial, where)
    return red.sum(a, axis=_axis(axis), keepdims=keepdims, dtype=dtype)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """As numpy.prod: the product over `axis`.

    Args:
        a: the array.
        axis: int, tuple of ints or None (all axes).
        dtype: the accumulation and result dtype.
        keepdims: keep the reduced axes with length 1.
        initial: a starting value the product is multiplied by.
        where: a boolean mask broadcast against `a`: only its True entries are multiplied.
        out: not supported.

    Returns:
        The product; a 0-d array when all axes are reduced.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.prod(np.array([[1, 2], [3, 4]]), axis=1)
        array([ 2, 12])
    """
    reject("prod", out=out)
    a = as_operand(a)
    if initial is not None or where is not None:
        return args_.prod_with(a, _axis(axis), keepdims, dtype, initial, where)
    return red.prod(a, axis=_axis(axis), keepdims=keepdims, dtype=dtype)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """As numpy.max (also `amax`): the maximum over `axis`.

    Ties share the derivative equally.

    Args:
        a: array_like.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: keep the reduced axes with length 1.
        initial: a value that joins the reduction (needed with `where`; the result of an
            empty reduction).
        where: a boolean mask broadcast against `a`: only its True entries are compared.
        out: not supported.

    Returns:
        An array of `a`'s dtype without the reduced axes (with length-1 ones if keepdims).

    Raises:
        TypeError: out= is given.
        ValueError: `where` without `initial` (as NumPy).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.max(np.array([[1, 5], [3, 2]]), axis=0)
        array([3, 5])
        >>> int(fnp.max(np.array([[1, 5], [3, 2]])))
        5
    """
    reject("max", out=out)
    a = as_operand(a)
    if initial is not None or where is not None:
        return args_.extremum_with("max", a, _axis(axis), keepdims, initial, where)
    return red.max(a, axis=_axis(axis), keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """As numpy.min (also `amin`): the minimum over `axis`.

    Ties share the derivative equally.

    Args:
        a: array_like.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: keep the reduced axes with length 1.
        initial: a value that joins the reduction (needed with `where`; the result of an
            empty reduction).
        where: a boolean mask broadcast against `a`: only its True entries are compared.
        out: not supported.

    Returns:
        An array of `a`'s dtype without the reduced axes (with length-1 ones if keepdims).

    Raises:
        TypeError: out= is given.
        ValueError: `where` without `initial` (as NumPy).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.min(np.array([[1, 5], [3, 2]]), axis=0)
        array([1, 2])
        >>> int(fnp.min(np.array([[1, 5], [3, 2]])))
        1
    """
    reject("min", out=out)
    a = as_operand(a)
    if initial is not None or where is not None:
        return args_.extremum_with("min", a, _axis(axis), keepdims, initial, where)
    return red.min(a, axis=_axis(axis), keepdims=keepdims)


amax, amin = max, min


def argmax(a, axis=None, out=None, *, keepdims=False):
    """As numpy.argmax: the index of the maximum along `axis`.

    An integer result, so its derivative is zero.

    Args:
        a: an array (or a value under a transform).
        axis: an int, or None for the index into the flattened array.
        out: not supported.
        keepdims: keep the reduced axis with size 1.

    Returns:
        An integer array of indices.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.argmax(np.array([[1, 5], [7, 2]]), axis=1)
        array([1, 0])
    """
    reject("argmax", out=out)
    return red.argmax(as_operand(a), axis=axis, keepdims=keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """As numpy.argmin: the index of the minimum along `axis`.

    An integer result, so its derivative is zero.

    Args:
        a: an array (or a value under a transform).
        axis: an int, or None for the index into the flattened array.
        out: not supported.
        keepdims: keep the reduced axis with size 1.

    Returns:
        An integer array of indices.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.argmin(np.array([[1, 5], [7, 2]]), axis=1)
        array([0, 1])
    """
    reject("argmin", out=out)
    return red.argmin(as_operand(a), axis=axis, keepdims=keepdims)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """As numpy.all: whether every element along `axis` is true.

    A boolean result, so its derivative is zero.

    Args:
        a: an array (or a value under a transform).
        axis: None (all elements), an int or a tuple of ints.
        out: not supported.
        keepdims: keep the reduced axes with size 1.
        where: a boolean mask broadcast against `a`: only its True entries are tested.

    Returns:
        A boolean array (0-d when axis is None).

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.all(np.array([[1, 0], [1, 1]]), axis=1)
        array([False,  True])
    """
    reject("all", out=out)
    a = args_.fill_masked(as_operand(a), where, True)
    return red.all(a, axis=_axis(axis), keepdims=keepdims)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """As numpy.any: whether any element along `axis` is true.

    A boolean result, so its derivative is zero.

    Args:
        a: an array (or a value under a transform).
        axis: None (all elements), an int or a tuple of ints.
        out: not supported.
        keepdims: keep the reduced axes with size 1.
        where: a boolean mask broadcast against `a`: only its True entries are tested.

    Returns:
        A boolean array (0-d when axis is None).

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.any(np.array([[0, 0], [1, 0]]), axis=1)
        array([False,  True])
    """
    reject("any", out=out)
    a = args_.fill_masked(as_operand(a), where, False)
    return red.any(a, axis=_axis(axis), keepdims=keepdims)


def cumsum(a, axis=None, dtype=None, out=None):
    """As numpy.cumsum: the cumulative sum along `axis`.

    Args:
        a: an array (or a value under a transform).
        axis: an int, or None for the flattened array.
        dtype: the dtype of the result and of the accumulation.
        out: not supported.

    Returns:
        An array of a's shape (1-d with axis=None).

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cumsum(np.array([1, 2, 3]))
        array([1, 3, 6])
    """
    reject("cumsum", out=out)
    return red.cumsum(as_operand(a), axis=axis, dtype=dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    """As numpy.cumprod: the cumulative product along `axis`.

    Args:
        a: an array (or a value under a transform).
        axis: an int, or None for the flattened array.
        dtype: the dtype of the result and of the accumulation.
        out: not supported.

    Returns:
        An array of a's shape (1-d with axis=None).

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cumprod(np.array([[1, 2], [3, 4]]), axis=1)
        array([[ 1,  2],
               [ 3, 12]])
    """
    reject("cumprod", out=out)
    return red.cumprod(as_operand(a), axis=axis, dtype=dtype)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """As numpy.sort: a sorted copy along `axis`.

    The derivative follows the sorting permutation.

    Args:
        a: the array.
        axis: the axis (-1 by default; None flattens).
        kind, stable: accepted for NumPy compatibility.
        order: not supported.

    Returns:
        The sorted array.

    Raises:
        TypeError: order= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.sort(np.array([[3, 1, 2], [0, 5, 4]]))
        array([[1, 2, 3],
               [0, 4, 5]])
    """
    reject("sort", order=order)
    if axis is None:
        from ._shape import ravel
        a, axis = ravel(a), -1
    return red.sort(a, axis=axis)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """As numpy.argsort: the indices that sort `a` along `axis`.

    An integer result, so its derivative is zero. Ties come in NumPy's order for the kind:
    kept with kind="stable" (or stable=True), in introsort's order with NumPy's default
    "quicksort".

    Args:
        a: an array (or a value under a transform).
        axis: an int (default -1), or None to sort the flattened array.
        kind: "quicksort" (None, the default), "mergesort", "heapsort" or "stable".
        order: not supported.
        stable: True for a stable sort, False for "quicksort" (do not give kind too).

    Returns:
        An integer array of a's shape (1-d with axis=None).

    Raises:
        TypeError: order= is given.
        ValueError: both kind and stable are given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.argsort(np.array([3, 1, 2]))
        array([1, 2, 0])
    """
    reject("argsort", order=order)
    if stable is not None:
        if kind is not None:
            raise ValueError("`kind` and `stable` parameters can't be provided at the same "
                             "time. Use only one of them.")
        kind = "stable" if stable else "quicksort"
    if axis is None:
        from ._shape import ravel
        a, axis = ravel(a), -1
    return red.argsort(a, axis=axis, kind="quicksort" if kind is None else kind)


def _count(a, axis):
    return args_.count(a, axis, False, None)


def _mean_dtype(a, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    dt = dtype_of(a)
    return np.dtype(np.float64) if dt.kind in "biu" else None


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """As numpy.mean: the arithmetic mean over `axis`.

    sum / count, accumulating integers in float64 as NumPy does.

    Args:
        a: array_like.
        axis: None (all axes), an int or a tuple of ints.
        dtype: the accumulation and result dtype (default float64 for integer input).
        keepdims: keep the reduced axes with length 1.
        where: a boolean mask broadcast against `a`: only its True entries are averaged.
        out: not supported.

    Returns:
        An array without the reduced axes (with length-1 ones if keepdims).

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.mean(np.array([[1, 2], [3, 6]]), axis=1)
        array([1.5, 4.5])
    """
    reject("mean", out=out)
    a, axis = as_operand(a), _axis(axis)
    total = red.sum(args_.fill_masked(a, where, 0), axis=axis, keepdims=keepdims,
                    dtype=_mean_dtype(a, dtype))
    n = args_.count(a, axis, keepdims, where)
    return ew.divide(total, n if where is None else ew.astype(n, dtype=dtype_of(total)))


_mean = mean


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """As numpy.var: the variance, mean(|a - mean(a)|**2).

    Args:
        a: the array.
        axis: int, tuple of ints or None (all axes).
        dtype: the computation dtype.
        ddof: degrees of freedom removed from the count (correction is its new name).
        keepdims: keep the reduced axes with length 1.
        where: a boolean mask broadcast against `a`: only its True entries count.
        out, mean: not supported.

    Returns:
        The variance along axis.

    Raises:
        TypeError: out= or mean= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.var(np.array([1, 3, 5, 7]))
        np.float64(5.0)
    """
    reject("var", out=out, mean=mean)
    if correction is not None:
        ddof = correction
    a, axis = as_operand(a), _axis(axis)
    dtype = _mean_dtype(a, dtype)
    centered = ew.subtract(a, _mean(a, axis=axis, dtype=dtype, keepdims=True, where=where))
    if dtype_of(centered).kind == "c":
        sq = ew.real(ew.multiply(centered, ew.conj(centered)))
    else:
        sq = ew.multiply(centered, centered)
    total = red.sum(args_.fill_masked(sq, where, 0), axis=axis, keepdims=keepdims, dtype=dtype)
    n = args_.count(a, axis, keepdims, where)
    if where is None:
        return ew.divide(total, n - ddof if n - ddof > 0 else 0)
    n = ew.astype(ew.maximum(ew.subtract(n, ddof), 0), dtype=dtype_of(total))
    return ew.divide(total, n)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """As numpy.std: the standard deviation, sqrt(var(a)).

    Args:
        a: the array.
        axis: int, tuple of ints or None (all axes).
        dtype: the computation dtype.
        ddof: degrees of freedom removed from the count (correction is its new name).
        keepdims: keep the reduced axes with length 1.
        where: a boolean mask broadcast against `a`: only its True entries count.
        out, mean: not supported.

    Returns:
        The standard deviation along axis.

    Raises:
        TypeError: out= or mean= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.std(np.array([1, 3, 5, 7]))
        np.float64(2.23606797749979)
    """
    return ew.sqrt(var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                       where=where, mean=mean, correction=correction))
