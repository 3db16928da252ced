"""jvp rules of gather (`x[idx]`) and scatter (`x.at[idx].set/add/multiply/min/max`).

Index arrays are integer operands: they never carry a tangent. For scatter-min/max the
derivative is split equally among the tied candidates (x's old value and every value written
to the same place), as the max/min reductions do.
"""
from ..ops import elementwise as ew, indexing as ix
from .jvp_helpers import add_tangents, def_linear, fit, instantiate, zeros_like

def_linear(ix.getitem)


def _scatter(x, values, arrays, index, mode):
    return ix.scatter(x, values, *arrays, index=index, mode=mode)


@ix.scatter.def_jvp
def scatter_jvp(primals, tangents, index, mode):
    x, values, *arrays = primals
    tx, tv = tangents[:2]
    out = _scatter(x, values, arrays, index, mode)
    if tx is None and tv is None:
        return out, None
    if mode in ("set", "add"):  # linear in (x, values) jointly
        t = _scatter(instantiate(tx, x), instantiate(tv, values), arrays, index, mode)
        return out, fit(t, out)
    if mode == "multiply":  # out = x * prod(values at each place): d/out = tx/x*out + ...
        parts = []
        if tx is not None:
            parts.append(_scatter(tx, values, arrays, index, "multiply"))
        if tv is not None:
            ratio = ew.divide(tv, values)
            parts.append(ew.multiply(out, _scatter(zeros_like(out), ratio, arrays, index, "add")))
        return out, fit(add_tangents(*parts), out)
    # min / max: which candidates attain the result at each place, with equal shares at ties
    gathered = ix.getitem(out, *arrays, index=index)
    x_hits = ew.astype(ew.equal(x, out), dtype=out.dtype)
    v_hits = ew.astype(ew.equal(values, gathered), dtype=out.dtype)
    count = ew.add(x_hits, _scatter(zeros_like(out), v_hits, arrays, index, "add"))
    total = None
    if tx is not None:
        total = ew.multiply(tx, x_hits)
    if tv is not None:
        total = add_tangents(total, _scatter(zeros_like(out), ew.multiply(tv, v_hits),
                                             arrays, index, "add"))
    return out, fit(ew.divide(total, count), out)
