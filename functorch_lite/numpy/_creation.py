"""Array creation. These take no wrapper operands and return plain arrays: a constant is the same
for every example and has no derivative. `*_like` of a wrapper uses its logical shape and dtype."""
import numpy as np

from ..backend import module_of
from ..tensor import Tensor
from ._util import dtype_of, shape, xp_of


def _xp(like):
    return np if like is None else xp_of(like)


def zeros(shape, dtype=float, order="C", *, like=None):
    """A new array of zeros, as numpy.zeros (a constant: a plain array on every level)."""
    return _xp(like).zeros(shape, dtype=dtype, order=order)


def ones(shape, dtype=None, order="C", *, like=None):
    """A new array of ones, as numpy.ones (a constant: a plain array on every level)."""
    return _xp(like).ones(shape, dtype=dtype, order=order)


def empty(shape, dtype=float, order="C", *, like=None):
    """As numpy.empty: a new array of `shape` with unspecified contents.

    Args:
        shape: an int or a tuple of ints.
        dtype: the dtype (default float64).
        order: "C" or "F" memory layout.
        like: an array whose array module (numpy or cupy) makes the result.

    Returns:
        An uninitialized array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.empty((2, 3)).shape
        (2, 3)
    """
    return _xp(like).empty(shape, dtype=dtype, order=order)


def full(shape, fill_value, dtype=None, order="C", *, like=None):
    """A new array of `shape` filled with `fill_value`, as numpy.full."""
    if isinstance(fill_value, Tensor):
        raise TypeError("full() needs a concrete fill_value; for a traced value use "
                        "fnp.broadcast_to(value, shape)")
    return _xp(like).full(shape, fill_value, dtype=dtype, order=order)


def _like(a, dtype, shape_arg):
    return (shape(a) if shape_arg is None else shape_arg,
            dtype_of(a) if dtype is None else dtype, xp_of(a))


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Zeros with the shape and dtype of `a`, as numpy.zeros_like."""
    s, dt, xp = _like(a, dtype, shape)
    return xp.zeros(s, dtype=dt)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """Ones with the shape and dtype of `a`, as numpy.ones_like."""
    s, dt, xp = _like(a, dtype, shape)
    return xp.ones(s, dtype=dt)


def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """As numpy.empty_like: an array like `a` with unspecified contents.

    Args:
        a: an array or a value under a transform (its shape and dtype are used).
        dtype: the dtype (default a's).
        order: accepted for NumPy compatibility; ignored.
        subok: accepted for NumPy compatibility; ignored.
        shape: the shape (default a's).
        device: accepted for NumPy compatibility; ignored.

    Returns:
        An uninitialized array of the array module of `a`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.empty_like(np.array([1, 2]), dtype=np.float32).dtype
        dtype('float32')
    """
    s, dt, xp = _like(a, dtype, shape)
    return xp.empty(s, dtype=dt)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """`fill_value` with the shape and dtype of `a`, as numpy.full_like."""
    s, dt, xp = _like(a, dtype, shape)
    return xp.full(s, fill_value, dtype=dt)


def arange(start, stop=None, step=None, dtype=None, *, like=None):
    """As numpy.arange: evenly spaced values in [start, stop) with `step`.

    Args:
        start: the first value, or the stop when stop is None.
        stop: the end (excluded).
        step: the spacing (default 1).
        dtype: the result's dtype (default inferred from the arguments).
        like: an array whose array module (numpy or cupy) makes the result.

    Returns:
        A 1-d array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.arange(1, 7, 2)
        array([1, 3, 5])
    """
    args = [v for v in (start, stop, step) if v is not None]
    return _xp(like).arange(*args, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from `start` to `stop`, as numpy.linspace."""
    return np.linspace(start, stop, num, endpoint, retstep, dtype, axis)


def eye(N, M=None, k=0, dtype=float, order="C", *, like=None):
    """A 2-d array with ones on diagonal `k`, as numpy.eye."""
    return _xp(like).eye(N, M, k, dtype=dtype, order=order)


def asarray(a, dtype=None, order=None, *, like=None, copy=None):
    """As numpy.asarray: `a` as an array, without a copy when it already is one.

    A wrapper (a value under a transform) passes through, cast if `dtype` is given; anything
    else becomes an array of the backend (numpy, or cupy for cupy inputs or `like`).

    Args:
        a: an array, a nested sequence, a scalar or a wrapper.
        dtype: the result's dtype (default: a's own).
        order: accepted for NumPy compatibility; ignored.
        like: an array whose array module (numpy or cupy) makes the result.
        copy: accepted for NumPy compatibility; ignored.

    Returns:
        An array, or the wrapper `a` (cast to `dtype`).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.asarray([1, 2], dtype=np.float32)
        array([1., 2.], dtype=float32)
    """
    if isinstance(a, Tensor):
        from ._elementwise import astype
        return a if dtype is None or dtype_of(a) == np.dtype(dtype) else astype(a, dtype)
    if like is None and hasattr(a, "shape"):
        return module_of(a).asarray(a, dtype=dtype)
    return _xp(like).asarray(a, dtype=dtype)


def copy(a, order="K", subok=False):
    """As numpy.copy: a copy of `a`.

    A wrapper (a value under a transform) is an immutable value (updates go through
    x.at[...]), so its copy is the wrapper itself, as jnp.copy; a raw array is copied as NumPy
    does.

    Args:
        a: an array, a scalar or a wrapper.
        order: the memory layout of a raw copy ("K", "C", "F" or "A").
        subok: accepted for NumPy compatibility; ignored.

    Returns:
        A new array, or the wrapper `a`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.copy(np.array([1, 2]))
        array([1, 2])
    """
    if isinstance(a, Tensor):
        return a
    return module_of(a).array(a, copy=True, order=order) if hasattr(a, "shape") else np.copy(a)


def array(object, dtype=None, *, copy=True, like=None, ndmin=0):
    """As numpy.array: an array from `object`.

    A wrapper (a value under a transform) passes through, cast if `dtype` is given; a list or
    tuple holding wrappers is stacked, so the result stays differentiable.

    Args:
        object: an array, a nested sequence, a scalar or a wrapper.
        dtype: the result's dtype (default inferred).
        copy: copy a raw array (as numpy.array).
        like: an array whose array module (numpy or cupy) makes the result.
        ndmin: the minimum number of dimensions of a raw result.

    Returns:
        An array (or a wrapper when `object` holds one).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.array([[1, 2], [3, 4]])
        array([[1, 2],
               [3, 4]])
    """
    if isinstance(object, Tensor):
        return asarray(object, dtype)
    if isinstance(object, (list, tuple)) and any(isinstance(o, Tensor) for o in object):
        from ._shape import stack
        return stack([asarray(o, dtype) for o in object])
    xp = module_of(object) if like is None and hasattr(object, "shape") else _xp(like)
    return xp.array(object, dtype=dtype, copy=copy, ndmin=ndmin)
