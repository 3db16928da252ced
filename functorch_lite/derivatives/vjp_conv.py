"""vjp rules of the convolution and sliding-window ops.

The three convolution ops are the bilinear map conv(x, w) and its two adjoints, so each one's
cotangents are the other two (the gradient of a convolution is a convolution):

  y = conv(x, w)               x_bar = conv_transpose(y_bar, w)  w_bar = conv_weight_grad(x, y_bar)
  x = conv_transpose(g, w)     g_bar = conv(x_bar, w)            w_bar = conv_weight_grad(x_bar, g)
  w = conv_weight_grad(x, g)   x_bar = conv_transpose(g, w_bar)  g_bar = conv(x, w_bar)

sliding_window and sliding_window_sum are each other's adjoints.
"""
from ..ops import conv as cv
from .vjp_helpers import defvjp, shape_of


def _params(p):
    return {k: p[k] for k in ("stride", "padding", "dilation", "groups")}


def _spatial(x):
    return tuple(shape_of(x)[2:])


defvjp(cv.conv,
       lambda g, out, x, w, **p: cv.conv_transpose(g, w, input_shape=_spatial(x), **p),
       lambda g, out, x, w, **p: cv.conv_weight_grad(x, g, kernel_shape=_spatial(w), **p))
defvjp(cv.conv_transpose,
       lambda ct, out, g, w, **p: cv.conv(ct, w, **_params(p)),
       lambda ct, out, g, w, **p: cv.conv_weight_grad(ct, g, kernel_shape=_spatial(w),
                                                      **_params(p)))
defvjp(cv.conv_weight_grad,
       lambda ct, out, x, g, **p: cv.conv_transpose(g, ct, input_shape=_spatial(x),
                                                    **_params(p)),
       lambda ct, out, x, g, **p: cv.conv(x, ct, **_params(p)))
defvjp(cv.sliding_window,
       lambda ct, out, x, **p: cv.sliding_window_sum(ct, shape=shape_of(x), **p))
defvjp(cv.sliding_window_sum,
       lambda ct, out, g, shape, **p: cv.sliding_window(ct, **p))
