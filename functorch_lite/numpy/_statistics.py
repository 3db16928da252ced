"""Statistics with NumPy's signatures, all composites of primitives (so every transform covers
them through the primitives' rules): average, ptp, median, quantile, percentile and the
NaN-ignoring reductions nansum, nanmean, nanmax, nanmin.

Note [NaN-safe derivatives]: the nan* functions replace NaN by a neutral value with `where`
*before* reducing, so the reduction never sees a NaN and `where` sends no derivative to the
replaced entries (their derivative is 0, not NaN). Where a division by a zero count could
follow (nanmean of an all-NaN slice), the count is replaced before dividing and the result
replaced after (the double-where idiom), so the derivative of the other slices stays finite.

Note [NaN slices of sort-based statistics]: median, quantile and percentile sort, and sort puts
NaN last (NumPy, CuPy and XLA alike), so a middle element or an interpolation would skip it.
NumPy's answer for a slice holding a NaN is NaN: the result is replaced by NaN wherever the
slice's last sorted element is NaN (`_nan_where_last`), a `where` on the reduced values only.
Its derivative is JAX's: 0 for every element of a NaN slice, unchanged elsewhere.
"""
import numpy as np

from ..ops import elementwise as ew, reductions as red
from ._indexing import getitem, numpy_scalar
from ._reductions import _axis, _count, max as _max, mean, min as _min, sort, sum as _sum
from ._shape import broadcast_to, expand_dims, moveaxis, ravel, reshape, transpose
from ._joining import stack
from ._util import (as_operand, dtype_of, is_wrapper, ndim, normalize_axes, normalize_axis,
                    reject, shape, xp_of)


def _float_dtype(*dtypes):
    """NumPy's result dtype of averaging: at least float64 for integer/bool inputs."""
    dt = np.result_type(*dtypes)
    return dt if dt.kind in "fc" else np.result_type(dt, np.float64)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """As numpy.average: the weighted mean sum(a * w) / sum(w) along `axis`.

    Without weights it is the mean; 1-d weights apply along a single axis, as in NumPy.

    Args:
        a: an array (or a value under a transform).
        axis: None (all elements), an int or a tuple of ints.
        weights: an array of a's shape, or of the shape of a along `axis`; None for equal weights.
        returned: also return the sum of the weights.
        keepdims: keep the reduced axes with size 1.

    Returns:
        The average, or (average, sum of weights) with returned=True.

    Raises:
        TypeError: weights differ in shape from a and axis is None.
        ValueError: weights do not match the shape of a along `axis`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.average(np.array([1, 2, 4]), weights=np.array([1, 1, 2]))
        np.float64(2.75)
    """
    a = as_operand(a)
    axis = _axis(axis)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        count = _count(a, axis)
        return avg, numpy_scalar(broadcast_to(xp_of(a).asarray(count, dtype=dtype_of(avg)),
                                              shape(avg)))
    weights = as_operand(weights)
    nd = ndim(a)
    if shape(weights) != shape(a):
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = normalize_axes(axis, nd)
        if ndim(weights) != len(axes) or shape(weights) != tuple(shape(a)[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        # move the weight axes into place: a shape with 1 everywhere else
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        w = transpose(weights, order) if order != list(range(len(axes))) else weights
        w = reshape(w, tuple(shape(a)[i] if i in axes else 1 for i in range(nd)))
    else:
        w = weights
    dt = _float_dtype(dtype_of(a), dtype_of(w))
    w = ew.astype(w, dtype=dt) if dtype_of(w) != dt else w
    wsum = _sum(broadcast_to(w, shape(a)), axis=axis, keepdims=keepdims)
    total = _sum(ew.multiply(a, w), axis=axis, keepdims=keepdims, dtype=dt)
    avg = ew.divide(total, wsum)
    return (avg, wsum) if returned else avg


def ptp(a, axis=None, out=None, keepdims=False):
    """As numpy.ptp: peak to peak, max - min over `axis`.

    Args:
        a: the array.
        axis: int, tuple of ints or None (all axes).
        keepdims: keep the reduced axes with length 1.
        out: not supported.

    Returns:
        The range of the values along axis.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ptp(np.array([[1, 5], [2, 9]]), axis=1)
        array([4, 7])
    """
    reject("ptp", out=out)
    return ew.subtract(_max(a, axis=axis, keepdims=keepdims),
                       _min(a, axis=axis, keepdims=keepdims))


def _sorted_last(a, axis):
    """a sorted along `axis`, moved last (a flattened when axis is None), in float64 for
    integer inputs (NumPy's median and quantile return floats)."""
    a = as_operand(a)
    if axis is None:
        s = sort(ravel(a), axis=-1)
    else:
        s = sort(moveaxis(a, normalize_axis(axis, ndim(a)), -1), axis=-1)
    return s if dtype_of(s).kind in "fc" else ew.astype(s, dtype=np.float64)


def _nan_where_last(res, s):
    """res (its trailing axes those of s without the last) with NaN for every slice of s,
    sorted along its last axis, that holds a NaN (Note [NaN slices of sort-based statistics])."""
    if shape(s)[-1] == 0 or dtype_of(s).kind not in "fc":
        return res
    return ew.where(ew.isnan(getitem(s, (Ellipsis, -1))), np.nan, res)


def _restore_keepdims(x, a, axis, lead=0):
    """Put back the reduced axis (size 1) for keepdims: every axis when axis is None."""
    if axis is None:
        return reshape(x, shape(x)[:lead] + (1,) * ndim(a))
    return expand_dims(x, lead + normalize_axis(axis, ndim(a)))


def _lerp_quantiles(s, q):
    """Linear-interpolated quantiles q (a static float array) of s sorted along its last axis:
    result of shape q.shape + s.shape[:-1]."""
    n = shape(s)[-1]
    q = np.asarray(q, dtype=np.float64)
    pos = q * (n - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    frac = pos - lo
    out = []
    for l, h, f in zip(lo.ravel(), hi.ravel(), frac.ravel()):
        below = getitem(s, (Ellipsis, int(l)))
        above = getitem(s, (Ellipsis, int(h)))
        if f == 0:
            out.append(below)
            continue
        # NumPy's _lerp: a + (b - a) t, from the other end when t >= 0.5 (exact at t = 1)
        diff = ew.subtract(above, below)
        if f >= 0.5:
            out.append(ew.subtract(above, ew.multiply(diff, float(1.0 - f))))
        else:
            out.append(ew.add(below, ew.multiply(diff, float(f))))
    res = stack(out, axis=0) if out else None
    return reshape(res, q.shape + shape(s)[:-1])


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """As numpy.median: the middle value over `axis`.

    The mean of the two middle values for an even count; NaN for a slice holding a NaN, as
    NumPy (Note [NaN slices of sort-based statistics]). Computed via sort: its derivative goes
    to the middle element(s), as sort's derivative is a permutation.

    Args:
        a: array_like.
        axis: None (the flattened array) or an int.
        keepdims: keep the reduced axis with length 1.
        overwrite_input: accepted for NumPy compatibility (the input is never changed).
        out: not supported.

    Returns:
        A float array without the reduced axis (with a length-1 one if keepdims); a NumPy
        scalar when 0-d, as NumPy gives.

    Raises:
        TypeError: out= is given.
        NotImplementedError: `axis` is a tuple or list.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.median(np.array([3, 1, 2]))
        np.float64(2.0)
        >>> fnp.median(np.array([[4, 1], [2, 3]]), axis=1)
        array([2.5, 2.5])
    """
    reject("median", out=out)
    if isinstance(axis, (tuple, list)):
        raise NotImplementedError("median over several axes is not supported (int or None)")
    s = _sorted_last(a, axis)
    n = shape(s)[-1]
    if n % 2:
        m = getitem(s, (Ellipsis, n // 2))
    else:
        m = mean(getitem(s, (Ellipsis, slice(n // 2 - 1, n // 2 + 1))), axis=-1)
    m = _nan_where_last(m, s)
    return _restore_keepdims(m, as_operand(a), axis) if keepdims else numpy_scalar(m)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """As numpy.quantile: the q-th quantiles with linear interpolation.

    NaN for a slice holding a NaN, as NumPy (Note [NaN slices of sort-based statistics]).

    Args:
        a: the array.
        q: static float or sequence of floats in [0, 1].
        axis: int or None (all axes).
        out, weights: not supported.
        overwrite_input: accepted and ignored.
        method: only "linear" (interpolation is its old name).
        keepdims: keep the reduced axis with length 1.

    Returns:
        An array of shape q.shape + the reduced shape (a NumPy scalar when 0-d, as NumPy
        gives).

    Raises:
        TypeError: out= or weights= is given, or q is a traced value.
        ValueError: q outside [0, 1].
        NotImplementedError: another method, or a tuple axis.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.quantile(np.array([1.0, 2.0, 3.0, 4.0]), [0.0, 0.5])
        array([1. , 2.5])
    """
    reject("quantile", out=out, weights=weights)
    if interpolation is not None:
        method = interpolation
    if method != "linear":
        raise NotImplementedError(f"quantile method {method!r} is not supported "
                                  "(only method='linear')")
    if isinstance(axis, (tuple, list)):
        raise NotImplementedError("quantile over several axes is not supported (int or None)")
    if is_wrapper(q):
        raise TypeError("quantile: q must be static (a float or a NumPy/Python sequence)")
    qa = np.asarray(q, dtype=np.float64)
    if np.any((qa < 0) | (qa > 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    a = as_operand(a)
    s = _sorted_last(a, axis)
    res = _nan_where_last(_lerp_quantiles(s, qa), s)
    return _restore_keepdims(res, a, axis, lead=qa.ndim) if keepdims else numpy_scalar(res)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """As numpy.percentile: the q-th percentiles, quantile(a, q / 100).

    Args:
        a: the array.
        q: static float or sequence of floats in [0, 100].
        axis: int or None (all axes).
        out, weights: not supported.
        overwrite_input: accepted and ignored.
        method: only "linear" (interpolation is its old name).
        keepdims: keep the reduced axis with length 1.

    Returns:
        An array of shape q.shape + the reduced shape (a NumPy scalar when 0-d, as NumPy
        gives).

    Raises:
        TypeError: out= or weights= is given, or q is a traced value.
        ValueError: q outside [0, 100].
        NotImplementedError: another method, or a tuple axis.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.percentile(np.array([1.0, 2.0, 3.0, 4.0]), 50)
        np.float64(2.5)
    """
    return quantile(a, np.true_divide(np.asarray(q, dtype=np.float64), 100), axis=axis, out=out,
                    overwrite_input=overwrite_input, method=method, keepdims=keepdims,
                    weights=weights, interpolation=interpolation)


def _nan_filled(a, value):
    """a with NaN replaced by `value` (Note [NaN-safe derivatives]); integers pass."""
    a = as_operand(a)
    if dtype_of(a).kind not in "fc":
        return a, None
    nan = ew.isnan(a)
    return ew.where(nan, float(value), a), nan


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """As numpy.nansum: the sum over `axis`, treating NaN as zero.

    Args:
        a: array_like.
        axis: None (all axes), an int or a tuple of ints.
        dtype: the accumulation and result dtype.
        keepdims: keep the reduced axes with length 1.
        out, initial, where: not supported.

    Returns:
        An array without the reduced axes (with length-1 ones if keepdims).

    Raises:
        TypeError: out=, initial= or where= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.nansum(np.array([[1.0, np.nan], [2.0, 3.0]]), axis=0)
        array([3., 3.])
    """
    reject("nansum", out=out, initial=initial, where=where)
    filled, _ = _nan_filled(a, 0)
    return _sum(filled, axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """As numpy.nanmean: the mean of the non-NaN values over `axis`.

    NaN for an all-NaN slice (Note [NaN-safe derivatives]).

    Args:
        a: array_like.
        axis: None (all axes), an int or a tuple of ints.
        dtype: the accumulation and result dtype.
        keepdims: keep the reduced axes with length 1.
        out, where: not supported.

    Returns:
        An array without the reduced axes (with length-1 ones if keepdims); a NumPy scalar
        when 0-d, as NumPy gives.

    Raises:
        TypeError: out= or where= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.nanmean(np.array([1.0, np.nan, 3.0]))
        np.float64(2.0)
    """
    reject("nanmean", out=out, where=where)
    filled, nan = _nan_filled(a, 0)
    if nan is None:
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    axis = _axis(axis)
    total = _sum(filled, axis=axis, dtype=dtype, keepdims=keepdims)
    count = red.sum(ew.logical_not(nan), axis=axis, keepdims=keepdims, dtype=dtype_of(total))
    empty = ew.equal(count, 0)
    avg = ew.divide(total, ew.where(empty, 1.0, count))
    return numpy_scalar(ew.where(empty, np.nan, avg))


def _nan_extremum(name, reduce, fill):
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        reject(name, out=out, initial=initial, where=where)
        filled, nan = _nan_filled(a, fill)
        m = reduce(filled, axis=axis, keepdims=keepdims)
        if nan is None:
            return m
        all_nan = red.all(nan, axis=_axis(axis), keepdims=keepdims)
        return numpy_scalar(ew.where(all_nan, np.nan, m))
    fn.__name__ = fn.__qualname__ = name
    extremum = {"nanmax": "3.", "nanmin": "1."}[name]
    fn.__doc__ = f"""As numpy.{name}: the {reduce.__name__}imum over `axis`, ignoring NaN.

    NaN for an all-NaN slice; ties split the derivative as the reduction does.

    Args:
        a: array_like.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: keep the reduced axes with length 1.
        out, initial, where: not supported.

    Returns:
        An array of `a`'s dtype without the reduced axes (with length-1 ones if keepdims);
        a NumPy scalar when 0-d, as NumPy gives.

    Raises:
        TypeError: out=, initial= or where= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.{name}(np.array([1.0, np.nan, 3.0]))
        np.float64({extremum}0)
    """
    return fn


nanmax = _nan_extremum("nanmax", _max, -np.inf)
nanmin = _nan_extremum("nanmin", _min, np.inf)
