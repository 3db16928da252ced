"""Discrete Fourier transform primitives over explicit axes, as numpy.fft (and cupy.fft).

Four linear primitives; the public functions (functorch_lite.numpy.fft) normalize axes to
non-negative tuples and pad or truncate the input to the transform lengths first, so the
primitives never resize: fftn/ifftn keep every length, rfftn halves the last transformed axis
to n // 2 + 1, and irfftn takes that half back to `n` (which an odd or even n leaves ambiguous,
so it is a parameter). `norm` is NumPy's: "backward" (None), "ortho" or "forward".
"""
import numpy as np

from ..dispatch import defop


def _check_norm(norm):
    if norm not in (None, "backward", "ortho", "forward"):
        raise ValueError(f'invalid norm {norm!r}: expected None, "backward", "ortho" or '
                         f'"forward"')
    return norm


def _empty(xp, x, axes, last, real=False):
    """The transform of an x with no elements but nonzero transform lengths (only other axes
    empty), made without transforming: cuFFT's N-d plan refuses any zero-length axis ("Invalid
    number of FFT data points (0)") where NumPy returns an empty array. The last transformed
    axis is `last` long; the dtype is the transform's, complex (or real for irfftn)."""
    shape = list(x.shape)
    shape[axes[-1]] = last
    dtype = np.result_type(x.dtype, np.complex64)
    return xp.empty(tuple(shape), dtype=np.finfo(dtype).dtype if real else dtype)


def _transform(name, last=lambda x, axes: x.shape[axes[-1]]):
    def kernel(xp, x, axes, norm=None):
        _check_norm(norm)
        if x.size == 0 and all(x.shape[a] for a in axes):
            return _empty(xp, x, axes, last(x, axes))
        return getattr(xp.fft, name)(x, axes=axes, norm=_check_norm(norm))
    return kernel


def _irfftn_kernel(xp, x, axes, n, norm=None):
    _check_norm(norm)
    s = [x.shape[a] for a in axes[:-1]] + [n]
    if x.size == 0 and all(s):
        return _empty(xp, x, axes, n, real=True)
    return xp.fft.irfftn(x, s=s, axes=axes, norm=_check_norm(norm))


fftn = defop("fftn", _transform("fftn"), doc="The complex DFT over `axes` (no resizing).")
ifftn = defop("ifftn", _transform("ifftn"),
              doc="The inverse complex DFT over `axes` (no resizing).")
rfftn = defop("rfftn", _transform("rfftn", lambda x, axes: x.shape[axes[-1]] // 2 + 1),
              doc="The DFT of real x over `axes`; the last of them keeps n // 2 + 1 terms.")
irfftn = defop("irfftn", _irfftn_kernel,
               doc="The real inverse of rfftn over `axes`: the last axis, of length "
                   "n // 2 + 1, becomes n long.")
