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
import warnings

import numpy as np
import optree

from ..backend import array_module, is_array, is_host, module_of
from ..batching_rules.fallback import PerformanceWarning
from ..interpreter import current_level
from ..transforms._pytree import check_function, fresh_outputs
from .arguments import SCALAR_TYPES, Split, Statics, tree_key
from .cache import Cache, Compiled
from .codegen import StaleShape
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .fold import fold_constants
from .fuse import fusion_groups
from .simplify import simplify
from .trace import PYTHON_SCALARS, trace
from .xla import is_jax_array, resolve_backend, to_jax

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


class Jitted:
    """The function returned by ft.jit (see `jit`)."""

    def __init__(self, f, static_argnums, static_argnames, max_retraces, cache_size,
                 backend=None):
        check_function(f, "ft.jit")
        functools.update_wrapper(self, f)
        self.f = f
        self.backend = resolve_backend(backend)
        self.statics = Statics(f, static_argnums, static_argnames)
        self._plain = not self.statics
        for name, value in (("max_retraces", max_retraces), ("cache_size", cache_size)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"ft.jit: {name} must be a positive int, got {value!r}")
        self._cache = Cache(getattr(f, "__name__", "f"), cache_size, max_retraces)
        self._fast = self._cache.fast   # the per-call path reads it directly
        self._direct = None   # Note [direct calls on JAX arrays]
        self._clock = 0   # counts calls: a Compiled's `used` is the call that last ran it

    @property
    def traces(self):
        """How many times the function was traced."""
        return self._cache.traces

    def __call__(self, *args, **kwargs):
        if current_level() > 0:
            return self.f(*args, **kwargs)  # inside a transform: run inline (module docstring)
        self._clock += 1
        direct = self._direct
        if direct is not None and not kwargs:
            leaves, tree = direct.flatten(args)
            if tree == direct.tree and all([x.__class__ is direct.array for x in leaves]):
                try:
                    outs = direct.call(*leaves)
                except TypeError:   # another signature (Note [direct calls on JAX arrays])
                    self._direct = None
                else:
                    direct.compiled.used = self._clock
                    return outs[0] if direct.single else optree.tree_unflatten(
                        direct.out_tree, outs)
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
                leaves, fast_key = tree_key(args)
            compiled = self._fast.get(fast_key)   # None (another kind of leaf) is no key
            if compiled is not None:
                compiled.used = self._clock
                try:
                    return compiled.run(*leaves)
                except StaleShape:
                    pass
        split = Split(self.statics, args, kwargs)
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
        static through static_argnums=0; see arguments.py's _static_leaf)."""
        return self if obj is None else functools.partial(self, obj)

    def _compile(self, split, fast_key=None):
        leaves = [x for x, d in zip(split.leaves, split.dynamic) if d]
        jax_leaves = [is_jax_array(x) for x in leaves]
        given = split
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
        compiled = Compiled(traced, optimize(traced), xp,
                             [v.id for v, m in zip(traced.inputs, moved) if m], self.backend,
                             (any(jax_leaves), any(jax_leaves) and all(jax_leaves)))
        compiled.key, compiled.used = split.key, self._clock
        if any(jax_leaves):
            first = to_jax(first)
        if fast_key is not None and len(leaves) == len(split.leaves) and \
                all(type(x) is np.ndarray or type(x) in SCALAR_TYPES or is_array(x)
                    for x in leaves) and \
                ((fast_key and isinstance(fast_key[0], optree.PyTreeSpec)) or
                 split.tree == optree.tree_structure((tuple(leaves), {}))):
            compiled.fast_key = fast_key   # computed by __call__ from these very leaves
        self._cache.add(compiled)
        if self._plain and getattr(compiled.fn, "direct", None) is not None:
            self._direct = DirectCall.of(compiled, given) or self._direct
        return compiled, first

    def _from_jax(self, split):
        """A call with JAX arrays: (the split with NumPy copies of them, its dynamic leaves),
        keeping the key (JAX arrays in it). Only the XLA backend takes them."""
        if self.backend != "xla":
            raise TypeError(f"ft.jit({getattr(self.f, '__name__', 'f')}): JAX arrays are "
                            "taken by backend='xla' (which returns JAX arrays for them); the "
                            "NumPy backend takes NumPy arrays (np.asarray(x))")
        host = Split.__new__(Split)
        for name in Split.__slots__:
            setattr(host, name, getattr(split, name))
        host.leaves = [np.array(x) if is_jax_array(x) else x for x in split.leaves]
        return host, [x for x, d in zip(host.leaves, host.dynamic) if d]

    def lower(self, *args, **kwargs):
        """The compiled entry for these arguments (tracing if needed): `.traced`,
        `.optimized` (Programs), `.groups` (its fusion groups) and `.fn.source` (the generated
        code)."""
        split = Split(self.statics, args, kwargs)
        return self._cache.get(split.key) or self._compile(split)[0]


# Note [direct calls on JAX arrays]
# A program called with JAX arrays only, with no flag to read back and every output computed,
# is XLA's executable and nothing else (xla.XlaFunction.direct). Its call checks the
# arguments' shapes and dtypes in C++ and raises TypeError for any other signature, so the
# latest such program is called first, before any key is built: the per-call cost is JAX's
# flattening of the arguments (C++), a type test per leaf (a NumPy array or a Python scalar
# takes the keyed path, whose results are NumPy's) and the executable's call. A TypeError
# (shapes changed) drops the slot, since another signature's call would fail there each
# time; the keyed path then serves every signature, and the next program compiled on JAX
# arrays takes the slot.


class DirectCall:
    """The slot of Note [direct calls on JAX arrays]: the arguments' tree as JAX flattens
    it, and how to call and rebuild the result."""

    __slots__ = ("flatten", "tree", "array", "call", "single", "out_tree", "compiled")

    @classmethod
    def of(cls, compiled, split):
        """The slot for `compiled`, called with `split`'s (JAX) leaves, or None when JAX's
        flattening of the positional arguments does not give exactly those leaves (keyword
        arguments, statics, a class registered with ft.tree but not with JAX)."""
        import jax
        args, kwargs = split.rebuild(split.leaves)
        dynamic = [x for x, d in zip(split.leaves, split.dynamic) if d]
        leaves, tree = jax.tree_util.tree_flatten(tuple(args))
        if kwargs or split.statics or not all(split.dynamic) or len(leaves) != len(dynamic) \
                or any(a is not b for a, b in zip(leaves, dynamic)) or not leaves \
                or len({type(x) for x in leaves}) != 1:
            return None
        slot = cls()
        slot.flatten, slot.tree, slot.array = jax.tree_util.tree_flatten, tree, type(leaves[0])
        slot.call, slot.compiled = compiled.fn.direct, compiled
        slot.out_tree = compiled.out_tree
        slot.single = compiled.out_tree.num_leaves == 1 and compiled.out_tree.num_nodes == 1
        return slot


def jit(f=None, *, static_argnums=(), static_argnames=(), max_retraces=8, cache_size=64,
        backend=None):
    """Compile `f`: trace it once per input signature and replay the program as generated
    straight-line NumPy (or CuPy) code (jax.jit's semantics).

    A jitted call returns what the eager call returns, bit for bit, in fresh arrays, or raises
    an error naming what to write instead ([The contract][the-contract] in docs/jit.md).
    Arguments are read on every call (Python scalars weakly typed, as NumPy treats them); arrays
    captured from closures are copied when f is traced and read from that copy; static_argnums /
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
