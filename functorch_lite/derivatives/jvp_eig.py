"""jvp rules of eig and eigvals (distinct eigenvalues assumed, as JAX and PyTorch).

With a V = V diag(w) and P = V^-1 dA V: dw = diag(P) and dV = V (F o P), F_ij = 1/(w_j - w_i)
off the diagonal, 0 on it; then the part along each eigenvector that would change its norm is
removed (dV -= V Re(diag(V^H dV))), since eig returns unit-norm eigenvectors. An eigenvector's
phase is a free choice (LAPACK's differs): functions of eigenvectors that do not depend on it
(eigenvalues, |v|, v v^H) have the derivatives of numpy.linalg.eig.
"""
from .. import numpy as fnp
from ..numpy._util import shape
from ..ops import elementwise as ew, eig as eg, linalg as la
from .jvp_helpers import fit


def _as_complex(x, like):
    return x if x.dtype == like.dtype else fnp.astype(x, like.dtype)


def eig_parts(a):
    """(w, v, F) of a: eigenvalues, eigenvectors and the eigenvalue-gap reciprocals."""
    w, v = eg.eig(a)
    n = shape(w)[-1]
    eye = fnp.eye(n, dtype=bool, like=w)
    gaps = ew.subtract(fnp.expand_dims(w, -2), fnp.expand_dims(w, -1))     # w_j - w_i
    f = ew.where(eye, 0.0, ew.reciprocal(ew.where(eye, 1.0, gaps)))
    return w, v, f


def projected(v, da):
    """V^-1 dA V."""
    return la.solve(v, la.matmul(_as_complex(da, v), v))


def normalized(v, dv):
    """dV without the component that would change each column's norm."""
    radial = ew.real(fnp.sum(ew.multiply(ew.conj(v), dv), axis=-2, keepdims=True))
    return ew.subtract(dv, ew.multiply(v, radial))


@eg.eigvals.def_jvp
def eigvals_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    w, v = eg.eig(a)
    p = projected(v, fnp.broadcast_to(ta, shape(a)))
    return w, fit(fnp.diagonal(p, axis1=-2, axis2=-1), w)


@eg.eig.def_jvp
def eig_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    w, v, f = eig_parts(a)
    p = projected(v, fnp.broadcast_to(ta, shape(a)))
    dw = fnp.diagonal(p, axis1=-2, axis2=-1)
    dv = normalized(v, la.matmul(v, ew.multiply(f, p)))
    return (w, v), (fit(dw, w), fit(dv, v))
