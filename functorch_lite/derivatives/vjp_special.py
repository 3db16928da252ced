"""vjp rules of the special functions (functorch_lite.scipy.special): a table of calculus."""
from ..ops import elementwise as ew, special as sp
from .jvp_special import SQRT_2PI, SQRT_PI_OVER_TWO, TWO_OVER_SQRT_PI
from .vjp_helpers import defvjp

mul, exp, sq = ew.multiply, ew.exp, ew.square


def _gauss(x):
    return exp(ew.negative(sq(x)))


defvjp(sp.erf, lambda g, o, x: mul(g, mul(TWO_OVER_SQRT_PI, _gauss(x))))
defvjp(sp.erfc, lambda g, o, x: mul(g, mul(-TWO_OVER_SQRT_PI, _gauss(x))))
defvjp(sp.erfinv, lambda g, o, x: mul(g, mul(SQRT_PI_OVER_TWO, exp(sq(o)))))
defvjp(sp.ndtri, lambda g, o, x: mul(g, mul(SQRT_2PI, exp(mul(sq(o), 0.5)))))
defvjp(sp.gammaln, lambda g, o, x: mul(g, sp.digamma(x)))
defvjp(sp.digamma, lambda g, o, x: mul(g, sp.polygamma(x, n=1)))
defvjp(sp.polygamma, lambda g, o, x, n: mul(g, sp.polygamma(x, n=n + 1)))

from ..ops import bessel  # noqa: E402
from .jvp_special import i0_partial, i0e_partial, i1e_partial, log_ndtr_partial  # noqa: E402

defvjp(sp.gamma, lambda g, o, x: mul(g, mul(o, sp.digamma(x))))
defvjp(sp.log_ndtr, lambda g, o, x: mul(g, log_ndtr_partial(x, o)))
defvjp(bessel.i0, lambda g, o, x: mul(g, i0_partial(x, o)))
defvjp(bessel.i0e, lambda g, o, x: mul(g, i0e_partial(x, o)))
defvjp(bessel.i1e, lambda g, o, x: mul(g, i1e_partial(x, o)))
