"""Indexing primitives: gather (`x[idx]`) and scatter (`x.at[idx].set/add/...`).

An index is split into a static part and its array parts, so that integer-array and
boolean-mask indices are operands that transforms can see (a batched index under vmap, say).
`index` is a tuple of ints, slices, None, Ellipsis and ARRAY slots; the arrays fill the slots
in order.
"""
from .. import backend
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
    elif xp.__name__ == "numpy":
        getattr(xp, _SCATTER_UFUNC[mode]).at(out, idx, values)
    else:  # cupy: ufunc.at is missing for some ufuncs; cupyx has the scatter kernels
        cupyx = backend.companion(xp, "cupyx")
        scatter = {"add": cupyx.scatter_add, "min": cupyx.scatter_min,
                   "max": cupyx.scatter_max}.get(mode)
        if scatter is None:
            getattr(xp, _SCATTER_UFUNC[mode]).at(out, idx, values)
        else:
            scatter(out, idx, values)
    return out


getitem = defop("getitem", _getitem_kernel, doc="x[index] with array slots filled by operands.")
scatter = defop("scatter", _scatter_kernel,
                doc="A copy of x with x[index] updated by values; mode is one of set, add, "
                    "multiply, min, max. Repeated indices accumulate for add/multiply/min/max.")
