"""Discrete Fourier transform primitives over explicit axes, as numpy.fft (and cupy.fft).

Four linear primitives; the public functions (functorch_lite.numpy.fft) normalize axes to
non-negative tuples and pad or truncate the input to the transform lengths first, so the
primitives never resize: fftn/ifftn keep every length, rfftn halves the last transformed axis
to n // 2 + 1, and irfftn takes that half back to `n` (which an odd or even n leaves ambiguous,
so it is a parameter). `norm` is NumPy's: "backward" (None), "ortho" or "forward".
"""
from ..dispatch import defop


def _check_norm(norm):
    if norm not in (None, "backward", "ortho", "forward"):
        raise ValueError(f'invalid norm {norm!r}: expected None, "backward", "ortho" or '
                         f'"forward"')
    return norm


fftn = defop("fftn", lambda xp, x, axes, norm=None:
             xp.fft.fftn(x, axes=axes, norm=_check_norm(norm)),
             doc="The complex DFT over `axes` (no resizing).")
ifftn = defop("ifftn", lambda xp, x, axes, norm=None:
              xp.fft.ifftn(x, axes=axes, norm=_check_norm(norm)),
              doc="The inverse complex DFT over `axes` (no resizing).")
rfftn = defop("rfftn", lambda xp, x, axes, norm=None:
              xp.fft.rfftn(x, axes=axes, norm=_check_norm(norm)),
              doc="The DFT of real x over `axes`; the last of them keeps n // 2 + 1 terms.")
irfftn = defop("irfftn", lambda xp, x, axes, n, norm=None:
               xp.fft.irfftn(x, s=[x.shape[a] for a in axes[:-1]] + [n], axes=axes,
                             norm=_check_norm(norm)),
               doc="The real inverse of rfftn over `axes`: the last axis, of length "
                   "n // 2 + 1, becomes n long.")
