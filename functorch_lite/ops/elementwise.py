"""Elementwise primitives: NumPy ufuncs of one, two or three operands."""
import numpy as np

from ..dispatch import defop
from . import branchless


def _ufunc_op(name, differentiable=True, numpy_name=None):
    """An op whose kernel is the array module's ufunc of the same name."""
    numpy_name = numpy_name or name
    return defop(name, lambda xp, *args: getattr(xp, numpy_name)(*args),
                 differentiable=differentiable, doc=f"Elementwise {numpy_name}, as NumPy's.",
                 numpy_impl=getattr(np, numpy_name))


# -- unary, differentiable --
negative = _ufunc_op("negative")
positive = _ufunc_op("positive")
abs = _ufunc_op("abs")
exp = _ufunc_op("exp")
exp2 = _ufunc_op("exp2")
expm1 = _ufunc_op("expm1")
log = _ufunc_op("log")
log2 = _ufunc_op("log2")
log10 = _ufunc_op("log10")
log1p = _ufunc_op("log1p")
sqrt = _ufunc_op("sqrt")
cbrt = _ufunc_op("cbrt")
square = _ufunc_op("square")
reciprocal = _ufunc_op("reciprocal")
sin = _ufunc_op("sin")
cos = _ufunc_op("cos")
tan = _ufunc_op("tan")
arcsin = _ufunc_op("arcsin")
arccos = _ufunc_op("arccos")
arctan = _ufunc_op("arctan")
sinh = _ufunc_op("sinh")
cosh = _ufunc_op("cosh")
tanh = _ufunc_op("tanh")
arcsinh = _ufunc_op("arcsinh")
arccosh = _ufunc_op("arccosh")
arctanh = _ufunc_op("arctanh")
real = _ufunc_op("real")
imag = _ufunc_op("imag")
conj = _ufunc_op("conj")

# -- unary, piecewise constant or boolean-valued: zero derivative --
sign = _ufunc_op("sign", differentiable=False)
floor = _ufunc_op("floor", differentiable=False)
ceil = _ufunc_op("ceil", differentiable=False)
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
add = _ufunc_op("add")
subtract = _ufunc_op("subtract")
multiply = _ufunc_op("multiply")
divide = _ufunc_op("divide")
power = _ufunc_op("power")
remainder = _ufunc_op("remainder")
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
