"""meshgrid: coordinate grids from 1-d coordinate vectors (reshape and broadcast views)."""
from ._shape import broadcast_to, ravel, reshape
from ._util import as_operand, shape


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """As numpy.meshgrid: a tuple of coordinate arrays, one per input vector.

    Args:
        *xi: array_like, flattened to 1-d coordinate vectors.
        copy: accepted for NumPy compatibility.
        sparse: keep each output unbroadcast (length 1 on the other axes).
        indexing: 'xy' (Cartesian, the default: the first two axes swapped) or 'ij' (matrix).

    Returns:
        A tuple of len(xi) arrays.

    Raises:
        ValueError: `indexing` is neither 'xy' nor 'ij'.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> X, Y = fnp.meshgrid(np.array([1, 2, 3]), np.array([4, 5]))
        >>> X
        array([[1, 2, 3],
               [1, 2, 3]])
        >>> fnp.meshgrid(np.array([1, 2, 3]), np.array([4, 5]), indexing="ij")[1]
        array([[4, 5],
               [4, 5],
               [4, 5]])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    vectors = [ravel(as_operand(x)) for x in xi]
    nd = len(vectors)
    out = []
    for i, v in enumerate(vectors):
        s = [1] * nd
        s[i] = -1
        if indexing == "xy" and nd > 1 and i < 2:
            s[0], s[1] = s[1], s[0]
        out.append(reshape(v, tuple(s)))
    if not sparse and out:
        full = [shape(v)[0] for v in vectors]
        if indexing == "xy" and nd > 1:
            full[0], full[1] = full[1], full[0]
        out = [broadcast_to(o, tuple(full)) for o in out]
    return tuple(out)
