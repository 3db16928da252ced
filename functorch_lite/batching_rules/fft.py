"""Batching rules of the DFT primitives: the batch dim goes first and the transformed axes
(logical, non-negative) shift past it; NumPy's fftn loops over the leading dims itself."""
from ..ops import fft as _fft
from .helpers import move_bdim_to_front


def _axes_past_batch(op):
    def fft_batch_rule(args, bdims, axes, **params):
        x, = args
        x = move_bdim_to_front(x, bdims[0])
        return op(x, axes=tuple(a + 1 for a in axes), **params), 0
    fft_batch_rule.__name__ = f"{op.name}_batch_rule"
    op.def_batch_rule(fft_batch_rule)


for _op in (_fft.fftn, _fft.ifftn, _fft.rfftn, _fft.irfftn):
    _axes_past_batch(_op)
