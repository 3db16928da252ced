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
    x = _mT(la.solve(_mT(up), _mT(la.solve(low, dap))))       # L^-1 dA[perm] U^-1
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
