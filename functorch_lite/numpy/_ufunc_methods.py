"""`.reduce` and `.accumulate` of the differentiable binary ufuncs (add, multiply, maximum,
minimum, logaddexp), as composites: `fnp.add.reduce(x, axis=0)`, and `np.add.reduce(wrapper)`
through NumPy's ufunc protocol.

reduce is the matching reduction (sum, prod, max, min, logsumexp). accumulate of add and
multiply is cumsum and cumprod. maximum, minimum and logaddexp have no .accumulate on CuPy, so
their scans are made of the library's own ops, the same on both backends and under every
transform. Up to _TABLE_MAX entries along the axis each prefix is reduced at once over an
(n, n) lower-triangular arrangement of the axis: few ops, so the cheapest under transforms;
the masked entries take the axis' first element (maximum, minimum), always part of the prefix,
or -inf (logaddexp), so they never win and receive no derivative. Longer axes take a scan by
doubling (log2(n) shifted elementwise ops, O(n log n) work and memory instead of O(n^2)).
"""
import numpy as np

from ..ops import elementwise as ew
from . import _reductions as red
from ._indexing import numpy_scalar
from ._logsumexp import logsumexp
from ._shape import expand_dims, moveaxis
from ._joining import concatenate
from ._util import as_operand, dtype_of, ndim, normalize_axis, reject, shape, xp_of


def _logsumexp(a, axis=0, keepdims=False):
    a = as_operand(a)
    if axis is None:
        axis = tuple(range(ndim(a)))
    return logsumexp(a, axis=axis, keepdims=keepdims)


_REDUCTIONS = {"add": red.sum, "multiply": red.prod, "maximum": red.max, "minimum": red.min,
               "logaddexp": _logsumexp}
_TAKES_DTYPE = {"add", "multiply"}


def ufunc_reduce(name, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
                 where=None):
    """numpy.<name>.reduce for the names of _REDUCTIONS (axis 0 by default, as NumPy)."""
    reject(f"{name}.reduce", out=out, initial=initial, where=where)
    kwargs = {"dtype": dtype} if name in _TAKES_DTYPE and dtype is not None else {}
    if dtype is not None and not kwargs:
        a = ew.astype(as_operand(a), dtype=np.dtype(dtype))
    return numpy_scalar(_REDUCTIONS[name](a, axis=axis, keepdims=keepdims, **kwargs))


_TABLE_MAX = 64   # the crossover of the two forms' cost under grad and vmap(grad) (NumPy)


def _doubling_scan(op, a):
    """The inclusive scan of the associative `op` along a's last axis: the step of shift k
    combines entry i, holding a[..., i - k + 1:i + 1], with entry i - k, holding the run just
    before it (entries below k hold whole prefixes already and stay), so log2(n) steps cover
    every prefix."""
    n, k = shape(a)[-1], 1
    while k < n:
        a = concatenate([a[..., :k], op(a[..., k:], a[..., :n - k])], axis=-1)
        k *= 2
    return a


def _prefix_table(a, axis, fill):
    """(..., n, n) with row i holding a[..., :i+1] along the moved-last axis and `fill`
    elsewhere (fill None: the axis' first element)."""
    a = moveaxis(a, axis, -1)
    n = shape(a)[-1]
    rows = expand_dims(a, -2)                                   # (..., 1, n)
    lower = xp_of(a).tri(n, dtype=bool)
    if fill is None:
        fill = a[..., :1]
        fill = expand_dims(fill, -2)
    return ew.where(lower, rows, fill)


def ufunc_accumulate(name, a, axis=0, dtype=None, out=None):
    """numpy.<name>.accumulate for add, multiply, maximum, minimum and logaddexp."""
    reject(f"{name}.accumulate", out=out)
    a = as_operand(a)
    if dtype is not None:
        a = ew.astype(a, dtype=np.dtype(dtype))
    if name == "add":
        return red.cumsum(a, axis=axis)
    if name == "multiply":
        return red.cumprod(a, axis=axis)
    axis = normalize_axis(axis, ndim(a))
    if shape(a)[axis] == 0:
        return a
    if name == "logaddexp":
        float_dtype = np.result_type(dtype_of(a), np.float16)   # ints become floats (NumPy)
        a = a if dtype_of(a) == float_dtype else ew.astype(a, dtype=float_dtype)
    if shape(a)[axis] > _TABLE_MAX:
        scanned = _doubling_scan(getattr(ew, name), moveaxis(a, axis, -1))
    elif name == "logaddexp":
        scanned = _logsumexp(_prefix_table(a, axis, -np.inf), axis=-1)
    else:
        scanned = _REDUCTIONS[name](_prefix_table(a, axis, None), axis=-1)
    return moveaxis(scanned, -1, axis)


class _Method:
    """The `.reduce` / `.accumulate` of one ufunc name (fnp.add.reduce, ...)."""

    def __init__(self, fn, name, method):
        self.fn, self.name = fn, name
        self.__name__ = method
        self.__doc__ = f"numpy.{name}.{method}, on every transform level."

    def __call__(self, *args, **kwargs):
        return self.fn(self.name, *args, **kwargs)


def install():
    """Give fnp.add, fnp.multiply, ... (the elementwise ops) their .reduce and .accumulate."""
    for name in _REDUCTIONS:
        op = getattr(ew, name)
        op.reduce = _Method(ufunc_reduce, name, "reduce")
        op.accumulate = _Method(ufunc_accumulate, name, "accumulate")
