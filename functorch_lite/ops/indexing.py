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


def _scatter_add_host(xp, out, idx, values, arrays):
    """np.add.at(out, idx, values), in place. Where each index names a block of elements (a
    row of a table: the vjp of an embedding's gather), sums per position by np.bincount,
    several times faster than ufunc.at, which pays per element; where each names one element
    (1-d, or as many index arrays as dims), ufunc.at's own fast loop is the faster one.

    Each element x[idx] names gets its flat position in `out`; bincount adds the values of
    equal positions (weights in float64, real and imaginary parts apart) and only positions
    whose sum is nonzero are updated, so elements no index reaches stay as they are (a -0.0
    among them). A position hit more than once gets out + (v1 + v2 + ...) instead of add.at's
    ((out + v1) + v2) + ...: the same sum up to rounding, exact where out was zero (the
    vjp's zeros), and in float64 for float32 data. Integer and boolean data or masks, and a
    few updates into a large array (bincount passes over all of it), keep ufunc.at."""
    vkind = getattr(values, "dtype", out.dtype).kind
    if (out.dtype.kind not in "fc" or vkind not in "biuf" + "c" * (out.dtype.kind == "c")
            or any(a.dtype.kind == "b" for a in arrays) or _one_element_each(idx, out.ndim)):
        xp.add.at(out, idx, values)
        return
    pos = xp.arange(out.size).reshape(out.shape)[idx]
    tuples = math.prod(xp.broadcast_shapes(*[a.shape for a in arrays]))
    if pos.size < 2 * tuples or 4 * pos.size < out.size:
        xp.add.at(out, idx, values)
        return
    pos = pos.reshape(-1)
    vals = xp.broadcast_to(xp.asarray(values), out[idx].shape).reshape(-1)
    if vals.dtype.kind == "c":
        sums = (xp.bincount(pos, weights=vals.real, minlength=out.size)
                + 1j * xp.bincount(pos, weights=vals.imag, minlength=out.size))
    else:
        sums = xp.bincount(pos, weights=vals, minlength=out.size)
    sums = sums.reshape(out.shape)
    xp.add(out, sums, out=out, where=sums != 0, casting="unsafe")


def _one_element_each(idx, ndim):
    """Whether every index names single elements (ints and arrays for all dims)."""
    return ndim == 1 or sum(s is not None and s is not Ellipsis and not isinstance(s, slice)
                            for s in idx) == ndim


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
scatter = defop("scatter", _scatter_kernel,
                doc="A copy of x with x[index] updated by values; mode is one of set, add, "
                    "multiply, min, max. Repeated indices accumulate for add/multiply/min/max.")
