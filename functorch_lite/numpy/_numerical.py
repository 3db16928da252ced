"""Numerical helpers research code reaches for, as composites of library ops (so every
transform follows through them): trapezoid, gradient, polyval, vander, nan_to_num, ediff1d,
sinc, block, apply_along_axis, unwrap."""
import math

import numpy as np

from ..ops import elementwise as ew, reductions as red
from ._creation import array, asarray, ones_like
from ._indexing import getitem, numpy_scalar
from ._matrices import diff
from ._shape import moveaxis, ravel, reshape
from ._joining import concatenate, stack
from ._util import as_operand, dtype_of, ndim, normalize_axis, shape


def _along(nd, axis, index):
    return (slice(None),) * axis + (index,) + (slice(None),) * (nd - axis - 1)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """As numpy.trapezoid: the integral of y along `axis` by the trapezoidal rule.

    Args:
        y: the values.
        x: sample points (1-d along `axis`, or y's shape); None uses the spacing `dx`.
        dx: the spacing when x is None.
        axis: the axis to integrate along.

    Returns:
        y's shape without `axis`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> float(fnp.trapezoid(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 3.0])))
        6.5
    """
    y = as_operand(y)
    nd = ndim(y)
    axis = normalize_axis(axis, nd)
    if x is None:
        d = dx
    else:
        d = diff(as_operand(x), axis=-1 if ndim(x) == 1 else axis)
        if ndim(x) == 1 and nd > 1:
            d = reshape(d, tuple(-1 if i == axis else 1 for i in range(nd)))
    hi, lo = getitem(y, _along(nd, axis, slice(1, None))), getitem(y, _along(nd, axis,
                                                                              slice(None, -1)))
    return red.sum(ew.multiply(ew.multiply(d, ew.add(hi, lo)), 0.5), axis=axis)


def gradient(f, *varargs, axis=None, edge_order=1):
    """As numpy.gradient: central differences inside, one-sided ones at the edges.

    Uniform spacing only: each of `varargs` is a scalar (coordinate arrays are not supported).

    Args:
        f: the sampled values; each differentiated axis needs edge_order + 1 samples.
        *varargs: none (spacing 1), one scalar for every axis, or one per axis.
        axis: None (every axis), an int or a tuple of ints.
        edge_order: 1 or 2, the accuracy of the one-sided edge differences.

    Returns:
        One array of f's shape per axis: a list, or the array itself for one axis.

    Raises:
        NotImplementedError: a coordinate array in `varargs`.
        ValueError: edge_order not 1 or 2, too few samples, or a wrong number of spacings.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.gradient(np.array([1.0, 2.0, 4.0, 7.0]))
        array([1. , 1.5, 2.5, 3. ])
    """
    f = as_operand(f)
    nd = ndim(f)
    axes = tuple(range(nd)) if axis is None else \
        tuple(normalize_axis(a, nd) for a in (axis if isinstance(axis, (tuple, list)) else
                                              (axis,)))
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    if len(varargs) not in (0, 1, len(axes)):
        raise TypeError("invalid number of arguments")
    spacing = [1.0] * len(axes) if not varargs else list(varargs) * (len(axes) // len(varargs))
    for h in spacing:
        if ndim(h) != 0:
            raise NotImplementedError("functorch_lite.numpy.gradient: coordinate arrays are not "
                                      "supported; give one scalar spacing per axis")
    if dtype_of(f).kind in "iub":
        f = ew.astype(f, dtype=np.float64)
    out = [_gradient_along(f, ax, h, edge_order) for ax, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else out


def _gradient_along(f, axis, h, edge_order):
    nd, n = ndim(f), shape(f)[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")

    def at(index):
        return getitem(f, _along(nd, axis, index))
    inner = ew.subtract(at(slice(2, None)), at(slice(None, -2)))
    if edge_order == 1:
        first = ew.subtract(at(slice(1, 2)), at(slice(0, 1)))
        last = ew.subtract(at(slice(-1, None)), at(slice(-2, -1)))
        inner = ew.multiply(inner, 0.5)
    else:
        first = ew.subtract(ew.add(ew.multiply(at(slice(0, 1)), -1.5),
                                   ew.multiply(at(slice(1, 2)), 2.0)),
                            ew.multiply(at(slice(2, 3)), 0.5))
        last = ew.subtract(ew.subtract(ew.multiply(at(slice(-1, None)), 1.5),
                                       ew.multiply(at(slice(-2, -1)), 2.0)),
                           ew.multiply(at(slice(-3, -2)), -0.5))
        inner = ew.multiply(inner, 0.5)
    return ew.divide(concatenate([first, inner, last], axis=axis), h)


def polyval(p, x):
    """As numpy.polyval: the polynomial with coefficients p (highest power first) at x, by
    Horner's rule.

    Args:
        p: a 1-d array of coefficients (its length is static).
        x: the points.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.polyval(np.array([3.0, 0.0, 1.0]), np.array([2.0]))
        array([13.])
    """
    p, x = as_operand(p), as_operand(x)
    y = ew.multiply(ones_like(x), getitem(p, 0)) if shape(p)[0] else ew.multiply(x, 0)
    for k in range(1, shape(p)[0]):
        y = ew.add(ew.multiply(y, x), getitem(p, k))
    return y


def vander(x, N=None, increasing=False):
    """As numpy.vander: the columns x**(N-1), ..., x, 1 (reversed when `increasing`), built by
    repeated products so the derivative at x = 0 is exact.

    Args:
        x: a 1-d array.
        N: the number of columns (default len(x)).
        increasing: powers increasing from left to right.

    Returns:
        An (len(x), N) array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.vander(np.array([2, 3]), 3)
        array([[4, 2, 1],
               [9, 3, 1]])
    """
    x = as_operand(x)
    if ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = shape(x)[0] if N is None else N
    dt = np.promote_types(dtype_of(x), int)          # as NumPy: float32 gives float64
    if dtype_of(x) != dt:
        x = ew.astype(x, dtype=dt)
    cols, power = [], ones_like(x)
    for _ in range(n):
        cols.append(power)
        power = ew.multiply(power, x)
    if not cols:
        return reshape(ew.multiply(x, 0), (shape(x)[0], 0))
    return stack(cols if increasing else cols[::-1], axis=1)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """As numpy.nan_to_num: NaN, inf and -inf replaced by `nan`, `posinf` and `neginf` (the
    largest finite values by default); the derivative is 1 at finite entries, 0 elsewhere.

    Args:
        x: the array (complex: real and imaginary parts separately).
        copy: accepted for NumPy compatibility (results are new arrays).
        nan, posinf, neginf: the replacements.

    Returns:
        An array of x's shape and dtype.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.nan_to_num(np.array([np.nan, np.inf, 1.0]), posinf=9.0)
        array([0., 9., 1.])
    """
    x = as_operand(x)
    dt = dtype_of(x)
    if dt.kind == "c":
        parts = [nan_to_num(part, nan=nan, posinf=posinf, neginf=neginf)
                 for part in (ew.real(x), ew.imag(x))]
        return ew.add(parts[0], ew.multiply(parts[1], 1j))
    if dt.kind != "f":
        return x
    big = np.finfo(dt).max
    x = ew.where(ew.isnan(x), nan, x)
    x = ew.where(ew.logical_and(ew.isinf(x), ew.greater(x, 0)),
                 big if posinf is None else posinf, x)
    x = ew.where(ew.logical_and(ew.isinf(x), ew.less(x, 0)),
                 -big if neginf is None else neginf, x)
    return ew.astype(x, dtype=dt)


def ediff1d(ary, to_end=None, to_begin=None):
    """As numpy.ediff1d: the differences of the flattened array, with optional values before
    and after.

    Args:
        ary: an array (flattened).
        to_end, to_begin: values (flattened) appended and prepended.

    Returns:
        A 1-d array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ediff1d(np.array([1, 2, 4, 7]), to_begin=-99)
        array([-99,   1,   2,   3])
    """
    d = diff(ravel(as_operand(ary)))

    def part(v):            # Python numbers and lists join on d's device
        v = v if hasattr(v, "shape") else asarray(v, like=d)
        return ravel(ew.astype(v, dtype=dtype_of(d)))
    parts = [part(v) for v in (to_begin,) if v is not None] + [d] + \
        [part(v) for v in (to_end,) if v is not None]
    return d if len(parts) == 1 else concatenate(parts)


_SINC_SERIES = [(-1) ** k / math.factorial(2 * k + 1) for k in range(7)]


def sinc(x):
    """As numpy.sinc: sin(pi x) / (pi x), and 1 at 0.

    The values are NumPy's, bit for bit (sin(y) / y with y = pi x, and y = eps at 0). Near 0
    (|pi x| < 0.5) the derivatives are those of a Taylor polynomial exact to rounding (the
    quotient's cancel catastrophically there), so every derivative up to the 12th is right at
    0 as well: the value is NumPy's minus (P - P) with the first P a constant to the
    transforms, which is the value bit for bit and carries P's derivatives.

    Args:
        x: the array.

    Returns:
        An array of x's shape (float; a NumPy scalar when 0-d, as NumPy gives).

    Examples:
        >>> import numpy as np, functorch_lite as ft, functorch_lite.numpy as fnp
        >>> fnp.sinc(np.array([0.0, 0.5]))
        array([1.        , 0.63661977])
        >>> bool(np.isclose(ft.grad(ft.grad(fnp.sinc))(0.0), -np.pi ** 2 / 3))
        True
    """
    t = ew.multiply(np.pi, as_operand(x))      # NumPy's pi * x: integers become float64
    eps = np.finfo(dtype_of(t)).eps if dtype_of(t).kind == "f" else 1e-20
    small = ew.less(ew.abs(t), 0.5)
    safe = ew.where(small, 1.0, t)             # double where: no 0/0 in the far branch
    quotient = ew.divide(ew.sin(safe), safe)
    y = ew.stop_gradient(ew.where(ew.not_equal(t, 0), t, eps))
    t2, series = ew.square(t), 0.0
    for c in reversed(_SINC_SERIES):
        series = ew.add(ew.multiply(series, t2), c)
    near = ew.subtract(ew.divide(ew.sin(y), y), ew.subtract(ew.stop_gradient(series), series))
    return numpy_scalar(ew.where(small, near, quotient))


def block(arrays):
    """As numpy.block: an array assembled from nested lists of blocks (the innermost lists
    join along the last axis, the next ones along the one before, ...).

    Args:
        arrays: nested lists of arrays or scalars, all leaves at the same depth.

    Returns:
        The assembled array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.full((1, 1), 5.0)]])
        array([[1., 0., 0.],
               [0., 1., 0.],
               [1., 1., 5.]])
    """
    if not isinstance(arrays, list):
        return array(arrays) if not hasattr(arrays, "shape") else arrays
    depth, leaves = _block_depth(arrays)
    rank = max([depth] + [ndim(a) for a in leaves])

    def join(item, level):
        if not isinstance(item, list):
            item = as_operand(item) if hasattr(item, "shape") else array(item)
            return reshape(item, (1,) * (rank - ndim(item)) + shape(item))
        return concatenate([join(i, level + 1) for i in item], axis=level - depth)
    return join(arrays, 0)


def _block_depth(arrays):
    if not isinstance(arrays, list):
        return 0, [arrays]
    if not arrays:
        raise ValueError("List at arrays cannot be empty")
    found = [_block_depth(a) for a in arrays]
    depths = {d for d, _ in found}
    if len(depths) != 1:
        raise ValueError("List depths are mismatched")
    if isinstance(arrays[0], tuple):
        raise TypeError("block does not take tuples: use lists")
    return depths.pop() + 1, [leaf for _, ls in found for leaf in ls]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """As numpy.apply_along_axis: func1d applied to every 1-d slice along `axis` (a Python
    loop, as NumPy's), the results stacked where the axis was.

    Args:
        func1d: a function of a 1-d array (returning a scalar or an array).
        axis: the axis along which to slice.
        arr: the array.
        *args, **kwargs: passed on to func1d.

    Returns:
        arr.shape[:axis] + result shape + arr.shape[axis + 1:].

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.apply_along_axis(lambda v: v[0] + v[-1], 1, np.arange(6.0).reshape(2, 3))
        array([2., 8.])
    """
    arr = as_operand(arr)
    nd = ndim(arr)
    axis = normalize_axis(axis, nd)
    moved = moveaxis(arr, axis, -1)
    outer = shape(moved)[:-1]
    rows = reshape(moved, (-1, shape(moved)[-1]))
    if not rows.shape[0]:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = stack([as_operand(func1d(getitem(rows, i), *args, **kwargs))
                     for i in range(shape(rows)[0])])
    out_shape = shape(results)[1:]
    results = reshape(results, outer + out_shape)
    for k in range(len(out_shape)):              # the result's axes go where `axis` was
        results = moveaxis(results, len(outer) + k, axis + k)
    return results


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """As numpy.unwrap: jumps larger than discont (default period / 2) along `axis` replaced
    by their complement modulo `period`. The corrections are piecewise constant: the derivative
    passes through unchanged.

    Args:
        p: the (float) phases.
        discont: the largest jump left alone (default and minimum period / 2).
        axis: the axis to unwrap along.
        period: the period (2 pi by default).

    Returns:
        An array of p's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.unwrap(np.array([0.0, 3.0, -3.0])), [0.0, 3.0, 2 * np.pi - 3]))
        True
    """
    p = as_operand(p)
    if dtype_of(p).kind in "iub":
        p = ew.astype(p, dtype=np.float64)
    nd = ndim(p)
    axis = normalize_axis(axis, nd)
    discont = period / 2 if discont is None else discont
    half = period / 2
    dd = diff(p, axis=axis)
    mod = ew.subtract(ew.remainder(ew.add(dd, half), period), half)
    mod = ew.where(ew.logical_and(ew.equal(mod, -half), ew.greater(dd, 0)), half, mod)
    correction = ew.subtract(mod, dd)
    correction = ew.where(ew.less(ew.abs(dd), max(discont, half)), 0.0, correction)
    correction = red.cumsum(correction, axis=axis)
    first = ew.multiply(getitem(p, _along(nd, axis, slice(0, 1))), 0.0)
    return ew.add(p, concatenate([first, correction], axis=axis))
