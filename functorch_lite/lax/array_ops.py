"""jax.lax's array functions that ported code reaches for: dynamic_slice, dynamic_update_slice
and associative_scan, built from library ops (so every transform and ft.jit follows them)."""
import operator

import numpy as np
import optree

from .. import numpy as fnp
from ..numpy._util import dtype_of, ndim, normalize_axis, shape


def _starts(operand_shape, start_indices, sizes, fn):
    """Each start index, a negative one counted from the end, clamped so that the window fits
    (JAX's rules: never out of bounds)."""
    if len(start_indices) != len(operand_shape):
        raise TypeError(f"lax.{fn}: {len(start_indices)} start indices for an operand of "
                        f"{len(operand_shape)} dimensions")
    starts = []
    for n, size, start in zip(operand_shape, sizes, start_indices):
        if not 0 <= size <= n:
            raise TypeError(f"lax.{fn}: a window of size {size} does not fit a dimension of "
                            f"size {n}")
        if isinstance(start, (int, np.integer)):
            start = int(start) + n if start < 0 else int(start)
            starts.append(min(max(start, 0), n - size))
        else:
            start = fnp.where(start < 0, start + n, start)
            starts.append(fnp.clip(start, 0, n - size))
    return starts


def _window(starts, sizes):
    """Broadcasting index arrays selecting the window (np.ix_ of start + arange(size))."""
    nd = len(sizes)
    index = []
    for d, (start, size) in enumerate(zip(starts, sizes)):
        i = fnp.arange(size) + start
        index.append(fnp.reshape(i, (size,) + (1,) * (nd - d - 1)))
    return tuple(index)


def dynamic_slice(operand, start_indices, slice_sizes):
    """The window of `operand` of shape `slice_sizes` starting at `start_indices`
    (jax.lax.dynamic_slice).

    The start indices may be traced values (under vmap each example may start elsewhere);
    the sizes are Python ints. As in JAX, a negative start index counts from the end, and a
    start index is clamped so that the window fits: it is never out of bounds.

    Args:
        operand: an array.
        start_indices: one integer (or 0-d integer array) per dimension.
        slice_sizes: one int per dimension, each at most that dimension's size.

    Returns:
        An array of shape `slice_sizes`.

    Raises:
        TypeError: a count of start indices or sizes that is not operand's ndim, or a size
            larger than its dimension.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.arange(10.0)
        >>> ft.lax.dynamic_slice(x, (3,), (4,))
        array([3., 4., 5., 6.])
        >>> ft.lax.dynamic_slice(x, (8,), (4,))   # clamped to start at 6
        array([6., 7., 8., 9.])
        >>> ft.vmap(lambda i: ft.lax.dynamic_slice(x, (i,), (2,)))(np.array([0, 5]))
        array([[0., 1.],
               [5., 6.]])
    """
    sizes = tuple(operator.index(s) for s in slice_sizes)
    if len(sizes) != ndim(operand):
        raise TypeError(f"lax.dynamic_slice: {len(sizes)} slice sizes for an operand of "
                        f"{ndim(operand)} dimensions")
    starts = _starts(shape(operand), tuple(start_indices), sizes, "dynamic_slice")
    if all(isinstance(s, int) for s in starts):
        return fnp.getitem(operand, tuple(slice(s, s + n) for s, n in zip(starts, sizes)))
    return fnp.getitem(operand, _window(starts, sizes))


def dynamic_update_slice(operand, update, start_indices):
    """`operand` with the window at `start_indices` replaced by `update`
    (jax.lax.dynamic_update_slice).

    The start indices may be traced values; as in JAX, a negative one counts from the end and
    each is clamped so that `update` fits.
    The result is a new array; `operand` is unchanged.

    Args:
        operand: an array.
        update: an array of operand's ndim, each dimension at most operand's.
        start_indices: one integer (or 0-d integer array) per dimension.

    Returns:
        An array of operand's shape and dtype.

    Raises:
        TypeError: a count of start indices that is not operand's ndim, or an update larger
            than the operand.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.lax.dynamic_update_slice(np.zeros(5), np.ones(2), (4,))   # clamped to 3
        array([0., 0., 0., 1., 1.])
    """
    sizes = shape(update)
    if len(sizes) != ndim(operand):
        raise TypeError(f"lax.dynamic_update_slice: an update of {len(sizes)} dimensions for "
                        f"an operand of {ndim(operand)}")
    starts = _starts(shape(operand), tuple(start_indices), sizes, "dynamic_update_slice")
    if all(isinstance(s, int) for s in starts):
        index = tuple(slice(s, s + n) for s, n in zip(starts, sizes))
    else:
        index = _window(starts, sizes)
    return fnp.at(operand)[index].set(fnp.astype(update, dtype_of(operand)))


def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations of `elems` along `axis` by the associative `fn`
    (jax.lax.associative_scan): out[i] = fn(... fn(elems[0], elems[1]) ..., elems[i]).

    Runs in O(log n) rounds of `fn` applied to whole slices (the odd/even recursion of a
    parallel prefix sum), so `fn` must be associative and written for arrays of any leading
    size along `axis`; it need not be commutative. `elems` is an array or a pytree of arrays
    of equal length along `axis`, and `fn` takes and returns such pytrees.

    Args:
        fn: an associative function of two pytrees of arrays, elementwise along `axis`.
        elems: an array or pytree of arrays, each of the same length along `axis`.
        reverse: scan from the end: out[i] combines elems[i:], the later elements passed
            to fn first (JAX's order: the scan of the flipped elems, flipped back).
        axis: the axis to scan along.

    Returns:
        A pytree of elems' structure and shapes.

    Raises:
        ValueError: leaves of different lengths along `axis`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.lax.associative_scan(np.add, np.arange(1.0, 6.0))
        array([ 1.,  3.,  6., 10., 15.])
        >>> ft.lax.associative_scan(np.multiply, np.arange(1.0, 6.0), reverse=True)
        array([120., 120.,  60.,  20.,   5.])
    """
    leaves, spec = optree.tree_flatten(elems)
    if not leaves:
        return elems
    axes = [normalize_axis(axis, ndim(x)) for x in leaves]
    lengths = {shape(x)[a] for x, a in zip(leaves, axes)}
    if len(lengths) != 1:
        raise ValueError(f"lax.associative_scan: the leaves of elems have lengths "
                         f"{sorted(lengths)} along axis {axis}; they must be equal")
    leaves = [fnp.moveaxis(x, a, 0) for x, a in zip(leaves, axes)]
    if reverse:
        leaves = [fnp.flip(x, 0) for x in leaves]

    def combine(a, b):   # reversed: fn sees the later elements first, as in JAX
        out = fn(spec.unflatten([fnp.moveaxis(x, 0, k) for x, k in zip(a, axes)]),
                 spec.unflatten([fnp.moveaxis(x, 0, k) for x, k in zip(b, axes)]))
        return [fnp.moveaxis(x, k, 0) for x, k in zip(spec.flatten_up_to(out), axes)]

    out = _prefix(combine, leaves, lengths.pop())
    if reverse:
        out = [fnp.flip(x, 0) for x in out]
    return spec.unflatten([fnp.moveaxis(x, 0, a) for x, a in zip(out, axes)])


def _prefix(combine, xs, n):
    """Inclusive prefix combinations of the leaves xs (scanned axis first, length n): combine
    neighbouring pairs, scan those (half as many), then fill in the even positions."""
    if n < 2:
        return xs
    pairs = combine([x[0:n - 1:2] for x in xs], [x[1::2] for x in xs])
    odd = _prefix(combine, pairs, n // 2)            # prefixes ending at 1, 3, 5, ...
    if n % 2:
        rest = combine(odd, [x[2::2] for x in xs])    # prefixes ending at 2, 4, ..., n - 1
    else:
        rest = combine([o[:-1] for o in odd], [x[2::2] for x in xs])
    even = [fnp.concatenate([x[:1], r], axis=0) for x, r in zip(xs, rest)]
    out = []
    for e, o in zip(even, odd):
        k = shape(o)[0]
        woven = fnp.reshape(fnp.stack([e[:k], o], axis=1), (2 * k,) + shape(o)[1:])
        out.append(fnp.concatenate([woven, e[k:]], axis=0) if shape(e)[0] > k else woven)
    return out
