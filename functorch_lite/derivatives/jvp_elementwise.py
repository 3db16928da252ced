"""jvp rules of the elementwise ops: one line per op, derivatives as in a table of calculus.

Subgradient conventions shared with reverse mode (partials.py): abs'(0) = sign(0) = 0;
maximum/minimum/fmax/fmin split the derivative 0.5/0.5 at ties; sqrt'(0) = inf (as JAX);
where() weighs each branch's tangent by 0 or 1; power's partial in the base is 0 where the
exponent is 0, and its partial in the exponent uses log(x) with x = 0 replaced by 1 (as JAX).
Every partial multiplies the tangent (Note [special values in derivatives]).
"""
import numpy as np

from ..ops import elementwise as ew
from ..numpy._util import dtype_of
from . import partials
from .jvp_helpers import add_tangents, def_binary, def_linear, def_unary, fit, is_inexact

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


def _share(share):
    return lambda x, y, out: share(x, y)


def _swap(share):
    """The share of y, from the share of x with the operands swapped."""
    return lambda x, y, out: share(y, x)


def_binary(ew.add, _one, _one)
def_binary(ew.subtract, _one, _minus_one)
def_binary(ew.multiply, lambda x, y, out: y, lambda x, y, out: x)
def_binary(ew.divide, lambda x, y, out: ew.divide(1.0, y),
           lambda x, y, out: ew.negative(ew.divide(out, y)))
def_binary(ew.power, lambda x, y, out: partials.power_base(x, y),
           lambda x, y, out: partials.power_exponent(x, out))
def_binary(ew.remainder, _one, lambda x, y, out: ew.negative(ew.floor(ew.divide(x, y))))
def_binary(ew.fmod, _one, lambda x, y, out: ew.negative(ew.trunc(ew.divide(x, y))))
def_binary(ew.maximum, _share(partials.max_share), _swap(partials.max_share))
def_binary(ew.minimum, _share(partials.min_share), _swap(partials.min_share))
def_binary(ew.fmax, _share(partials.fmax_share), _swap(partials.fmax_share))
def_binary(ew.fmin, _share(partials.fmin_share), _swap(partials.fmin_share))
def_binary(ew.arctan2,  # arctan2(x1, x2) = angle of (x2, x1)
           lambda x, y, out: ew.divide(y, ew.add(ew.square(x), ew.square(y))),
           lambda x, y, out: ew.negative(ew.divide(x, ew.add(ew.square(x), ew.square(y)))))
def_binary(ew.hypot, partials.hypot_share, lambda x, y, out: partials.hypot_share(y, x, out))
def_binary(ew.logaddexp, lambda x, y, out: ew.exp(partials.logaddexp_exponent(x, y, out, -LN2)),
           lambda x, y, out: ew.exp(partials.logaddexp_exponent(y, x, out, -LN2)))
def_binary(ew.logaddexp2, lambda x, y, out: ew.exp2(partials.logaddexp_exponent(x, y, out, -1.0)),
           lambda x, y, out: ew.exp2(partials.logaddexp_exponent(y, x, out, -1.0)))
# copysign(x, y) = +-|x|: the derivative in x is sign(x) * (+-1), and 0 at x = 0 (abs'(0) = 0)
def_binary(ew.copysign, lambda x, y, out: ew.multiply(ew.sign(x), ew.copysign(1.0, y)), None)


@ew.where.def_jvp
def where_jvp(primals, tangents):
    """cond * ta + (1 - cond) * tb: each branch's tangent times its 0/1 weight, so an inf or NaN
    tangent of the branch not chosen gives NaN, as in reverse mode (Note [special values in
    derivatives]; guard the unsafe branch with the double-where idiom)."""
    cond, x, y = primals
    _, tx, ty = tangents
    out = ew.where(cond, x, y)
    if (tx is None and ty is None) or not is_inexact(out):
        return out, None
    parts = []
    if tx is not None:
        parts.append(ew.multiply(tx, partials.truth(cond)))
    if ty is not None:
        parts.append(ew.multiply(ty, ew.logical_not(cond)))
    return out, fit(add_tangents(*parts), out)


@ew.select.def_jvp
def select_jvp(primals, tangents):
    """select(pred, tx, ty): the tangent of the branch taken, routed (nothing of the other
    one reaches the result, not even a NaN)."""
    pred, x, y = primals
    _, tx, ty = tangents
    out = ew.select(pred, x, y)
    if (tx is None and ty is None) or not is_inexact(out):
        return out, None
    return out, fit(ew.select(pred, _zero_for(x) if tx is None else tx,
                              _zero_for(y) if ty is None else ty), out)


def _zero_for(side):
    """The tangent of a side with none: 0.0, or -0.0 for the literal -0.0 that select's vjp
    routes to the side not taken (the additive identity, so sums of its tangents stay exact)."""
    return -0.0 if type(side) is float and side == 0.0 and np.signbit(side) else 0.0


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
