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
import threading
import warnings

import numpy as np
import optree

from ..backend import array_module, is_array
from ..batching_rules.fallback import PerformanceWarning
from ..interpreter import current_level
from ..tensor import Tensor
from .codegen import generate
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .fold import fold_constants
from .fuse import fusion_groups
from .simplify import simplify
from .trace import trace
from .xla import compile_xla, resolve_backend

_SCALARS = (bool, int, float, complex)

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


class _Split:
    """One call's arguments split into static values and dynamic leaves, and its signature."""

    __slots__ = ("statics", "leaves", "tree", "dynamic", "key", "holds_tensor")

    def __init__(self, jitted, args, kwargs):
        statics = []
        if jitted.static_argnums:
            args = list(args)
            for n in jitted.static_argnums:
                i = n % len(args) if -len(args) <= n < len(args) else None
                if i is None:
                    raise ValueError(f"ft.jit: static_argnums {n} is out of range for a call "
                                     f"with {len(args)} positional arguments")
                statics.append((i, args[i]))
                args[i] = None
        if jitted.static_argnames and kwargs:
            kwargs = dict(kwargs)
            for name in jitted.static_argnames:
                if name in kwargs:
                    statics.append((name, kwargs[name]))
                    kwargs[name] = None
        for where, value in statics:
            _check_hashable(value, f"static argument {where!r}")
        self.statics = statics
        self.leaves, self.tree = optree.tree_flatten((tuple(args), kwargs))
        sig, dynamic = [], []
        self.holds_tensor = False
        for x in self.leaves:
            t = type(x)
            if isinstance(x, Tensor):
                self.holds_tensor = True
                return
            if t is np.ndarray:
                sig.append((x.shape, x.dtype))
                dynamic.append(True)
            elif t in _SCALARS:
                sig.append(t)
                dynamic.append(True)
            elif is_array(x):
                sig.append((x.shape, x.dtype, type(x)))
                dynamic.append(True)
            else:
                _check_hashable(x, f"argument leaf {x!r}")
                sig.append(("static", x))
                dynamic.append(False)
        self.dynamic = dynamic
        self.key = (self.tree, tuple(sig), tuple(statics))

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
                head, *rest = path
                where = ("argument " + str(rest[0])) if head == 0 else f"argument {rest[0]!r}"
                names.append(where + "".join(f"[{p!r}]" for p in rest[1:]))
        return names

    def tree_template(self):
        return optree.tree_unflatten(self.tree, [0] * len(self.leaves))


def _dynamic_values(split, xp):
    """The dynamic leaves as the compiled program takes them: Python scalars become 0-d arrays
    of the program's array module (a device program's kernels refuse NumPy arrays)."""
    return [xp.asarray(x) if type(x) in _SCALARS else x
            for x, d in zip(split.leaves, split.dynamic) if d]


def _check_hashable(value, what):
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"ft.jit: {what} is a {type(value).__name__}, which is not hashable; "
                        "static values key the compile cache: pass a tuple instead of a list, "
                        "or make it a traced (array) argument") from None


class _Compiled:
    """One signature's programs and generated function; `run(*dynamic_values)` gives the
    function's output (its pytree rebuilt, unless it is a single array)."""

    def __init__(self, traced, optimized, xp, backend="numpy"):
        self.traced, self.optimized, self.out_tree = traced, optimized, traced.out_tree
        self.xp = xp
        single = self.out_tree.num_leaves == 1 and self.out_tree.num_nodes == 1
        if backend == "xla" and xp is np:  # the XLA backend (xla.py) compiles host programs
            self.fn = compile_xla(optimized, single=single)
        else:
            self.fn = generate(optimized, xp, single=single)
        if single:
            self.run = self.fn
        else:
            fn, tree = self.fn, self.out_tree
            self.run = lambda *values: optree.tree_unflatten(tree, fn(*values))

    @property
    def groups(self):
        """The fusion groups of the optimized program (fuse.py): one kernel each on a device."""
        return fusion_groups(self.optimized)


class Jitted:
    """The function returned by ft.jit (see `jit`)."""

    def __init__(self, f, static_argnums, static_argnames, max_retraces, cache_size,
                 backend=None):
        functools.update_wrapper(self, f)
        self.f = f
        self.backend = resolve_backend(backend)
        self.static_argnums = _normalize_argnums(static_argnums)
        self.static_argnames = ((static_argnames,) if isinstance(static_argnames, str)
                                else tuple(static_argnames))
        self.max_retraces = max_retraces
        self.cache_size = cache_size
        self._cache = {}  # signature -> _Compiled, oldest first; reads need no lock
        self._fast = {}   # (type, shape, dtype) per positional array -> the same _Compiled
        self._lock = threading.Lock()
        self.traces = 0
        self._last_key = None

    def __call__(self, *args, **kwargs):
        if current_level() > 0:
            return self.f(*args, **kwargs)  # inside a transform: run inline (module docstring)
        if not kwargs and not self.static_argnums:
            # Fast path: positional arrays; the key is their types, shapes and dtypes.
            try:
                compiled = self._fast.get(tuple([(a.__class__, a.shape, a.dtype)
                                                 for a in args]))
            except AttributeError:  # a Python scalar or a pytree among the arguments
                compiled = None
            if compiled is not None:
                return compiled.run(*args)
        split = _Split(self, args, kwargs)
        if split.holds_tensor:
            return self.f(*args, **kwargs)
        compiled = self._cache.get(split.key)
        if compiled is not None:
            return compiled.run(*_dynamic_values(split, compiled.xp))
        compiled, first = self._compile(split, args, kwargs)
        return optree.tree_unflatten(compiled.out_tree, first)  # the tracing run's outputs

    def __get__(self, obj, objtype=None):
        """As a method decorator: bind the instance (a static argument would need hashing)."""
        return self if obj is None else functools.partial(self, obj)

    def _compile(self, split, args, kwargs):
        xp = array_module([x for x, d in zip(split.leaves, split.dynamic)
                           if d and type(x) not in _SCALARS], "ft.jit")
        leaves = [xp.asarray(x) if d and type(x) in _SCALARS else x
                  for x, d in zip(split.leaves, split.dynamic)]
        traced, first = trace(self.f, leaves, split.dynamic, split.rebuild,
                              split.input_names())
        compiled = _Compiled(traced, optimize(traced), xp, self.backend)
        compiled.fast_key = None
        if not kwargs and not self.static_argnums and all(
                type(a) is np.ndarray or is_array(a) for a in args):
            compiled.fast_key = tuple([(a.__class__, a.shape, a.dtype) for a in args])
        with self._lock:
            self.traces += 1
            if self.traces > self.max_retraces:
                warnings.warn(f"ft.jit({getattr(self.f, '__name__', 'f')}) traced "
                              f"{self.traces} times; {_what_changed(self._last_key, split.key)}"
                              ". Mark changing Python values static, or keep shapes fixed",
                              PerformanceWarning, stacklevel=3)
            self._last_key = split.key
            self._cache[split.key] = compiled
            if compiled.fast_key is not None:
                self._fast[compiled.fast_key] = compiled
            while len(self._cache) > self.cache_size:
                oldest = self._cache.pop(next(iter(self._cache)))
                self._fast.pop(oldest.fast_key, None)
        return compiled, first

    def lower(self, *args, **kwargs):
        """The compiled entry for these arguments (tracing if needed): `.traced`,
        `.optimized` (Programs), `.groups` (its fusion groups) and `.fn.source` (the generated
        code)."""
        split = _Split(self, args, kwargs)
        return self._cache.get(split.key) or self._compile(split, args, kwargs)[0]


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

    static_argnums / static_argnames: arguments whose values (hashable) key the cache instead
    of being traced; Python control flow may depend on them. Arrays captured from closures are
    constants of the program, read at trace time. After `max_retraces` traces a
    PerformanceWarning says which part of the signature keeps changing; the cache keeps the
    `cache_size` most recently compiled programs. Inside another transform the body runs inline.
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
            or (TracerConversionError, a TypeError) Python control flow or a conversion such
            as float(x) on a traced value while tracing.
        ValueError: static_argnums out of range for a call, or an unknown backend.
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
    fusion groups (`groups`: chains of elementwise equations, one kernel each on a device)."""

    def __init__(self, traced, optimized, source):
        self.traced, self.optimized, self.source = traced, optimized, source
        self.groups = fusion_groups(optimized)

    def __str__(self):
        groups = "".join(f"\n  g{k} {g}" for k, g in enumerate(self.groups))
        return (f"traced ({len(self.traced)} equations):\n{self.traced}\n\n"
                f"after passes ({len(self.optimized)} equations):\n{self.optimized}\n\n"
                f"fusion groups ({len(self.groups)}):{groups or ' none'}")

    __repr__ = __str__


def make_graph(f, *, static_argnums=(), static_argnames=()):
    """The program ft.jit would compile for f, to read (as jax.make_jaxpr).

    `print(ft.make_graph(f)(x))` shows the traced program and the program after the passes,
    one primitive per line, and its fusion groups; `.traced` and `.optimized` hold the programs,
    `.groups` the groups (each with `.ops`, `.inputs`, `.outputs`) and `.source` the generated
    code.

    Args:
        f: the function to trace.
        static_argnums: as in `jit`.
        static_argnames: as in `jit`.

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
    jitted = Jitted(f, static_argnums, static_argnames, max_retraces=1 << 30, cache_size=1)

    def graph(*args, **kwargs):
        compiled = jitted.lower(*args, **kwargs)
        return Graph(compiled.traced, compiled.optimized, compiled.fn.source)
    return graph
