"""functorch_lite.numpy.linalg: numpy.linalg's names over the linalg primitives."""
import math
from typing import NamedTuple

import numpy as np

from ..ops import eig as eg, elementwise as ew, linalg as la, reductions as red
from ._indexing import numpy_scalar
from ._shape import (diagonal as _diagonal, expand_dims, moveaxis, ravel, reshape, swapaxes,
                     transpose)
from ._util import as_operand, dtype_of, ndim, normalize_axes, normalize_axis, shape, xp_of


class EigResult(NamedTuple):
    """eig's result: eigenvalues and eigenvectors (columns)."""

    eigenvalues: object
    eigenvectors: object


class EighResult(NamedTuple):
    """eigh's result: eigenvalues (ascending) and eigenvectors (columns)."""

    eigenvalues: object
    eigenvectors: object


class SlogdetResult(NamedTuple):
    """slogdet's result: the sign and the log of the absolute determinant."""

    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    """svd's result: U, the singular values S (descending) and Vh."""

    U: object
    S: object
    Vh: object


class QRResult(NamedTuple):
    """qr's result: Q and R."""

    Q: object
    R: object


solve = la.solve
inv = la.inv
det = la.det


def cholesky(a, /, *, upper=False):
    """As numpy.linalg.cholesky: the Cholesky factor of Hermitian positive-definite matrices.

    Args:
        a: a (..., n, n) Hermitian positive-definite matrix or stack of them.
        upper: return the upper factor U (a = U^H U) instead of the lower L (a = L L^H).

    Returns:
        The (..., n, n) triangular factor.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]))
        array([[2., 0.],
               [1., 1.]])
    """
    low = la.cholesky(as_operand(a))
    return ew.conj(swapaxes(low, -1, -2)) if upper else low


def slogdet(a):
    """As numpy.linalg.slogdet: the sign and log of the absolute determinant.

    Args:
        a: a (..., n, n) square matrix or stack of them.

    Returns:
        A SlogdetResult (sign, logabsdet), each of shape (...); det = sign * exp(logabsdet).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> sign, logabsdet = fnp.linalg.slogdet(np.array([[2.0, 0.0], [0.0, 3.0]]))
        >>> float(sign), bool(np.allclose(logabsdet, np.log(6.0)))
        (1.0, True)
    """
    return SlogdetResult(*la.slogdet(as_operand(a)))


def eigh(a, UPLO="L"):
    """As numpy.linalg.eigh: eigenvalues and eigenvectors of Hermitian matrices.

    Derivatives assume distinct eigenvalues.

    Args:
        a: a (..., n, n) Hermitian (real symmetric) matrix or stack of them.
        UPLO: "L" or "U", the triangle of `a` that is read.

    Returns:
        An EighResult (eigenvalues (..., n) ascending, eigenvectors (..., n, n) as columns).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> w, v = fnp.linalg.eigh(np.array([[2.0, 0.0], [0.0, 1.0]]))
        >>> w
        array([1., 2.])
    """
    return EighResult(*la.eigh(as_operand(a), UPLO=UPLO))


def eig(a):
    """As numpy.linalg.eig: eigenvalues and eigenvectors of a general square matrix.

    Unlike NumPy, the results are always complex (as in JAX), so their dtype never depends on
    the values. Derivatives assume distinct eigenvalues; an eigenvector's phase is a free
    choice, so only phase-independent functions of eigenvectors have well-defined derivatives.

    Args:
        a: a (..., n, n) square matrix or stack of them.

    Returns:
        An EigResult (eigenvalues (..., n), unit-norm eigenvectors (..., n, n) as columns),
        with a v = v diag(w).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> w, v = fnp.linalg.eig(np.array([[1.0, 0.0], [0.0, 2.0]]))
        >>> w
        array([1.+0.j, 2.+0.j])
    """
    return EigResult(*eg.eig(as_operand(a)))


def eigvals(a):
    """As numpy.linalg.eigvals: the eigenvalues of a general square matrix.

    The result is always complex (as in JAX); derivatives assume distinct eigenvalues.

    Args:
        a: a (..., n, n) square matrix or stack of them.

    Returns:
        The (..., n) complex eigenvalues.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.eigvals(np.array([[1.0, 0.0], [0.0, 2.0]]))
        array([1.+0.j, 2.+0.j])
    """
    return eg.eigvals(as_operand(a))


def eigvalsh(a, UPLO="L"):
    """As numpy.linalg.eigvalsh: the eigenvalues (ascending) of Hermitian matrices.

    From LAPACK's values-only driver, as NumPy's (their last bits differ from eigh's).
    Derivatives assume distinct eigenvalues.

    Args:
        a: a (..., n, n) Hermitian (real symmetric) matrix or stack of them.
        UPLO: "L" or "U", the triangle of `a` that is read.

    Returns:
        The (..., n) real eigenvalues in ascending order.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]]))
        array([1., 3.])
    """
    return la.eigvalsh(as_operand(a), UPLO=UPLO)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """As numpy.linalg.svd: the singular value decomposition a = U diag(S) Vh.

    Derivatives assume distinct singular values. With compute_uv=False the values come from
    LAPACK's values-only driver, as NumPy's (their last bits differ from those of S).

    Args:
        a: a (..., m, n) matrix or stack of them.
        full_matrices: U and Vh square (True) or reduced to min(m, n) columns/rows (False).
        compute_uv: return U, S, Vh (True) or only S (False).
        hermitian: accepted for NumPy compatibility and ignored.

    Returns:
        An SVDResult (U, S, Vh) with S (..., min(m, n)) descending, or S alone with
        compute_uv=False.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.svd(np.array([[1.0, 0.0], [0.0, 3.0]]), compute_uv=False)
        array([3., 1.])
    """
    if not compute_uv:
        return la.svdvals(as_operand(a))
    return SVDResult(*la.svd(as_operand(a), full_matrices=full_matrices))


def qr(a, mode="reduced"):
    """As numpy.linalg.qr: the QR factorization a = Q R.

    Args:
        a: a (..., m, n) matrix or stack of them.
        mode: "reduced" (Q (..., m, k), R (..., k, n), k = min(m, n)), "complete"
            (Q (..., m, m), R (..., m, n)) or "r" (R alone, reduced).

    Returns:
        A QRResult (Q, R), or R alone with mode="r".

    Raises:
        ValueError: another mode (NumPy's "raw" is not supported).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> q, r = fnp.linalg.qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
        >>> bool(np.allclose(q @ r, [[3.0, 1.0], [4.0, 2.0]]))
        True
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr mode {mode!r} is not supported (reduced, complete, r)")
    q, r = la.qr(as_operand(a), mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else QRResult(q, r)


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


def trace(x, /, *, offset=0, dtype=None):
    """As numpy.linalg.trace: the sum of the diagonal of the last two axes.

    Args:
        x: a (..., m, n) array.
        offset: the diagonal: 0 the main one, > 0 above it, < 0 below it.
        dtype: the accumulator's and result's dtype (default: as sum's).

    Returns:
        The (...) traces.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> float(fnp.linalg.trace(np.array([[1.0, 2.0], [3.0, 4.0]])))
        5.0
    """
    return red.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """As numpy.linalg.diagonal: the diagonal of the last two axes.

    Args:
        x: a (..., m, n) array.
        offset: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        The (..., k) diagonals.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.diagonal(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([1., 4.])
    """
    return _diagonal(as_operand(x), offset, -2, -1)


def outer(x1, x2, /):
    """As numpy.linalg.outer: the outer product of two vectors.

    Args:
        x1: a 1-d array of length m.
        x2: a 1-d array of length n.

    Returns:
        The (m, n) array x1[i] * x2[j].

    Raises:
        ValueError: an input that is not one-dimensional.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        array([[3., 4.],
               [6., 8.]])
    """
    x1, x2 = as_operand(x1), as_operand(x2)
    if ndim(x1) != 1 or ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return ew.multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


def vecdot(x1, x2, /, *, axis=-1):
    """As numpy.linalg.vecdot: the vector dot product sum(conj(x1) * x2) over `axis`.

    Args:
        x1: the first array (conjugated when complex).
        x2: the second array, broadcast against x1.
        axis: the axis to contract (default -1).

    Returns:
        The dot products, with the broadcast shape less `axis`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> float(fnp.linalg.vecdot(np.array([1.0, 2.0]), np.array([3.0, 4.0])))
        11.0
    """
    x1, x2 = moveaxis(as_operand(x1), axis, -1), moveaxis(as_operand(x2), axis, -1)
    if dtype_of(x1).kind == "c":
        x1 = ew.conj(x1)
    # one dot per pair of vectors, as NumPy's vecdot: (1, n) @ (n, 1) products
    return numpy_scalar(la.matmul(expand_dims(x1, -2), expand_dims(x2, -1))[..., 0, 0])


def matrix_power(a, n):
    """As numpy.linalg.matrix_power: a^n by repeated squaring with matmul.

    The products are NumPy's, in its order, so the values are NumPy's bit for bit. n = 0
    gives the identity, n < 0 uses inv(a).

    Args:
        a: a (..., m, m) square matrix or stack of them.
        n: the integer exponent.

    Returns:
        The (..., m, m) matrix power.

    Raises:
        TypeError: n is not an integer.
        LinAlgError: the last two dims of `a` are not square.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 3)
        array([[1., 3.],
               [0., 1.]])
    """
    a = as_operand(a)
    if not isinstance(n, (int, np.integer)):
        raise TypeError("exponent must be an integer")
    if ndim(a) < 2 or shape(a)[-1] != shape(a)[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if n == 0:
        xp = xp_of(a)
        return xp.broadcast_to(xp.eye(shape(a)[-1], dtype=dtype_of(a)), shape(a)).copy()
    if n < 0:
        a, n = la.inv(a), -n
    if n <= 3:
        return a if n == 1 else la.matmul(a, a) if n == 2 else la.matmul(la.matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else la.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else la.matmul(result, z)
    return result


def _singular_cutoff(s, m, n, rcond):
    """lstsq's cutoff rcond * max(s) of the singular values s (rcond None: max(m, n) * eps)."""
    tol = max(m, n) * np.finfo(dtype_of(s)).eps if rcond is None else rcond
    return ew.multiply(red.max(s, axis=-1, keepdims=True), tol)


def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """As numpy.linalg.pinv: the Moore-Penrose pseudo-inverse.

    Computed as NumPy computes it, Vh^T (1/s U^T) from the reduced SVD of conj(a) with the
    singular values at or below the cutoff dropped (double where: no 1/0 in the derivative),
    so the values are NumPy's bit for bit. Its derivative is the SVD's, which assumes distinct
    singular values.

    Args:
        a: a (..., m, n) matrix or stack of them.
        rcond: relative cutoff: singular values <= rcond * max(s) are dropped; NumPy's
            default 1e-15 when neither rcond nor rtol is given.
        hermitian: accepted for NumPy compatibility and ignored (the general SVD is used).
        rtol: the same cutoff under NumPy 2's name; rtol=None means max(m, n) * eps.

    Returns:
        The (..., n, m) pseudo-inverse.

    Raises:
        ValueError: both rcond and rtol are given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.pinv(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]))
        array([[1. , 0. , 0. ],
               [0. , 0.5, 0. ]])
    """
    a = as_operand(a)
    m, n = shape(a)[-2:]
    if rcond is None:
        rcond = 1e-15 if rtol is np._NoValue else \
            max(m, n) * np.finfo(dtype_of(a)).eps if rtol is None else rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if m == 0 or n == 0:
        return xp_of(a).empty(shape(a)[:-2] + (n, m), dtype=dtype_of(a))
    u, s, vt = la.svd(ew.conj(a) if dtype_of(a).kind == "c" else a, full_matrices=False)
    rcond = xp_of(s).asarray(np.asarray(rcond)[..., None])   # on the device of a (NumPy's
    cutoff = ew.multiply(rcond, red.max(s, axis=-1, keepdims=True))   # rcond: one per matrix)
    large = ew.greater(s, cutoff)
    s_inv = ew.where(large, ew.divide(1, ew.where(large, s, 1.0)), 0.0)
    return la.matmul(swapaxes(vt, -1, -2), ew.multiply(expand_dims(s_inv, -1),
                                                       swapaxes(u, -1, -2)))


class LstsqResult(NamedTuple):
    """lstsq's result: the solution x, the residuals, the rank of a and its singular values."""

    x: object
    residuals: object
    rank: object
    s: object


def lstsq(a, b, rcond=None):
    """As numpy.linalg.lstsq: the least-squares solution x = pinv(a) b.

    Differences from NumPy (documented, decided from static shapes so it works under vmap):
    residuals (squared 2-norms of b - a x per column) are returned whenever m > n, also for
    rank-deficient a, where NumPy returns an empty array; rank is an int32 array counted
    with the cutoff rcond * max(s).

    Args:
        a: an (m, n) matrix.
        b: an (m,) vector or (m, k) matrix.
        rcond: relative cutoff for small singular values (default max(m, n) * eps).

    Returns:
        An LstsqResult (x, residuals, rank, s): x (n,) or (n, k), residuals (1,) or (k,)
        when m > n and (0,) otherwise, rank, and the singular values s of a.

    Raises:
        LinAlgError: a is not 2-d, or b not 1-d or 2-d.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> x, res, rank, s = fnp.linalg.lstsq(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ...                                    np.array([1.0, 1.0, 2.0]))
        >>> bool(np.allclose(x, [1.0, 1.0])), int(rank)
        (True, 2)
    """
    a, b = as_operand(a), as_operand(b)
    if ndim(a) != 2 or ndim(b) not in (1, 2):
        raise np.linalg.LinAlgError("lstsq takes a 2-d a and a 1-d or 2-d b")
    m, n = shape(a)
    s = svd(a, compute_uv=False)
    x = la.matmul(pinv(a, rtol=rcond), b)
    cutoff = _singular_cutoff(s, m, n, rcond)
    rank = red.sum(ew.greater(s, cutoff), dtype=np.int32)
    if m > n:
        r = ew.subtract(b, la.matmul(a, x))
        sq = ew.multiply(r, ew.conj(r))
        residuals = red.sum(ew.real(sq) if dtype_of(sq).kind == "c" else sq, axis=0)
        if ndim(b) == 1:
            residuals = reshape(residuals, (1,))
    else:
        residuals = xp_of(a).zeros((0,), dtype=dtype_of(x))
    return LstsqResult(x, residuals, rank, s)


__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals",
           "EigResult", "svd", "qr",
           "norm", "EighResult", "SlogdetResult", "SVDResult", "QRResult", "matrix_norm",
           "vector_norm", "trace", "diagonal", "outer", "vecdot", "matrix_power", "pinv",
           "lstsq", "LstsqResult"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
