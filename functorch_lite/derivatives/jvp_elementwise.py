"""jvp rules of the elementwise ops: one line per op, derivatives as in a table of calculus.

Subgradient conventions shared with reverse mode (see the common brief): abs'(0) = sign(0) = 0;
maximum/minimum/fmax/fmin split the derivative 0.5/0.5 at ties; sqrt'(0) = inf (as JAX);
where() passes the tangent only to the chosen branch; power's partial in the base is 0 where the
exponent is 0, and its partial in the exponent uses log(x) with x = 0 replaced by 1 (as JAX).
"""
import numpy as np

from ..ops import elementwise as ew
from ..numpy._util import dtype_of
from .jvp_helpers import (def_binary, def_linear, def_unary, fit, instantiate, is_inexact,
                          float_zero_mask)

LN2, LN10 = float(np.log(2.0)), float(np.log(10.0))

# -- linear unary --
for _op in (ew.negative, ew.positive, ew.real, ew.imag, ew.conj):
    def_linear(_op)

def unit_phase(x):
    """x / |x| (0 at x = 0) for complex x: the direction in which |x| grows fastest."""
    a = ew.abs(x)
    return ew.divide(x, ew.where(ew.equal(a, 0), 1.0, a))


@ew.abs.def_jvp
def abs_jvp(primals, tangents):
    """|x|' = sign(x) for real x; Re(conj(x / |x|) t) for complex x (not holomorphic: the
    tangent is real, the rate of change of |x| along t). 0 at x = 0 in both cases."""
    x, = primals
    t, = tangents
    out = ew.abs(x)
    if t is None:
        return out, None
    if dtype_of(x).kind != "c":
        return out, fit(ew.multiply(t, ew.sign(x)), out)
    return out, fit(ew.real(ew.multiply(ew.conj(unit_phase(x)), t)), out)


# -- unary, derivative(x, out) --
def_unary(ew.exp, lambda x, out: out)
def_unary(ew.exp2, lambda x, out: ew.multiply(out, LN2))
def_unary(ew.expm1, lambda x, out: ew.add(out, 1.0))
def_unary(ew.log, lambda x, out: ew.reciprocal(x))
def_unary(ew.log2, lambda x, out: ew.reciprocal(ew.multiply(x, LN2)))
def_unary(ew.log10, lambda x, out: ew.reciprocal(ew.multiply(x, LN10)))
def_unary(ew.log1p, lambda x, out: ew.reciprocal(ew.add(x, 1.0)))
def_unary(ew.sqrt, lambda x, out: ew.divide(0.5, out))
def_unary(ew.cbrt, lambda x, out: ew.divide(1.0 / 3.0, ew.square(out)))
def_unary(ew.square, lambda x, out: ew.multiply(x, 2.0))
def_unary(ew.reciprocal, lambda x, out: ew.negative(ew.square(out)))
def_unary(ew.sin, lambda x, out: ew.cos(x))
def_unary(ew.cos, lambda x, out: ew.negative(ew.sin(x)))
def_unary(ew.tan, lambda x, out: ew.add(1.0, ew.square(out)))
def_unary(ew.arcsin, lambda x, out: ew.reciprocal(ew.sqrt(ew.subtract(1.0, ew.square(x)))))
def_unary(ew.arccos, lambda x, out: ew.negative(
    ew.reciprocal(ew.sqrt(ew.subtract(1.0, ew.square(x))))))
def_unary(ew.arctan, lambda x, out: ew.reciprocal(ew.add(1.0, ew.square(x))))
def_unary(ew.sinh, lambda x, out: ew.cosh(x))
def_unary(ew.cosh, lambda x, out: ew.sinh(x))
def_unary(ew.tanh, lambda x, out: ew.subtract(1.0, ew.square(out)))
def_unary(ew.arcsinh, lambda x, out: ew.reciprocal(ew.sqrt(ew.add(ew.square(x), 1.0))))
def_unary(ew.arccosh, lambda x, out: ew.reciprocal(ew.sqrt(ew.subtract(ew.square(x), 1.0))))
def_unary(ew.arctanh, lambda x, out: ew.reciprocal(ew.subtract(1.0, ew.square(x))))


# -- binary, partials (x, y, out) --
def _one(x, y, out):
    return 1.0


def _minus_one(x, y, out):
    return -1.0


def _pow_dx(x, y, out):
    """y * x**(y-1), and 0 where y == 0 (so x = 0, y = 0 gives 0, not nan). A Python-number
    exponent (x ** 2) takes a shortcut with the same values."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        if y == 0 or y == 1:
            return float(y)
        if y == 2:
            return ew.multiply(x, 2.0)
        return ew.multiply(ew.power(x, y - 1), float(y))
    d = ew.multiply(y, ew.power(x, ew.subtract(y, 1)))
    return ew.where(ew.equal(y, 0), 0.0, d)


def _pow_dy(x, y, out):
    """log(x) * out, with log(0) taken as log(1) (as JAX): 0**y has zero partial in y."""
    safe_x = ew.where(ew.equal(x, 0), 1.0, x)
    return ew.multiply(ew.log(safe_x), out)


def _tie_weights(x, y, x_wins):
    """1 where x is chosen, 0.5 at ties, 0 where y is chosen: the derivative's share of x."""
    return ew.add(float_zero_mask(x_wins, _inexact_of(x, y)),
                  ew.multiply(float_zero_mask(ew.equal(x, y), _inexact_of(x, y)), 0.5))


def _inexact_of(x, y):
    return x if is_inexact(x) or not is_inexact(y) else y


def _max_share(x, y, out):
    return _tie_weights(x, y, ew.greater(x, y))


def _min_share(x, y, out):
    return _tie_weights(x, y, ew.less(x, y))


def _only_y_nan(x, y):
    return ew.logical_and(ew.isnan(y), ew.logical_not(ew.isnan(x)))


def _fmax_share(x, y, out):
    """As maximum, but NaN loses: a NaN y gives x the whole derivative."""
    return _tie_weights(x, y, ew.logical_or(ew.greater(x, y), _only_y_nan(x, y)))


def _fmin_share(x, y, out):
    return _tie_weights(x, y, ew.logical_or(ew.less(x, y), _only_y_nan(x, y)))


def _swap(share):
    """The share of y, from the share of x with the operands swapped."""
    return lambda x, y, out: share(y, x, out)


def_binary(ew.add, _one, _one)
def_binary(ew.subtract, _one, _minus_one)
def_binary(ew.multiply, lambda x, y, out: y, lambda x, y, out: x)
def_binary(ew.divide, lambda x, y, out: ew.divide(1.0, y),
           lambda x, y, out: ew.negative(ew.divide(out, y)))
def_binary(ew.power, _pow_dx, _pow_dy)
def_binary(ew.remainder, _one, lambda x, y, out: ew.negative(ew.floor(ew.divide(x, y))))
def_binary(ew.maximum, _max_share, _swap(_max_share))
def_binary(ew.minimum, _min_share, _swap(_min_share))
def_binary(ew.fmax, _fmax_share, _swap(_fmax_share))
def_binary(ew.fmin, _fmin_share, _swap(_fmin_share))
def_binary(ew.arctan2,  # arctan2(x1, x2) = angle of (x2, x1)
           lambda x, y, out: ew.divide(y, ew.add(ew.square(x), ew.square(y))),
           lambda x, y, out: ew.negative(ew.divide(x, ew.add(ew.square(x), ew.square(y)))))
def_binary(ew.hypot, lambda x, y, out: ew.divide(x, out), lambda x, y, out: ew.divide(y, out))
def_binary(ew.logaddexp, lambda x, y, out: ew.exp(ew.subtract(x, out)),
           lambda x, y, out: ew.exp(ew.subtract(y, out)))
def_binary(ew.logaddexp2, lambda x, y, out: ew.exp2(ew.subtract(x, out)),
           lambda x, y, out: ew.exp2(ew.subtract(y, out)))
# copysign(x, y) = +-|x|: the derivative in x is sign(x) * (+-1), and 0 at x = 0 (abs'(0) = 0)
def_binary(ew.copysign, lambda x, y, out: ew.multiply(ew.sign(x), ew.copysign(1.0, y)), None)


@ew.where.def_jvp
def where_jvp(primals, tangents):
    """The tangent of the chosen branch only (a NaN in the other branch's derivative still
    poisons nothing here; for reverse mode use the double-where idiom, see docs/forward.md)."""
    cond, x, y = primals
    _, tx, ty = tangents
    out = ew.where(cond, x, y)
    if tx is None and ty is None:
        return out, None
    if not is_inexact(out):
        return out, None
    t = ew.where(cond, instantiate(tx, x), instantiate(ty, y))
    return out, fit(t, out)


@ew.astype.def_jvp
def astype_jvp(primals, tangents, dtype):
    """A cast between inexact dtypes casts the tangent; a cast to an integer or bool dtype has
    no derivative."""
    x, = primals
    t, = tangents
    out = ew.astype(x, dtype=dtype)
    if t is None or np.dtype(dtype).kind not in "fc" or not is_inexact(x):
        return out, None
    return out, ew.astype(t, dtype=dtype)
