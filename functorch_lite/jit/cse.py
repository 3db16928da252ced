"""Common-subexpression elimination: an equation equal to an earlier one (same op, same
params, same inputs) reuses the earlier outputs. Safe because ops are pure. Arrays compare by
identity, Python scalars by value; equations whose params cannot be made hashable are left alone."""
import numpy as np

from ._rewrite import substitute
from .ir import Var


def _freeze(p):
    if isinstance(p, (list, tuple)):
        return tuple(_freeze(x) for x in p)
    if isinstance(p, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in p.items()))
    if isinstance(p, slice):
        return ("slice", p.start, p.stop, p.step)
    if isinstance(p, np.ndarray):
        raise TypeError("arrays in params are not compared")
    hash(p)
    return p


def _key(eqn):
    try:
        params = _freeze(eqn.params)
    except TypeError:
        return None
    ins = tuple(("v", a.id) if isinstance(a, Var) else
                ("s", type(a.value), a.value) if isinstance(a.value, (bool, int, float, complex))
                else ("c", id(a.value)) for a in eqn.ins)
    return eqn.op, params, ins


def eliminate_common_subexpressions(program):
    seen, kept, replaced = {}, [], {}
    for eqn in program.eqns:
        if replaced:
            (eqn,), _ = substitute([eqn], [], replaced)
        key = _key(eqn)
        earlier = seen.get(key) if key is not None else None
        if earlier is None:
            if key is not None:
                seen[key] = eqn
            kept.append(eqn)
        else:
            for old, new in zip(eqn.outs, earlier.outs):
                replaced[old.id] = new
    _, outputs = substitute([], program.outputs, replaced)
    return program.replace(eqns=kept, outputs=outputs)
