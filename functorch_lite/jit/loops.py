"""Loops that stay loops in an ft.jit program (scan, fori_loop, while_loop of functorch_lite.lax).

Note [compiled loops]
---------------------
A loop called while an ft.jit trace is the top of the level stack (no transform above it, so
nothing needs to see its iterations one by one) becomes one equation of the program. Its body
(and a while_loop's predicate) is traced once into a program of its own by a `_BodyTrace`, a
trace level above the enclosing one: the carry and the slice of xs are its inputs, and each
traced value of an enclosing trace that the body reads (a closure over a jitted argument) is
lifted into one more input, so the body is a closed program and the loop equation takes those
values as operands. Ops the body runs on enclosing values alone are recorded in the enclosing
program, before the loop: they do not change between iterations. The body program goes through
the same passes and code generation as any program, and the loop equation's kernel calls the
generated body in a Python loop: tracing and compiling cost one body, whatever the trip count.

The loop falls back to being recorded step by step (lax.py's Python loops) when the body cannot
be traced on its own: Python control flow or a conversion on a value that changes between
iterations (the loop index included: `table[i]` on a NumPy array), a carry whose shape or dtype
the body changes, or a Python number in the carry (or fori_loop's index) meeting arrays of less
than 64-bit precision: a Python number is weakly typed in eager NumPy, while the body is traced
(and the compiled index passed) as a 64-bit NumPy scalar, so promotion could differ from the
eager call there; among 64-bit dtypes both promote alike. The loop equation's outputs are fresh
arrays, never one of its operands.
"""
import numpy as np
import optree

from ..dispatch import Op
from ..interpreter import stack
from .ir import Const, LoopInfo, Program
from .trace import TraceInterpreter, TraceTensor, TracerConversionError

_DEFAULT_DTYPES = {np.dtype(t) for t in (bool, np.int64, np.float64, np.complex128)}


def tracing_at_top():
    """Whether the top of the level stack is an ft.jit trace (Note [compiled loops])."""
    interpreters = stack()
    return bool(interpreters) and isinstance(interpreters[-1], TraceInterpreter)


class _BodyTrace(TraceInterpreter):
    """Traces a loop body, lifting the values of enclosing traces it reads into inputs."""

    def __init__(self, input_names):
        super().__init__(input_names)
        self.captured = []   # the enclosing values read, in the order of their inputs
        self._lifted = {}

    def lift(self, x):
        if type(x) is not TraceTensor or x._interpreter is self:
            return x
        key = (id(x._interpreter), x.var.id)
        inner = self._lifted.get(key)
        if inner is None:
            x._interpreter.check_alive(x)
            inner = self._lifted[key] = self.new_input(x.value)
            self.captured.append(x)
        return inner

    def process(self, op, args, params):
        return super().process(op, [self.lift(a) for a in args], params)


class _Body:
    """A function of flat leaves traced into a program; `compiled(xp)` is its generated code."""

    def __init__(self, fn, in_values, input_names):
        with _BodyTrace(input_names) as interp:
            outs = fn(*[interp.new_input(v) for v in in_values])
            outs = [interp.lift(o) for o in outs]
        self.outputs = [o.var if type(o) is TraceTensor else Const(o) for o in outs]
        self.program = Program(interp.inputs, interp.eqns, self.outputs)
        self.captured = interp.captured
        self._compiled = {}

    def compiled(self, xp):
        fn = self._compiled.get(xp)
        if fn is None:
            from .api import optimize
            from .codegen import generate
            fn = self._compiled[xp] = generate(optimize(self.program), xp)
        return fn

    def fits(self, avals, weak):
        """Whether outputs [0, len(avals)) have exactly these (shape, dtype), and (with a
        weakly typed input) every value of the program has a default dtype."""
        for atom, (shape, dtype) in zip(self.outputs, avals):
            if isinstance(atom, Const) and not hasattr(atom.value, "dtype"):
                return False   # a Python number: weakly typed
            if atom.shape != shape or atom.dtype != dtype:
                return False
        if weak:
            atoms = list(self.program.inputs) + [v for e in self.program.eqns
                                                 for v in (*e.ins, *e.outs)]
            return all(a.dtype in _DEFAULT_DTYPES for a in atoms
                       if not (isinstance(a, Const) and not hasattr(a.value, "dtype")))
        return True


def _carry_operands(leaves):
    """(operands, trace-time values, avals, weak) of the carry leaves. A Python number stays an
    operand as it is (the first step sees it as eager code does) and is traced as a NumPy scalar
    (which mixes with device arrays); `weak` says there was one."""
    operands, values, weak = list(leaves), [], False
    for x in leaves:
        if not (isinstance(x, TraceTensor) or hasattr(x, "dtype")):
            x, weak = np.asarray(x)[()], True
        values.append(x.value if isinstance(x, TraceTensor) else x)
    avals = [(tuple(v.shape), np.dtype(v.dtype)) for v in values]
    return operands, values, avals, weak


def _fresh(outs, operands):
    """The loop's outputs, each a new array: one that is an operand, or an earlier output, is
    copied."""
    seen, fresh = {id(o) for o in operands}, []
    for o in outs:
        if id(o) in seen and hasattr(o, "copy"):
            o = o.copy()
        seen.add(id(o))
        fresh.append(o)
    return tuple(fresh)


def _name(fun):
    return getattr(fun, "__name__", type(fun).__name__)


def scan(step, init, xs_leaves, xs_spec, length, reverse, fun):
    """lax.scan as one loop equation, or None when it must be recorded step by step.
    `step(carry, x)` is lax's checked call of the user's body `fun`."""
    if length == 0:
        return None
    init_leaves, init_spec = optree.tree_flatten(init)
    operands, values, avals, weak = _carry_operands(init_leaves)
    nc, nx = len(init_leaves), len(xs_leaves)
    x_values = [(x.value if isinstance(x, TraceTensor) else x)[0] for x in xs_leaves]
    y_spec = []

    def flat_body(*leaves):
        carry, y = step(init_spec.unflatten(leaves[:nc]), xs_spec.unflatten(leaves[nc:]))
        y_leaves, spec = optree.tree_flatten(y)
        y_spec[:] = [spec]
        return init_spec.flatten_up_to(carry) + y_leaves

    body = _traced(flat_body, values + x_values, ["carry"] * nc + ["xs"] * nx)
    if body is None or not body.fits(avals, weak):
        return None
    order = range(length - 1, -1, -1) if reverse else range(length)
    y_avals = [(a.shape, a.dtype) for a in body.outputs[nc:]]

    def kernel(xp, *ops, length, reverse):
        fn = body.compiled(xp)
        carry, xs, consts = list(ops[:nc]), ops[nc:nc + nx], ops[nc + nx:]
        ys = [[] for _ in y_avals]
        for i in order:
            out = fn(*carry, *[x[i] for x in xs], *consts)
            carry = out[:nc]
            for acc, y in zip(ys, out[nc:]):
                acc.append(y)
        stacked = [xp.stack(acc[::-1] if reverse else acc) for acc in ys]
        return _fresh(carry, ops) + tuple(stacked)

    op = Op(f"scan[{_name(fun)}]", kernel, multiple_results=True)
    op.loop = LoopInfo("scan", body, nc=nc, nx=nx)
    outs = op(*operands, *xs_leaves, *body.captured, length=length, reverse=reverse)
    return (init_spec.unflatten(list(outs[:nc])),
            y_spec[0].unflatten(list(outs[nc:])))


def fori_loop(lower, upper, body_fun, init_val, checked_body):
    """lax.fori_loop with concrete bounds as one loop equation, or None (Note [compiled
    loops]). `checked_body(i, val)` is lax's checked call of body_fun."""
    if upper <= lower:
        return None
    init_leaves, init_spec = optree.tree_flatten(init_val)
    operands, values, avals, _ = _carry_operands(init_leaves)
    nc = len(init_leaves)

    def flat_body(i, *leaves):
        return init_spec.flatten_up_to(checked_body(i, init_spec.unflatten(leaves)))

    body = _traced(flat_body, [np.int64(lower)] + values,
                   ["the loop index"] + ["carry"] * nc)
    if body is None or not body.fits(avals, weak=True):   # the index is a weak Python int
        return None

    def kernel(xp, *ops, lower, upper):
        fn = body.compiled(xp)
        carry, consts = list(ops[:nc]), ops[nc:]
        for i in range(lower, upper):
            carry = fn(np.int64(i), *carry, *consts)
        return _fresh(carry, ops)

    op = Op(f"fori_loop[{_name(body_fun)}]", kernel, multiple_results=True)
    op.loop = LoopInfo("fori_loop", body, nc=nc)
    outs = op(*operands, *body.captured, lower=lower, upper=upper)
    return init_spec.unflatten(list(outs))


def while_loop(cond_fun, body_fun, init_val, checked_cond, checked_body):
    """lax.while_loop as one loop equation, or None (Note [compiled loops]). The checked_*
    functions are lax's checked calls of cond_fun and body_fun."""
    init_leaves, init_spec = optree.tree_flatten(init_val)
    operands, values, avals, weak = _carry_operands(init_leaves)
    nc = len(init_leaves)
    cond = _traced(lambda *leaves: [checked_cond(init_spec.unflatten(leaves))], values,
                   ["carry"] * nc)
    body = _traced(lambda *leaves: init_spec.flatten_up_to(
        checked_body(init_spec.unflatten(leaves))), values, ["carry"] * nc)
    if (cond is None or body is None or not body.fits(avals, weak)
            or not cond.fits([((), np.dtype(bool))], weak)):
        return None
    nk = len(cond.captured)

    def kernel(xp, *ops):
        test, step = cond.compiled(xp), body.compiled(xp)
        carry, kc, kb = list(ops[:nc]), ops[nc:nc + nk], ops[nc + nk:]
        while test(*carry, *kc)[0]:
            carry = step(*carry, *kb)
        return _fresh(carry, ops)

    op = Op(f"while_loop[{_name(body_fun)}]", kernel, multiple_results=True)
    op.loop = LoopInfo("while_loop", body, cond, nc=nc)
    outs = op(*operands, *cond.captured, *body.captured)
    return init_spec.unflatten(list(outs))


def _traced(fn, in_values, names):
    try:
        return _Body(fn, in_values, names)
    except TracerConversionError:
        return None
