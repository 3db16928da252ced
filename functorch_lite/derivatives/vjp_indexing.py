"""vjp rules of gather (getitem) and scatter (.at[idx].set/add/multiply/min/max).

The transpose of a gather is a scatter-add (repeated indices accumulate); index arrays get no
cotangent. For scatter min/max the cotangent goes to every operand equal to the result.
"""
from .. import numpy as fnp
from ..ops import elementwise as ew
from ..ops.indexing import getitem, scatter
from .vjp_helpers import shape_of


def _getitem_vjp(ct, primals, out, needed=None, *, index):
    x, arrays = primals[0], primals[1:]
    zeros = fnp.zeros(shape_of(x), dtype=x.dtype)
    return (scatter(zeros, ct, *arrays, index=index, mode="add"),) + (None,) * len(arrays)


def _scatter_vjp(ct, primals, out, needed=None, *, index, mode):
    x, values, arrays = primals[0], primals[1], primals[2:]
    want_x = needed is None or needed[0]
    want_v = needed is None or needed[1]
    ct_x = ct_v = None
    if mode == "set":
        if want_x:
            ct_x = scatter(ct, fnp.zeros((), dtype=ct.dtype), *arrays, index=index, mode="set")
        if want_v:
            ct_v = getitem(ct, *arrays, index=index)
    elif mode == "add":
        ct_x = ct if want_x else None
        if want_v:
            ct_v = getitem(ct, *arrays, index=index)
    elif mode == "multiply":
        if want_x:  # x_i is multiplied by the product of the values scattered onto it
            factor = scatter(fnp.ones(shape_of(x), dtype=out.dtype), values, *arrays,
                             index=index, mode="multiply")
            ct_x = ew.multiply(ct, factor)
        if want_v:  # d out / d v = out / v at the positions v lands on
            ct_v = ew.divide(getitem(ew.multiply(ct, out), *arrays, index=index), values)
    else:  # min / max: the cotangent flows to whichever operand equals the result
        if want_x:
            ct_x = ew.where(ew.equal(x, out), ct, 0.0)
        if want_v:
            picked = getitem(out, *arrays, index=index)
            ct_v = ew.where(ew.equal(values, picked), getitem(ct, *arrays, index=index), 0.0)
    return (ct_x, ct_v) + (None,) * len(arrays)


_getitem_vjp.takes_needed = True
_scatter_vjp.takes_needed = True
getitem.def_vjp(_getitem_vjp)
scatter.def_vjp(_scatter_vjp)
