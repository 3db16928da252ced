"""vjp rules of the scipy.linalg primitives (see jvp_scipy_linalg.py for the formulas).

LU: with Lbar the strictly lower and Ubar the upper part of the packed cotangent,
Abar[perm] = L^-T (tril(L^T Lbar, -1) + triu(Ubar U^T)) U^-T.
expm: the adjoint of E -> L(A, E) is G -> L(A^H, G).
"""
from .. import numpy as fnp
from ..ops import elementwise as ew, linalg as la, scipy_linalg as sla
from .jvp_scipy_linalg import frechet_expm, rows_permuted, triangle, unpacked


def _mT(a):
    return fnp.swapaxes(a, -1, -2)


@sla.lu_factor.def_vjp
def lu_factor_vjp(ct, primals, out):
    g, _ = ct
    if g is None:
        return (None,)
    lu, piv = out
    low, up = unpacked(lu)
    inner = fnp.tril(la.matmul(_mT(low), fnp.tril(g, -1)), -1) + \
        fnp.triu(la.matmul(fnp.triu(g), _mT(up)))
    z = _mT(sla.solve_triangular(lu, _mT(inner), lower=False, trans=0,    # inner U^-T
                                 unit_diagonal=False))
    abar_p = sla.solve_triangular(lu, z, lower=True, trans=1, unit_diagonal=True)   # L^-T z
    perm = sla.pivots_to_permutation(piv)
    return (rows_permuted(abar_p, fnp.argsort(perm, axis=-1, kind="stable")),)


@sla.expm.def_vjp
def expm_vjp(ct, primals, out):
    (a,) = primals
    return (frechet_expm(ew.conj(_mT(a)), ct),)


@sla.solve_triangular.def_vjp
def solve_triangular_vjp(ct, primals, out, *, lower, trans, unit_diagonal):
    """bbar = op(T)^-T xbar (a solve with the transposed op); op(T)bar = -bbar x^T, taken back
    through op and onto the triangle that was read."""
    a, b = primals
    if trans == 2:                     # op(T)^T = conj(T): solve with conj(a), untransposed
        b_bar = sla.solve_triangular(ew.conj(a), ct, lower=lower, trans=0,
                                     unit_diagonal=unit_diagonal)
    else:
        b_bar = sla.solve_triangular(a, ct, lower=lower, trans=1 - trans,
                                     unit_diagonal=unit_diagonal)
    op_bar = ew.negative(la.matmul(b_bar, _mT(out)))
    a_bar = op_bar if trans == 0 else _mT(op_bar)
    if trans == 2:
        a_bar = ew.conj(a_bar)
    return triangle(a_bar, lower, unit_diagonal), b_bar
