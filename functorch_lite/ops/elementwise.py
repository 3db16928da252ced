"""Elementwise primitives: NumPy ufuncs of one, two or three operands.

The ufuncs are the tables below, one line each: the op's name and what it computes (its
docstring's summary), and under it, after `|`, the derivative convention where there is one.
`_ufunc_ops` makes each table's ops and writes their docstrings (`_ufunc_doc`): the summary,
the convention, the arguments, a link to NumPy's page and an example that checks the op against
NumPy on a few values, so the module reads as the list of ops it is.
"""
import inspect

import numpy as np

from ..dispatch import defop
from . import branchless

# name          As numpy.<name>: ...
#               | the derivative convention, where there is one to state
_UNARY = """
negative        -x, elementwise.
positive        +x, elementwise (a copy).
abs             elementwise absolute value (also `absolute`).
                | Its derivative is sign(x): 0 at 0 (torch's; JAX's is 1).
exp             e to the power x, elementwise.
exp2            2 to the power x, elementwise.
expm1           exp(x) - 1, accurate for small x.
log             the natural logarithm, elementwise.
log2            the base-2 logarithm, elementwise.
log10           the base-10 logarithm, elementwise.
log1p           log(1 + x), accurate for small x.
sqrt            the non-negative square root, elementwise.
                | The derivative at 0 is inf.
cbrt            elementwise real cube root.
square          x * x, elementwise.
reciprocal      1 / x, elementwise.
sin             the sine (radians), elementwise.
cos             elementwise cosine.
tan             the tangent (radians), elementwise.
arcsin          elementwise inverse sine.
arccos          elementwise inverse cosine.
arctan          elementwise inverse tangent.
sinh            the hyperbolic sine, elementwise.
cosh            elementwise hyperbolic cosine.
tanh            the hyperbolic tangent, elementwise.
arcsinh         elementwise inverse hyperbolic sine.
arccosh         elementwise inverse hyperbolic cosine.
arctanh         elementwise inverse hyperbolic tangent.
real            the real part, elementwise.
imag            the imaginary part of x.
conj            elementwise complex conjugate (also `conjugate`).
"""
_UNARY_PIECEWISE_CONSTANT = """
sign            -1, 0 or 1 by the sign of x, elementwise.
floor           the largest integer <= x, elementwise.
ceil            elementwise smallest integer >= x.
rint            rounds to the nearest integer (halves to even), elementwise.
trunc           rounds toward zero, elementwise.
"""
_UNARY_BOOLEAN = """
isnan           True where x is NaN.
isinf           True where x is positive or negative infinity.
isfinite        True where x is neither infinite nor NaN.
logical_not     NOT x, elementwise.
"""
_BINARY = """
add             elementwise sum x1 + x2, broadcasting.
subtract        x1 - x2, elementwise.
multiply        x1 * x2, elementwise.
divide          elementwise true division x1 / x2.
power           x1 raised to the power x2, elementwise.
remainder       x1 % x2, signed as x2 (also `mod`).
                | Its derivative: 1 in x1, -floor(x1 / x2) in x2.
fmod            C's remainder x1 - trunc(x1 / x2) * x2, signed as x1 (exact).
                | Its derivative: 1 in x1, -trunc(x1 / x2) in x2.
maximum         the elementwise maximum (NaN propagates).
                | At a tie each operand gets half the derivative.
minimum         the elementwise minimum (NaN propagates).
                | At a tie each operand gets half the derivative.
fmax            the elementwise maximum, ignoring NaN.
                | At a tie each operand gets half the derivative.
fmin            the elementwise minimum, ignoring NaN.
                | At a tie each operand gets half the derivative.
arctan2         elementwise angle of the point (x2, x1).
hypot           sqrt(x1 ** 2 + x2 ** 2), elementwise.
logaddexp       log(exp(x1) + exp(x2)), stably.
logaddexp2      log2(2 ** x1 + 2 ** x2), stably.
copysign        elementwise |x1| with the sign of x2.
                | Differentiable in x1; its derivative in x2 is zero.
"""
_BINARY_PIECEWISE_CONSTANT = """
floor_divide    x1 // x2, elementwise.
"""
_BINARY_BOOLEAN = """
equal           x1 == x2, elementwise.
not_equal       x1 != x2, elementwise.
less            x1 < x2, elementwise.
less_equal      x1 <= x2, elementwise.
greater         x1 > x2, elementwise.
greater_equal   x1 >= x2, elementwise.
logical_and     x1 AND x2, elementwise.
logical_or      x1 OR x2, elementwise.
logical_xor     x1 XOR x2, elementwise.
"""

# The values each example runs on, where the op's domain asks for others than the default.
_EXAMPLE_INPUTS = {
    1: {"real": "np.array([1 + 2j, -3j])", "imag": "np.array([1 + 2j, -3j])",
        "conj": "np.array([1 + 2j, -3j])", "arccosh": "np.array([1.5, 2.0])",
        "arcsin": "np.array([0.5, -0.25])", "arccos": "np.array([0.5, -0.25])",
        "arctanh": "np.array([0.5, -0.25])", "isnan": "np.array([1.0, np.nan, np.inf])",
        "isinf": "np.array([1.0, np.nan, np.inf])", "isfinite": "np.array([1.0, np.nan, np.inf])",
        "logical_not": "np.array([True, False])", None: "np.array([0.5, 2.0])"},
    2: {"logical_and": "np.array([True, True]), np.array([True, False])",
        "logical_or": "np.array([True, False]), np.array([False, False])",
        "logical_xor": "np.array([True, True]), np.array([True, False])",
        None: "np.array([0.5, 2.0]), np.array([1.5, -1.0])"},
}
_OPERANDS = {1: "x", 2: "x1, x2"}
_NUMPY_PAGE = {"abs": "absolute", "conj": "conjugate"}      # NumPy documents them by these


def _ufunc_doc(name, nin, summary, convention):
    """The docstring of the ufunc op `name` of `nin` operands."""
    args = _OPERANDS[nin]
    inputs = _EXAMPLE_INPUTS[nin].get(name, _EXAMPLE_INPUTS[nin][None])
    page = _NUMPY_PAGE.get(name, name)
    operands = ("x: array_like (an array, scalar or nested list), or a value under a transform."
                if nin == 1 else
                "x1, x2: array_like, or values under a transform; broadcast against each other.")
    shape = "x's shape" if nin == 1 else "the broadcast shape"
    url = f"https://numpy.org/doc/stable/reference/generated/numpy.{page}.html"
    return "\n".join(
        [f"As numpy.{name}: {summary}", ""] + ([convention, ""] if convention else []) + [
            "Args:", f"    {operands}", "", "Returns:", f"    An array of {shape}, as NumPy's.",
            "", f"See [numpy.{page}]({url}).", "",
            "Examples:", "    >>> import numpy as np, functorch_lite.numpy as fnp",
            f"    >>> {args} = {inputs}",
            f"    >>> bool(np.array_equal(fnp.{name}({args}), np.{name}({args})))", "    True"])


LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not"})


def _truth(xp, x):
    """x as its truth values where it is complex: CuPy's logical ufuncs have no complex loop,
    so the logical ops compare with 0 first (what NumPy's complex loop does)."""
    if isinstance(x, complex) or getattr(getattr(x, "dtype", None), "kind", "") == "c":
        return xp.not_equal(x, 0)
    return x


def _ufunc_kernel(name):
    if name in LOGICAL:
        return lambda xp, *args: getattr(xp, name)(*(_truth(xp, a) for a in args))
    return lambda xp, *args: getattr(xp, name)(*args)


def _ufunc_ops(table, nin, differentiable=True, convention=None):
    """The ops of a table: each runs the array module's ufunc of its name."""
    entries = {}
    for line in table.strip().splitlines():
        if line.lstrip().startswith("|"):                       # the previous op's convention
            entries[name][1] = line.lstrip()[1:].strip()
        else:
            name, summary = line.split(maxsplit=1)
            entries[name] = [summary, convention]
    ops = {}
    for name, (summary, note) in entries.items():
        op = defop(name, _ufunc_kernel(name),
                   differentiable=differentiable, numpy_impl=getattr(np, name),
                   doc=_ufunc_doc(name, nin, summary, note))
        op.__signature__ = inspect.Signature([inspect.Parameter(
            a, inspect.Parameter.POSITIONAL_ONLY) for a in _OPERANDS[nin].split(", ")])
        ops[name] = op
    globals().update(ops)


_ufunc_ops(_UNARY, 1)
_ufunc_ops(_UNARY_PIECEWISE_CONSTANT, 1, differentiable=False,
           convention="Piecewise constant: its derivative is zero under every transform.")
_ufunc_ops(_UNARY_BOOLEAN, 1, differentiable=False,
           convention="Boolean-valued: it has no derivative.")

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


_ufunc_ops(_BINARY, 2)
_ufunc_ops(_BINARY_PIECEWISE_CONSTANT, 2, differentiable=False,
           convention="Piecewise constant: its derivative is zero under every transform.")
_ufunc_ops(_BINARY_BOOLEAN, 2, differentiable=False,
           convention="Boolean-valued: it has no derivative.")

# -- ternary --
where = defop("where", lambda xp, cond, x, y: xp.where(cond, x, y), numpy_impl=branchless.where,
              doc="Elementwise choice: x where cond is true, else y. Differentiable in x and y.")

# (a 0-d result is a NumPy scalar, as a ufunc's: cond's select stands for a branch's arithmetic)
select = defop("lax_select", lambda xp, pred, x, y: xp.where(pred, x, y)[()],
               numpy_impl=lambda pred, x, y: branchless.where(pred, x, y)[()],
               doc="where's values with routed derivatives (functorch_lite.lax.select).")

# -- dtype conversion (differentiable between inexact dtypes) --
astype = defop("astype", lambda xp, x, dtype: xp.asarray(x).astype(dtype),
               doc="Cast to `dtype`; a cast to an integer or bool dtype has no derivative.")
