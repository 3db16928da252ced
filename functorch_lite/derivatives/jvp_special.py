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
