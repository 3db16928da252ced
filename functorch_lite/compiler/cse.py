"""Common-subexpression elimination: an equation equal to an earlier one (same op, same
params, same inputs, same recomputation region) reuses the earlier outputs. Safe because ops
are pure. Constants are equal only when bitwise equal with equal type: arrays by identity,
scalars by type and bits (0.0 and -0.0 differ, so do 1 and 1.0 and True); params likewise.
Equations whose params cannot be made hashable are left alone. Equations of different regions
are never merged: a checkpointed segment replayed in the backward pass must not reuse the
forward pass's values, or the checkpoint would keep them alive (JAX's prevent_cse)."""
import numpy as np

from ._rewrite import substitute
from .ir import Var


def scalar_key(x):
    """A key equal for two scalars exactly when they are the same type and bits."""
    if isinstance(x, float):
        return type(x), x.hex()
    if isinstance(x, complex):
        return type(x), x.real.hex(), x.imag.hex()
    if isinstance(x, np.generic):
        return type(x), x.tobytes()
    return type(x), x


def _freeze(p):
    if isinstance(p, (list, tuple)):
        return type(p), tuple(_freeze(x) for x in p)
    if isinstance(p, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in p.items()))
    if isinstance(p, slice):
        return ("slice", p.start, p.stop, p.step)
    if isinstance(p, np.ndarray):
        raise TypeError("arrays in params are not compared")
    hash(p)
    return scalar_key(p)


def _key(eqn):
    try:
        params = _freeze(eqn.params)
    except TypeError:
        return None
    ins = tuple(("v", a.id) if isinstance(a, Var) else
                ("s",) + scalar_key(a.value) if isinstance(a.value, (bool, int, float, complex,
                                                                     np.generic))
                else ("c", id(a.value)) for a in eqn.ins)
    return eqn.op, params, ins, eqn.region


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
