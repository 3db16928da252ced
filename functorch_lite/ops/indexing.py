"""Indexing primitives: gather (`x[idx]`) and scatter (`x.at[idx].set/add/...`).

An index is split into a static part and its array parts, so that integer-array and
boolean-mask indices are operands that transforms can see (a batched index under vmap, say).
`index` is a tuple of ints, slices, None, Ellipsis and ARRAY slots; the arrays fill the slots
in order.
"""
import math

from ..backend import companion, is_host
from ..dispatch import defop


class _ArraySlot:
    """Marks where an array operand stands in a static index."""

    __slots__ = ()

    def __repr__(self):
        return "ARRAY"


ARRAY = _ArraySlot()


def build_index(index, arrays):
    """The NumPy index for a static index with its array slots filled from `arrays`."""
    if not arrays:
        return index
    it = iter(arrays)
    return tuple([next(it) if s is ARRAY else s for s in index])  # a list: faster than a genexpr


def _getitem_kernel(xp, x, *arrays, index):
    return x[build_index(index, arrays)]


_SCATTER_UFUNC = {"add": "add", "multiply": "multiply", "min": "minimum", "max": "maximum"}
_CUPYX_SCATTER = {"add": "scatter_add", "min": "scatter_min", "max": "scatter_max"}


def _scatter_kernel(xp, x, values, *arrays, index, mode):
    out = xp.array(x, copy=True)
    idx = build_index(index, arrays)
    if mode == "set":
        out[idx] = values
    elif not arrays and mode == "add":
        # A basic index (ints, slices) names each element once: no repeats to accumulate, so
        # the in-place operator is exact and far cheaper than ufunc.at.
        out[idx] += values
    elif not arrays and mode == "multiply":
        out[idx] *= values
    elif is_host(xp) and mode == "add":
        _scatter_add_host(xp, out, idx, values, arrays)
    elif is_host(xp):
        getattr(xp, _SCATTER_UFUNC[mode]).at(out, idx, values)
    elif mode == "multiply":  # CuPy has no multiply.at (nor a cupyx scatter for it)
        return _scatter_multiply_by_rank(xp, out, idx, values)
    else:
        scatter_op = getattr(companion(xp, "cupyx"), _CUPYX_SCATTER[mode])
        scatter_op(out, idx, xp.asarray(values, dtype=out.dtype))
    return out


_SEGMENT_SUM_MIN = 4096   # elements: below, sorting costs more than ufunc.at saves


def _scatter_add_host(xp, out, idx, values, arrays):
    """np.add.at(out, idx, values), in place. Where leading integer index arrays pick blocks
    (rows of a table: the vjp of an embedding's gather, of x[idx] on a batch), a sort-based
    segment sum: the blocks of equal rows are added by one np.add.reduceat, then each row
    once, several times faster than ufunc.at, which pays per element. Elsewhere (single
    elements, where ufunc.at's own loop is fast; slices before the arrays; masks; mixed
    dtypes; small scatters) ufunc.at.

    A row hit more than once gets out + (v1 + v2 + ...) instead of add.at's ((out + v1) + v2)
    + ...: the same sum up to rounding, exact where out was zero (the vjp's zeros) and for
    integers; rows no index reaches are not touched."""
    k = len(arrays)
    if not _leading_rows(idx, k, out) or getattr(values, "dtype", None) != out.dtype:
        xp.add.at(out, idx, values)
        return
    lead = out.shape[:k]
    block = out.size // max(math.prod(lead), 1)
    picks = xp.broadcast_arrays(*arrays)
    count = picks[0].size
    if block < 4 or count * block < _SEGMENT_SUM_MIN or any(
            int(a.min()) < -n or int(a.max()) >= n for a, n in zip(picks, lead)):
        xp.add.at(out, idx, values)    # small, or out of range (ufunc.at raises IndexError)
        return
    row = xp.ravel_multi_index([a.reshape(-1) for a in picks], lead, mode="wrap")
    vals = xp.broadcast_to(values, picks[0].shape + out.shape[k:]).reshape(count, block)
    order = xp.argsort(row, kind="stable")
    row = row[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), row[1:] != row[:-1]]))
    sums = xp.add.reduceat(vals[order], starts, axis=0)
    out.reshape(-1, block)[row[starts]] += sums


def _leading_rows(idx, k, out):
    """Whether idx is k integer arrays then whole dims (slice(None), Ellipsis), 0 < k <
    ndim, into a C-contiguous integer or floating `out`: each index picks a contiguous row."""
    if not 0 < k < out.ndim or not out.flags.c_contiguous or out.dtype.kind not in "iufc":
        return False
    head, tail = idx[:k], idx[k:]
    if any(getattr(a, "dtype", None) is None or a.dtype.kind not in "iu" for a in head):
        return False
    return all(s is Ellipsis or (isinstance(s, slice) and s == slice(None)) for s in tail)


def _scatter_multiply_by_rank(xp, out, idx, values):
    """np.multiply.at(out, idx, values) with plain in-place products, for a device module.

    Every element x[idx] names is given its flat position in `out`; a stable sort groups equal
    positions keeping their order, and an element's rank is its place in its group. The
    elements of one rank hit distinct positions, so one exact `flat[pos] *= v` per rank, in
    rank order, multiplies each position in the order NumPy would: the loop runs over the
    largest multiplicity of an index, not over the elements."""
    pos = xp.arange(out.size).reshape(out.shape)[idx]
    vals = xp.broadcast_to(xp.asarray(values), pos.shape).reshape(-1)
    pos = pos.reshape(-1)
    order = xp.argsort(pos, kind="stable")
    pos, vals = pos[order], vals[order]
    rank = xp.arange(pos.size) - xp.searchsorted(pos, pos, side="left")
    flat = out.reshape(-1)
    for r in range(int(rank.max()) + 1 if pos.size else 0):
        hit = rank == r
        flat[pos[hit]] *= vals[hit]
    return flat.reshape(out.shape)


getitem = defop("getitem", _getitem_kernel, doc="x[index] with array slots filled by operands.")
getitem.value_dependent_shape = lambda x, *arrays, index: any(
    getattr(a, "dtype", None) == bool for a in arrays)
"""A boolean mask operand makes the output's shape depend on the mask's values."""
scatter = defop("scatter", _scatter_kernel,
                doc="A copy of x with x[index] updated by values; mode is one of set, add, "
                    "multiply, min, max. Repeated indices accumulate for add/multiply/min/max.")
