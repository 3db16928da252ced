"""ft.jit and ft.make_graph: trace once per input signature, then replay generated code.

A call's *signature* is the pytree structure of its dynamic arguments, each array leaf's shape,
dtype and backend, each Python scalar's type, and the values of the static arguments (and of
leaves that are neither arrays nor numbers). A new signature traces the function (trace.py),
runs the passes and generates code (codegen.py); a known one runs the cached code. The cache is
an LRU dict behind a lock, so threads share it safely (each traces on its own level stack).

Called inside another transform (its arguments are wrappers, or a transform is running), a
jitted function runs its Python body inline: the enclosing transform (or the enclosing jit's
trace) sees its ops like any others, so the result is always right.
"""
import functools
import inspect
import threading
import types
import warnings

import numpy as np
import optree

from ..backend import array_module, is_array, is_host, module_of
from ..batching_rules.fallback import PerformanceWarning
from ..interpreter import current_level
from ..tensor import Tensor
from .codegen import StaleShape, generate
from .cse import eliminate_common_subexpressions, scalar_key
from .dce import eliminate_dead_code
from .fold import fold_constants
from .fuse import fusion_groups
from .simplify import simplify
from .trace import PYTHON_SCALARS, trace
from .xla import compile_xla, is_jax_array, resolve_backend, to_jax
from ..transforms._pytree import check_function, fresh_outputs, refuse_array_subclass

PASSES = (simplify, fold_constants, eliminate_common_subexpressions, eliminate_dead_code)
"""The passes run on every traced program, in order (see each module's docstring)."""


def optimize(program):
    """The program after PASSES, repeated until the equation count stops falling."""
    while True:
        before = len(program)
        for p in PASSES:
            program = p(program)
        if len(program) >= before:
            return program


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


_SCALAR_TYPES = frozenset(PYTHON_SCALARS)   # a Python scalar leaf is keyed by its type alone

_IDENTITY_HASHED_OK = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                       types.ModuleType, type, functools.partial)


class _Split:
    """One call's arguments split into static values and dynamic leaves, and its signature."""

    __slots__ = ("statics", "leaves", "tree", "dynamic", "key", "holds_tensor")

    def __init__(self, jitted, args, kwargs):
        statics = []
        if jitted.static_argnums or jitted.static_argnames:
            args, kwargs, statics = jitted.take_statics(args, kwargs)
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
                sig.append((t, x.shape, x.dtype, None))   # as _tree_key keys it
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


def _tree_key(args):
    """The leaves of positional arguments that hold containers or Python scalars, and the fast
    key of the call: (tree structure, each array leaf's type, shape, dtype and strides, each
    scalar's type; a JAX array has no strides), or None when another kind of leaf needs the
    full split."""
    leaves, spec = optree.tree_flatten(args)
    try:
        return leaves, (spec, tuple([a.__class__ if a.__class__ in _SCALAR_TYPES else
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


class _Compiled:
    """One signature's programs and generated function; `run(*dynamic_values)` gives the
    function's output (its pytree rebuilt, unless it is a single array). `on_jax`: whether
    some, and whether all, of the dynamic values are JAX arrays (the XLA backend's calls)."""

    __slots__ = ("traced", "optimized", "out_tree", "xp", "fn", "run", "fast_key", "used",
                 "key")

    def __init__(self, traced, optimized, xp, moved=(), backend="numpy", on_jax=(False, False)):
        self.traced, self.optimized, self.out_tree = traced, optimized, traced.out_tree
        self.xp = xp
        single = self.out_tree.num_leaves == 1 and self.out_tree.num_nodes == 1
        if backend == "xla" and xp is np:  # the XLA backend (xla.py) compiles host programs
            self.fn = compile_xla(optimized, single, *on_jax)
        else:
            self.fn = generate(optimized, xp, single=single, moved=moved)
        if single:
            self.run = self.fn
        else:
            fn, tree = self.fn, self.out_tree
            self.run = lambda *values: optree.tree_unflatten(tree, fn(*values))
        self.fast_key = self.key = None
        self.used = 0

    @property
    def groups(self):
        """The fusion groups of the optimized program (fuse.py): one kernel each on a device."""
        return fusion_groups(self.optimized)


class Jitted:
    """The function returned by ft.jit (see `jit`)."""

    def __init__(self, f, static_argnums, static_argnames, max_retraces, cache_size,
                 backend=None):
        check_function(f, "ft.jit")
        functools.update_wrapper(self, f)
        self.f = f
        self.backend = resolve_backend(backend)
        self.static_argnums = _normalize_argnums(static_argnums)
        self.static_argnames = ((static_argnames,) if isinstance(static_argnames, str)
                                else tuple(static_argnames))
        self._plain = not self.static_argnums and not self.static_argnames
        self._signature = _signature(f)
        self._check_static_names()
        for name, value in (("max_retraces", max_retraces), ("cache_size", cache_size)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"ft.jit: {name} must be a positive int, got {value!r}")
        self.max_retraces = max_retraces
        self.cache_size = cache_size
        self._cache = {}  # signature -> _Compiled; reads need no lock
        self._fast = {}   # __call__'s key of calls of arrays and scalars -> the same _Compiled
        self._lock = threading.Lock()
        self._clock = 0   # counts calls: a _Compiled's `used` is the call that last ran it
        self.traces = 0
        self._warned = False
        self._last_key = None

    def _check_static_names(self):
        params = self._signature.parameters if self._signature else {}
        kinds = inspect.Parameter
        if any(p.kind is kinds.VAR_KEYWORD for p in params.values()):
            return
        for name in self.static_argnames:
            if params and name not in params:
                raise ValueError(f"ft.jit: static_argnames {name!r} is not a parameter of "
                                 f"{getattr(self.f, '__name__', 'the function')}")

    def take_statics(self, args, kwargs):
        """(args, kwargs, statics) with every static argument taken out, however it was
        passed: positionally, by keyword, or left to its default (mapped through f's
        signature, as jax.jit). statics: (position or name, value) pairs."""
        sig = self._signature
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
        for n in self.static_argnums:
            i = n % len(args) if -len(args) <= n < len(args) else None
            if i is None:
                raise ValueError(f"ft.jit: static_argnums {n} is out of range for a call "
                                 f"with {len(args)} positional arguments")
            statics.append((i, args[i]))
        for name in self.static_argnames:
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

    def __call__(self, *args, **kwargs):
        if current_level() > 0:
            return self.f(*args, **kwargs)  # inside a transform: run inline (module docstring)
        self._clock += 1
        fast_key = None
        if not kwargs and self._plain:
            # Fast path: array arguments keyed by their types, shapes, dtypes and strides (a
            # JAX array has none); calls with Python scalars (keyed by type) or containers by
            # their pytree too
            leaves = args
            try:
                fast_key = tuple([(a.__class__, a.shape, a.dtype, getattr(a, "strides", None))
                                  for a in args])
            except AttributeError:
                leaves, fast_key = _tree_key(args)
            compiled = self._fast.get(fast_key)   # None (another kind of leaf) is no key
            if compiled is not None:
                compiled.used = self._clock
                try:
                    return compiled.run(*leaves)
                except StaleShape:
                    pass
        split = _Split(self, args, kwargs)
        if split.holds_tensor:
            return self.f(*args, **kwargs)
        compiled = self._cache.get(split.key)
        if compiled is not None:
            compiled.used = self._clock
            try:
                return compiled.run(*[x for x, d in zip(split.leaves, split.dynamic) if d])
            except StaleShape:   # a value-dependent shape changed: trace this call again
                pass
        compiled, first = self._compile(split, fast_key)
        return optree.tree_unflatten(compiled.out_tree, first)  # the tracing run's outputs

    def __get__(self, obj, objtype=None):
        """As a method decorator: bind the instance, which is then argument 0 (a pytree, or
        static through static_argnums=0; see _static_leaf)."""
        return self if obj is None else functools.partial(self, obj)

    def _compile(self, split, fast_key=None):
        leaves = [x for x, d in zip(split.leaves, split.dynamic) if d]
        jax_leaves = [is_jax_array(x) for x in leaves]
        if any(jax_leaves):   # traced on NumPy copies; the XLA program takes the JAX arrays
            split, leaves = self._from_jax(split)
        # the device of the device arrays: NumPy arrays beside them (labels, masks) only
        # select, and the ops that read them move them, as in eager code
        xp = array_module([x for x in leaves if type(x) not in PYTHON_SCALARS
                           and not isinstance(x, (np.ndarray, np.generic))], "ft.jit")
        moved = [is_host(module_of(x)) and not is_host(xp) and type(x) not in PYTHON_SCALARS
                 for x in leaves]   # NumPy arrays beside device ones: moved at entry
        traced_leaves = iter([xp.asarray(x) if m else x for x, m in zip(leaves, moved)])
        traced, first = trace(self.f, [next(traced_leaves) if d else x
                                       for x, d in zip(split.leaves, split.dynamic)],
                              split.dynamic, split.rebuild, split.input_names())
        first = fresh_outputs(first, leaves)   # as the generated code's outputs are
        compiled = _Compiled(traced, optimize(traced), xp,
                             [v.id for v, m in zip(traced.inputs, moved) if m], self.backend,
                             (any(jax_leaves), any(jax_leaves) and all(jax_leaves)))
        compiled.key, compiled.used = split.key, self._clock
        if any(jax_leaves):
            first = to_jax(first)
        if fast_key is not None and len(leaves) == len(split.leaves) and \
                all(type(x) is np.ndarray or type(x) in _SCALAR_TYPES or is_array(x)
                    for x in leaves) and \
                ((fast_key and isinstance(fast_key[0], optree.PyTreeSpec)) or
                 split.tree == optree.tree_structure((tuple(leaves), {}))):
            compiled.fast_key = fast_key   # computed by __call__ from these very leaves
        with self._lock:
            self.traces += 1
            if self.traces > self.max_retraces and not self._warned:
                self._warned = True
                warnings.warn(f"ft.jit({getattr(self.f, '__name__', 'f')}) traced "
                              f"{self.traces} times; {_what_changed(self._last_key, split.key)}"
                              ". Mark changing Python values static, or keep shapes fixed "
                              "(further traces are counted in .traces, not warned about)",
                              PerformanceWarning, stacklevel=3)
            self._last_key = split.key
            old = self._cache.pop(split.key, None)
            if old is not None:
                self._fast.pop(old.fast_key, None)
            self._cache[split.key] = compiled
            if compiled.fast_key is not None:
                self._fast[compiled.fast_key] = compiled
            while len(self._cache) > self.cache_size:   # least recently used first
                oldest = min(self._cache.values(), key=lambda c: c.used)
                del self._cache[oldest.key]
                self._fast.pop(oldest.fast_key, None)
        return compiled, first

    def _from_jax(self, split):
        """A call with JAX arrays: (the split with NumPy copies of them, its dynamic leaves),
        keeping the key (JAX arrays in it). Only the XLA backend takes them."""
        if self.backend != "xla":
            raise TypeError(f"ft.jit({getattr(self.f, '__name__', 'f')}): JAX arrays are "
                            "taken by backend='xla' (which returns JAX arrays for them); the "
                            "NumPy backend takes NumPy arrays (np.asarray(x))")
        host = _Split.__new__(_Split)
        for name in _Split.__slots__:
            setattr(host, name, getattr(split, name))
        host.leaves = [np.array(x) if is_jax_array(x) else x for x in split.leaves]
        return host, [x for x, d in zip(host.leaves, host.dynamic) if d]

    def lower(self, *args, **kwargs):
        """The compiled entry for these arguments (tracing if needed): `.traced`,
        `.optimized` (Programs), `.groups` (its fusion groups) and `.fn.source` (the generated
        code)."""
        split = _Split(self, args, kwargs)
        return self._cache.get(split.key) or self._compile(split)[0]


def _what_changed(old, new):
    if old is None:
        return "the signature changed"
    if old[0] != new[0]:
        return f"the argument structure keeps changing ({old[0]} -> {new[0]})"
    if old[2] != new[2]:
        return f"static argument values keep changing ({old[2]} -> {new[2]})"
    for i, (a, b) in enumerate(zip(old[1], new[1])):
        if a != b:
            return f"argument leaf {i} keeps changing ({a} -> {b})"
    return "the signature changed"


def jit(f=None, *, static_argnums=(), static_argnames=(), max_retraces=8, cache_size=64,
        backend=None):
    """Compile `f`: trace it once per input signature and replay the program as generated
    straight-line NumPy (or CuPy) code (jax.jit's semantics).

    A jitted call returns what the eager call returns, bit for bit, in fresh arrays, or raises
    an error naming what to write instead (docs/jit.md, "The contract"). Arguments are read on
    every call (Python scalars weakly typed, as NumPy treats them); arrays captured from
    closures are copied when f is traced and read from that copy; static_argnums /
    static_argnames (positional, by keyword or by default) key the cache by type and value,
    and Python control flow may depend on them. After `max_retraces` traces one
    PerformanceWarning says which part of the signature keeps changing; the cache keeps the
    `cache_size` most recently used programs. Inside another transform the body runs inline.
    Usable as a decorator, with or without arguments.

    Args:
        f: the function to compile (omit it to get a decorator with the given options).
        static_argnums: int or tuple of ints, positional arguments treated as static.
        static_argnames: names of keyword arguments treated as static.
        max_retraces: traces after which a PerformanceWarning is issued.
        cache_size: how many compiled programs are kept (least recently used dropped).
        backend: "numpy" (replay NumPy calls) or "xla" (compile with jax.jit; NumPy arrays in
            and out); None takes set_jit_backend's choice, else $FUNCTORCH_LITE_JIT_BACKEND,
            else "numpy". CuPy programs always use the CuPy backend.

    Returns:
        A callable with f's arguments and results, or a decorator when f is None.

    Raises:
        TypeError: static_argnums that are not ints, a static argument that is not hashable,
            an argument hashed by identity (not a pytree), a masked array or np.matrix, or
            (TracerConversionError, a TypeError) Python control flow or a conversion such
            as float(x) on a traced value while tracing.
        ValueError: static_argnums out of range for a call, static_argnames naming no
            parameter, max_retraces or cache_size not a positive int, or an unknown backend.
        ImportError: backend "xla" without JAX installed.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> f = ft.jit(lambda x, y: np.sin(x) * y + y)
        >>> bool(np.allclose(f(np.array([0.0, 1.0]), 2.0), np.sin([0.0, 1.0]) * 2 + 2))
        True
        >>> ft.jit(lambda x, n: x ** n, static_argnums=1)(np.array([2.0]), 3)
        array([8.])
    """
    if f is None:
        return lambda g: jit(g, static_argnums=static_argnums, static_argnames=static_argnames,
                             max_retraces=max_retraces, cache_size=cache_size, backend=backend)
    return Jitted(f, static_argnums, static_argnames, max_retraces, cache_size, backend)


class Graph:
    """What make_graph returns: the traced program, the program after the passes and its
    fusion groups (`groups`: chains of elementwise equations, one kernel each on a device);
    for the XLA backend, `host`: (equation, reason) for each equation that runs on the host,
    a NumPy callback outside the compiled program."""

    def __init__(self, traced, optimized, source, host=()):
        self.traced, self.optimized, self.source = traced, optimized, source
        self.groups = fusion_groups(optimized)
        self.host = list(host)

    def __str__(self):
        groups = "".join(f"\n  g{k} {g}" for k, g in enumerate(self.groups))
        text = (f"traced ({len(self.traced)} equations):\n{self.traced}\n\n"
                f"after passes ({len(self.optimized)} equations):\n{self.optimized}\n\n"
                f"fusion groups ({len(self.groups)}):{groups or ' none'}")
        if self.host:
            text += f"\n\non the host, outside XLA ({len(self.host)}):" + "".join(
                f"\n  {' '.join(map(str, e.outs))} = {e.op.name} "
                f"{' '.join(str(a) if hasattr(a, 'id') else 'c' for a in e.ins)}: {why}"
                for e, why in self.host)
        return text

    __repr__ = __str__


def make_graph(f, *, static_argnums=(), static_argnames=(), backend=None):
    """The program ft.jit would compile for f, to read (as jax.make_jaxpr).

    `print(ft.make_graph(f)(x))` shows the traced program and the program after the passes,
    one primitive per line, and its fusion groups; `.traced` and `.optimized` hold the programs,
    `.groups` the groups (each with `.ops`, `.inputs`, `.outputs`) and `.source` the generated
    code. With the XLA backend `.source` is the StableHLO, and `.host` (printed last) lists the
    equations that run on the host as NumPy callbacks, each with the reason.

    Args:
        f: the function to trace.
        static_argnums: as in `jit`.
        static_argnames: as in `jit`.
        backend: as in `jit`.

    Returns:
        A function of f's arguments returning a Graph.

    Raises:
        TypeError: as `jit` (static arguments, conversions of traced values), when the returned
            function is called.
        ValueError: static_argnums out of range for the call.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> g = ft.make_graph(lambda x: np.sin(x) * 2.0)(np.ones(3))
        >>> len(g.traced) >= 2 and "sin" in str(g)
        True
        >>> g.groups[0].ops
        ('sin', 'multiply')
    """
    check_function(f, "ft.make_graph")
    jitted = Jitted(f, static_argnums, static_argnames, max_retraces=1 << 30, cache_size=1,
                    backend=backend)

    def graph(*args, **kwargs):
        with warnings.catch_warnings():   # the graph shows the host equations it warns of
            warnings.filterwarnings("ignore", r"ft\.jit\(backend='xla'\)", PerformanceWarning)
            compiled = jitted.lower(*args, **kwargs)
        return Graph(compiled.traced, compiled.optimized, compiled.fn.source,
                     getattr(compiled.fn, "host", ()))
    return graph
