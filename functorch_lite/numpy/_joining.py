"""Joining and splitting arrays with NumPy's signatures (concatenate, stack, split, ...),
over the shape primitives."""
import numpy as np

from ..ops import elementwise as ew, shape as sh
from ._util import as_operand, ndim, normalize_axis, shape
from ._shape import expand_dims, ravel, reshape


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """As numpy.concatenate: the arrays joined along an existing `axis`.

    Args:
        arrays: a sequence of arrays (or values under a transform) whose shapes agree except
            along `axis`.
        axis: the axis to join along; None flattens the arrays first.
        out: not supported.
        dtype: the result's dtype (default: the arrays' common dtype).
        casting: accepted for NumPy compatibility; ignored.

    Returns:
        The joined array.

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.concatenate([np.array([[1, 2]]), np.array([[3, 4]])], axis=0)
        array([[1, 2],
               [3, 4]])
    """
    if out is not None:
        raise TypeError("functorch_lite.numpy.concatenate does not support out=")
    arrays = [as_operand(a) for a in arrays]
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    out = sh.concatenate(*arrays, axis=axis)
    return out if dtype is None else ew.astype(out, dtype=np.dtype(dtype))


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """As numpy.stack: the arrays joined along a new `axis`.

    Args:
        arrays: a sequence of arrays of one shape.
        axis: the position of the new axis in the result.
        dtype: the result dtype.
        casting: accepted for NumPy compatibility.
        out: not supported.

    Returns:
        An array with one more axis than the inputs.

    Raises:
        ValueError: no arrays, or arrays of different shapes.
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.stack([np.array([1, 2]), np.array([3, 4])], axis=1)
        array([[1, 3],
               [2, 4]])
    """
    arrays = [as_operand(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis(axis, ndim(arrays[0]) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis, out=out, dtype=dtype)


def atleast_1d(*arys):
    """As numpy.atleast_1d: the inputs with at least one dimension.

    Args:
        *arys: arrays or scalars (or values under a transform).

    Returns:
        The array for one input, else a tuple of arrays; 0-d inputs become shape (1,).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.atleast_1d(np.array(3))
        array([3])
    """
    res = [reshape(a, (1,)) if ndim(a) == 0 else as_operand(a) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):
    """As numpy.atleast_2d: the inputs with at least two dimensions.

    Args:
        *arys: arrays or scalars (or values under a transform).

    Returns:
        The array for one input, else a tuple of arrays; 0-d inputs become shape (1, 1), 1-d
        inputs of length n shape (1, n).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.atleast_2d(np.array([1, 2]))
        array([[1, 2]])
    """
    def two(a):
        nd = ndim(a)
        return reshape(a, (1, 1)) if nd == 0 else expand_dims(a, 0) if nd == 1 else as_operand(a)
    res = [two(a) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """As numpy.hstack: the arrays joined along axis 1 (axis 0 for 1-d inputs).

    Args:
        tup: sequence of array_like; 0-d inputs become 1-d.
        dtype: dtype of the result (default: the promoted dtype of the inputs).
        casting: accepted for NumPy compatibility.

    Returns:
        The concatenated array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.hstack([np.array([1, 2]), np.array([3])])
        array([1, 2, 3])
        >>> fnp.hstack([np.array([[1], [2]]), np.array([[3], [4]])])
        array([[1, 3],
               [2, 4]])
    """
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if ndim(arrs[0]) == 1 else 1, dtype=dtype)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """As numpy.vstack: the arrays joined along axis 0, after making them at least 2-d.

    Args:
        tup: a sequence of arrays.
        dtype: the result dtype.
        casting: accepted for NumPy compatibility.

    Returns:
        The stacked array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.vstack([np.array([1, 2]), np.array([3, 4])])
        array([[1, 2],
               [3, 4]])
    """
    return concatenate([atleast_2d(a) for a in tup], axis=0, dtype=dtype)


def _split_points(n, indices_or_sections, strict):
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and n % sections:
            raise ValueError("array split does not result in an equal division")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        return list(np.cumsum([0] + sizes))
    return [0] + [int(i) for i in indices_or_sections] + [n]


def array_split(ary, indices_or_sections, axis=0):
    """As numpy.array_split: split `ary` into sections that may differ in size.

    Args:
        ary: an array (or a value under a transform).
        indices_or_sections: an int N (N sections, the first ones one longer when the length
            does not divide), or a sorted sequence of split indices.
        axis: the axis to split along.

    Returns:
        A list of arrays.

    Raises:
        ValueError: the number of sections is not positive.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.array_split(np.arange(5), 2)
        [array([0, 1, 2]), array([3, 4])]
    """
    ary = as_operand(ary)
    axis = normalize_axis(axis, ndim(ary))
    n = shape(ary)[axis]
    points = _split_points(n, indices_or_sections, strict=False)
    return list(sh.split(ary, points=tuple(int(p) for p in points), axis=axis))


def split(ary, indices_or_sections, axis=0):
    """As numpy.split: a list of sub-arrays of `ary` along `axis`.

    Args:
        ary: the array.
        indices_or_sections: an int N (N equal sections) or a sorted sequence of cut indices.
        axis: the axis to split along.

    Returns:
        A list of arrays.

    Raises:
        ValueError: N sections do not divide the axis equally, or N is not positive.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.split(np.arange(4), 2)
        [array([0, 1]), array([2, 3])]
    """
    ary = as_operand(ary)
    n = shape(ary)[normalize_axis(axis, ndim(ary))]
    _split_points(n, indices_or_sections, strict=True)
    return array_split(ary, indices_or_sections, axis)


def unstack(x, /, *, axis=0):
    """As numpy.unstack: the slices of `x` along `axis`, as a tuple.

    One primitive however many slices: its reverse-mode rule stacks the slices' cotangents
    once (indexing slice by slice would scatter into a zero array per slice).

    Args:
        x: an array of at least one dimension.
        axis: the axis to slice along.

    Returns:
        A tuple of x.shape[axis] arrays, each of x's shape without that axis.

    Raises:
        ValueError: x is 0-d.
        numpy.exceptions.AxisError: axis out of range.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.unstack(np.array([[1, 2], [3, 4]]), axis=1)
        (array([1, 3]), array([2, 4]))
    """
    x = as_operand(x)
    if ndim(x) == 0:
        raise ValueError("Input array must be at least 1-d.")
    return sh.unstack(x, axis=normalize_axis(axis, ndim(x)))
