"""vjp rules of the elementwise ops: a table of calculus, one line per op.

Each entry is (g, out, *operands) -> cotangent of that operand; cotangents of broadcasting
operands are summed back to the operand's shape by reverse mode (fit_cotangent).
Subgradient conventions (shared with forward mode, partials.py): abs'(0) = 0;
maximum/minimum/fmax/fmin at a tie give half the cotangent to each side; sqrt'(0) = inf;
hypot at the origin has partials 0 and logaddexp of equal infinities 1/2 each
(partials.hypot_share, partials.logaddexp_exponent); where()
weighs the cotangent by 0 or 1 per branch (so a NaN in the other branch's derivative still
poisons it: see the double-where idiom in docs/autodiff.md). Every partial multiplies the
cotangent, never selects it (Note [special values in derivatives]).
"""
import math

from ..ops import elementwise as ew
from ..numpy._util import dtype_of
from . import partials
from .jvp_elementwise import unit_phase
from .vjp_helpers import defvjp

neg, mul, div, sq, sqrt = ew.negative, ew.multiply, ew.divide, ew.square, ew.sqrt
LN2, LN10 = math.log(2.0), math.log(10.0)

# -- unary --
defvjp(ew.negative, lambda g, o, x: neg(g))
defvjp(ew.positive, lambda g, o, x: g)
defvjp(ew.abs, lambda g, o, x: mul(g, ew.conj(unit_phase(x)) if dtype_of(x).kind == "c"
                                    else ew.sign(x)))
defvjp(ew.exp, lambda g, o, x: mul(g, o))
defvjp(ew.exp2, lambda g, o, x: mul(g, mul(o, LN2)))
defvjp(ew.expm1, lambda g, o, x: mul(g, ew.add(o, 1.0)))
defvjp(ew.log, lambda g, o, x: div(g, x))
defvjp(ew.log2, lambda g, o, x: div(g, mul(x, LN2)))
defvjp(ew.log10, lambda g, o, x: div(g, mul(x, LN10)))
defvjp(ew.log1p, lambda g, o, x: div(g, ew.add(x, 1.0)))
defvjp(ew.sqrt, lambda g, o, x: div(g, mul(o, 2.0)))
defvjp(ew.cbrt, lambda g, o, x: div(g, mul(sq(o), 3.0)))
defvjp(ew.square, lambda g, o, x: mul(g, mul(x, 2.0)))
defvjp(ew.reciprocal, lambda g, o, x: neg(mul(g, sq(o))))
defvjp(ew.sin, lambda g, o, x: mul(g, ew.cos(x)))
defvjp(ew.cos, lambda g, o, x: neg(mul(g, ew.sin(x))))
defvjp(ew.tan, lambda g, o, x: mul(g, ew.add(sq(o), 1.0)))
defvjp(ew.arcsin, lambda g, o, x: div(g, sqrt(ew.subtract(1.0, sq(x)))))
defvjp(ew.arccos, lambda g, o, x: neg(div(g, sqrt(ew.subtract(1.0, sq(x))))))
defvjp(ew.arctan, lambda g, o, x: div(g, ew.add(sq(x), 1.0)))
defvjp(ew.sinh, lambda g, o, x: mul(g, ew.cosh(x)))
defvjp(ew.cosh, lambda g, o, x: mul(g, ew.sinh(x)))
defvjp(ew.tanh, lambda g, o, x: mul(g, ew.subtract(1.0, sq(o))))
defvjp(ew.arcsinh, lambda g, o, x: div(g, sqrt(ew.add(sq(x), 1.0))))
defvjp(ew.arccosh, lambda g, o, x: div(g, mul(sqrt(ew.subtract(x, 1.0)), sqrt(ew.add(x, 1.0)))))
defvjp(ew.arctanh, lambda g, o, x: div(g, ew.subtract(1.0, sq(x))))
defvjp(ew.real, lambda g, o, x: g)
defvjp(ew.imag, lambda g, o, x: mul(g, -1j) if x.dtype.kind == "c" else None)
defvjp(ew.conj, lambda g, o, x: ew.conj(g))
defvjp(ew.astype, lambda g, o, x, dtype: g)  # fitted back to x's dtype by reverse mode


# -- binary --
def _power_base(g, o, x, y):
    """g * y x**(y-1) (partials.power_base)."""
    if isinstance(y, (int, float)):
        # (g * y) first: under jvp (forward over reverse) x carries the big tangent and g
        # usually none, so the constant factor is applied to g, not in a pass over x's tangent
        if y == 0:
            return None
        return mul(mul(g, y), x if y == 2 else ew.power(x, y - 1))
    return mul(g, partials.power_base(x, y))


def _weighted(share):
    """The cotangent of operand x of maximum/minimum/fmax/fmin: g times x's share."""
    return lambda g, o, x, y: mul(g, share(x, y))


def _swapped(share):
    return lambda g, o, x, y: mul(g, share(y, x))


defvjp(ew.add, lambda g, o, x, y: g, lambda g, o, x, y: g)
defvjp(ew.subtract, lambda g, o, x, y: g, lambda g, o, x, y: neg(g))
defvjp(ew.multiply, lambda g, o, x, y: mul(g, y), lambda g, o, x, y: mul(g, x))
defvjp(ew.divide, lambda g, o, x, y: div(g, y), lambda g, o, x, y: neg(mul(g, div(o, y))))
defvjp(ew.power, _power_base, lambda g, o, x, y: mul(g, partials.power_exponent(x, o)))
defvjp(ew.remainder, lambda g, o, x, y: g,
       lambda g, o, x, y: neg(mul(g, ew.floor(div(x, y)))))
defvjp(ew.fmod, lambda g, o, x, y: g, lambda g, o, x, y: neg(mul(g, ew.trunc(div(x, y)))))
for _op, _share in ((ew.maximum, partials.max_share), (ew.minimum, partials.min_share),
                   (ew.fmax, partials.fmax_share), (ew.fmin, partials.fmin_share)):
    defvjp(_op, _weighted(_share), _swapped(_share))
defvjp(ew.arctan2, lambda g, o, y, x: mul(g, div(x, ew.add(sq(x), sq(y)))),
       lambda g, o, y, x: neg(mul(g, div(y, ew.add(sq(x), sq(y))))))
defvjp(ew.hypot, lambda g, o, x, y: mul(g, partials.hypot_share(x, y, o)),
       lambda g, o, x, y: mul(g, partials.hypot_share(y, x, o)))
defvjp(ew.logaddexp, lambda g, o, x, y: mul(g, ew.exp(partials.logaddexp_exponent(x, y, o, -LN2))),
       lambda g, o, x, y: mul(g, ew.exp(partials.logaddexp_exponent(y, x, o, -LN2))))
defvjp(ew.logaddexp2,
       lambda g, o, x, y: mul(g, ew.exp2(partials.logaddexp_exponent(x, y, o, -1.0))),
       lambda g, o, x, y: mul(g, ew.exp2(partials.logaddexp_exponent(y, x, o, -1.0))))
defvjp(ew.copysign, lambda g, o, x, y: mul(g, mul(ew.sign(x), ew.copysign(1.0, y))), None)

# -- ternary: where weighs the cotangent by 1 for the branch it chose, 0 for the other --
defvjp(ew.where, None, lambda g, o, c, x, y: mul(g, partials.truth(c)),
       lambda g, o, c, x, y: mul(g, ew.logical_not(c)))
# select routes the cotangent: the side not taken gets -0.0, the additive identity, so a sum of
# the cotangents of cond's branches is bit for bit the taken branch's (its sign of zero too)
defvjp(ew.select, None, lambda g, o, c, x, y: ew.select(c, g, -0.0),
       lambda g, o, c, x, y: ew.select(c, -0.0, g))
