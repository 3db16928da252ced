"""Pooling primitives: a reduction over every window, computed as one elementwise op per
window offset on strided slices of the input (k*k ops for a k x k window). NumPy's reductions
over the small trailing axes of a window view run 20 to 100 times slower than that.

All take the pooled `axes` and their `window`, `stride` and `dilation` (padding is a pad op
before them). Max pooling follows PyTorch and JAX: each window's gradient goes to its first
maximal element, so three primitives close under differentiation. A window whose maximum is
NaN passes no derivative at all (Note [NaN in a max pool]).

  pool_max(x)               the max of each window
  pool_max_select(x, u)     u at the first argmax of each window of x (the jvp of pool_max)
  pool_max_scatter(x, g)    g added at those positions (the adjoint of select: the vjp)
"""
from ..dispatch import defop
from .conv import window_counts, window_offsets


def _slices(x, axes, window, stride, dilation):
    counts = window_counts([x.shape[a] for a in axes], window, stride, dilation)
    if min(counts, default=1) <= 0:
        raise ValueError(f"window {tuple(window)} (dilation {tuple(dilation)}) is larger than "
                         f"the input's dims {tuple(x.shape[a] for a in axes)}")
    return [index for _, index in window_offsets(x.ndim, axes, counts, window, stride,
                                                 dilation)]


def _pool_sum_kernel(xp, x, *, axes, window, stride, dilation):
    first, *rest = _slices(x, axes, window, stride, dilation)
    out = xp.array(x[first], copy=True)
    for index in rest:
        xp.add(out, x[index], out=out)
    return out


def _pool_max_kernel(xp, x, *, axes, window, stride, dilation):
    first, *rest = _slices(x, axes, window, stride, dilation)
    out = xp.array(x[first], copy=True)
    for index in rest:
        xp.maximum(out, x[index], out=out)
    return out


# Note [NaN in a max pool]
# A window holding a NaN has the maximum NaN (np.maximum propagates it), and no element equals
# NaN, so the window's derivative reaches no element: select gives 0 there, scatter adds
# nothing. The XLA lowering (compiler/xla_conv.py) masks those windows to match; JAX's own
# select-and-scatter would give the derivative to an element its comparisons pick, and
# PyTorch's to the NaN.


def _first_max_masks(xp, x, slices):
    """For each window offset: (its slice, where that offset holds its window's first
    maximum), from the windows' maxima and one comparison per offset."""
    best = xp.array(x[slices[0]], copy=True)
    for index in slices[1:]:
        xp.maximum(best, x[index], out=best)
    taken = None
    for index in slices:
        hit = x[index] == best
        if taken is None:
            taken = hit.copy()
        else:
            hit &= ~taken
            taken |= hit
        yield index, hit


def _pool_max_select_kernel(xp, x, u, *, axes, window, stride, dilation):
    slices = _slices(x, axes, window, stride, dilation)
    out = xp.zeros(x[slices[0]].shape, dtype=u.dtype)
    for index, hit in _first_max_masks(xp, x, slices):
        xp.copyto(out, u[index], where=hit)
    return out


def _pool_max_scatter_kernel(xp, x, g, *, axes, window, stride, dilation):
    slices = _slices(x, axes, window, stride, dilation)
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(window, stride, dilation))
    out = xp.zeros(x.shape, dtype=g.dtype)
    for index, hit in _first_max_masks(xp, x, slices):
        if disjoint:              # each element lies in one window at most: no accumulation
            out[index] = xp.where(hit, g, 0)
        else:
            out[index] += xp.where(hit, g, 0)
    return out


pool_sum = defop("pool_sum", _pool_sum_kernel,
                 doc="The sum of each window of x along `axes` (average pooling divides it).")
pool_max = defop("pool_max", _pool_max_kernel, doc="The max of each window of x along `axes`.")
pool_max_select = defop(
    "pool_max_select", _pool_max_select_kernel,
    doc="u at the first argmax of each window of x; linear in u, constant in x.")
pool_max_scatter = defop(
    "pool_max_scatter", _pool_max_scatter_kernel,
    doc="g (one value per window) added into an array shaped like x at each window's first "
        "argmax; linear in g, constant in x.")
