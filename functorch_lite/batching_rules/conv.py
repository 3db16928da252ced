"""Batching rules of the convolution and sliding-window ops: never a loop over the batch.

- A batch of inputs only (the common case: shared weights) folds into N: one convolution.
- A batch of weights meets its inputs as one grouped convolution: the batch joins the channel
  dim (x (B, N, C, ...) -> (N, B*C, ...), w (B, O, ...) -> (B*O, ...)) and `groups` is
  multiplied by B, so the kernel is one batched GEMM over B * groups. The per-example weight
  gradient of vmap(grad(loss)) is conv_weight_grad with both operands batched: one batched
  product of the unfolded inputs and the output cotangents.
- The unbatched operand of a grouped case is broadcast to the batch (a view).
"""
from .. import numpy as fnp
from ..ops import conv as cv, shape as sh
from ..numpy._signal import conj, windowed
from ..numpy._util import ndim, shape as shape_of
from .fallback import empty_batch
from .helpers import batch_size, broadcast_batch, move_bdim, move_bdim_to_front, physical_axis


def _fold_front(x, bdim):
    """(B, N, ...) at any bdim -> (B * N, ...)."""
    x = move_bdim_to_front(x, bdim)
    s = shape_of(x)
    return sh.reshape(x, shape=(s[0] * s[1],) + tuple(s[2:]))


def _unfold_front(y, size):
    s = shape_of(y)
    return sh.reshape(y, shape=(size, s[0] // size) + tuple(s[1:]))


def _into_channels(x, bdim, size):
    """x with batch dim `bdim` (or unbatched) -> (N, B * C, ...), batch-major channels."""
    x = broadcast_batch(x, bdim, size, dest=1)
    s = shape_of(x)
    return sh.reshape(x, shape=(s[0], s[1] * s[2]) + tuple(s[3:]))


def _weights_into_channels(w, bdim, size):
    """(B, O, ...) -> (B * O, ...)."""
    return _fold_front(broadcast_batch(w, bdim, size, dest=0), 0)


def _split_channels(y, size):
    """(N, B * C, ...) -> (N, B, C, ...): the batch dim at 1."""
    s = shape_of(y)
    return sh.reshape(y, shape=(s[0], size, s[1] // size) + tuple(s[2:]))


@cv.conv.def_batch_rule
def conv_batch_rule(args, bdims, stride, padding, dilation, groups):
    (x, w), (xb, wb) = args, bdims
    size = batch_size(args, bdims)
    if size == 0:  # the grouped forms below divide by the batch size
        return empty_batch(cv.conv, args, bdims, dict(stride=stride, padding=padding, dilation=dilation, groups=groups))
    params = dict(stride=stride, padding=padding, dilation=dilation)
    if wb is None:
        return _unfold_front(cv.conv(_fold_front(x, xb), w, groups=groups, **params), size), 0
    if xb is None and groups == 1:    # the weight batch is more output channels
        out = cv.conv(x, _weights_into_channels(w, wb, size), groups=1, **params)
        return _split_channels(out, size), 1
    out = cv.conv(_into_channels(x, xb, size), _weights_into_channels(w, wb, size),
                  groups=groups * size, **params)
    return _split_channels(out, size), 1


@cv.conv_transpose.def_batch_rule
def conv_transpose_batch_rule(args, bdims, input_shape, stride, padding, dilation, groups):
    (g, w), (gb, wb) = args, bdims
    size = batch_size(args, bdims)
    if size == 0:  # the grouped forms below divide by the batch size
        return empty_batch(cv.conv_transpose, args, bdims, dict(input_shape=input_shape, stride=stride, padding=padding, dilation=dilation,
                           groups=groups))
    params = dict(input_shape=input_shape, stride=stride, padding=padding, dilation=dilation)
    if wb is None:
        out = cv.conv_transpose(_fold_front(g, gb), w, groups=groups, **params)
        return _unfold_front(out, size), 0
    out = cv.conv_transpose(_into_channels(g, gb, size), _weights_into_channels(w, wb, size),
                            groups=groups * size, **params)
    return _split_channels(out, size), 1


@cv.conv_weight_grad.def_batch_rule
def conv_weight_grad_batch_rule(args, bdims, kernel_shape, stride, padding, dilation, groups):
    (x, g), (xb, gb) = args, bdims
    size = batch_size(args, bdims)
    if size == 0:  # the grouped forms below divide by the batch size
        return empty_batch(cv.conv_weight_grad, args, bdims, dict(kernel_shape=kernel_shape, stride=stride, padding=padding,
                           dilation=dilation, groups=groups))
    out = cv.conv_weight_grad(_into_channels(x, xb, size), _into_channels(g, gb, size),
                              kernel_shape=kernel_shape, stride=stride, padding=padding,
                              dilation=dilation, groups=groups * size)
    return _unfold_front(out, size), 0


@cv.sliding_window.def_batch_rule
def sliding_window_batch_rule(args, bdims, axes, window, stride, dilation):
    """The window dims are appended last, so the batch dim keeps its place."""
    x, bdim = args[0], bdims[0]
    phys = tuple(physical_axis(a, bdim) for a in axes)
    return cv.sliding_window(x, axes=phys, window=window, stride=stride,
                             dilation=dilation), bdim


@cv.sliding_window_sum.def_batch_rule
def sliding_window_sum_batch_rule(args, bdims, shape, axes, window, stride, dilation):
    ct, bdim = args[0], bdims[0]
    if bdim >= ndim(ct) - len(window):      # among the window dims: move it first
        ct, bdim = move_bdim(ct, bdim, 0), 0
    size = ct.shape[bdim]
    phys = tuple(physical_axis(a, bdim) for a in axes)
    full = tuple(shape[:bdim]) + (size,) + tuple(shape[bdim:])
    return cv.sliding_window_sum(ct, shape=full, axes=phys, window=window, stride=stride,
                                 dilation=dilation), bdim


def _signal_batch_rule(conjugate):
    """correlate's (conjugate) or convolve's rule: NumPy's kernels take 1-d arrays only, so the
    batch is one gather of sliding windows and one matrix product (numpy._signal.windowed),
    after NumPy's own swap of the shorter sequence into the kernel."""
    def rule(args, bdims, mode):
        (a, v), (ab, vb) = args, bdims
        a = a if ab is None else move_bdim_to_front(a, ab)
        v = v if vb is None else move_bdim_to_front(v, vb)
        n, m = shape_of(a)[-1], shape_of(v)[-1]
        if not conjugate:
            if m > n:
                a, v = v, a
            return windowed(a, fnp.flip(v, -1), mode), 0
        if m > n:     # correlate(a, v) = flip(conj(correlate(v, a))), as NumPy swaps them
            return fnp.flip(conj(windowed(v, conj(a), mode)), -1), 0
        return windowed(a, conj(v), mode), 0
    return rule


cv.correlate.def_batch_rule(_signal_batch_rule(True))
cv.convolve.def_batch_rule(_signal_batch_rule(False))
