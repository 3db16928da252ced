"""functorch_lite.numpy.linalg: numpy.linalg's names over the linalg primitives."""
from typing import NamedTuple

import numpy as np

from ..ops import eig as eg, elementwise as ew, linalg as la, reductions as red
from ._indexing import getitem
from ._shape import (broadcast_to, diagonal as _diagonal, expand_dims, moveaxis, ravel, reshape,
                     squeeze, swapaxes)
from ._util import as_operand, dtype_of, ndim, normalize_axes, shape, xp_of


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
    """The lower (or `upper=True`) Cholesky factor of each Hermitian positive-definite matrix, as
    numpy.linalg.cholesky."""
    low = la.cholesky(as_operand(a))
    return ew.conj(swapaxes(low, -1, -2)) if upper else low


def slogdet(a):
    """The sign and log of the absolute determinant of each matrix (a SlogdetResult), as
    numpy.linalg.slogdet."""
    return SlogdetResult(*la.slogdet(as_operand(a)))


def eigh(a, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of each Hermitian matrix (an EighResult), as
    numpy.linalg.eigh; derivatives assume distinct eigenvalues."""
    return EighResult(*la.eigh(as_operand(a), UPLO=UPLO))


def eig(a):
    """(eigenvalues, eigenvectors) of a general square matrix, complex in general (numpy's
    EigResult). Derivatives assume distinct eigenvalues; an eigenvector's phase is a free
    choice, so only phase-independent functions of eigenvectors have well-defined derivatives."""
    return EigResult(*eg.eig(as_operand(a)))


def eigvals(a):
    """The eigenvalues of a general square matrix (complex in general)."""
    return eg.eigvals(as_operand(a))


def eigvalsh(a, UPLO="L"):
    """The eigenvalues (ascending) of each Hermitian matrix, as numpy.linalg.eigvalsh."""
    return la.eigh(as_operand(a), UPLO=UPLO)[0]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    # singular values alone do not depend on full_matrices: take the reduced factorization,
    # whose derivative exists for non-square inputs too
    """The singular value decomposition U, S, Vh of each matrix (an SVDResult, or S alone with
    compute_uv=False), as numpy.linalg.svd."""
    u, s, vh = la.svd(as_operand(a), full_matrices=full_matrices and compute_uv)
    return SVDResult(u, s, vh) if compute_uv else s


def qr(a, mode="reduced"):
    """The QR factorization of each matrix (a QRResult; mode 'reduced' or 'complete'), as
    numpy.linalg.qr."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr mode {mode!r} is not supported (reduced, complete, r)")
    q, r = la.qr(as_operand(a), mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else QRResult(q, r)


def _matrix_norm(x, ord, axes, keepdims):
    """Matrix norms over the two `axes`: 1/-1/inf/-inf from abs/sum/max/min, 'nuc'/2/-2 from
    the singular values (their derivative assumes distinct singular values)."""
    row, col = axes
    if ord in (1, -1, np.inf, -np.inf):
        a = ew.abs(x)
        inner, outer = (row, col) if ord in (1, -1) else (col, row)
        sums = red.sum(a, axis=inner, keepdims=True)
        pick = red.max if ord in (1, np.inf) else red.min
        out = pick(sums, axis=outer, keepdims=True)
    elif ord in ("nuc", 2, -2):
        s = svd(moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        if ord == "nuc":
            out = red.sum(s, axis=-1)
        else:
            out = getitem(s, (Ellipsis, 0 if ord == 2 else -1))
        out = expand_dims(out, (-2, -1))
        out = moveaxis(out, (-2, -1), (row, col))
    else:
        raise ValueError(f"Invalid norm order {ord!r} for matrices.")
    if keepdims:
        return out
    return squeeze(out, axis=axes)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector 2-norm, Frobenius norm, vector p-norms (ord = p, inf, -inf, 0, 1) and matrix
    norms (ord = 1, -1, inf, -inf, 'nuc', 2, -2)."""
    x = as_operand(x)
    nd = ndim(x)
    if axis is None and ord is None:
        axes = tuple(range(nd))
    elif axis is None:
        if nd == 2:
            axes = (0, 1)
        elif nd == 1:
            axes = (0,)
        else:
            raise NotImplementedError(f"norm with ord={ord!r} over {nd}-d input without axis")
    else:
        axes = normalize_axes(axis, nd)
    if len(axes) == 2 and ord not in (None, "fro"):
        return _matrix_norm(x, ord, axes, keepdims)
    if len(axes) == 1 and isinstance(ord, str):
        raise ValueError(f"Invalid norm order {ord!r} for vectors")
    a = ew.abs(x)
    if ord in (None, "fro", 2) or len(axes) == 2:
        sq = red.sum(ew.real(ew.multiply(x, ew.conj(x))) if dtype_of(x).kind == "c"
                     else ew.multiply(x, x), axis=axes, keepdims=keepdims)
        # double where: the norm of a zero vector has derivative 0 (not sqrt'(0) * 0 = NaN)
        zero = ew.equal(sq, 0)
        return ew.where(zero, 0.0, ew.sqrt(ew.where(zero, 1.0, sq)))
    if ord == np.inf:
        return red.max(a, axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return red.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return red.sum(ew.astype(ew.not_equal(x, 0), dtype=a.dtype), axis=axes,
                       keepdims=keepdims)
    if ord == 1:
        return red.sum(a, axis=axes, keepdims=keepdims)
    return ew.power(red.sum(ew.power(a, ord), axis=axes, keepdims=keepdims), 1.0 / ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """norm over the last two axes (the array API's name)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm over `axis` (all axes, flattened, when None), the array API's name."""
    x = as_operand(x)
    if axis is None:
        out = norm(ravel(x), ord=ord)
        return reshape(out, (1,) * ndim(x)) if keepdims else out
    if isinstance(axis, (tuple, list)) and len(axis) != 1:
        nd = ndim(x)
        axes = normalize_axes(axis, nd)
        moved = moveaxis(x, axes, tuple(range(nd - len(axes), nd)))
        kept, merged = shape(moved)[:nd - len(axes)], shape(moved)[nd - len(axes):]
        out = norm(reshape(moved, kept + (int(np.prod(merged, dtype=np.int64)),)), ord=ord,
                   axis=-1)
        if keepdims:
            out = expand_dims(out, axes)
        return out
    return norm(x, ord=ord, axis=axis if not isinstance(axis, (tuple, list)) else axis[0],
                keepdims=keepdims)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the diagonal of the last two axes."""
    return red.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """Diagonal of the last two axes."""
    return _diagonal(as_operand(x), offset, -2, -1)


def outer(x1, x2, /):
    """Outer product of two vectors (1-d only, as numpy.linalg.outer)."""
    x1, x2 = as_operand(x1), as_operand(x2)
    if ndim(x1) != 1 or ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return ew.multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


def vecdot(x1, x2, /, *, axis=-1):
    """sum(conj(x1) * x2) over `axis`, broadcasting the others."""
    x1, x2 = as_operand(x1), as_operand(x2)
    if dtype_of(x1).kind == "c":
        x1 = ew.conj(x1)
    return red.sum(ew.multiply(x1, x2), axis=axis)


def matrix_power(a, n):
    """a^n by repeated squaring with matmul; n = 0 gives the identity, n < 0 uses inv(a)."""
    a = as_operand(a)
    if not isinstance(n, (int, np.integer)):
        raise TypeError("exponent must be an integer")
    if ndim(a) < 2 or shape(a)[-1] != shape(a)[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if n == 0:
        eye = xp_of(a).eye(shape(a)[-1], dtype=dtype_of(a))
        return broadcast_to(eye, shape(a))
    if n < 0:
        a, n = la.inv(a), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else la.matmul(result, base)
        n >>= 1
        if n:
            base = la.matmul(base, base)
    return result


def _singular_cutoff(s, m, n, rcond, rtol):
    """The singular-value cutoff rtol * max(s): rcond (numpy's older name) or rtol, with
    NumPy 2's default max(m, n) * eps when neither is given."""
    if rcond is not None and rtol is not None:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    tol = rcond if rcond is not None else rtol
    if tol is None:
        tol = max(m, n) * np.finfo(dtype_of(s)).eps
    return ew.multiply(red.max(s, axis=-1, keepdims=True), tol)


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Moore-Penrose pseudo-inverse V diag(1/s) U^H via the reduced SVD, singular values at or
    below the cutoff dropped (double where: no 1/0 in the derivative). Its derivative is the
    SVD's, which assumes distinct singular values."""
    a = as_operand(a)
    m, n = shape(a)[-2:]
    u, s, vh = svd(a, full_matrices=False)
    keep = ew.greater(s, _singular_cutoff(s, m, n, rcond, rtol))
    s_inv = ew.where(keep, ew.reciprocal(ew.where(keep, s, 1.0)), 0.0)
    v_scaled = ew.multiply(ew.conj(swapaxes(vh, -1, -2)), expand_dims(s_inv, -2))
    return la.matmul(v_scaled, ew.conj(swapaxes(u, -1, -2)))


class LstsqResult(NamedTuple):
    """lstsq's result: the solution x, the residuals, the rank of a and its singular values."""

    x: object
    residuals: object
    rank: object
    s: object


def lstsq(a, b, rcond=None):
    """Least squares x = pinv(a) b, returned like numpy.linalg.lstsq: (x, residuals, rank, s).

    Differences from NumPy (documented, decided from static shapes so it works under vmap):
    residuals (squared 2-norms of b - a x per column) are returned whenever m > n, also for
    rank-deficient a, where NumPy returns an empty array; rank is an int32 array counted
    with the cutoff rcond * max(s)."""
    a, b = as_operand(a), as_operand(b)
    if ndim(a) != 2 or ndim(b) not in (1, 2):
        raise np.linalg.LinAlgError("lstsq takes a 2-d a and a 1-d or 2-d b")
    m, n = shape(a)
    s = svd(a, compute_uv=False)
    x = la.matmul(pinv(a, rcond=rcond), b)
    cutoff = _singular_cutoff(s, m, n, rcond, None)
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
