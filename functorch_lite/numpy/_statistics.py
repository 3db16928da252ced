"""Statistics with NumPy's signatures, all composites of primitives (so every transform covers
them through the primitives' rules): average, ptp, median, quantile, percentile and the
NaN-ignoring reductions nansum, nanmean, nanmax, nanmin.

Note [NaN-safe derivatives]: the nan* functions replace NaN by a neutral value with `where`
*before* reducing, so the reduction never sees a NaN and `where` sends no derivative to the
replaced entries (their derivative is 0, not NaN). Where a division by a zero count could
follow (nanmean of an all-NaN slice), the count is replaced before dividing and the result
replaced after (the double-where idiom), so the derivative of the other slices stays finite.
"""
import numpy as np

from ..ops import elementwise as ew, reductions as red
from ._indexing import getitem
from ._reductions import _axis, _count, max as _max, mean, min as _min, sort, sum as _sum
from ._shape import broadcast_to, expand_dims, moveaxis, ravel, reshape, stack, transpose
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
        return avg, broadcast_to(xp_of(a).asarray(count, dtype=dtype_of(avg)), shape(avg))
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
    """max - min over `axis` (peak to peak)."""
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
    """The middle value (mean of the two middle values for an even count), via sort: its
    derivative goes to the middle element(s), as sort's derivative is a permutation."""
    reject("median", out=out)
    if isinstance(axis, (tuple, list)):
        raise NotImplementedError("median over several axes is not supported (int or None)")
    s = _sorted_last(a, axis)
    n = shape(s)[-1]
    if n % 2:
        m = getitem(s, (Ellipsis, n // 2))
    else:
        m = mean(getitem(s, (Ellipsis, slice(n // 2 - 1, n // 2 + 1))), axis=-1)
    return _restore_keepdims(m, as_operand(a), axis) if keepdims else m


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """Quantiles with method="linear" (NumPy's default); q is static (a float or a sequence
    of floats in [0, 1]); the result has shape q.shape + the reduced shape."""
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
    res = _lerp_quantiles(s, qa)
    return _restore_keepdims(res, a, axis, lead=qa.ndim) if keepdims else res


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """quantile(a, q / 100)."""
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
    """sum treating NaN as zero."""
    reject("nansum", out=out, initial=initial, where=where)
    filled, _ = _nan_filled(a, 0)
    return _sum(filled, axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """mean of the non-NaN values; NaN for an all-NaN slice (Note [NaN-safe derivatives])."""
    reject("nanmean", out=out, where=where)
    filled, nan = _nan_filled(a, 0)
    if nan is None:
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    axis = _axis(axis)
    total = _sum(filled, axis=axis, dtype=dtype, keepdims=keepdims)
    count = red.sum(ew.logical_not(nan), axis=axis, keepdims=keepdims, dtype=dtype_of(total))
    empty = ew.equal(count, 0)
    avg = ew.divide(total, ew.where(empty, 1.0, count))
    return ew.where(empty, np.nan, avg)


def _nan_extremum(name, reduce, fill):
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        reject(name, out=out, initial=initial, where=where)
        filled, nan = _nan_filled(a, fill)
        m = reduce(filled, axis=axis, keepdims=keepdims)
        if nan is None:
            return m
        all_nan = red.all(nan, axis=_axis(axis), keepdims=keepdims)
        return ew.where(all_nan, np.nan, m)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{reduce.__name__} ignoring NaN (NaN for an all-NaN slice); ties split the "
                  "derivative as the reduction does.")
    return fn


nanmax = _nan_extremum("nanmax", _max, -np.inf)
nanmin = _nan_extremum("nanmin", _min, np.inf)
