"""Functions traced into closed programs of their own: loop bodies, branches, checkpointed
segments (what functorch_lite.lax lowers into one ft.jit equation, Note [compiled loops] in
lax/lowering.py).

A `Body` is traced by a `BodyTrace`, a trace level above the enclosing one: its arguments are
its first inputs, and each value of a lower level it reads (a traced value of the enclosing
ft.jit program, a GradTensor weight, a BatchedTensor input) is lifted into one more input, so
the program is closed and its caller passes those values (`Body.captured`) as operands. Under
transforms the body is traced on a sample of one example's values (`sample`).
"""
import numpy as np

from ..interpreter import stack
from ..tensor import Tensor, TransformTensor
from .ir import Const, Program, Var
from .trace import PYTHON_SCALARS, TraceInterpreter, TraceTensor, TracerConversionError

_DEFAULT_DTYPES = {np.dtype(t) for t in (bool, np.int64, np.float64, np.complex128)}

def tracing():
    """Whether an ft.jit trace is running (jit enters only at the bottom of the level stack)."""
    interpreters = stack()
    return bool(interpreters) and isinstance(interpreters[0], TraceInterpreter)


def tracing_at_top():
    """Whether an ft.jit trace runs with no transform above it (Note [compiled loops])."""
    interpreters = stack()
    return bool(interpreters) and all(isinstance(i, TraceInterpreter) for i in interpreters)


def body_tracing():
    """Whether the top of the level stack is a loop body being traced."""
    interpreters = stack()
    return bool(interpreters) and isinstance(interpreters[-1], BodyTrace)


def inside_body():
    """Whether a loop body is being traced anywhere on the level stack (its values are then one
    example's sample, not the call's)."""
    return any(isinstance(i, BodyTrace) for i in stack())


def concrete_max(x):
    """The largest entry of x's trace-time value, over every example of the batches it is in
    (the raw value under its wrappers)."""
    while isinstance(x, TransformTensor):
        x = x.value
    if not hasattr(x, "max"):   # a Python number
        return int(x)
    return int(x.max()) if x.size else 0   # the array's own module's max (a CuPy array too)


def sample(x):
    """A raw value with the shape and dtype `x` has at its own level (one example of a batch):
    what a body traced on top of the transforms sees of it."""
    if not isinstance(x, Tensor):
        return x
    if not isinstance(x, TransformTensor):
        raise TracerConversionError(f"a loop body read a {type(x).__name__}")
    x._interpreter.check_alive(x)
    value = sample(x.value)
    bdim = getattr(x, "bdim", None)   # a BatchedTensor's batch axis
    return value if bdim is None else value[(slice(None),) * bdim + (0,)]


class BodyTrace(TraceInterpreter):
    """Traces a loop body, lifting the lower-level values it reads into inputs."""

    def __init__(self, input_names, inlines):
        super().__init__(input_names)
        self.inlines = inlines
        self.captured = []   # the lower-level values read, in the order of their inputs
        self._lifted = {}

    def lift(self, x):
        if not isinstance(x, Tensor) or type(x) is TraceTensor and x._interpreter is self:
            return x
        inner = self._lifted.get(id(x))
        if inner is None:
            inner = self._lifted[id(x)] = self.new_input(sample(x))
            self.captured.append(x)
        return inner

    def process(self, op, args, params):
        return super().process(op, [self.lift(a) for a in args], params)


class Body:
    """A function of flat leaves traced into a program; `compiled(xp)` is its generated code."""

    def __init__(self, fn, in_values, input_names):
        with BodyTrace(input_names, inlines=tracing_at_top()) as interp:
            outs = fn(*[interp.new_input(v) for v in in_values])
            outs = [interp.lift(o) for o in outs]
        self.outputs = [o.var if type(o) is TraceTensor else Const(o) for o in outs]
        self.program = Program(interp.inputs, interp.eqns, self.outputs)
        self.captured = interp.captured
        self._compiled = {}

    def run(self, *leaves):
        """The body's ops applied to `leaves` through dispatch, so the transforms running
        see each of them (what the loop rules transform)."""
        env = {v.id: a for v, a in zip(self.program.inputs, leaves)}

        def read(atom):
            return env[atom.id] if isinstance(atom, Var) else atom.value
        for eqn in self.program.eqns:
            out = eqn.op(*map(read, eqn.ins), **eqn.params)
            for v, o in zip(eqn.outs, out if eqn.op.multiple_results else (out,)):
                env[v.id] = o
        return [read(a) for a in self.outputs]

    def optimized(self):
        """The body program after ft.jit's passes (computed once)."""
        program = self._compiled.get("optimized")
        if program is None:
            from .api import optimize
            program = self._compiled["optimized"] = optimize(self.program)
        return program

    def compiled(self, xp):
        fn = self._compiled.get(xp)
        if fn is None:
            from .codegen import generate
            fn = self._compiled[xp] = generate(self.optimized(), xp)
        return fn

    def fits(self, avals, default_dtypes=False):
        """Whether outputs [0, len(avals)) have exactly these (shape, dtype). A Python number
        in the carry (weak: True) that the body keeps a Python number (Python arithmetic on
        it) is one in every step; one that becomes a NumPy scalar (or the reverse) is one
        type on the first step and the other after, so, as with `default_dtypes` (slices that
        stand for Python numbers but were traced as int64), every value of the program must
        then have a default dtype, where both promote alike. weak None: either."""
        for atom, (shape, dtype, weak) in zip(self.outputs, avals):
            out_weak = atom.weak or isinstance(atom, Const) and not hasattr(atom.value, "dtype")
            if atom.shape != shape or atom.dtype != dtype:
                return False
            default_dtypes = default_dtypes or weak not in (None, out_weak)
        if default_dtypes:
            atoms = list(self.program.inputs) + [v for e in self.program.eqns
                                                 for v in (*e.ins, *e.outs)]
            return all(a.dtype in _DEFAULT_DTYPES for a in atoms
                       if not (isinstance(a, Const) and not hasattr(a.value, "dtype")))
        return True


def carry_operands(leaves):
    """(trace-time values, avals) of the carry leaves. A Python number is traced as itself, a
    weak Var, so the body promotes it as eager code does (NEP 50) and Python arithmetic keeps it
    a Python number; the compiled body gets and returns it as one. So is a weak value of an
    enclosing trace (a jitted function's Python-number argument): its sample is the Python
    number it stands for."""
    values, avals = [], []
    for x in leaves:
        v = sample(x)
        weak = type(v) in PYTHON_SCALARS
        values.append(v)
        avals.append((tuple(np.shape(v)), np.dtype(type(v)) if weak else np.dtype(v.dtype),
                      weak))
    return values, avals


def fresh(outs, operands):
    """The loop's outputs, each a new array: one that is an operand, or an earlier output, is
    copied."""
    seen, fresh = {id(o) for o in operands}, []
    for o in outs:
        if id(o) in seen and hasattr(o, "copy"):
            o = o.copy()
        seen.add(id(o))
        fresh.append(o)
    return tuple(fresh)


def closed(fn, leaves):
    """`fn` (of flat leaves, returning flat leaves) traced into a closed program whose inputs
    are `leaves` followed by the values of the running transforms it reads (`.captured`), or
    None when it cannot be traced on its own (lax/branches.py's Note [branches and
    their derivatives]). Works with no ft.jit running too."""
    try:
        return Body(fn, [sample(x) for x in leaves], ["operand"] * len(leaves))
    except Exception:   # reading a value in Python, an error of fn on the sample: fn runs
        return None     # as it is, and raises its own errors there


def traced(fn, in_values, names):
    """The body traced, or None. A TypeError (a TracerConversionError, or the carry check
    failing on the traced types: a float32 carry meeting the traced int64 index) means the
    loop is recorded step by step, where eager code's own types hold (and a genuine error
    is raised again)."""
    try:
        return Body(fn, in_values, names)
    except TypeError:
        return None
