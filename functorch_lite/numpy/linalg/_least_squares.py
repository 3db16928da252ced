"""numpy.linalg's pseudo-inverse and least squares: pinv, lstsq."""
from typing import NamedTuple

import numpy as np

from ...ops import elementwise as ew, linalg as la, reductions as red
from .._shape import expand_dims, reshape, swapaxes
from .._util import as_operand, dtype_of, ndim, shape, xp_of
from ._decompositions import svd


def _singular_cutoff(s, m, n, rcond):
    """lstsq's cutoff rcond * max(s) of the singular values s (rcond None: max(m, n) * eps)."""
    tol = max(m, n) * np.finfo(dtype_of(s)).eps if rcond is None else rcond
    return ew.multiply(red.max(s, axis=-1, keepdims=True), tol)


def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """As numpy.linalg.pinv: the Moore-Penrose pseudo-inverse.

    The values are NumPy's bit for bit. For real matrices (and one cutoff for the whole
    stack) it is a primitive whose derivative is the pseudo-inverse's own formula, defined
    wherever the rank is locally constant, repeated singular values included (as JAX's).
    Complex matrices and a cutoff per matrix go through the reduced SVD of conj(a) (Vh^T
    (1/s U^T), the dropped singular values behind a double where), whose derivative assumes
    distinct singular values.

    Args:
        a: a (..., m, n) matrix or stack of them.
        rcond: relative cutoff: singular values <= rcond * max(s) are dropped; NumPy's
            default 1e-15 when neither rcond nor rtol is given.
        hermitian: accepted for NumPy compatibility and ignored (the general SVD is used).
        rtol: the same cutoff under NumPy 2's name; rtol=None means max(m, n) * eps.

    Returns:
        The (..., n, m) pseudo-inverse.

    Raises:
        ValueError: both rcond and rtol are given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.pinv(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]))
        array([[1. , 0. , 0. ],
               [0. , 0.5, 0. ]])
    """
    a = as_operand(a)
    m, n = shape(a)[-2:]
    if rcond is None:
        rcond = 1e-15 if rtol is np._NoValue else \
            max(m, n) * np.finfo(dtype_of(a)).eps if rtol is None else rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if m == 0 or n == 0:
        return xp_of(a).empty(shape(a)[:-2] + (n, m), dtype=dtype_of(a))
    if dtype_of(a).kind in "fiub" and np.ndim(rcond) == 0:   # a primitive: its own derivative
        return la.pinv(a if dtype_of(a).kind == "f" else ew.astype(a, np.float64),
                       rcond=float(rcond))
    u, s, vt = la.svd(ew.conj(a) if dtype_of(a).kind == "c" else a, full_matrices=False)
    rcond = xp_of(s).asarray(np.asarray(rcond)[..., None])   # on the device of a (NumPy's
    cutoff = ew.multiply(rcond, red.max(s, axis=-1, keepdims=True))   # rcond: one per matrix)
    large = ew.greater(s, cutoff)
    s_inv = ew.where(large, ew.divide(1, ew.where(large, s, 1.0)), 0.0)
    return la.matmul(swapaxes(vt, -1, -2), ew.multiply(expand_dims(s_inv, -1),
                                                       swapaxes(u, -1, -2)))


class LstsqResult(NamedTuple):
    """lstsq's result: the solution x, the residuals, the rank of a and its singular values."""

    x: object
    residuals: object
    rank: object
    s: object


def lstsq(a, b, rcond=None):
    """As numpy.linalg.lstsq: the least-squares solution x = pinv(a) b.

    Differences from NumPy (documented, decided from static shapes so it works under vmap):
    residuals (squared 2-norms of b - a x per column) are returned whenever m > n, also for
    rank-deficient a, where NumPy returns an empty array; rank is an int32 array counted
    with the cutoff rcond * max(s).

    Args:
        a: an (m, n) matrix.
        b: an (m,) vector or (m, k) matrix.
        rcond: relative cutoff for small singular values (default max(m, n) * eps).

    Returns:
        An LstsqResult (x, residuals, rank, s): x (n,) or (n, k), residuals (1,) or (k,)
        when m > n and (0,) otherwise, rank, and the singular values s of a.

    Raises:
        LinAlgError: a is not 2-d, or b not 1-d or 2-d.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> x, res, rank, s = fnp.linalg.lstsq(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ...                                    np.array([1.0, 1.0, 2.0]))
        >>> bool(np.allclose(x, [1.0, 1.0])), int(rank)
        (True, 2)
    """
    a, b = as_operand(a), as_operand(b)
    if ndim(a) != 2 or ndim(b) not in (1, 2):
        raise np.linalg.LinAlgError("lstsq takes a 2-d a and a 1-d or 2-d b")
    m, n = shape(a)
    s = svd(a, compute_uv=False)
    x = la.matmul(pinv(a, rtol=rcond), b)
    cutoff = _singular_cutoff(s, m, n, rcond)
    rank = red.sum(ew.greater(s, cutoff), dtype=np.int32)
    if m > n:
        r = ew.subtract(b, la.matmul(a, x))
        sq = ew.multiply(r, ew.conj(r))
        residuals = red.sum(ew.real(sq) if dtype_of(sq).kind == "c" else sq, axis=0)
        if ndim(b) == 1:
            residuals = reshape(residuals, (1,))
    else:
        residuals = xp_of(a).zeros((0,), dtype=dtype_of(x))
    return LstsqResult(x, residuals, rank, s)
