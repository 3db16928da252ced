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

from .jvp_special import beta_density, gamma_density, refuse_shape_derivative  # noqa: E402


def _x_only_vjp(op, density, sign, names):
    def rule(ct, primals, out, needed=None):
        if needed is not None and any(needed[:-1]):
            raise refuse_shape_derivative(op, names)
        cts = [None] * len(primals)
        if needed is None or needed[-1]:
            cts[-1] = mul(ct, mul(sign, density(*primals)))
        return tuple(cts)
    rule.takes_needed = True
    rule.__name__ = f"{op.name}_vjp"
    op.def_vjp(rule)


_x_only_vjp(sp.gammainc, gamma_density, 1.0, "a")
_x_only_vjp(sp.gammaincc, gamma_density, -1.0, "a")
_x_only_vjp(sp.betainc, beta_density, 1.0, "a or b")
