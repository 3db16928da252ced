"""A factorization shared between solves: solve's derivatives solve again with the same matrix
(x = a^-1 b, then a^-1 r for the jvp, a^-T g for the vjp), and refactoring it costs as much as
the first solve. `solve_factors(a)` factors a once (LAPACK getrf) and `solve_factored(a, lu,
piv, b)` solves with the factors (getrs): one O(n^3) factorization per derivative, as JAX.

The factors are a cache, not a function of a that is differentiated: solve_factors is not
differentiable, and solve_factored's rules differentiate with respect to `a` (and b), the
factors being only the way to apply a^-1. Where factoring does not pay, solve_factors returns
(a, a marker) and solve_factored is numpy.linalg.solve: for a stack of matrices (NumPy solves a
stack in one C loop, SciPy loops in Python), without SciPy (an optional dependency), for empty
or mixed-precision operands, and on a device.
"""
import importlib

import numpy as np

from .. import backend
from ..dispatch import defop
from .linalg import solve_kernel

_UNFACTORED = np.int8   # the dtype of the marker "piv": the kernels agree on it, never a value


def _lapack(xp, a):
    """scipy.linalg.lapack where the factored path applies to a, else None."""
    if not backend.is_host(xp) or a.ndim != 2 or a.size == 0 or a.dtype.kind not in "fc":
        return None
    try:
        return importlib.import_module("scipy.linalg.lapack")
    except ImportError:
        return None


def _solve_factors_kernel(xp, a):
    lapack = _lapack(xp, a)
    if lapack is None:
        return a, xp.zeros(a.shape[:-1], dtype=_UNFACTORED)
    getrf, = lapack.get_lapack_funcs(("getrf",), (a,))
    lu, piv, info = getrf(a)
    if info > 0:
        raise np.linalg.LinAlgError("Singular matrix")
    return lu, piv


def _solve_factored_kernel(xp, a, lu, piv, b, *, trans=0):
    if piv.dtype == _UNFACTORED or xp.result_type(a, b) != lu.dtype:
        return solve_kernel(xp, a if trans == 0 else xp.swapaxes(a, -1, -2), b)
    lapack = importlib.import_module("scipy.linalg.lapack")
    getrs, = lapack.get_lapack_funcs(("getrs",), (lu,))
    n = lu.shape[-1]
    if b.ndim <= 2:
        x, info = getrs(lu, piv, b, trans=trans)
        return x
    cols = xp.moveaxis(b, -2, 0)                         # (..., n, k) -> one (n, ... * k)
    x, info = getrs(lu, piv, cols.reshape((n, -1)), trans=trans)
    return xp.moveaxis(x.reshape(cols.shape), 0, -2)


solve_factors = defop(
    "solve_factors", _solve_factors_kernel, multiple_results=True, differentiable=False,
    doc="(lu, piv): the LU factors of a (LAPACK getrf) for solve_factored, or (a, a marker) "
        "where factoring does not pay (see functorch_lite.ops.linalg_factored).")
solve_factored = defop(
    "solve_factored", _solve_factored_kernel,
    doc="x with op(a) x = b (op(a) = a, or a^T for trans=1) given solve_factors(a): b is (n,) "
        "or (..., n, k), as numpy.linalg.solve. Differentiable in a and b.")
