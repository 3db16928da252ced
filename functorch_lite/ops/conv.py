"""Convolution and sliding-window primitives (PyTorch's layout: channels first, NC*).

Windows are strided views of the input (`as_strided`, no copy); a convolution is one
contraction of those windows with the weights, shaped as one (grouped) matrix product, so BLAS
sees large matrices. Three bilinear convolution primitives close under differentiation, as the
gradient of a convolution is a convolution:

  conv(x, w)               y[n, o, p] = sum_{c, k} x[n, c, p * stride + k * dilation] w[o, c, k]
  conv_transpose(g, w)     the adjoint of conv in x (the input gradient; conv_transpose2d)
  conv_weight_grad(x, g)   the adjoint of conv in w (the weight gradient)

`padding` is a tuple of (before, after) pairs, one per spatial dim; `groups` splits channels as
torch.nn.functional.conv2d does. `sliding_window` (the windows themselves, NumPy's
sliding_window_view with strides and dilation) and its adjoint `sliding_window_sum` serve
sliding_window_view and the gradient of average pooling (ops/pool.py). `correlate` and
`convolve` are NumPy's 1-d kernels (bilinear too; their adjoints are correlations).
"""
import itertools
import math

from ..dispatch import defop


def _as_strided(xp, x, shape, strides):
    if xp.__name__ == "numpy":
        return xp.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


def window_counts(sizes, window, stride, dilation):
    """How many windows fit along each axis (sizes already padded)."""
    return tuple((n - d * (k - 1) - 1) // s + 1
                 for n, k, s, d in zip(sizes, window, stride, dilation))


def _windows(xp, x, axes, window, stride, dilation):
    """View of x with each of `axes` replaced by its window count and the window dims appended."""
    counts = window_counts([x.shape[a] for a in axes], window, stride, dilation)
    if min(counts, default=1) <= 0:
        raise ValueError(f"window {tuple(window)} (dilation {tuple(dilation)}) is larger than "
                         f"the input's dims {tuple(x.shape[a] for a in axes)}")
    shape, strides = list(x.shape), list(x.strides)
    for a, n, s in zip(axes, counts, stride):
        shape[a], strides[a] = n, x.strides[a] * s
    shape += list(window)
    strides += [x.strides[a] * d for a, d in zip(axes, dilation)]
    return _as_strided(xp, x, tuple(shape), tuple(strides))


def window_offsets(rank, axes, counts, window, stride, dilation):
    """(offset, index) for each position inside the window: x[index] holds, for every window,
    its element at that offset (a strided slice, shaped like the window counts)."""
    for offset in itertools.product(*(range(k) for k in window)):
        index = [slice(None)] * rank
        for a, j, n, s, d in zip(axes, offset, counts, stride, dilation):
            index[a] = slice(j * d, j * d + s * (n - 1) + 1, s)
        yield offset, tuple(index)


def _window_sum(xp, ct, shape, axes, window, stride, dilation):
    """The adjoint of _windows: each window's values added back where they were read."""
    out = xp.zeros(shape, dtype=ct.dtype)
    counts = [ct.shape[a] for a in axes]
    for offset, index in window_offsets(len(shape), axes, counts, window, stride, dilation):
        out[index] += ct[(Ellipsis,) + offset]
    return out


def _pad(xp, x, padding):
    if not any(lo or hi for lo, hi in padding):
        return x
    return xp.pad(x, ((0, 0), (0, 0)) + tuple(padding))


def _spatial(nd):
    return tuple(range(2, 2 + nd))


def _im2col(xp, x, kernel, stride, padding, dilation, groups):
    """The unfolded input as (groups, N, C/groups * K, P) (one copy whose inner runs are rows
    of output positions, contiguous in x for stride 1) and the window counts."""
    nd = len(kernel)
    win = _windows(xp, _pad(xp, x, padding), _spatial(nd), kernel, stride, dilation)
    n, c = x.shape[:2]
    counts = win.shape[2:2 + nd]
    win = win.reshape((n, groups, c // groups) + win.shape[2:])     # (N, G, Cg, *P, *K): a view
    order = (1, 0, 2) + tuple(range(3 + nd, 3 + 2 * nd)) + tuple(range(3, 3 + nd))
    cols = win.transpose(order).reshape(groups, n, c // groups * math.prod(kernel),
                                        math.prod(counts))
    return cols, counts


def _grouped(g, groups):
    """(N, O, *P) -> (groups, N, O/groups, P), a view."""
    n, o = g.shape[:2]
    return g.reshape(n, groups, o // groups, math.prod(g.shape[2:])).transpose(1, 0, 2, 3)


def _weight_matrices(w, groups):
    """(O, C/groups, *K) -> (groups, 1, O/groups, C/groups * K)."""
    return w.reshape(groups, 1, w.shape[0] // groups, math.prod(w.shape[1:]))


def _conv_kernel(xp, x, w, *, stride, padding, dilation, groups):
    cols, counts = _im2col(xp, x, w.shape[2:], stride, padding, dilation, groups)
    out = xp.matmul(_weight_matrices(w, groups), cols)             # (G, N, Og, P)
    if groups > 1:
        out = xp.ascontiguousarray(out.transpose(1, 0, 2, 3))
    return out.reshape((x.shape[0], w.shape[0]) + tuple(counts))


def _conv_transpose_kernel(xp, g, w, *, input_shape, stride, padding, dilation, groups):
    nd = w.ndim - 2
    n = g.shape[0]
    counts, kernel, cg = g.shape[2:], w.shape[2:], w.shape[1]
    wm = _weight_matrices(w, groups).transpose(0, 1, 3, 2)
    cols = xp.matmul(wm, _grouped(g, groups))                      # (G, N, Cg * K, P)
    cols = cols.reshape((groups, n, cg) + kernel + counts)
    order = (1, 0, 2) + tuple(range(3 + nd, 3 + 2 * nd)) + tuple(range(3, 3 + nd))
    cols = cols.transpose(order)                                    # (N, G, Cg, *P, *K): a view
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(input_shape, padding))
    out = _window_sum(xp, cols, (n, groups, cg) + padded, tuple(range(3, 3 + nd)), kernel,
                      stride, dilation)
    crop = tuple(slice(lo, lo + s) for s, (lo, _) in zip(input_shape, padding))
    return out[(slice(None),) * 3 + crop].reshape((n, groups * cg) + tuple(input_shape))


def _conv_weight_grad_kernel(xp, x, g, *, kernel_shape, stride, padding, dilation, groups):
    """One product per group and example, summed over the examples: under vmap (N = 1, one
    group per example) this is one batched GEMM of the cotangents and the unfolded inputs."""
    cols, _ = _im2col(xp, x, kernel_shape, stride, padding, dilation, groups)
    out = xp.matmul(_grouped(g, groups), cols.transpose(0, 1, 3, 2))     # (G, N, Og, Cg * K)
    out = out[:, 0] if x.shape[0] == 1 else out.sum(axis=1)
    return out.reshape((g.shape[1], x.shape[1] // groups) + tuple(kernel_shape))


def _sliding_window_kernel(xp, x, *, axes, window, stride, dilation):
    return _windows(xp, x, axes, window, stride, dilation)


def _sliding_window_sum_kernel(xp, ct, *, shape, axes, window, stride, dilation):
    return _window_sum(xp, ct, shape, axes, window, stride, dilation)


conv = defop("conv", _conv_kernel,
             doc="N-d convolution (cross-correlation, as torch.nn.functional.conv2d) of x "
                 "(N, C, *S) with w (O, C / groups, *K); zero padding as (before, after) pairs.")
conv_transpose = defop(
    "conv_transpose", _conv_transpose_kernel,
    doc="The adjoint of conv in x: g (N, O, *P), w (O, C / groups, *K) -> (N, C, *input_shape). "
        "conv_transpose2d is this op.")
conv_weight_grad = defop(
    "conv_weight_grad", _conv_weight_grad_kernel,
    doc="The adjoint of conv in w: x (N, C, *S), g (N, O, *P) -> (O, C / groups, *kernel_shape).")
sliding_window = defop(
    "sliding_window", _sliding_window_kernel,
    doc="A read-only strided view: each of `axes` replaced by its window count, the window dims "
        "appended last (numpy.lib.stride_tricks.sliding_window_view with stride and dilation).")
sliding_window_sum = defop(
    "sliding_window_sum", _sliding_window_sum_kernel,
    doc="The adjoint of sliding_window: windows added back into an array of `shape`.")
correlate = defop("correlate", lambda xp, a, v, mode="valid": xp.correlate(a, v, mode=mode),
                  doc="numpy.correlate's kernel: sum_n a[n + k] conj(v[n]) of two non-empty 1-d "
                      "arrays (NumPy's own loop: its sums are added in NumPy's order).")
convolve = defop("convolve", lambda xp, a, v, mode="full": xp.convolve(a, v, mode=mode),
                 doc="numpy.convolve's kernel: sum_i a[i] v[k - i] of two non-empty 1-d arrays.")
