"""Array builders and differences with NumPy's signatures, composites of primitives:
diag, diagflat, kron, cross, diff."""
import numpy as np

from ..ops import elementwise as ew
from ._indexing import getitem
from ._shape import broadcast_arrays, ravel, reshape
from ._joining import stack
from ._rearranging import diagonal, pad
from ._util import as_operand, dtype_of, ndim, normalize_axis, shape, xp_of


def diag(v, k=0):
    """As numpy.diag: a matrix from a 1-d diagonal, or a 2-d matrix's diagonal.

    A 1-d v becomes the matrix with v on diagonal k; a 2-d v gives its k-th diagonal. Built as
    where(mask, v broadcast along rows or columns, 0), with the mask a constant from np.eye:
    the derivative flows only to the placed entries.

    Args:
        v: a 1-d or 2-d array (or a value under a transform).
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A square 2-d array of size len(v) + |k|, or a 1-d array of the diagonal.

    Raises:
        ValueError: v is neither 1-d nor 2-d.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.diag(np.array([1, 2]))
        array([[1, 0],
               [0, 2]])
    """
    v = as_operand(v)
    if ndim(v) == 2:
        return diagonal(v, k)
    if ndim(v) != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = shape(v)[0]
    m = n + abs(k)
    col = pad(v, (0, abs(k)))  # length m; entry i lands on row i (k >= 0) or column i (k < 0)
    placed = reshape(col, (m, 1) if k >= 0 else (1, m))
    xp = xp_of(v)
    mask = xp.asarray(np.eye(m, k=k, dtype=bool))
    return ew.where(mask, placed, xp.zeros((), dtype_of(v)))


def diagflat(v, k=0):
    """As numpy.diagflat: the matrix with the flattened input on diagonal k.

    Args:
        v: an array of any shape (or a value under a transform), flattened first.
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.

    Returns:
        A square 2-d array of size v.size + |k|.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.diagflat(np.array([[1, 2]]), k=1)
        array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]])
    """
    return diag(ravel(as_operand(v)), k)


def kron(a, b):
    """As numpy.kron: the Kronecker product of `a` and `b`.

    a[i..] * b[j..] is placed at i * b.shape + j, computed as one broadcast multiply.

    Args:
        a, b: array_like; the one with fewer dimensions gets leading length-1 axes.

    Returns:
        An array of shape a.shape * b.shape (elementwise).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.kron(np.array([1, 10]), np.array([1, 2, 3]))
        array([ 1,  2,  3, 10, 20, 30])
    """
    a, b = as_operand(a), as_operand(b)
    nd = max(ndim(a), ndim(b))
    sa = (1,) * (nd - ndim(a)) + shape(a)
    sb = (1,) * (nd - ndim(b)) + shape(b)
    a2 = reshape(a, sum(((d, 1) for d in sa), ()))
    b2 = reshape(b, sum(((1, d) for d in sb), ()))
    return reshape(ew.multiply(a2, b2), tuple(x * y for x, y in zip(sa, sb)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """As numpy.cross: the cross product of 3-vectors along the last axis.

    The other axes broadcast.

    Args:
        a: an array whose last axis has size 3 (or a value under a transform).
        b: an array whose last axis has size 3, broadcast against a.
        axisa: only -1 is supported.
        axisb: only -1 is supported.
        axisc: only -1 is supported.
        axis: if given, sets axisa, axisb and axisc; only -1 is supported.

    Returns:
        An array of the broadcast shape, the products along the last axis.

    Raises:
        NotImplementedError: an axis other than -1.
        ValueError: the last axis does not have size 3.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.cross(np.array([1, 0, 0]), np.array([0, 1, 0]))
        array([0, 0, 1])
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    if (axisa, axisb, axisc) != (-1, -1, -1):
        raise NotImplementedError("cross supports vectors along the last axis only "
                                  "(axisa=axisb=axisc=-1)")
    a, b = broadcast_arrays(as_operand(a), as_operand(b))
    if shape(a)[-1:] != (3,):
        raise ValueError("cross supports 3-vectors only (the last axis must have size 3)")
    ax, ay, az = (getitem(a, (Ellipsis, i)) for i in range(3))
    bx, by, bz = (getitem(b, (Ellipsis, i)) for i in range(3))
    return stack([ew.subtract(ew.multiply(ay, bz), ew.multiply(az, by)),
                  ew.subtract(ew.multiply(az, bx), ew.multiply(ax, bz)),
                  ew.subtract(ew.multiply(ax, by), ew.multiply(ay, bx))], axis=-1)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """As numpy.diff: the n-th forward difference along `axis`.

    a[1:] - a[:-1] along `axis`, n times (for booleans: a[1:] != a[:-1]).

    Args:
        a: an array (or a value under a transform).
        n: the number of times to difference (0 returns a).
        axis: the axis to difference along (default -1).
        prepend: not supported.
        append: not supported.

    Returns:
        An array whose `axis` is n shorter.

    Raises:
        NotImplementedError: prepend= or append= is given.
        ValueError: n is negative, or a is 0-d.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.diff(np.array([1, 4, 9, 16]), n=2)
        array([2, 2])
    """
    if prepend is not np._NoValue or append is not np._NoValue:
        raise NotImplementedError("diff with prepend/append is not supported")
    a = as_operand(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if n == 0:
        return a
    nd = ndim(a)
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, nd)
    lead = (slice(None),) * axis
    boolean = dtype_of(a) == np.bool_
    for _ in range(n):
        hi, lo = getitem(a, lead + (slice(1, None),)), getitem(a, lead + (slice(None, -1),))
        a = ew.not_equal(hi, lo) if boolean else ew.subtract(hi, lo)
    return a

