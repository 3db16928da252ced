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
negative = _ufunc_op("negative")
positive = _ufunc_op("positive")
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
exp = _ufunc_op("exp")
exp2 = _ufunc_op("exp2")
expm1 = _ufunc_op("expm1")
log = _ufunc_op("log")
log2 = _ufunc_op("log2")
log10 = _ufunc_op("log10")
log1p = _ufunc_op("log1p")
sqrt = _ufunc_op("sqrt")
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
square = _ufunc_op("square")
reciprocal = _ufunc_op("reciprocal")
sin = _ufunc_op("sin")
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
tan = _ufunc_op("tan")
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
sinh = _ufunc_op("sinh")
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
tanh = _ufunc_op("tanh")
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
real = _ufunc_op("real")
imag = _ufunc_op("imag")
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
sign = _ufunc_op("sign", differentiable=False)
floor = _ufunc_op("floor", differentiable=False)
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
rint = _ufunc_op("rint", differentiable=False)
trunc = _ufunc_op("trunc", differentiable=False)
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
subtract = _ufunc_op("subtract")
multiply = _ufunc_op("multiply")
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
power = _ufunc_op("power")
remainder = _ufunc_op("remainder")
maximum = _ufunc_op("maximum")
minimum = _ufunc_op("minimum")
fmax = _ufunc_op("fmax")
fmin = _ufunc_op("fmin")
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
hypot = _ufunc_op("hypot")
logaddexp = _ufunc_op("logaddexp")
logaddexp2 = _ufunc_op("logaddexp2")
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
floor_divide = _ufunc_op("floor_divide", differentiable=False)
equal = _ufunc_op("equal", differentiable=False)
not_equal = _ufunc_op("not_equal", differentiable=False)
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
