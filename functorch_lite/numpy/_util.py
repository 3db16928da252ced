"""Small helpers shared by the public NumPy-named functions."""
import numpy as np

from ..backend import is_array, module_of
from ..tensor import Tensor


def shape(a):
    """As numpy.shape: the shape of an array.

    Works on arrays, values under transforms (their logical, unbatched shape), scalars and
    nested lists.

    Args:
        a: the array-like.

    Returns:
        A tuple of ints.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.shape(np.zeros((2, 3)))
        (2, 3)
    """
    return tuple(a.shape) if hasattr(a, "shape") else np.shape(a)


def ndim(a):
    """As numpy.ndim: the number of dimensions of an array, wrapper, scalar or nested list.

    Args:
        a: array_like or a traced value.

    Returns:
        An int (the dimensions of one example under vmap).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.ndim(np.zeros((2, 3)))
        2
        >>> fnp.ndim([[1, 2], [3, 4]]), fnp.ndim(5)
        (2, 0)
    """
    return len(shape(a))


def size(a):
    """As numpy.size: the number of elements.

    Args:
        a: an array, a value under a transform, a scalar or a nested list.

    Returns:
        An int.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.size(np.zeros((2, 3)))
        6
    """
    return int(np.prod(shape(a), dtype=np.int64))


def known_shape(new_shape, old_shape):
    """`new_shape` (a tuple, possibly with one -1) with the -1 worked out from the size of
    `old_shape`, as NumPy's reshape would; a shape that does not fit is left to the kernel to
    refuse with NumPy's own message."""
    new_shape = tuple(new_shape)
    if -1 not in new_shape:
        return new_shape
    known = 1
    for d in new_shape:
        if d != -1:
            known *= d
    total = 1
    for d in old_shape:
        total *= d
    if known == 0 or total % known or new_shape.count(-1) > 1:
        return new_shape
    return tuple(total // known if d == -1 else d for d in new_shape)


def dtype_of(a):
    """NumPy's dtype of an array or wrapper; the NumPy 2 default for a Python scalar."""
    dt = getattr(a, "dtype", None)
    return np.dtype(dt) if dt is not None else np.asarray(a).dtype


def normalize_axis(axis, nd, argname="axis"):
    """A non-negative axis for rank `nd`, or an AxisError as NumPy raises."""
    if not -nd <= axis < nd:
        raise np.exceptions.AxisError(f"{argname} {axis} is out of bounds for array of "
                                      f"dimension {nd}")
    return axis % nd if nd else 0


def normalize_axes(axis, nd):
    """A tuple of non-negative axes for `axis` = None (all), an int, or a sequence."""
    if axis is None:
        return tuple(range(nd))
    if isinstance(axis, (tuple, list)):
        out = tuple(normalize_axis(a, nd) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError("duplicate value in 'axis'")
        return out
    return (normalize_axis(axis, nd),)


def as_operand(a):
    """Wrappers and arrays pass; lists and tuples become arrays (as NumPy would), stacked when
    they hold wrappers so the derivative flows through them."""
    if isinstance(a, (list, tuple)):
        if holds_wrapper(a):
            from ._creation import array
            return array(a)
        return np.asarray(a)
    return a


def holds_wrapper(obj):
    """Whether `obj` is a wrapper or a (nested) list or tuple holding one."""
    if isinstance(obj, (list, tuple)):
        for o in obj:
            if holds_wrapper(o):
                return True
        return False
    return isinstance(obj, Tensor)


def like_module(like):
    """The array module that `like=` names: that of an array or wrapper; anything else is a
    TypeError, as NumPy's (like="cuda" names no array)."""
    if isinstance(like, Tensor) or is_array(like):
        return xp_of(like)
    raise TypeError(f"like= must be an array (NumPy or CuPy) or a value under a transform, whose "
                    f"array module makes the result; got {like!r} (for a CuPy result pass a "
                    "CuPy array)")


def check_device(name, device, like=None):
    """NumPy's rule for device=: None, or "cpu" for a NumPy result (NumPy raises ValueError for
    any other); for a device result, None or the device of `like`."""
    if device is None:
        return
    xp = np if like is None else xp_of(like)
    if xp is np and device == "cpu":
        return
    if xp is not np and device == getattr(like, "device", None):
        return
    made = "NumPy, where only device='cpu' is allowed" if xp is np else f"{xp.__name__}"
    raise ValueError(f"functorch_lite.numpy.{name}: device={device!r} is not understood: the "
                     f"result is made with the array module of its input ({made}). For a CuPy "
                     "result pass a CuPy array (or like=cupy_array) and leave device= out")


def is_wrapper(a):
    return isinstance(a, Tensor)


_WORKAROUNDS = {
    "out": " (transforms are functional: use the return value)",
    "initial": "; call it without initial= and combine the result with the initial value "
               "(e.g. fnp.maximum(fnp.max(a), initial))",
    "where": "; call it without where= and mask the input with fnp.where instead"}


def reject(name, **unsupported):
    """Refuse NumPy arguments that this library does not implement (out=, where=, ...)."""
    for key, value in unsupported.items():
        if value is not None and value is not np._NoValue:
            why = _WORKAROUNDS.get(key, f"; call it without {key}=")
            raise TypeError(f"functorch_lite.numpy.{name} does not support the {key}= "
                            f"argument{why}")


def xp_of(a):
    """The array module (numpy or cupy) of an array or wrapper."""
    return a.xp if isinstance(a, Tensor) else module_of(a)
