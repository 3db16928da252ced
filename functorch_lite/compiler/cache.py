"""The compiled entries of one jitted function: one per signature, the least recently used
dropped past the cache size; calls of plain arrays and Python scalars also find theirs by a
fast key (arguments.tree_key), computed without splitting the call."""
import threading
import warnings

import numpy as np
import optree

from ..batching_rules.fallback import PerformanceWarning
from .codegen import generate
from .fuse import fusion_groups
from .xla import compile_xla


class Compiled:
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


class Cache:
    """`entries`: signature key -> Compiled; `fast`: fast key -> the same Compiled. Reads need
    no lock; `add` takes it, counts the traces and warns once past `max_retraces`."""

    def __init__(self, name, size, max_retraces):
        self.name, self.size, self.max_retraces = name, size, max_retraces
        self.entries, self.fast = {}, {}
        self.traces = 0
        self._lock = threading.Lock()
        self._warned = False
        self._last_key = None

    def __len__(self):
        return len(self.entries)

    def get(self, key):
        return self.entries.get(key)

    def add(self, compiled):
        """Keep `compiled` (its `key`, `fast_key` and `used` set), evicting the least recently
        used entries past the size."""
        key = compiled.key
        with self._lock:
            self.traces += 1
            if self.traces > self.max_retraces and not self._warned:
                self._warned = True
                warnings.warn(f"ft.jit({self.name}) traced "
                              f"{self.traces} times; {_what_changed(self._last_key, key)}"
                              ". Mark changing Python values static, or keep shapes fixed "
                              "(further traces are counted in .traces, not warned about)",
                              PerformanceWarning, stacklevel=4)
            self._last_key = key
            old = self.entries.pop(key, None)
            if old is not None:
                self.fast.pop(old.fast_key, None)
            self.entries[key] = compiled
            if compiled.fast_key is not None:
                self.fast[compiled.fast_key] = compiled
            while len(self.entries) > self.size:   # least recently used first
                oldest = min(self.entries.values(), key=lambda c: c.used)
                del self.entries[oldest.key]
                self.fast.pop(oldest.fast_key, None)


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
