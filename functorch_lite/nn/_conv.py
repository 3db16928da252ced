"""Convolutions with torch.nn.functional's layouts and argument names: input (N, C, *S) or one
unbatched example (C, *S), weight (O, C / groups, *K), optional bias (O,); `stride`, `padding`
(an int, a tuple, 'valid' or 'same'), `dilation`, `groups`. As PyTorch, these compute a
cross-correlation (the kernel is not flipped).

Each is one primitive (functorch_lite.ops.conv) with batching, jvp and vjp rules, so it runs as
one grouped matrix product under vmap and differentiates to convolutions.
"""
from .. import numpy as fnp
from ..numpy._util import shape
from ..ops import conv as cv

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def as_tuple(value, nd, name):
    """An int or a sequence of nd ints as a tuple of nd ints."""
    if isinstance(value, int):
        return (value,) * nd
    value = tuple(value)
    if len(value) != nd or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{name} must be an int or {nd} ints, got {value!r}")
    return value


def conv_padding(padding, nd, kernel, stride, dilation):
    """(before, after) pairs for an int, a tuple, 'valid' or 'same' (as PyTorch: an odd total
    puts the extra element after)."""
    if padding == "valid":
        return ((0, 0),) * nd
    if padding == "same":
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions "
                             f"(stride {stride}), as in PyTorch")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    if isinstance(padding, str):
        raise ValueError(f"padding must be an int, a tuple, 'valid' or 'same', got {padding!r}")
    return tuple((p, p) for p in as_tuple(padding, nd, "padding"))


def with_batch_axis(input, nd, fn_name):
    """(input as (N, C, *S), whether it was one unbatched example)."""
    rank = len(shape(input))
    if rank == nd + 1:
        return fnp.expand_dims(input, 0), True
    if rank != nd + 2:
        raise ValueError(f"{fn_name}: input must have shape (N, C, {nd} spatial dims) or "
                         f"(C, {nd} spatial dims), got shape {shape(input)}")
    return input, False


def _add_bias(out, bias, nd):
    if bias is None:
        return out
    return out + fnp.reshape(bias, (shape(bias)[0],) + (1,) * nd)


def _check_channels(fn_name, channels, expected, divided, weight_shape, groups):
    """The input's channels match the weight's, and `divided` channels split into groups."""
    if groups < 1 or divided % groups:
        raise ValueError(f"{fn_name}: groups={groups} must be a positive divisor of the "
                         f"weight's {divided} channels (weight shape {weight_shape})")
    if channels != expected:
        raise ValueError(f"{fn_name}: input has {channels} channels, but weight of shape "
                         f"{weight_shape} with groups={groups} expects {expected}")


def _conv(nd, fn_name, input, weight, bias, stride, padding, dilation, groups):
    x, unbatched = with_batch_axis(input, nd, fn_name)
    w_shape = shape(weight)
    if len(w_shape) != nd + 2:
        raise ValueError(f"{fn_name}: weight must have shape (out channels, in channels / "
                         f"groups, {nd} kernel dims), got shape {w_shape}")
    _check_channels(fn_name, shape(x)[1], w_shape[1] * groups, w_shape[0], w_shape, groups)
    stride = as_tuple(stride, nd, "stride")
    dilation = as_tuple(dilation, nd, "dilation")
    pads = conv_padding(padding, nd, w_shape[2:], stride, dilation)
    out = cv.conv(x, weight, stride=stride, padding=pads, dilation=dilation, groups=groups)
    out = _add_bias(out, bias, nd)
    return out[0] if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution, as torch.nn.functional.conv1d: input (N, C, L) or (C, L), weight
    (O, C / groups, K)."""
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution, as torch.nn.functional.conv2d: input (N, C, H, W) or (C, H, W), weight
    (O, C / groups, kh, kw)."""
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(nd, fn_name, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    x, unbatched = with_batch_axis(input, nd, fn_name)
    w_shape = shape(weight)
    if len(w_shape) != nd + 2:
        raise ValueError(f"{fn_name}: weight must have shape (in channels, out channels / "
                         f"groups, {nd} kernel dims), got shape {w_shape}")
    _check_channels(fn_name, shape(x)[1], w_shape[0], w_shape[0], w_shape, groups)
    stride = as_tuple(stride, nd, "stride")
    dilation = as_tuple(dilation, nd, "dilation")
    output_padding = as_tuple(output_padding, nd, "output_padding")
    if any(op >= s for op, s in zip(output_padding, stride)):
        raise ValueError(f"{fn_name}: output_padding {output_padding} must be smaller than "
                         f"stride {stride}")
    if isinstance(padding, str):
        raise ValueError(f"{fn_name}: padding must be an int or a tuple (as PyTorch)")
    pads = conv_padding(padding, nd, w_shape[2:], stride, dilation)
    sizes = tuple((n - 1) * s - lo - hi + d * (k - 1) + op + 1 for n, s, (lo, hi), d, k, op in
                  zip(shape(x)[2:], stride, pads, dilation, w_shape[2:], output_padding))
    if min(sizes) <= 0:
        raise ValueError(f"{fn_name}: the output size {sizes} is not positive")
    out = cv.conv_transpose(x, weight, input_shape=sizes, stride=stride, padding=pads,
                            dilation=dilation, groups=groups)
    out = _add_bias(out, bias, nd)
    return out[0] if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-d convolution (the input gradient of conv1d), as
    torch.nn.functional.conv_transpose1d: weight (C_in, C_out / groups, K)."""
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-d convolution (the input gradient of conv2d), as
    torch.nn.functional.conv_transpose2d: input (N, C_in, H, W) or (C_in, H, W), weight
    (C_in, C_out / groups, kh, kw)."""
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)
