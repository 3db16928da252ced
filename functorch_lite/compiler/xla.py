"""ft.jit's backends, and the XLA one: the optimized program lowered to JAX and compiled by jax.jit.

Replaying NumPy calls costs about a microsecond and a half per equation however small the arrays;
XLA fuses the program into a few loops, so on small-array programs (a PINN's Laplacian, a neural
ODE's gradient) it runs several times faster. The program is the one our passes produced; each
equation is lowered by its entry in xla_lowerings.LOWERINGS (or runs on the host, see there).

NumPy arrays go in and come out: a call hands its arguments to the compiled executable (small
arrays of one dtype packed into one, see _packing), and copies each result into a fresh,
writable NumPy array. Called with JAX arrays, a program takes them as they are and returns
JAX arrays (`on_jax`): no conversion at either end, so data stays with XLA between calls (a
training loop's parameters, a GPU's memory) and a call costs what jax.jit's does. Programs are
traced, compiled and
called with 64-bit types enabled for that scope only (`jax.enable_x64`), so float64 stays float64
while the user's own JAX code keeps its setting. JAX is an optional dependency (the `xla` extra).
"""
import math
import os
import sys
import warnings

import numpy as np
import optree

from ..batching_rules.fallback import PerformanceWarning
from .codegen import StaleShape

from .ir import Const, Var

BACKENDS = ("numpy", "xla")
ENV_VAR = "FUNCTORCH_LITE_JIT_BACKEND"
_INLINE_SIZE = 256  # array constants up to this size are compiled in; larger ones are arguments
_PACK_SIZE = 8192   # array inputs up to this size are packed into one argument (_packing)
_lower_loop = None  # function(ctx, eqn, ins) -> results of a loop equation (set_loop_lowering)


def set_loop_lowering(lower):
    """Install how a loop equation lowers: functorch_lite.lax, which owns the loops, installs
    its jax.lax lowering at import (the function imports JAX when first called)."""
    global _lower_loop
    _lower_loop = lower

_default = None


def set_jit_backend(name):
    """Choose the backend of `ft.jit` functions created from now on that name none.

    "numpy" replays the program as NumPy calls; "xla" compiles it with jax.jit (needs
    `pip install -e '.[xla]'`). None restores the default: the environment variable
    FUNCTORCH_LITE_JIT_BACKEND, else "numpy".

    Args:
        name: "numpy", "xla" or None.

    Raises:
        ValueError: an unknown backend name.
        ImportError: "xla" without JAX installed.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.set_jit_backend("numpy")
        >>> ft.set_jit_backend(None)
    """
    global _default
    _default = None if name is None else resolve_backend(name)


def resolve_backend(name):
    """The backend a jit function uses: `name`, else the set default, else the environment."""
    if name is None:
        name = _default or os.environ.get(ENV_VAR) or "numpy"
    if name not in BACKENDS:
        raise ValueError(f"ft.jit: unknown backend {name!r}; expected one of {BACKENDS} "
                         f"(from the argument, set_jit_backend or ${ENV_VAR})")
    if name == "xla":
        _jax()
    return name


def _jax():
    try:
        import jax
    except ImportError as e:
        raise ImportError("ft.jit(backend='xla') needs JAX: pip install -e '.[xla]' "
                          "(or pip install jax)") from e
    return jax


def _x64_switch(jax):
    """JAX's context manager that sets 64-bit types for its scope: `_x64_switch(jax)(True)`."""
    enable = getattr(jax, "enable_x64", None)
    if enable is None or not callable(enable):
        from jax.experimental import enable_x64 as enable  # JAX before 0.6
    return enable


def is_jax_array(x):
    """x is a jax.Array (JAX is not imported for the question)."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(x, jax.Array)


def to_jax(tree):
    """The NumPy arrays and scalars of a pytree as JAX arrays of the same dtypes (64-bit ones
    too; another byte order as the machine's, the only one JAX holds): what a program called
    with JAX arrays returns."""
    jax = _jax()
    with _x64_switch(jax)(True):
        return optree.tree_map(lambda x: jax.device_put(native_value(x)) if isinstance(
            x, (np.ndarray, np.generic, bool, int, float, complex)) else x, tree)


class XlaFunction:
    """A program compiled by XLA, called like codegen's function: NumPy arrays in, the list of
    outputs (or the one output when `single`) out, as fresh writable NumPy arrays; or, when
    `on_jax`, JAX arrays in (passed as they are) and out (XLA's own, no copy). `only_jax`: every
    input is a JAX array, whose dtype is the compiled one whatever the 64-bit setting, so a call
    needs no 64-bit scope (entering one costs more than the rest of the call's Python)."""

    def __init__(self, program, single, on_jax=False, only_jax=False):
        jax = _jax()
        self.jax, self.program, self.single, self.on_jax = jax, program, single, on_jax
        self._direct = only_jax
        self.nflags = 0   # checks and guards (_body)
        self.bodies = {}   # id of a loop's traced body -> (body, its optimized program)
        self.host = []     # (equation, reason) per equation run on the host (a callback)
        big, self._uniform = {}, {}
        for prog in _programs(program, self.bodies):
            for eqn in prog.eqns:
                for a in eqn.ins:
                    if isinstance(a, Const) and _uniform(a.value):
                        self._uniform[id(a.value)] = a.value
                    elif isinstance(a, Const) and getattr(a.value, "size", 0) > _INLINE_SIZE:
                        big.setdefault(id(a.value), a.value)
        big_ids = list(big)
        self.nchecks = 0
        self._packs, self._loose = ([], range(len(program.inputs))) if on_jax else \
            _packing(program.inputs)
        self._swapped = [k for k, v in enumerate(program.inputs) 
                         if v.dtype is not None and not v.dtype.isnative]
        with _x64_switch(jax)(True):
            specs = [jax.ShapeDtypeStruct((sum(_size(program.inputs[k]) for k in ks),),
                                          native(program.inputs[ks[0]].dtype))
                     for ks in self._packs]
            specs += [jax.ShapeDtypeStruct(program.inputs[k].shape,
                                           native(program.inputs[k].dtype))
                      for k in self._loose]
            big_values = [native_value(v) for v in big.values()]
            self.lowered = jax.jit(lambda *a: self._body(big_ids, *self._unpack(a))).lower(
                *specs, *big_values)
            self.compiled = self.lowered.compile()
            self.consts = [jax.device_put(v) for v in big_values]
        if self.host:
            _warn_host(self.host)
        self.computed = [isinstance(a, Var) for a in program.outputs]
        self.nouts = sum(self.computed)
        self.direct = None   # the executable itself, where a call needs nothing around it
        if only_jax and not self.nflags and self.nouts == len(program.outputs):
            call = self.compiled
            consts = self.consts
            self.direct = (lambda *a: call(*a, *consts)) if consts else call
        scalars = program.scalars or [None] * len(program.outputs)
        self._converts = [_jax_converter(a) if on_jax else _converter(a, scalar)
                          for a, scalar in zip(program.outputs, scalars)]
        self._x64 = _x64_switch(jax)

    @property
    def source(self):
        """The StableHLO text XLA compiled (codegen's functions show Python source here)."""
        return self.lowered.as_text()

    def _body(self, big_ids, *values):
        program = self.program
        n = len(program.inputs)
        jnp = self.jax.numpy
        consts = {k: jnp.broadcast_to(jnp.asarray(v.flat[0]), v.shape)
                  for k, v in self._uniform.items()}
        consts.update(zip(big_ids, values[n:]))
        ctx = _Context(self.jax, consts, self.bodies)
        outs = lower_program(program, values[:n], ctx)
        self.host = ctx.host
        self.nchecks, self.nguards = len(ctx.checks), len(ctx.guards)
        flags = ctx.checks + ctx.guards
        self.nflags = len(flags)
        # one flag that any is set leads the flags: a call reads back that one (_checked)
        return ([jnp.asarray(o) for o, a in zip(outs, program.outputs) if isinstance(a, Var)]
                + ([jnp.any(jnp.stack([jnp.asarray(f, bool) for f in flags]))] if flags
                   else []) + flags)

    def _unpack(self, values):
        """The compiled function's arguments (packed groups, loose inputs, constants) as the
        program's inputs followed by the constants."""
        inputs = [None] * len(self.program.inputs)
        for flat, ks in zip(values, self._packs):
            start = 0
            for k in ks:
                v = self.program.inputs[k]
                inputs[k] = flat[start:start + _size(v)].reshape(v.shape)
                start += _size(v)
        rest = values[len(self._packs):]
        for k, x in zip(self._loose, rest):
            inputs[k] = x
        return inputs + list(rest[len(self._loose):])

    def __call__(self, *args):
        if self._direct:
            outs = self.compiled(*args, *self.consts)
        else:
            if self._swapped:   # JAX takes only the machine's byte order (native)
                args = list(args)
                for k in self._swapped:
                    args[k] = native_value(args[k])
            given = args
            if self._packs:   # one transfer per group instead of one per array (_packing)
                given = [np.concatenate([args[k].ravel() for k in ks]) for ks in self._packs]
                given += [args[k] for k in self._loose]
            with self._x64(True):
                outs = self.compiled(*given, *self.consts)
        if self.nflags:
            outs = self._checked(outs, args)
        if self.single:
            return self._converts[0](outs[0] if self.nouts else None)
        if self.nouts == len(self._converts):   # every output computed: in order
            return [c(o) for c, o in zip(self._converts, outs)]
        it = iter(outs)
        return [c(next(it)) if k else c(None) for c, k in zip(self._converts, self.computed)]

    def _checked(self, outs, args):
        """The outputs, after reading back whether any flag is set (one scalar: the one wait
        for the result a program with flags costs, on JAX arrays as well), and if one is, which."""
        if not bool(outs[self.nouts]):
            return outs[:self.nouts]
        flags = outs[self.nouts + 1:]
        if any(bool(f) for f in flags[self.nchecks:]):
            raise StaleShape   # a value-dependent shape changed: the caller traces again
        if any(bool(f) for f in flags[:self.nchecks]):
            # a check failed: NumPy's replay raises the op's own error (or is the answer)
            if self.on_jax:
                args = [np.array(a) if is_jax_array(a) else a for a in args]
            outs = [o for o, c in zip(self.program.evaluate(*args), self.computed) if c]
            return to_jax(outs) if self.on_jax else outs
        return outs[:self.nouts]


def _size(var):
    return math.prod(var.shape)


def _packing(inputs):
    """The program's small array inputs grouped by dtype (positions, each group of two or more
    passed as one flat array that the compiled function slices), and the other positions.
    Handing JAX a NumPy array costs about two microseconds however small it is (a transfer and
    its bookkeeping); copying a few small arrays into one costs less than one."""
    groups = {}
    for k, v in enumerate(inputs):
        if not v.weak and _size(v) <= _PACK_SIZE:
            groups.setdefault(np.dtype(v.dtype), []).append(k)
    packs = [ks for ks in groups.values() if len(ks) > 1]
    packed = {k for ks in packs for k in ks}
    return packs, [k for k in range(len(inputs)) if k not in packed]


def _uniform(value):
    """A floating constant array whose elements are all equal (a seed of ones, a mean's
    1/n): compiled as a broadcast scalar, which XLA fuses, rather than read from memory."""
    if type(value) is not np.ndarray or value.size < 2 or value.dtype.kind not in "fc":
        return False
    bits = np.ascontiguousarray(value).reshape(value.size, 1).view(np.uint8)
    return bool((bits == bits[0]).all())   # bit for bit: -0.0 is not 0.0


def _converter(atom, scalar):
    """How one output of the compiled function becomes a result: a computed array is copied
    out of XLA's buffer (np.asarray of it is a read-only view) into a fresh writable array (of
    the traced byte order: a view of a big-endian argument is big-endian, as eagerly); a 0-d
    one becomes a NumPy scalar where the eager call gives one (`scalar`, Note [output types] in
    trace.py), a weak one a Python scalar; a constant output is copied, so a caller writing into
    one changes no later call's result (as codegen does)."""
    if isinstance(atom, Const):
        value = atom.value
        if scalar is not None and atom.shape == ():
            return (lambda _: np.asarray(value)[()]) if scalar else (lambda _: np.array(value))
        return (lambda _: value.copy()) if hasattr(value, "copy") else (lambda _: value)
    if atom.weak:
        return lambda out: np.asarray(out).item()
    if atom.shape == () and scalar is not False:
        return lambda out: np.asarray(out)[()]
    if atom.dtype is not None and not atom.dtype.isnative:
        return lambda out: np.asarray(out).astype(atom.dtype)
    return lambda out: np.asarray(out).copy()


def _jax_converter(atom):
    """As _converter, for a program called with JAX arrays: a computed output is XLA's array
    itself (immutable, so nobody else's result changes), a constant one a JAX array made
    once."""
    if isinstance(atom, Const):
        value = to_jax(atom.value)
        return lambda _: value
    return lambda out: out


def lower_program(program, values, ctx):
    """The program's outputs computed by JAX from its input values: each equation lowered by
    its entry in LOWERINGS, a loop equation by the lowering lax installs, the rest run on the host. Shared by
    the compiled program and the bodies of its loops (which lower inside jax.lax loops)."""
    from .xla_layout import computed, readers
    env = {v.id: x for v, x in zip(program.inputs, values)}
    ctx.readers = readers(program)

    def read(atom):   # an array, or a Permuted one (Note [lazy transposes in the XLA lowering])
        if isinstance(atom, Var):
            return env[atom.id]
        return ctx.consts.get(id(atom.value), native_value(atom.value))
    for eqn in program.eqns:
        ctx.out_dtypes = [native(v.dtype) for v in eqn.outs]
        ctx.in_types = [numpy_type(a) for a in eqn.ins]
        outs = _lower_equation(ctx, eqn, [read(a) for a in eqn.ins])
        for v, o in zip(eqn.outs, outs):
            env[v.id] = _fit(ctx.jax, eqn, o, v)
    return [computed(read(a)) for a in program.outputs]


def _lower_equation(ctx, eqn, ins):
    """The equation's results: an op that reads Permuted operands as they are (xla_layout.LAZY)
    may return one; any other op gets its operands computed."""
    from . import xla_layout, xla_lowerings
    if getattr(eqn.op, "loop", None) is not None:
        return _lower_loop(ctx, eqn, [xla_layout.computed(x) for x in ins])
    name = eqn.op.name
    reason = xla_lowerings.HOST_ONLY.get(name) or (
        "an op defined outside the library (it has no lowering)" if _foreign(eqn.op) else None)
    if reason is None and name in xla_layout.LAZY:
        out = xla_layout.LAZY[name](ctx, eqn, *ins, **eqn.params)
        if out is not None:
            return (out,)
    ins = [xla_layout.computed(x) for x in ins]
    if reason is None and name not in xla_lowerings.LOWERINGS:
        reason = "it has no lowering"
    if reason is None:
        try:
            out = xla_lowerings.LOWERINGS[name](ctx, *ins, **eqn.params)
            return tuple(out) if eqn.op.multiple_results else (out,)
        except xla_lowerings.NotLowered as e:
            reason = str(e) or "operands its lowering cannot express"
    ctx.host.append((eqn, reason))
    return _on_host(ctx.jax, eqn, ins, ctx)


def _warn_host(host):
    """One PerformanceWarning naming the ops of the program that run on the host: each call
    leaves XLA for them (a transfer each way, a Python call, and inside a loop every step)."""
    reasons = {}
    for eqn, reason in host:
        reasons.setdefault(eqn.op.name, reason)
    lines = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
    warnings.warn(f"ft.jit(backend='xla'): {len(host)} equation(s) of the compiled program run "
                  f"on the host as NumPy callbacks, outside XLA ({', '.join(reasons)}), and "
                  f"cost a round trip on every call. {lines}. ft.make_graph(f, backend='xla') "
                  "shows them.", PerformanceWarning, stacklevel=2)


def _programs(program, bodies):
    """The program and, recursively, the optimized programs of its loops' bodies, which are
    recorded in `bodies` (id of the traced body -> (body, program)) for lowering."""
    yield program
    for eqn in program.eqns:
        loop = getattr(eqn.op, "loop", None)
        for body in (loop.body, loop.cond, *loop.branches) if loop is not None else ():
            if body is not None and id(body) not in bodies:
                bodies[id(body)] = (body, body.optimized())
                yield from _programs(bodies[id(body)][1], bodies)


def target_platform(jax):
    """The backend XLA compiles for ("cpu", "gpu", "tpu"): JAX's default one, as compile_xla
    lowers without naming a device. Some lowerings choose their form by it (xla_conv.py)."""
    return jax.default_backend()


class _Context:
    """What a lowering may use besides its operands: `check(flag)` (xla_lowerings docstring);
    `out_dtypes` and `in_types`, the equation's result dtypes and operand types (numpy_type);
    `guards` are the flags of value-dependent shapes that changed (codegen's StaleShape);
    `consts` the big constants passed as arguments (by id); `platform` the backend XLA
    compiles for ("cpu", "gpu", ...); `program_of(body)` a loop body's
    optimized program; `host` collects the equations that run on the host, with the reason
    (shared with nested contexts). A loop body lowers with a `nested()` context of its own,
    whose flags the loop carries out (lax/xla.py)."""

    def __init__(self, jax, consts, bodies, host=None):
        self.jax, self.consts, self.bodies = jax, consts, bodies
        self.host = [] if host is None else host   # (eqn, reason) of each host equation
        self.checks = []
        self.guards = []
        self.out_dtypes = []
        self.in_types = []   # what NumPy's promotion sees of each operand (numpy_type)
        self.readers = {}   # var id -> the equations reading it (xla_layout.readers)
        self.platform = target_platform(jax)

    def check(self, flag):
        self.checks.append(flag)

    def nested(self):
        return _Context(self.jax, self.consts, self.bodies, self.host)

    def program_of(self, body):
        return self.bodies[id(body)][1]


def _foreign(op):
    """An op that is not the library's own one of that name (its lowering would be wrong)."""
    from ..ops import BUILTIN_OPS
    from .simplify import diagonal_product, identity_product
    return BUILTIN_OPS.get(op.name, {"identity_product": identity_product,
                                     "diagonal_product": diagonal_product}.get(op.name)) is not op


def _fit(jax, eqn, value, var):
    """value with the dtype the trace recorded for var; a shape mismatch is a lowering bug. A
    Permuted value stays one (Note [lazy transposes in the XLA lowering])."""
    from .xla_layout import Permuted
    lazy = isinstance(value, Permuted)
    base = value.base if lazy else jax.numpy.asarray(value)
    if tuple(value.shape if lazy else base.shape) != var.shape:
        raise AssertionError(f"ft.jit (xla): the lowering of {eqn.op.name} gave shape "
                             f"{tuple(value.shape)}, the op gives {var.shape}")
    dtype = native(var.dtype)
    if dtype is None or base.dtype == dtype:
        return value if lazy else base
    return Permuted(base.astype(dtype), value.perm) if lazy else base.astype(dtype)


def _on_host(jax, eqn, ins, ctx):
    """The op's NumPy kernel inside the compiled program (a host callback). A guarded
    equation (a value-dependent shape) also returns whether its shape changed: then its
    outputs are zeros and the call raises StaleShape.

    JAX converts a callback's operands and results with the 64-bit setting of the thread that
    runs it, which is one of XLA's own (a program with a loop, or large enough, runs off the
    calling thread) where `jax.enable_x64` does not reach: float64 would cross as float32. So
    values of 64 bits and more cross as their uint32 words (a new last axis), bitcast back on
    the other side."""
    slots = [k for k, x in enumerate(ins) if not _python_value(x)]
    operands = [jax.numpy.asarray(ins[k]) for k in slots]
    avals = [(tuple(x.shape), np.dtype(x.dtype)) for x in operands]
    dtypes = [native(v.dtype) for v in eqn.outs]
    specs = [jax.ShapeDtypeStruct(*_word_aval(v.shape, d)) for v, d in zip(eqn.outs, dtypes)]
    if eqn.guard:
        specs.append(jax.ShapeDtypeStruct((), np.bool_))

    def kernel(*arrays):
        args = list(ins)
        for k, a, (shape, dtype) in zip(slots, arrays, avals):
            args[k] = _from_words(np, np.asarray(a), shape, dtype)
        out = eqn.op.impl(*args, **eqn.params)
        outs = out if eqn.op.multiple_results else (out,)
        stale = any(np.shape(o) != v.shape for o, v in zip(outs, eqn.outs))
        if stale:
            outs = [np.zeros(v.shape, d) for v, d in zip(eqn.outs, dtypes)]
        outs = [_to_words(np, np.asarray(o, d).reshape(v.shape)) for o, v, d in
                zip(outs, eqn.outs, dtypes)]
        return outs + [np.asarray(stale)] if eqn.guard else outs
    outs = jax.pure_callback(kernel, specs, *[_to_words(jax, x) for x in operands])
    if eqn.guard:
        ctx.guards.append(outs[-1])
        outs = outs[:-1]
    return [_from_words(jax, o, v.shape, d) for o, v, d in zip(outs, eqn.outs, dtypes)]


def _word_aval(shape, dtype):
    """(shape, dtype) of a value as it crosses a host callback (_on_host)."""
    if dtype.itemsize < 8:
        return shape, dtype
    return tuple(shape) + (dtype.itemsize // 4,), np.dtype(np.uint32)


def _to_words(xp, x):
    """x as it crosses a host callback, in NumPy (xp is np) or in the compiled program."""
    dtype = np.dtype(x.dtype)
    if dtype.itemsize < 8:
        return x
    if xp is np:
        return np.ascontiguousarray(x).view(np.uint32).reshape(_word_aval(x.shape, dtype)[0])
    lax = xp.lax
    if dtype.kind == "c":   # the real and imaginary parts' words, as complex memory holds them
        x = xp.numpy.stack([xp.numpy.real(x), xp.numpy.imag(x)], axis=-1)
    words = lax.bitcast_convert_type(x, np.uint32)
    return words.reshape(_word_aval(x.shape[:-1] if dtype.kind == "c" else x.shape, dtype)[0])


def _from_words(xp, words, shape, dtype):
    """The value of that shape and dtype that crossed as `words` (_to_words)."""
    if dtype.itemsize < 8:
        return words
    if xp is np:
        return np.ascontiguousarray(words).view(dtype).reshape(shape)
    if dtype.kind != "c":
        return xp.lax.bitcast_convert_type(words, dtype)
    part = np.dtype(f"f{dtype.itemsize // 2}")
    k = part.itemsize // 4
    parts = xp.lax.bitcast_convert_type(
        words.reshape(tuple(shape) + ((2, k) if k > 1 else (2,))), part)
    return xp.lax.complex(parts[..., 0], parts[..., 1])


def native(dtype):
    """dtype in the machine's byte order (JAX holds no other); None stays None."""
    return dtype if dtype is None or dtype.isnative else dtype.newbyteorder("=")


def native_value(x):
    """A NumPy array of another byte order (as np.load or np.frombuffer give) as a native
    copy; anything else as it is."""
    if isinstance(x, np.ndarray) and not x.dtype.isnative:
        return x.astype(native(x.dtype))
    return x


_PYTHON_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def numpy_type(atom):
    """What NumPy's promotion sees of an operand: its dtype, or the Python type of a Python
    scalar (a weak Var, which JAX receives as an array, or a Python number): NEP 50 lets the
    array operands' dtypes decide for a Python scalar."""
    if atom.weak:
        return _PYTHON_TYPES[atom.dtype.kind]
    if isinstance(atom, Const) and not hasattr(atom.value, "dtype"):
        value = atom.value   # a Python number, or a static value (a shape, None, a string)
        return type(value) if isinstance(value, (bool, int, float, complex)) else None
    return native(atom.dtype)


def _python_value(x):
    return isinstance(x, (bool, int, float, complex, str, type(None), tuple, list))


def compile_xla(program, single=False, on_jax=False, only_jax=False):
    """The program compiled by XLA (see XlaFunction)."""
    return XlaFunction(program, single, on_jax, only_jax)
