"""vjp rules of the products and the numpy.linalg primitives.

matmul folds broadcast batch dimensions into one matrix product where one operand is a plain
matrix (one GEMM, not a batch of products summed afterwards). The factorization rules are the
standard matrix-calculus results, written as transposes of the jvp rules so that they hold for
complex input too (docs/autodiff.md, "Complex numbers"); rules of functions of a Hermitian
matrix (cholesky, eigh) return the Hermitian (for real input, symmetrized) cotangent, as JAX and
PyTorch do.
"""
import string

import numpy as np

from .. import numpy as fnp
from ..ops import (elementwise as ew, linalg as la, linalg_factored as lf,
                   scipy_linalg as sla, shape as sh)
from .jvp_linalg import safe_matrix
from .vjp_helpers import defvjp, shape_of


def mT(x):
    return fnp.swapaxes(x, -1, -2)


def _rows(x, n_rows):
    """x (its leading axis of length n_rows) as an (n_rows, rest) matrix; rest is spelled out,
    not -1, which is ambiguous when some dim is 0."""
    return sh.reshape(x, shape=(n_rows, _size(shape_of(x)[1:])))


def _cols(x, n_cols):
    """x (its last axis of length n_cols) as a (rest, n_cols) matrix."""
    return sh.reshape(x, shape=(_size(shape_of(x)[:-1]), n_cols))


def _size(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _sym(x):
    return ew.multiply(ew.add(x, mT(x)), 0.5)


def _herm(x):
    """(x + x^H) / 2 (for real x, the symmetric part)."""
    return _sym(x) if x.dtype.kind != "c" else ew.multiply(ew.add(x, ew.conj(mT(x))), 0.5)


def _matmul_a(g, out, a, b):
    na, nb = len(shape_of(a)), len(shape_of(b))
    if na == 1 and nb == 1:
        return ew.multiply(g, b)
    if nb == 1:                        # (..., m, k) @ (k,): outer(g, b)
        if na == 2:                    # see _matmul_b
            return la.einsum(g, b, subscripts="m,k->mk", optimize=False)
        return ew.multiply(fnp.expand_dims(g, -1), b)
    if na == 1:                        # (k,) @ (..., k, n) -> (..., n): b @ g
        if nb == 2:
            return la.matmul(b, g)
        return la.matmul(b, fnp.expand_dims(g, -1))[..., 0]
    if na == 2 and nb > 2:             # fold the batch of g and b into one product
        m, k = shape_of(a)
        return la.matmul(_rows(fnp.moveaxis(g, -2, 0), m), mT(_rows(fnp.moveaxis(b, -2, 0), k)))
    return la.matmul(g, mT(b))


def _matmul_b(g, out, a, b):
    na, nb = len(shape_of(a)), len(shape_of(b))
    if na == 1 and nb == 1:
        return ew.multiply(g, a)
    if na == 1:                        # (k,) @ (..., k, n): outer(a, g)
        if nb == 2:                    # one einsum: a single op, and under vmap (per-example
            # weight gradients, "zk,zn->zkn") NumPy's einsum loop beats a broadcast multiply;
            # no index is summed, so no contraction order to choose
            return la.einsum(a, g, subscripts="k,n->kn", optimize=False)
        return ew.multiply(fnp.expand_dims(a, -1), fnp.expand_dims(g, -2))
    if nb == 1:                        # (..., m, k) @ (k,) -> (..., m): sum over batch of g a
        k = shape_of(a)[-1]
        return la.matmul(sh.reshape(g, shape=(-1,)), _cols(a, k))
    if nb == 2 and na > 2:             # fold the batch into the contraction
        k, n = shape_of(b)
        return la.matmul(mT(_cols(a, k)), _cols(g, n))
    return la.matmul(mT(a), g)


def _einsum_vjp(ct, primals, out, needed=None, *, subscripts, optimize="greedy"):
    """Operand i's cotangent is an einsum of the output cotangent with the other operands.
    A letter repeated in operand i (a diagonal) is paired with a fresh letter through an
    identity matrix; a letter summed away in operand i alone is restored by a ones vector."""
    inputs, output = subscripts.split("->")
    terms = inputs.split(",")
    spare = iter(c for c in string.ascii_letters if c not in subscripts)
    cts = []
    for i, term in enumerate(terms):
        if needed is not None and not needed[i]:
            cts.append(None)
            continue
        operands = [ct] + [p for j, p in enumerate(primals) if j != i]
        subs = [output] + [t for j, t in enumerate(terms) if j != i]
        dims = dict(zip(term, shape_of(primals[i])))
        dtype = primals[i].dtype
        target, seen = [], set()
        for c in term:
            if c in seen:              # diagonal: tie c to a fresh letter with an identity
                fresh = next(spare)
                operands.append(fnp.eye(dims[c], dtype=dtype, like=ct))
                subs.append(c + fresh)
                target.append(fresh)
            else:
                seen.add(c)
                target.append(c)
        available = set("".join(subs))
        for c in sorted(seen - available):   # summed in this operand only: broadcast back
            operands.append(fnp.ones(dims[c], dtype=dtype, like=ct))
            subs.append(c)
        cts.append(la.einsum(*operands, subscripts=",".join(subs) + "->" + "".join(target),
                             optimize=optimize))
    return tuple(cts)


_einsum_vjp.takes_needed = True


def _vec(x):
    return fnp.expand_dims(x, -1)


def _solve_fwd(a, b):
    """solve keeping its factors for the vjp: the backward solve (with aᵀ) reuses them."""
    lu, piv = lf.solve_factors(a)
    x = lf.solve_factored(a, lu, piv, b)
    return x, (x, lu, piv)


def _solve_vjp(ct, primals, residuals, needed=(True, True)):
    a, b = primals
    x, lu, piv = residuals
    return _factored_solve_vjp(ct, a, lu, piv, b, x, 0, needed[0])[::3]


def _solve_factored_vjp(ct, primals, out, needed=(True, True, True, True), trans=0):
    a, lu, piv, b = primals
    return _factored_solve_vjp(ct, a, lu, piv, b, out, trans, needed[0])


def _factored_solve_vjp(g, a, lu, piv, b, x, trans, want_a):
    """x = op(a)⁻¹ b: b̄ = op(a)⁻ᵀ ḡ (one solve with the same factors, b a vector when
    b.ndim == 1, as NumPy 2), ā = -b̄ xᵀ (or -x b̄ᵀ for op(a) = aᵀ)."""
    vector = len(shape_of(b)) == 1
    gb = lf.solve_factored(a, lu, piv, _vec(g) if vector else g, trans=1 - trans)
    ga = None
    if want_a:
        left, right = (gb, _vec(x) if vector else x) if trans == 0 else \
            (_vec(x) if vector else x, gb)
        ga = ew.negative(la.matmul(left, mT(right)))
    return ga, None, None, gb[..., 0] if vector else gb


def _inv_vjp(g, out, a):
    return ew.negative(la.matmul(mT(out), la.matmul(g, mT(out))))


def _pinv_vjp(g, out, a, rcond):
    """The transpose of pinv's jvp: ā = -Pᵀ ḡ Pᵀ + (I - A P) ḡᵀ P Pᵀ + Pᵀ P ḡᵀ (I - P A)."""
    p, pt, gt = out, mT(out), mT(g)
    m, n = a.shape[-2:]
    ap = fnp.subtract(fnp.eye(m, dtype=p.dtype, like=p), la.matmul(a, p))
    pa = fnp.subtract(fnp.eye(n, dtype=p.dtype, like=p), la.matmul(p, a))
    abar = ew.negative(la.matmul(la.matmul(pt, g), pt))
    abar = ew.add(abar, la.matmul(la.matmul(ap, gt), la.matmul(p, pt)))
    return ew.add(abar, la.matmul(la.matmul(la.matmul(pt, p), gt), pa))


def _det_vjp(g, out, a):
    """ā = ḡ adj(a)ᵀ (the adjugate: defined at singular matrices too)."""
    return ew.multiply(_vec(_vec(g)), mT(la.adjugate(a)))


def _adjugate_vjp(g, out, a):
    """The transpose of adjugate's jvp: ā = (<ḡ, adj> adjᵀ - adjᵀ ḡ adjᵀ) / det(a)."""
    adj_t = mT(out)
    pairing = fnp.sum(ew.multiply(g, out), axis=(-2, -1))
    inner = ew.subtract(ew.multiply(_vec(_vec(pairing)), adj_t),
                        la.matmul(la.matmul(adj_t, g), adj_t))
    return ew.divide(inner, _vec(_vec(la.det(a))))


def _slogdet_vjp(ct, primals, out):
    """The transpose of slogdet's jvp: tau = tr(a^-1 da) gets the cotangent
    g_logdet + i Im(g_sign sign) (the sign's part only for complex a), and a gets tau's
    cotangent times a^-T. At a singular matrix (sign 0) the sign's part is 0 and log|det|'s
    is NaN where its cotangent is not 0."""
    a, = primals
    g_sign, g_logdet = ct
    g_tau = g_logdet
    if g_sign is not None and a.dtype.kind == "c":
        turn = ew.multiply(ew.imag(ew.multiply(g_sign, out[0])), 1j)
        g_tau = turn if g_tau is None else ew.add(g_tau, turn)
    if g_tau is None:
        return (None,)
    safe, singular = safe_matrix(a, out[0])
    if g_logdet is not None:
        g_tau = ew.where(ew.logical_and(singular, ew.not_equal(g_logdet, 0)), np.nan, g_tau)
    return (ew.multiply(_vec(_vec(g_tau)), mT(la.inv(safe))),)


def _phi(x):
    """Lower triangle with the diagonal halved."""
    n = shape_of(x)[-1]
    weights = fnp.tril(fnp.ones((n, n), like=x), -1) + 0.5 * fnp.eye(n, like=x)
    return ew.multiply(x, weights.astype(x.dtype))


def _cholesky_vjp(g, out, a):
    """Ā = herm(L⁻ᵀ Φ(Lᵀ L̄) conj(L⁻¹)): the transpose of dL = L Φ(L⁻¹ dA L⁻ᴴ) (Murray 2016,
    "Differentiation of the Cholesky decomposition"). Both inverses are triangular solves with
    the factor itself: no LU of L (a second factorization, and beside triangular solves the
    batched getrf that deadlocks jaxlib's CPU thread pool)."""
    L = out
    p = _phi(la.matmul(mT(L), g))
    x = sla.solve_triangular(L, p, lower=True, trans=1, unit_diagonal=False)     # L⁻ᵀ Φ
    x = mT(sla.solve_triangular(L, mT(x), lower=True, trans=2,                  # x conj(L⁻¹)
                                unit_diagonal=False))
    return _herm(x)


def _off_diagonal_inverse_gaps(w):
    """F[i, j] = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    n = shape_of(w)[-1]
    gaps = ew.subtract(fnp.expand_dims(w, -2), fnp.expand_dims(w, -1))
    eye = fnp.eye(n, dtype=bool, like=w)
    return ew.where(eye, 0.0, ew.reciprocal(ew.where(eye, 1.0, gaps)))


def _eigh_vjp(ct, primals, out, UPLO="L"):
    """Ā = herm(conj(V) (diag(w̄) + F ∘ (Vᵀ V̄)) Vᵀ), the transpose of the jvp
    (dw = Re diag(Vᴴ dA V), dV = V (F ∘ (Vᴴ dA V))), made Hermitian (symmetric for real a):
    the derivative along Hermitian directions, as JAX and PyTorch."""
    w, v = out
    gw, gv = ct
    inner = 0.0
    if gv is not None:
        inner = ew.multiply(_off_diagonal_inverse_gaps(w), la.matmul(mT(v), gv))
    if gw is not None:
        eye = fnp.eye(shape_of(w)[-1], dtype=w.dtype, like=w)
        inner = ew.add(inner, ew.multiply(_vec(gw), eye))
    left = ew.conj(v) if v.dtype.kind == "c" else v
    return (_herm(la.matmul(left, la.matmul(inner, mT(v)))),)


def _svd_vjp(ct, primals, out, full_matrices=True):
    """The transpose of svd's jvp (reduced SVD; full matrices only for square input), step by
    step. With D = Uᴴ dA V the jvp is ds = Re diag(D), dU = U (F ∘ (DS + (DS)ᴴ) + Sinv ∘
    (D - Dᴴ) / 2) [+ (I - U Uᴴ) dA V S⁻¹ for m > n], dV = V (F ∘ (SD + (SD)ᴴ)) [+ (I - V Vᴴ)
    dAᴴ U S⁻¹ for n > m]; each step is transposed in turn (Xᴴ's transpose is Gᴴ)."""
    a = primals[0]
    m, n = shape_of(a)[-2:]
    if full_matrices and m != n:
        raise NotImplementedError("the vjp of svd(full_matrices=True) of a non-square matrix is "
                                  "not defined; use full_matrices=False")
    u, s, vh = out
    gu, gs, gvh = ct
    complex_input = u.dtype.kind == "c"

    def H(x):
        return ew.conj(mT(x)) if complex_input else mT(x)

    def c(x):
        return ew.conj(x) if complex_input else x

    k = min(m, n)
    eye = fnp.eye(k, dtype=bool, like=s)
    s2 = ew.square(s)
    gaps = ew.subtract(fnp.expand_dims(s2, -2), fnp.expand_dims(s2, -1))   # s_j² - s_i²
    f = ew.where(eye, 0.0, ew.reciprocal(ew.where(eye, 1.0, gaps)))
    zero = ew.equal(s, 0)
    s_inv = ew.where(zero, 0.0, ew.reciprocal(ew.where(zero, 1.0, s)))
    s_col, s_row, s_inv_row = _vec(s), fnp.expand_dims(s, -2), fnp.expand_dims(s_inv, -2)
    gd = 0.0                                       # the cotangent of D
    total = 0.0                                    # the parts that reach dA directly
    if gs is not None:
        gd = ew.where(eye, _vec(gs), 0.0)
    if gu is not None:
        gp = la.matmul(mT(u), gu)
        fg = ew.multiply(f, gp)
        gd = ew.add(gd, ew.multiply(ew.add(fg, H(fg)), s_row))
        sg = ew.multiply(_vec(s_inv), ew.where(eye, gp, 0.0))
        gd = ew.add(gd, ew.multiply(ew.subtract(sg, H(sg)), 0.5))
        if m > k:
            ge = ew.multiply(gu, s_inv_row)
            proj = ew.subtract(ge, la.matmul(c(u), la.matmul(mT(u), ge)))
            total = la.matmul(proj, c(vh))
    if gvh is not None:
        gdv = H(gvh)
        v = H(vh)
        fg = ew.multiply(f, la.matmul(mT(v), gdv))
        gd = ew.add(gd, ew.multiply(s_col, ew.add(fg, H(fg))))
        if n > k:
            ge = ew.multiply(gdv, s_inv_row)
            gy = la.matmul(ew.subtract(ge, la.matmul(mT(vh), la.matmul(mT(v), ge))), mT(u))
            total = ew.add(total, H(gy))
    if isinstance(gd, float):
        return (None,) if isinstance(total, float) else (total,)
    return (ew.add(total, la.matmul(c(u), la.matmul(gd, c(vh)))),)


def _eigvalsh_fwd(a, UPLO="L"):
    """eigvalsh keeping eigh's vectors for its vjp (the values then come from eigh too)."""
    w, v = la.eigh(a, UPLO=UPLO)
    return w, (w, v)


def _svdvals_fwd(a):
    """svdvals keeping the reduced svd's vectors for its vjp (the values then come from it)."""
    u, s, vh = la.svd(a, full_matrices=False)
    return s, (u, s, vh)


def _qr_vjp(ct, primals, out, mode="reduced"):
    """The transpose of qr's jvp, step by step (reduced QR of a tall or square matrix): with
    M = Qᵀ Q̄ - R̄ Rᵀ, C's cotangent is C̄ = tril(M - Mᴴ, -1) - M (+ i Im diag(M) for complex
    input) and Ā = (Q̄ + conj(Q) C̄) R⁻ᵀ."""
    a = primals[0]
    m, n = shape_of(a)[-2:]
    if m < n:
        raise NotImplementedError("the vjp of qr is implemented for m >= n only")
    q, r = out
    gq, gr = ct
    if gq is None:
        gq = fnp.zeros(shape_of(q), dtype=q.dtype, like=q)
    if gr is None:
        gr = fnp.zeros(shape_of(r), dtype=r.dtype, like=r)
    mm = ew.subtract(la.matmul(mT(q), gq), la.matmul(gr, mT(r)))
    complex_input = q.dtype.kind == "c"
    skew = ew.subtract(mm, ew.conj(mT(mm)) if complex_input else mT(mm))
    gc = ew.subtract(fnp.tril(skew, -1), mm)
    if complex_input:
        diag_turn = ew.where(fnp.eye(n, dtype=bool, like=q), ew.multiply(ew.imag(mm), 1j), 0.0)
        gc = ew.add(gc, diag_turn)
    b = ew.add(gq, la.matmul(ew.conj(q) if complex_input else q, gc))
    return (mT(la.solve(r, mT(b))),)     # B R⁻ᵀ = (R⁻¹ Bᵀ)ᵀ


defvjp(la.matmul, _matmul_a, _matmul_b)
la.einsum.def_vjp(_einsum_vjp)
_solve_vjp.takes_needed = _solve_factored_vjp.takes_needed = True
la.solve.def_rule("vjp_fwd", _solve_fwd)
la.solve.def_vjp(_solve_vjp)
lf.solve_factored.def_vjp(_solve_factored_vjp)
defvjp(la.inv, _inv_vjp)
defvjp(la.pinv, _pinv_vjp)
defvjp(la.det, _det_vjp)
defvjp(la.adjugate, _adjugate_vjp)
la.slogdet.def_vjp(_slogdet_vjp)
defvjp(la.cholesky, _cholesky_vjp)
la.eigh.def_vjp(_eigh_vjp)
la.svd.def_vjp(_svd_vjp)
la.eigvalsh.def_rule("vjp_fwd", _eigvalsh_fwd)
la.eigvalsh.def_vjp(lambda ct, primals, residuals, UPLO="L":
                    _eigh_vjp((ct, None), primals, residuals, UPLO))
la.svdvals.def_rule("vjp_fwd", _svdvals_fwd)
la.svdvals.def_vjp(lambda ct, primals, residuals:
                   _svd_vjp((None, ct, None), primals, residuals, full_matrices=False))
la.qr.def_vjp(_qr_vjp)
