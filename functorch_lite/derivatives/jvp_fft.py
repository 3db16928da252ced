"""jvp rules of the DFT primitives: each is linear, so the tangent is the same transform of
the tangent (with the same axes, lengths and norm)."""
from ..ops import fft as _fft
from .jvp_helpers import def_linear

for _op in (_fft.fftn, _fft.ifftn, _fft.rfftn, _fft.irfftn):
    def_linear(_op)
