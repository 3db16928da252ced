"""vjp rules of reductions and scans.

max/min at ties split the cotangent equally among the tied elements (as JAX); prod is exact
when some elements are zero (products of the other elements, not out / x); cumprod likewise.
"""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import xp_of
from ..ops import elementwise as ew, reductions as red, shape as sh
from .partials import as_weight
from .vjp_helpers import defvjp, expand_reduced, reduced_axes, shape_of


def _sum_vjp(g, out, x, axis=None, keepdims=False, dtype=None):
    return expand_reduced(g, shape_of(x), axis, keepdims)


def _extremum_vjp(g, out, x, axis=None, keepdims=False):
    """The cotangent shared equally by the elements equal to the extremum (g times each
    element's weight, 1/count or 0, as forward mode)."""
    shape = shape_of(x)
    hit = as_weight(ew.equal(x, expand_reduced(out, shape, axis, keepdims)), x)
    weights = ew.divide(hit, red.sum(hit, axis=axis, keepdims=True))
    return ew.multiply(expand_reduced(g, shape, axis, keepdims), weights)


def _move_reduced_last(x, axis):
    """x with the reduced axes moved last and flattened into one: (kept..., n)."""
    shape = shape_of(x)
    axes = reduced_axes(axis, len(shape))
    kept = [i for i in range(len(shape)) if i not in axes]
    moved = sh.transpose(x, axes=tuple(kept + list(axes)))
    n = int(np.prod([shape[i] for i in axes], dtype=np.int64))
    return sh.reshape(moved, shape=tuple(shape[i] for i in kept) + (n,)), kept, axes


def _exclusive_cumprod(x, reverse=False):
    """Product of the elements strictly before (after, if reverse) each one, on the last axis."""
    if reverse:
        x = fnp.flip(x, axis=-1)
    ones = fnp.ones_like(x[..., :1])
    shifted = sh.concatenate(ones, x[..., :-1], axis=-1)
    out = red.cumprod(shifted, axis=-1)
    return fnp.flip(out, axis=-1) if reverse else out


def _prod_vjp(g, out, x, axis=None, keepdims=False, dtype=None):
    """d prod / d x_i = product of the other elements (exact at zeros)."""
    shape = shape_of(x)
    flat, kept, axes = _move_reduced_last(x, axis)
    others = ew.multiply(_exclusive_cumprod(flat), _exclusive_cumprod(flat, reverse=True))
    g_flat = sh.reshape(g, shape=shape_of(flat)[:-1] + (1,))
    ct = ew.multiply(g_flat, others)
    ct = sh.reshape(ct, shape=tuple(shape[i] for i in kept) + tuple(shape[i] for i in axes))
    order = kept + list(axes)
    inverse = tuple(int(i) for i in np.argsort(order))
    return sh.transpose(ct, axes=inverse)


def _along_axis(x, axis):
    """(x flattened if axis is None, the axis)."""
    if axis is None:
        return sh.reshape(x, shape=(-1,)), 0
    return x, axis


def _cumsum_vjp(g, out, x, axis=None, dtype=None):
    """Reverse cumulative sum of g."""
    _, ax = _along_axis(x, axis)
    ct = fnp.flip(red.cumsum(fnp.flip(g, axis=ax), axis=ax), axis=ax)
    return sh.reshape(ct, shape=shape_of(x)) if axis is None else ct


def _cumprod_vjp(g, out, x, axis=None, dtype=None):
    """ct_i = sum_{j >= i} g_j prod_{k <= j, k != i} x_k, built exactly (no division) from the
    cumulative products of x with x_i replaced by one: O(n^2) along the axis."""
    flat, ax = _along_axis(x, axis)
    nd = len(shape_of(flat))
    ax = ax % nd
    xs = fnp.moveaxis(flat, ax, -1)                       # (..., n)
    gs = fnp.moveaxis(sh.reshape(g, shape=shape_of(flat)), ax, -1)
    n = shape_of(xs)[-1]
    xp = xp_of(x)
    eye = xp.eye(n, dtype=bool)
    rows = ew.where(eye, 1.0, fnp.expand_dims(xs, -2))   # (..., i, k): x with x_i -> 1
    partial = red.cumprod(rows, axis=-1)                   # (..., i, j)
    upper = xp.tri(n, dtype=bool).T                        # j >= i
    partial = ew.where(upper, partial, 0.0)
    ct = red.sum(ew.multiply(partial, fnp.expand_dims(gs, -2)), axis=-1)
    ct = fnp.moveaxis(ct, -1, ax)
    return sh.reshape(ct, shape=shape_of(x)) if axis is None else ct


def _sort_vjp(g, out, x, axis=-1):
    """The cotangent goes back through the inverse of the sorting permutation."""
    perm = red.argsort(x, axis=axis)
    inverse = red.argsort(perm, axis=axis)
    return fnp.take_along_axis(g, inverse, axis=axis)


defvjp(red.sum, _sum_vjp)
defvjp(red.max, _extremum_vjp)
defvjp(red.min, _extremum_vjp)
defvjp(red.prod, _prod_vjp)
defvjp(red.cumsum, _cumsum_vjp)
defvjp(red.cumprod, _cumprod_vjp)
defvjp(red.sort, _sort_vjp)
