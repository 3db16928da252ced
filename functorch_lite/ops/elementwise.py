"""Elementwise primitives: NumPy ufuncs of one, two or three operands."""
import numpy as np

from ..dispatch import defop
from . import branchless


def _ufunc_op(name, differentiable=True, numpy_name=None, doc=None):
    """An op whose kernel is the array module's ufunc of the same name."""
    numpy_name = numpy_name or name
    return defop(name, lambda xp, *args: getattr(xp, numpy_name)(*args),
                 differentiable=differentiable, doc=doc or f"Elementwise {numpy_name}, as NumPy's.",
                 numpy_impl=getattr(np, numpy_name))


# -- unary, differentiable --
negative = _ufunc_op("negative")
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
abs = _ufunc_op("abs")
exp = _ufunc_op("exp")
exp2 = _ufunc_op("exp2")
expm1 = _ufunc_op("expm1")
log = _ufunc_op("log")
log2 = _ufunc_op("log2")
log10 = _ufunc_op("log10")
log1p = _ufunc_op("log1p")
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
cbrt = _ufunc_op("cbrt")
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
cos = _ufunc_op("cos")
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
arcsin = _ufunc_op("arcsin")
arccos = _ufunc_op("arccos")
arctan = _ufunc_op("arctan")
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
cosh = _ufunc_op("cosh")
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
arcsinh = _ufunc_op("arcsinh")
arccosh = _ufunc_op("arccosh")
arctanh = _ufunc_op("arctanh")
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
imag = _ufunc_op("imag")
conj = _ufunc_op("conj")

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
floor = _ufunc_op("floor", differentiable=False)
ceil = _ufunc_op("ceil", differentiable=False)
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
isnan = _ufunc_op("isnan", differentiable=False)
isinf = _ufunc_op("isinf", differentiable=False)
isfinite = _ufunc_op("isfinite", differentiable=False)
logical_not = _ufunc_op("logical_not", differentiable=False)
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
add = _ufunc_op("add")
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
multiply = _ufunc_op("multiply")
divide = _ufunc_op("divide")
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
remainder = _ufunc_op("remainder", doc="""As numpy.remainder: x1 modulo x2 with the sign of x2, elementwise.

    Args:
        x1: an array, scalar or nested list.
        x2: an array, scalar or nested list broadcastable with x1.

    Returns:
        An array of the broadcast shape of x1 and x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.remainder(np.array([5, -5, 7]), 3)
        array([2, 1, 1])
    """)
maximum = _ufunc_op("maximum")
minimum = _ufunc_op("minimum")
fmax = _ufunc_op("fmax")
fmin = _ufunc_op("fmin")
arctan2 = _ufunc_op("arctan2")
hypot = _ufunc_op("hypot")
logaddexp = _ufunc_op("logaddexp")
logaddexp2 = _ufunc_op("logaddexp2")
copysign = _ufunc_op("copysign")

# -- binary, integer- or boolean-valued --
floor_divide = _ufunc_op("floor_divide", differentiable=False)
equal = _ufunc_op("equal", differentiable=False)
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
less = _ufunc_op("less", differentiable=False)
less_equal = _ufunc_op("less_equal", differentiable=False)
greater = _ufunc_op("greater", differentiable=False)
greater_equal = _ufunc_op("greater_equal", differentiable=False)
logical_and = _ufunc_op("logical_and", differentiable=False)
logical_or = _ufunc_op("logical_or", differentiable=False)
logical_xor = _ufunc_op("logical_xor", differentiable=False)

# -- ternary --
where = defop("where", lambda xp, cond, x, y: xp.where(cond, x, y), numpy_impl=branchless.where,
              doc="Elementwise choice: x where cond is true, else y. Differentiable in x and y.")

# -- dtype conversion (differentiable between inexact dtypes) --
astype = defop("astype", lambda xp, x, dtype: xp.asarray(x).astype(dtype),
               doc="Cast to `dtype`; a cast to an integer or bool dtype has no derivative.")
