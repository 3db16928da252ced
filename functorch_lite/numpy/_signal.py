"""convolve and correlate of 1-d sequences (modes 'full', 'same', 'valid', as NumPy): NumPy's
own kernels (ops/conv.py), so the values are NumPy's bit for bit. Under vmap they are computed
as one gather of sliding windows and one matrix product (`windowed`, the batching rule)."""
from ..ops import conv as cv, elementwise as ew, linalg as la
from ._shape import expand_dims
from ._rearranging import pad
from ._indexing import take
from ._util import as_operand, dtype_of, ndim, shape, xp_of

_MODES = ("full", "same", "valid")


def windowed(a, w, mode):
    """sum_j a[..., k + j - (m - 1)] w[..., j] for n = a.shape[-1] >= m = w.shape[-1], sliced
    by mode (NumPy's correlate of a and conj(w)); leading dims broadcast."""
    n, m = shape(a)[-1], shape(w)[-1]
    padded = pad(a, [(0, 0)] * (ndim(a) - 1) + [(m - 1, m - 1)])
    xp = xp_of(a)
    windows = take(padded, xp.arange(n + m - 1)[:, None] + xp.arange(m)[None, :], axis=-1)
    full = la.matmul(windows, expand_dims(w, -1))[..., 0]
    if mode == "full":
        return full
    if mode == "same":
        start = m - 1 - m // 2
        return full[..., start:start + n]
    return full[..., m - 1:n]


def conj(x):
    return ew.conj(x) if dtype_of(x).kind == "c" else x


def _check(name, a, v, mode):
    a, v = as_operand(a), as_operand(v)
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be one of {_MODES}, not {mode!r}")
    if ndim(a) != 1 or ndim(v) != 1:
        raise ValueError(f"{name}: a and v must be 1-d, got shapes {shape(a)} and {shape(v)}")
    if shape(a)[0] == 0 or shape(v)[0] == 0:
        raise ValueError(f"{name}: a and v must not be empty")
    return a, v


def convolve(a, v, mode="full"):
    """As numpy.convolve: the discrete linear convolution of two 1-d arrays.

    The result at k is sum_i a[i] v[k - i].

    Args:
        a: a non-empty 1-d array (or a value under a transform).
        v: a non-empty 1-d array.
        mode: "full" (length n + m - 1), "same" (length max(n, m)) or "valid"
            (length max(n, m) - min(n, m) + 1).

    Returns:
        A 1-d array.

    Raises:
        ValueError: an unknown mode, or a or v not 1-d or empty.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.convolve(np.array([1, 2, 3]), np.array([0, 1]))
        array([0, 1, 2, 3])
    """
    a, v = _check("convolve", a, v, mode)
    return cv.convolve(a, v, mode=mode)


def correlate(a, v, mode="valid"):
    """As numpy.correlate: the cross-correlation of two 1-d arrays.

    The result at k is sum_n a[n + k] conj(v[n]).

    Args:
        a: a non-empty 1-d array (or a value under a transform).
        v: a non-empty 1-d array.
        mode: "valid" (default), "same" or "full", as in numpy.convolve.

    Returns:
        A 1-d array.

    Raises:
        ValueError: an unknown mode, or a or v not 1-d or empty.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.correlate(np.array([1, 2, 3]), np.array([1, 1]))
        array([3, 5])
    """
    a, v = _check("correlate", a, v, mode)
    return cv.correlate(a, v, mode=mode)
