"""The XLA lowerings of the convolution and pooling ops: each one XLA convolution or window
reduction, laid out the way JAX's own transformations emit them, except where XLA's CPU runs
another form faster (the weight gradient of small kernels, max pooling's derivatives).

Note [convolutions on XLA]
--------------------------
vmap folds its batch into a convolution's channels (batching_rules/conv.py): a batch of
weights meets its inputs as `groups = B * groups`, and the per-example weight gradient of
vmap(grad) is conv_weight_grad of (1, B*C, H, W) inputs and (1, B*O, P, Q) cotangents with
groups B. XLA's CPU and GPU backends run a convolution with many feature groups well, and one
with many *batch* groups (batch_group_count, what jax.vjp of a grouped convolution gives for
the weight) very slowly: 2.6 s against 3.8 ms for the same contraction (issue 31). So each
convolution here is written directly as the contraction it is, with the groups as feature
groups:

  conv              y = x * w                 (feature groups: the groups)
  conv_transpose    dx = g * flip(w)^T        g dilated by the stride (lhs_dilation), the
                                              kernel flipped and its in/out channels swapped
                                              within each group
  conv_weight_grad  dw = x^T * g^T            x's channels within a group become the batch
                                              dim and (group, example) the features, g is
                                              the kernel: one feature group per group, the
                                              stride as rhs_dilation, the dilation as stride

That weight gradient is a convolution whose kernel is as large as the image and whose output
is the 3x3 taps, which XLA's CPU runs slowly: per-example, B=128, one thread, 26 ms for
1->16 channels on 28x28 (NumPy's im2col and GEMM: 2.6 ms), 8.3 ms for 16->32 with stride 2.
On the CPU (ctx.platform, xla.target_platform) a kernel of at most 9 taps, undilated, with one
example (vmap's form) or one group, is instead the NumPy kernel's product of the windows of x
with g: 4.0 and 5.9 ms. How the windows are built decides it: stacked (a concatenate along a
minor axis, XLA's CPU copying one element at a time) they cost 21 ms at B=256, and the
product was slower than the convolution (an earlier try: 8.4 against 5.5 ms); added as one
pad per tap they are one loop fusion (2.0 ms), laid out as the product reads them. Larger
kernels (a pad per tap for every element: 7x7 ran 6-9x slower), dilated kernels and many
examples in many groups (a transposing copy) keep the convolution, as does the GPU, whose
form is unchanged.

Note [pooling on XLA's CPU]
---------------------------
Pooling is a window reduction (lax.reduce_window). Max pooling's jvp and vjp are XLA's own
select-and-gather and select-and-scatter (JAX's derivatives of a max reduce_window), which
pick each window's first maximum, as the NumPy kernels do; XLA's CPU expands them into a
reduce_window over (value, index) pairs with one int32 iota per dimension and a scatter:
B=128, 16x26x26, 2x2 windows, 15-22 ms for the vjp where torch takes 1.7 ms, and 53 MB of
temporaries for the program. On the CPU the jvp is instead one select per window offset, u
where that offset holds the maximum, taken from the last offset to the first (3-18x faster),
and the vjp of disjoint windows (stride at least the window's extent: max_pool2d(k)) is one
select in x's own layout: x cut into a block per window (a reshape), each element g where its
place in the block is its window's first maximum (2.1 ms). Overlapping windows keep
select-and-scatter (one pad per offset, added, ran up to 1.6x slower at 3x3 stride 2).
Above 32 MiB of temporaries, glibc hands XLA's per-call buffer to mmap and every call
page-faults it in again (a fifth of the CNN's time at B=256, a third of jax.jit's at B=128:
docs/jit.md); these forms need 21 MB of temporaries at B=128 where JAX's need 54 MB.
"""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..ops.conv import window_counts, window_offsets

_HIGHEST = lax.Precision.HIGHEST


def _spec(nd):
    """conv_general_dilated's dimension numbers for (N, C, *spatial) operands."""
    return lax.ConvDimensionNumbers(lhs_spec=tuple(range(nd + 2)), rhs_spec=tuple(range(nd + 2)),
                                    out_spec=tuple(range(nd + 2)))


def _on_cpu(ctx):
    """Whether the program compiles for XLA's CPU backend, whose forms of the weight gradient
    and of max pooling's derivatives differ (Note [convolutions on XLA], Note [pooling on
    XLA's CPU])."""
    return ctx.platform == "cpu"


def _common(*arrays):
    dtype = jnp.result_type(*arrays)
    return [jnp.asarray(a).astype(dtype) for a in arrays]


def conv(ctx, x, w, *, stride, padding, dilation, groups):
    x, w = _common(x, w)
    return lax.conv_general_dilated(
        x, w, window_strides=tuple(stride), padding=[tuple(p) for p in padding],
        rhs_dilation=tuple(dilation), feature_group_count=groups,
        dimension_numbers=_spec(w.ndim - 2), precision=_HIGHEST)


def conv_transpose(ctx, g, w, *, input_shape, stride, padding, dilation, groups):
    """The input gradient: g (N, O, *P) dilated by the stride, convolved with the flipped
    kernel whose channels are swapped within each group; the padding puts the window's last
    tap on the first element, and the size fixes the far end (an output_padding included)."""
    g, w = _common(g, w)
    nd = w.ndim - 2
    o, cg, kernel = w.shape[0], w.shape[1], w.shape[2:]
    og = o // groups
    rhs = w.reshape((groups, og, cg) + kernel).swapaxes(1, 2).reshape((groups * cg, og) + kernel)
    rhs = jnp.flip(rhs, axis=tuple(range(2, 2 + nd)))
    pads = []
    for size, count, k, s, d, (lo, _) in zip(input_shape, g.shape[2:], kernel, stride,
                                              dilation, padding):
        reach = d * (k - 1)
        pads.append((reach - lo, size - (count - 1) * s - 1 + lo))
    return lax.conv_general_dilated(
        g, rhs, window_strides=(1,) * nd, padding=pads, lhs_dilation=tuple(stride),
        rhs_dilation=tuple(dilation), feature_group_count=groups,
        dimension_numbers=_spec(nd), precision=_HIGHEST)


def conv_weight_grad(ctx, x, g, *, kernel_shape, stride, padding, dilation, groups):
    """The weight gradient dw[o, c, k] = sum_{n, p} g[n, o, p] x[n, c, p * stride + k *
    dilation - lo]. On the CPU, for a small undilated kernel with one example (vmap's
    per-example gradients) or one group, a product with the windows of x (Note [convolutions
    on XLA]); otherwise in the feature-group form, a convolution of x (batch: c within its
    group; features: (group, n)) with g as the kernel (out: o; in: n), whose output
    positions are the kernel's taps."""
    x, g = _common(x, g)
    nd = x.ndim - 2
    n, c = x.shape[:2]
    o, cg, og = g.shape[1], c // groups, g.shape[1] // groups
    spatial, counts = x.shape[2:], g.shape[2:]
    pads = []
    for size, count, k, s, d, (lo, _) in zip(spatial, counts, kernel_shape, stride, dilation,
                                              padding):
        pads.append((lo, (k - 1) * d + (count - 1) * s + 1 - size - lo))
    if _on_cpu(ctx) and math.prod(kernel_shape) <= _FEW_TAPS and set(dilation) <= {1} \
            and (n == 1 or groups == 1):
        return _weight_grad_by_windows(x, g, kernel_shape, stride, pads, dilation, groups)
    lhs = x.reshape((n, groups, cg) + spatial)
    lhs = jnp.moveaxis(lhs, 2, 0).swapaxes(1, 2).reshape((cg, groups * n) + spatial)
    rhs = g.reshape((n, groups, og) + counts)
    rhs = jnp.moveaxis(rhs, 0, 2).reshape((o, n) + counts)
    out = lax.conv_general_dilated(
        lhs, rhs, window_strides=tuple(dilation), padding=pads, rhs_dilation=tuple(stride),
        feature_group_count=groups, dimension_numbers=_spec(nd), precision=_HIGHEST)
    return out.swapaxes(0, 1)                                    # (Cg, O, *K) -> (O, Cg, *K)


_FEW_TAPS = 9
"""The most kernel taps for which the CPU computes a weight gradient from the windows of x
(each window element adds one pad per tap: Note [convolutions on XLA])."""


def _weight_grad_by_windows(x, g, kernel_shape, stride, pads, dilation, groups):
    """dw as one product over the groups of g, (N, G, Og, P), with the windows of x,
    (N, G, P, Cg, K), contracted over N and P (the NumPy kernel's im2col and GEMM). The
    windows are built by one pad per tap of x's channels-last slice, added (a loop fusion:
    XLA's CPU concatenates along a minor axis ten times slower), in the layout XLA's product
    reads without a transposing copy."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    o, cg = g.shape[1], c // groups
    zero = jnp.zeros((), x.dtype)
    x = lax.pad(x, zero, [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in pads])
    x = jnp.moveaxis(x.reshape((n, groups, cg) + x.shape[2:]), 2, -1)   # (N, G, *S, Cg)
    counts, taps = g.shape[2:], math.prod(kernel_shape)
    windows = None
    for k, (_, index) in enumerate(window_offsets(
            x.ndim, tuple(range(2, 2 + nd)), counts, kernel_shape, stride, dilation)):
        part = lax.pad(x[index][..., None], zero, [(0, 0, 0)] * x.ndim + [(k, taps - 1 - k, 0)])
        windows = part if windows is None else windows + part
    windows = windows.reshape(n, groups, math.prod(counts), cg * taps)
    g = g.reshape(n, groups, o // groups, math.prod(counts))
    out = lax.dot_general(g, windows, (((0, 3), (0, 2)), ((1,), (1,))), precision=_HIGHEST)
    return out.reshape((o, cg) + tuple(kernel_shape))               # (G, Og, Cg * K)


def _window(x, axes, window, stride, dilation):
    """reduce_window's per-dimension window, strides and dilation for pooling over `axes`."""
    dims, strides, dil = [1] * x.ndim, [1] * x.ndim, [1] * x.ndim
    for a, k, s, d in zip(axes, window, stride, dilation):
        dims[a], strides[a], dil[a] = k, s, d
    return dict(window_dimensions=tuple(dims), window_strides=tuple(strides), padding="VALID",
                window_dilation=tuple(dil))


def _max_pool(x, kw):
    """The max of each window. The initial value is a NumPy scalar, which JAX recognizes as
    max's identity (a traced one would make the generic reduce_window, which has no
    derivative)."""
    x = jnp.asarray(x)
    dtype = np.dtype(x.dtype)
    low = np.array(-np.inf if dtype.kind == "f" else np.iinfo(dtype).min, dtype)
    return lax.reduce_window(x, low, lax.max, **kw)


def pool_sum(ctx, x, *, axes, window, stride, dilation):
    x = jnp.asarray(x)
    return lax.reduce_window(x, np.zeros((), np.dtype(x.dtype)), lax.add,
                             **_window(x, axes, window, stride, dilation))


def pool_max(ctx, x, *, axes, window, stride, dilation):
    return _max_pool(x, _window(x, axes, window, stride, dilation))


def _nan_windows(x, kw, values):
    """values (one per window) with those of windows whose maximum is NaN set to 0: no
    element equals NaN, so NumPy's kernels pass such a window no derivative, where XLA's
    select-and-scatter would pick an element by its comparisons (Note [NaN in a max pool])."""
    if np.dtype(x.dtype).kind != "f":
        return values
    return jnp.where(jnp.isnan(_max_pool(x, kw)), jnp.zeros((), values.dtype), values)


def pool_max_select(ctx, x, u, *, axes, window, stride, dilation):
    """u at each window's first argmax of x: the jvp of the max reduction (select-and-gather;
    on the CPU one fused select per window offset, Note [pooling on XLA's CPU])."""
    x, u = jnp.asarray(x), jnp.asarray(u)
    if _on_cpu(ctx):
        taps = [index for _, index in _taps(x, axes, window, stride, dilation)]
        best = functools.reduce(jnp.maximum, [x[index] for index in taps])
        out = jnp.zeros(best.shape, u.dtype)
        for index in reversed(taps):
            out = jnp.where(x[index] == best, u[index], out)
        return out
    kw = _window(x, axes, window, stride, dilation)
    picked = jax.jvp(lambda v: _max_pool(v, kw), (x,), (u.astype(x.dtype),))[1]
    return _nan_windows(x, kw, picked).astype(u.dtype)


def pool_max_scatter(ctx, x, g, *, axes, window, stride, dilation):
    """g added at each window's first argmax of x: the vjp of the max reduction. Disjoint
    windows on the CPU: one select in x's layout (Note [pooling on XLA's CPU]); otherwise
    XLA's select-and-scatter, which has no dilated windows: those add one masked strided
    slice per window offset."""
    x, g = jnp.asarray(x), jnp.asarray(g)
    if _on_cpu(ctx) and all(s >= d * (k - 1) + 1 for k, s, d in zip(window, stride, dilation)):
        return _scatter_by_blocks(x, g, axes, window, stride, dilation)
    if any(d != 1 for d in dilation):
        return _scatter_by_offsets(x, g, axes, window, stride, dilation)
    kw = _window(x, axes, window, stride, dilation)
    _, pullback = jax.vjp(lambda v: _max_pool(v, kw), x)
    return pullback(_nan_windows(x, kw, g.astype(x.dtype)))[0].astype(g.dtype)


def _scatter_by_offsets(x, g, axes, window, stride, dilation):
    best = _max_pool(x, _window(x, axes, window, stride, dilation))
    out, taken = jnp.zeros(x.shape, g.dtype), jnp.zeros(best.shape, bool)
    for _, index in _taps(x, axes, window, stride, dilation):
        hit = (x[index] == best) & ~taken
        taken = taken | hit
        out = out.at[index].add(jnp.where(hit, g, 0))
    return out


def _taps(x, axes, window, stride, dilation):
    """(offset, index) per window offset, in window_offsets' order: x[index] holds every
    window's element at that offset."""
    counts = window_counts([x.shape[a] for a in axes], window, stride, dilation)
    return list(window_offsets(x.ndim, axes, counts, window, stride, dilation))


def _first_max(values):
    """The number of the first of `values` (one array per window offset) equal to their
    maximum; len(values) where the maximum is NaN, which no element equals."""
    best = functools.reduce(jnp.maximum, values)
    first = jnp.full(best.shape, len(values), np.int32)
    for k in reversed(range(len(values))):
        first = jnp.where(values[k] == best, np.int32(k), first)
    return first


def _scatter_by_blocks(x, g, axes, window, stride, dilation):
    """Disjoint windows: x cut (cropped, or padded past its last window) into one block of
    `stride` elements per window along each pooled axis, the window's taps at the start of
    its block; each element of the result is g where its place in the block is the window's
    first maximum: one select in x's own layout (the blocks are a reshape, no transpose)."""
    taps = _taps(x, axes, window, stride, dilation)
    counts = [g.shape[a] for a in axes]
    fitted = _fit_axes(x, axes, [n * s for n, s in zip(counts, stride)])
    shape = []
    for a, size in enumerate(fitted.shape):
        shape += [counts[axes.index(a)], stride[axes.index(a)]] if a in axes else [size]
    at = [a + 1 + sum(b < a for b in axes) for a in axes]   # each pooled axis's place axis
    blocked = fitted.reshape(shape)
    position = np.full([shape[a] if a in at else 1 for a in range(len(shape))], -1, np.int32)
    values = []
    for number, (offset, _) in enumerate(taps):
        index = [slice(None)] * len(shape)
        for a, j, d in zip(at, offset, dilation):
            index[a] = slice(j * d, j * d + 1)
        values.append(blocked[tuple(index)])
        position[tuple(0 if i == slice(None) else i.start for i in index)] = number
    first = _first_max(values)
    out = jnp.where(first == position, g.reshape(first.shape), jnp.zeros((), g.dtype))
    return _fit_axes(out.reshape(fitted.shape), axes, [x.shape[a] for a in axes])


def _fit_axes(x, axes, sizes):
    """x cropped, or padded with zeros at the far end, to `sizes` along `axes`."""
    index, pads = [slice(None)] * x.ndim, [(0, 0)] * x.ndim
    for a, n in zip(axes, sizes):
        if x.shape[a] > n:
            index[a] = slice(0, n)
        else:
            pads[a] = (0, n - x.shape[a])
    x = x[tuple(index)]
    return jnp.pad(x, pads) if any(hi for _, hi in pads) else x


LOWERINGS = {"conv": conv, "conv_transpose": conv_transpose,
             "conv_weight_grad": conv_weight_grad, "pool_sum": pool_sum, "pool_max": pool_max,
             "pool_max_select": pool_max_select, "pool_max_scatter": pool_max_scatter}
"""The entries of xla_lowerings.LOWERINGS that live here."""
