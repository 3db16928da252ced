"""Sample entries of the convolution, pooling and normalization layers, sliding_window_view,
and the adjoint primitives that only derivatives reach (conv_weight_grad, sliding_window_sum,
pool_max_select, pool_max_scatter).

References are direct loops over output positions and kernel offsets, written here against
plain NumPy and independent of the library's strided-view kernels. Shapes are small: the
generic tests take finite differences over every input.
"""
import itertools

import numpy as np

from .. import nn
from .. import numpy as fnp
from ..ops import conv as cv, pool as pl
from .samples_base import EVEN, F32, F64, REAL, OpInfo, S, array


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


# -- references -------------------------------------------------------------------------------

def _tuple(v, nd):
    return (v,) * nd if isinstance(v, int) else tuple(v)


def _pairs(padding, nd, kernel, dilation):
    if padding == "valid":
        return ((0, 0),) * nd
    if padding == "same":
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    return tuple((p, p) for p in _tuple(padding, nd))


def _counts(sizes, kernel, stride, dilation):
    return tuple((n - d * (k - 1) - 1) // s + 1
                 for n, k, s, d in zip(sizes, kernel, stride, dilation))


def _taps(pos, k, stride, dilation):
    return tuple(p * s + j * d for p, j, s, d in zip(pos, k, stride, dilation))


def _batched(x, nd):
    return (x[None], True) if x.ndim == nd + 1 else (x, False)


def ref_conv(nd):
    """A direct loop: for every output position and kernel offset, a product over channels."""
    def conv(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1):
        x, single = _batched(x, nd)
        stride, dilation, kernel = _tuple(stride, nd), _tuple(dilation, nd), w.shape[2:]
        pads = _pairs(padding, nd, kernel, dilation)
        x = np.pad(x, ((0, 0), (0, 0)) + pads)
        o, cg = w.shape[:2]
        og = o // groups
        counts = _counts(x.shape[2:], kernel, stride, dilation)
        out = np.zeros((x.shape[0], o) + counts, dtype=np.result_type(x, w))
        for g in range(groups):
            xs, os = slice(g * cg, (g + 1) * cg), slice(g * og, (g + 1) * og)
            for pos in itertools.product(*map(range, counts)):
                for k in itertools.product(*map(range, kernel)):
                    taps = _taps(pos, k, stride, dilation)
                    out[(slice(None), os) + pos] += x[(slice(None), xs) + taps] @ \
                        w[(os, slice(None)) + k].T
        if bias is not None:
            out += bias.reshape((-1,) + (1,) * nd)
        return out[0] if single else out
    return conv


def ref_conv_transpose(nd):
    """A direct scatter: every input position spreads its product with the kernel."""
    def conv_transpose(x, w, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                       dilation=1):
        x, single = _batched(x, nd)
        stride, dilation, kernel = _tuple(stride, nd), _tuple(dilation, nd), w.shape[2:]
        pads, extra = _tuple(padding, nd), _tuple(output_padding, nd)
        cin, og = w.shape[:2]
        cg = cin // groups
        full = tuple((n - 1) * s + d * (k - 1) + e + 1
                     for n, s, d, k, e in zip(x.shape[2:], stride, dilation, kernel, extra))
        out = np.zeros((x.shape[0], og * groups) + full, dtype=np.result_type(x, w))
        for g in range(groups):
            xs, os = slice(g * cg, (g + 1) * cg), slice(g * og, (g + 1) * og)
            for pos in itertools.product(*map(range, x.shape[2:])):
                for k in itertools.product(*map(range, kernel)):
                    taps = _taps(pos, k, stride, dilation)
                    out[(slice(None), os) + taps] += x[(slice(None), xs) + pos] @ \
                        w[(xs, slice(None)) + k]
        out = out[(slice(None),) * 2 + tuple(slice(p, n - p) for p, n in zip(pads, full))]
        if bias is not None:
            out += bias.reshape((-1,) + (1,) * nd)
        return out[0] if single else out
    return conv_transpose


def _ref_weight_grad(x, g, kernel_shape, stride, padding, dilation, groups):
    nd = len(kernel_shape)
    x = np.pad(x, ((0, 0), (0, 0)) + tuple(padding))
    o, cg = g.shape[1], x.shape[1] // groups
    og = o // groups
    out = np.zeros((o, cg) + tuple(kernel_shape), dtype=np.result_type(x, g))
    for grp in range(groups):
        xs, os = slice(grp * cg, (grp + 1) * cg), slice(grp * og, (grp + 1) * og)
        for pos in itertools.product(*map(range, g.shape[2:])):
            for k in itertools.product(*map(range, kernel_shape)):
                taps = _taps(pos, k, stride, dilation)
                out[(os, slice(None)) + k] += g[(slice(None), os) + pos].T @ \
                    x[(slice(None), xs) + taps]
    assert out.ndim == nd + 2
    return out


def ref_pool(nd, reduce):
    """Loop over output positions; the window is a slice of the padded input."""
    def pool(x, kernel_size, stride=None, padding=0, dilation=1, count_include_pad=True,
             divisor_override=None):
        kernel = _tuple(kernel_size, nd)
        stride = kernel if stride is None else _tuple(stride, nd)
        pads, dilation = _tuple(padding, nd), _tuple(dilation, nd)
        lead = x.ndim - nd
        fill = -np.inf if reduce == "max" else 0.0
        xp_ = np.pad(x, ((0, 0),) * lead + tuple((p, p) for p in pads), constant_values=fill)
        real = np.pad(np.ones(x.shape[lead:]), [(p, p) for p in pads])
        counts = _counts(xp_.shape[lead:], kernel, stride, dilation)
        out = np.zeros(x.shape[:lead] + counts, dtype=x.dtype)
        for pos in itertools.product(*map(range, counts)):
            index = tuple(slice(p * s, p * s + d * (k - 1) + 1, d)
                          for p, s, d, k in zip(pos, stride, dilation, kernel))
            window = xp_[(Ellipsis,) + index].reshape(x.shape[:lead] + (-1,))
            if reduce == "max":
                out[(Ellipsis,) + pos] = window.max(-1)
            else:
                divisor = divisor_override or (window.shape[-1] if count_include_pad
                                               else real[index].sum())
                out[(Ellipsis,) + pos] = window.sum(-1) / divisor
        return out
    return pool


def ref_group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    n, c = x.shape[:2]
    out = np.empty_like(x)
    for i in range(n):
        for g in range(num_groups):
            chunk = x[i, g * c // num_groups:(g + 1) * c // num_groups]
            out[i, g * c // num_groups:(g + 1) * c // num_groups] = \
                (chunk - chunk.mean()) / np.sqrt(chunk.var() + eps)
    shape = (c,) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _ref_window_sum(ct, shape, axes, window, stride, dilation):
    out = np.zeros(shape, dtype=ct.dtype)
    counts = [ct.shape[a] for a in axes]
    for pos in itertools.product(*map(range, counts)):
        for k in itertools.product(*map(range, window)):
            src, dst = [slice(None)] * len(shape), [slice(None)] * len(shape)
            for a, p, j, s, d in zip(axes, pos, k, stride, dilation):
                src[a], dst[a] = p, p * s + j * d
            out[tuple(dst)] += ct[tuple(src) + k]
    return out


def _first_argmax_positions(x, axes, window, stride, dilation):
    """(window position, element position) pairs: each window's first maximal element."""
    counts = _counts([x.shape[a] for a in axes], window, stride, dilation)
    lead = [i for i in range(x.ndim) if i not in axes]
    for outer in itertools.product(*(range(x.shape[i]) for i in lead)):
        for pos in itertools.product(*map(range, counts)):
            best, where = None, None
            for k in itertools.product(*map(range, window)):
                full = dict(zip(lead, outer))
                full.update({a: p * s + j * d
                             for a, p, j, s, d in zip(axes, pos, k, stride, dilation)})
                at = tuple(full[i] for i in range(x.ndim))
                if best is None or x[at] > best:
                    best, where = x[at], at
            window_at = dict(zip(lead, outer))
            window_at.update(zip(axes, pos))
            yield tuple(window_at[i] for i in range(x.ndim)), where


def _ref_select(x, u, axes, window, stride, dilation):
    counts = _counts([x.shape[a] for a in axes], window, stride, dilation)
    out_shape = list(x.shape)
    for a, n in zip(axes, counts):
        out_shape[a] = n
    out = np.zeros(out_shape, dtype=u.dtype)
    for pos, at in _first_argmax_positions(x, axes, window, stride, dilation):
        out[pos] = u[at]
    return out


def _ref_scatter(x, g, axes, window, stride, dilation):
    out = np.zeros(x.shape, dtype=g.dtype)
    for pos, at in _first_argmax_positions(x, axes, window, stride, dilation):
        out[at] += g[pos]
    return out


# -- samples ----------------------------------------------------------------------------------

def _conv2d(r):
    return [S(_a(r, 2, 3, 5, 5), _a(r, 4, 3, 3, 3)),
            S(_a(r, 2, 3, 5, 6), _a(r, 4, 3, 3, 2), _a(r, 4), stride=2, padding=1),
            S(_a(r, 1, 2, 6, 5), _a(r, 3, 2, 3, 3), padding="same", dilation=(2, 1)),
            S(_a(r, 2, 4, 5, 4), _a(r, 4, 2, 2, 3), _a(r, 4), groups=2),
            S(_a(r, 3, 5, 5), _a(r, 2, 3, 3, 3), _a(r, 2), padding=(1, 0), stride=(1, 2),
              name="f64_unbatched"),
            S(_a(r, 1, 2, 4, 4), _a(r, 2, 2, 2, 2), padding="valid"),
            S(_a(r, 2, 3, 5, 5, dtype=F32), _a(r, 4, 3, 3, 3, dtype=F32),
              _a(r, 4, dtype=F32), padding=1)]


def _conv1d(r):
    return [S(_a(r, 2, 3, 7), _a(r, 4, 3, 3)),
            S(_a(r, 2, 3, 8), _a(r, 2, 3, 3), _a(r, 2), stride=2, padding=1),
            S(_a(r, 1, 4, 7), _a(r, 6, 2, 2), groups=2, padding="same", dilation=2),
            S(_a(r, 3, 6), _a(r, 2, 3, 4), padding="same", name="f64_unbatched_even"),
            S(_a(r, 2, 3, 7, dtype=F32), _a(r, 4, 3, 3, dtype=F32), padding=1)]


def _conv_transpose2d(r):
    return [S(_a(r, 2, 3, 3, 3), _a(r, 3, 2, 3, 3)),
            S(_a(r, 1, 3, 3, 4), _a(r, 3, 2, 3, 2), _a(r, 2), stride=2, padding=1,
              output_padding=1),
            S(_a(r, 2, 4, 3, 3), _a(r, 4, 1, 2, 2), groups=2, stride=(2, 1), dilation=(1, 2)),
            S(_a(r, 1, 2, 3, 3), _a(r, 2, 2, 2, 2), dilation=3, output_padding=(2, 1),
              name="f64_output_padding_below_dilation"),
            S(_a(r, 3, 3, 3), _a(r, 3, 2, 2, 2), _a(r, 2), name="f64_unbatched"),
            S(_a(r, 2, 3, 3, 3, dtype=F32), _a(r, 3, 2, 3, 3, dtype=F32), stride=2)]


def _conv_transpose1d(r):
    return [S(_a(r, 2, 3, 4), _a(r, 3, 2, 3)),
            S(_a(r, 2, 2, 4), _a(r, 2, 3, 3), _a(r, 3), stride=3, padding=1, output_padding=2),
            S(_a(r, 2, 2, 4), _a(r, 2, 3, 2), dilation=2, output_padding=1, padding=1),
            S(_a(r, 3, 5, dtype=F32), _a(r, 3, 2, 2, dtype=F32), name="f32_unbatched")]


def _max_pool2d(r):
    e = dict(domain=EVEN)  # distinct values: no ties inside a window
    return [S(_a(r, 2, 3, 4, 4, **e), 2), S(_a(r, 2, 2, 5, 5, **e), 3, stride=2, padding=1),
            S(_a(r, 3, 5, 7, **e), (2, 3), stride=(1, 2), name="f64_unbatched"),
            S(_a(r, 1, 2, 5, 5, **e), 2, stride=1, dilation=2),
            S(_a(r, 1, 2, 4, 4, dtype=F32, **e) / 8, 2)]


def _max_pool1d(r):
    e = dict(domain=EVEN)
    return [S(_a(r, 2, 3, 6, **e), 2), S(_a(r, 2, 2, 7, **e), 3, stride=2, padding=1),
            S(_a(r, 3, 6, **e), 2, stride=1), S(_a(r, 2, 3, 6, dtype=F32, **e) / 8, 3)]


def _avg_pool2d(r):
    return [S(_a(r, 2, 3, 4, 4), 2), S(_a(r, 2, 2, 5, 5), 3, stride=2, padding=1),
            S(_a(r, 2, 2, 5, 5), 3, stride=2, padding=1, count_include_pad=False),
            S(_a(r, 3, 5, 6), (2, 3), stride=(1, 3), name="f64_unbatched"),
            S(_a(r, 1, 2, 4, 4), 2, divisor_override=3),
            S(_a(r, 2, 3, 4, 4, dtype=F32), 2)]


def _avg_pool1d(r):
    return [S(_a(r, 2, 3, 6), 2), S(_a(r, 2, 2, 7), 3, stride=2, padding=1),
            S(_a(r, 2, 2, 7), 3, stride=2, padding=1, count_include_pad=False),
            S(_a(r, 2, 3, 6, dtype=F32), 3)]


def _group_norm(r):
    return [S(_a(r, 2, 4, 3, 3), 2, _a(r, 4), _a(r, 4)), S(_a(r, 2, 4, 3, 3), 1),
            S(_a(r, 2, 4, 5), 4, _a(r, 4)), S(_a(r, 1, 6, 2, 2), 3, None, _a(r, 6)),
            S(_a(r, 2, 4, 3, 3, dtype=F32), 2, _a(r, 4, dtype=F32), _a(r, 4, dtype=F32))]


def _sliding_window_view(r):
    return [S(_a(r, 6), 3), S(_a(r, 4, 5), (2, 3)), S(_a(r, 4, 5), 2, axis=1),
            S(_a(r, 3, 4, 5), (2, 2), axis=(0, -1)), S(_a(r, 3, 4), 4, axis=1),
            S(_a(r, 4, 5, dtype=F32), (3, 2))]


def _conv_weight_grad(r):
    def kw(kernel, stride, padding, dilation=None, groups=1):
        nd = len(kernel)
        return dict(kernel_shape=kernel, stride=stride, padding=padding,
                    dilation=dilation or (1,) * nd, groups=groups)
    return [S(_a(r, 2, 3, 5, 5), _a(r, 2, 4, 3, 3), **kw((3, 3), (1, 1), ((0, 0), (0, 0)))),
            S(_a(r, 1, 4, 5, 4), _a(r, 1, 2, 3, 3), **kw((2, 2), (2, 1), ((1, 0), (0, 1)),
                                                         (1, 2), groups=2)),
            S(_a(r, 2, 2, 7), _a(r, 2, 3, 4), **kw((3,), (2,), ((1, 1),))),
            S(_a(r, 2, 3, 5, 5, dtype=F32), _a(r, 2, 4, 5, 5, dtype=F32),
              **kw((3, 3), (1, 1), ((1, 1), (1, 1))))]


def _sliding_window_sum(r):
    def kw(shape, axes, window, stride, dilation):
        return dict(shape=shape, axes=axes, window=window, stride=stride, dilation=dilation)
    return [S(_a(r, 2, 3, 2, 2, 2), **kw((2, 4, 5), (1, 2), (2, 2), (1, 2), (1, 1))),
            S(_a(r, 2, 2), **kw((7,), (0,), (2,), (2,), (3,))),
            S(_a(r, 2, 2, 3, dtype=F32), **kw((2, 5), (1,), (3,), (2,), (1,)))]


def _pool_pairs(second_shape_of):
    """Samples of select (second operand shaped like x) or scatter (shaped like the pooled
    output); x has distinct values, so each window's argmax is unique and stable."""
    def samples(r):
        cases = [((2, 3, 4, 4), dict(axes=(2, 3), window=(2, 2), stride=(2, 2),
                                     dilation=(1, 1))),
                 ((2, 5, 5), dict(axes=(1, 2), window=(3, 3), stride=(1, 2), dilation=(1, 1))),
                 ((3, 7), dict(axes=(1,), window=(2,), stride=(2,), dilation=(2,)))]
        out = [S(_a(r, *shape, domain=EVEN), _a(r, *second_shape_of(shape, kw)), **kw)
               for shape, kw in cases]
        shape, kw = cases[0]
        out.append(S(_a(r, *shape, dtype=F32, domain=EVEN),
                     _a(r, *second_shape_of(shape, kw), dtype=F32), **kw))
        return out
    return samples


def _pooled_shape(shape, kw):
    counts = _counts([shape[a] for a in kw["axes"]], kw["window"], kw["stride"], kw["dilation"])
    out = list(shape)
    for a, n in zip(kw["axes"], counts):
        out[a] = n
    return tuple(out)


_TOL = {"rtol": {F32: 1e-4, F64: 1e-10}, "atol": {F32: 1e-5, F64: 1e-12}}


def _nn(name, ref, samples, **kw):
    return OpInfo(f"nn.{name}", getattr(nn, name), ref, samples, numpy_fn=None,
                  **{**_TOL, **kw})


ENTRIES = [
    _nn("conv1d", ref_conv(1), _conv1d),
    _nn("conv2d", ref_conv(2), _conv2d),
    _nn("conv_transpose1d", ref_conv_transpose(1), _conv_transpose1d),
    _nn("conv_transpose2d", ref_conv_transpose(2), _conv_transpose2d),
    _nn("max_pool1d", ref_pool(1, "max"), _max_pool1d, doc="distinct values: no ties"),
    _nn("max_pool2d", ref_pool(2, "max"), _max_pool2d, doc="distinct values: no ties"),
    _nn("avg_pool1d", ref_pool(1, "mean"), _avg_pool1d),
    _nn("avg_pool2d", ref_pool(2, "mean"), _avg_pool2d),
    _nn("group_norm", ref_group_norm, _group_norm),
    OpInfo("lib.stride_tricks.sliding_window_view", fnp.lib.stride_tricks.sliding_window_view,
           np.lib.stride_tricks.sliding_window_view, _sliding_window_view,
           numpy_fn=np.lib.stride_tricks.sliding_window_view),
    OpInfo("ops.conv_weight_grad", cv.conv_weight_grad, _ref_weight_grad, _conv_weight_grad,
           doc="the weight gradient of conv, a primitive that only derivatives reach", **_TOL),
    OpInfo("ops.sliding_window_sum", cv.sliding_window_sum, _ref_window_sum,
           _sliding_window_sum,
           doc="the adjoint of sliding_window, a primitive that only derivatives reach", **_TOL),
    OpInfo("ops.pool_max_select", pl.pool_max_select, _ref_select,
           _pool_pairs(lambda shape, kw: shape),
           doc="the jvp of max pooling; piecewise constant in x (distinct values)", **_TOL),
    OpInfo("ops.pool_max_scatter", pl.pool_max_scatter, _ref_scatter,
           _pool_pairs(_pooled_shape),
           doc="the vjp of max pooling; piecewise constant in x (distinct values)", **_TOL),
]
