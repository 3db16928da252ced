"""Sample entries of functorch_lite.numpy.fft ("fft.<name>").

Every transform gets samples in each norm mode (None, "backward", "ortho", "forward"), lengths
n / s that pad and that truncate (odd and even, which matters for irfft's halving), positive and
negative axes, several ranks, a size-0 dimension outside the transformed axes, real and complex
inputs of both widths (the real inverse transforms also take real input, as NumPy's do).
"""
import numpy as np

from .. import numpy as fnp
from .samples_base import F32, F64, OpInfo, S, array

C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)


def _r(rng, *shape, dtype=F64):
    return array(rng, shape, dtype)


def _c(rng, *shape, dtype=C128):
    return np.asarray(array(rng, shape) + 1j * array(rng, shape), dtype)


def _one_dim(real_input):
    """fft, ifft, rfft, irfft: n pads or truncates; axis positive or negative."""
    def samples(r):
        x = _r if real_input else _c
        out = [S(x(r, 8)), S(x(r, 3, 5), n=8), S(x(r, 3, 5), n=2, axis=0),
               S(x(r, 2, 3, 4), axis=-2, norm="ortho"), S(x(r, 7), norm="forward"),
               S(x(r, 5), n=9, norm="backward"), S(x(r, 0, 4)),
               S(_r(r, 3, 4, dtype=F32), norm="ortho")]
        if not real_input:
            out += [S(_r(r, 6), n=5), S(_c(r, 3, 4, dtype=C64), n=6, axis=0)]
        return out
    return samples


def _irfft_samples(r):
    """Inputs of n // 2 + 1 terms and others (NumPy pads or truncates to n // 2 + 1)."""
    return [S(_c(r, 5)), S(_c(r, 3, 5), n=9), S(_c(r, 3, 5), n=4, axis=0),
            S(_c(r, 2, 3, 4), axis=-2, norm="ortho"), S(_c(r, 4), n=7, norm="forward"),
            S(_c(r, 0, 4)), S(_r(r, 3, 4), n=5), S(_c(r, 3, 4, dtype=C64), norm="ortho"),
            S(_r(r, 3, 4, dtype=F32))]


def _two_dim(real_input, inverse_real=False):
    """fft2-style: s pads and truncates, axes in any order and sign."""
    def samples(r):
        x = _r if real_input else _c
        return [S(x(r, 3, 4)), S(x(r, 2, 3, 4), s=(5, 3), axes=(0, -1), norm="ortho"),
                S(x(r, 4, 3), s=(3, 4), norm="forward"),
                S(x(r, 2, 3, 4), axes=(-1, -3), norm="backward"),
                S(x(r, 0, 3, 4)), S(_r(r, 3, 4, dtype=F32)),
                *([] if real_input else [S(_c(r, 3, 4, dtype=C64), s=(2, 5)),
                                         S(_r(r, 2, 3), s=(3, 4))])]
    return samples


def _n_dim(real_input):
    def samples(r):
        x = _r if real_input else _c
        return [S(x(r, 2, 3, 4)), S(x(r, 3, 4), s=(2, 6), axes=(0, 1)),
                S(x(r, 2, 3, 4), axes=(-1, 0), norm="forward"),
                S(x(r, 2, 3, 5), s=(-1, 4), axes=(1, 2), norm="ortho"),
                S(x(r, 3, 2), s=(5,), axes=(-2,)), S(x(r, 2, 0, 3), axes=(0, 2)),
                S(_r(r, 2, 3, dtype=F32), norm="backward"),
                *([] if real_input else [S(_c(r, 2, 3, dtype=C64)), S(_r(r, 3, 4))])]
    return samples


def _shift_samples(r):
    return [S(_c(r, 5)), S(_c(r, 3, 4), axes=0), S(_r(r, 4, 5), axes=(-1,)),
            S(_r(r, 3, 4, dtype=F32)), S(_c(r, 2, 3, 4), axes=(0, -1)), S(_c(r, 0, 3)),
            S(_r(r, 6), axes=-1)]


def _freq_samples(r):
    return [S(8), S(5, 0.1), S(1), S(6, d=2.5)]


def _fft(name, samples, **kw):
    return OpInfo(f"fft.{name}", getattr(fnp.fft, name), getattr(np.fft, name), samples,
                  numpy_fn=getattr(np.fft, name), rtol={F32: 1e-4, C64: 1e-4},
                  atol={F32: 1e-5, C64: 1e-5}, **kw)


ENTRIES = [
    _fft("fft", _one_dim(False)), _fft("ifft", _one_dim(False)), _fft("rfft", _one_dim(True)),
    _fft("irfft", _irfft_samples),
    _fft("fft2", _two_dim(False)), _fft("ifft2", _two_dim(False)),
    _fft("rfft2", _two_dim(True)), _fft("irfft2", _two_dim(False)),
    _fft("fftn", _n_dim(False)), _fft("ifftn", _n_dim(False)), _fft("rfftn", _n_dim(True)),
    _fft("irfftn", _n_dim(False)),
    _fft("fftshift", _shift_samples), _fft("ifftshift", _shift_samples),
    _fft("fftfreq", _freq_samples, differentiable=False, creation=True),
    _fft("rfftfreq", _freq_samples, differentiable=False, creation=True),
]
