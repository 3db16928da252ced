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


_BOUNDS = {1: "positive ints (1 or more)", 0: "non-negative ints (0 or more)"}


def as_tuple(value, nd, name, least=None, fn_name=None):
    """An int or a sequence of nd ints as a tuple of nd ints, each at least `least` (1 for a
    stride, 0 for a padding) when given: a zero stride would divide by zero, a negative
    padding would crop."""
    where = f"{fn_name}: " if fn_name else ""
    if isinstance(value, int):
        value = (value,) * nd
    value = tuple(value)
    if len(value) != nd or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{where}{name} must be an int or {nd} ints, got {value!r}")
    if least is not None and min(value, default=least) < least:
        raise ValueError(f"{where}{name} must be {_BOUNDS[least]}, got "
                         f"{value[0] if len(set(value)) == 1 else value!r}; pass e.g. "
                         f"{name}={max(least, 1)}")
    return value


def conv_padding(padding, nd, kernel, stride, dilation, fn_name=None):
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
    return tuple((p, p) for p in as_tuple(padding, nd, "padding", 0, fn_name))


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
    stride = as_tuple(stride, nd, "stride", 1, fn_name)
    dilation = as_tuple(dilation, nd, "dilation", 1, fn_name)
    pads = conv_padding(padding, nd, w_shape[2:], stride, dilation, fn_name)
    out = cv.conv(x, weight, stride=stride, padding=pads, dilation=dilation, groups=groups)
    out = _add_bias(out, bias, nd)
    return out[0] if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation), as torch.nn.functional.conv1d.

    Channels come first (PyTorch's NCL layout, not JAX's default NLC); the kernel is not
    flipped. Output length: (L + pad_before + pad_after - dilation (K - 1) - 1) // stride + 1.

    Args:
        input: (N, C, L), or one unbatched example (C, L).
        weight: (O, C / groups, K).
        bias: optional (O,), added to every output position.
        stride: an int or a 1-tuple.
        padding: an int or a 1-tuple (zeros on both sides), 'valid' (none) or 'same' (output
            length L; stride must be 1; an odd total puts the extra zero after, as PyTorch).
        dilation: an int or a 1-tuple: the spacing between kernel taps.
        groups: split C and O into this many groups convolved separately (groups=C with
            O = C is a depthwise convolution).

    Returns:
        (N, O, L_out), or (O, L_out) for an unbatched input.

    Raises:
        ValueError: input or weight of the wrong rank; input channels that do not match the
            weight's; groups that do not divide the channels; a stride or dilation below 1
            or a padding below 0, or one of the wrong length; an unknown padding string; padding='same' with a stride
            other than 1; a (dilated) kernel larger than the padded input.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x, w = np.ones((2, 3, 8)), np.ones((4, 3, 3))
        >>> ft.nn.conv1d(x, w).shape
        (2, 4, 6)
        >>> ft.nn.conv1d(x, w, padding="same").shape
        (2, 4, 8)
        >>> ft.nn.conv1d(x[0], w, stride=2).shape
        (4, 3)
    """
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation), as torch.nn.functional.conv2d.

    Channels come first (PyTorch's NCHW layout, not JAX's default NHWC); the kernel is not
    flipped. Each spatial output size is (size + pads - dilation (k - 1) - 1) // stride + 1.

    Args:
        input: (N, C, H, W), or one unbatched example (C, H, W).
        weight: (O, C / groups, kh, kw).
        bias: optional (O,), added to every output position.
        stride: an int or a pair (height, width).
        padding: an int or a pair (zeros on both sides), 'valid' (none) or 'same' (output
            size H, W; stride must be 1; an odd total puts the extra zero after, as PyTorch).
        dilation: an int or a pair: the spacing between kernel taps.
        groups: split C and O into this many groups convolved separately (groups=C with
            O = C is a depthwise convolution).

    Returns:
        (N, O, H_out, W_out), or (O, H_out, W_out) for an unbatched input.

    Raises:
        ValueError: input or weight of the wrong rank; input channels that do not match the
            weight's; groups that do not divide the channels; a stride or dilation below 1
            or a padding below 0, or one of the wrong length; an unknown padding string; padding='same' with a stride
            other than 1; a (dilated) kernel larger than the padded input.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.ones((2, 3, 8, 8))
        >>> ft.nn.conv2d(x, np.ones((4, 3, 3, 3)), padding=1).shape
        (2, 4, 8, 8)
        >>> ft.nn.conv2d(x, np.ones((6, 1, 3, 3)), groups=3).shape
        (2, 6, 6, 6)
    """
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(nd, fn_name, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    x, unbatched = with_batch_axis(input, nd, fn_name)
    w_shape = shape(weight)
    if len(w_shape) != nd + 2:
        raise ValueError(f"{fn_name}: weight must have shape (in channels, out channels / "
                         f"groups, {nd} kernel dims), got shape {w_shape}")
    _check_channels(fn_name, shape(x)[1], w_shape[0], w_shape[0], w_shape, groups)
    stride = as_tuple(stride, nd, "stride", 1, fn_name)
    dilation = as_tuple(dilation, nd, "dilation", 1, fn_name)
    output_padding = as_tuple(output_padding, nd, "output_padding", 0, fn_name)
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"{fn_name}: output_padding {output_padding} must be smaller than "
                         f"stride {stride} or dilation {dilation} (as PyTorch)")
    if isinstance(padding, str):
        raise ValueError(f"{fn_name}: padding must be an int or a tuple (as PyTorch)")
    pads = conv_padding(padding, nd, w_shape[2:], stride, dilation, fn_name)
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
    torch.nn.functional.conv_transpose1d.

    Note the weight layout (C_in, C_out / groups, K): that of the conv1d it transposes.
    Output length: (L - 1) stride - 2 padding + dilation (K - 1) + output_padding + 1.

    Args:
        input: (N, C_in, L), or one unbatched example (C_in, L).
        weight: (C_in, C_out / groups, K).
        bias: optional (C_out,).
        stride: an int or a 1-tuple.
        padding: an int or a 1-tuple: removed from both ends of the output (no strings).
        output_padding: an int or a 1-tuple, smaller than stride or dilation (as PyTorch):
            extra length at the end, to pick among the input lengths a strided conv1d maps
            to L.
        groups: as in conv1d; C_in must be divisible by it.
        dilation: an int or a 1-tuple.

    Returns:
        (N, C_out, L_out), or (C_out, L_out) for an unbatched input.

    Raises:
        ValueError: input or weight of the wrong rank; input channels that do not match the
            weight's first dim; groups that do not divide them; a string padding;
            output_padding not smaller than stride or dilation; a stride or dilation below 1,
            a padding below 0, or one of the wrong length; an output size that is not
            positive.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.conv_transpose1d(np.ones((2, 4, 5)), np.ones((4, 3, 3)), stride=2).shape
        (2, 3, 11)
    """
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-d convolution (the input gradient of conv2d), as
    torch.nn.functional.conv_transpose2d.

    Note the weight layout (C_in, C_out / groups, kh, kw): that of the conv2d it transposes.
    Each spatial output size is (size - 1) stride - 2 padding + dilation (k - 1) +
    output_padding + 1.

    Args:
        input: (N, C_in, H, W), or one unbatched example (C_in, H, W).
        weight: (C_in, C_out / groups, kh, kw).
        bias: optional (C_out,).
        stride: an int or a pair.
        padding: an int or a pair: removed from both ends of each output dim (no strings).
        output_padding: an int or a pair, each smaller than its stride or dilation (as
            PyTorch): extra size at the end, to pick among the input sizes a strided conv2d
            maps to (H, W).
        groups: as in conv2d; C_in must be divisible by it.
        dilation: an int or a pair.

    Returns:
        (N, C_out, H_out, W_out), or (C_out, H_out, W_out) for an unbatched input.

    Raises:
        ValueError: input or weight of the wrong rank; input channels that do not match the
            weight's first dim; groups that do not divide them; a string padding;
            output_padding not smaller than stride or dilation; a stride or dilation below 1,
            a padding below 0, or one of the wrong length; an output size that is not
            positive.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x, w = np.ones((2, 4, 5, 5)), np.ones((4, 3, 3, 3))
        >>> ft.nn.conv_transpose2d(x, w, stride=2, output_padding=1).shape
        (2, 3, 12, 12)
    """
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation)
