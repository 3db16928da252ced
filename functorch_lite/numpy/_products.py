"""Products: matmul and einsum are primitives; dot, vdot, inner, outer, tensordot compose them."""
import string

import numpy as np

from ..ops import elementwise as ew, linalg as la, reductions as red
from ._indexing import numpy_scalar
from ._util import as_operand, ndim, normalize_axis, shape
from ._shape import ravel, reshape, transpose

matmul = la.matmul


def tensordot(a, b, axes=2):
    """As numpy.tensordot: the sum of products over the given axes of a and b.

    Args:
        a: the first array.
        b: the second array.
        axes: an int N (the last N axes of a with the first N of b), or a pair of axis
            sequences (axes of a, axes of b).

    Returns:
        An array of a's free axes followed by b's free axes.

    Raises:
        ValueError: the contracted axes differ in number or length.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.tensordot(np.array([[1, 2], [3, 4]]), np.array([1, 1]), axes=1)
        array([3, 7])
    """
    a, b = as_operand(a), as_operand(b)
    na, nb = ndim(a), ndim(b)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    axes_a = [normalize_axis(ax, na) for ax in axes_a]
    axes_b = [normalize_axis(ax, nb) for ax in axes_b]
    sa, sb = shape(a), shape(b)
    if len(axes_a) != len(axes_b) or any(sa[i] != sb[j] for i, j in zip(axes_a, axes_b)):
        raise ValueError("shape-mismatch for sum")
    free_a = [i for i in range(na) if i not in axes_a]
    free_b = [j for j in range(nb) if j not in axes_b]
    k = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    out_shape = tuple(sa[i] for i in free_a) + tuple(sb[j] for j in free_b)
    a2 = reshape(transpose(a, free_a + axes_a), (-1, k) if k else
                 (int(np.prod([sa[i] for i in free_a], dtype=np.int64)), 0))
    b2 = reshape(transpose(b, axes_b + free_b), (k, -1) if k else
                 (0, int(np.prod([sb[j] for j in free_b], dtype=np.int64))))
    return reshape(la.matmul(a2, b2), out_shape)


def dot(a, b, out=None):
    """As numpy.dot: the product of scalars, vectors or matrices.

    For higher ranks, the sum over the last axis of a and the second-to-last of b.

    Args:
        a: an array (or a value under a transform).
        b: an array.
        out: not supported.

    Returns:
        The product: a scalar-shaped, 1-d, 2-d or higher array, as NumPy's.

    Raises:
        TypeError: out= is given.
        ValueError: the summed axes differ in size.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.dot(np.array([[1, 2], [3, 4]]), np.array([1, 1]))
        array([3, 7])
    """
    if out is not None:
        raise TypeError("functorch_lite.numpy.dot does not support out=")
    a, b = as_operand(a), as_operand(b)
    na, nb = ndim(a), ndim(b)
    if na == 0 or nb == 0:
        return ew.multiply(a, b)
    if nb <= 2 and na <= 2:
        return la.matmul(a, b)
    return tensordot(a, b, axes=([na - 1], [nb - 2 if nb >= 2 else 0]))


def vdot(a, b):
    """As numpy.vdot: the sum of conj(a) * b over the flattened inputs.

    Args:
        a: an array (conjugated).
        b: an array of a's size.

    Returns:
        A 0-d array.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.vdot(np.array([[1, 2], [3, 4]]), np.array([1, 1, 1, 1]))
        np.int64(10)
    """
    return la.matmul(ew.conj(ravel(a)), ravel(b))   # NumPy's dot of the two vectors


def inner(a, b):
    """As numpy.inner: the sum product over the last axes of `a` and `b`.

    Args:
        a, b: array_like with equal last dimensions; a scalar operand multiplies.

    Returns:
        An array of shape a.shape[:-1] + b.shape[:-1] (a NumPy scalar for two vectors).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.inner(np.array([1, 2, 3]), np.array([4, 5, 6]))
        np.int64(32)
        >>> fnp.inner(np.array([[1, 0], [0, 2]]), np.array([1, 1]))
        array([1, 2])
    """
    a, b = as_operand(a), as_operand(b)
    if ndim(a) == 0 or ndim(b) == 0:
        return ew.multiply(a, b)
    return numpy_scalar(tensordot(a, b, axes=([-1], [-1])))


def outer(a, b, out=None):
    """As numpy.outer: the outer product of the flattened inputs.

    Args:
        a: an array; flattened to length M.
        b: an array; flattened to length N.
        out: not supported.

    Returns:
        The (M, N) array a[i] * b[j].

    Raises:
        TypeError: out= is given.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.outer(np.array([1, 2]), np.array([1, 10, 100]))
        array([[  1,  10, 100],
               [  2,  20, 200]])
    """
    if out is not None:
        raise TypeError("functorch_lite.numpy.outer does not support out=")
    return ew.multiply(reshape(ravel(a), (-1, 1)), reshape(ravel(b), (1, -1)))


def _normalize_subscripts(subscripts, operands):
    """Explicit subscripts with no ellipsis ('ij,jk->ik'), as the einsum primitive takes them."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        inputs, output = subscripts.split("->")
    else:
        inputs, output = subscripts, None
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand subscripts for {len(operands)} operands")
    used = set(subscripts) - set(".,->")
    spare = [c for c in string.ascii_letters if c not in used]
    ell_nd = max((ndim(op) - len(t.replace("...", "")) for t, op in zip(terms, operands)
                  if "..." in t), default=0)
    ell = "".join(spare[:ell_nd])
    expanded = []
    for t, op in zip(terms, operands):
        if "..." in t:
            k = ndim(op) - len(t.replace("...", ""))
            t = t.replace("...", ell[ell_nd - k:] if k else "")
        if len(t) != ndim(op):
            raise ValueError(f"einsum: subscripts {t!r} do not match an operand of "
                             f"rank {ndim(op)}")
        expanded.append(t)
    if output is None:
        counts = {}
        for t in expanded:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        output = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        output = output.replace("...", ell)
    return ",".join(expanded) + "->" + output


def einsum(subscripts, *operands, optimize="greedy"):
    """As numpy.einsum: Einstein summation over the operands.

    Explicit ('ij,jk->ik') or implicit ('ij,jk') form, with ellipsis. Unlike NumPy
    (optimize=False) it chooses a contraction order by default, as torch and JAX.

    Args:
        subscripts: the subscripts string, one comma-separated term per operand.
        *operands: the arrays (or values under a transform).
        optimize: the contraction order, as numpy.einsum's ("greedy", "optimal", True or
            False); small problems run unoptimized.

    Returns:
        An array with the output subscripts' axes.

    Raises:
        ValueError: the number of terms differs from the number of operands, or a term does
            not match its operand's rank.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.einsum("ij,j->i", np.array([[1, 2], [3, 4]]), np.array([1, 1]))
        array([3, 7])
    """
    operands = [as_operand(op) for op in operands]
    return la.einsum(*operands, subscripts=_normalize_subscripts(subscripts, operands),
                     optimize=optimize)
