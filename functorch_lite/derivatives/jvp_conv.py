"""jvp rules of the convolution and sliding-window ops: conv, conv_transpose and
conv_weight_grad are bilinear (the product rule), and so are correlate (conj(v) is real-linear
in v) and convolve; the window ops are linear."""
from ..ops import conv as cv
from .jvp_helpers import def_linear, def_multilinear

for _op in (cv.conv, cv.conv_transpose, cv.conv_weight_grad, cv.correlate, cv.convolve):
    def_multilinear(_op)
for _op in (cv.sliding_window, cv.sliding_window_sum):
    def_linear(_op)
