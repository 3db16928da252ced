"""Dead-code elimination: drop equations none of whose outputs is used.

Walks the equations backwards with the set of live Vars (JAX's dce_jaxpr in one loop). Safe
because every op is pure; a guarded equation (a value-dependent shape, checked on each call)
is kept, since the Python that read that shape while tracing may have baked it into the
program. This removes what the transforms compute and discard: the primal
outputs under grad, f's own output tangent under jacfwd, unused cotangents. A loop equation
that is kept loses the outputs and operands nobody needs (its kind's entry in LOOP_PRUNERS).
"""
from .ir import Var

#: Per loop kind, the equation without the outputs and operands nobody reads: function(eqn,
#: live Var ids) -> eqn. functorch_lite.lax registers scan's.
LOOP_PRUNERS = {}


def eliminate_dead_code(program):
    live = {a.id for a in program.outputs if isinstance(a, Var)}
    kept = []
    for eqn in reversed(program.eqns):
        if eqn.guard or any(v.id in live for v in eqn.outs):
            loop = getattr(eqn.op, "loop", None)
            if loop is not None and loop.kind in LOOP_PRUNERS:
                eqn = LOOP_PRUNERS[loop.kind](eqn, live)
            kept.append(eqn)
            live.update(a.id for a in eqn.ins if isinstance(a, Var))
    kept.reverse()
    return program.replace(eqns=kept)
