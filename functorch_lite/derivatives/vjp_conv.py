"""vjp rules of the convolution and sliding-window ops.

The three convolution ops are the bilinear map conv(x, w) and its two adjoints, so each one's
cotangents are the other two (the gradient of a convolution is a convolution):

  y = conv(x, w)               x_bar = conv_transpose(y_bar, w)  w_bar = conv_weight_grad(x, y_bar)
  x = conv_transpose(g, w)     g_bar = conv(x_bar, w)            w_bar = conv_weight_grad(x_bar, g)
  w = conv_weight_grad(x, g)   x_bar = conv_transpose(g, w_bar)  g_bar = conv(x, w_bar)

sliding_window and sliding_window_sum are each other's adjoints; correlate's and convolve's
adjoints are correlations.
"""
from .. import numpy as fnp
from ..numpy._signal import conj
from ..ops import conv as cv
from .vjp_helpers import defvjp, shape_of


def _params(p):
    return {k: p[k] for k in ("stride", "padding", "dilation", "groups")}


def _spatial(x):
    return tuple(shape_of(x)[2:])


defvjp(cv.conv,
       lambda g, out, x, w, **p: cv.conv_transpose(g, w, input_shape=_spatial(x), **p),
       lambda g, out, x, w, **p: cv.conv_weight_grad(x, g, kernel_shape=_spatial(w), **p))
def _conv_sizes(x, w, stride, padding, dilation):
    """The spatial sizes of conv(x, w)."""
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1 for n, (lo, hi), s, d, k in
                 zip(_spatial(x), padding, stride, dilation, _spatial(w)))


def _conv_transpose_g(ct, out, g, w, **p):
    """conv(ct, w), cut to g's sizes: an output_padding of at least the stride (allowed below
    the dilation, as PyTorch) gives conv_transpose an output whose conv has extra positions,
    which no entry of g reaches."""
    g_bar = cv.conv(ct, w, **_params(p))
    sizes = _spatial(g)
    if _spatial(g_bar) == sizes:
        return g_bar
    return g_bar[(slice(None), slice(None)) + tuple(slice(0, n) for n in sizes)]


def _conv_transpose_w(ct, out, g, w, **p):
    """conv_weight_grad(ct, g), g padded with zeros to the sizes of conv(ct, w) (see
    _conv_transpose_g)."""
    extra = [m - n for m, n in zip(_conv_sizes(ct, w, p["stride"], p["padding"], p["dilation"]),
                                   _spatial(g))]
    if any(extra):
        g = fnp.pad(g, [(0, 0), (0, 0)] + [(0, e) for e in extra])
    return cv.conv_weight_grad(ct, g, kernel_shape=_spatial(w), **_params(p))


defvjp(cv.conv_transpose, _conv_transpose_g, _conv_transpose_w)
defvjp(cv.conv_weight_grad,
       lambda ct, out, x, g, **p: cv.conv_transpose(g, ct, input_shape=_spatial(x),
                                                    **_params(p)),
       lambda ct, out, x, g, **p: cv.conv(x, ct, **_params(p)))
defvjp(cv.sliding_window,
       lambda ct, out, x, **p: cv.sliding_window_sum(ct, shape=shape_of(x), **p))
defvjp(cv.sliding_window_sum,
       lambda ct, out, g, shape, **p: cv.sliding_window(ct, **p))


def _full_cotangent(ct, n, m, mode):
    """ct in the full output of a long a (n) and a short kernel (m): zeros where `mode` cut."""
    start = {"full": 0, "same": m - 1 - m // 2, "valid": m - 1}[mode]
    return fnp.pad(ct, (start, n + m - 1 - start - shape_of(ct)[-1]))


def _correlate_vjp(ct, primals, out, mode="valid"):
    """With g the full cotangent and C(x, z)[k] = sum_j x[k + j] z[j] (correlate(x, conj(z))),
    out = C_mode(a, conj(v)) gives ā = C(g, flip(conj(conj(v)))) = correlate(g, flip(v)) and
    the cotangent of conj(v), flip(C(g, a)), so v̄ = conj(flip(correlate(g, conj(a)))) (JAX's
    convention: conj's cotangent is conj of the cotangent). A longer v is swapped first, as
    NumPy does: correlate(a, v) = flip(conj(correlate(v, a)))."""
    a, v = primals
    n, m = shape_of(a)[-1], shape_of(v)[-1]
    if m > n:
        v_bar, a_bar = _correlate_vjp(conj(fnp.flip(ct)), (v, a), None, mode)
        return a_bar, v_bar
    g = _full_cotangent(ct, n, m, mode)
    return (cv.correlate(g, fnp.flip(v), mode="valid"),
            conj(fnp.flip(cv.correlate(g, conj(a), mode="valid"))))


def _convolve_vjp(ct, primals, out, mode="full"):
    """out = C_mode(a, flip(v)): ā = C(g, v) = correlate(g, conj(v)), v̄ = C(g, a) (see
    _correlate_vjp); a longer v is swapped first, as NumPy does."""
    a, v = primals
    n, m = shape_of(a)[-1], shape_of(v)[-1]
    if m > n:
        return _convolve_vjp(ct, (v, a), None, mode)[::-1]
    g = _full_cotangent(ct, n, m, mode)
    return cv.correlate(g, conj(v), mode="valid"), cv.correlate(g, conj(a), mode="valid")


cv.correlate.def_vjp(_correlate_vjp)
cv.convolve.def_vjp(_convolve_vjp)
