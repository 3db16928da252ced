"""Batching rules of the scipy.linalg primitives: all take stacks of matrices."""
from ..ops import scipy_linalg as sla
from .helpers import move_bdim_to_front, stacked_matrix

stacked_matrix(sla.lu_factor)
stacked_matrix(sla.expm)


@sla.pivots_to_permutation.def_batch_rule
def pivots_to_permutation_batch_rule(args, bdims):
    """The kernel takes stacks of pivot vectors: the batch goes first."""
    return sla.pivots_to_permutation(move_bdim_to_front(args[0], bdims[0])), 0
