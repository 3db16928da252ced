"""The XLA backend's loops: each loop equation of ft.jit (lowering.py) as one jax.lax loop.

Note [XLA loops]
----------------
A scan equation lowers to `jax.lax.scan`, a fori_loop to `jax.lax.fori_loop` (its index an
int64 0-d value; the NumPy kernel passes a Python int, of that dtype when promoted) and a
while_loop to `jax.lax.while_loop`,
so the compiled program holds one XLA while loop whatever the trip count. Their bodies are the
loop's body program, optimized as the NumPy backend's is, lowered by the same per-equation
lowering as the whole program (xla.lower_program): nested loops nest, and an op that runs on
the host inside a body is a host callback inside the loop. The values the body captured from
the enclosing program are closed over, not carried. A jax.lax loop needs a carry of fixed types:
the carry enters cast to the dtypes its body was traced with and each step's carry is cast to
them again (a Python number in the carry is a weak Var of its default dtype; each equation's
result is cast to the dtype NumPy's promotion gave it when traced).

A lowering inside a body may flag a call (`ctx.check`: an index out of range, which the NumPy
backend raises on; a guard: a value-dependent shape that changed, which traces again). Such a
flag cannot leave the loop on its own, so the loop carries a (check, guard) pair, OR-ed with
the flags of every program run inside it (body and predicate), and the loop's final pair is
reported to the enclosing context: the call is then re-run on NumPy or traced again exactly as
for a flag outside a loop, and the loop's garbage results are never seen. A while_loop stops as
soon as a flag is set, since the flagged values (zeros from a stale host call, a clamped index)
could keep its predicate true forever. The pair is reported only for the kinds of flag some
program inside the loop raises, so a loop without any adds nothing to the call.
"""
import functools

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..compiler.xla import lower_program, native


def lower_loop(ctx, eqn, ins):
    """The loop equation's results (carry leaves, then scan's stacked ys) as JAX values."""
    return _LOWERINGS[eqn.op.loop.kind](ctx, eqn, ins)


def _scan(ctx, eqn, ins):
    loop = eqn.op.loop
    nc, nx = loop.nc, loop.nx
    carry_in = ctx.program_of(loop.body).inputs[:nc]
    captured = ins[nc + nx:]
    flags = _Flags(ctx)

    def step(state, xs):
        carry, f = state
        outs, f = flags.run(loop.body, [*carry, *xs, *captured], f)
        return (_cast(outs[:nc], carry_in), f), _cast(outs[nc:], eqn.outs[nc:])
    (carry, f), ys = lax.scan(step, (_cast(ins[:nc], carry_in), flags.initial),
                              list(ins[nc:nc + nx]), length=eqn.params["length"],
                              reverse=eqn.params["reverse"],
                              unroll=eqn.params.get("unroll", 1))
    flags.report(f)
    return (*carry, *ys)


def _fori_loop(ctx, eqn, ins):
    loop = eqn.op.loop
    nc = loop.nc
    index, *carry_in = ctx.program_of(loop.body).inputs[:1 + nc]
    captured = ins[nc:]
    flags = _Flags(ctx)

    def step(i, state):
        carry, f = state
        outs, f = flags.run(loop.body, [jnp.asarray(i, native(index.dtype)), *carry, *captured], f)
        return _cast(outs, carry_in), f
    carry, f = lax.fori_loop(np.int64(eqn.params["lower"]), np.int64(eqn.params["upper"]),
                             step, (_cast(ins[:nc], carry_in), flags.initial),
                             unroll=eqn.params.get("unroll", 1))
    flags.report(f)
    return tuple(carry)


def _while_loop(ctx, eqn, ins):
    """The predicate runs once before the loop and again after each step, inside it, so its
    flags are carried like the body's (lax.while_loop's cond_fun returns the predicate only)."""
    loop = eqn.op.loop
    nc = loop.nc
    carry_in = ctx.program_of(loop.body).inputs[:nc]
    nk = len(ctx.program_of(loop.cond).inputs) - nc
    kc, kb = ins[nc:nc + nk], ins[nc + nk:]
    flags = _Flags(ctx)

    def test(carry, f):
        outs, f = flags.run(loop.cond, [*carry, *kc], f)
        return jnp.asarray(outs[0], bool), f

    def step(state):
        carry, _, f = state
        outs, f = flags.run(loop.body, [*carry, *kb], f)
        carry = _cast(outs, carry_in)
        return (carry, *test(carry, f))

    def going(state):
        _, pred, (check, guard) = state
        return pred & ~(check | guard)   # Note [XLA loops]: a flagged call stops here
    carry = _cast(ins[:nc], carry_in)
    carry, _, f = lax.while_loop(going, step, (carry, *test(carry, flags.initial)))
    flags.report(f)
    return tuple(carry)


def _switch(ctx, eqn, ins):
    """jax.lax.switch over the branches' programs (lowering.py's Note [compiled branches]).
    A branch left untraced gives zeros and raises the guard, so the call traces again; the
    flags the branches raise are reported as a loop's are."""
    loop = eqn.op.loop
    n = loop.nc
    index, operands, rest = ins[0], list(ins[1:n + 1]), list(ins[n + 1:])
    flags, captured = _Flags(ctx), []
    for body in loop.branches:
        k = len(ctx.program_of(body).inputs) - n if body is not None else 0
        captured.append(rest[:k])
        rest = rest[k:]
    zeros = [jnp.zeros(v.shape, v.dtype) for v in eqn.outs]

    def branch(body, extra):
        def run(ops):
            if body is None:
                return _cast(zeros, eqn.outs), (flags.initial[0], jnp.ones((), bool))
            outs, f = flags.run(body, [*ops, *extra], flags.initial)
            return _cast(outs, eqn.outs), f
        return run
    if any(b is None for b in loop.branches):
        flags.raised[1] = True
    outs, f = lax.switch(jnp.asarray(index, jnp.int32),
                         [branch(b, c) for b, c in zip(loop.branches, captured)], operands)
    flags.report(f)
    return tuple(outs)


_LOWERINGS = {"scan": _scan, "fori_loop": _fori_loop, "while_loop": _while_loop,
              "switch": _switch}


def _cast(values, atoms):
    """The values as JAX arrays of the atoms' dtypes (a jax.lax loop's carry keeps its types)."""
    return [jnp.asarray(v, native(a.dtype)) for v, a in zip(values, atoms)]


class _Flags:
    """The (check, guard) pair one loop carries (Note [XLA loops])."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.raised = [False, False]   # whether a program inside raises checks, guards
        self.initial = (jnp.zeros((), bool), jnp.zeros((), bool))

    def run(self, body, values, pair):
        """The body's outputs on values, and the pair OR-ed with the flags it raises."""
        inner = self.ctx.nested()
        outs = lower_program(self.ctx.program_of(body), values, inner)
        pair = list(pair)
        for k, raised in enumerate((inner.checks, inner.guards)):
            if raised:
                self.raised[k] = True
                pair[k] = functools.reduce(jnp.logical_or, [jnp.any(r) for r in raised],
                                           pair[k])
        return outs, tuple(pair)

    def report(self, pair):
        """Hand the loop's final flags to the enclosing context."""
        if self.raised[0]:
            self.ctx.check(pair[0])
        if self.raised[1]:
            self.ctx.guards.append(pair[1])
