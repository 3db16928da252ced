"""scipy.special's functions (as jax.scipy.special). erf, erfc, erfinv, gammaln, digamma,
polygamma and ndtri are primitives with SciPy kernels; the others compose library ops in their
numerically stable forms (expit and softmax never overflow, logsumexp is shifted by the max,
xlogy is 0 where x is 0 with a finite derivative there).
"""
import math

import numpy as np

from .. import numpy as fnp, nn
from ..numpy._util import as_operand, ndim
from ..ops.elementwise import stop_gradient
from ..ops.special import digamma, erf, erfc, erfinv, gammaln, ndtri, polygamma as _polygamma

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma", "expit", "logit",
           "logsumexp", "xlogy", "xlog1py", "softmax", "log_softmax", "ndtr", "ndtri"]

_SQRT_HALF = math.sqrt(0.5)


def polygamma(n, x):
    """The n-th derivative of digamma at x; n is a non-negative integer known before the call
    (a Python int or a 0-d integer array), x any array."""
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n.item()
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise TypeError("functorch_lite.scipy.special.polygamma: n must be a non-negative "
                        f"integer known before the call (a Python int), got {n!r}")
    return _polygamma(as_operand(x), n=int(n))


def expit(x):
    """The logistic sigmoid 1 / (1 + exp(-x)), stable for large |x| (nn.sigmoid)."""
    return nn.sigmoid(as_operand(x))


def logit(p):
    """log(p / (1 - p)), the inverse of expit."""
    p = as_operand(p)
    return fnp.log(p) - fnp.log1p(-p)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over axis (all axes when None), shifted by the max so that it cannot
    overflow. With return_sign, (log|s|, sign(s)) for s = sum(b * exp(a)), as SciPy."""
    a = as_operand(a)
    if b is None and not return_sign:
        return nn.logsumexp(a, axis=_all_axes(a, axis), keepdims=keepdims)
    axes = _all_axes(a, axis)
    shift = fnp.max(stop_gradient(a), axis=axes, keepdims=True)
    shift = fnp.where(fnp.isfinite(shift), shift, 0)
    e = fnp.exp(a - shift)
    s = fnp.sum(e if b is None else as_operand(b) * e, axis=axes, keepdims=True)
    out = (fnp.log(fnp.abs(s)) if return_sign else fnp.log(s)) + shift
    if not keepdims:
        out, s = fnp.squeeze(out, axis=axes), fnp.squeeze(s, axis=axes)
    return (out, fnp.sign(s)) if return_sign else out


def _all_axes(a, axis):
    return tuple(range(ndim(a))) if axis is None else axis


def xlogy(x, y):
    """x * log(y), and 0 where x == 0 even if y <= 0. Where x == 0 and y > 0 the product
    itself is 0 and its derivative in x is log(y), as the limit says; where x == 0 and
    y <= 0, y is replaced by 1 so that neither value nor derivative is NaN."""
    x, y = as_operand(x), as_operand(y)
    bad = fnp.logical_and(fnp.equal(x, 0), fnp.logical_not(fnp.greater(y, 0)))
    return x * fnp.log(fnp.where(bad, 1.0, y))


def xlog1py(x, y):
    """x * log1p(y), and 0 where x == 0 even if y <= -1 (as xlogy)."""
    x, y = as_operand(x), as_operand(y)
    bad = fnp.logical_and(fnp.equal(x, 0), fnp.logical_not(fnp.greater(y, -1)))
    return x * fnp.log1p(fnp.where(bad, 0.0, y))


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over axis (all axes when None, as SciPy), shifted by the max."""
    x = as_operand(x)
    return nn.softmax(x, axis=_all_axes(x, axis))


def log_softmax(x, axis=None):
    """x - logsumexp(x) over axis (all axes when None, as SciPy)."""
    x = as_operand(x)
    return nn.log_softmax(x, axis=_all_axes(x, axis))


def ndtr(x):
    """The standard normal CDF, 0.5 * erfc(-x / sqrt(2)): accurate in the lower tail."""
    return 0.5 * erfc(fnp.multiply(as_operand(x), -_SQRT_HALF))
