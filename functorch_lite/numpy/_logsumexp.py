"""log(sum(exp(x))) shifted by the maximum: ft.nn.logsumexp, and what NumPy's logaddexp.reduce
and .accumulate become on wrappers (_ufunc_methods.py). It lives in the namespace so that both
use it; ft.nn (softmax, cross entropy, attention) takes the shift from here too."""
from ..ops.elementwise import exp, isfinite, log, stop_gradient
from . import _reductions as red
from ._elementwise import where
from ._shape import squeeze


def max_shift(x, axis):
    """max over axis (keepdims), replaced by 0 where it is not finite (all -inf rows).

    The functions that use it do not depend on the shift mathematically (it cancels), so it is a
    constant to every transform (stop_gradient): no derivative of max or where is computed,
    at any order, and the ops run below the transforms' levels."""
    m = red.max(stop_gradient(x), axis=axis, keepdims=True)
    return where(isfinite(m), m, 0)


def logsumexp(x, axis=-1, keepdims=False):
    """log(sum(exp(x))) over `axis` (jax.nn.logsumexp, torch.logsumexp).

    Shifted by the maximum so that it cannot overflow; a slice that is all -inf gives -inf.
    The shift is a constant to every transform, so the gradient is softmax(x).

    Args:
        x: an array of any shape (at least 1-d).
        axis: the axis (or tuple of axes) to reduce; negative counts from the end.
        keepdims: keep the reduced axes with size 1.

    Returns:
        x's shape without `axis` (with it as size 1 when keepdims=True).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.array([[1000.0, 1000.0], [0.0, 0.0]])
        >>> bool(np.allclose(ft.nn.logsumexp(x), [1000.0 + np.log(2), np.log(2)]))
        True
        >>> ft.nn.logsumexp(x, axis=0, keepdims=True).shape
        (1, 2)
    """
    m = max_shift(x, axis)
    out = log(red.sum(exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else squeeze(out, axis=axis)
