"""scipy.special's functions (as jax.scipy.special). erf, erfc, erfinv, gammaln, digamma,
polygamma, ndtri, gammainc, gammaincc and betainc are primitives with SciPy kernels; the others
compose library ops in their
numerically stable forms (expit and softmax never overflow, logsumexp is shifted by the max,
xlogy is 0 where x is 0 with a finite derivative there).
"""
import math

import numpy as np

from .. import numpy as fnp, nn
from ..numpy._util import as_operand, ndim
from ..ops.elementwise import stop_gradient
from ..ops.bessel import i0, i0e, i1e  # noqa: F401
from ..ops.special import digamma, erf, erfc, erfinv, gammaln, ndtri, polygamma as _polygamma
from ..ops.special import gamma, log_ndtr  # noqa: F401
from ..ops.special import betainc, gammainc, gammaincc  # noqa: F401
from ._weak import in_dtype_of, weak

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma", "expit", "logit",
           "logsumexp", "xlogy", "xlog1py", "softmax", "log_softmax", "ndtr", "ndtri",
           "gamma", "betaln", "log_ndtr", "i0", "i0e", "i1e", "entr", "gammainc", "gammaincc",
           "betainc"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__


_SQRT_HALF = math.sqrt(0.5)


def polygamma(n, x):
    """The n-th derivative of digamma at x.

    As scipy.special.polygamma, except that n is a static parameter: one non-negative integer
    known before the call, the same for every entry of x. polygamma(0, x) is digamma(x), and the
    derivative in x of polygamma(n, x) is polygamma(n + 1, x).

    Args:
        n: the order, a Python int or a 0-d integer NumPy array, >= 0.
        x: real array (or scalar).

    Returns:
        An array of x's shape and float dtype.

    Raises:
        TypeError: `n` is not a non-negative integer known before the call (a bool, a float, a
            negative int, or an array of more than one entry).
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> from functorch_lite.scipy import special
        >>> bool(np.allclose(special.polygamma(1, 1.0), np.pi ** 2 / 6))
        True
        >>> bool(np.allclose(ft.grad(special.digamma)(2.0), special.polygamma(1, 2.0)))
        True
    """
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n.item()
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise TypeError("functorch_lite.scipy.special.polygamma: n must be a non-negative "
                        f"integer known before the call (a Python int), got {n!r}")
    return _polygamma(as_operand(x), n=int(n))


def expit(x):
    """The logistic sigmoid 1 / (1 + exp(-x)), stable for large |x| (nn.sigmoid).

    As scipy.special.expit: never overflows, and saturates to exactly 0 or 1 far in the tails.

    Args:
        x: real array (or scalar).

    Returns:
        An array of x's shape, in [0, 1].

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> special.expit(np.array([-1000.0, 0.0, 1000.0]))
        array([0. , 0.5, 1. ])
    """
    return nn.sigmoid(as_operand(x))


def logit(p):
    """log(p / (1 - p)), the inverse of expit.

    As scipy.special.logit, computed as log(p) - log1p(-p): -inf at 0, inf at 1, NaN outside
    [0, 1].

    Args:
        p: probabilities, a real array (or scalar).

    Returns:
        An array of p's shape.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> p = np.array([0.1, 0.5, 0.9])
        >>> bool(np.allclose(special.expit(special.logit(p)), p))
        True
    """
    p = as_operand(p)
    return fnp.log(p) - fnp.log1p(-p)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over axis (all axes when None), shifted by the max.

    As scipy.special.logsumexp. The max is a constant to every transform (its gradient cancels
    exactly), and an infinite max is replaced by 0 so that all -inf inputs give -inf, not NaN.

    Args:
        a: real array.
        axis: int or tuple of ints to reduce over; None (the default) reduces every axis.
        b: optional weights broadcast against `a`; may be negative when `return_sign`.
        keepdims: keep the reduced axes with size 1.
        return_sign: return (log|s|, sign(s)) for s = sum(b * exp(a)), as SciPy.

    Returns:
        The reduced array, or the pair (log|s|, sign(s)) when `return_sign`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> from functorch_lite.scipy import special
        >>> a = np.array([1000.0, 1000.0])
        >>> bool(np.allclose(special.logsumexp(a), 1000.0 + np.log(2.0)))
        True
        >>> ft.grad(special.logsumexp)(a)                 # the softmax of a
        array([0.5, 0.5])
        >>> out, sign = special.logsumexp(np.zeros(2), b=np.array([1.0, -2.0]), return_sign=True)
        >>> float(out), float(sign)                       # log|1 - 2| and its sign
        (0.0, -1.0)
    """
    a = as_operand(a)
    if b is None and not return_sign:
        return nn.logsumexp(a, axis=_all_axes(a, axis), keepdims=keepdims)
    axes = _all_axes(a, axis)
    shift = fnp.max(stop_gradient(a), axis=axes, keepdims=True)
    shift = fnp.where(fnp.isfinite(shift), shift, 0)
    e = fnp.exp(a - shift)
    s = fnp.sum(e if b is None else as_operand(b) * e, axis=axes, keepdims=True)
    out = (fnp.log(fnp.abs(s)) if return_sign else fnp.log(s)) + shift
    if not keepdims:
        out, s = fnp.squeeze(out, axis=axes), fnp.squeeze(s, axis=axes)
    return (out, fnp.sign(s)) if return_sign else out


def _all_axes(a, axis):
    return tuple(range(ndim(a))) if axis is None else axis


def xlogy(x, y):
    """x * log(y), and 0 where x == 0 even if y <= 0.

    As scipy.special.xlogy. Where x == 0 and y > 0 the product itself is 0 and its derivative
    in x is log(y), as the limit says; where x == 0 and y <= 0, y is replaced by 1 so that
    neither value nor derivative is NaN. x and y broadcast.

    Args:
        x: real array (or scalar).
        y: real array (or scalar).

    Returns:
        An array of the broadcast shape of x and y.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> from functorch_lite.scipy import special
        >>> special.xlogy(np.array([0.0, 2.0]), np.array([0.0, 1.0]))
        array([0., 0.])
        >>> float(ft.grad(special.xlogy)(0.0, 1.0))
        0.0
    """
    x, y = as_operand(x), as_operand(y)
    y = in_dtype_of(y, x)                      # a Python y stays weak
    bad = fnp.logical_and(fnp.equal(x, 0), fnp.logical_not(fnp.greater(y, 0)))
    return x * fnp.log(fnp.where(bad, 1.0, y))


def xlog1py(x, y):
    """x * log1p(y), and 0 where x == 0 even if y <= -1 (as xlogy).

    As scipy.special.xlog1py: where x == 0 and y <= -1, y is replaced by 0 so that neither the
    value nor its derivatives are NaN. x and y broadcast.

    Args:
        x: real array (or scalar).
        y: real array (or scalar).

    Returns:
        An array of the broadcast shape of x and y.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> special.xlog1py(np.array([0.0, 1.0]), np.array([-1.0, 0.0]))
        array([0., 0.])
    """
    x, y = as_operand(x), as_operand(y)
    y = in_dtype_of(y, x)
    bad = fnp.logical_and(fnp.equal(x, 0), fnp.logical_not(fnp.greater(y, -1)))
    return x * fnp.log1p(fnp.where(bad, 0.0, y))


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over axis (all axes when None, as SciPy), shifted by the max.

    As scipy.special.softmax: with axis None (the default) the whole array is normalised, unlike
    nn.softmax, whose default is the last axis.

    Args:
        x: real array.
        axis: int or tuple of ints to normalise over; None (the default) means every axis.

    Returns:
        An array of x's shape, nonnegative, summing to 1 over `axis`.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> special.softmax(np.array([[1000.0, 1000.0], [1000.0, 1000.0]]))
        array([[0.25, 0.25],
               [0.25, 0.25]])
    """
    x = as_operand(x)
    return nn.softmax(x, axis=_all_axes(x, axis))


def log_softmax(x, axis=None):
    """x - logsumexp(x) over axis (all axes when None, as SciPy).

    As scipy.special.log_softmax: with axis None (the default) the whole array is normalised.

    Args:
        x: real array.
        axis: int or tuple of ints to normalise over; None (the default) means every axis.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> bool(np.allclose(special.log_softmax(x, axis=1), np.log(special.softmax(x, axis=1))))
        True
    """
    x = as_operand(x)
    return nn.log_softmax(x, axis=_all_axes(x, axis))


def ndtr(x):
    """The standard normal CDF, 0.5 * erfc(-x / sqrt(2)): accurate in the lower tail.

    As scipy.special.ndtr; its derivative is the standard normal density.

    Args:
        x: real array (or scalar).

    Returns:
        An array of x's shape and float dtype, in [0, 1].

    Raises:
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> bool(np.allclose(special.ndtr(np.array([0.0, 1.96])), [0.5, 0.9750021]))
        True
        >>> bool(special.ndtr(-30.0) > 0)
        True
    """
    return 0.5 * erfc(fnp.multiply(as_operand(x), -_SQRT_HALF))


def betaln(a, b):
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), as scipy.special.betaln.

    Args:
        a: real array (or scalar), broadcast against b.
        b: real array (or scalar).

    Returns:
        An array of the broadcast shape.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> bool(np.isclose(special.betaln(2.0, 3.0), np.log(1 / 12)))
        True
    """
    a, b = as_operand(a), as_operand(b)
    return weak(gammaln, a) + weak(gammaln, b) - gammaln(a + b)   # a Python number stays weak


def entr(x):
    """-x log(x) for x > 0, 0 at 0 and -inf for x < 0, as scipy.special.entr (through xlogy,
    so the value at 0 has no NaN derivative).

    Args:
        x: real array (or scalar).

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy import special
        >>> special.entr(np.array([1.0, -1.0])) + 0.0
        array([  0., -inf])
    """
    x = as_operand(x)
    negative = fnp.less(x, 0)
    safe = fnp.where(negative, 1.0, x)
    return fnp.where(negative, -np.inf, -xlogy(safe, safe))
