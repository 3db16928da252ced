"""Functional neural-network helpers (torch.nn.functional's defaults, jax.nn's names where
torch has none), each a composite of library ops, so every one works on plain arrays and under
every transform. Reductions take `axis=-1` by default (as jax.nn; docs/layers.md).

Each is written in a numerically stable form: nothing overflows for inputs around 1e4, and the
unused side of a `where` never produces inf or NaN (so gradients stay finite too).
"""
import functools
import importlib.util

import numpy as np

from .. import numpy as fnp
from ..numpy._logsumexp import logsumexp, max_shift as _max_shift  # noqa: F401 (public here)
from ..numpy._util import xp_of
from ..ops.special import erf
from .._normal_tails import log_sf

_SQRT_HALF = float(np.sqrt(0.5))


def relu(x):
    """Rectified linear unit: max(x, 0), elementwise.

    The derivative at 0 is 0, as jax.nn.relu and torch.relu.

    Args:
        x: an array (or a Python number) of any shape.

    Returns:
        An array of x's shape and dtype.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.relu(np.array([-1.0, 0.0, 2.0]))
        array([0., 0., 2.])
        >>> ft.grad(lambda x: ft.nn.relu(x))(0.0)
        array(0.)
    """
    return fnp.where(fnp.greater(x, 0), x, 0)


def gelu(x, approximate="none"):
    """Gaussian error linear unit x Phi(x), elementwise (Phi: the standard normal CDF), as
    torch.nn.functional.gelu.

    approximate='none' (the default, as PyTorch; False is JAX's spelling) gives the exact
    0.5 x (1 + erf(x / sqrt(2))), by SciPy's erf where SciPy is installed (CuPy arrays:
    cupyx.scipy), else as x Q(-x) from the library's own normal tail (the same values to
    rounding, about ten times slower); approximate='tanh' (True, the default of jax.nn.gelu)
    gives the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), within 1e-3
    of it.

    Args:
        x: an array of any shape; float32 stays float32.
        approximate: 'none' or False (the erf form), 'tanh' or True (the tanh form).

    Returns:
        An array of x's shape and dtype.

    Raises:
        ValueError: approximate is none of 'none', 'tanh', False, True.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> ft.nn.gelu(x).shape
        (3,)
        >>> bool(np.allclose(ft.nn.gelu(x), ft.nn.gelu(x, approximate="tanh"), atol=1e-3))
        True
    """
    if approximate in (False, "none"):
        if xp_of(x) is not np or _scipy_installed():
            return 0.5 * x * (1.0 + erf(x * _SQRT_HALF))
        return x * fnp.exp(log_sf(-x))
    if approximate not in (True, "tanh"):
        raise ValueError(f"gelu: approximate must be 'none', 'tanh', False or True, not "
                         f"{approximate!r}")
    inner = float(np.sqrt(2.0 / np.pi)) * (x + 0.044715 * (x * x * x))  # float: keeps float32
    return 0.5 * x * (1.0 + fnp.tanh(inner))


@functools.lru_cache(maxsize=None)
def _scipy_installed():
    return importlib.util.find_spec("scipy") is not None


def sigmoid(x):
    """Logistic sigmoid 1 / (1 + exp(-x)), elementwise (jax.nn.sigmoid, torch.sigmoid).

    Computed from exp(-|x|) <= 1, so neither branch overflows for large |x| and the gradient
    stays finite.

    Args:
        x: an array (or a Python number) of any shape.

    Returns:
        An array of x's shape, with values in [0, 1].

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.sigmoid(np.array([-1e4, 0.0, 1e4]))
        array([0. , 0.5, 1. ])
    """
    positive = fnp.greater_equal(x, 0)
    z = fnp.exp(fnp.where(positive, -x, x))  # exp(-|x|), with derivative defined at 0
    return fnp.where(positive, 1.0 / (1.0 + z), z / (1.0 + z))


def softplus(x):
    """Softplus log(1 + exp(x)), elementwise (jax.nn.softplus; torch's with beta=1).

    Computed as logaddexp(x, 0), so it neither overflows for large x nor loses precision for
    very negative x.

    Args:
        x: an array (or a Python number) of any shape.

    Returns:
        An array of x's shape, positive.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> bool(np.allclose(ft.nn.softplus(np.array([0.0, 1e4])), [np.log(2.0), 1e4]))
        True
    """
    return fnp.logaddexp(x, 0.0)


def silu(x):
    """Sigmoid linear unit x * sigmoid(x), elementwise (also called swish; jax.nn.silu,
    torch.nn.functional.silu).

    Args:
        x: an array (or a Python number) of any shape.

    Returns:
        An array of x's shape.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.silu(np.array([0.0, 2.0])).shape
        (2,)
        >>> bool(np.allclose(ft.nn.silu(2.0), 2.0 / (1.0 + np.exp(-2.0))))
        True
    """
    return x * sigmoid(x)


def log_softmax(x, axis=-1):
    """Log of the softmax over `axis`: x - logsumexp(x) (jax.nn.log_softmax,
    torch.nn.functional.log_softmax with dim=axis).

    Computed in the max-shifted form, so large logits neither overflow nor lose precision.

    Args:
        x: an array of any shape (at least 1-d).
        axis: the axis normalized over; negative counts from the end.

    Returns:
        An array of x's shape; exp of it sums to 1 along `axis`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> out = ft.nn.log_softmax(np.array([[1e4, 0.0], [1.0, 1.0]]))
        >>> bool(np.allclose(out, [[0.0, -1e4], [-np.log(2), -np.log(2)]]))
        True
    """
    shifted = x - _max_shift(x, axis)
    return shifted - fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    """Softmax exp(x) / sum(exp(x)) over `axis` (jax.nn.softmax,
    torch.nn.functional.softmax with dim=axis).

    Computed in the max-shifted form, so large logits do not overflow.

    Args:
        x: an array of any shape (at least 1-d).
        axis: the axis normalized over; negative counts from the end.

    Returns:
        An array of x's shape, nonnegative, summing to 1 along `axis`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.softmax(np.array([0.0, 0.0, 0.0, 0.0]))
        array([0.25, 0.25, 0.25, 0.25])
        >>> bool(np.allclose(ft.nn.softmax(np.array([[1e4, 0.0]]), axis=1), [[1.0, 0.0]]))
        True
    """
    e = fnp.exp(x - _max_shift(x, axis))
    return e / fnp.sum(e, axis=axis, keepdims=True)


def one_hot(labels, num_classes, dtype=np.float64, axis=-1):
    """Integer labels to one-hot vectors along a new `axis` (jax.nn.one_hot).

    A label outside 0..num_classes-1 gives a vector of zeros, as in JAX (cross_entropy refuses
    such labels). The result is a constant: it has no gradient with respect to the labels.

    Args:
        labels: an integer array of any shape.
        num_classes: the length of each one-hot vector.
        dtype: the result's dtype (default float64).
        axis: where the new class axis goes in the result (default: last).

    Returns:
        An array of shape labels.shape with num_classes inserted at `axis`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.one_hot(np.array([0, 2, 5]), 3)
        array([[1., 0., 0.],
               [0., 0., 1.],
               [0., 0., 0.]])
        >>> ft.nn.one_hot(np.array([0, 2]), 3, axis=0).shape
        (3, 2)
    """
    classes = fnp.arange(num_classes, like=labels)  # on the labels' device (numpy or cupy)
    hot = fnp.equal(fnp.expand_dims(labels, -1), classes)
    if axis not in (-1, fnp.ndim(hot) - 1):
        hot = fnp.moveaxis(hot, -1, axis)
    return fnp.astype(hot, dtype)


__all__ = ["relu", "gelu", "sigmoid", "softplus", "silu", "softmax", "log_softmax", "logsumexp",
           "one_hot"]
