"""The standard normal's upper tail Q(y) = P(Z > y) in log space, and its inverse, as
composites of library ops (no SciPy: they run on every backend and under every transform).

What truncated_normal needs to draw in the far tails, where 1 - Phi(y) rounds to 0 (y > 8.3
in float64) or underflows altogether, and where a draw by erfinv of a uniform collapses onto
the bound.

Note [Mills ratio series]: the Mills ratio M(y) = Q(y) / phi(y) is smooth on [0, inf) and
about 1/y at infinity, so with t = K / (K + y) in (0, 1] (K = 3.5) log(M(y) / t) is a smooth
function of t on [0, 1]. _LOG_M_OVER_T holds its Chebyshev series in s = 2t - 1, computed by
Chebyshev interpolation at 200 nodes in 50-digit arithmetic (mpmath's erfc): the 27 terms
leave an error below 1e-17, the first 13 below 1e-8 (all float32 needs). Then
log Q(y) = log M(y) - y^2 / 2 - log(2 pi) / 2 holds every digit for any y >= 0, which
tests/test_random_tails.py checks against scipy.special.log_ndtr.
"""
import math

from . import numpy as fnp
from .numpy._util import dtype_of

_K = 3.5
_LOG_M_OVER_T = (
    -0.568994745150305, 0.7444254251236767, 0.05764721678477678, -0.005143027391297979,
    -0.002233023790506968, -1.1850082785791418e-05, 9.941167653504388e-05, 7.190192630405285e-06,
    -4.9170992958743e-06, -6.177593392772016e-07, 2.6394764617972405e-07, 4.306384508742912e-08,
    -1.5155590829990292e-08, -2.7277151487509576e-09, 9.146649327891536e-10,
    1.5902260804556544e-10, -5.6500787891882564e-11, -8.350707564645365e-12,
    3.4443718086498434e-12, 3.74240775813439e-13, -1.9766779007701876e-13,
    -1.2710254904098166e-14, 9.98435288501514e-15, 2.4051925740962144e-16,
    -3.8977705112451065e-16, -5.473608593352486e-18, 7.109888842795366e-18)
_FLOAT32_TERMS = 13
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LOG_HALF = math.log(0.5)
# Abramowitz and Stegun 26.2.23: y from t = sqrt(-2 log Q(y)), error below 4.5e-4.
_AS_NUM = (2.515517, 0.802853, 0.010328)
_AS_DEN = (1.0, 1.432788, 0.189269, 0.001308)


def _series(y):
    """The Chebyshev series of Note [Mills ratio series] at t = K / (K + y) (Clenshaw's
    recurrence), truncated to what y's precision needs."""
    coeffs = _LOG_M_OVER_T[:_FLOAT32_TERMS] if dtype_of(y) == "float32" else _LOG_M_OVER_T
    s = 2.0 * (_K / (_K + y)) - 1.0
    b1 = b2 = 0.0
    for c in coeffs[:0:-1]:
        b1, b2 = 2.0 * s * b1 - b2 + c, b1
    return s * b1 - b2 + coeffs[0]


def log_mills(y):
    """log M(y) = log(Q(y) / phi(y)) for y >= 0 (-inf at y = inf)."""
    return math.log(_K) - fnp.log(_K + y) + _series(y)


def log_upper_tail(y):
    """log Q(y) = log P(Z > y), for y >= 0, to full precision however small Q is."""
    return log_mills(y) - 0.5 * (y * y) - _HALF_LOG_2PI


def log_sf(x):
    """log P(Z > x) for any x (log Q(x) for x >= 0, log(1 - Q(-x)) below 0)."""
    lq = log_upper_tail(fnp.abs(x))
    return fnp.where(fnp.greater_equal(x, 0), lq, fnp.log1p(-fnp.exp(lq)))


def inverse_log_upper_tail(tau, steps):
    """The y >= 0 with log Q(y) = tau, for tau <= log(1/2): Newton's method on log Q from the
    Abramowitz-Stegun estimate. log Q is concave, so after the first step the iterates
    approach the root from above, each squaring the error (the estimate's 4.5e-4 needs 2
    steps for float32, 3 for float64)."""
    r = fnp.sqrt(-2.0 * tau)
    num = _AS_NUM[0] + r * (_AS_NUM[1] + r * _AS_NUM[2])
    den = _AS_DEN[0] + r * (_AS_DEN[1] + r * (_AS_DEN[2] + r * _AS_DEN[3]))
    y = fnp.maximum(r - num / den, 0.0)
    for _ in range(steps):
        lm = log_mills(y)
        y = y + (lm - 0.5 * (y * y) - _HALF_LOG_2PI - tau) * fnp.exp(lm)
    return y


def inverse_log_sf(t, steps):
    """The x with log P(Z > x) = t (t <= 0): through the upper tail for x >= 0, through the
    lower one (log P(Z < x) = log(1 - e^t)) for x < 0, so neither side loses digits."""
    upper = fnp.less_equal(t, _LOG_HALF)
    tau = fnp.where(upper, t, fnp.log(-fnp.expm1(t)))
    y = inverse_log_upper_tail(tau, steps)
    return fnp.where(upper, y, -y)
