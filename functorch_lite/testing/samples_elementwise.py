"""Sample entries of the elementwise functions: unary, binary, where, clip, astype, round."""
import numpy as np

from .. import numpy as fnp
from .. import lax
from ..ops.elementwise import stop_gradient
from .samples_base import (
    ABOVE_ONE, BOOL, EVEN, F32, F64, I32, I64, NONZERO, ODD, OFF_INTEGER, POSITIVE, REAL,
    SMALL_POWER, UNIT, OpInfo, S, array, binary, fixed, unary)


def _same(name):
    """fn and ref: the functorch_lite.numpy and numpy functions of the same name."""
    return getattr(fnp, name), getattr(np, name)


def _unary(name, domain=REAL, **kw):
    differentiable = kw.pop("differentiable", True)
    return OpInfo(name, *_same(name), unary(domain, **kw), differentiable=differentiable)


def _binary(name, d1=REAL, d2=REAL, differentiable=True, **kw):
    return OpInfo(name, *_same(name), binary(d1, d2, **kw), differentiable=differentiable)


def _special_values(rng):
    """Finite values with nan and inf at fixed places (for isnan/isinf/isfinite)."""
    x = array(rng, (2, 4))
    x[0, 1], x[1, 2], x[1, 3] = np.nan, np.inf, -np.inf
    return [S(x), S(x.astype(F32)), S(array(rng, ())), S(array(rng, (0,))),
            S(array(rng, (3,), I64))]


def _remainder_samples(rng):
    """x = y * (k + u), u in [0.1, 0.9]: x / y is away from integers, where remainder jumps."""
    def pair(xshape, yshape, dtype=F64, y_scalar=False):
        y = 1.7 if y_scalar else np.asarray(rng.uniform(1.2, 2.5, yshape) *
                                            rng.choice([-1.0, 1.0], yshape))
        ratio = rng.integers(-3, 3, xshape) + rng.uniform(0.1, 0.9, xshape)
        x = np.asarray(np.broadcast_to(y, xshape) * ratio, dtype=dtype)
        return S(x, y if y_scalar else np.asarray(y, dtype=dtype))
    return [pair((3, 4), (3, 4)), pair((3, 4), (4,)), pair((2, 3), ()), pair((), ()),
            pair((0, 3), (3,)), pair((3, 4), (4,), F32), pair((2, 3), None, y_scalar=True),
            S(np.array([7, -7, 5, 0]), np.array([3, 3, -2, 4])),
            S(2.5, np.asarray(rng.uniform(1.1, 1.2, (3,))))]


def _clip_samples(rng):
    """Values in three bands around the bounds [-0.5, 0.5] (never within 0.1 of them)."""
    def banded(shape, dtype=F64):
        bands = rng.choice([-0.85, 0.0, 0.85], shape)
        return np.asarray(bands + rng.uniform(-0.15, 0.15, shape), dtype=dtype)

    def bound(center, shape):
        return np.asarray(center + rng.uniform(-0.1, 0.1, shape))
    return [S(banded((3, 4)), -0.5, 0.5), S(banded(()), -0.5, 0.5),
            S(banded((0,)), -0.5, 0.5), S(banded((3, 4), F32), -0.5, 0.5),
            S(banded((3, 4)), bound(-0.5, (3, 1)), bound(0.5, (4,))),
            S(banded((5,)), None, 0.5), S(banded((5,)), -0.5, None),
            S(banded((5,)), a_min=-0.5, a_max=0.5),
            S(np.array([-3, 0, 2, 5]), 0, 3)]


def _where_samples(rng):
    def cond(shape):
        return array(rng, shape, BOOL)
    return [S(cond((3, 4)), array(rng, (3, 4)), array(rng, (3, 4))),
            S(cond((3, 1)), array(rng, (4,)), array(rng, ())),
            S(cond(()), array(rng, (2, 3)), array(rng, (2, 3))),
            S(cond((0, 3)), array(rng, (3,)), array(rng, (0, 1))),
            S(cond((3,)), array(rng, (3,), F32), 0.0),
            S(cond((2, 3)), 1.5, array(rng, (3,))),
            S(cond((4,)), array(rng, (4,), I64), array(rng, (4,), I64)),
            S(array(rng, (3,), I64), array(rng, (3,)), array(rng, (3,)))]


def _astype_samples(rng):
    return [S(array(rng, (3, 4)), F32), S(array(rng, (3,), F32), F64),
            S(array(rng, ()), np.float32), S(array(rng, (0, 2)), F32),
            S(array(rng, (2, 3), F64, OFF_INTEGER), I32), S(array(rng, (4,), I64), F64),
            S(array(rng, (3,), BOOL), F64), S(array(rng, (2, 2)), "float32")]


def _round_samples(rng):
    """Values away from the rounding boundaries of decimals 0, 1 and -1."""
    x = array(rng, (3, 4), F64, OFF_INTEGER)
    return [S(x), S(array(rng, (), F64, OFF_INTEGER)), S(array(rng, (0,))),
            S(x.astype(F32)), S(x / 10.0, 1), S(x * 10.0, -1), S(np.array([1, -2, 3]))]


def _float_power_samples(rng):
    return [S(array(rng, (3, 4), F64, POSITIVE), array(rng, (4,), F64, SMALL_POWER)),
            S(array(rng, (3,), F32, POSITIVE), array(rng, (3,), F32, SMALL_POWER)),
            S(array(rng, (2, 3), F64, POSITIVE), 2.0),
            S(array(rng, (3,), I64, POSITIVE), array(rng, (3,), I64, SMALL_POWER)),
            S(array(rng, (), F64, POSITIVE), array(rng, (0,), F64, SMALL_POWER))]


def _logical_samples(rng):
    return [S(array(rng, (3, 4), BOOL), array(rng, (4,), BOOL)),
            S(array(rng, (), BOOL), array(rng, (2, 3), BOOL)),
            S(array(rng, (3,)), array(rng, (3,), I64)),
            S(array(rng, (2, 3), BOOL), True), S(array(rng, (0,), BOOL), array(rng, (0,), BOOL))]


def _ties_int(rng):
    """maximum-style ops on integers (ties allowed: integer leaves are never differentiated)."""
    return [S(array(rng, (2, 3), I64), array(rng, (3,), I64))]


UNARY = [
    _unary("negative", ints=True), _unary("positive", ints=True),
    _unary("abs", NONZERO, ints=True), _unary("absolute", NONZERO, ints=True),
    _unary("exp", ints=True), _unary("exp2", ints=True), _unary("expm1", ints=True),
    _unary("log", POSITIVE, ints=True), _unary("log2", POSITIVE, ints=True),
    _unary("log10", POSITIVE, ints=True), _unary("log1p", POSITIVE, ints=True),
    _unary("sqrt", POSITIVE, ints=True), _unary("cbrt", NONZERO, ints=True),
    _unary("square", ints=True), _unary("reciprocal", NONZERO),
    _unary("sin", ints=True), _unary("cos", ints=True), _unary("tan", UNIT, ints=True),
    _unary("arcsin", UNIT), _unary("arccos", UNIT), _unary("arctan", ints=True),
    _unary("sinh", ints=True), _unary("cosh", ints=True), _unary("tanh", ints=True),
    _unary("arcsinh", ints=True), _unary("arccosh", ABOVE_ONE, ints=True),
    _unary("arctanh", UNIT),
    _unary("real", ints=True), _unary("imag", ints=True),
    _unary("conj", ints=True), _unary("conjugate", ints=True),
    _unary("sign", NONZERO, ints=True, differentiable=False),
    _unary("floor", OFF_INTEGER, ints=True, differentiable=False),
    _unary("ceil", OFF_INTEGER, ints=True, differentiable=False),
    _unary("rint", OFF_INTEGER, differentiable=False),
    _unary("trunc", OFF_INTEGER, ints=True, differentiable=False),
    OpInfo("isnan", *_same("isnan"), _special_values, differentiable=False),
    OpInfo("isinf", *_same("isinf"), _special_values, differentiable=False),
    OpInfo("isfinite", *_same("isfinite"), _special_values, differentiable=False),
    _unary("logical_not", bools=True, differentiable=False),
    OpInfo("round", *_same("round"), _round_samples, differentiable=False),
    OpInfo("around", fnp.around, np.round, _round_samples, differentiable=False,
           numpy_fn=None, doc="numpy.around is deprecated; np.round is its reference"),
]

BINARY = [
    _binary("add", bools=True), _binary("subtract"), _binary("multiply", bools=True),
    _binary("divide", d2=NONZERO), _binary("true_divide", d2=NONZERO),
    _binary("power", POSITIVE, SMALL_POWER),
    OpInfo("float_power", *_same("float_power"), _float_power_samples),
    OpInfo("remainder", *_same("remainder"), _remainder_samples),
    OpInfo("mod", *_same("mod"), _remainder_samples),
    _binary("floor_divide", d2=NONZERO, differentiable=False),
    OpInfo("maximum", *_same("maximum"), fixed(binary(EVEN, ODD), _ties_int)),
    OpInfo("minimum", *_same("minimum"), fixed(binary(EVEN, ODD), _ties_int)),
    OpInfo("fmax", *_same("fmax"), fixed(binary(EVEN, ODD), _ties_int)),
    OpInfo("fmin", *_same("fmin"), fixed(binary(EVEN, ODD), _ties_int)),
    _binary("arctan2", REAL, NONZERO), _binary("hypot", NONZERO, NONZERO),
    _binary("logaddexp"), _binary("logaddexp2"), _binary("copysign", NONZERO, NONZERO),
    *(_binary(name, bools=True, differentiable=False)
      for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]),
    *(OpInfo(name, *_same(name), _logical_samples, differentiable=False)
      for name in ["logical_and", "logical_or", "logical_xor"]),
]

OTHER = [
    OpInfo("where", *_same("where"), _where_samples,
           doc="differentiable in x and y only; the condition is a boolean leaf"),
    OpInfo("lax.select", lax.select, np.where, _where_samples,
           doc="functorch_lite.lax.select: where's values, derivatives routed"),
    OpInfo("clip", *_same("clip"), _clip_samples),
    OpInfo("stop_gradient", stop_gradient, lambda x: x, unary(ints=True, bools=True),
           differentiable=False, numpy_fn=None,
           doc="functorch_lite.stop_gradient: the identity with no derivative"),
    OpInfo("astype", *_same("astype"), _astype_samples,
           doc="casts to integer dtypes have no derivative (values are away from integers)"),
]

ENTRIES = UNARY + BINARY + OTHER


def _fmod_samples(rng):
    """The remainder samples (x / y away from integers) with mixed signs on both sides, and
    dividends far smaller than their divisors (fmod is then x1 exactly; remainder is not)."""
    small = rng.uniform(0.2, 0.8, 4) * np.array([-1e-17, -1.0, 0.3, -0.3])
    return _remainder_samples(rng) + [S(np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3]),
                                        name="i64_signs"),
                                      S(small, np.array([1.0, 1e8, -1e8, 1e3]),
                                        name="f64_small_over_large")]


ENTRIES = ENTRIES + [OpInfo("fmod", *_same("fmod"), _fmod_samples,
                            doc="sign of the dividend; x / y away from integers, where fmod "
                                "jumps")]
