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


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__


expm = sla.expm


_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """x with op(T) x = b, T the lower (or upper) triangle of a.

    As scipy.linalg.solve_triangular: the other triangle of a is never read (nor its diagonal
    with unit_diagonal), and op is given by trans: 0 or 'N' (T), 1 or 'T' (T^T), 2 or 'C' (T^H).
    Leading batch dims of a and b broadcast. overwrite_b and check_finite are accepted for
    SciPy's signature and ignored.

    Args:
        a: (..., n, n) matrix whose lower or upper triangle is T.
        b: right-hand side, (n,) or (..., n, k).
        trans: 0, 1, 2, 'N', 'T' or 'C'.
        lower: use the lower triangle of a (default: the upper).
        unit_diagonal: take T's diagonal as ones.

    Returns:
        x, of b's shape (with the broadcast batch dims).

    Raises:
        ValueError: `trans` is not one of the six values above, `a` is not square, or the
            shapes of `a` and `b` do not match.
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import linalg
        >>> a = np.array([[2.0, 0.0], [1.0, 1.0]])
        >>> linalg.solve_triangular(a, np.array([2.0, 3.0]), lower=True)
        array([1., 2.])
    """
    a, b = as_operand(a), as_operand(b)
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    vector = ndim(b) == 1
    x = sla.solve_triangular(a, fnp.expand_dims(b, -1) if vector else b, lower=bool(lower),
                             trans=_TRANS[trans], unit_diagonal=bool(unit_diagonal))
    return x[..., 0] if vector else x


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor of the symmetric positive definite a.

    As scipy.linalg.cho_factor, except that the other triangle of c holds zeros (SciPy leaves
    whatever a held there). Pass the pair to cho_solve. overwrite_a and check_finite are
    accepted for SciPy's signature and ignored.

    Args:
        a: (..., n, n) symmetric (Hermitian) positive definite matrix or stack of them.
        lower: return the lower factor L (a = L L^H) instead of the upper U (a = U^H U).

    Returns:
        The pair (c, lower), c of a's shape.

    Raises:
        numpy.linalg.LinAlgError: `a` is not square or not positive definite.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import linalg
        >>> a = np.array([[4.0, 2.0], [2.0, 3.0]])
        >>> c, lower = linalg.cho_factor(a)
        >>> bool(np.allclose(c.T @ c, a)), lower
        (True, False)
    """
    low = fnp.linalg.cholesky(as_operand(a))
    return (low if lower else fnp.conj(fnp.swapaxes(low, -1, -2))), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with A x = b, given (c, lower) = cho_factor(A).

    As scipy.linalg.cho_solve: two triangular solves, differentiable in both c and b.
    overwrite_b and check_finite are accepted for SciPy's signature and ignored.

    Args:
        c_and_lower: the pair (c, lower) returned by cho_factor.
        b: right-hand side, (n,) or (..., n, k).

    Returns:
        x, of b's shape.

    Raises:
        ValueError: the shapes of `c` and `b` do not match.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import linalg
        >>> a, b = np.array([[4.0, 2.0], [2.0, 3.0]]), np.array([1.0, 2.0])
        >>> bool(np.allclose(a @ linalg.cho_solve(linalg.cho_factor(a), b), b))
        True
    """
    c, lower = c_and_lower
    c, b = as_operand(c), as_operand(b)
    low = c if lower else fnp.conj(fnp.swapaxes(c, -1, -2))
    y = solve_triangular(low, b, lower=True)
    return solve_triangular(low, y, trans=2, lower=True)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv): the LU factorization with partial pivoting, as scipy.linalg.lu_factor.

    L (unit diagonal, not stored) and U are packed in lu, and piv holds the 0-based row
    interchanges (row i was swapped with row piv[i], in order). Pass the pair to lu_solve.
    lu is differentiable; piv is an integer constant. overwrite_a and check_finite are accepted
    for SciPy's signature and ignored.

    Args:
        a: (..., n, n) matrix or stack of matrices.

    Returns:
        The pair (lu, piv): lu of a's shape, piv of shape (..., n) and dtype int32.

    Raises:
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import linalg
        >>> lu, piv = linalg.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> lu.shape, piv
        ((2, 2), array([1, 1], dtype=int32))
    """
    return sla.lu_factor(as_operand(a))


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with op(A) x = b, given (lu, piv) = lu_factor(A).

    As scipy.linalg.lu_solve: op(A) is A, A^T or A^H for trans 0 or 'N', 1 or 'T', 2 or 'C'.
    overwrite_b and check_finite are accepted for SciPy's signature and ignored.

    Args:
        lu_and_piv: the pair (lu, piv) returned by lu_factor.
        b: right-hand side, (n,) or (..., n, k).
        trans: 0, 1, 2, 'N', 'T' or 'C'.

    Returns:
        x, of b's shape.

    Raises:
        ValueError: `trans` is not one of the six values above, or b's rows do not match lu.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import linalg
        >>> a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([5.0, 6.0])
        >>> factors = linalg.lu_factor(a)
        >>> bool(np.allclose(a @ linalg.lu_solve(factors, b), b))
        True
        >>> bool(np.allclose(a.T @ linalg.lu_solve(factors, b, trans=1), b))
        True
    """
    lu, piv = lu_and_piv
    lu, b = as_operand(lu), as_operand(b)
    perm = sla.pivots_to_permutation(piv)
    vector = ndim(b) == 1
    if vector:
        b = fnp.expand_dims(b, -1)
    n = shape(lu)[-1]
    if shape(b)[-2] != n:  # take_along_axis below would silently pick n rows of a longer b
        raise ValueError(f"lu_solve: b has {shape(b)[-2]} rows (shape {shape(b)}) but lu is "
                         f"{n} x {n}")
    if trans in (0, "N"):               # L U x = b[perm]
        pb = fnp.take_along_axis(b, fnp.expand_dims(perm, -1), axis=-2)
        y = solve_triangular(lu, pb, lower=True, unit_diagonal=True)
        x = solve_triangular(lu, y, lower=False)
    elif trans in (1, "T", 2, "C"):     # op(A) = op(U) op(L) P: solve, then undo the rows
        y = solve_triangular(lu, b, trans=trans, lower=False)
        z = solve_triangular(lu, y, trans=trans, lower=True, unit_diagonal=True)
        inverse = fnp.argsort(perm, axis=-1, kind="stable")   # a permutation: no ties
        x = fnp.take_along_axis(z, fnp.expand_dims(inverse, -1), axis=-2)
    else:
        raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', not {trans!r}")
    return x[..., 0] if vector else x


def block_diag(*arrs):
    """The block-diagonal matrix of the given blocks.

    As scipy.linalg.block_diag: 0-d and 1-d blocks count as 1 x 1 and 1 x n, and no blocks
    give an empty (1, 0) matrix. Differentiable in every block.

    Args:
        *arrs: the blocks, each with at most 2 dims, in order along the diagonal.

    Returns:
        A (sum of rows, sum of columns) matrix with the blocks on its diagonal, zeros elsewhere.

    Raises:
        ValueError: a block has more than 2 dims.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import linalg
        >>> linalg.block_diag(np.ones((2, 2)), 3.0)
        array([[1., 1., 0.],
               [1., 1., 0.],
               [0., 0., 3.]])
    """
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
