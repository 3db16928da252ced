"""numpy.linalg's products and diagonals of the array API: trace, diagonal, outer, vecdot,
matrix_power."""
import numpy as np

from ...ops import elementwise as ew, linalg as la, reductions as red
from .._indexing import numpy_scalar
from .._shape import expand_dims, moveaxis, reshape
from .._rearranging import diagonal as _diagonal
from .._util import as_operand, dtype_of, ndim, shape, xp_of


def trace(x, /, *, offset=0, dtype=None):
    """As numpy.linalg.trace: the sum of the diagonal of the last two axes.

    Args:
        x: a (..., m, n) array.
        offset: the diagonal: 0 the main one, > 0 above it, < 0 below it.
        dtype: the accumulator's and result's dtype (default: as sum's).

    Returns:
        The (...) traces.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> float(fnp.linalg.trace(np.array([[1.0, 2.0], [3.0, 4.0]])))
        5.0
    """
    return red.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """As numpy.linalg.diagonal: the diagonal of the last two axes.

    Args:
        x: a (..., m, n) array.
        offset: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        The (..., k) diagonals.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.diagonal(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([1., 4.])
    """
    return _diagonal(as_operand(x), offset, -2, -1)


def outer(x1, x2, /):
    """As numpy.linalg.outer: the outer product of two vectors.

    Args:
        x1: a 1-d array of length m.
        x2: a 1-d array of length n.

    Returns:
        The (m, n) array x1[i] * x2[j].

    Raises:
        ValueError: an input that is not one-dimensional.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.outer(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        array([[3., 4.],
               [6., 8.]])
    """
    x1, x2 = as_operand(x1), as_operand(x2)
    if ndim(x1) != 1 or ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return ew.multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


def vecdot(x1, x2, /, *, axis=-1):
    """As numpy.linalg.vecdot: the vector dot product sum(conj(x1) * x2) over `axis`.

    Args:
        x1: the first array (conjugated when complex).
        x2: the second array, broadcast against x1.
        axis: the axis to contract (default -1).

    Returns:
        The dot products, with the broadcast shape less `axis`.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> float(fnp.linalg.vecdot(np.array([1.0, 2.0]), np.array([3.0, 4.0])))
        11.0
    """
    x1, x2 = moveaxis(as_operand(x1), axis, -1), moveaxis(as_operand(x2), axis, -1)
    if dtype_of(x1).kind == "c":
        x1 = ew.conj(x1)
    # one dot per pair of vectors, as NumPy's vecdot: (1, n) @ (n, 1) products
    return numpy_scalar(la.matmul(expand_dims(x1, -2), expand_dims(x2, -1))[..., 0, 0])


def matrix_power(a, n):
    """As numpy.linalg.matrix_power: a^n by repeated squaring with matmul.

    The products are NumPy's, in its order, so the values are NumPy's bit for bit. n = 0
    gives the identity, n < 0 uses inv(a).

    Args:
        a: a (..., m, m) square matrix or stack of them.
        n: the integer exponent.

    Returns:
        The (..., m, m) matrix power.

    Raises:
        TypeError: n is not an integer.
        LinAlgError: the last two dims of `a` are not square.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 3)
        array([[1., 3.],
               [0., 1.]])
    """
    a = as_operand(a)
    if not isinstance(n, (int, np.integer)):
        raise TypeError("exponent must be an integer")
    if ndim(a) < 2 or shape(a)[-1] != shape(a)[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if n == 0:
        xp = xp_of(a)
        return xp.broadcast_to(xp.eye(shape(a)[-1], dtype=dtype_of(a)), shape(a)).copy()
    if n < 0:
        a, n = la.inv(a), -n
    if n <= 3:
        return a if n == 1 else la.matmul(a, a) if n == 2 else la.matmul(la.matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else la.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else la.matmul(result, z)
    return result
