"""The rules of the loop primitives (scan, while_loop) that ft.jit records under the transforms.

Note [loops under the transforms]
---------------------------------
Under ft.jit with a transform between the trace and a loop (`jit(grad(f))`, `jit(vmap(f))`),
jit/loops.py traces the loop's body once into a closed program (the carry, the slice of xs and
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
- vjp (scan only): the forward scan also stacks the carry that enters each step; the backward
  is a scan in the other direction whose step is the vjp of the body at that carry (the body's
  forward runs again there, as a checkpointed step would), carrying the carry's cotangent and
  the sum of the cotangents of the values the body read. A while_loop's trip count is known
  only when the program runs, so there is no stack to walk back: reverse mode refuses it, and
  lax.while_loop then records the loop step by step when its predicate is known while tracing.

Eagerly (no ft.jit) loops are Python loops and the transforms see every iteration; there is no
op. The loop rules group sums by iteration (a cotangent read in every step is summed over the
loop, then added to the rest), so a derivative through a loop under ft.jit agrees with the
eager one to rounding, not bit for bit; loops with no transform between ft.jit and them replay
the eager iterations exactly.
"""
import numpy as np

from .. import numpy as fnp
from ..jit.ir import Var
from ..rule_checks import shape_of
from .custom import _batch_at_front
from .forward import jvp
from .reverse import vjp
from .vmap import batch_subcall


class NotReversible(TypeError):
    """Reverse mode met a while_loop compiled by ft.jit (its trip count is decided per call)."""


def _inexact(x):
    dt = getattr(x, "dtype", None)
    if dt is None:
        return isinstance(x, (float, complex))
    return np.dtype(dt).kind in "fc"


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


def _batch_size(args, bdims):
    return next(shape_of(a)[d] for a, d in zip(args, bdims) if d is not None)


def _front(x, bdim, size):
    return _batch_at_front(x, bdim, size)


def _zeros(x):
    return fnp.zeros_like(x) if hasattr(x, "shape") else fnp.zeros_like(np.asarray(x))


def _merge(flags, chosen, others):
    """Leaves in order: from `chosen` where flags hold, else from `others` (both iterators)."""
    chosen, others = iter(chosen), iter(others)
    return [next(chosen) if f else next(others) for f in flags]


# -- scan -------------------------------------------------------------------------------------

def scan_rules(op, body, nc, nx):
    """Attach vmap, jvp and vjp rules to a scan op over `body` (jit/loops.py's _Body) with nc
    carry leaves and nx leaves of xs; the operands after them are the values the body reads."""
    op.def_batch_rule(lambda args, bdims, **p: _scan_batch(body, nc, nx, args, bdims, **p))
    op.def_jvp(lambda primals, tangents, **p: _scan_jvp(body, nc, nx, primals, tangents, **p))
    op.def_rule("vjp_fwd", lambda *primals, **p: _scan_fwd(body, nc, nx, primals, **p))
    op.def_vjp(lambda ct, primals, res, **p: _scan_vjp(body, nc, nx, ct, primals, res, **p))


def _scan(step, init, xs, length, reverse):
    from .. import lax
    carry, ys = lax.scan(lambda c, x: step(list(c), list(x)), list(init), list(xs),
                         length=length, reverse=reverse)
    return list(carry), list(ys)


def _scan_batch(body, nc, nx, args, bdims, *, length, reverse):
    size = _batch_size(args, bdims)
    consts, kdims = args[nc + nx:], bdims[nc + nx:]
    batched, out = _carried(body.program, [d is not None for d in bdims[:nc]],
                            [d is not None for d in bdims[nc:]])
    y_batched = out[nc:]
    init = [_front(a, d, size) if b else a for a, d, b in zip(args[:nc], bdims, batched)]
    xs = [x if d is None else fnp.moveaxis(x, d, 1)
          for x, d in zip(args[nc:nc + nx], bdims[nc:nc + nx])]
    in_dims = ([0 if b else None for b in batched]
               + [None if d is None else 0 for d in bdims[nc:nc + nx]] + list(kdims))

    def step(c, x):
        leaves, dims, _ = batch_subcall(body.run, c + x + list(consts), in_dims, size)
        leaves = [_front(v, d, size) if b else v
                  for v, d, b in zip(leaves, dims, batched + y_batched)]
        return leaves[:nc], leaves[nc:]
    carry, ys = _scan(step, init, xs, length, reverse)
    return (tuple(carry + ys),
            tuple([0 if b else None for b in batched] + [1 if b else None for b in y_batched]))


def _scan_jvp(body, nc, nx, primals, tangents, *, length, reverse):
    carries, xs, consts = primals[:nc], primals[nc:nc + nx], primals[nc + nx:]
    has = [t is not None for t in tangents]
    moving, out = _carried(body.program, has[:nc], has[nc:], [_inexact(c) for c in carries])
    ny = len(body.outputs) - nc
    y_moving = [r and _inexact(v) for r, v in zip(out[nc:], body.outputs[nc:])]
    t_init = [_zeros(c) if t is None else t for c, t, m in zip(carries, tangents, moving) if m]
    t_xs = [t for t in tangents[nc:nc + nx] if t is not None]
    x_has = has[nc:nc + nx]
    t_consts = tangents[nc + nx:]
    m = sum(moving)

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
    carry, ys = _scan(step, list(carries) + t_init, list(xs) + t_xs, length, reverse)
    t_carry, t_ys = iter(carry[nc:]), iter(ys[ny:])
    return (tuple(carry[:nc] + ys[:ny]),
            tuple([next(t_carry) if mv else None for mv in moving]
                  + [next(t_ys) if mv else None for mv in y_moving]))


def _scan_fwd(body, nc, nx, primals, *, length, reverse):
    """The scan, its ys followed by the stack of the carries entering each step (residuals)."""
    consts = list(primals[nc + nx:])

    def step(c, x):
        outs = body.run(*c, *x, *consts)
        return outs[:nc], outs[nc:] + c
    carry, ys = _scan(step, primals[:nc], primals[nc:nc + nx], length, reverse)
    ny = len(ys) - nc
    return tuple(carry + ys[:ny]), ys[ny:]


def _scan_vjp(body, nc, nx, ct, primals, stacked, *, length, reverse):
    carries, xs, consts = primals[:nc], primals[nc:nc + nx], list(primals[nc + nx:])
    diff = [_inexact(p) for p in primals]
    dc, dx, dk = diff[:nc], diff[nc:nc + nx], diff[nc + nx:]
    outs = body.outputs
    dy = [_inexact(v) for v in outs[nc:]]
    ct_c = [_zeros(c) if g is None else g for c, g, d in zip(carries, ct[:nc], dc) if d]
    like = next((p for p in primals if hasattr(p, "shape")), None)
    ct_ys = [fnp.zeros((length,) + v.shape, dtype=v.dtype, like=like) if g is None else g
             for v, g, d in zip(outs[nc:], ct[nc:], dy) if d]
    ct_k = [_zeros(k) for k, d in zip(consts, dk) if d]
    n_c, n_x = len(ct_c), sum(dx)

    def step(c, x):
        g_c, g_k = c[:n_c], c[n_c:]
        c_i, x_i, g_y = x[:nc], x[nc:nc + nx], x[nc + nx:]
        point = c_i + x_i + consts

        def f(*d):
            values = body.run(*_merge(diff, d, (p for p, keep in zip(point, diff) if not keep)))
            return tuple(v for v, keep in zip(values, dc + dy) if keep)
        _, pull = vjp(f, *[p for p, keep in zip(point, diff) if keep])
        g = list(pull(tuple(g_c + g_y)))
        g_c, g_x, g_k_i = g[:n_c], g[n_c:n_c + n_x], g[n_c + n_x:]
        return g_c + [a + b for a, b in zip(g_k, g_k_i)], g_x
    carry, g_xs = _scan(step, ct_c + ct_k, list(stacked) + list(xs) + ct_ys, length,
                        not reverse)
    return tuple(_merge(diff, carry[:n_c] + g_xs + carry[n_c:], [None] * len(primals)))


# -- while_loop -------------------------------------------------------------------------------

def while_rules(op, cond, body, nc, nk):
    """Attach vmap and jvp rules, and reverse mode's refusal, to a while_loop op with predicate
    program `cond` (reading nk values besides the carry) and `body`."""
    op.def_batch_rule(lambda args, bdims: _while_batch(cond, body, nc, nk, args, bdims))
    op.def_jvp(lambda primals, tangents: _while_jvp(cond, body, nc, nk, primals, tangents))
    op.def_rule("vjp_fwd", _not_reversible)
    op.def_vjp(_not_reversible)


def _not_reversible(*args, **params):
    raise NotReversible(
        "while_loop under ft.jit: reverse mode (grad, vjp, jacrev) cannot go through a "
        "while_loop whose trip count is decided when the program runs. Use fori_loop or scan "
        "with a static trip count, or call grad without ft.jit (eagerly, grad differentiates "
        "the iterations that ran)")


def _while(cond_fn, body_fn, init):
    from .. import lax
    return list(lax.while_loop(lambda c: cond_fn(list(c)), lambda c: body_fn(list(c)),
                               list(init)))


def _while_batch(cond, body, nc, nk, args, bdims):
    size = _batch_size(args, bdims)
    carry, kc, kb = args[:nc], args[nc:nc + nk], args[nc + nk:]
    dc, dkc, dkb = bdims[:nc], bdims[nc:nc + nk], bdims[nc + nk:]
    batched, _ = _carried(body.program, [d is not None for d in dc], [d is not None for d in dkb])
    pred_batched = _reached(cond.program, batched + [d is not None for d in dkc])[0]
    if pred_batched:
        batched = [True] * nc
    init = [_front(a, d, size) if b else a for a, d, b in zip(carry, dc, batched)]
    c_dims = [0 if b else None for b in batched]

    def run(program, c, consts, kdims):
        leaves, dims, _ = batch_subcall(program.run, c + list(consts), c_dims + list(kdims), size)
        return leaves, dims

    def step(c):
        leaves, dims = run(body, c, kb, dkb)
        return [_front(v, d, size) if b else v for v, d, b in zip(leaves, dims, batched)]

    if not pred_batched:
        return (tuple(_while(lambda c: run(cond, c, kc, dkc)[0][0], step, init)),
                tuple(c_dims))

    def pred(c):
        (p,), (d,) = run(cond, c, kc, dkc)
        return _front(p, d, size)

    def select(c):
        p, new = pred(c), step(c)
        return [fnp.where(fnp.reshape(p, (size,) + (1,) * (len(shape_of(n)) - 1)), n, o)
                for n, o in zip(new, c)]
    return tuple(_while(lambda c: fnp.any(pred(c)), select, init)), tuple(c_dims)


def _while_jvp(cond, body, nc, nk, primals, tangents):
    carry, kc, kb = primals[:nc], primals[nc:nc + nk], list(primals[nc + nk:])
    has = [t is not None for t in tangents]
    moving, _ = _carried(body.program, has[:nc], has[nc + nk:], [_inexact(c) for c in carry])
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
