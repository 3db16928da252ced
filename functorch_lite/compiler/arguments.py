"""How a jitted call's arguments become the cache key of its signature and the inputs of the
traced program: static values taken out (Statics), the rest split into leaves (Split), and the
fast key of calls of plain arrays and Python scalars (tree_key). The module docstring of api.py
says what a signature is."""
import functools
import inspect
import types

import numpy as np
import optree

from ..backend import is_array
from ..tensor import Tensor
from ..transforms._pytree import refuse_array_subclass
from .cse import scalar_key
from .trace import PYTHON_SCALARS
from .xla import is_jax_array


def _normalize_argnums(static_argnums):
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    for n in nums:
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"ft.jit: static_argnums must be ints, got {n!r}")
    return nums


def _signature(f):
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def static_key(value):
    """A static value as the cache keys it: by type and value, recursively, so values that
    merely compare equal (1, 1.0 and True; 0.0 and -0.0) get programs of their own."""
    if isinstance(value, (tuple, list)):
        return type(value), tuple(static_key(v) for v in value)
    if isinstance(value, frozenset):
        return type(value), frozenset(static_key(v) for v in value)
    return scalar_key(value)


SCALAR_TYPES = frozenset(PYTHON_SCALARS)   # a Python scalar leaf is keyed by its type alone

_IDENTITY_HASHED_OK = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                       types.ModuleType, type, functools.partial)


class Statics:
    """Which arguments of a jitted function are static (static_argnums, static_argnames), and
    how to take them out of a call."""

    def __init__(self, f, static_argnums, static_argnames):
        self.argnums = _normalize_argnums(static_argnums)
        self.argnames = ((static_argnames,) if isinstance(static_argnames, str)
                         else tuple(static_argnames))
        self.signature = _signature(f)
        self._check_names(f)

    def __bool__(self):
        return bool(self.argnums or self.argnames)

    def _check_names(self, f):
        params = self.signature.parameters if self.signature else {}
        kinds = inspect.Parameter
        if any(p.kind is kinds.VAR_KEYWORD for p in params.values()):
            return
        for name in self.argnames:
            if params and name not in params:
                raise ValueError(f"ft.jit: static_argnames {name!r} is not a parameter of "
                                 f"{getattr(f, '__name__', 'the function')}")

    def take(self, args, kwargs):
        """(args, kwargs, statics) with every static argument taken out, however it was
        passed: positionally, by keyword, or left to its default (mapped through f's
        signature, as jax.jit). statics: (position or name, value) pairs."""
        sig = self.signature
        if sig is not None:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"ft.jit: {e}") from None
            bound.apply_defaults()
            args, kwargs = list(bound.args), dict(bound.kwargs)
            names = [p.name for p in sig.parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        else:
            args, kwargs, names = list(args), dict(kwargs), []
        statics = []
        for n in self.argnums:
            i = n % len(args) if -len(args) <= n < len(args) else None
            if i is None:
                raise ValueError(f"ft.jit: static_argnums {n} is out of range for a call "
                                 f"with {len(args)} positional arguments")
            statics.append((i, args[i]))
        for name in self.argnames:
            if name in names and names.index(name) < len(args):
                i = names.index(name)
                if all(w != i for w, _ in statics):
                    statics.append((i, args[i]))
            elif name in kwargs:
                statics.append((name, kwargs[name]))
        for where, value in statics:
            _check_hashable(value, f"static argument {where!r}")
            if isinstance(where, int):
                args[where] = None
            else:
                kwargs[where] = None
        return args, kwargs, statics


class Split:
    """One call's arguments split into static values and dynamic leaves, and its signature."""

    __slots__ = ("statics", "leaves", "tree", "dynamic", "key", "holds_tensor")

    def __init__(self, statics, args, kwargs):
        taken = []
        if statics:
            args, kwargs, taken = statics.take(args, kwargs)
        statics = taken
        self.statics = statics
        self.leaves, self.tree = optree.tree_flatten((tuple(args), kwargs))
        sig, dynamic = [], []
        self.holds_tensor = False
        for k, x in enumerate(self.leaves):
            t = type(x)
            if isinstance(x, Tensor):
                self.holds_tensor = True
                return
            if t is np.ndarray:
                sig.append((x.shape, x.dtype, x.strides))
                dynamic.append(True)
            elif t in PYTHON_SCALARS:
                sig.append(t)
                dynamic.append(True)
            elif is_array(x):
                refuse_array_subclass(x, "ft.jit")
                sig.append((x.shape, x.dtype, getattr(x, "strides", None), type(x)))
                dynamic.append(True)
            elif is_jax_array(x):
                sig.append((t, x.shape, x.dtype, None))   # as tree_key keys it
                dynamic.append(True)
            else:
                sig.append(("static", _static_leaf(x, k, self)))
                dynamic.append(False)
        self.dynamic = dynamic
        self.key = (self.tree, tuple(sig), tuple((w, static_key(v)) for w, v in statics))

    def rebuild(self, leaves):
        args, kwargs = optree.tree_unflatten(self.tree, leaves)
        args = list(args)
        for where, value in self.statics:
            if isinstance(where, int):
                args[where] = value
            else:
                kwargs[where] = value
        return args, kwargs

    def input_names(self):
        names = []
        for path, d in zip(optree.tree_paths(self.tree_template()), self.dynamic):
            if d:
                names.append(_leaf_name(path))
        return names

    def tree_template(self):
        return optree.tree_unflatten(self.tree, [0] * len(self.leaves))


def tree_key(args):
    """The leaves of positional arguments that hold containers or Python scalars, and the fast
    key of the call: (tree structure, each array leaf's type, shape, dtype and strides, each
    scalar's type; a JAX array has no strides), or None when another kind of leaf needs the
    full split."""
    leaves, spec = optree.tree_flatten(args)
    try:
        return leaves, (spec, tuple([a.__class__ if a.__class__ in SCALAR_TYPES else
                                     (a.__class__, a.shape, a.dtype, getattr(a, "strides", None))
                                     for a in leaves]))
    except AttributeError:
        return leaves, None


def _leaf_name(path):
    head, *rest = path
    where = ("argument " + str(rest[0])) if head == 0 else f"argument {rest[0]!r}"
    return where + "".join(f"[{p!r}]" for p in rest[1:])


def _static_leaf(x, k, split):
    """The cache key of a leaf that is neither an array nor a Python scalar (it is passed to
    the function as it is). An object hashed by identity would key the cache by identity while
    the function reads its attributes, so a later change would be missed: refused."""
    if type(x).__hash__ is object.__hash__ and not isinstance(x, _IDENTITY_HASHED_OK):
        path = optree.tree_paths(split.tree_template())[k]
        raise TypeError(
            f"ft.jit: {_leaf_name(path)} is a {type(x).__name__}, which is not an array, a "
            "Python scalar or a pytree, and is hashed by identity: the compiled program would "
            "keep what its attributes held when it was traced. Register its class as a pytree "
            "(@ft.tree.register_pytree_node_class) so its arrays are read on every call, or "
            "mark it static (static_argnums / static_argnames) with __hash__ and __eq__ that "
            "follow its value")
    _check_hashable(x, f"argument leaf {x!r}")
    return static_key(x)


def _check_hashable(value, what):
    try:
        hash(value)
    except TypeError:
        advice = ("pass a tuple instead of a list" if isinstance(value, list) else
                  "make it hashable (a tuple, a frozen dataclass), register its class as a "
                  "pytree (@ft.tree.register_pytree_node_class) so its arrays are traced")
        raise TypeError(f"ft.jit: {what} is a {type(value).__name__}, which is not hashable; "
                        f"static values key the compile cache: {advice}, or make it a traced "
                        "(array) argument") from None
