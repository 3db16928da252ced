"""vjp rules of eig and eigvals: the transposes of the jvp rules (jvp_eig.py), in the
library's complex convention (JAX's: linear maps transpose without conjugation, and a real
input takes the real part of its cotangent).

With Wbar the eigenvalue cotangent and Vbar the eigenvector cotangent (normalization
transposed: Vbar -= conj(V) Re(diag(V^T Vbar))): Abar = V^-T (diag(Wbar) + F o (V^T Vbar)) V^T.
"""
from .. import numpy as fnp
from ..ops import elementwise as ew, eig as eg, linalg as la
from .jvp_eig import eig_parts


def _mT(x):
    return fnp.swapaxes(x, -1, -2)


def _diag_embed(x):
    n = x.shape[-1]
    return ew.multiply(fnp.expand_dims(x, -1), fnp.eye(n, dtype=x.dtype, like=x))


def _to_input(abar, a):
    return ew.real(abar) if a.dtype.kind != "c" else abar


def _back(v, inner):
    """V^-T inner V^T."""
    return la.solve(_mT(v), la.matmul(inner, _mT(v)))


@eg.eigvals.def_vjp
def eigvals_vjp(ct, primals, out):
    (a,) = primals
    _, v = eg.eig(a)
    return (_to_input(_back(v, _diag_embed(fnp.astype(ct, v.dtype))), a),)


@eg.eig.def_vjp
def eig_vjp(ct, primals, out):
    (a,) = primals
    w_bar, v_bar = ct
    w, v, f = eig_parts(a)
    inner = None
    if w_bar is not None:
        inner = _diag_embed(fnp.astype(w_bar, v.dtype))
    if v_bar is not None:
        v_bar = fnp.astype(v_bar, v.dtype)
        radial = ew.real(fnp.sum(ew.multiply(v, v_bar), axis=-2, keepdims=True))
        v_bar = ew.subtract(v_bar, ew.multiply(ew.conj(v), radial))
        term = ew.multiply(f, la.matmul(_mT(v), v_bar))
        inner = term if inner is None else ew.add(inner, term)
    if inner is None:
        return (None,)
    return (_to_input(_back(v, inner), a),)
