"""Batching rules of the pooling ops: the pooled axes are mapped past the batch dim, which
stays where it is (one kernel call for the whole batch). select/scatter take two operands: both
get the batch dim first, an unbatched one broadcast (a view)."""
from ..ops import pool as pl
from .helpers import batch_size, broadcast_batch, physical_axis


def _one_operand(op):
    def pool_batch_rule(args, bdims, axes, **params):
        x, bdim = args[0], bdims[0]
        return op(x, axes=tuple(physical_axis(a, bdim) for a in axes), **params), bdim
    op.def_batch_rule(pool_batch_rule)


def _two_operands(op):
    def pool_pair_batch_rule(args, bdims, axes, **params):
        size = batch_size(args, bdims)
        x, v = (broadcast_batch(a, d, size, dest=0) for a, d in zip(args, bdims))
        return op(x, v, axes=tuple(a + 1 for a in axes), **params), 0
    op.def_batch_rule(pool_pair_batch_rule)


_one_operand(pl.pool_sum)
_one_operand(pl.pool_max)
_two_operands(pl.pool_max_select)
_two_operands(pl.pool_max_scatter)
