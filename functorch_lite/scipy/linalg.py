"""scipy.linalg's functions (as jax.scipy.linalg), on every transform level.

solve_triangular, lu_factor and expm are primitives (SciPy kernels, rules in
derivatives/*_scipy_linalg.py); cho_factor, cho_solve, lu_solve and block_diag compose library
ops. All take stacks of matrices (leading dims are a batch), as numpy.linalg does.
"""
from .. import numpy as fnp
from ..numpy._util import as_operand, ndim, shape
from ..ops import scipy_linalg as sla

__all__ = ["solve_triangular", "cho_factor", "cho_solve", "lu_factor", "lu_solve", "expm",
           "block_diag"]

expm = sla.expm


_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """x with op(T) x = b, T the lower (or upper) triangle of a (unit diagonal if asked; the
    other entries of a are never read) and op given by trans: 0 or 'N' (T), 1 or 'T' (T^T),
    2 or 'C' (T^H). b is (n,) or (n, k), with leading batch dims on either side."""
    a, b = as_operand(a), as_operand(b)
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    vector = ndim(b) == 1
    x = sla.solve_triangular(a, fnp.expand_dims(b, -1) if vector else b, lower=bool(lower),
                             trans=_TRANS[trans], unit_diagonal=bool(unit_diagonal))
    return x[..., 0] if vector else x


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor of the symmetric positive definite a, lower or upper,
    with zeros in the other triangle (SciPy leaves whatever a held there)."""
    low = fnp.linalg.cholesky(as_operand(a))
    return (low if lower else fnp.conj(fnp.swapaxes(low, -1, -2))), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with A x = b, given (c, lower) = cho_factor(A)."""
    c, lower = c_and_lower
    c, b = as_operand(c), as_operand(b)
    low = c if lower else fnp.conj(fnp.swapaxes(c, -1, -2))
    y = solve_triangular(low, b, lower=True)
    return solve_triangular(low, y, trans=2, lower=True)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) as scipy.linalg.lu_factor: L (unit diagonal, not stored) and U packed in lu,
    and the 0-based row interchanges of partial pivoting in piv (int32)."""
    return sla.lu_factor(as_operand(a))


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with op(A) x = b, given (lu, piv) = lu_factor(A); trans as in solve_triangular."""
    lu, piv = lu_and_piv
    lu, b = as_operand(lu), as_operand(b)
    perm = sla.pivots_to_permutation(piv)
    vector = ndim(b) == 1
    if vector:
        b = fnp.expand_dims(b, -1)
    if trans in (0, "N"):               # L U x = b[perm]
        pb = fnp.take_along_axis(b, fnp.expand_dims(perm, -1), axis=-2)
        y = solve_triangular(lu, pb, lower=True, unit_diagonal=True)
        x = solve_triangular(lu, y, lower=False)
    elif trans in (1, "T", 2, "C"):     # op(A) = op(U) op(L) P: solve, then undo the rows
        y = solve_triangular(lu, b, trans=trans, lower=False)
        z = solve_triangular(lu, y, trans=trans, lower=True, unit_diagonal=True)
        x = fnp.take_along_axis(z, fnp.expand_dims(fnp.argsort(perm, axis=-1), -1), axis=-2)
    else:
        raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    return x[..., 0] if vector else x


def block_diag(*arrs):
    """The block-diagonal matrix of the given blocks (0-d and 1-d blocks count as 1 x 1 and
    1 x n, as SciPy)."""
    if not arrs:
        return fnp.zeros((1, 0))
    blocks = [fnp.atleast_2d(as_operand(a)) for a in arrs]
    for a in blocks:
        if ndim(a) != 2:
            raise ValueError("block_diag: arguments must have at most 2 dimensions, got one "
                             f"of shape {shape(a)}")
    widths = [shape(a)[1] for a in blocks]
    total = sum(widths)
    rows, left = [], 0
    for a, w in zip(blocks, widths):
        rows.append(fnp.pad(a, ((0, 0), (left, total - left - w))))
        left += w
    return fnp.concatenate(rows, axis=0)
