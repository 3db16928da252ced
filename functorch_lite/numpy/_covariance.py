"""cov and corrcoef (as NumPy's, float64 or complex results), composites of mean and matmul."""
import numpy as np

from ..ops import elementwise as ew, linalg as la
from ._reductions import mean
from ._shape import atleast_2d, concatenate, diagonal, squeeze, swapaxes
from ._util import as_operand, dtype_of, ndim, reject, shape


def _observations(m, rowvar, dtype):
    """m as (variables, observations) in `dtype`."""
    x = atleast_2d(as_operand(m))
    if ndim(x) > 2:
        raise ValueError("m has more than 2 dimensions")
    if not rowvar and shape(x)[0] != 1:
        x = swapaxes(x, 0, 1)
    return x if dtype_of(x) == dtype else ew.astype(x, dtype=dtype)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """The covariance matrix of the variables in the rows of m (columns when rowvar=False),
    with y's variables appended; divided by N - 1 (N with bias=True, N - ddof with ddof).
    Weighted forms (fweights, aweights) are not supported."""
    reject("cov", fweights=fweights, aweights=aweights)
    m = as_operand(m)
    if dtype is None:
        dtype = np.result_type(dtype_of(m), np.float64) if y is None else \
            np.result_type(dtype_of(m), dtype_of(as_operand(y)), np.float64)
    x = _observations(m, rowvar, np.dtype(dtype))
    if y is not None:
        x = concatenate([x, _observations(y, rowvar, np.dtype(dtype))], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = shape(x)[1]
    centered = ew.subtract(x, mean(x, axis=1, keepdims=True))
    c = la.matmul(centered, ew.conj(swapaxes(centered, 0, 1)))
    return squeeze(ew.divide(c, float(n - ddof)))


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients: cov / (std_i std_j), clipped into [-1, 1] (real
    part), as NumPy."""
    c = cov(x, y, rowvar, dtype=dtype)
    if ndim(c) == 0:
        return ew.divide(c, c)
    std = ew.sqrt(ew.real(diagonal(c)))
    c = ew.divide(ew.divide(c, std[:, None]), std[None, :])
    if dtype_of(c).kind == "c":
        return ew.add(ew.minimum(ew.maximum(ew.real(c), -1.0), 1.0),
                      ew.multiply(ew.minimum(ew.maximum(ew.imag(c), -1.0), 1.0), 1j))
    return ew.minimum(ew.maximum(c, -1.0), 1.0)
