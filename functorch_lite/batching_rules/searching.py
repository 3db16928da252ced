"""Batching rules of searchsorted and argpartition."""
from .. import numpy as fnp
from ..ops import searching
from .helpers import along_axis, move_bdim_to_front, ndim

along_axis(searching.argpartition)


@searching.searchsorted.def_batch_rule
def searchsorted_batch_rule(args, bdims, side="left"):
    """Unbatched sorted array: v's batch dim passes through the kernel. Batched sorted arrays
    (a batch of 1-d tables): the index is the count of table entries below v (or not above v,
    for side='right'), one comparison per pair, with the table's axis last."""
    (a, v), (da, dv) = args, bdims
    if da is None:
        return searching.searchsorted(a, v, side=side), dv
    a = move_bdim_to_front(a, da)                       # (B, n)
    v = move_bdim_to_front(v, dv) if dv is not None else v
    nv = ndim(v) - (dv is not None)
    b = fnp.shape(a)[0]
    table = fnp.reshape(a, (b,) + (1,) * nv + (fnp.shape(a)[1],))
    if ndim(v):  # an unbatched v broadcasts over the tables; a NumPy scalar stays a scalar,
        v = fnp.expand_dims(v, -1)  # which device tables take (expand_dims would make a host array)
    below = fnp.less(table, v) if side == "left" else fnp.less_equal(table, v)
    return fnp.sum(below, axis=-1), 0
