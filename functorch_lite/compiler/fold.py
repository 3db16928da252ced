"""Constant folding: an equation whose inputs are all constants runs once, at compile time.

Tracing already leaves creation ops (`zeros`, `eye`, the one-hot bases of jacrev/jacfwd) out of
the program: they take no traced operand, so they run eagerly and enter it as constants. What
is left to fold appears after other passes turn Vars into constants (`simplify`). Safe because
ops are pure and constants are fixed at trace time (Note [captured constants] in ir.py): the
same constants give the same result on every call. A guarded equation (a value-dependent
shape) is left in place: it is what checks the shape on each call.
"""
from ._rewrite import substitute
from .ir import Const


def fold_constants(program):
    kept, replaced = [], {}
    for eqn in program.eqns:
        if replaced:
            (eqn,), _ = substitute([eqn], [], replaced)
        if eqn.ins and not eqn.guard and all(isinstance(a, Const) for a in eqn.ins):
            out = eqn.op.impl(*(a.value for a in eqn.ins), **eqn.params)
            outs = out if eqn.op.multiple_results else (out,)
            for v, o in zip(eqn.outs, outs):
                replaced[v.id] = Const(o.item() if v.weak else o)
        else:
            kept.append(eqn)
    _, outputs = substitute([], program.outputs, replaced)
    return program.replace(eqns=kept, outputs=outputs)
