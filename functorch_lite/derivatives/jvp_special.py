"""jvp rules of the special functions (functorch_lite.scipy.special): a table of calculus."""
import math

from ..ops import elementwise as ew, special as sp
from .jvp_helpers import def_unary, fit, scale

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
SQRT_2PI = math.sqrt(2.0 * math.pi)

def_unary(sp.erf, lambda x, out: ew.multiply(TWO_OVER_SQRT_PI, ew.exp(ew.negative(ew.square(x)))))
def_unary(sp.erfc, lambda x, out: ew.multiply(-TWO_OVER_SQRT_PI,
                                              ew.exp(ew.negative(ew.square(x)))))
def_unary(sp.erfinv, lambda x, out: ew.multiply(SQRT_PI_OVER_TWO, ew.exp(ew.square(out))))
def_unary(sp.ndtri, lambda x, out: ew.multiply(SQRT_2PI, ew.exp(ew.multiply(ew.square(out), 0.5))))
def_unary(sp.gammaln, lambda x, out: sp.digamma(x))
def_unary(sp.digamma, lambda x, out: sp.polygamma(x, n=1))


@sp.polygamma.def_jvp
def polygamma_jvp(primals, tangents, n):
    (x,), (t,) = primals, tangents
    out = sp.polygamma(x, n=n)
    return out, (None if t is None else fit(scale(t, sp.polygamma(x, n=n + 1)), out))

# -- gamma, log_ndtr and the Bessel functions (partials.py-style, shared with vjp_special) ----
from ..ops import bessel  # noqa: E402

HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def log_ndtr_partial(x, out):
    """The normal density over its CDF, exp(-x^2/2 - log(2 pi)/2 - log_ndtr(x))."""
    return ew.exp(ew.subtract(ew.multiply(ew.square(x), -0.5), ew.add(out, HALF_LOG_2PI)))


def i0_partial(x, out):
    """I1(x) = i1e(x) e^|x|."""
    return ew.multiply(bessel.i1e(x), ew.exp(ew.abs(x)))


def i0e_partial(x, out):
    return ew.subtract(bessel.i1e(x), ew.multiply(ew.sign(x), out))


def i1e_partial(x, out):
    """i0e(x) - i1e(x) (sign(x) + 1/x); its limit 1/2 at x = 0."""
    zero = ew.equal(x, 0)
    safe = ew.where(zero, 1.0, x)
    inner = ew.add(ew.sign(x), ew.divide(1.0, safe))
    return ew.where(zero, 0.5, ew.subtract(bessel.i0e(x), ew.multiply(out, inner)))


def_unary(sp.gamma, lambda x, out: ew.multiply(out, sp.digamma(x)))
def_unary(sp.log_ndtr, log_ndtr_partial)
def_unary(bessel.i0, i0_partial)
def_unary(bessel.i0e, i0e_partial)
def_unary(bessel.i1e, i1e_partial)
