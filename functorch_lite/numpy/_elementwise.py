"""Elementwise functions that are composites of primitives."""
import numpy as np

from ..ops import elementwise as ew
from ._indexing import on_device_of
from ._util import dtype_of, reject, is_wrapper


def float_power(x1, x2):
    """As numpy.float_power: x1 ** x2 computed in float64 (complex128 for complex inputs).

    Args:
        x1, x2: array_like, broadcast against each other; the base and the exponent.

    Returns:
        A float64 (or complex128) array of the broadcast shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.float_power(np.array([2, 3]), np.array([3, -1]))
        array([8.        , 0.33333333])
    """
    def widen(x):
        if not (is_wrapper(x) or hasattr(x, "dtype")):
            return x
        target = np.complex128 if dtype_of(x).kind == "c" else np.float64
        return ew.astype(x, dtype=target) if dtype_of(x) != target else x
    return ew.power(widen(x1), widen(x2))


def clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
         max=np._NoValue):
    """As numpy.clip: `a` clamped into [a_min, a_max].

    The composite minimum(maximum(a, a_min), a_max); either bound may be None.

    Args:
        a: an array (or a value under a transform).
        a_min: the lower bound (array or scalar, broadcast), or None.
        a_max: the upper bound (array or scalar, broadcast), or None.
        out: not supported.
        min: the NumPy 2 name of a_min.
        max: the NumPy 2 name of a_max.

    Returns:
        An array of the broadcast shape.

    Raises:
        TypeError: out= is given.
        ValueError: both bounds are None or missing.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.clip(np.array([-2, 0, 5]), 0, 3)
        array([0, 0, 3])
    """
    reject("clip", out=out)
    lo = a_min if a_min is not np._NoValue else min
    hi = a_max if a_max is not np._NoValue else max
    lo = None if lo is np._NoValue else lo
    hi = None if hi is np._NoValue else hi
    if lo is None and hi is None:
        raise ValueError("One of max or min must be given")
    x = a
    if lo is not None:
        x = ew.maximum(x, lo)
    if hi is not None:
        x = ew.minimum(x, hi)
    return x


def where(condition, x=None, y=None):
    """As numpy.where: x where condition is true, else y, elementwise.

    Differentiable in x and y. With the condition alone it is nonzero(condition).

    Args:
        condition: a boolean array.
        x: values where condition holds.
        y: values elsewhere.

    Returns:
        An array of the broadcast shape, or a tuple of index arrays with condition alone.

    Raises:
        ValueError: only one of x and y is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.where(np.array([True, False]), np.array([1, 2]), np.array([10, 20]))
        array([ 1, 20])
    """
    if x is None and y is None:
        from ._indexing import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return ew.where(on_device_of(condition, x, y), x, y)


def round(a, decimals=0, out=None):
    """As numpy.round: `a` rounded to `decimals` places, halves to even.

    Piecewise constant: its derivative is zero under every transform.

    Args:
        a: the array.
        decimals: number of decimal places (negative rounds to tens, hundreds...).
        out: not supported.

    Returns:
        An array of a's shape and dtype.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.round(np.array([0.5, 1.5, 2.25]), 1)
        array([0.5, 1.5, 2.2])
    """
    reject("round", out=out)
    return ew.round(a, decimals=decimals)


def astype(x, dtype, /, *, copy=True):
    """As numpy.astype: `x` cast to `dtype`.

    A cast between floating dtypes is differentiable; a cast to an integer or bool dtype has
    no derivative.

    Args:
        x: an array (or a value under a transform).
        dtype: the target dtype.
        copy: accepted for NumPy compatibility; ignored.

    Returns:
        An array of x's shape with dtype `dtype`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.astype(np.array([1.7, -2.2]), np.int64)
        array([ 1, -2])
    """
    return ew.astype(x, dtype=np.dtype(dtype))


true_divide = ew.divide
mod = ew.remainder
absolute = ew.abs
conjugate = ew.conj
around = round


def angle(z, deg=False):
    """As numpy.angle: the argument of complex z, in (-pi, pi].

    The composite arctan2(imag z, real z), so its derivative Im(conj(z) dz) / |z|^2 comes from
    the rules.

    Args:
        z: an array (or a value under a transform).
        deg: return degrees instead of radians.

    Returns:
        A real array of z's shape.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.angle(np.array([1j, -1]), deg=True)
        array([ 90., 180.])
    """
    a = ew.arctan2(ew.imag(z), ew.real(z))
    return ew.multiply(a, 180.0 / np.pi) if deg else a
