"""jvp rules of reductions, scans and sort.

max/min split the derivative equally among tied elements (as JAX and reverse mode). prod uses
the product of the *other* elements (exclusive cumulative products from both sides), so it is
exact when some elements are zero.
"""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import normalize_axes, shape, xp_of
from ..ops import elementwise as ew, reductions as red
from .jvp_helpers import def_linear, fit

def_linear(red.sum)
def_linear(red.cumsum)


def _axes(x, axis):
    return normalize_axes(axis, len(shape(x)))


def _keep(v, x, axis, keepdims):
    """A reduction's result `v` reshaped with the reduced axes kept (size 1)."""
    if keepdims:
        return v
    s = shape(x)
    axes = _axes(x, axis)
    return fnp.reshape(v, tuple(1 if i in axes else d for i, d in enumerate(s)))


def _extremum_jvp(op):
    def extremum_jvp(primals, tangents, axis=None, keepdims=False):
        x, = primals
        t, = tangents
        out = op(x, axis=axis, keepdims=keepdims)
        if t is None:
            return out, None
        chosen = ew.astype(ew.equal(x, _keep(out, x, axis, keepdims)), dtype=x.dtype)
        count = red.sum(chosen, axis=axis, keepdims=True)
        weights = ew.divide(chosen, count)
        return out, fit(red.sum(ew.multiply(t, weights), axis=axis, keepdims=keepdims), out)
    op.def_jvp(extremum_jvp)


_extremum_jvp(red.max)
_extremum_jvp(red.min)


def _products_of_others(x, axis):
    """For each element along `axis` (last), the product of all the other elements."""
    n = shape(x)[axis]
    ones = fnp.ones_like(fnp.getitem(x, (Ellipsis, slice(0, 1))))
    left = red.cumprod(fnp.concatenate([ones, fnp.getitem(x, (Ellipsis, slice(0, n - 1)))],
                                       axis=-1), axis=-1)
    rev = fnp.getitem(x, (Ellipsis, slice(None, None, -1)))
    right = red.cumprod(fnp.concatenate([ones, fnp.getitem(rev, (Ellipsis, slice(0, n - 1)))],
                                        axis=-1), axis=-1)
    return ew.multiply(left, fnp.getitem(right, (Ellipsis, slice(None, None, -1))))


def _reduced_last(x, axes):
    """x with `axes` moved to the end and flattened into one axis."""
    keep = [i for i in range(len(shape(x))) if i not in axes]
    moved = fnp.transpose(x, keep + list(axes))
    reduced = int(np.prod([shape(x)[i] for i in axes], dtype=np.int64))
    return fnp.reshape(moved, tuple(shape(x)[i] for i in keep) + (reduced,))


@red.prod.def_jvp
def prod_jvp(primals, tangents, axis=None, keepdims=False, dtype=None):
    x, = primals
    t, = tangents
    out = red.prod(x, axis=axis, keepdims=keepdims, dtype=dtype)
    if t is None:
        return out, None
    axes = _axes(x, axis)
    if not axes or any(shape(x)[i] == 0 for i in axes):
        return out, fit(red.prod(t, axis=axis, keepdims=keepdims, dtype=dtype)
                        if not axes else fnp.zeros_like(out), out)
    xs, ts = _reduced_last(x, axes), _reduced_last(t, axes)
    others = _products_of_others(xs, -1)
    tangent = red.sum(ew.multiply(ts, others), axis=-1)
    if keepdims:
        tangent = fnp.reshape(tangent, shape(out))
    return out, fit(tangent, out)


@red.cumprod.def_jvp
def cumprod_jvp(primals, tangents, axis=None, dtype=None):
    """d out_i = sum_{j<=i} t_j * prod_{k<=i, k!=j} x_k, as an (n, n) masked product: exact at
    zeros, O(n^2) along the scanned axis."""
    x, = primals
    t, = tangents
    out = red.cumprod(x, axis=axis, dtype=dtype)
    if t is None:
        return out, None
    if axis is None:
        x, t, axis = fnp.ravel(x), fnp.ravel(t), 0
    nd = len(shape(x))
    axis = axis % nd
    xl, tl = fnp.moveaxis(x, axis, -1), fnp.moveaxis(t, axis, -1)
    n = shape(xl)[-1]
    if n > 64:  # the exact form costs n**3; beyond that use the ratio form (no zeros allowed)
        return out, fit(ew.multiply(out, red.cumsum(ew.divide(t, x), axis=axis)), out)
    # factor[..., i, j, k] = x_k if k <= i and k != j else 1; prod over k gives the partials
    xp = xp_of(x)
    below = xp.tri(n, dtype=bool)                                # j <= i
    use = below[:, None, :] & ~xp.eye(n, dtype=bool)[None, :, :]
    xk = fnp.expand_dims(fnp.expand_dims(xl, -2), -2)          # (..., 1, 1, n)
    factor = ew.where(use, xk, fnp.ones_like(xk))
    partials = red.prod(factor, axis=-1)                         # (..., i, j)
    partials = ew.where(below, partials, fnp.zeros_like(partials))
    tangent = fnp.matmul(partials, fnp.expand_dims(tl, -1))[..., 0]
    return out, fit(fnp.moveaxis(tangent, -1, axis), out)


@red.sort.def_jvp
def sort_jvp(primals, tangents, axis=-1):
    """The tangent permuted as the values are (stable order at ties)."""
    x, = primals
    t, = tangents
    out = red.sort(x, axis=axis)
    if t is None:
        return out, None
    order = red.argsort(x, axis=axis)
    return out, fnp.take_along_axis(t, order, axis=axis)
