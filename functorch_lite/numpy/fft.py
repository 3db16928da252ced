"""functorch_lite.numpy.fft: numpy.fft's functions on every transform level.

The transforms are the four linear primitives of ops/fft.py after padding (with zeros) or
truncating the input to the requested lengths `n` / `s`, as NumPy does; the frequency helpers
and shifts are composites of arange and roll. `np.fft.fft(wrapper)` reaches the same functions
through NumPy's dispatch protocol.
"""
import inspect
import textwrap

from ..ops import elementwise as ew, fft as _fft
from ._creation import arange
from ._joining import concatenate
from ._rearranging import pad, roll
from ._indexing import getitem
from ._util import as_operand, check_device, dtype_of, ndim, normalize_axis, reject, shape


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


_NORM = ('norm: None or "backward" (1/n on the inverse), "ortho" (1/sqrt(n) both ways) or\n'
         '        "forward" (1/n on the forward transform).')
_PAD = "the input is zero-padded or truncated to"
_LENGTHS = {  # (one axis?, an inverse of a real transform?) -> the lengths' argument
    (True, False): f"n: the transform length along `axis`; {_PAD} it\n"
                   "        (default: its length).",
    (True, True): f"n: the transform length along `axis`; {_PAD} it\n"
                  "        (default 2 (m - 1) for input length m).",
    (False, False): f"s: the transform lengths along `axes`; {_PAD} them\n"
                    "        (default: its lengths; -1 keeps one).",
    (False, True): f"s: the transform lengths along `axes`; {_PAD} them\n"
                   "        (default: its lengths, the last one 2 (m - 1); -1 keeps one).",
}


def _documented(summary, returns, example):
    """Decorator: the docstring of a transform, whose arguments follow from its name and
    signature (one axis `n`/`axis`, or several `s`/`axes`; irfft*'s default last length
    2 (m - 1); rfft* refusing complex input)."""
    def document(f):
        name, params = f.__name__, inspect.signature(f).parameters
        one_axis = "n" in params
        lengths = _LENGTHS[one_axis, name.startswith("irfft")]
        if one_axis:
            where = "axis: the axis to transform (default -1)."
            raises = "a length below 1, an unknown norm."
        else:
            axes = params["axes"].default
            where = (f"axes: the axes to transform (default {axes})." if axes else
                     "axes: the axes to transform (default: the last len(s), or all).")
            raises = "a length below 1, an unknown norm, or s and axes of different lengths."
        complex_input = ", or complex input" if name.startswith("rfft") else ""
        f.__doc__ = "\n".join([
            f"As numpy.fft.{name}: {summary}", "", "Args:", "    a: the input array.",
            f"    {lengths}", f"    {where}", f"    {_NORM}",
            "    out: not supported (must be None).", "", "Returns:", f"    {returns}", "",
            "Raises:", f"    ValueError: {raises}",
            f"    TypeError: an out= argument{complex_input}.", "", "Examples:",
            "    >>> import numpy as np, functorch_lite.numpy as fnp",
            textwrap.indent(example.strip("\n"), "    ")])
        return f
    return document


@_documented("the n-dimensional discrete Fourier transform.",
             "The complex transform, of the input's shape with `axes` resized to s.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> fnp.fft.fftn(m)
array([[10.+0.j, -2.+0.j],
       [-4.+0.j,  0.+0.j]])""")
def fftn(a, s=None, axes=None, norm=None, out=None):
    return _complex_transform(_fft.fftn, "fftn", a, s, axes, norm, out)


@_documented("the n-dimensional inverse discrete Fourier transform.",
             "The complex inverse transform, of the input's shape with `axes` resized to s.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> bool(np.allclose(fnp.fft.ifftn(fnp.fft.fftn(m)), m))
True""")
def ifftn(a, s=None, axes=None, norm=None, out=None):
    return _complex_transform(_fft.ifftn, "ifftn", a, s, axes, norm, out)


@_documented("the n-dimensional DFT of real input.",
             "The complex transform; the last transformed axis keeps s[-1] // 2 + 1 terms "
             "(the non-negative frequencies).", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> fnp.fft.rfftn(m)
array([[10.+0.j, -2.+0.j],
       [-4.+0.j,  0.+0.j]])""")
def rfftn(a, s=None, axes=None, norm=None, out=None):
    return _real_forward("rfftn", a, s, axes, norm, out)


@_documented("the inverse of rfftn, a real output of lengths s.",
             "The real array, `axes` of lengths s.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> bool(np.allclose(fnp.fft.irfftn(fnp.fft.rfftn(m), s=m.shape), m))
True""")
def irfftn(a, s=None, axes=None, norm=None, out=None):
    return _real_inverse("irfftn", a, s, axes, norm, out)


@_documented("the one-dimensional discrete Fourier transform along `axis`.",
             "The complex transform, `axis` of length n.", """
>>> x = np.array([1.0, 2.0, 3.0, 4.0])
>>> fnp.fft.fft(x)
array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])""")
def fft(a, n=None, axis=-1, norm=None, out=None):
    return _complex_transform(_fft.fftn, "fft", a, _one(n), (axis,), norm, out)


@_documented("the one-dimensional inverse DFT along `axis`.",
             "The complex inverse transform, `axis` of length n.", """
>>> fnp.fft.ifft(np.array([4.0, 0.0, 0.0, 0.0]))
array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])""")
def ifft(a, n=None, axis=-1, norm=None, out=None):
    return _complex_transform(_fft.ifftn, "ifft", a, _one(n), (axis,), norm, out)


@_documented("the one-dimensional DFT of real input along `axis`.",
             "The complex transform at the non-negative frequencies: `axis` of length "
             "n // 2 + 1.", """
>>> x = np.array([1.0, 2.0, 3.0, 4.0])
>>> fnp.fft.rfft(x)
array([10.+0.j, -2.+2.j, -2.+0.j])""")
def rfft(a, n=None, axis=-1, norm=None, out=None):
    return _real_forward("rfft", a, _one(n), (axis,), norm, out)


@_documented("the inverse of rfft, a real signal of length n along `axis`.",
             "The real signal, `axis` of length n.", """
>>> fnp.fft.irfft(np.array([4.0, 0.0, 0.0]))
array([1., 1., 1., 1.])""")
def irfft(a, n=None, axis=-1, norm=None, out=None):
    return _real_inverse("irfft", a, _one(n), (axis,), norm, out)


@_documented("the two-dimensional DFT over `axes`.",
             "The complex transform, `axes` resized to s.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> fnp.fft.fft2(m)
array([[10.+0.j, -2.+0.j],
       [-4.+0.j,  0.+0.j]])""")
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _complex_transform(_fft.fftn, "fft2", a, s, axes, norm, out)


@_documented("the two-dimensional inverse DFT over `axes`.",
             "The complex inverse transform, `axes` resized to s.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> bool(np.allclose(fnp.fft.ifft2(fnp.fft.fft2(m)), m))
True""")
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _complex_transform(_fft.ifftn, "ifft2", a, s, axes, norm, out)


@_documented("the two-dimensional DFT of real input over `axes`.",
             "The complex transform; the last axis keeps s[-1] // 2 + 1 terms.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> fnp.fft.rfft2(m)
array([[10.+0.j, -2.+0.j],
       [-4.+0.j,  0.+0.j]])""")
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _real_forward("rfft2", a, s, axes, norm, out)


@_documented("the inverse of rfft2, a real output.",
             "The real array, `axes` of lengths s.", """
>>> m = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> bool(np.allclose(fnp.fft.irfft2(fnp.fft.rfft2(m), s=m.shape), m))
True""")
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return _real_inverse("irfft2", a, s, axes, norm, out)


def fftfreq(n, d=1.0, device=None):
    """As numpy.fft.fftfreq: the sample frequencies of a DFT of length n.

    Args:
        n: the transform length.
        d: the sample spacing (default 1.0).
        device: None, or "cpu" (as NumPy; anything else is a ValueError).

    Returns:
        The n frequencies [0, 1, ..., -2, -1] / (d n).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.fft.fftfreq(4)
        array([ 0.  ,  0.25, -0.5 , -0.25])
    """
    check_device("fft.fftfreq", device)
    k = concatenate([arange(0, (n - 1) // 2 + 1), arange(-(n // 2), 0)])
    return ew.multiply(k, ew.divide(1.0, ew.multiply(n, d)))


def rfftfreq(n, d=1.0, device=None):
    """As numpy.fft.rfftfreq: the sample frequencies of an rfft of length n.

    Args:
        n: the transform length.
        d: the sample spacing (default 1.0).
        device: None, or "cpu" (as NumPy; anything else is a ValueError).

    Returns:
        The n // 2 + 1 frequencies [0, 1, ..., n // 2] / (d n).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.fft.rfftfreq(4)
        array([0.  , 0.25, 0.5 ])
    """
    check_device("fft.rfftfreq", device)
    return ew.multiply(arange(0, n // 2 + 1), ew.divide(1.0, ew.multiply(n, d)))


def _shift(x, axes, sign):
    x = as_operand(x)
    axes = tuple(range(ndim(x))) if axes is None else \
        (axes,) if isinstance(axes, int) else tuple(axes)
    return roll(x, tuple(sign * (shape(x)[ax] // 2) for ax in axes), axes)


def fftshift(x, axes=None):
    """As numpy.fft.fftshift: the zero frequency moved to the middle.

    Args:
        x: the input array.
        axes: an int or tuple of ints, the axes to shift (default: all).

    Returns:
        x rolled by len // 2 along each of `axes`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.fft.fftshift(np.array([0, 1, 2, -2, -1]))
        array([-2, -1,  0,  1,  2])
    """
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """As numpy.fft.ifftshift: the inverse of fftshift.

    Args:
        x: the input array.
        axes: an int or tuple of ints, the axes to shift (default: all).

    Returns:
        x rolled by -(len // 2) along each of `axes`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.fft.ifftshift(np.array([-2, -1, 0, 1, 2]))
        array([ 0,  1,  2, -2, -1])
    """
    return _shift(x, axes, -1)


__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
