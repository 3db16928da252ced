"""NumPy's where= and initial= arguments of the reductions, as composites: the masked-out
entries are replaced by the reduction's identity (0 for sum, 1 for prod, `initial` for max and
min) and `initial` joins the result, so every transform follows through `where` and the plain
reduction."""
import numpy as np

from ..ops import elementwise as ew, reductions as red
from ._util import dtype_of, normalize_axes, shape, xp_of


def fill_masked(a, where, identity):
    """a with the entries where `where` is False replaced by `identity` (a unchanged when
    `where` is None)."""
    return a if where is None else ew.where(_on_device_of(where, a), a, identity)


def _on_device_of(mask, a):
    """A NumPy mask moved to a's array module (a mask is an index, as NumPy index arrays,
    which mix with device arrays)."""
    xp = xp_of(a)
    return xp.asarray(mask) if isinstance(mask, np.ndarray) and xp is not np else mask


def sum_with(a, axis, keepdims, dtype, initial, where):
    """np.sum(a, ..., initial=, where=)."""
    total = red.sum(fill_masked(a, where, 0), axis=axis, keepdims=keepdims, dtype=dtype)
    if initial is None:
        return total
    return ew.astype(ew.add(total, initial), dtype=dtype_of(total))


def prod_with(a, axis, keepdims, dtype, initial, where):
    """np.prod(a, ..., initial=, where=)."""
    total = red.prod(fill_masked(a, where, 1), axis=axis, keepdims=keepdims, dtype=dtype)
    if initial is None:
        return total
    return ew.astype(ew.multiply(total, initial), dtype=dtype_of(total))


def extremum_with(name, a, axis, keepdims, initial, where):
    """np.max / np.min(a, ..., initial=, where=): NumPy needs `initial` with `where` (the
    reduction has no identity); the masked entries become `initial`, which also joins the
    result, so an empty reduction gives `initial`."""
    if where is not None and initial is None:
        raise ValueError(f"reduction operation '{'maximum' if name == 'max' else 'minimum'}' "
                         "does not have an identity, so to use a where mask one has to specify "
                         "'initial'")
    filled = fill_masked(a, where, initial)
    s = shape(filled)
    axes = normalize_axes(axis, len(s))
    if any(s[ax] == 0 for ax in axes):
        from ._creation import full
        out_shape = tuple(1 if i in axes else d for i, d in enumerate(s)) if keepdims else \
            tuple(d for i, d in enumerate(s) if i not in axes)
        return full(out_shape, initial, dtype=dtype_of(a), like=filled)
    out = (red.max if name == "max" else red.min)(filled, axis=axis, keepdims=keepdims)
    if initial is None:
        return out
    pick = ew.maximum if name == "max" else ew.minimum
    return ew.astype(pick(out, initial), dtype=dtype_of(out))


def count(a, axis, keepdims, where):
    """How many entries each reduction of `a` over `axis` averages (a Python int without
    `where`, an array of counts with it)."""
    s = shape(a)
    if where is None:
        n = 1
        for ax in normalize_axes(axis, len(s)):
            n *= s[ax]
        return n
    from ._shape import broadcast_to
    mask = broadcast_to(_on_device_of(where, a), s)
    return red.sum(ew.astype(mask, dtype=np.int64), axis=axis, keepdims=keepdims)
