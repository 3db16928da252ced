"""jvp rules of the scipy.linalg primitives: the LU factorization and the matrix exponential.

LU (A[perm] = L U, L unit lower, U upper, packed into one matrix): with X = L^-1 dA[perm] U^-1,
dL = L tril(X, -1) and dU = triu(X) U; the pivots are piecewise constant (no tangent).
expm: the Frechet derivative L(A, E) is the upper-right block of expm([[A, E], [0, A]]) (Higham,
Functions of Matrices, 3.2), so the rule is the op itself and transforms again.
"""

from .. import numpy as fnp
from ..numpy._util import shape
from ..ops import linalg as la, scipy_linalg as sla
from .jvp_helpers import fit


def _mT(a):
    return fnp.swapaxes(a, -1, -2)


def rows_permuted(a, perm):
    """a[..., perm, :] for a stack of permutations."""
    return fnp.take_along_axis(a, fnp.expand_dims(perm, -1), axis=-2)


def unpacked(lu):
    """(L, U) of a packed LU matrix."""
    n = shape(lu)[-1]
    return fnp.tril(lu, -1) + fnp.eye(n, dtype=lu.dtype, like=lu), fnp.triu(lu)


@sla.lu_factor.def_jvp
def lu_factor_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    lu, piv = sla.lu_factor(a)
    low, up = unpacked(lu)
    dap = rows_permuted(ta, sla.pivots_to_permutation(piv))
    y = sla.solve_triangular(lu, dap, lower=True, trans=0, unit_diagonal=True)   # L^-1 dA[perm]
    x = _mT(sla.solve_triangular(lu, _mT(y), lower=False, trans=1,               # y U^-1
                                 unit_diagonal=False))
    d_lu = la.matmul(low, fnp.tril(x, -1)) + la.matmul(fnp.triu(x), up)
    return (lu, piv), (fit(d_lu, lu), None)


def frechet_expm(a, e):
    """L(A, E): the upper-right block of expm([[A, E], [0, A]])."""
    n = shape(a)[-1]
    zero = fnp.zeros_like(a)
    block = fnp.concatenate([fnp.concatenate([a, e], axis=-1),
                             fnp.concatenate([zero, a], axis=-1)], axis=-2)
    return sla.expm(block)[..., :n, n:]


@sla.expm.def_jvp
def expm_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    out = sla.expm(a)
    return out, fit(frechet_expm(a, fnp.broadcast_to(ta, shape(a))), out)


def triangle(x, lower, unit_diagonal):
    """The part of a matrix that solve_triangular reads (its derivative lives there only)."""
    t = fnp.tril(x) if lower else fnp.triu(x)
    if unit_diagonal:
        t = fnp.tril(t, -1) if lower else fnp.triu(t, 1)
    return t


def op_of(t, trans):
    """op(T) for trans 0, 1, 2: T, T^T, T^H."""
    if trans == 0:
        return t
    t = _mT(t)
    return fnp.conj(t) if trans == 2 else t


@sla.solve_triangular.def_jvp
def solve_triangular_jvp(primals, tangents, **params):
    """dx = op(T)^-1 (db - op(dT) x)."""
    (a, b), (ta, tb) = primals, tangents
    x = sla.solve_triangular(a, b, **params)
    rhs = tb
    if ta is not None:
        d_op = op_of(triangle(ta, params["lower"], params["unit_diagonal"]), params["trans"])
        term = la.matmul(d_op, x)
        rhs = fnp.negative(term) if rhs is None else rhs - term
    if rhs is None:
        return x, None
    return x, fit(sla.solve_triangular(a, fnp.broadcast_to(rhs, shape(x)), **params), x)
