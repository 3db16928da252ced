"""Batching rules of the shape ops. Most keep the batch dim where it is and only shift the
logical axes past it; reshape moves it first (or last for Fortran order)."""
from ..ops import shape as sh
from ..numpy._util import known_shape, ndim, normalize_axis, shape as shape_of
from .helpers import batch_size, broadcast_batch, flatten_examples, move_bdim, \
    move_bdim_to_front, physical_axis


@sh.copy.def_batch_rule
def copy_batch_rule(args, bdims, order="K"):
    return sh.copy(args[0], order=order), bdims[0]


@sh.reshape.def_batch_rule
def reshape_batch_rule(args, bdims, shape, order="C"):
    x, bdim = args[0], bdims[0]
    s = shape_of(x)
    size = s[bdim]
    shape = known_shape(shape, s[:bdim] + s[bdim + 1:])  # B * -1 is ambiguous when B = 0
    if order == "F":  # examples are contiguous blocks in Fortran order when the batch is last
        x = move_bdim(x, bdim, ndim(x) - 1)
        return sh.reshape(x, shape=tuple(shape) + (size,), order=order), len(shape)
    x = move_bdim_to_front(x, bdim)
    return sh.reshape(x, shape=(size,) + tuple(shape), order=order), 0


@sh.transpose.def_batch_rule
def transpose_batch_rule(args, bdims, axes=None):
    x, bdim = args[0], bdims[0]
    rank = ndim(x) - 1
    axes = tuple(reversed(range(rank))) if axes is None else axes
    perm = (bdim,) + tuple(physical_axis(normalize_axis(a, rank), bdim) for a in axes)
    return sh.transpose(x, axes=perm), 0


@sh.broadcast_to.def_batch_rule
def broadcast_to_batch_rule(args, bdims, shape):
    """Right-aligned broadcasting keeps the batch dim in place: it lands at the target's
    position bdim + (new rank - old rank)."""
    x, bdim = args[0], bdims[0]
    shift = len(shape) - (ndim(x) - 1)
    pos = bdim + shift
    size = shape_of(x)[bdim]
    target = tuple(shape[:pos]) + (size,) + tuple(shape[pos:])
    return sh.broadcast_to(x, shape=target), pos


@sh.concatenate.def_batch_rule
def concatenate_batch_rule(args, bdims, axis=0):
    """Batched operands take the first one's batch dim; unbatched ones are broadcast to the
    batch (a view: concatenate copies them anyway)."""
    size = batch_size(args, bdims)
    dest = next(d for d in bdims if d is not None)
    rank = ndim(args[bdims.index(dest)]) - 1
    if axis is None:
        flat = [flatten_examples(broadcast_batch(a, d, size, 0)) for a, d in zip(args, bdims)]
        return sh.concatenate(*flat, axis=1), 0
    parts = [broadcast_batch(a, d, size, dest) for a, d in zip(args, bdims)]
    return sh.concatenate(*parts, axis=physical_axis(normalize_axis(axis, rank), dest)), dest


@sh.split.def_batch_rule
def split_batch_rule(args, bdims, points, axis=0):
    """The pieces along the physical axis; each keeps the batch dim where it was."""
    x, bdim = args[0], bdims[0]
    outs = sh.split(x, points=points, axis=physical_axis(axis, bdim))
    return outs, (bdim,) * len(outs)


@sh.unstack.def_batch_rule
def unstack_batch_rule(args, bdims, axis=0):
    """The slices along the physical axis; each keeps the batch dim, shifted past the axis."""
    x, bdim = args[0], bdims[0]
    ax = physical_axis(axis, bdim)
    outs = sh.unstack(x, axis=ax)
    return outs, (bdim if bdim < ax else bdim - 1,) * len(outs)


@sh.pad.def_batch_rule
def pad_batch_rule(args, bdims, pad_width, constant_values=0):
    x, bdim = args[0], bdims[0]
    widths = tuple(pad_width[:bdim]) + ((0, 0),) + tuple(pad_width[bdim:])
    return sh.pad(x, pad_width=widths, constant_values=constant_values), bdim


@sh.diagonal.def_batch_rule
def diagonal_batch_rule(args, bdims, offset=0, axis1=0, axis2=1):
    """The diagonal replaces axis1 and axis2 by a last axis: the batch dim shifts left by the
    number of those before it."""
    x, bdim = args[0], bdims[0]
    rank = ndim(x) - 1
    a1 = physical_axis(normalize_axis(axis1, rank), bdim)
    a2 = physical_axis(normalize_axis(axis2, rank), bdim)
    out = sh.diagonal(x, offset=offset, axis1=a1, axis2=a2)
    return out, bdim - (a1 < bdim) - (a2 < bdim)


@sh.roll.def_batch_rule
def roll_batch_rule(args, bdims, shift, axis=None):
    x, bdim = args[0], bdims[0]
    rank = ndim(x) - 1
    if axis is None:
        x = move_bdim_to_front(x, bdim)
        s = shape_of(x)
        flat = sh.roll(flatten_examples(x), shift=shift, axis=1)
        return sh.reshape(flat, shape=s), 0
    if isinstance(axis, (tuple, list)):
        phys = tuple(physical_axis(normalize_axis(a, rank), bdim) for a in axis)
    else:
        phys = physical_axis(normalize_axis(axis, rank), bdim)
    return sh.roll(x, shift=shift, axis=phys), bdim

