"""numpy.linalg's norms: norm, matrix_norm, vector_norm (their derivatives finite at zero)."""
import math

import numpy as np

from ...ops import elementwise as ew, linalg as la, reductions as red
from .._indexing import numpy_scalar
from .._shape import moveaxis, ravel, reshape, transpose
from .._util import as_operand, dtype_of, ndim, normalize_axes, normalize_axis, shape


def _sqrt_at_zero(sq):
    """sqrt(sq), with the double where that gives the norm of a zero vector derivative 0 (not
    sqrt'(0) * 0 = NaN); the values are sqrt's, bit for bit."""
    zero = ew.equal(sq, 0)
    return ew.where(zero, 0.0, ew.sqrt(ew.where(zero, 1.0, sq)))


def _squares(x):
    """NumPy's (x.conj() * x).real (x * x for real x, whose conj() is x itself)."""
    return ew.real(ew.multiply(ew.conj(x), x)) if dtype_of(x).kind == "c" else ew.multiply(x, x)


def _in_place(value, like):
    """value in like's dtype: what NumPy's in-place `like op= ...` keeps."""
    return value if dtype_of(value) == dtype_of(like) else ew.astype(value, dtype=dtype_of(like))


def _svd_norm(x, row, col, reduce):
    """NumPy's _multi_svd_norm: `reduce` of the singular values of the (row, col) matrices."""
    return reduce(la.svdvals(moveaxis(x, (row, col), (-2, -1))), axis=-1)


def _vector_norm(x, ord, axis, keepdims):
    """numpy.linalg.norm over one axis (a 1-tuple), step for step."""
    if ord == np.inf:
        return red.max(ew.abs(x), axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return red.min(ew.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = ew.astype(ew.not_equal(x, 0), dtype=dtype_of(ew.real(x)))
        return red.sum(nonzero, axis=axis, keepdims=keepdims)
    if ord == 1:
        return red.sum(ew.abs(x), axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return _sqrt_at_zero(red.sum(_squares(x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    absx = ew.abs(x)
    absx = _in_place(ew.power(absx, ord), absx)
    ret = red.sum(absx, axis=axis, keepdims=keepdims)
    return _in_place(ew.power(ret, np.reciprocal(ord, dtype=dtype_of(ret))), ret)


def _matrix_norm(x, ord, axis, keepdims):
    """numpy.linalg.norm over two axes, step for step."""
    nd = ndim(x)
    row, col = (normalize_axis(a, nd) for a in axis)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord == 2:
        ret = _svd_norm(x, row, col, red.max)
    elif ord == -2:
        ret = _svd_norm(x, row, col, red.min)
    elif ord in (1, -1):
        pick = red.max if ord == 1 else red.min
        ret = pick(red.sum(ew.abs(x), axis=row), axis=col - 1 if col > row else col)
    elif ord in (np.inf, -np.inf):
        pick = red.max if ord == np.inf else red.min
        ret = pick(red.sum(ew.abs(x), axis=col), axis=row - 1 if row > col else row)
    elif ord in (None, "fro", "f"):
        ret = _sqrt_at_zero(red.sum(_squares(x), axis=axis))
    elif ord == "nuc":
        ret = _svd_norm(x, row, col, red.sum)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        kept = list(shape(x))
        kept[row] = kept[col] = 1
        return reshape(ret, tuple(kept))
    return ret


def norm(x, ord=None, axis=None, keepdims=False):
    """As numpy.linalg.norm: vector and matrix norms.

    Vector 2-norm, Frobenius norm, vector p-norms (ord = p, inf, -inf, 0, 1) and matrix norms
    (ord = 1, -1, inf, -inf, 'nuc', 2, -2), computed as NumPy computes each (a dot product
    for the 2-norm of the whole array, sums over axes, the values-only SVD for 'nuc', 2 and
    -2), so the values are NumPy's bit for bit. The 2-norm of a zero vector has derivative 0;
    the 'nuc', 2 and -2 matrix norms' derivatives assume distinct singular values.

    Args:
        x: the input array.
        ord: the order of the norm (None: 2-norm of vectors, Frobenius of matrices, and the
            2-norm of the flattened input when axis is None too).
        axis: None, an int (vector norm) or a pair of ints (matrix norm).
        keepdims: keep the reduced axes with size 1.

    Returns:
        The norm(s), with the reduced axes removed (or kept with size 1); a NumPy scalar
        when 0-d, as NumPy gives.

    Raises:
        ValueError: a string ord for a vector norm, an unknown ord for a matrix norm, or ord
            given with axis=None for an input of more than 2 dims.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.norm(np.array([3.0, 4.0]))
        np.float64(5.0)
        >>> fnp.linalg.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        np.float64(6.0)
    """
    x = as_operand(x)
    if dtype_of(x).kind not in "fc":
        x = ew.astype(x, dtype=np.float64)
    nd = ndim(x)
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or
                         (ord == 2 and nd == 1)):
        flat = ravel(x, order="K")
        if dtype_of(x).kind == "c":
            re, im = ew.real(flat), ew.imag(flat)
            sq = ew.add(la.matmul(re, re), la.matmul(im, im))
        else:
            sq = la.matmul(flat, flat)
        out = _sqrt_at_zero(sq)
        return reshape(out, (1,) * nd) if keepdims else numpy_scalar(out)
    if axis is None:
        axis = tuple(range(nd))
    elif isinstance(axis, (tuple, list)):
        axis = tuple(axis)
    else:
        axis = (axis,)
    if len(axis) == 1:
        return numpy_scalar(_vector_norm(x, ord, axis, keepdims))
    if len(axis) == 2:
        return numpy_scalar(_matrix_norm(x, ord, axis, keepdims))
    raise ValueError("Improper number of dimensions to norm.")


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """As numpy.linalg.matrix_norm: the matrix norm over the last two axes.

    Args:
        x: a (..., m, n) array.
        keepdims: keep the two reduced axes with size 1.
        ord: "fro" (default), "nuc", 1, -1, 2, -2, inf or -inf, as in norm.

    Returns:
        The (...) norms.

    Raises:
        ValueError: an unknown ord.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.matrix_norm(np.array([[1.0, 2.0], [2.0, 4.0]]))
        np.float64(5.0)
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """As numpy.linalg.vector_norm: the vector norm over `axis`.

    As NumPy: the axes of a tuple go first, merged into one, and the norm is taken over it.

    Args:
        x: the input array.
        axis: an int or tuple of ints (those axes taken together as one vector), or None for
            all axes, flattened.
        keepdims: keep the reduced axes with size 1.
        ord: 2 (default), any p, inf, -inf or 0, as in norm.

    Returns:
        The norms, with the reduced axes removed (or kept with size 1).

    Raises:
        ValueError: a string ord.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.vector_norm(np.array([[3.0], [4.0]]))
        np.float64(5.0)
    """
    x = as_operand(x)
    full = shape(x)
    if axis is None:
        x, merged = ravel(x), 0
    elif isinstance(axis, (tuple, list)):
        axes = normalize_axes(tuple(axis), ndim(x))
        rest = tuple(i for i in range(ndim(x)) if i not in axes)
        x = reshape(transpose(x, tuple(axis) + rest),
                    (math.prod(full[i] for i in axes),) + tuple(full[i] for i in rest))
        merged = 0
    else:
        merged = axis
    out = norm(x, ord=ord, axis=merged)
    if keepdims:
        reduced = range(len(full)) if axis is None else normalize_axes(
            tuple(axis) if isinstance(axis, (tuple, list)) else (axis,), len(full))
        out = reshape(out, tuple(1 if i in reduced else d for i, d in enumerate(full)))
    return out
