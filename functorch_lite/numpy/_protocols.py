"""NumPy's dispatch protocols: `np.sin(wrapper)`, `np.sum(wrapper)`, `ndarray + wrapper`, ...
route to the functorch_lite.numpy function of the same name."""
import functools
import sys

import numpy as np

from ._util import dtype_of

_REDUCE = {"logical_and": "all", "logical_or": "any"}
_BOOL_BITWISE = {"bitwise_and": "logical_and", "bitwise_or": "logical_or",
                 "bitwise_xor": "logical_xor", "invert": "logical_not"}
_HOW_TO_EXTEND = ("define it as a primitive with functorch_lite.defop and give it rules "
                  "(see docs/extending.md), or call it outside the transform")


_fnp = None   # the namespace, set by functorch_lite.numpy at import (install)


def install(namespace):
    global _fnp
    _fnp = namespace


@functools.cache
def _function_table():
    """numpy function object -> our implementation, for every name both namespaces share."""
    fnp = _fnp
    table = {}
    for name in fnp.__all__:
        ours, theirs = getattr(fnp, name), getattr(np, name, None)
        if callable(theirs) and not isinstance(theirs, type):
            table[theirs] = ours
    for name in fnp.linalg.__all__:
        theirs = getattr(np.linalg, name, None)
        if callable(theirs) and not isinstance(theirs, type):
            table[theirs] = getattr(fnp.linalg, name)
    table[np.lib.stride_tricks.sliding_window_view] = fnp.lib.stride_tricks.sliding_window_view
    for name in fnp.fft.__all__:
        table[getattr(np.fft, name)] = getattr(fnp.fft, name)
    return table


def array_function(func, args, kwargs):
    impl = _function_table().get(func)
    if impl is None:
        if func is np.copyto:
            raise TypeError("numpy.copyto would write a functorch_lite value into a NumPy "
                            "array in place, which transforms cannot follow; np.full(shape, v) "
                            "and np.full_like(a, v) of a NumPy array `a` reach it with such a "
                            "fill value v: write fnp.full(shape, v) or fnp.full_like(a, v), "
                            "which broadcast v and are differentiable in it")
        module = func.__module__ or "numpy"
        raise TypeError(f"{module}.{func.__name__} is not supported on functorch_lite values; "
                        + _HOW_TO_EXTEND)
    return impl(*args, **kwargs)


def array_ufunc(ufunc, method, inputs, kwargs):
    fnp = _fnp
    if kwargs.get("out") is not None:
        raise TypeError(f"numpy.{ufunc.__name__}(..., out=...) would write in place; "
                        "transforms are functional: use the return value")
    if getattr(np, ufunc.__name__, None) is not ufunc:
        return _foreign_ufunc(ufunc, method, inputs, kwargs)
    if method == "__call__":
        name = ufunc.__name__
        if name in _BOOL_BITWISE and all(dtype_of(i) == np.bool_ for i in inputs):
            name = _BOOL_BITWISE[name]  # ndarray & wrapper on booleans: the logical op
        impl = getattr(fnp, name, None)
        if impl is not None:
            return impl(*inputs, **kwargs)
    elif method in ("reduce", "accumulate") and hasattr(getattr(fnp, ufunc.__name__, None),
                                                         method):
        return getattr(getattr(fnp, ufunc.__name__), method)(*inputs, **kwargs)
    elif method == "reduce" and ufunc.__name__ in _REDUCE:
        kwargs.setdefault("axis", 0)
        return getattr(fnp, _REDUCE[ufunc.__name__])(*inputs, **kwargs)
    elif method == "at":
        raise TypeError(f"numpy.{ufunc.__name__}.at writes in place; use the functional "
                        "x.at[idx].add(v) (or fnp.at(x)[idx].add(v)) instead")
    name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
    raise TypeError(f"numpy.{name} is not supported on functorch_lite values; " + _HOW_TO_EXTEND)


# Ufuncs from outside NumPy that a higher package implements: their module's name -> (our
# namespace of the same names, {a ufunc's own __name__: its public name}). functorch_lite.scipy
# registers scipy.special's at import (register_foreign_ufuncs).
_FOREIGN_UFUNCS = {}


def register_foreign_ufuncs(module_name, ours, aliases=None):
    """Route the ufuncs of the module `module_name` (scipy.special) to the functions of the
    same names in `ours` (its `__all__`) when they meet a wrapper."""
    _FOREIGN_UFUNCS[module_name] = (ours, dict(aliases or {}))


def _foreign_ufunc(ufunc, method, inputs, kwargs):
    """A ufunc from outside NumPy: scipy.special's reach functorch_lite.scipy.special."""
    name = ufunc.__name__
    for module_name, (ours, aliases) in _FOREIGN_UFUNCS.items():
        name = aliases.get(ufunc.__name__, ufunc.__name__)
        theirs = sys.modules.get(module_name)
        if theirs is None or getattr(theirs, name, None) is not ufunc:
            continue
        if method == "__call__" and name in ours.__all__:
            return getattr(ours, name)(*inputs, **kwargs)
        what = name if method == "__call__" else f"{name}.{method}"
        raise TypeError(f"{module_name}.{what} is not supported on functorch_lite values; "
                        f"{ours.__name__} has " + ", ".join(ours.__all__) + "; for "
                        "another function, " + _HOW_TO_EXTEND)
    raise TypeError(f"the ufunc {name}.{method} (not NumPy's) is not supported on "
                    "functorch_lite values; " + _HOW_TO_EXTEND)
