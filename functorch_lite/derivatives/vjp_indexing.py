"""vjp rules of gather (getitem) and scatter (.at[idx].set/add/multiply/min/max).

The transpose of a gather is a scatter-add (repeated indices accumulate); index arrays get no
cotangent. For scatter min/max the cotangent is split equally among the operands that attain the
result (x's old value and every value written there), as the jvp and the max/min reductions do.
"""
from .. import numpy as fnp
from ..ops import elementwise as ew
from ..ops.indexing import getitem, scatter
from .vjp_helpers import shape_of


def _getitem_vjp(ct, primals, out, needed=None, *, index):
    x, arrays = primals[0], primals[1:]
    zeros = fnp.zeros(shape_of(x), dtype=x.dtype, like=x)
    return (scatter(zeros, ct, *arrays, index=index, mode="add"),) + (None,) * len(arrays)


def _scatter_vjp(ct, primals, out, needed=None, *, index, mode):
    x, values, arrays = primals[0], primals[1], primals[2:]
    want_x = needed is None or needed[0]
    want_v = needed is None or needed[1]
    ct_x = ct_v = None
    if mode == "set":
        if want_x:
            ct_x = scatter(ct, fnp.zeros((), dtype=ct.dtype, like=ct), *arrays, index=index,
                           mode="set")
        if want_v:
            ct_v = getitem(ct, *arrays, index=index)
    elif mode == "add":
        ct_x = ct if want_x else None
        if want_v:
            ct_v = getitem(ct, *arrays, index=index)
    elif mode == "multiply":
        if want_x:  # x_i is multiplied by the product of the values scattered onto it
            factor = scatter(fnp.ones(shape_of(x), dtype=out.dtype, like=x), values, *arrays,
                             index=index, mode="multiply")
            ct_x = ew.multiply(ct, factor)
        if want_v:  # d out / d v = out / v at the positions v lands on
            ct_v = ew.divide(getitem(ew.multiply(ct, out), *arrays, index=index), values)
    else:  # min / max: equal shares among the candidates that attain the result (ties)
        x_hits = ew.astype(ew.equal(x, out), dtype=out.dtype)
        v_hits = ew.astype(ew.equal(values, getitem(out, *arrays, index=index)), dtype=out.dtype)
        count = ew.add(x_hits, scatter(fnp.zeros(shape_of(out), dtype=out.dtype, like=out), v_hits,
                                       *arrays, index=index, mode="add"))
        share = ew.divide(ct, count)
        if want_x:
            ct_x = ew.multiply(share, x_hits)
        if want_v:
            ct_v = ew.multiply(getitem(share, *arrays, index=index), v_hits)
    return (ct_x, ct_v) + (None,) * len(arrays)


_getitem_vjp.takes_needed = True
_scatter_vjp.takes_needed = True
getitem.def_vjp(_getitem_vjp)
scatter.def_vjp(_scatter_vjp)
