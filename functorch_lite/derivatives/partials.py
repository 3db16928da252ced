"""Local partial derivatives shared by forward and reverse mode.

Both modes apply these by multiplication (Note [special values in derivatives]): jvp computes
t * partial, vjp computes g * partial, so an inf or NaN tangent or cotangent meets the same
zeros in both modes and gives the same NaN.
"""
import numpy as np

from ..ops import elementwise as ew
from ..numpy._util import dtype_of


def is_inexact(x):
    return dtype_of(x).kind in "fc"


def truth(mask):
    """A mask as booleans (any dtype read as truth values): multiplying by it keeps or zeroes a
    tangent in one pass, in the tangent's dtype, and 0 * inf still gives NaN."""
    return mask if dtype_of(mask).kind == "b" else ew.not_equal(mask, 0)


def as_weight(mask, like):
    """A mask (bool, or any dtype read as truth values) as 0/1 in like's dtype (float64 for an
    integer like)."""
    return ew.astype(truth(mask), dtype=dtype_of(like) if is_inexact(like) else np.float64)


def _inexact_of(x, y):
    return x if is_inexact(x) or not is_inexact(y) else y


def _tie_weights(x, y, x_wins):
    """1 where x is chosen, 0.5 at ties, 0 where y is chosen: the derivative's share of x."""
    like = _inexact_of(x, y)
    return ew.add(as_weight(x_wins, like), ew.multiply(as_weight(ew.equal(x, y), like), 0.5))


def _only_y_nan(x, y):
    return ew.logical_and(ew.isnan(y), ew.logical_not(ew.isnan(x)))


def max_share(x, y):
    """The share of x in the derivative of maximum(x, y)."""
    return _tie_weights(x, y, ew.greater(x, y))


def min_share(x, y):
    return _tie_weights(x, y, ew.less(x, y))


def fmax_share(x, y):
    """As maximum, but NaN loses: a NaN y gives x the whole derivative."""
    return _tie_weights(x, y, ew.logical_or(ew.greater(x, y), _only_y_nan(x, y)))


def fmin_share(x, y):
    return _tie_weights(x, y, ew.logical_or(ew.less(x, y), _only_y_nan(x, y)))


def power_base(x, y):
    """d/dx x**y = y x**(y-1), taken as 0 where y == 0 (so 0**0 has derivative 0, as JAX); None
    (no derivative at all) for a Python-number exponent 0, where x**0 is the constant 1."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        if y == 0:
            return None
        if y == 1:
            return 1.0
        if y == 2:
            return ew.multiply(x, 2.0)
        return ew.multiply(ew.power(x, y - 1), float(y))
    d = ew.multiply(y, ew.power(x, ew.subtract(y, 1)))
    return ew.where(ew.equal(y, 0), 0.0, d)


def power_exponent(x, out):
    """d/dy x**y = x**y log x, with log(0) read as log(1) (as JAX): 0**y has zero partial in y."""
    safe_x = ew.where(ew.equal(x, 0), 1.0, x)
    return ew.multiply(ew.log(safe_x), out)


def hypot_share(x, y, out):
    """d/dx hypot(x, y) = x / hypot(x, y), with its limits where that is 0/0 or inf/inf: 0 at
    the origin (a subgradient, the one abs'(0) = 0 gives for hypot(x, 0) = |x|; JAX's 0.5 is
    the tie rule of its max/min rewrite), sign(x) for an infinite x beside a finite y, and
    sign(x)/sqrt(2) when both are infinite (the limit along the diagonal)."""
    finite = ew.isfinite(out)
    ratio = ew.divide(x, ew.where(ew.logical_and(finite, ew.not_equal(out, 0)), out, 1))
    inf_x, inf_y = as_weight(ew.isinf(x), out), as_weight(ew.isinf(y), out)
    at_inf = ew.divide(ew.multiply(ew.sign(x), inf_x), ew.sqrt(ew.maximum(ew.add(inf_x, inf_y),
                                                                          1)))
    return ew.where(finite, ratio, at_inf)


def logaddexp_exponent(x, y, out, log_half):
    """The exponent e of logaddexp's partial in x, exp(e) (exp2(e) for logaddexp2, log_half
    -1): x - out, except where x is out itself (an infinite x, where x - out is inf - inf, or
    one too large for the log 2 to register): there e = 0 (partial 1), or log 1/2 when y is
    equal too (partial 1/2 each, the limit along the diagonal, so logaddexp(inf, inf) and
    logaddexp(-inf, -inf) have partials 1/2; JAX gives 1 and NaN)."""
    tie = ew.multiply(as_weight(ew.equal(x, y), out), log_half)
    return ew.where(ew.equal(x, out), tie, ew.subtract(x, out))
