"""Loops that stay loops in an ft.jit program (scan, fori_loop, while_loop of functorch_lite.lax).

Note [compiled loops]
---------------------
A loop called while an ft.jit trace is the top of the level stack (no transform above it, so
nothing needs to see its iterations one by one) becomes one equation of the program. Its body
(and a while_loop's predicate) is traced once into a program of its own by a `BodyTrace`, a
trace level above the enclosing one: the carry and the slice of xs are its inputs, and each
traced value of an enclosing trace that the body reads (a closure over a jitted argument) is
lifted into one more input, so the body is a closed program and the loop equation takes those
values as operands. Ops the body runs on enclosing values alone are recorded in the enclosing
program, before the loop: they do not change between iterations. The body program goes through
the same passes and code generation as any program, and the loop equation's kernel calls the
generated body in a Python loop: tracing and compiling cost one body, whatever the trip count.

The same holds with transforms between the trace and the loop (`jit(grad(f))`, `jit(vmap(f))`):
the body is traced on a sample of one example's values (compiler/bodies.py's `sample`), every value of a lower
level it reads (a GradTensor weight, a BatchedTensor input) is lifted into an operand, and the
loop op is dispatched like any op: each transform's rule (lax/rules.py) builds the
loop of its transformed body one level down, until the trace records one loop equation (Note
[loops under the transforms] there). Then the body trace records a custom_vjp or custom_jvp
call as the one op it is, never its inlined primal body, so a transform above still sees its
rule.

Python numbers keep their weak typing: a Python number in the carry (and fori_loop's index),
a literal of the code or a jitted function's Python-number argument (a weak Var of the
enclosing trace, under the transforms or not), is traced as a weak Var of the body, so the body
promotes it as eager NumPy does, Python arithmetic on it stays a Python number in the compiled
body too, and a carry that is a Python number must come out of the body as one (as it does
eagerly when only Python operators touch it) unless every value has a default dtype, where a
Python number and a NumPy scalar promote alike.

The loop falls back to being recorded step by step (lax/loops.py's Python loops) when the body cannot
be traced on its own: Python control flow or a conversion on a value that changes between
iterations (the loop index included: `table[i]` on a NumPy array), a carry whose shape or dtype
the body changes, a Python number in the carry that the body makes a NumPy scalar meeting
arrays of less than 64-bit precision, or (fori_loop under a transform, a scan over int64
indices) an index meeting them, where a Python int and an int64 would promote differently.
The loop equation's outputs are fresh arrays, never one of its operands.
"""
import numpy as np
import optree

from ..compiler import dce
from ..compiler.bodies import (Body, body_tracing, carry_operands, concrete_max, fresh, sample,
                               traced, tracing_at_top)
from ..compiler.codegen import StaleShape
from ..compiler.ir import Const, LoopInfo, Program, Var
from ..dispatch import Op
from ..tensor import Tensor
from ..transforms import checkpoint

#: The transform rules of each loop op, by kind ("scan", "while_loop", "checkpoint"): each a
#: function(op, *bodies, counts) attaching vmap, jvp and vjp rules to a new loop op. Filled by
#: lax/rules.py at import, so that the lowering does not import the rules that call lax.
RULES = {}


class NotReversible(TypeError):
    """Reverse mode met a while_loop compiled by ft.jit (its trip count is decided per call)."""


def _name(fun):
    return getattr(fun, "__name__", type(fun).__name__)


def scan(step, init, xs_leaves, xs_spec, length, reverse, fun, unroll=1, weak_xs=False):
    """lax.scan as one loop equation, or None when it must be recorded step by step.
    `step(carry, x)` is lax's checked call of the user's body `fun`; `weak_xs`: the slices
    stand for Python numbers (fori_loop's index)."""
    if length == 0:
        return None
    init_leaves, init_spec = optree.tree_flatten(init)
    values, avals = carry_operands(init_leaves)
    nc, nx = len(init_leaves), len(xs_leaves)
    x_values = [sample(x)[0] for x in xs_leaves]
    y_spec = []

    def flat_body(*leaves):
        carry, y = step(init_spec.unflatten(leaves[:nc]), xs_spec.unflatten(leaves[nc:]))
        y_leaves, spec = optree.tree_flatten(y)
        y_spec[:] = [spec]
        return init_spec.flatten_up_to(carry) + y_leaves

    body = traced(flat_body, values + x_values, ["carry"] * nc + ["xs"] * nx)
    if body is None or not body.fits(avals, default_dtypes=weak_xs):
        return None
    op = _scan_op(f"scan[{_name(fun)}]", body, nc, nx)
    RULES["scan"](op, body, nc, nx)
    outs = op(*init_leaves, *xs_leaves, *body.captured, length=length, reverse=reverse,
              unroll=unroll)
    return (init_spec.unflatten(list(outs[:nc])),
            y_spec[0].unflatten(list(outs[nc:])))


def _scan_op(name, body, nc, nx):
    """The op of a scan equation over `body` (nc carry leaves, nx leaves of xs, then the
    values it captured)."""
    ny = len(body.outputs) - nc

    def kernel(xp, *ops, length, reverse, unroll):
        fn = body.compiled(xp)
        carry, xs, consts = list(ops[:nc]), ops[nc:nc + nx], ops[nc + nx:]
        ys = [[] for _ in range(ny)]
        for i in (range(length - 1, -1, -1) if reverse else range(length)):
            out = fn(*carry, *[x[i] for x in xs], *consts)
            carry = out[:nc]
            for acc, y in zip(ys, out[nc:]):
                acc.append(y)
        # a y the body returns as a Python scalar (a weak value) is an array first: CuPy's
        # stack takes arrays only (it calls expand_dims on each)
        stacked = [xp.stack([y if hasattr(y, "shape") else xp.asarray(y)
                             for y in (acc[::-1] if reverse else acc)]) for acc in ys]
        return fresh(carry, ops) + tuple(stacked)

    op = Op(name, kernel, multiple_results=True)
    op.loop = LoopInfo("scan", body, nc=nc, nx=nx)
    return op


def prune(eqn, live):
    """A scan equation without what nobody reads (DCE's rule for loops): the ys not in `live`
    (the Var ids read later), the carries that neither they nor the live outputs depend on,
    and the xs and captured operands the remaining body does not read. The forward scan of a
    gradient stacks every value its step's tape keeps; the backward scan reads only those its
    rules need, and this drops the others (and their computation) from the forward."""
    loop = eqn.op.loop
    nc, nx = loop.nc, loop.nx
    program = loop.body.optimized()
    keep_y = [v.id in live for v in eqn.outs[nc:]]
    keep_c = [v.id in live for v in eqn.outs[:nc]]
    while True:
        read = _inputs_read(program, keep_c + keep_y)
        new = [k or r for k, r in zip(keep_c, read[:nc])]
        if new == keep_c:
            break
        keep_c = new
    keep_in = keep_c + read[nc:]
    if all(keep_in) and all(keep_y):
        return eqn
    body = Body.__new__(Body)
    body.outputs = [a for a, k in zip(program.outputs, keep_c + keep_y) if k]
    body.program = Program([v for v, k in zip(program.inputs, keep_in) if k], program.eqns,
                           body.outputs)
    body.captured, body._compiled = [], {}
    op = _scan_op(eqn.op.name, body, sum(keep_c), sum(read[nc:nc + nx]))
    return eqn.__class__(op, eqn.params, [a for a, k in zip(eqn.ins, keep_in) if k],
                         [v for v, k in zip(eqn.outs, keep_c + keep_y) if k], eqn.region,
                         eqn.guard)


def _inputs_read(program, wanted):
    """Which inputs of `program` the outputs flagged in `wanted` depend on."""
    live = {a.id for a, w in zip(program.outputs, wanted) if w and isinstance(a, Var)}
    for eqn in reversed(program.eqns):
        if eqn.guard or any(v.id in live for v in eqn.outs):
            live.update(a.id for a in eqn.ins if isinstance(a, Var))
    return [v.id in live for v in program.inputs]


def fori_scan(lower, upper, body_fun, init_val, checked_body, unroll=1):
    """lax.fori_loop under a transform running above ft.jit: a scan over the indices (whose
    rules the transforms have), or None (Note [compiled loops])."""
    if upper <= lower:
        return None
    out = scan(lambda c, i: (checked_body(i, c), None), init_val,
               [np.arange(lower, upper, dtype=np.int64)], optree.tree_structure(0),
               upper - lower, False, body_fun, unroll, weak_xs=True)
    return None if out is None else out[0]


def fori_loop(lower, upper, body_fun, init_val, checked_body, unroll=1):
    """lax.fori_loop with concrete bounds as one loop equation, or None (Note [compiled
    loops]). `checked_body(i, val)` is lax's checked call of body_fun."""
    if upper <= lower:
        return None
    init_leaves, init_spec = optree.tree_flatten(init_val)
    values, avals = carry_operands(init_leaves)
    nc = len(init_leaves)

    def flat_body(i, *leaves):
        return init_spec.flatten_up_to(checked_body(i, init_spec.unflatten(leaves)))

    body = traced(flat_body, [lower] + values, ["the loop index"] + ["carry"] * nc)
    if body is None or not body.fits(avals):   # the index is a Python int, as eagerly
        return None

    def kernel(xp, *ops, lower, upper, unroll):
        fn = body.compiled(xp)
        carry, consts = list(ops[:nc]), ops[nc:]
        for i in range(lower, upper):
            carry = fn(i, *carry, *consts)
        return fresh(carry, ops)

    op = Op(f"fori_loop[{_name(body_fun)}]", kernel, multiple_results=True)
    op.loop = LoopInfo("fori_loop", body, nc=nc)
    outs = op(*init_leaves, *body.captured, lower=lower, upper=upper, unroll=unroll)
    return init_spec.unflatten(list(outs))


def while_loop(cond_fun, body_fun, init_val, checked_cond, checked_body):
    """lax.while_loop as one loop equation, or None (Note [compiled loops]). The checked_*
    functions are lax's checked calls of cond_fun and body_fun."""
    init_leaves, init_spec = optree.tree_flatten(init_val)
    values, avals = carry_operands(init_leaves)
    nc = len(init_leaves)
    cond = traced(lambda *leaves: [checked_cond(init_spec.unflatten(leaves))], values,
                   ["carry"] * nc)
    body = traced(lambda *leaves: init_spec.flatten_up_to(
        checked_body(init_spec.unflatten(leaves))), values, ["carry"] * nc)
    if (cond is None or body is None or not body.fits(avals)
            or not cond.fits([((), np.dtype(bool), None)])):
        return None
    nk = len(cond.captured)

    def kernel(xp, *ops):
        test, step = cond.compiled(xp), body.compiled(xp)
        carry, kc, kb = list(ops[:nc]), ops[nc:nc + nk], ops[nc + nk:]
        while test(*carry, *kc)[0]:
            carry = step(*carry, *kb)
        return fresh(carry, ops)

    op = Op(f"while_loop[{_name(body_fun)}]", kernel, multiple_results=True)
    op.loop = LoopInfo("while_loop", body, cond, nc=nc)
    RULES["while_loop"](op, cond, body, nc, nk)
    outs = op(*init_leaves, *cond.captured, *body.captured)
    return init_spec.unflatten(list(outs))


# Note [compiled branches]
# ------------------------
# A cond or switch whose predicate is traced, called while an ft.jit trace is the top of the
# level stack, becomes one equation that runs only the branch each call takes, as eager code
# does: the other branches' errors (inv of a singular matrix, an index out of range) and
# non-finite values never happen. Each branch is traced into a closed program of its own
# (as a loop body: the operands, then the enclosing values it reads); the equation's operands
# are the index, the operands and every branch's captured values. Tracing runs kernels on
# the values of the call being traced, where only one branch is taken: another branch that
# raises there (not a TypeError) is left untraced, and a later call that takes it traces
# again (a StaleShape, like a value-dependent shape; the XLA backend raises the same guard).
# Branches whose outputs differ in structure, shape or dtype, that return a Python number or a
# constant, or that cannot be traced on their own, are recorded as every branch and a select
# (lax/branches.py).


def switch(index, branches, operands):
    """lax.switch (cond: branches (false_fun, true_fun), index the pred) with a traced index,
    already clipped, as one equation running only the branch taken, or None (Note [compiled
    branches])."""
    leaves, spec = optree.tree_flatten(operands, none_is_leaf=True)
    values, _ = carry_operands(leaves)
    taken = concrete_max(index)
    bodies, out_specs = [], []
    for k, fun in enumerate(branches):
        def flat(*xs, fun=fun):
            out, out_spec = optree.tree_flatten(fun(*spec.unflatten(xs)), none_is_leaf=True)
            out_specs.append(out_spec)
            return out
        try:
            bodies.append(Body(flat, values, ["operand"] * len(leaves)))
        except TypeError:
            return None
        except Exception:   # an error of the branch not taken, on this call's values
            if k == taken:
                raise
            bodies.append(None)
    traced = [b for b in bodies if b is not None]
    avals = {tuple((a.shape, a.dtype) for a in b.outputs) for b in traced}
    if (len(set(out_specs)) > 1 or len(avals) > 1
            or any(a.weak or isinstance(a, Const) for b in traced for a in b.outputs)):
        return None   # (a Python number or a constant out of a branch: recorded as a select)
    n = len(leaves)
    offsets = np.cumsum([n] + [len(b.captured) if b else 0 for b in bodies]).tolist()

    def kernel(xp, index, *ops):
        k = int(index)
        if bodies[k] is None:
            raise StaleShape   # a branch that could not be traced: trace this call again
        return fresh(bodies[k].compiled(xp)(*ops[:n], *ops[offsets[k]:offsets[k + 1]]), ops)

    op = Op(f"switch[{', '.join(_name(f) for f in branches)}]", kernel, multiple_results=True)
    op.loop = LoopInfo("switch", None, nc=n, branches=tuple(bodies))
    captured = [c for b in traced for c in b.captured]
    return out_specs[0].unflatten(list(op(index, *leaves, *captured)))


def checkpointed_call(fun, args, kwargs, name):
    """A checkpointed function called while a loop body is traced under a transform: `fun` as
    one op of the body (its rules recompute it, lax/rules.py), so that reverse mode meeting
    the body later still recomputes the segment instead of keeping its values. None elsewhere,
    and when fun cannot be traced on its own (it then runs inline)."""
    if not body_tracing() or tracing_at_top():
        return None
    leaves, spec = optree.tree_flatten((args, kwargs))
    operand = [isinstance(x, Tensor) for x in leaves]
    out_spec = []

    def flat(*xs):
        it = iter(xs)
        a, k = spec.unflatten([next(it) if o else x for x, o in zip(leaves, operand)])
        out_leaves, spec_out = optree.tree_flatten(fun(*a, **k))
        out_spec[:] = [spec_out]
        return out_leaves
    operands = [x for x, o in zip(leaves, operand) if o]
    body = traced(flat, [sample(x) for x in operands], ["argument"] * len(operands))
    if body is None:
        return None
    op = Op(f"checkpoint[{name}]", lambda xp, *ops: tuple(body.compiled(xp)(*ops)),
            multiple_results=True)
    RULES["checkpoint"](op, body)
    return out_spec[0].unflatten(list(op(*operands, *body.captured)))


dce.LOOP_PRUNERS["scan"] = prune
checkpoint.record_in_loop_bodies(checkpointed_call)
