"""numpy.lib.stride_tricks.sliding_window_view as a transformable op: the windows are a
read-only strided view (no copy) on plain arrays, with batching, jvp and vjp rules, so a
convolution written in plain NumPy over windows can be vmapped and differentiated."""
import numpy as np

from ...ops import conv as cv
from .._util import as_operand, ndim, normalize_axis, shape

__all__ = ["sliding_window_view"]


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """As numpy.lib.stride_tricks.sliding_window_view: every window of `window_shape` along
    `axis` (all axes when None), the window dims appended last."""
    if writeable:
        raise ValueError("sliding_window_view(writeable=True) would allow writes in place; "
                         "transforms are functional")
    x = as_operand(x)
    window = (int(window_shape),) if np.ndim(window_shape) == 0 else \
        tuple(int(w) for w in window_shape)
    nd = ndim(x)
    if axis is None:
        if len(window) != nd:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all "
                             f"dimensions of `x`; got {len(window)} window_shape elements and "
                             f"`x.ndim` is {nd}.")
        axes = tuple(range(nd))
    else:
        axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = tuple(normalize_axis(a, nd) for a in axes)
        if len(axes) != len(window):
            raise ValueError(f"Must provide matching length window_shape and axis; got "
                             f"{len(window)} window_shape elements and {len(axes)} axes "
                             f"elements.")
    if len(set(axes)) != len(axes):
        raise NotImplementedError("sliding_window_view with a repeated axis is not supported "
                                  "under functorch_lite; take the windows in two calls")
    if any(w < 0 for w in window):
        raise ValueError("`window_shape` cannot contain negative values")
    s = shape(x)
    if any(s[a] < w for a, w in zip(axes, window)):
        raise ValueError("window shape cannot be larger than input array shape")
    ones = (1,) * len(axes)
    return cv.sliding_window(x, axes=axes, window=window, stride=ones, dilation=ones)
