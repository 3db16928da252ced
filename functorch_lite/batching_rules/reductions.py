"""Batching rules of the reductions and scans (see helpers.py for the families)."""
from ..ops import reductions as red
from .helpers import along_axis, index_reduction, reduction

for _op in [red.sum, red.prod, red.max, red.min, red.all, red.any]:
    reduction(_op)

for _op in [red.argmax, red.argmin]:
    index_reduction(_op)

for _op in [red.cumsum, red.cumprod, red.sort, red.argsort]:
    along_axis(_op)
