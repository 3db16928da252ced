"""Factor rules: the per-example pieces of a parameter read by a matrix product (matmul,
einsum), a gather or a convolution, from the op's operands and output cotangent (one example's view, under vmap).

A rule gets (ct, primals, k, params) with primals[k] the parameter and returns a piece of
_pieces.py in the parameter's shape, or None when the shapes are outside what it factors
(the parameter's per-example gradient is then materialized, see _trace.py). Rules compute with
library ops only, so the capture composes with jit and the outer transforms.
"""
import math

from .. import numpy as fnp
from ..ops import conv as cv, indexing as ix, linalg as la
from ..ops.indexing import ARRAY
from ._pieces import Conv, Outer, Rows


def _rows(x, width):
    return fnp.reshape(x, (-1, width))


def matmul_factors(ct, primals, k, params):
    a, b = primals
    w = primals[k]
    if w.ndim == 2 and k == 1:                       # x (..., p) @ W (p, q)
        p, q = w.shape
        return Outer(_rows(a, p), _rows(ct, q), w.shape)
    if w.ndim == 1 and k == 1 and a.ndim >= 1:       # x (..., p) @ w (p,)
        return Outer(_rows(a, w.shape[0]), _rows(ct, 1), w.shape)
    if w.ndim == 2 and k == 0:                       # W (q, p) @ x (p,) or (..., p, T)
        q, p = w.shape
        if b.ndim == 1:
            return Outer(_rows(ct, q), _rows(b, p), w.shape)
        return Outer(_rows(fnp.swapaxes(ct, -1, -2), q), _rows(fnp.swapaxes(b, -1, -2), p),
                     w.shape)
    return None


def gather_factors(ct, primals, k, params):
    """W[idx] (and take(W, idx, axis=0)): the rows picked, as a one-hot factor."""
    index = params["index"]
    if k != 0 or len(primals) != 2 or index[0] is not ARRAY or \
            any(s != slice(None) for s in index[1:]):
        return None
    w, idx = primals
    rows = w.shape[0]
    width = math.prod(w.shape[1:])
    idx = fnp.reshape(idx, (-1,))
    idx = fnp.where(idx < 0, idx + rows, idx)
    return Outer(Rows(idx, rows), _rows(ct, width), w.shape)


def conv_factors(ct, primals, k, params):
    """The weight of conv: the im2col product (ghost form) when the Gram matrices of its
    positions are no larger than the weight, else kept as input and cotangent."""
    if k != 1:
        return None
    x, w = primals
    positions = x.shape[0] * math.prod(ct.shape[2:])
    if params["groups"] != 1 or positions ** 2 > w.size:
        return Conv(x, ct, params, w.shape)
    nd = w.ndim - 2
    padded = fnp.pad(x, ((0, 0), (0, 0)) + tuple(params["padding"]))
    win = cv.sliding_window(padded, axes=tuple(range(2, 2 + nd)), window=w.shape[2:],
                            stride=params["stride"], dilation=params["dilation"])
    order = (0,) + tuple(range(2, 2 + nd)) + (1,) + tuple(range(2 + nd, 2 + 2 * nd))
    cols = _rows(fnp.transpose(win, order), math.prod(w.shape[1:]))   # (N P, C K)
    g = _rows(fnp.moveaxis(fnp.reshape(ct, ct.shape[:2] + (-1,)), 1, 2), w.shape[0])
    return Outer(g, cols, w.shape)


def einsum_factors(ct, primals, k, params):
    """A two-operand einsum whose weight's indices are the ones it contracts with the
    activation, then the ones it passes to the output (or the reverse order): the activation
    summed to (tokens, contracted) and the cotangent to (tokens, passed), tokens being the
    indices of activation and output only. Others (an index in all three terms, a diagonal, a
    weight index summed alone, an interleaved order) are not factored."""
    inputs, out = params["subscripts"].split("->")
    terms = inputs.split(",")
    if len(primals) != 2 or any(len(set(t)) != len(t) for t in terms + [out]):
        return None
    w_sub, x_sub = terms[k], terms[1 - k]
    contracted = "".join(c for c in w_sub if c in x_sub and c not in out)
    passed = "".join(c for c in w_sub if c in out and c not in x_sub)
    tokens = "".join(c for c in out if c not in w_sub)
    if w_sub not in (contracted + passed, passed + contracted):
        return None
    sizes = dict(zip(w_sub, primals[k].shape))
    left = fnp.reshape(fnp.einsum(f"{x_sub}->{tokens + contracted}", primals[1 - k]),
                       (-1, math.prod(sizes[c] for c in contracted)))
    right = fnp.reshape(fnp.einsum(f"{out}->{tokens + passed}", ct),
                        (-1, math.prod(sizes[c] for c in passed)))
    if w_sub == contracted + passed:
        return Outer(left, right, primals[k].shape)
    return Outer(right, left, primals[k].shape)


FACTOR_RULES = {la.matmul: matmul_factors, la.einsum: einsum_factors, ix.getitem: gather_factors, cv.conv: conv_factors}
"""Op -> factor rule: the ops whose parameters' per-example gradients are never formed."""
