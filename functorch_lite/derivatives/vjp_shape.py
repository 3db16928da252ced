"""vjp rules of the shape ops: each is the op's linear transpose."""
import numpy as np

from .. import numpy as fnp
from ..ops import elementwise as ew, shape as sh
from ..numpy._util import xp_of
from ..ops.indexing import ARRAY, scatter
from .vjp_helpers import defvjp, shape_of


def _transpose_vjp(g, out, x, axes=None):
    nd = len(shape_of(x))
    if axes is None:
        return sh.transpose(g, axes=None)
    inverse = tuple(int(i) for i in np.argsort([a % nd for a in axes]))
    return sh.transpose(g, axes=inverse)


def _concatenate_vjp(g, xs, out, needed=None, *, axis=0):
    """The slice of g that each operand filled; the offsets are summed once, so the rule is
    linear in the number of operands (a scan's stacked outputs have one per step)."""
    cts, start = [], 0
    for i, x in enumerate(xs):
        shape = shape_of(x)
        if axis is None:
            size = int(np.prod(shape, dtype=np.int64))
            piece = (sh.reshape(g[start:start + size], shape=shape)
                     if needed is None or needed[i] else None)
        else:
            ax = axis % len(shape)
            size = shape[ax]
            piece = (g[(slice(None),) * ax + (slice(start, start + size),)]
                     if needed is None or needed[i] else None)
        cts.append(piece)
        start += size
    return tuple(cts)


_concatenate_vjp.takes_needed = True


def _split_vjp(ct, primals, out, points, axis=0):
    """The pieces' cotangents concatenated back, zeros for those that got none; pieces that
    do not tile the axis (split points out of order overlap, as NumPy's slices do) each padded
    back into place and added."""
    x, = primals
    n = shape_of(x)[axis]
    bounds = [slice(lo, hi).indices(n)[:2] for lo, hi in zip(points[:-1], points[1:])]
    parts = [fnp.zeros(shape_of(o), dtype=x.dtype, like=x) if c is None else c
             for c, o in zip(ct, out)]
    tiles = bounds[0][0] == 0 and bounds[-1][1] == n and all(
        b[0] == a[1] and b[1] >= b[0] for a, b in zip(bounds, bounds[1:]))
    if tiles:
        return (sh.concatenate(*parts, axis=axis) if len(parts) > 1 else parts[0],)
    total = None
    for part, (lo, hi) in zip(parts, bounds):
        width = [(0, 0)] * len(shape_of(x))
        width[axis] = (lo, n - lo - shape_of(part)[axis])
        placed = sh.pad(part, pad_width=tuple(width))
        total = placed if total is None else ew.add(total, placed)
    return (total,)


def _unstack_vjp(ct, primals, out, axis=0):
    """The slices' cotangents stacked back along the axis, zeros for those that got none: one
    op however many slices (a scan slices its xs once)."""
    x, = primals
    if not out:
        return (fnp.zeros(shape_of(x), dtype=x.dtype, like=x),)
    return (fnp.stack([fnp.zeros(shape_of(o), dtype=x.dtype, like=x) if c is None else c
                       for c, o in zip(ct, out)], axis=axis),)


def _pad_vjp(g, out, x, pad_width, constant_values=0):
    return g[tuple(slice(before, before + d) for (before, _), d in zip(pad_width, shape_of(x)))]


def _diagonal_vjp(g, out, x, offset=0, axis1=0, axis2=1):
    """Scatter g onto the diagonal of zeros shaped like x (axis1, axis2 moved last)."""
    shape = shape_of(x)
    nd = len(shape)
    a1, a2 = axis1 % nd, axis2 % nd
    rest = [i for i in range(nd) if i not in (a1, a2)]
    n = shape_of(g)[-1]
    xp = xp_of(x)
    rows = xp.arange(n) + max(-offset, 0)
    cols = xp.arange(n) + max(offset, 0)
    zeros = fnp.zeros(tuple(shape[i] for i in rest) + (shape[a1], shape[a2]), dtype=x.dtype,
                      like=x)
    moved = scatter(zeros, g, rows, cols, index=(Ellipsis, ARRAY, ARRAY), mode="add")
    order = rest + [a1, a2]
    return sh.transpose(moved, axes=tuple(int(i) for i in np.argsort(order)))


def _roll_vjp(g, out, x, shift, axis=None):
    back = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    if axis is None:
        return sh.reshape(sh.roll(sh.reshape(g, shape=(-1,)), shift=back, axis=0),
                          shape=shape_of(x))
    return sh.roll(g, shift=back, axis=axis)


defvjp(sh.reshape, lambda g, o, x, shape, order="C": sh.reshape(g, shape=shape_of(x),
                                                                  order=order))
defvjp(sh.transpose, _transpose_vjp)
defvjp(sh.copy, lambda g, o, x, order="K": g)
defvjp(sh.broadcast_to, lambda g, o, x, shape: g)  # summed down by reverse mode
sh.concatenate.def_vjp(_concatenate_vjp)
sh.unstack.def_vjp(_unstack_vjp)
sh.split.def_vjp(_split_vjp)
defvjp(sh.pad, _pad_vjp)
defvjp(sh.diagonal, _diagonal_vjp)
defvjp(sh.roll, _roll_vjp)
