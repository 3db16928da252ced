"""Elementwise primitives: NumPy ufuncs of one, two or three operands."""
import numpy as np

from ..dispatch import defop
from . import branchless


def _ufunc_op(name, differentiable=True, numpy_name=None, doc=None):
    """An op whose kernel is the array module's ufunc of the same name."""
    numpy_name = numpy_name or name
    return defop(name, lambda xp, *args: getattr(xp, numpy_name)(*args),
                 differentiable=differentiable,
                 doc=doc or f"Elementwise {numpy_name}, as NumPy's.",
                 numpy_impl=getattr(np, numpy_name))


# -- unary, differentiable --
negative = _ufunc_op("negative", doc="""As numpy.negative: -x, elementwise.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: -x.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.negative(np.array([1, -2, 0]))
        array([-1,  2,  0])
    """)
positive = _ufunc_op("positive", doc="""As numpy.positive: +x, elementwise (a copy).

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.positive(np.array([-1, 2]))
        array([-1,  2])
    """)
abs = _ufunc_op("abs", doc="""As numpy.abs: elementwise absolute value (also `absolute`).

    The derivative at 0 is 0 (sign(x)).

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise abs(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.abs(np.array([-2, 0, 3]))
        array([2, 0, 3])
    """)
exp = _ufunc_op("exp", doc="""As numpy.exp: e to the power x, elementwise.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: e ** x.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.exp(np.array([0.0, 1.0])), [1.0, np.e]))
        True
    """)
exp2 = _ufunc_op("exp2", doc="""As numpy.exp2: 2 to the power x, elementwise.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: 2 ** x.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.exp2(np.array([0, 1, 3]))
        array([1., 2., 8.])
    """)
expm1 = _ufunc_op("expm1", doc="""As numpy.expm1: exp(x) - 1, accurate for small x.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: exp(x) - 1.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.expm1(np.array([1e-10])), 1e-10))
        True
    """)
log = _ufunc_op("log", doc="""As numpy.log: the natural logarithm, elementwise.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: log(x) (NaN for x < 0, -inf at 0).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.log(np.array([1.0, np.e])), [0.0, 1.0]))
        True
    """)
log2 = _ufunc_op("log2", doc="""As numpy.log2: the base-2 logarithm, elementwise.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: log2(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.log2(np.array([1, 2, 8]))
        array([0., 1., 3.])
    """)
log10 = _ufunc_op("log10", doc="""As numpy.log10: the base-10 logarithm, elementwise.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: log10(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.log10(np.array([1, 10, 100]))
        array([0., 1., 2.])
    """)
log1p = _ufunc_op("log1p", doc="""As numpy.log1p: log(1 + x), accurate for small x.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: log(1 + x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.log1p(np.array([1e-10])), 1e-10))
        True
    """)
sqrt = _ufunc_op("sqrt", doc="""As numpy.sqrt: the non-negative square root, elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.sqrt(np.array([1, 4, 9]))
        array([1., 2., 3.])
    """)
cbrt = _ufunc_op("cbrt", doc="""As numpy.cbrt: elementwise real cube root.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise cbrt(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cbrt(np.array([-8.0, 27.0]))
        array([-2.,  3.])
    """)
square = _ufunc_op("square", doc="""As numpy.square: x * x, elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.square(np.array([1, -2, 3]))
        array([1, 4, 9])
    """)
reciprocal = _ufunc_op("reciprocal", doc="""As numpy.reciprocal: 1 / x, elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.reciprocal(np.array([1.0, 2.0, 4.0]))
        array([1.  , 0.5 , 0.25])
    """)
sin = _ufunc_op("sin", doc="""As numpy.sin: the sine (radians), elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.sin(np.array([0.0]))
        array([0.])
    """)
cos = _ufunc_op("cos", doc="""As numpy.cos: elementwise cosine.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise cos(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cos(np.array([0.0]))
        array([1.])
    """)
tan = _ufunc_op("tan", doc="""As numpy.tan: the tangent (radians), elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.tan(np.array([0.0]))
        array([0.])
    """)
arcsin = _ufunc_op("arcsin", doc="""As numpy.arcsin: elementwise inverse sine.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise arcsin(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.arcsin(np.array([0.0, 1.0])), [0.0, np.pi / 2]))
        True
    """)
arccos = _ufunc_op("arccos", doc="""As numpy.arccos: elementwise inverse cosine.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise arccos(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.arccos(np.array([1.0, 0.0])), [0.0, np.pi / 2]))
        True
    """)
arctan = _ufunc_op("arctan", doc="""As numpy.arctan: elementwise inverse tangent.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise arctan(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.arctan(np.array([0.0, 1.0])), [0.0, np.pi / 4]))
        True
    """)
sinh = _ufunc_op("sinh", doc="""As numpy.sinh: the hyperbolic sine, elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.sinh(np.array([0.0]))
        array([0.])
    """)
cosh = _ufunc_op("cosh", doc="""As numpy.cosh: elementwise hyperbolic cosine.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise cosh(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cosh(np.array([0.0]))
        array([1.])
    """)
tanh = _ufunc_op("tanh", doc="""As numpy.tanh: the hyperbolic tangent, elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.tanh(np.array([0.0]))
        array([0.])
    """)
arcsinh = _ufunc_op("arcsinh", doc="""As numpy.arcsinh: elementwise inverse hyperbolic sine.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise arcsinh(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.arcsinh(np.array([0.0]))
        array([0.])
    """)
arccosh = _ufunc_op("arccosh", doc="""As numpy.arccosh: elementwise inverse hyperbolic cosine.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise arccosh(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.arccosh(np.array([1.0]))
        array([0.])
    """)
arctanh = _ufunc_op("arctanh", doc="""As numpy.arctanh: elementwise inverse hyperbolic tangent.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise arctanh(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.arctanh(np.array([0.0]))
        array([0.])
    """)
real = _ufunc_op("real", doc="""As numpy.real: the real part, elementwise.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.real(np.array([1 + 2j, 3 - 1j]))
        array([1., 3.])
    """)
imag = _ufunc_op("imag", doc="""As numpy.imag: the imaginary part of x.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: the imaginary parts (zeros for real input).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.imag(np.array([1 + 2j, 3 - 4j]))
        array([ 2., -4.])
    """)
conj = _ufunc_op("conj", doc="""As numpy.conj: elementwise complex conjugate (also `conjugate`).

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise conj(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.conj(np.array([1 + 2j]))
        array([1.-2.j])
    """)

# -- unary, piecewise constant or boolean-valued: zero derivative --
sign = _ufunc_op("sign", differentiable=False, doc="""As numpy.sign: -1, 0 or 1 by the sign of x, elementwise.

    Piecewise constant: its derivative is zero under every transform.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.sign(np.array([-3, 0, 2]))
        array([-1,  0,  1])
    """)
floor = _ufunc_op("floor", doc="""As numpy.floor: the largest integer <= x, elementwise.

    Piecewise constant: its derivative is zero.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: the floors, as floats for float input.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.floor(np.array([-1.5, 0.5, 2.0]))
        array([-2.,  0.,  2.])
    """, differentiable=False)
ceil = _ufunc_op("ceil", doc="""As numpy.ceil: elementwise smallest integer >= x.

    Piecewise constant: its derivative is zero.

    Args:
        x: an array or scalar (or a value under a transform).

    Returns:
        An array of x's shape, elementwise ceil(x).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ceil(np.array([-1.5, 0.2]))
        array([-1.,  1.])
    """, differentiable=False)
rint = _ufunc_op("rint", differentiable=False, doc="""As numpy.rint: rounds to the nearest integer (halves to even), elementwise.

    Piecewise constant: its derivative is zero under every transform.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.rint(np.array([0.5, 1.5, 2.7]))
        array([0., 2., 3.])
    """)
trunc = _ufunc_op("trunc", differentiable=False, doc="""As numpy.trunc: rounds toward zero, elementwise.

    Piecewise constant: its derivative is zero under every transform.

    Args:
        x: an array, scalar or nested list.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.trunc(np.array([-1.7, 1.7]))
        array([-1.,  1.])
    """)
isnan = _ufunc_op("isnan", doc="""As numpy.isnan: True where x is NaN.

    Boolean-valued: it has no derivative.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.isnan(np.array([1.0, np.inf, np.nan]))
        array([False, False,  True])
    """, differentiable=False)
isinf = _ufunc_op("isinf", doc="""As numpy.isinf: True where x is positive or negative infinity.

    Boolean-valued: it has no derivative.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.isinf(np.array([1.0, -np.inf, np.nan]))
        array([False,  True, False])
    """, differentiable=False)
isfinite = _ufunc_op("isfinite", doc="""As numpy.isfinite: True where x is neither infinite nor NaN.

    Boolean-valued: it has no derivative.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.isfinite(np.array([1.0, np.inf, np.nan]))
        array([ True, False, False])
    """, differentiable=False)
logical_not = _ufunc_op("logical_not", doc="""As numpy.logical_not: NOT x, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x: array_like.

    Returns:
        An array of x's shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.logical_not(np.array([0, 1, 2]))
        array([ True, False, False])
    """, differentiable=False)
stop_gradient = defop(
    "stop_gradient", lambda xp, x: x, numpy_impl=lambda x: x, differentiable=False,
    doc="""The identity, seen by every transform as a constant (jax.lax.stop_gradient).

    No tangent or cotangent flows through it; vmap batches it as the identity. For terms whose
    derivative is known to cancel, such as the max shift of logsumexp, so that no transform
    computes it.

    Args:
        x: an array (or a value under a transform).

    Returns:
        x's value, with a zero derivative.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.grad(lambda x: x * ft.stop_gradient(x))(3.0)
        array(3.)
    """)
round = defop("round", lambda xp, x, decimals=0: xp.round(x, decimals), differentiable=False,
              doc="Round to `decimals` places (half to even), as numpy.round.")

# -- binary, differentiable --
add = _ufunc_op("add", doc="""As numpy.add: elementwise sum x1 + x2, broadcasting.

    Args:
        x1: an array or scalar (or a value under a transform).
        x2: an array or scalar, broadcast against x1.

    Returns:
        An array of the broadcast shape of x1 and x2, elementwise add(x1, x2).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.add(np.array([1, 2]), np.array([10, 20]))
        array([11, 22])
    """)
subtract = _ufunc_op("subtract", doc="""As numpy.subtract: x1 - x2, elementwise.

    Args:
        x1: an array, scalar or nested list.
        x2: an array, scalar or nested list broadcastable with x1.

    Returns:
        An array of the broadcast shape of x1 and x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.subtract(np.array([5, 7]), np.array([1, 2]))
        array([4, 5])
    """)
multiply = _ufunc_op("multiply", doc="""As numpy.multiply: x1 * x2, elementwise.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: the products.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.multiply(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([  2,  16, -21])
    """)
divide = _ufunc_op("divide", doc="""As numpy.divide: elementwise true division x1 / x2.

    Args:
        x1: an array or scalar (or a value under a transform).
        x2: an array or scalar, broadcast against x1.

    Returns:
        An array of the broadcast shape of x1 and x2, elementwise divide(x1, x2).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.divide(np.array([1, 6]), np.array([2, 3]))
        array([0.5, 2. ])
    """)
power = _ufunc_op("power", doc="""As numpy.power: x1 raised to the power x2, elementwise.

    Args:
        x1: an array, scalar or nested list.
        x2: an array, scalar or nested list broadcastable with x1.

    Returns:
        An array of the broadcast shape of x1 and x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.power(np.array([1, 2, 3]), 2)
        array([1, 4, 9])
    """)
remainder = _ufunc_op("remainder", doc="""As numpy.remainder (also `mod`): x1 % x2, signed as x2.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: x1 % x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.remainder(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([1, 0, 2])
    """)
maximum = _ufunc_op("maximum", doc="""As numpy.maximum: the elementwise maximum (NaN propagates).

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: the larger of x1 and x2;
            ties share the derivative equally.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.maximum(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([2, 4, 3])
    """)
minimum = _ufunc_op("minimum", doc="""As numpy.minimum: the elementwise minimum (NaN propagates).

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: the smaller of x1 and x2;
            ties share the derivative equally.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.minimum(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([ 1,  4, -7])
    """)
fmax = _ufunc_op("fmax", doc="""As numpy.fmax: the elementwise maximum, ignoring NaN.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: the larger of x1 and x2 (NaN only where both are NaN).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.fmax(np.array([1.0, np.nan, 3.0]), np.array([2.0, 0.0, np.nan]))
        array([2., 0., 3.])
    """)
fmin = _ufunc_op("fmin", doc="""As numpy.fmin: the elementwise minimum, ignoring NaN.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: the smaller of x1 and x2 (NaN only where both are NaN).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.fmin(np.array([1.0, np.nan, 3.0]), np.array([2.0, 0.0, np.nan]))
        array([1., 0., 3.])
    """)
arctan2 = _ufunc_op("arctan2", doc="""As numpy.arctan2: elementwise angle of the point (x2, x1).

    Args:
        x1: an array or scalar (or a value under a transform).
        x2: an array or scalar, broadcast against x1.

    Returns:
        An array of the broadcast shape of x1 and x2, elementwise arctan2(x1, x2).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.arctan2(np.array([1.0]), np.array([-1.0])), [3 * np.pi / 4]))
        True
    """)
hypot = _ufunc_op("hypot", doc="""As numpy.hypot: sqrt(x1 ** 2 + x2 ** 2), elementwise.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: the hypotenuses.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.hypot(np.array([3, 5]), np.array([4, 12]))
        array([ 5., 13.])
    """)
logaddexp = _ufunc_op("logaddexp", doc="""As numpy.logaddexp: log(exp(x1) + exp(x2)), stably.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: log(exp(x1) + exp(x2)).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.logaddexp(np.array([0.0]), np.array([0.0])), np.log(2)))
        True
    """)
logaddexp2 = _ufunc_op("logaddexp2", doc="""As numpy.logaddexp2: log2(2 ** x1 + 2 ** x2), stably.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: log2(2 ** x1 + 2 ** x2).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.logaddexp2(np.array([1.0]), np.array([1.0]))
        array([2.])
    """)
copysign = _ufunc_op("copysign", doc="""As numpy.copysign: elementwise |x1| with the sign of x2.

    Differentiable in x1; the derivative in x2 is zero.

    Args:
        x1: an array or scalar (or a value under a transform).
        x2: an array or scalar, broadcast against x1.

    Returns:
        An array of the broadcast shape of x1 and x2, elementwise copysign(x1, x2).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.copysign(np.array([1.0, -2.0]), np.array([-1.0, 1.0]))
        array([-1.,  2.])
    """)

# -- binary, integer- or boolean-valued --
floor_divide = _ufunc_op("floor_divide", doc="""As numpy.floor_divide: x1 // x2, elementwise.

    Piecewise constant: its derivative is zero.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: x1 // x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.floor_divide(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([ 0,  1, -3])
    """, differentiable=False)
equal = _ufunc_op("equal", doc="""As numpy.equal: x1 == x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.equal(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([False,  True, False])
    """, differentiable=False)
not_equal = _ufunc_op("not_equal", differentiable=False, doc="""As numpy.not_equal: x1 != x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1: an array, scalar or nested list.
        x2: an array, scalar or nested list broadcastable with x1.

    Returns:
        An array of the broadcast shape of x1 and x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.not_equal(np.array([1, 2, 3]), 2)
        array([ True, False,  True])
    """)
less = _ufunc_op("less", doc="""As numpy.less: x1 < x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.less(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([ True, False,  True])
    """, differentiable=False)
less_equal = _ufunc_op("less_equal", doc="""As numpy.less_equal: x1 <= x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.less_equal(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([ True,  True,  True])
    """, differentiable=False)
greater = _ufunc_op("greater", doc="""As numpy.greater: x1 > x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.greater(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([False, False, False])
    """, differentiable=False)
greater_equal = _ufunc_op("greater_equal", doc="""As numpy.greater_equal: x1 >= x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.greater_equal(np.array([1, 4, -7]), np.array([2, 4, 3]))
        array([False,  True, False])
    """, differentiable=False)
logical_and = _ufunc_op("logical_and", doc="""As numpy.logical_and: x1 AND x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.logical_and(np.array([True, True, False]), np.array([True, False, False]))
        array([ True, False, False])
    """, differentiable=False)
logical_or = _ufunc_op("logical_or", doc="""As numpy.logical_or: x1 OR x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.logical_or(np.array([True, True, False]), np.array([True, False, False]))
        array([ True,  True, False])
    """, differentiable=False)
logical_xor = _ufunc_op("logical_xor", doc="""As numpy.logical_xor: x1 XOR x2, elementwise.

    Boolean-valued: it has no derivative.

    Args:
        x1, x2: array_like, broadcast against each other.

    Returns:
        An array of the broadcast shape: a bool array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.logical_xor(np.array([True, True, False]), np.array([True, False, False]))
        array([False,  True, False])
    """, differentiable=False)

# -- ternary --
where = defop("where", lambda xp, cond, x, y: xp.where(cond, x, y), numpy_impl=branchless.where,
              doc="Elementwise choice: x where cond is true, else y. Differentiable in x and y.")

# -- dtype conversion (differentiable between inexact dtypes) --
astype = defop("astype", lambda xp, x, dtype: xp.asarray(x).astype(dtype),
               doc="Cast to `dtype`; a cast to an integer or bool dtype has no derivative.")
