"""Batching rules of the scipy.linalg primitives: all take stacks of matrices."""
from .. import numpy as fnp
from ..ops import scipy_linalg as sla
from .helpers import logical_rank, move_bdim_to_front, stacked_matrix

stacked_matrix(sla.lu_factor)
stacked_matrix(sla.expm)


@sla.solve_triangular.def_batch_rule
def solve_triangular_batch_rule(args, bdims, **params):
    """The kernel broadcasts stack dims from the right: each batched operand gets its batch
    dim first and unit dims after it up to the larger example rank, so the batch lines up
    with the batch and an unbatched operand meets every example as it is."""
    rank = max(logical_rank(x, d) for x, d in zip(args, bdims))
    moved = []
    for x, d in zip(args, bdims):
        if d is not None:
            x = move_bdim_to_front(x, d)
            s = fnp.shape(x)
            x = fnp.reshape(x, s[:1] + (1,) * (rank + 1 - len(s)) + s[1:])
        moved.append(x)
    return sla.solve_triangular(*moved, **params), 0


@sla.pivots_to_permutation.def_batch_rule
def pivots_to_permutation_batch_rule(args, bdims):
    """The kernel takes stacks of pivot vectors: the batch goes first."""
    return sla.pivots_to_permutation(move_bdim_to_front(args[0], bdims[0])), 0
