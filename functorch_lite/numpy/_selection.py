"""Choosing values by conditions: select, piecewise, heaviside; closeness tests isclose and
allclose. All compose `where` and comparisons, so every transform covers them.

piecewise evaluates every function on the whole input and selects with `where` (as
jax.numpy.piecewise), where NumPy calls each on the selected entries only: a function that is
not finite outside its piece (sqrt for x < 0) would poison the derivative through `where`;
make its input safe there (see the double-where idiom in docs/autodiff.md).
"""
import numpy as np

from ..ops import elementwise as ew
from ._reductions import all as _all
from ._shape import broadcast_to
from ._indexing import on_device_of
from ._util import as_operand, dtype_of, ndim, shape, xp_of


def _weak_result_type(*operands):
    """NumPy 2's result dtype: Python scalars are weak (they do not widen arrays)."""
    return np.result_type(*[dtype_of(o) if hasattr(o, "dtype") else o for o in operands])


def select(condlist, choicelist, default=0):
    """As numpy.select: elementwise, the choice of the first true condition.

    Args:
        condlist: a list of boolean arrays.
        choicelist: a list of arrays, one per condition.
        default: the value where no condition holds (0 by default).

    Returns:
        An array of the broadcast shape, of the choices' result dtype.

    Raises:
        ValueError: the lists differ in length, or are empty.
        TypeError: a condition that is not boolean.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> x = np.array([1, 2, 3])
        >>> fnp.select([x < 2, x > 2], [x, x * 10], default=-1)
        array([ 1, -1, 30])
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    conds = [as_operand(c) for c in condlist]
    for i, c in enumerate(conds):
        if dtype_of(c) != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    choices = [as_operand(c) for c in choicelist]
    conds = [on_device_of(c, *choices) for c in conds]
    dtype = _weak_result_type(*choices, default)
    out = default
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = ew.where(cond, choice, out)
    return out if dtype_of(out) == dtype else ew.astype(out, dtype=dtype)


def piecewise(x, condlist, funclist, *args, **kw):
    """As numpy.piecewise: `funclist[i](x)` where `condlist[i]` holds.

    Later conditions win; an extra last function (or value) applies where no condition holds,
    0 elsewhere. Values keep x's dtype.

    Args:
        x: the input array.
        condlist: a boolean array or a list of boolean arrays of x's shape.
        funclist: functions (or scalars), one per condition, optionally one more.
        *args, **kw: passed on to each function.

    Returns:
        An array of x's shape and dtype.

    Raises:
        ValueError: funclist has neither len(condlist) nor len(condlist) + 1 entries.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> x = np.array([-2, -1, 0, 1, 2])
        >>> fnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 10])
        array([ 2,  1,  0, 10, 20])
    """
    x = as_operand(x)
    if not isinstance(condlist, (list, tuple)) and ndim(condlist) == ndim(x):
        condlist = [condlist]
    conds = [on_device_of(as_operand(c), x) for c in condlist]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"with {n} condition(s), piecewise needs {n} or {n + 1} functions, "
                         f"got {len(funclist)}")
    if len(funclist) == n + 1:
        none = ew.logical_not(_any_of(conds))
        conds, funclist = conds + [none], list(funclist)
    dtype = dtype_of(x)
    out = broadcast_to(xp_of(x).zeros((), dtype), shape(x))   # NumPy's zeros_like (not x * 0)
    for cond, fn in zip(conds, funclist):
        value = fn(x, *args, **kw) if callable(fn) else fn
        if hasattr(value, "dtype") and dtype_of(value) != dtype:
            value = ew.astype(value, dtype=dtype)
        out = ew.where(cond, value, out)
    return out if dtype_of(out) == dtype else ew.astype(out, dtype=dtype)


def _any_of(conds):
    out = conds[0]
    for c in conds[1:]:
        out = ew.logical_or(out, c)
    return out


def heaviside(x1, x2):
    """As numpy.heaviside: the step function, 0 below 0, x2 at 0 and 1 above (NaN stays NaN).

    Constant in x1 (zero derivative), differentiable in x2 where x1 == 0.

    Args:
        x1: array_like, where to step.
        x2: array_like, the value at x1 == 0; broadcast against x1.

    Returns:
        An array of the broadcast shape and the result type of x1 and x2.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.heaviside(np.array([-2.0, 0.0, 3.0]), 0.5)
        array([0. , 0.5, 1. ])
    """
    x1, x2 = as_operand(x1), as_operand(x2)
    dtype = _weak_result_type(x1, x2)
    step = ew.astype(ew.greater(x1, 0), dtype=dtype)
    out = ew.where(ew.equal(x1, 0), x2, step)
    out = ew.where(ew.isnan(x1), x1, out)
    return out if dtype_of(out) == dtype else ew.astype(out, dtype=dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """As numpy.isclose: |a - b| <= atol + rtol |b| elementwise.

    Infinities are close only to themselves. Boolean-valued: it has no derivative.

    Args:
        a, b: array_like, broadcast against each other.
        rtol: relative tolerance (default 1e-05).
        atol: absolute tolerance (default 1e-08).
        equal_nan: count NaN as close to NaN.

    Returns:
        A bool array of the broadcast shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.isclose(np.array([1.0, 2.0, np.nan]), np.array([1.0, 2.1, np.nan]))
        array([ True, False, False])
        >>> bool(fnp.isclose(np.nan, np.nan, equal_nan=True))
        True
    """
    a, b = as_operand(a), as_operand(b)
    finite = ew.logical_and(ew.isfinite(a), ew.isfinite(b))
    near = ew.less_equal(ew.abs(ew.subtract(a, b)), ew.add(atol, ew.multiply(rtol, ew.abs(b))))
    out = ew.where(finite, near, ew.equal(a, b))
    if equal_nan:
        out = ew.logical_or(out, ew.logical_and(ew.isnan(a), ew.isnan(b)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """As numpy.allclose: whether every pair of elements is close (isclose).

    Like bool(), it needs concrete values: it is refused under vmap (use
    fnp.all(fnp.isclose(a, b)) for a per-example answer).

    Args:
        a: an array.
        b: an array, broadcast against a.
        rtol: the relative tolerance.
        atol: the absolute tolerance.
        equal_nan: count two NaNs as close.

    Returns:
        A Python bool.

    Raises:
        TypeError: a or b is batched (under vmap).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
        True
    """
    return bool(_all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))
