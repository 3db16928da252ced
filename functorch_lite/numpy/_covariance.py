"""cov and corrcoef (as NumPy's, float64 or complex results), composites of mean and matmul."""
import warnings

import numpy as np

from ..ops import elementwise as ew, linalg as la
from ._reductions import mean
from ._shape import squeeze, swapaxes
from ._joining import atleast_2d, concatenate
from ._rearranging import diagonal
from ._util import as_operand, dtype_of, ndim, reject, shape


def _observations(m, rowvar, dtype, name):
    """m as (variables, observations) in `dtype`, transposed by NumPy's own tests: for m when
    it is not 1-d, for y when it has more than one row."""
    m = as_operand(m)
    x = atleast_2d(m)
    if ndim(x) > 2:
        raise ValueError(f"{name} has more than 2 dimensions")
    if not rowvar and (ndim(m) != 1 if name == "m" else shape(x)[0] != 1):
        x = swapaxes(x, 0, 1)
    return x if dtype_of(x) == dtype else ew.astype(x, dtype=dtype)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """As numpy.cov: the covariance matrix of the variables.

    The variables are the rows of m (the columns with rowvar=False), y's appended; the sum of
    products is scaled by 1 / (N - 1) (N with bias=True, N - ddof with ddof), computed as
    NumPy computes it, so the values are NumPy's bit for bit (with NumPy's RuntimeWarning
    and infinite scale when N - ddof <= 0). The weighted forms are not supported.

    Args:
        m: a 1-d or 2-d array (or a value under a transform).
        y: optional extra variables, appended to m's.
        rowvar: the rows are the variables (False: the columns).
        bias: divide by N instead of N - 1.
        ddof: the delta degrees of freedom (overrides bias).
        fweights: not supported.
        aweights: not supported.
        dtype: the computation's dtype (default at least float64).

    Returns:
        The covariance matrix (0-d for a single variable).

    Raises:
        TypeError: fweights= or aweights= is given.
        ValueError: m or y has more than 2 dimensions.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cov(np.array([[1, 2, 3], [2, 4, 6]]))
        array([[1., 2.],
               [2., 4.]])
    """
    reject("cov", fweights=fweights, aweights=aweights)
    m = as_operand(m)
    if dtype is None:
        dtype = np.result_type(dtype_of(m), np.float64) if y is None else \
            np.result_type(dtype_of(m), dtype_of(as_operand(y)), np.float64)
    x = _observations(m, rowvar, np.dtype(dtype), "m")
    if y is not None:
        x = concatenate([x, _observations(y, rowvar, np.dtype(dtype), "y")], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    fact = shape(x)[1] - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    centered = ew.subtract(x, mean(x, axis=1, keepdims=True))
    c = la.matmul(centered, ew.conj(swapaxes(centered, 0, 1)))
    scaled = ew.multiply(c, np.true_divide(1, fact))   # NumPy's c *= 1 / fact: c's dtype
    return squeeze(scaled if dtype_of(scaled) == dtype_of(c) else
                   ew.astype(scaled, dtype=dtype_of(c)))


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """As numpy.corrcoef: Pearson correlation coefficients of the variables.

    cov / (std_i std_j), clipped into [-1, 1] (real and imaginary parts separately), as NumPy.

    Args:
        x: a 1-d or 2-d array, one variable per row (per column with rowvar=False).
        y: optional extra variables, appended to x's.
        rowvar: the rows are the variables (False: the columns).
        dtype: the computation's dtype (default at least float64).

    Returns:
        The correlation matrix (0-d for a single variable).

    Raises:
        ValueError: x or y has more than 2 dimensions.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.corrcoef(np.array([[1, 2, 3], [3, 2, 1]]))
        array([[ 1., -1.],
               [-1.,  1.]])
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if ndim(c) == 0:
        return ew.divide(c, c)
    std = ew.sqrt(ew.real(diagonal(c)))
    c = ew.divide(ew.divide(c, std[:, None]), std[None, :])
    if dtype_of(c).kind == "c":
        return ew.add(ew.minimum(ew.maximum(ew.real(c), -1.0), 1.0),
                      ew.multiply(ew.minimum(ew.maximum(ew.imag(c), -1.0), 1.0), 1j))
    return ew.minimum(ew.maximum(c, -1.0), 1.0)
