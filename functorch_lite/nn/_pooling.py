"""Pooling with torch.nn.functional's argument names: input (N, C, *S) or (C, *S) (pooling acts
on the last 1 or 2 dims), `kernel_size`, `stride` (default: kernel_size), `padding`.

Each is a pad op and one pooling primitive (functorch_lite.ops.pool: one elementwise op per
window offset on strided slices, with batching, jvp and vjp rules). Max pooling pads with -inf,
so padding never wins, and sends each window's gradient to its first maximal element (as
PyTorch and JAX). ceil_mode and return_indices are not implemented.
"""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of, shape, xp_of
from ..ops import pool as pl
from ._conv import as_tuple

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]


def _pool(op, fn_name, input, nd, kernel_size, stride, padding, dilation, pad_value):
    rank = len(shape(input))
    if rank not in (nd + 1, nd + 2):
        raise ValueError(f"{fn_name}: input must have shape (N, C, {nd} spatial dims) or "
                         f"(C, {nd} spatial dims), got shape {shape(input)}")
    kernel = as_tuple(kernel_size, nd, "kernel_size", 1, fn_name)
    stride = kernel if stride is None else as_tuple(stride, nd, "stride", 1, fn_name)
    pads = as_tuple(padding, nd, "padding", 0, fn_name)
    dilation = as_tuple(dilation, nd, "dilation", 1, fn_name)
    if any(2 * p > k for p, k in zip(pads, kernel)):
        raise ValueError(f"{fn_name}: padding {pads} must be at most half of kernel_size "
                         f"{kernel}, as in PyTorch")
    axes = tuple(range(rank - nd, rank))
    if any(pads):
        width = ((0, 0),) * (rank - nd) + tuple((p, p) for p in pads)
        input = fnp.pad(input, width, constant_values=pad_value)
    return op(input, axes=axes, window=kernel, stride=stride, dilation=dilation), kernel, \
        stride, pads


def _unsupported(fn_name, **flags):
    for name, value in flags.items():
        if value:
            raise NotImplementedError(f"{fn_name}: {name}=True is not implemented")


def _max_pool(nd, fn_name, input, kernel_size, stride, padding, dilation, ceil_mode,
              return_indices):
    _unsupported(fn_name, ceil_mode=ceil_mode, return_indices=return_indices)
    if dtype_of(input).kind != "f":
        raise TypeError(f"{fn_name}: input must be floating point, got {dtype_of(input)}")
    return _pool(pl.pool_max, fn_name, input, nd, kernel_size, stride, padding, dilation,
                 -np.inf)[0]


def _avg_pool(nd, fn_name, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override=None):
    _unsupported(fn_name, ceil_mode=ceil_mode)
    total, kernel, stride, pads = _pool(pl.pool_sum, fn_name, input, nd, kernel_size, stride,
                                        padding, 1, 0.0)
    if divisor_override is not None:
        return total / divisor_override
    if count_include_pad or not any(pads):
        return total / int(np.prod(kernel))
    # divide by the number of real (unpadded) entries of each window: a constant
    xp = xp_of(input)
    ones = xp.pad(xp.ones(shape(input)[-nd:]), [(p, p) for p in pads])
    counts = pl.pool_sum.impl(ones, axes=tuple(range(nd)), window=kernel, stride=stride,
                              dilation=(1,) * nd)
    return total / counts.astype(dtype_of(total))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of the last dim, as torch.nn.functional.max_pool1d.

    Padding is -inf, so it never wins. The gradient of each window goes to its first maximal
    element, as in PyTorch and JAX. Output length: (L + 2 padding - dilation (k - 1) - 1)
    // stride + 1 (floor mode).

    Args:
        input: a floating array (N, C, L) or (C, L).
        kernel_size: an int or a 1-tuple: the window size.
        stride: an int or a 1-tuple; None (default) means kernel_size (non-overlapping windows).
        padding: an int or a 1-tuple, at most half the kernel size: -inf on both sides.
        dilation: an int or a 1-tuple: the spacing between window elements.
        ceil_mode: only False (ceil mode is not implemented).
        return_indices: only False (the argmax indices are not implemented).

    Returns:
        (N, C, L_out) or (C, L_out), input's dtype.

    Raises:
        TypeError: input is not floating point.
        ValueError: input of the wrong rank; padding above half the kernel; a kernel_size,
            stride or dilation below 1 or a padding below 0, or one of the wrong length; a window larger than the
            padded input.
        NotImplementedError: ceil_mode=True or return_indices=True.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.max_pool1d(np.array([[1.0, 3.0, 2.0, 0.0]]), 2)
        array([[3., 2.]])
        >>> ft.nn.max_pool1d(np.ones((2, 3, 16)), 3, stride=1, padding=1).shape
        (2, 3, 16)
    """
    return _max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of the last two dims, as torch.nn.functional.max_pool2d.

    Padding is -inf, so it never wins. The gradient of each window goes to its first maximal
    element, as in PyTorch and JAX. Each output size is (size + 2 padding - dilation (k - 1)
    - 1) // stride + 1 (floor mode).

    Args:
        input: a floating array (N, C, H, W) or (C, H, W).
        kernel_size: an int or a pair: the window size.
        stride: an int or a pair; None (default) means kernel_size (non-overlapping windows).
        padding: an int or a pair, at most half the kernel size: -inf on both sides.
        dilation: an int or a pair: the spacing between window elements.
        ceil_mode: only False (ceil mode is not implemented).
        return_indices: only False (the argmax indices are not implemented).

    Returns:
        (N, C, H_out, W_out) or (C, H_out, W_out), input's dtype.

    Raises:
        TypeError: input is not floating point.
        ValueError: input of the wrong rank; padding above half the kernel; a kernel_size,
            stride or dilation below 1 or a padding below 0, or one of the wrong length; a window larger than the
            padded input.
        NotImplementedError: ceil_mode=True or return_indices=True.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.max_pool2d(np.arange(16.0).reshape(1, 4, 4), 2)
        array([[[ 5.,  7.],
                [13., 15.]]])
    """
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over sliding windows of the last dim, as torch.nn.functional.avg_pool1d.

    Padding is zeros, counted in each window's mean unless count_include_pad=False (then each
    window divides by its number of unpadded entries). Output length: (L + 2 padding - k)
    // stride + 1 (floor mode).

    Args:
        input: an array (N, C, L) or (C, L).
        kernel_size: an int or a 1-tuple: the window size.
        stride: an int or a 1-tuple; None (default) means kernel_size (non-overlapping windows).
        padding: an int or a 1-tuple, at most half the kernel size: zeros on both sides.
        ceil_mode: only False (ceil mode is not implemented).
        count_include_pad: whether padded zeros count in the divisor (default True).

    Returns:
        (N, C, L_out) or (C, L_out).

    Raises:
        ValueError: input of the wrong rank; padding above half the kernel; a kernel_size or
            stride below 1 or a padding below 0, or one of the wrong length; a window larger than the padded input.
        NotImplementedError: ceil_mode=True.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.ones((1, 4))
        >>> np.round(ft.nn.avg_pool1d(x, 3, stride=1, padding=1), 3)
        array([[0.667, 1.   , 1.   , 0.667]])
        >>> ft.nn.avg_pool1d(x, 3, stride=1, padding=1, count_include_pad=False)
        array([[1., 1., 1., 1.]])
    """
    return _avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of the last two dims, as torch.nn.functional.avg_pool2d.

    Padding is zeros, counted in each window's mean unless count_include_pad=False (then each
    window divides by its number of unpadded entries). Each output size is (size + 2 padding
    - k) // stride + 1 (floor mode).

    Args:
        input: an array (N, C, H, W) or (C, H, W).
        kernel_size: an int or a pair: the window size.
        stride: an int or a pair; None (default) means kernel_size (non-overlapping windows).
        padding: an int or a pair, at most half the kernel size: zeros on both sides.
        ceil_mode: only False (ceil mode is not implemented).
        count_include_pad: whether padded zeros count in the divisor (default True).
        divisor_override: if given, every window sum is divided by this number instead.

    Returns:
        (N, C, H_out, W_out) or (C, H_out, W_out).

    Raises:
        ValueError: input of the wrong rank; padding above half the kernel; a kernel_size or
            stride below 1 or a padding below 0, or one of the wrong length; a window larger than the padded input.
        NotImplementedError: ceil_mode=True.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.avg_pool2d(np.arange(16.0).reshape(1, 4, 4), 2)
        array([[[ 2.5,  4.5],
                [10.5, 12.5]]])
        >>> ft.nn.avg_pool2d(np.ones((2, 3, 8, 8)), 3, stride=2, padding=1).shape
        (2, 3, 4, 4)
    """
    return _avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)
