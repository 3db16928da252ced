"""Reductions and scans along axes (axis None, int or tuple; negative axes as NumPy)."""
import numpy as np

from ..dispatch import defop


def _numpy_reduce(ufunc):
    """NumPy's sum/prod/max/min without their Python-level wrapper (same results, faster)."""
    def reduce(x, axis=None, keepdims=False, dtype=None):
        return ufunc.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)
    return reduce


sum = defop("sum", lambda xp, x, axis=None, keepdims=False, dtype=None:
            xp.sum(x, axis=axis, keepdims=keepdims, dtype=dtype), numpy_impl=_numpy_reduce(np.add))
prod = defop("prod", lambda xp, x, axis=None, keepdims=False, dtype=None:
             xp.prod(x, axis=axis, keepdims=keepdims, dtype=dtype),
             numpy_impl=_numpy_reduce(np.multiply))
max = defop("max", lambda xp, x, axis=None, keepdims=False: xp.max(x, axis=axis, keepdims=keepdims),
            numpy_impl=_numpy_reduce(np.maximum))
min = defop("min", lambda xp, x, axis=None, keepdims=False: xp.min(x, axis=axis, keepdims=keepdims),
            numpy_impl=_numpy_reduce(np.minimum))
argmax = defop("argmax", lambda xp, x, axis=None, keepdims=False:
               xp.argmax(x, axis=axis, keepdims=keepdims), differentiable=False)
argmin = defop("argmin", lambda xp, x, axis=None, keepdims=False:
               xp.argmin(x, axis=axis, keepdims=keepdims), differentiable=False)
all = defop("all", lambda xp, x, axis=None, keepdims=False: xp.all(x, axis=axis, keepdims=keepdims),
            differentiable=False)
any = defop("any", lambda xp, x, axis=None, keepdims=False: xp.any(x, axis=axis, keepdims=keepdims),
            differentiable=False)
cumsum = defop("cumsum", lambda xp, x, axis=None, dtype=None: xp.cumsum(x, axis=axis, dtype=dtype))
cumprod = defop("cumprod", lambda xp, x, axis=None, dtype=None:
                xp.cumprod(x, axis=axis, dtype=dtype))
sort = defop("sort", lambda xp, x, axis=-1: xp.sort(x, axis=axis))
argsort = defop("argsort", lambda xp, x, axis=-1, kind="stable":
                xp.argsort(x, axis=axis, kind=kind) if xp is np else xp.argsort(x, axis=axis),
                differentiable=False,
                doc="The indices that sort x along `axis`, in NumPy's order for `kind`: ties "
                    "keep their order with 'stable' (the library's own uses), not with NumPy's "
                    "default 'quicksort' (an introsort). CuPy sorts stably whatever the kind.")
