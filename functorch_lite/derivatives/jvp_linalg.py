"""jvp rules of the linear-algebra ops (matrix calculus, NumPy's stacking convention).

cholesky and eigh read only one triangle of their input (as numpy.linalg does), so their
derivative is that of the function they compute: the tangent's other triangle is ignored and the
used triangle is mirrored (`_hermitian_from`). svd supports full_matrices=False (or square
inputs); qr supports m >= n, reduced mode. Like JAX, the derivative of eigh/svd assumes distinct
eigen/singular values.
"""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of, shape
from ..ops import elementwise as ew, linalg as la, linalg_factored as lf, scipy_linalg as sla
from .jvp_helpers import add_tangents, def_multilinear, fit

def_multilinear(la.matmul)
def_multilinear(la.einsum)


def _mT(a):
    return fnp.swapaxes(a, -1, -2)


def _trace(a):
    return fnp.sum(fnp.diagonal(a, axis1=-2, axis2=-1), axis=-1)


def _diag_embed(v):
    """Vectors (..., n) -> diagonal matrices (..., n, n)."""
    n = shape(v)[-1]
    return ew.multiply(fnp.expand_dims(v, -1), fnp.eye(n, dtype=bool, like=v))


def _hermitian_from(t, lower=True):
    """The Hermitian (for real t, symmetric) matrix that a routine reading only one triangle
    of t actually sees: that triangle, mirrored and conjugated, and for complex t the real part
    of the diagonal (LAPACK ignores its imaginary part). Masks use t's array module."""
    i = fnp.arange(shape(t)[-1], like=t)
    row, col = fnp.expand_dims(i, -1), i
    strict = ew.greater(row, col) if lower else ew.less(row, col)
    eye = ew.equal(row, col)
    part = ew.where(strict, t, 0.0)
    mirror = _mT(part)
    if dtype_of(t).kind == "c":
        return ew.add(ew.add(part, ew.conj(mirror)), ew.where(eye, ew.real(t), 0.0))
    return ew.add(ew.where(ew.logical_or(strict, eye), t, 0.0), mirror)


@la.solve.def_jvp
def solve_jvp(primals, tangents):
    """x = a^-1 b: dx = a^-1 (db - da x), both solves with one factorization of a."""
    a, b = primals
    lu, piv = lf.solve_factors(a)
    return _factored_solve_jvp(a, lu, piv, b, tangents[0], tangents[1], 0)


@lf.solve_factored.def_jvp
def solve_factored_jvp(primals, tangents, trans=0):
    a, lu, piv, b = primals
    return _factored_solve_jvp(a, lu, piv, b, tangents[0], tangents[3], trans)


def _factored_solve_jvp(a, lu, piv, b, ta, tb, trans):
    """x = op(a)^-1 b: dx = op(a)^-1 (db - op(da) x) (op: a, or a^T for trans=1)."""
    x = lf.solve_factored(a, lu, piv, b, trans=trans)
    vector = len(shape(b)) == 1
    rhs = []
    if tb is not None:
        rhs.append(tb)
    if ta is not None:
        ta = _mT(ta) if trans else ta
        ax = la.matmul(ta, fnp.expand_dims(x, -1))[..., 0] if vector else la.matmul(ta, x)
        rhs.append(ew.negative(ax))
    r = add_tangents(*rhs)
    if vector and len(shape(a)) > 2 and len(shape(r)) > 1:  # batched a with a vector b
        dx = lf.solve_factored(a, lu, piv, fnp.expand_dims(r, -1), trans=trans)[..., 0]
    else:
        dx = lf.solve_factored(a, lu, piv, r, trans=trans)
    return x, fit(dx, x)


@la.inv.def_jvp
def inv_jvp(primals, tangents):
    a, = primals
    ta, = tangents
    out = la.inv(a)
    return out, ew.negative(la.matmul(la.matmul(out, ta), out))


@la.pinv.def_jvp
def pinv_jvp(primals, tangents, rcond):
    """dP = -P dA P + P Pᵀ dAᵀ (I - A P) + (I - P A) dAᵀ Pᵀ P (Golub and Pereyra), P = pinv(A):
    the derivative wherever the rank is locally constant (no 1/(s_i - s_j) of the SVD's)."""
    a, = primals
    ta, = tangents
    p = la.pinv(a, rcond=rcond)
    m, n = a.shape[-2:]
    ap = fnp.subtract(fnp.eye(m, dtype=p.dtype, like=p), la.matmul(a, p))   # I - A P
    pa = fnp.subtract(fnp.eye(n, dtype=p.dtype, like=p), la.matmul(p, a))   # I - P A
    ta_t = fnp.swapaxes(ta, -1, -2)
    dp = ew.negative(la.matmul(la.matmul(p, ta), p))
    dp = ew.add(dp, la.matmul(la.matmul(la.matmul(p, fnp.swapaxes(p, -1, -2)), ta_t), ap))
    dp = ew.add(dp, la.matmul(la.matmul(pa, ta_t), la.matmul(fnp.swapaxes(p, -1, -2), p)))
    return p, dp


@la.det.def_jvp
def det_jvp(primals, tangents):
    """d det(a) = tr(adj(a) da): the adjugate keeps it defined at singular matrices."""
    a, = primals
    ta, = tangents
    out = la.det(a)
    return out, fit(_pairing(_mT(la.adjugate(a)), ta), out)


def _pairing(x, y):
    """sum(x * y) over the matrix dims: tr(x^T y)."""
    return fnp.sum(ew.multiply(x, y), axis=(-2, -1))


@la.adjugate.def_jvp
def adjugate_jvp(primals, tangents):
    """adj(a) = det(a) a^-1 gives d adj = (tr(adj da) adj - adj da adj) / det: defined where a
    is invertible (so the second derivatives of det are; at a singular matrix they are not
    finite)."""
    a, = primals
    ta, = tangents
    adj = la.adjugate(a)
    inner = ew.subtract(ew.multiply(_vec2(_pairing(_mT(adj), ta)), adj),
                        la.matmul(la.matmul(adj, ta), adj))
    return adj, fit(ew.divide(inner, _vec2(la.det(a))), adj)


def _vec2(x):
    """(...) -> (..., 1, 1)."""
    return fnp.expand_dims(fnp.expand_dims(x, -1), -1)


def safe_matrix(a, sign):
    """(a with its singular matrices (sign == 0) replaced by the identity, the singular mask):
    a factorization of the result never fails, and a where() then picks each matrix's own
    value."""
    singular = ew.equal(sign, 0)
    eye = fnp.eye(shape(a)[-1], dtype=dtype_of(a), like=a)
    return ew.where(_vec2(singular), eye, a), singular


@la.slogdet.def_jvp
def slogdet_jvp(primals, tangents):
    """With tau = tr(a^-1 da): d log|det a| = Re tau; the sign (a unit complex number for
    complex a) turns by i Im tau, and is piecewise constant for real a. At a singular matrix
    (sign 0, log|det| -inf) the sign's tangent is 0 and log|det|'s is NaN (not finite)."""
    a, = primals
    ta, = tangents
    sign, logdet = la.slogdet(a)
    safe, singular = safe_matrix(a, sign)
    tau = ew.where(singular, np.nan, _trace(la.solve(safe, ta)))
    if dtype_of(a).kind != "c":
        return (sign, logdet), (None, fit(tau, logdet))
    turn = ew.where(singular, 0.0, ew.multiply(sign, ew.multiply(ew.imag(tau), 1j)))
    return (sign, logdet), (fit(turn, sign), fit(ew.real(tau), logdet))


def _mH(a):
    """The conjugate transpose (the transpose for real a)."""
    return ew.conj(_mT(a)) if dtype_of(a).kind == "c" else _mT(a)


@la.cholesky.def_jvp
def cholesky_jvp(primals, tangents):
    """dL = L phi(L^-1 dA L^-H), phi taking the lower triangle with a halved diagonal; both
    inverses are triangular solves with L (no second factorization)."""
    a, = primals
    ta, = tangents
    low = la.cholesky(a)
    sym = _hermitian_from(ta, lower=True)
    y = sla.solve_triangular(low, sym, lower=True, trans=0, unit_diagonal=False)   # L^-1 dA
    inner = _mH(sla.solve_triangular(low, _mH(y), lower=True, trans=0,              # y L^-H
                                     unit_diagonal=False))
    n = shape(a)[-1]
    lower = fnp.tril(fnp.ones((n, n), dtype=inner.dtype, like=inner))
    phi = ew.multiply(inner, lower - 0.5 * fnp.eye(n, dtype=inner.dtype, like=inner))
    return low, fit(la.matmul(low, phi), low)


@la.eigh.def_jvp
def eigh_jvp(primals, tangents, UPLO="L"):
    """dw = diag(V^T dA V); dV = V (F o V^T dA V) with F_ij = 1 / (w_j - w_i) off the diagonal."""
    a, = primals
    ta, = tangents
    w, v = la.eigh(a, UPLO=UPLO)
    sym = _hermitian_from(ta, lower=UPLO.upper() == "L")
    proj = la.matmul(la.matmul(_mT(ew.conj(v)), sym), v)
    dw = ew.real(fnp.diagonal(proj, axis1=-2, axis2=-1))
    n = shape(w)[-1]
    gaps = ew.subtract(fnp.expand_dims(w, -2), fnp.expand_dims(w, -1))    # w_j - w_i
    off = ~fnp.eye(n, dtype=bool, like=w)
    f = ew.where(off, ew.reciprocal(ew.where(off, gaps, 1.0)), 0.0)
    dv = la.matmul(v, ew.multiply(f, proj))
    return (w, v), (fit(dw, w), dv)


@la.svd.def_jvp
def svd_jvp(primals, tangents, full_matrices=True):
    a, = primals
    ta, = tangents
    m, n = shape(a)[-2:]
    if full_matrices and m != n:
        raise NotImplementedError("the jvp of svd with full_matrices=True is not unique for "
                                  "non-square input; use full_matrices=False")
    u, s, vh = la.svd(a, full_matrices=full_matrices)
    ut, v = _mT(ew.conj(u)), _mT(ew.conj(vh))
    ds_mat = la.matmul(la.matmul(ut, ta), v)                         # U^H dA V
    ds = ew.real(fnp.diagonal(ds_mat, axis1=-2, axis2=-1))
    k = shape(s)[-1]
    s_row = fnp.expand_dims(s, -2)                                   # s_j along columns
    s_col = fnp.expand_dims(s, -1)                                   # s_i along rows
    off = ~fnp.eye(k, dtype=bool, like=s)
    gaps = ew.subtract(ew.square(s_row), ew.square(s_col))
    f = ew.where(off, ew.reciprocal(ew.where(off, gaps, 1.0)), 0.0)
    zero = ew.equal(s, 0)
    s_inv = ew.where(zero, 0.0, ew.reciprocal(ew.where(zero, 1.0, s)))
    dss = ew.multiply(ds_mat, s_row)
    sds = ew.multiply(s_col, ds_mat)
    imag_part = ew.multiply(ew.multiply(ew.subtract(ds_mat, _mT(ew.conj(ds_mat))), 0.5),
                            _diag_embed(s_inv))
    du = la.matmul(u, ew.add(ew.multiply(f, ew.add(dss, _mT(ew.conj(dss)))), imag_part))
    dv = la.matmul(v, ew.multiply(f, ew.add(sds, _mT(ew.conj(sds)))))
    if m > n:
        dav = la.matmul(ta, v)
        du = ew.add(du, ew.multiply(ew.subtract(dav, la.matmul(u, la.matmul(ut, dav))),
                                    fnp.expand_dims(s_inv, -2)))
    elif n > m:
        dahu = la.matmul(_mT(ew.conj(ta)), u)
        dv = ew.add(dv, ew.multiply(ew.subtract(dahu, la.matmul(v, la.matmul(vh, dahu))),
                                    fnp.expand_dims(s_inv, -2)))
    return (u, s, vh), (du, fit(ds, s), _mT(ew.conj(dv)))


@la.eigvalsh.def_jvp
def eigvalsh_jvp(primals, tangents, UPLO="L"):
    """eigh's dw; under a derivative the values come from eigh too (one decomposition)."""
    (w, _), (dw, _) = eigh_jvp(primals, tangents, UPLO)
    return w, dw


@la.svdvals.def_jvp
def svdvals_jvp(primals, tangents):
    """ds = Re diag(U^H dA V), from the reduced svd (which gives the values too)."""
    a, = primals
    ta, = tangents
    u, s, vh = la.svd(a, full_matrices=False)
    proj = la.matmul(la.matmul(_mT(ew.conj(u)), ta), _mT(ew.conj(vh)))
    return s, fit(ew.real(fnp.diagonal(proj, axis1=-2, axis2=-1)), s)


@la.qr.def_jvp
def qr_jvp(primals, tangents, mode="reduced"):
    """Reduced QR of a tall (m >= n) matrix: with C = Q^H dA R^-1 and W the skew-Hermitian
    part built from C's strict lower triangle (plus i Im diag(C) for complex input, which keeps
    R's diagonal real, as LAPACK's), dQ = Q (W - C) + dA R^-1 and dR = (C - W) R."""
    a, = primals
    ta, = tangents
    q, r = la.qr(a, mode=mode)
    m, n = shape(a)[-2:]
    if m < n or (mode == "complete" and m != n):
        raise NotImplementedError("the jvp of qr is implemented for m >= n in reduced mode")
    da_rinv = _mT(la.solve(_mT(r), _mT(ta)))                         # dA R^-1
    c = la.matmul(_mT(ew.conj(q)), da_rinv)
    strict = fnp.tril(fnp.ones((n, n), dtype=bool, like=c), -1)
    lower = ew.where(strict, c, 0.0)
    w = ew.subtract(lower, _mT(ew.conj(lower)))
    if dtype_of(c).kind == "c":
        w = ew.add(w, ew.where(fnp.eye(n, dtype=bool, like=c), ew.multiply(ew.imag(c), 1j), 0.0))
    dq = ew.add(la.matmul(q, ew.subtract(w, c)), da_rinv)
    dr = la.matmul(ew.subtract(c, w), r)
    return (q, r), (fit(dq, q), fit(dr, r))
