"""Family helpers for batching rules: most ops register in one line through these.

A batching rule gets the unwrapped operands `args`, their batch dims `bdims` (int or None) and
the op's static params, and returns `(out, out_bdim)`. Rules compute only with library ops, so
they are themselves transformable (vmap of vmap, vmap of grad). Axes in params are *logical*
(per example); `physical_axis` maps them past the batch dim. Rules move a batch dim only when
the kernel needs it elsewhere (a transpose is a view), and leave unbatched operands unbroadcast.
"""
from numbers import Number

from .. import numpy as fnp
from ..numpy._util import ndim as _generic_ndim, normalize_axis, shape


def ndim(x):
    """Rank of an operand (array, wrapper or Python scalar), without NumPy's slow path."""
    nd = getattr(x, "ndim", None)
    if nd is not None:
        return nd
    return 0 if isinstance(x, Number) else _generic_ndim(x)


def batch_size(args, bdims):
    """The batch size, read off the first batched operand."""
    for a, d in zip(args, bdims):
        if d is not None:
            return shape(a)[d]
    raise ValueError("no batched operand")


def logical_rank(x, bdim):
    """Rank of one example of x."""
    return ndim(x) - (bdim is not None)


def move_bdim_to_front(x, bdim):
    """x with its batch dim first (a transposed view); unbatched x is returned as it is."""
    if bdim is None or bdim == 0:
        return x
    return fnp.moveaxis(x, bdim, 0)


def move_bdim(x, bdim, dest):
    """x with its batch dim moved to `dest` (a view)."""
    return x if bdim == dest else fnp.moveaxis(x, bdim, dest)


def physical_axis(axis, bdim):
    """The axis of the batched array that logical axis `axis` (non-negative) refers to."""
    return axis + 1 if axis >= bdim else axis


def logical_axes(axis, rank):
    """Non-negative logical axes for `axis` (None = all, int, tuple), or NumPy's AxisError."""
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, (tuple, list)):
        return tuple(normalize_axis(a, rank) for a in axis)
    return (normalize_axis(axis, rank),)


def batched_front(x, bdim, size, rank):
    """x as (B, 1, ..., 1, *example_shape) with `rank` example dims: for batched x its batch dim
    moved first and unit dims inserted; unbatched x is left as it is (broadcasting aligns it)."""
    if bdim is None:
        return x
    x = move_bdim_to_front(x, bdim)
    s = shape(x)
    if len(s) - 1 == rank:
        return x
    return fnp.reshape(x, (s[0],) + (1,) * (rank - len(s) + 1) + s[1:])


def flatten_examples(x):
    """x (batch dim first) as (B, n): each example flattened. The example size is spelled out,
    not -1, so an empty batch (B = 0) reshapes too."""
    s = shape(x)
    n = 1
    for d in s[1:]:
        n *= d
    return fnp.reshape(x, (s[0], n))


def broadcast_batch(x, bdim, size, dest=0):
    """x with a batch dim at `dest`; an unbatched x is broadcast (a view) to the batch size."""
    if bdim is not None:
        return move_bdim(x, bdim, dest)
    s = shape(x)
    x = fnp.reshape(x, s[:dest] + (1,) + s[dest:])
    return fnp.broadcast_to(x, s[:dest] + (size,) + s[dest:])


# -- families ----------------------------------------------------------------------------------

def elementwise(op):
    """Rule of a one-operand elementwise op (static params pass through): the batch dim stays
    where it is."""
    def elementwise_batch_rule(args, bdims, **params):
        return op(args[0], **params), bdims[0]
    op.def_batch_rule(elementwise_batch_rule)
    return op


def broadcasting(op):
    """Rule of an n-operand op with NumPy broadcasting (add, where, ...).

    Fast path: when every batched operand has the same number of dims after its batch dim and
    no unbatched operand reaches past them, physical broadcasting already lines the examples
    up and the kernel runs on the values as they are. Otherwise batched operands get their
    batch dim first, padded with unit dims; unbatched operands are never materialized.
    """
    def broadcasting_batch_rule(args, bdims, **params):
        trailing, unbatched_rank, out_rank = None, 0, 0
        aligned = True
        for a, d in zip(args, bdims):
            nd = ndim(a)
            if d is None:
                unbatched_rank = max(unbatched_rank, nd)
                out_rank = max(out_rank, nd)
                continue
            out_rank = max(out_rank, nd - 1)
            t = nd - 1 - d
            if trailing is None:
                trailing = t
            elif t != trailing:
                aligned = False
        if aligned and unbatched_rank <= trailing:
            out = op(*args, **params)
            return out, ndim(out) - 1 - trailing
        size = batch_size(args, bdims)
        new = [batched_front(a, d, size, out_rank) for a, d in zip(args, bdims)]
        return op(*new, **params), 0
    op.def_batch_rule(broadcasting_batch_rule)
    return op


def reduction(op):
    """Rule of a reduction over `axis` (None, int or tuple) with `keepdims`: the logical axes
    are mapped past the batch dim, which stays in place."""
    def reduction_batch_rule(args, bdims, axis=None, keepdims=False, **params):
        x, bdim = args[0], bdims[0]
        axes = logical_axes(axis, ndim(x) - 1)
        phys = tuple(physical_axis(a, bdim) for a in axes)
        out = op(x, axis=phys, keepdims=keepdims, **params)
        out_bdim = bdim if keepdims else bdim - sum(1 for a in phys if a < bdim)
        return out, out_bdim
    op.def_batch_rule(reduction_batch_rule)
    return op


def index_reduction(op):
    """Rule of argmax/argmin: one axis or None (the flattened example)."""
    def index_reduction_batch_rule(args, bdims, axis=None, keepdims=False):
        x, bdim = args[0], bdims[0]
        rank = ndim(x) - 1
        if axis is None:
            x = move_bdim_to_front(x, bdim)
            out = op(flatten_examples(x), axis=1)
            if keepdims:
                out = fnp.reshape(out, (shape(out)[0],) + (1,) * rank)
            return out, 0
        phys = physical_axis(normalize_axis(axis, rank), bdim)
        out = op(x, axis=phys, keepdims=keepdims)
        return out, bdim if keepdims or phys > bdim else bdim - 1
    op.def_batch_rule(index_reduction_batch_rule)
    return op


def along_axis(op, flatten_none=True):
    """Rule of an op along one `axis` that keeps the shape (cumsum, sort, ...); axis None means
    the flattened example."""
    def along_axis_batch_rule(args, bdims, axis=None, **params):
        x, bdim = args[0], bdims[0]
        if axis is None:
            x = move_bdim_to_front(x, bdim)
            return op(flatten_examples(x), axis=1, **params), 0
        return op(x, axis=physical_axis(normalize_axis(axis, ndim(x) - 1), bdim), **params), bdim
    op.def_batch_rule(along_axis_batch_rule)
    return op


def stacked_matrix(op, core_rank=2):
    """Rule of a one-operand op over stacks of matrices (inv, det, eigh, ...): any batch dim
    among the stack dims works as it is; one among the matrix dims is moved first."""
    def stacked_matrix_batch_rule(args, bdims, **params):
        x, bdim = args[0], bdims[0]
        if bdim >= ndim(x) - core_rank:
            x, bdim = move_bdim_to_front(x, bdim), 0
        out = op(x, **params)
        if op.multiple_results:
            return out, (bdim,) * len(out)
        return out, bdim
    op.def_batch_rule(stacked_matrix_batch_rule)
    return op
