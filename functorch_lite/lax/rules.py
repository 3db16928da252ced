"""The rules of the loop primitives (scan, while_loop) that ft.jit records under the transforms.

Note [loops under the transforms]
---------------------------------
Under ft.jit with a transform between the trace and a loop (`jit(grad(f))`, `jit(vmap(f))`),
lax/lowering.py traces the loop's body once into a closed program (the carry, the slice of xs and
every lower-level value the body reads are its inputs) and calls a one-off loop op on those
operands. A transform meeting the op applies its rule here; each rule is a new loop, one level
down, around the transformed body, so the trace finally records one loop equation whatever the
trip count:

- vmap: the carries that the body's data flow makes batched (a fixed point: a carry batched at
  any step is batched from the start) are batched at axis 0, the body runs under vmap, and the
  ys come out batched at axis 1 (axis 0 is the scan's). A while_loop whose predicate becomes
  batched runs while any example's holds, each example keeping its value once its own fails
  (JAX's rule; every carry is then batched).
- jvp: the loop of the body's jvp, the tangents of the carries (those the data flow reaches)
  carried beside them.
- vjp (scan only): the forward scan runs each step under a reverse-mode level and stacks what
  that step's tape keeps (`_Tape`: the values its nodes' rules read; the operands the body reads
  from outside are kept once, not per step); the backward is a scan in the other direction
  whose step walks that tape with the step's slices of the stacks, carrying the carry's
  cotangent and the sum of the cotangents of the values read from outside. A checkpointed
  function in the body is one op there (lax/lowering.py's checkpointed_call), so its tape node
  keeps only its operands and the backward step runs it again, as `ft.checkpoint` promises. (A
  scan recorded step by step stacks the carries instead and runs each step again under vjp.)
- vjp (while_loop): Note [reverse mode through while_loop] below.

Eagerly (no ft.jit) loops are Python loops and the transforms see every iteration; there is no
op. The loop rules group sums by iteration (a cotangent read in every step is summed over the
loop, then added to the rest), so a derivative through a loop under ft.jit agrees with the
eager one to rounding, not bit for bit; loops with no transform between ft.jit and them replay
the eager iterations exactly.
"""
import numpy as np
import optree

from .. import numpy as fnp
from ..batching_rules.helpers import batch_size
from ..compiler import bodies
from ..compiler.ir import Var
from ..interpreter import recomputation
from ..ops.checks import loop_slots
from ..ops.elementwise import select
from ..rule_checks import inexact, shape_of
from ..tensor import Tensor
from ..transforms.custom import _batch_at_front
from ..transforms.forward import jvp
from ..transforms.reverse import (GradTensor, ReverseInterpreter, _Node, _vjp, backward,
                                  fit_cotangent, vjp)
from ..transforms.vmap import batch_subcall
from . import loops, lowering
from .guards import guard, needs_guard
from .lowering import NotReversible


def _reached(program, seeds):
    """Which outputs of `program` depend on the inputs marked in `seeds`."""
    marked = {v.id for v, s in zip(program.inputs, seeds) if s}
    for eqn in program.eqns:
        if any(isinstance(a, Var) and a.id in marked for a in eqn.ins):
            marked.update(v.id for v in eqn.outs)
    return [isinstance(a, Var) and a.id in marked for a in program.outputs]


def _carried(program, carry, rest, allowed=None):
    """The fixed point of `carry` (flags of the carry inputs) through the body: a carry whose
    output is reached is marked from the start. `rest` flags the body's other inputs."""
    carry = list(carry)
    while True:
        out = _reached(program, carry + list(rest))
        new = [c or o for c, o in zip(carry, out)]
        if allowed is not None:
            new = [n and a for n, a in zip(new, allowed)]
        if new == carry:
            return carry, out
        carry = new


def _zeros(x):
    return fnp.zeros_like(x) if hasattr(x, "shape") else fnp.zeros_like(np.asarray(x))


def _merge(flags, chosen, others):
    """Leaves in order: from `chosen` where flags hold, else from `others` (both iterators)."""
    chosen, others = iter(chosen), iter(others)
    return [next(chosen) if f else next(others) for f in flags]


# -- scan -------------------------------------------------------------------------------------

def scan_rules(op, body, nc, nx):
    """Attach vmap, jvp and vjp rules to a scan op over `body` (compiler/bodies.py's Body) with nc
    carry leaves and nx leaves of xs; the operands after them are the values the body reads."""
    op.def_batch_rule(lambda args, bdims, **p: _scan_batch(body, nc, nx, args, bdims, **p))
    op.def_jvp(lambda primals, tangents, **p: _scan_jvp(body, nc, nx, primals, tangents, **p))
    op.def_rule("vjp_fwd", lambda *primals, **p: _scan_fwd(body, nc, nx, primals, **p))

    def vjp_rule(ct, primals, res, **p):
        return _scan_vjp(body, nc, nx, ct, primals, res, **p)
    vjp_rule.takes_needed = True   # Note [residual snapshots] in reverse.py
    op.def_vjp(vjp_rule)


def _scan(step, init, xs, length, reverse, unroll):
    carry, ys = loops.scan(lambda c, x: step(list(c), list(x)), list(init), list(xs),
                         length=length, reverse=reverse, unroll=unroll)
    return list(carry), list(ys)


def _scan_batch(body, nc, nx, args, bdims, *, length, reverse, unroll):
    size = batch_size(args, bdims)
    consts, kdims = args[nc + nx:], bdims[nc + nx:]
    batched, out = _carried(body.program, [d is not None for d in bdims[:nc]],
                            [d is not None for d in bdims[nc:]])
    y_batched = out[nc:]
    init = [_batch_at_front(a, d, size) if b else a for a, d, b in zip(args[:nc], bdims, batched)]
    xs = [x if d is None else fnp.moveaxis(x, d, 1)
          for x, d in zip(args[nc:nc + nx], bdims[nc:nc + nx])]
    in_dims = ([0 if b else None for b in batched]
               + [None if d is None else 0 for d in bdims[nc:nc + nx]] + list(kdims))

    def step(c, x):
        leaves, dims, _ = batch_subcall(body.run, c + x + list(consts), in_dims, size)
        leaves = [_batch_at_front(v, d, size) if b else v
                  for v, d, b in zip(leaves, dims, batched + y_batched)]
        return leaves[:nc], leaves[nc:]
    carry, ys = _scan(step, init, xs, length, reverse, unroll)
    return (tuple(carry + ys),
            tuple([0 if b else None for b in batched] + [1 if b else None for b in y_batched]))


def _scan_jvp(body, nc, nx, primals, tangents, *, length, reverse, unroll):
    carries, xs, consts = primals[:nc], primals[nc:nc + nx], primals[nc + nx:]
    has = [t is not None for t in tangents]
    moving, out = _carried(body.program, has[:nc], has[nc:], [inexact(c) for c in carries])
    ny = len(body.outputs) - nc
    y_moving = [r and inexact(v) for r, v in zip(out[nc:], body.outputs[nc:])]
    t_init = [_zeros(c) if t is None else t for c, t, m in zip(carries, tangents, moving) if m]
    t_xs = [t for t in tangents[nc:nc + nx] if t is not None]
    x_has = has[nc:nc + nx]
    t_consts = tangents[nc + nx:]

    def step(c, x):
        c, tc = c[:nc], iter(c[nc:])
        x, tx = x[:nx], iter(x[nx:])
        ts = ([next(tc) if mv else None for mv in moving]
              + [next(tx) if h else None for h in x_has] + list(t_consts))
        outs, t_outs = jvp(lambda *a: tuple(body.run(*a)), tuple(c + x + list(consts)),
                           tuple(ts))
        outs, t_outs = list(outs), list(t_outs)
        return (outs[:nc] + [t for t, mv in zip(t_outs[:nc], moving) if mv],
                outs[nc:] + [t for t, mv in zip(t_outs[nc:], y_moving) if mv])
    carry, ys = _scan(step, list(carries) + t_init, list(xs) + t_xs, length, reverse, unroll)
    t_carry, t_ys = iter(carry[nc:]), iter(ys[ny:])
    return (tuple(carry[:nc] + ys[:ny]),
            tuple([next(t_carry) if mv else None for mv in moving]
                  + [next(t_ys) if mv else None for mv in y_moving]))


class _Tape:
    """The reverse-mode tape of one traced step of a scan body, with its values replaced by
    where each comes from: a constant of the program, an operand the body reads (the same
    in every step), or the slice of a stacked residual (Note [loops under the transforms])."""

    def __init__(self, tape, nslots, out_slots, consts):
        const_ids = {id(k): i for i, k in enumerate(consts)}
        leaves, self.spec = optree.tree_flatten([(n.primals, n.out) for n in tape])
        self.nodes = [(n.op, n.params, n.in_slots, n.out_slot) for n in tape]
        self.nslots, self.out_slots = nslots, out_slots
        self.sources, self.residuals, seen = [], [], {}
        for leaf in leaves:
            if id(leaf) in const_ids:
                self.sources.append(("const", const_ids[id(leaf)]))
            elif isinstance(leaf, Tensor):
                if id(leaf) not in seen:
                    seen[id(leaf)] = len(self.residuals)
                    self.residuals.append(leaf)
                self.sources.append(("residual", seen[id(leaf)]))
            else:
                self.sources.append(("value", leaf))

    def backward(self, residuals, consts, seeds):
        """The cotangent of every slot, the tape's values read from `residuals` (this step's
        slices) and `consts`."""
        values = [residuals[i] if kind == "residual" else consts[i] if kind == "const" else i
                  for kind, i in self.sources]
        pairs = optree.tree_unflatten(self.spec, values)
        nodes = [_Node(op, params, tuple(primals), out, in_slots, out_slot)
                 for (op, params, in_slots, out_slot), (primals, out) in zip(self.nodes, pairs)]
        return backward(nodes, self.nslots, seeds)


def _scan_fwd(body, nc, nx, primals, *, length, reverse, unroll):
    """The scan, its ys followed by residuals for the backward scan: the values the reverse
    tape of each step keeps (when the step is traced as one body), else the carry entering
    each step (the backward then runs the step's forward again)."""
    consts = list(primals[nc + nx:])
    diff = [inexact(p) for p in primals]
    tapes = []

    def step(c, x):
        point = c + x + consts
        if not bodies.body_tracing():   # a loop recorded step by step: keep the carries
            tapes[:] = [None]
            outs = body.run(*point)
            return outs[:nc], outs[nc:] + c
        with ReverseInterpreter("grad") as interp:
            outs = body.run(*[interp.new_leaf(p) if d else p for p, d in zip(point, diff)])
        out_slots = [o.slot if type(o) is GradTensor and o._interpreter is interp else None
                     for o in outs]
        outs = [interp.unwrap(o) for o in outs]
        tape = _Tape(interp.tape, interp.nslots, out_slots, consts)
        interp.tape = None
        tapes[:] = [tape]
        return outs[:nc], outs[nc:] + tape.residuals
    carry, ys = _scan(step, primals[:nc], primals[nc:nc + nx], length, reverse, unroll)
    ny = len(body.outputs) - nc
    return tuple(carry + ys[:ny]), (tapes[0], ys[ny:])


def _scan_vjp(body, nc, nx, ct, primals, residuals, *, length, reverse, unroll,
              needed=None):
    tape, stacked = residuals
    carries, xs, consts = primals[:nc], primals[nc:nc + nx], list(primals[nc + nx:])
    diff = [inexact(p) for p in primals]
    needed = [True] * len(primals) if needed is None else needed
    # the carries' cotangents flow through every step; those of xs and of the values read
    # from outside are made only where reverse mode wants them (not for a data matrix)
    want = diff[:nc] + [d and n for d, n in zip(diff[nc:], needed[nc:])]
    dc, wx, wk = diff[:nc], want[nc:nc + nx], want[nc + nx:]
    outs = body.outputs
    dy = [inexact(v) for v in outs[nc:]]
    like = next((p for p in primals if hasattr(p, "shape")), None)
    ct_c = [_zeros(c) if g is None else g for c, g, d in zip(carries, ct[:nc], dc) if d]
    ct_ys = [fnp.zeros((length,) + v.shape, dtype=v.dtype, like=like) if g is None else g
             for v, g, d in zip(outs[nc:], ct[nc:], dy) if d]
    ct_k = [_zeros(k) for k, w in zip(consts, wk) if w]
    n_c, n_x, n_r = len(ct_c), sum(wx), len(stacked)
    out_diff = dc + dy

    def pullback(point, res, g_out):
        """The cotangents the step's inputs want, from those of its outputs."""
        if tape is None:    # the forward stacked the carries: run the step again under vjp
            def f(*d):
                values = body.run(*_merge(want, d, (p for p, k in zip(point, want) if not k)))
                return tuple(v for v, keep in zip(values, out_diff) if keep)
            return list(vjp(f, *[p for p, k in zip(point, want) if k])[1](tuple(g_out)))
        g_out = iter(g_out)
        seeds = [(slot, next(g_out)) for slot, keep in zip(tape.out_slots, out_diff) if keep]
        cts = tape.backward(res, consts, [(s, g) for s, g in seeds if s is not None])
        slots = iter(range(sum(diff)))   # the forward's input slots, in order
        return [_input_ct(cts, s, p) for s, p, w in
                ((next(slots) if d else None, p, w) for p, d, w in zip(point, diff, want)) if w]

    def step(c, x):
        g_c, g_k = c[:n_c], c[n_c:]
        res, x_i, g_y = x[:n_r], x[n_r:n_r + nx], x[n_r + nx:]
        c_i = res[:nc] if tape is None else carries   # (in a tape, only their types count)
        g = pullback(list(c_i) + list(x_i) + consts, res, g_c + g_y)
        g_c, g_x, g_k_i = g[:n_c], g[n_c:n_c + n_x], g[n_c + n_x:]
        return g_c + [a + b for a, b in zip(g_k, g_k_i)], g_x
    carry, g_xs = _scan(step, ct_c + ct_k, list(stacked) + list(xs) + ct_ys, length,
                        not reverse, unroll)
    return tuple(_merge(want, carry[:n_c] + g_xs + carry[n_c:], [None] * len(primals)))


def _input_ct(cts, slot, primal):
    """The cotangent of an input slot, fitted to its primal (zeros where none flowed)."""
    g = cts[slot]
    return _zeros(primal) if g is None else fit_cotangent(g, primal)


# -- while_loop -------------------------------------------------------------------------------

def while_rules(op, cond, body, nc, nk):
    """Attach vmap, jvp and vjp rules to a while_loop op with predicate program `cond` (reading
    nk values besides the carry) and `body`."""
    op.def_batch_rule(lambda args, bdims: _while_batch(cond, body, nc, nk, args, bdims))
    op.def_jvp(lambda primals, tangents: _while_jvp(cond, body, nc, nk, primals, tangents))
    op.def_rule("vjp_fwd", lambda *primals: _while_fwd(cond, body, nc, nk, primals))
    op.def_vjp(lambda ct, primals, res: _while_vjp(nc, nk, ct, primals, res))


# Note [reverse mode through while_loop]
# --------------------------------------
# JAX refuses reverse mode through a while_loop: the trip count is decided when the program
# runs, so there is no static stack of residuals to walk back. Under ft.jit the trace runs on
# the call's values, so the trip count is known when the program is recorded, and a guard can
# check it on every later call. The rule records
#   1. the loop, counting its iterations n (the primal result);
#   2. steps = loop_slots(n, bound): arange(bound), bound the smallest power of two at least
#      every example's n at trace time; a later call that needs more steps makes it longer,
#      a value-dependent shape, so that call traces again (and a new bound is chosen: bounds
#      only grow, a program is traced again at most log2(n) times);
#   3. the vjp of a scan over those steps whose step is the body where its index is below n and
#      the identity beyond (a select), so the scan's own rules (Note [loops under the
#      transforms]) stack the residuals and run the backward scan.
# The forward runs the body n + bound times (at most 3n); steps past an example's end run the
# body once more on its final carry and are discarded (their cotangents are zero; a body that
# overflows to inf there would make 0 * inf = NaN in a derivative). Inside a loop
# body being traced the values are one example's sample, not the call's, so there the rule
# refuses as JAX does, and lax.while_loop records the loop step by step when its predicate is
# known while tracing.


def _while_fwd(cond, body, nc, nk, primals):
    if bodies.inside_body():
        raise NotReversible(
            "while_loop under ft.jit: reverse mode (grad, vjp, jacrev) cannot go through a "
            "while_loop inside another compiled loop's body, whose trip count is decided when "
            "the program runs. Use fori_loop or scan with a static trip count, or call grad "
            "without ft.jit (eagerly, grad differentiates the iterations that ran)")
    carry, kc, kb = list(primals[:nc]), primals[nc:nc + nk], list(primals[nc + nk:])
    counted = _while(lambda c: cond.run(*c[:nc], *kc)[0],
                     lambda c: list(body.run(*c[:nc], *kb)) + [c[nc] + 1],
                     carry + [np.int64(0)])
    trips = counted[nc]
    steps = loop_slots(trips, bound=1 << max(bodies.concrete_max(trips) - 1, 0).bit_length())
    point = carry + kb
    diff = [inexact(p) for p in point]
    out_diff = [inexact(c) for c in carry]

    def run(*chosen):
        c0 = _merge(diff, chosen, (p for p, d in zip(point, diff) if not d))
        consts = c0[nc:]

        def step(c, k):   # branches.py's Note [branches and their derivatives]
            live = k[0] < trips
            new = body.run(*[guard(live, x) for x in c + consts])
            return [select(live, n, o) for n, o in zip(new, c)], []
        final, _ = _scan(step, c0[:nc], [steps], None, False, 1)
        return (tuple(f for f, d in zip(final, out_diff) if d),
                tuple(f for f, d in zip(final, out_diff) if not d))
    outs, pullback, aux = _vjp(run, tuple(p for p, d in zip(point, diff) if d), True, False)
    return tuple(_merge(out_diff, outs, aux)), (pullback, diff, out_diff)


def _while_vjp(nc, nk, ct, primals, res):
    pullback, diff, out_diff = res
    carry = primals[:nc]
    cts = tuple(_zeros(c) if g is None else g for c, g, d in zip(carry, ct, out_diff) if d)
    grads = pullback(cts)
    point_ct = _merge(diff, grads, [None] * len(diff))
    return tuple(point_ct[:nc] + [None] * nk + point_ct[nc:])


def _while(cond_fn, body_fn, init):
    return list(loops.while_loop(lambda c: cond_fn(list(c)), lambda c: body_fn(list(c)),
                               list(init)))


def _while_batch(cond, body, nc, nk, args, bdims):
    size = batch_size(args, bdims)
    carry, kc, kb = args[:nc], args[nc:nc + nk], args[nc + nk:]
    dc, dkc, dkb = bdims[:nc], bdims[nc:nc + nk], bdims[nc + nk:]
    batched, _ = _carried(body.program, [d is not None for d in dc], [d is not None for d in dkb])
    pred_batched = _reached(cond.program, batched + [d is not None for d in dkc])[0]
    if pred_batched:
        batched = [True] * nc
    init = [_batch_at_front(a, d, size) if b else a for a, d, b in zip(carry, dc, batched)]
    c_dims = [0 if b else None for b in batched]

    def run(program, c, consts, kdims):
        leaves, dims, _ = batch_subcall(program.run, c + list(consts), c_dims + list(kdims), size)
        return leaves, dims

    def step(c, consts=kb, kdims=dkb):
        leaves, dims = run(body, c, consts, kdims)
        return [_batch_at_front(v, d, size) if b else v for v, d, b in zip(leaves, dims, batched)]

    if not pred_batched:
        return (tuple(_while(lambda c: run(cond, c, kc, dkc)[0][0], step, init)),
                tuple(c_dims))

    def pred(c):
        (p,), (d,) = run(cond, c, kc, dkc)
        return _batch_at_front(p, d, size)

    # branches.py's Note [branches and their derivatives]: the carries and the values the body
    # reads are guarded per example, the latter batched for it (one copy per example)
    kb = [_batch_at_front(k, None, size) if d is None and needs_guard(k) else k
          for k, d in zip(kb, dkb)]
    dkb = [0 if d is None and needs_guard(k) else d for k, d in zip(kb, dkb)]

    def live_step(c):
        p = pred(c)

        def lane(x, d=0):
            return guard(_lanes(p, x, d), x) if d is not None else x
        new = step([lane(o) for o in c], [lane(k, d) for k, d in zip(kb, dkb)], dkb)
        return [select(_lanes(p, o, 0), n, o) for n, o in zip(new, c)]
    return tuple(_while(lambda c: fnp.any(pred(c)), live_step, init)), tuple(c_dims)


def _lanes(p, x, bdim):
    """The per-example flags p (size,) shaped to broadcast against x batched at bdim."""
    ndim = len(shape_of(x))
    return fnp.reshape(p, tuple(-1 if i == bdim else 1 for i in range(ndim)))


def _while_jvp(cond, body, nc, nk, primals, tangents):
    carry, kc, kb = primals[:nc], primals[nc:nc + nk], list(primals[nc + nk:])
    has = [t is not None for t in tangents]
    moving, _ = _carried(body.program, has[:nc], has[nc + nk:], [inexact(c) for c in carry])
    t_init = [_zeros(c) if t is None else t for c, t, m in zip(carry, tangents, moving) if m]
    t_kb = tangents[nc + nk:]

    def step(c):
        c, tc = c[:nc], iter(c[nc:])
        ts = [next(tc) if m else None for m in moving] + list(t_kb)
        outs, t_outs = jvp(lambda *a: tuple(body.run(*a)), tuple(c + kb), tuple(ts))
        return list(outs) + [t for t, m in zip(t_outs, moving) if m]
    out = _while(lambda c: cond.run(*c[:nc], *kc)[0], step, list(carry) + t_init)
    t_out = iter(out[nc:])
    return tuple(out[:nc]), tuple(next(t_out) if m else None for m in moving)


# -- checkpoint inside a loop body ------------------------------------------------------------

def checkpoint_rules(op, body):
    """Attach the rules of a checkpointed function recorded in a loop body (lax/lowering.py's
    checkpointed_call): reverse mode keeps only its operands and runs it again under vjp in the
    backward pass; vmap and jvp transform it as they would its ops."""
    def run(*xs):
        return tuple(body.run(*xs))

    op.def_rule("vjp_fwd", lambda *xs: (run(*xs), None))

    @op.def_vjp
    def _vjp(ct, primals, _):
        diff = [inexact(p) for p in primals]
        outs = [inexact(v) for v in body.outputs]

        def f(*d):
            values = run(*_merge(diff, d, (p for p, k in zip(primals, diff) if not k)))
            return tuple(v for v, keep in zip(values, outs) if keep)
        with recomputation():
            values, pull = vjp(f, *[p for p, k in zip(primals, diff) if k])
            g = iter(pull(tuple(_zeros(v) if c is None else c
                                for v, c in zip(values, (c for c, k in zip(ct, outs) if k)))))
        return tuple(next(g) if k else None for k in diff)

    op.def_jvp(lambda primals, tangents: jvp(run, tuple(primals), tuple(tangents)))

    @op.def_batch_rule
    def _batch(args, bdims):
        leaves, dims, _ = batch_subcall(run, args, bdims, batch_size(args, bdims))
        return tuple(leaves), tuple(dims)


lowering.RULES.update(scan=scan_rules, while_loop=while_rules, checkpoint=checkpoint_rules)
