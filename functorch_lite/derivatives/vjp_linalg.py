"""vjp rules of the products and the numpy.linalg primitives.

matmul folds broadcast batch dimensions into one matrix product where one operand is a plain
matrix (one GEMM, not a batch of products summed afterwards). The factorization rules are the
standard matrix-calculus results; rules of functions of a symmetric matrix (cholesky, eigh)
return the symmetrized cotangent, as JAX and PyTorch do.
"""
import string

import numpy as np

from .. import numpy as fnp
from ..ops import elementwise as ew, linalg as la, shape as sh
from .vjp_helpers import defvjp, shape_of


def mT(x):
    return fnp.swapaxes(x, -1, -2)


def _sym(x):
    return ew.multiply(ew.add(x, mT(x)), 0.5)


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
        g2 = sh.reshape(fnp.moveaxis(g, -2, 0), shape=(m, -1))
        b2 = sh.reshape(fnp.moveaxis(b, -2, 0), shape=(k, -1))
        return la.matmul(g2, mT(b2))
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
        return la.matmul(sh.reshape(g, shape=(-1,)), sh.reshape(a, shape=(-1, k)))
    if nb == 2 and na > 2:             # fold the batch into the contraction
        k, n = shape_of(b)
        return la.matmul(mT(sh.reshape(a, shape=(-1, k))), sh.reshape(g, shape=(-1, n)))
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
                operands.append(np.eye(dims[c], dtype=dtype))
                subs.append(c + fresh)
                target.append(fresh)
            else:
                seen.add(c)
                target.append(c)
        available = set("".join(subs))
        for c in sorted(seen - available):   # summed in this operand only: broadcast back
            operands.append(np.ones(dims[c], dtype=dtype))
            subs.append(c)
        cts.append(la.einsum(*operands, subscripts=",".join(subs) + "->" + "".join(target),
                             optimize=optimize))
    return tuple(cts)


_einsum_vjp.takes_needed = True


def _vec(x):
    return fnp.expand_dims(x, -1)


def _solve_b(g, out, a, b):
    """b̄ = solve(aᵀ, ḡ) (b a vector when b.ndim == 1, as NumPy 2)."""
    if len(shape_of(b)) == 1:
        return la.solve(mT(a), _vec(g))[..., 0]
    return la.solve(mT(a), g)


def _solve_a(g, out, a, b):
    """ā = -b̄ xᵀ."""
    gb = _solve_b(g, out, a, b)
    if len(shape_of(b)) == 1:
        return ew.negative(ew.multiply(_vec(gb), fnp.expand_dims(out, -2)))
    return ew.negative(la.matmul(gb, mT(out)))


def _inv_vjp(g, out, a):
    return ew.negative(la.matmul(mT(out), la.matmul(g, mT(out))))


def _det_vjp(g, out, a):
    return ew.multiply(_vec(_vec(ew.multiply(g, out))), mT(la.inv(a)))


def _slogdet_vjp(ct, primals, out):
    _, g_logdet = ct
    if g_logdet is None:
        return (None,)
    return (ew.multiply(_vec(_vec(g_logdet)), mT(la.inv(primals[0]))),)


def _phi(x):
    """Lower triangle with the diagonal halved."""
    n = shape_of(x)[-1]
    weights = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return ew.multiply(x, weights.astype(x.dtype))


def _cholesky_vjp(g, out, a):
    """Ā = sym(L⁻ᵀ Φ(Lᵀ L̄) L⁻¹)."""
    L = out
    p = _phi(la.matmul(mT(L), g))
    x = la.solve(mT(L), p)                     # L⁻ᵀ Φ
    x = mT(la.solve(mT(L), mT(x)))             # (L⁻ᵀ Φ) L⁻¹
    return _sym(x)


def _off_diagonal_inverse_gaps(w):
    """F[i, j] = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    n = shape_of(w)[-1]
    gaps = ew.subtract(fnp.expand_dims(w, -2), fnp.expand_dims(w, -1))
    eye = np.eye(n, dtype=bool)
    return ew.where(eye, 0.0, ew.reciprocal(ew.where(eye, 1.0, gaps)))


def _eigh_vjp(ct, primals, out, UPLO="L"):
    """Ā = V (diag(w̄) + F ∘ (Vᵀ V̄)) Vᵀ, symmetrized."""
    w, v = out
    gw, gv = ct
    inner = 0.0
    if gv is not None:
        inner = ew.multiply(_off_diagonal_inverse_gaps(w), la.matmul(mT(v), gv))
    if gw is not None:
        inner = ew.add(inner, ew.multiply(_vec(gw), np.eye(shape_of(w)[-1], dtype=w.dtype)))
    return (_sym(la.matmul(v, la.matmul(inner, mT(v)))),)


def _svd_vjp(ct, primals, out, full_matrices=True):
    """Reduced-SVD cotangent (Townsend 2016); full matrices only for square inputs."""
    a = primals[0]
    m, n = shape_of(a)[-2:]
    if full_matrices and m != n:
        raise NotImplementedError("the vjp of svd(full_matrices=True) of a non-square matrix is "
                                  "not defined; use full_matrices=False")
    u, s, vh = out
    gu, gs, gvh = ct
    k = min(m, n)
    eye = np.eye(k, dtype=bool)
    s2 = ew.square(s)
    gaps = ew.subtract(fnp.expand_dims(s2, -2), fnp.expand_dims(s2, -1))   # s_j² - s_i²
    f = ew.where(eye, 0.0, ew.reciprocal(ew.where(eye, 1.0, gaps)))
    v = mT(vh)
    s_col, s_row = _vec(s), fnp.expand_dims(s, -2)
    total = 0.0
    if gs is not None:
        total = la.matmul(u, la.matmul(ew.multiply(_vec(gs), np.eye(k, dtype=s.dtype)), vh))
    if gu is not None:
        ut_gu = la.matmul(mT(u), gu)
        j = ew.multiply(f, ew.subtract(ut_gu, mT(ut_gu)))
        term = la.matmul(u, la.matmul(ew.multiply(j, s_row), vh))
        if m > k:
            proj = ew.subtract(gu, la.matmul(u, ut_gu))
            term = ew.add(term, la.matmul(ew.divide(proj, s_row), vh))
        total = ew.add(total, term)
    if gvh is not None:
        gv = mT(gvh)
        vt_gv = la.matmul(mT(v), gv)
        kk = ew.multiply(f, ew.subtract(vt_gv, mT(vt_gv)))
        term = la.matmul(u, la.matmul(ew.multiply(s_col, kk), vh))
        if n > k:
            proj = ew.subtract(gv, la.matmul(v, vt_gv))
            term = ew.add(term, la.matmul(u, mT(ew.divide(proj, s_row))))
        total = ew.add(total, term)
    return (total,)


def _qr_vjp(ct, primals, out, mode="reduced"):
    """Ā = (Q̄ + Q copyltu(M)) R⁻ᵀ with M = R R̄ᵀ - Q̄ᵀ Q (reduced QR of a tall or square
    matrix)."""
    a = primals[0]
    m, n = shape_of(a)[-2:]
    if m < n:
        raise NotImplementedError("the vjp of qr is implemented for m >= n only")
    q, r = out
    gq, gr = ct
    if gq is None:
        gq = fnp.zeros(shape_of(q), dtype=q.dtype)
    if gr is None:
        gr = fnp.zeros(shape_of(r), dtype=r.dtype)
    mm = ew.subtract(la.matmul(r, mT(gr)), la.matmul(mT(gq), q))
    low = fnp.tril(mm, -1)
    copyltu = ew.add(ew.add(low, mT(low)), ew.multiply(mm, np.eye(n, dtype=mm.dtype)))
    b = ew.add(gq, la.matmul(q, copyltu))
    return (mT(la.solve(r, mT(b))),)     # B R⁻ᵀ = (R⁻¹ Bᵀ)ᵀ


defvjp(la.matmul, _matmul_a, _matmul_b)
la.einsum.def_vjp(_einsum_vjp)
defvjp(la.solve, _solve_a, _solve_b)
defvjp(la.inv, _inv_vjp)
defvjp(la.det, _det_vjp)
la.slogdet.def_vjp(_slogdet_vjp)
defvjp(la.cholesky, _cholesky_vjp)
la.eigh.def_vjp(_eigh_vjp)
la.svd.def_vjp(_svd_vjp)
la.qr.def_vjp(_qr_vjp)
