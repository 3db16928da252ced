"""functorch_lite.numpy.fft: numpy.fft's functions on every transform level.

The transforms are the four linear primitives of ops/fft.py after padding (with zeros) or
truncating the input to the requested lengths `n` / `s`, as NumPy does; the frequency helpers
and shifts are composites of arange and roll. `np.fft.fft(wrapper)` reaches the same functions
through NumPy's dispatch protocol.
"""
from ..ops import elementwise as ew, fft as _fft
from ._creation import arange
from ._shape import concatenate, pad, roll
from ._indexing import getitem
from ._util import as_operand, dtype_of, ndim, normalize_axis, reject, shape


def _resized(name, a, axis, n):
    """a padded with zeros or truncated along `axis` to length n (NumPy's n= of the DFTs)."""
    n = int(n)
    if n < 1:
        raise ValueError(f"functorch_lite.numpy.fft.{name}: invalid number of FFT data points "
                         f"({n}) specified")
    have = shape(a)[axis]
    if n < have:
        return getitem(a, (slice(None),) * axis + (slice(0, n),))
    if n > have:
        widths = [(0, 0)] * ndim(a)
        widths[axis] = (0, n - have)
        return pad(a, widths)
    return a


def _lengths_and_axes(name, a, s, axes, inverse_real=False):
    """NumPy's rules for s and axes: s defaults to the input's lengths (for irfftn the last
    one to 2 (m - 1)), axes to the last len(s) axes (all when s is None too); -1 in s keeps
    the input's length. Returns (lengths, non-negative axes)."""
    nd = ndim(a)
    if axes is None:
        axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
    axes = tuple(normalize_axis(ax, nd, "axes") for ax in
                 ((axes,) if isinstance(axes, int) else axes))
    if s is None:
        s = [shape(a)[ax] for ax in axes]
        if inverse_real and axes:
            s[-1] = 2 * (s[-1] - 1)
    if len(s) != len(axes):
        raise ValueError(f"functorch_lite.numpy.fft.{name}: s and axes have different lengths "
                         f"({len(s)} and {len(axes)})")
    return [shape(a)[ax] if n == -1 else n for n, ax in zip(s, axes)], axes


def _check_real(name, a):
    if dtype_of(a).kind == "c":
        raise TypeError(f"functorch_lite.numpy.fft.{name}: the input must be real, got "
                        f"{dtype_of(a)} (use fft/fftn for complex input)")


def _complex_transform(op, name, a, s, axes, norm, out):
    reject(f"fft.{name}", out=out)
    a = as_operand(a)
    s, axes = _lengths_and_axes(name, a, s, axes)
    for n, ax in zip(s, axes):
        a = _resized(name, a, ax, n)
    return op(a, axes=axes, norm=norm)


def _real_forward(name, a, s, axes, norm, out):
    reject(f"fft.{name}", out=out)
    a = as_operand(a)
    _check_real(name, a)
    s, axes = _lengths_and_axes(name, a, s, axes)
    for n, ax in zip(s, axes):
        a = _resized(name, a, ax, n)
    return _fft.rfftn(a, axes=axes, norm=norm)


def _real_inverse(name, a, s, axes, norm, out):
    reject(f"fft.{name}", out=out)
    a = as_operand(a)
    s, axes = _lengths_and_axes(name, a, s, axes, inverse_real=True)
    for n, ax in zip(s[:-1], axes[:-1]):
        a = _resized(name, a, ax, n)
    a = _resized(name, a, axes[-1], s[-1] // 2 + 1)
    return _fft.irfftn(a, axes=axes, n=int(s[-1]), norm=norm)


def _one(n):
    return None if n is None else (n,)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional DFT, as numpy.fft.fftn."""
    return _complex_transform(_fft.fftn, "fftn", a, s, axes, norm, out)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional inverse DFT, as numpy.fft.ifftn."""
    return _complex_transform(_fft.ifftn, "ifftn", a, s, axes, norm, out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """The n-dimensional DFT of real input, the last axis halved, as numpy.fft.rfftn."""
    return _real_forward("rfftn", a, s, axes, norm, out)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """The inverse of rfftn: real output of lengths s, as numpy.fft.irfftn."""
    return _real_inverse("irfftn", a, s, axes, norm, out)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """The one-dimensional DFT along `axis`, as numpy.fft.fft."""
    return _complex_transform(_fft.fftn, "fft", a, _one(n), (axis,), norm, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-d inverse DFT along `axis` (length `n`), as numpy.fft.ifft."""
    return _complex_transform(_fft.ifftn, "ifft", a, _one(n), (axis,), norm, out)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """The 1-d DFT of real input along `axis`, non-negative frequencies only, as numpy.fft.rfft."""
    return _real_forward("rfft", a, _one(n), (axis,), norm, out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """The inverse of rfft: a real signal of length `n` along `axis`, as numpy.fft.irfft."""
    return _real_inverse("irfft", a, _one(n), (axis,), norm, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-d DFT over `axes`, as numpy.fft.fft2."""
    return _complex_transform(_fft.fftn, "fft2", a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-d inverse DFT over `axes`, as numpy.fft.ifft2."""
    return _complex_transform(_fft.ifftn, "ifft2", a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The 2-d DFT of real input over `axes`, as numpy.fft.rfft2."""
    return _real_forward("rfft2", a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """The inverse of rfft2, as numpy.fft.irfft2."""
    return _real_inverse("irfft2", a, s, axes, norm, out)


def fftfreq(n, d=1.0, device=None):
    """The sample frequencies [0, 1, ..., -2, -1] / (d n) of a DFT of length n."""
    k = concatenate([arange(0, (n - 1) // 2 + 1), arange(-(n // 2), 0)])
    return ew.multiply(k, ew.divide(1.0, ew.multiply(n, d)))


def rfftfreq(n, d=1.0, device=None):
    """The sample frequencies [0, 1, ..., n // 2] / (d n) of an rfft of length n."""
    return ew.multiply(arange(0, n // 2 + 1), ew.divide(1.0, ew.multiply(n, d)))


def _shift(x, axes, sign):
    x = as_operand(x)
    axes = tuple(range(ndim(x))) if axes is None else \
        (axes,) if isinstance(axes, int) else tuple(axes)
    return roll(x, tuple(sign * (shape(x)[ax] // 2) for ax in axes), axes)


def fftshift(x, axes=None):
    """The zero frequency moved to the middle, as numpy.fft.fftshift."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of fftshift."""
    return _shift(x, axes, -1)


__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
