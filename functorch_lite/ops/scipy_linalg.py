"""Primitives behind functorch_lite.scipy.linalg: the LU factorization (LAPACK's packed form,
as scipy.linalg.lu_factor), the permutation its pivots describe, and the matrix exponential.
Kernels call scipy.linalg on NumPy arrays and cupyx.scipy.linalg on CuPy arrays; both take
stacks of matrices (leading dims are a batch)."""
import numpy as np

from .. import backend
from ..dispatch import defop
from .special import scipy_module


def linalg_module(xp):
    """scipy.linalg for NumPy arrays, cupyx.scipy.linalg for CuPy arrays."""
    return scipy_module(xp, "linalg")


def _stacked(xp, fn, a):
    """fn over the matrices of a stack (for kernels that take one matrix only)."""
    if a.ndim == 2 or backend.is_host(xp):
        return fn(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    outs = [fn(m) for m in flat]
    if isinstance(outs[0], tuple):
        return tuple(xp.stack(parts).reshape(a.shape[:-2] + parts[0].shape)
                     for parts in zip(*outs))
    return xp.stack(outs).reshape(a.shape)


def _float_dtype(xp, *arrays):
    dt = xp.result_type(*arrays)
    return dt if dt.kind in "fc" else xp.dtype(xp.float64)


def _lu_factor_kernel(xp, a):
    if a.size == 0:  # SciPy refuses empty stacks; an empty stack has empty factors
        return xp.zeros(a.shape, _float_dtype(xp, a)), xp.zeros(a.shape[:-1], xp.int32)
    lu, piv = _stacked(xp, linalg_module(xp).lu_factor, a)
    return lu, piv


def _pivots_to_permutation_kernel(xp, piv):
    """Row i was swapped with row piv[i], in order: the rows of A in the order of P A."""
    n = piv.shape[-1]
    flat = piv.reshape(-1, n)
    rows = xp.arange(flat.shape[0])
    perm = xp.broadcast_to(xp.arange(n), flat.shape).copy()
    for i in range(n):
        j = flat[:, i]
        pi, pj = perm[:, i].copy(), perm[rows, j].copy()
        perm[:, i], perm[rows, j] = pj, pi
    return perm.reshape(piv.shape)


def _solve_triangular_kernel(xp, a, b, *, lower, trans, unit_diagonal):
    batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    if a.size == 0 or b.size == 0:  # SciPy refuses empty stacks
        return xp.zeros(batch + b.shape[-2:], _float_dtype(xp, a, b))
    if backend.is_host(xp) and (batch or not _has_scipy()):
        return _solve_triangle(xp, a, b, lower, trans, unit_diagonal)
    solve = linalg_module(xp).solve_triangular
    if not batch:
        return solve(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    n, k = b.shape[-2:]
    outs = [solve(m, r, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
            for m, r in zip(a.reshape((-1, n, n)), b.reshape((-1, n, k)))]
    return xp.stack(outs).reshape(batch + (n, k))


def _solve_triangle(xp, a, b, lower, trans, unit_diagonal):
    """The solve with the triangle of a as a general solve: NumPy solves a stack in one C
    loop where SciPy's solve_triangular loops over the matrices in Python (a thousand 5 x 5
    triangles: 20 ms against a second), and it is the path without SciPy (the core needs
    only NumPy)."""
    t = xp.tril(a) if lower else xp.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        t = xp.where(xp.eye(n, dtype=bool), xp.ones((), t.dtype), t)
    if trans:
        t = xp.swapaxes(t, -1, -2)
        t = xp.conj(t) if trans == 2 else t
    dtype = _float_dtype(xp, a, b)
    return xp.linalg.solve(t.astype(dtype, copy=False), b.astype(dtype, copy=False))


def _has_scipy():
    try:
        linalg_module(np)
    except ImportError:
        return False
    return True


solve_triangular = defop(
    "solve_triangular", _solve_triangular_kernel,
    doc="x with op(T) x = b for T the lower or upper triangle of a (unit diagonal if asked), "
        "op(T) = T, T^T or T^H for trans 0, 1, 2; b is (..., n, k), batch dims broadcast.")
lu_factor = defop("lu_factor", _lu_factor_kernel, multiple_results=True,
                  doc="(lu, piv): L (unit diagonal, strictly lower part) and U packed in one "
                      "matrix, and LAPACK's row interchanges, with A[perm] = L U.")
pivots_to_permutation = defop("pivots_to_permutation", _pivots_to_permutation_kernel,
                              differentiable=False,
                              doc="The permutation perm of LAPACK pivots: A[perm] = L U.")
expm = defop("expm", lambda xp, a: _stacked(xp, linalg_module(xp).expm, a),
             doc="""The matrix exponential (scaling and squaring with a Pade approximant).

exp(A) = sum of A^k / k!, as scipy.linalg.expm, of each matrix of a stack (leading dims are a
batch). It has jvp, vjp and batching rules, so every transform applies.

Args:
    a: square matrix or stack of square matrices (..., n, n), real or complex.

Returns:
    An array of a's shape.

Raises:
    numpy.linalg.LinAlgError: `a` has fewer than 2 dims or its last two are not equal.
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import linalg
    >>> bool(np.allclose(linalg.expm(np.diag([0.0, 1.0])), np.diag([1.0, np.e])))
    True
    >>> linalg.expm(np.zeros((5, 3, 3))).shape           # a stack of matrices
    (5, 3, 3)
""")
