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
    return la.eigh(as_operand(a), UPLO=UPLO)[0]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    # singular values alone do not depend on full_matrices: take the reduced factorization,
    # whose derivative exists for non-square inputs too
    """As numpy.linalg.svd: the singular value decomposition a = U diag(S) Vh.

    Derivatives assume distinct singular values.

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
    u, s, vh = la.svd(as_operand(a), full_matrices=full_matrices and compute_uv)
    return SVDResult(u, s, vh) if compute_uv else s


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
    """As numpy.linalg.norm: vector and matrix norms.

    Vector 2-norm, Frobenius norm, vector p-norms (ord = p, inf, -inf, 0, 1) and matrix norms
    (ord = 1, -1, inf, -inf, 'nuc', 2, -2). The 2-norm of a zero vector has derivative 0; the
    'nuc', 2 and -2 matrix norms' derivatives assume distinct singular values.

    Args:
        x: the input array.
        ord: the order of the norm (None: 2-norm of vectors, Frobenius of matrices, and the
            2-norm of the flattened input when axis is None too).
        axis: None, an int (vector norm) or a pair of ints (matrix norm).
        keepdims: keep the reduced axes with size 1.

    Returns:
        The norm(s), with the reduced axes removed (or kept with size 1).

    Raises:
        ValueError: a string ord for a vector norm, or an unknown ord for a matrix norm.
        NotImplementedError: ord given with axis=None for an input of more than 2 dims.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.norm(np.array([3.0, 4.0]))
        array(5.)
        >>> fnp.linalg.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        array(6.)
    """
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
        array(5.)
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """As numpy.linalg.vector_norm: the vector norm over `axis`.

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
        array(5.)
    """
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
    x1, x2 = as_operand(x1), as_operand(x2)
    if dtype_of(x1).kind == "c":
        x1 = ew.conj(x1)
    return red.sum(ew.multiply(x1, x2), axis=axis)


def matrix_power(a, n):
    """As numpy.linalg.matrix_power: a^n by repeated squaring with matmul.

    n = 0 gives the identity, n < 0 uses inv(a).

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
    """As numpy.linalg.pinv: the Moore-Penrose pseudo-inverse.

    Computed as V diag(1/s) U^H from the reduced SVD, singular values at or below the cutoff
    dropped (double where: no 1/0 in the derivative). Its derivative is the SVD's, which
    assumes distinct singular values.

    Args:
        a: a (..., m, n) matrix or stack of them.
        rcond: relative cutoff (NumPy's older name for rtol): singular values <= rcond * max(s)
            are dropped; default max(m, n) * eps.
        hermitian: accepted for NumPy compatibility and ignored.
        rtol: the same cutoff under NumPy 2's name.

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
