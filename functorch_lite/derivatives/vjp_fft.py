"""vjp rules of the DFT primitives: transposes of linear maps (docs/autodiff.md, "Complex
numbers": the transpose, not the Hermitian adjoint).

The DFT matrix F (F_jk = w^{jk}, in every normalization) is symmetric, so the transpose of
fftn is fftn and that of ifftn is ifftn, with the same norm. rfftn is "fftn, then keep the
first n // 2 + 1 terms of the last axis": its transpose pads the cotangent back with zeros,
applies fftn and keeps the real part (the input is real). irfftn reads each kept term of the
last axis for itself and for its mirror image, except the zero frequency (and the Nyquist term
of an even n): its transpose is ifftn of the cotangent, cut to n // 2 + 1 terms, those terms
doubled.
"""
from .. import numpy as fnp
from ..numpy._util import ndim, shape
from ..ops import elementwise as ew, fft as _fft
from .vjp_helpers import defvjp


def _along(x, axis, start, stop):
    return fnp.getitem(x, (slice(None),) * axis + (slice(start, stop),))


def _rfftn_vjp(g, out, x, axes, norm=None):
    axis = axes[-1]
    widths = [(0, 0)] * ndim(g)
    widths[axis] = (0, shape(x)[axis] - shape(g)[axis])
    return ew.real(_fft.fftn(fnp.pad(g, widths), axes=axes, norm=norm))


def _doubled_mirror_terms(h, axis, n):
    """h with its terms 1 .. (n - 1) // 2 along axis doubled: each stands for itself and its
    mirror n - k in the full spectrum."""
    m = shape(h)[axis]
    last = m - 1 if n % 2 == 0 else m      # the Nyquist term of an even n has no mirror
    pieces = [_along(h, axis, 0, 1)]
    if last > 1:
        pieces.append(ew.multiply(_along(h, axis, 1, last), 2.0))
    if last < m:
        pieces.append(_along(h, axis, last, m))
    return fnp.concatenate(pieces, axis=axis)


def _irfftn_vjp(g, out, x, axes, n, norm=None):
    axis = axes[-1]
    h = _along(_fft.ifftn(g, axes=axes, norm=norm), axis, 0, shape(x)[axis])
    return _doubled_mirror_terms(h, axis, n)


defvjp(_fft.fftn, lambda g, out, x, axes, norm=None: _fft.fftn(g, axes=axes, norm=norm))
defvjp(_fft.ifftn, lambda g, out, x, axes, norm=None: _fft.ifftn(g, axes=axes, norm=norm))
defvjp(_fft.rfftn, _rfftn_vjp)
defvjp(_fft.irfftn, _irfftn_vjp)
