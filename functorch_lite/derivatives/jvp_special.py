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

# -- gammainc, gammaincc, betainc: differentiable in x, refused in the shape parameters -------


def refuse_shape_derivative(op, names):
    """The error for a derivative with respect to a shape parameter of op (see its doc)."""
    return NotImplementedError(
        f"functorch_lite.scipy.special.{op.name} is differentiable in x only, not in its shape "
        f"parameter {names} (no SciPy kernel computes that derivative; jax.scipy.special "
        "differentiates gammainc in a by a series, this library does not). Wrap the shape "
        "parameter in ft.stop_gradient to treat it as a constant")


def _log_power(p, x, log_fn):
    """p * log_fn(x), and 0 where p == 0 (so x^0 = 1 at x = 0, as the limit)."""
    zero = ew.equal(p, 0)
    return ew.where(zero, 0.0, ew.multiply(p, log_fn(ew.where(zero, 1.0, x))))


def gamma_density(a, x):
    """x^(a-1) e^-x / Gamma(a): the derivative of gammainc(a, x) in x."""
    return ew.exp(ew.subtract(ew.subtract(_log_power(ew.subtract(a, 1), x, ew.log), x),
                              sp.gammaln(a)))


def beta_density(a, b, x):
    """x^(a-1) (1-x)^(b-1) / B(a, b): the derivative of betainc(a, b, x) in x."""
    log_b = ew.subtract(ew.add(sp.gammaln(a), sp.gammaln(b)), sp.gammaln(ew.add(a, b)))
    log_powers = ew.add(_log_power(ew.subtract(a, 1), x, ew.log),
                        _log_power(ew.subtract(b, 1), ew.negative(x), ew.log1p))
    return ew.exp(ew.subtract(log_powers, log_b))


def _x_only_jvp(op, density, sign, names):
    def jvp(primals, tangents):
        if any(t is not None for t in tangents[:-1]):
            raise refuse_shape_derivative(op, names)
        out = op(*primals)
        t = tangents[-1]
        if t is None:
            return out, None
        return out, fit(scale(t, ew.multiply(sign, density(*primals))), out)
    jvp.__name__ = f"{op.name}_jvp"
    op.def_jvp(jvp)


_x_only_jvp(sp.gammainc, gamma_density, 1.0, "a")
_x_only_jvp(sp.gammaincc, gamma_density, -1.0, "a")
_x_only_jvp(sp.betainc, beta_density, 1.0, "a or b")
