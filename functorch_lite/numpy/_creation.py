"""Array creation. These take no wrapper operands and return plain arrays: a constant is the same
for every example and has no derivative. `*_like` of a wrapper uses its logical shape and dtype.
linspace is the exception: its ends may be traced, and then it is a composite (`_linspace`)."""
import operator

import numpy as np

from ..backend import device_modules, module_of
from ..ops import elementwise as ew, reductions as red, shape as sh
from ..tensor import Tensor
from ._indexing import getitem
from ._shape import broadcast_to, expand_dims, moveaxis
from ._joining import concatenate
from ._util import (as_operand, check_device, dtype_of, holds_wrapper, like_module, ndim,
                    shape, xp_of)


def _xp(like):
    return np if like is None else like_module(like)


def _data_module(obj):
    """The array module of the arrays in `obj` (an array, or nested lists and tuples holding
    arrays): a list of device arrays makes a device array, as cupy.array. NumPy when there
    are none, and at once on a program without device modules."""
    if hasattr(obj, "shape"):
        return module_of(obj)
    if isinstance(obj, (list, tuple)) and device_modules():
        for item in obj:
            xp = _data_module(item)
            if xp is not np:
                return xp
    return np


def _joinable(xp, obj):
    """obj for xp.array: a nested list or tuple holding device arrays gets every leaf on the
    device (a scalar as NumPy's array() types it, a Python float as float64), since CuPy joins
    a list only when all its leaves are device arrays and sends anything else through NumPy,
    which refuses device data. Everything else as it is."""
    if not isinstance(obj, (list, tuple)) or xp is np or _data_module(obj) is not xp:
        return obj

    def on_device(o):
        if isinstance(o, (list, tuple)):
            return [on_device(v) for v in o]
        return o if hasattr(o, "shape") and module_of(o) is xp else xp.asarray(np.asarray(o))
    return on_device(obj)


def zeros(shape, dtype=float, order="C", *, like=None):
    """As numpy.zeros: a new array of zeros.

    A constant: a plain array on every transform level.

    Args:
        shape: int or tuple of ints.
        dtype: the dtype (float64 by default).
        order: "C" or "F".
        like: an array whose array module (NumPy or CuPy) makes the result.

    Returns:
        An array of zeros of that shape and dtype.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.zeros(3, dtype=int)
        array([0, 0, 0])
    """
    return _xp(like).zeros(shape, dtype=dtype, order=order)


def ones(shape, dtype=None, order="C", *, like=None):
    """As numpy.ones: a new array of ones.

    A constant: a plain array on every transform level.

    Args:
        shape: int or tuple of ints.
        dtype: the dtype (float64 by default).
        order: "C" or "F".
        like: an array whose array module (NumPy or CuPy) makes the result.

    Returns:
        An array of ones of that shape and dtype.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ones((2, 2), dtype=int)
        array([[1, 1],
               [1, 1]])
    """
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


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """As numpy.full: a new array of `shape` filled with `fill_value`.

    A fill value under a transform (traced, batched, differentiated) is broadcast, as in
    JAX: the result is differentiable in it. NumPy's own np.full converts the fill value with
    np.asarray before any dispatch, so under a transform write fnp.full(shape, v), or
    np.full(shape, v, like=v), which NumPy hands to this function.

    Args:
        shape: int or tuple of ints.
        fill_value: a scalar or array broadcastable to `shape`.
        dtype: dtype of the result (default: that of `fill_value`).
        order: 'C' or 'F' memory layout.
        device: None, or "cpu" for a NumPy result (as NumPy; anything else is a ValueError).
        like: an array whose array module (NumPy or CuPy) makes the result.

    Returns:
        The filled array.

    Examples:
        >>> import numpy as np, functorch_lite as ft, functorch_lite.numpy as fnp
        >>> fnp.full((2, 2), 7)
        array([[7, 7],
               [7, 7]])
        >>> ft.grad(lambda v: fnp.full((2, 3), v).sum())(1.5)
        array(6.)
    """
    check_device("full", device, like if hasattr(like, "shape") else None)
    if isinstance(fill_value, Tensor):
        return _filled(fill_value, shape, dtype)
    return _xp(like).full(shape, fill_value, dtype=dtype, order=order)


def _filled(fill_value, shape, dtype):
    """A fill value of a transform broadcast to `shape` (cast to `dtype` first): full's
    derivative in it is the broadcast's. NumPy's own full would copy it into an empty raw
    array, which a transform cannot follow."""
    from ._elementwise import astype
    from ._shape import broadcast_to
    if dtype is not None and dtype_of(fill_value) != np.dtype(dtype):
        fill_value = astype(fill_value, dtype)
    return broadcast_to(fill_value, shape)


def _like(a, dtype, shape_arg, device, name):
    check_device(name, device, a if hasattr(a, "shape") else None)
    return (shape(a) if shape_arg is None else shape_arg,
            dtype_of(a) if dtype is None else dtype, xp_of(a))


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """As numpy.zeros_like: zeros with the shape and dtype of `a`.

    Args:
        a: an array (or a value under a transform) giving shape and dtype.
        dtype: overrides a's dtype.
        order, subok: accepted for NumPy compatibility.
        device: None, or "cpu" for a NumPy result (as NumPy; anything else is a ValueError).
        shape: overrides a's shape.

    Returns:
        A plain array of zeros (a constant under every transform).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.zeros_like(np.array([[1, 2, 3]]))
        array([[0, 0, 0]])
    """
    s, dt, xp = _like(a, dtype, shape, device, "zeros_like")
    return xp.zeros(s, dtype=dt)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """As numpy.ones_like: ones with the shape and dtype of `a`.

    Args:
        a: an array (or a value under a transform) giving shape and dtype.
        dtype: overrides a's dtype.
        order, subok: accepted for NumPy compatibility.
        device: None, or "cpu" for a NumPy result (as NumPy; anything else is a ValueError).
        shape: overrides a's shape.

    Returns:
        A plain array of ones (a constant under every transform).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ones_like(np.array([[1, 2, 3]]))
        array([[1, 1, 1]])
    """
    s, dt, xp = _like(a, dtype, shape, device, "ones_like")
    return xp.ones(s, dtype=dt)


def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """As numpy.empty_like: an array like `a` with unspecified contents.

    Args:
        a: an array or a value under a transform (its shape and dtype are used).
        dtype: the dtype (default a's).
        order: accepted for NumPy compatibility; ignored.
        subok: accepted for NumPy compatibility; ignored.
        shape: the shape (default a's).
        device: None, or "cpu" for a NumPy result (as NumPy; anything else is a ValueError).

    Returns:
        An uninitialized array of the array module of `a`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.empty_like(np.array([1, 2]), dtype=np.float32).dtype
        dtype('float32')
    """
    s, dt, xp = _like(a, dtype, shape, device, "empty_like")
    return xp.empty(s, dtype=dt)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """As numpy.full_like: `fill_value` with the shape and dtype of `a`.

    A fill value under a transform (traced, batched, differentiated) is broadcast, as in
    JAX: the result is differentiable in it.

    Args:
        a: array_like or traced value giving shape, dtype and array module.
        fill_value: a scalar or array broadcastable to the shape.
        dtype: overrides the dtype of `a`.
        order, subok: accepted for NumPy compatibility.
        device: None, or "cpu" for a NumPy result (as NumPy; anything else is a ValueError).
        shape: overrides the shape of `a`.

    Returns:
        A new array of the array module of `a`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.full_like(np.array([1, 2, 3]), 4)
        array([4, 4, 4])
    """
    s, dt, xp = _like(a, dtype, shape, device, "full_like")
    if isinstance(fill_value, Tensor):
        return _filled(fill_value, s, dt)
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


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             like=None):
    """As numpy.linspace: `num` evenly spaced values from `start` to `stop`.

    Plain ends give NumPy's own result. Traced ends (under a transform or jit) give NumPy's
    formula in library ops, start + arange(num) * step with the last value set to stop, so
    the values are NumPy's bit for bit and the result is differentiable and batchable in
    start and stop (`_linspace`).

    Args:
        start, stop: scalars or arrays, the ends of the interval.
        num: number of values (default 50).
        endpoint: include `stop` (default True).
        retstep: also return the spacing.
        dtype: dtype of the result.
        axis: the axis of the values when `start` or `stop` are arrays.
        like: an array whose array module (NumPy or CuPy) makes the result (NumPy's linspace
            has no like=; device values need it).

    Returns:
        The values, or (values, step) with retstep=True.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linspace(0, 1, 5)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if holds_wrapper(start) or holds_wrapper(stop):
        return _linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if like is None:
        return np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    return like_module(like).linspace(start, stop, num, endpoint, retstep, dtype, axis)


def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    """numpy.linspace's computation, step by step in library ops (NumPy 2's function_base):
    the dtype of the ends made inexact, delta = stop - start in it, arange(num) * step, or
    (arange(num) / div) * delta when some step is 0 (subnormal ends), plus start, the last
    value replaced by stop.

    The ends' dtype is that of start + stop as the kernel computes it, so a Python scalar end
    stays weak also where jit traces it (a float32 end and 1.7 give float32, as NumPy's)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = num - 1 if endpoint else num
    start, stop = as_operand(start), as_operand(stop)
    dt = np.result_type(dtype_of(ew.add(start, stop)), 0.0)   # integers, bools: float64
    start, stop = (ew.astype(e, dtype=dt) if hasattr(e, "dtype") else dt.type(e)
                   for e in (start, stop))
    delta = ew.subtract(stop, start)
    xp = xp_of(delta)
    y = xp.arange(0, num, dtype=dt).reshape((-1,) + (1,) * ndim(delta))
    if div > 0:
        step = ew.divide(delta, div)
        y = ew.where(red.any(ew.equal(step, 0)), ew.multiply(y / div, delta),
                     ew.multiply(y, step))
    else:
        step = np.nan
        y = ew.multiply(y, delta)
    y = ew.add(y, start)
    if endpoint and num > 1:
        last = expand_dims(broadcast_to(stop, shape(y)[1:]), 0)
        y = concatenate([getitem(y, slice(None, -1)), last], axis=0)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    if dtype is not None and np.dtype(dtype).kind in "iu":
        y = ew.floor(y)
    if dtype is not None and np.dtype(dtype) != dt:
        y = ew.astype(y, dtype=np.dtype(dtype))
    return (y, step) if retstep else y


def eye(N, M=None, k=0, dtype=float, order="C", *, like=None):
    """As numpy.eye: a 2-d array with ones on diagonal `k` and zeros elsewhere.

    Args:
        N: number of rows.
        M: number of columns (default N).
        k: the diagonal: 0 the main one, positive above, negative below.
        dtype: dtype of the result (default float64).
        order: 'C' or 'F' memory layout.
        like: an array whose array module (NumPy or CuPy) makes the result.

    Returns:
        An (N, M) array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.eye(2, 3, k=1, dtype=int)
        array([[0, 1, 0],
               [0, 0, 1]])
    """
    return _xp(like).eye(N, M, k, dtype=dtype, order=order)


def asarray(a, dtype=None, order=None, *, like=None, copy=None):
    """As numpy.asarray: `a` as an array, without a copy when it already is one.

    A wrapper (a value under a transform) passes through, cast if `dtype` is given; a list
    holding wrappers is stacked, as fnp.array; anything else becomes an array of the backend
    (numpy, or cupy for cupy inputs or `like`).

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
    if isinstance(a, (list, tuple)) and holds_wrapper(a):
        return array(a, dtype)
    xp = _data_module(a) if like is None else like_module(like)
    return xp.asarray(_joinable(xp, a), dtype=dtype)


def copy(a, order="K", subok=False):
    """As numpy.copy: a copy of `a`.

    A raw array is copied as NumPy does; a wrapper (a value under a transform) through the
    `copy` op, the identity to every derivative: the copy's memory layout decides the last
    bits of what reads it, so ft.jit's program makes it as eager code does.

    Args:
        a: an array, a scalar or a wrapper.
        order: the memory layout of a raw copy ("K", "C", "F" or "A").
        subok: accepted for NumPy compatibility; ignored.

    Returns:
        A new array (a wrapper when `a` is one).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.copy(np.array([1, 2]))
        array([1, 2])
    """
    return sh.copy(a, order=order) if hasattr(a, "shape") else np.copy(a)


def _first_wrapper(obj):
    for o in obj:
        if isinstance(o, Tensor):
            return o
        if isinstance(o, (list, tuple)) and holds_wrapper(o):
            return _first_wrapper(o)


def array(object, dtype=None, *, copy=True, like=None, ndmin=0):
    """As numpy.array: an array from `object`.

    A wrapper (a value under a transform) passes through, cast if `dtype` is given; a (nested)
    list or tuple holding wrappers is stacked, so the result stays differentiable.

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
    if isinstance(object, (list, tuple)) and holds_wrapper(object):
        from ._joining import stack
        ref = _first_wrapper(object)
        # Python and NumPy scalars among the wrappers join them on their device
        scalars = (int, float, complex, np.generic)
        return stack([array(o, dtype) if isinstance(o, (list, tuple)) else
                      asarray(o, dtype, like=ref if isinstance(o, scalars) else None)
                      for o in object])
    xp = _data_module(object) if like is None else like_module(like)
    return xp.array(_joinable(xp, object), dtype=dtype, copy=copy, ndmin=ndmin)
