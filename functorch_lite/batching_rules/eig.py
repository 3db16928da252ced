"""Batching rules of eig and eigvals: stacks of matrices."""
from ..ops import eig
from .helpers import stacked_matrix

stacked_matrix(eig.eig)
stacked_matrix(eig.eigvals)
