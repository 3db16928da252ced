"""functorch_lite.numpy.linalg: numpy.linalg's names over the linalg primitives."""
from typing import NamedTuple

import numpy as np

from ..ops import elementwise as ew, linalg as la, reductions as red
from ._shape import swapaxes
from ._util import as_operand, dtype_of, ndim, normalize_axes


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class QRResult(NamedTuple):
    Q: object
    R: object


solve = la.solve
inv = la.inv
det = la.det


def cholesky(a, /, *, upper=False):
    low = la.cholesky(as_operand(a))
    return ew.conj(swapaxes(low, -1, -2)) if upper else low


def slogdet(a):
    return SlogdetResult(*la.slogdet(as_operand(a)))


def eigh(a, UPLO="L"):
    return EighResult(*la.eigh(as_operand(a), UPLO=UPLO))


def eigvalsh(a, UPLO="L"):
    return la.eigh(as_operand(a), UPLO=UPLO)[0]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    # singular values alone do not depend on full_matrices: take the reduced factorization,
    # whose derivative exists for non-square inputs too
    u, s, vh = la.svd(as_operand(a), full_matrices=full_matrices and compute_uv)
    return SVDResult(u, s, vh) if compute_uv else s


def qr(a, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr mode {mode!r} is not supported (reduced, complete, r)")
    q, r = la.qr(as_operand(a), mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else QRResult(q, r)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector 2-norm, Frobenius norm, and vector p-norms (ord = p, inf, -inf, 0, 1)."""
    x = as_operand(x)
    nd = ndim(x)
    if axis is None and ord is None:
        axes = tuple(range(nd))
    elif axis is None:
        if nd == 2 and ord == "fro":
            axes = (0, 1)
        elif nd == 1:
            axes = (0,)
        else:
            raise NotImplementedError(f"norm with ord={ord!r} over {nd}-d input without axis")
    else:
        axes = normalize_axes(axis, nd)
    if len(axes) == 2 and ord not in (None, "fro"):
        raise NotImplementedError(f"matrix norm ord={ord!r} is not supported "
                                  "(Frobenius only)")
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


__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "qr",
           "norm", "EighResult", "SlogdetResult", "SVDResult", "QRResult"]
