"""Algebraic simplification on structured constants, as a table of rewrites.

Each row is (op name, rewrite): the rewrite gets an equation and returns the atom its output
equals, or None. A row only fires when that atom has exactly the output's shape and dtype, so
broadcasting and type promotion are never lost. The constants these rows look for are what
the transforms feed in: identity matrices and one-hot bases (jacrev, jacfwd, hessian), ones
(the seed of grad), zeros (symbolic zeros made concrete).
"""
import numpy as np

from ._rewrite import substitute
from .ir import Const, Eqn, Var


def _const_equal(atom, fill):
    if not isinstance(atom, Const):
        return False
    v = atom.value
    if isinstance(v, (bool, int, float, complex)):
        return v == fill
    if type(v) is not np.ndarray or v.size > 1 << 22:
        return False
    return bool((v == fill).all())


def _is_identity(atom):
    if not isinstance(atom, Const) or type(atom.value) is not np.ndarray:
        return False
    v = atom.value
    return (v.ndim == 2 and v.shape[0] == v.shape[1] and v.size <= 1 << 24
            and np.array_equal(v, np.eye(v.shape[0], dtype=v.dtype)))


def _other_if(pred_index, pred):
    """Rewrite to the other operand of a binary op when operand `pred_index` satisfies pred."""
    def rewrite(eqn):
        if len(eqn.ins) == 2 and pred(eqn.ins[pred_index]):
            return eqn.ins[1 - pred_index]
        return None
    return rewrite


def _either(pred):
    left, right = _other_if(0, pred), _other_if(1, pred)
    return lambda eqn: left(eqn) or right(eqn)


def _ones(atom):
    return _const_equal(atom, 1)


def _zeros(atom):
    return _const_equal(atom, 0)


def _reshape_to_same_shape(eqn):
    return eqn.ins[0] if eqn.ins[0].shape == eqn.outs[0].shape else None


def _full_slices(eqn):
    """x[:, 0:n] and the like on an x with n columns: an index that selects everything."""
    index, x = eqn.params.get("index"), eqn.ins[0]
    if len(eqn.ins) != 1 or not isinstance(index, tuple) or index.count(Ellipsis) > 1:
        return None
    items = [i for i in index if i is not Ellipsis]
    if len(items) > len(x.shape):
        return None
    if Ellipsis in index:
        k = index.index(Ellipsis)
        dims = x.shape[:k] + x.shape[len(x.shape) - (len(items) - k):]
    else:
        dims = x.shape[:len(items)]
    for item, n in zip(items, dims):
        if not isinstance(item, slice) or item.indices(n) != (0, n, 1):
            return None
    return x


RULES = [
    ("matmul", _either(_is_identity)),           # I @ x -> x, x @ I -> x
    ("multiply", _either(_ones)),                # x * 1 -> x
    ("add", _either(_zeros)),                    # x + 0 -> x
    ("subtract", _other_if(1, _zeros)),          # x - 0 -> x
    ("divide", _other_if(1, _ones)),             # x / 1 -> x
    ("true_divide", _other_if(1, _ones)),
    ("reshape", _reshape_to_same_shape),         # reshape to its own shape -> x
    ("getitem", _full_slices),                   # x[0:n] on n rows -> x
]
_TABLE = {}
for _name, _rule in RULES:
    _TABLE.setdefault(_name, []).append(_rule)


def _diagonal_of(eqn):
    """v when `eqn` is I * v (or v * I) for a vector v: the identity basis of jacfwd/jacrev
    scaled by a vector is diag(v)."""
    if eqn.op.name != "multiply" or len(eqn.ins) != 2:
        return None
    for eye, v in (eqn.ins, eqn.ins[::-1]):
        n = v.shape[-1] if v.shape else 0
        if (_is_identity(eye) and eye.shape == (n, n) and v.shape in ((n,), (1, n))
                and v.dtype == eqn.outs[0].dtype):
            return v
    return None


def simplify(program):
    """Apply RULES, then turn products with a diagonal matrix into scalings (diag(v) @ X is
    v[:, None] * X: an n^3 product becomes n^2 work)."""
    kept, replaced, diagonals = [], {}, {}
    next_id = 1 + max([v.id for v in program.inputs] +
                      [v.id for e in program.eqns for v in e.outs], default=0)
    for eqn in program.eqns:
        if replaced:
            (eqn,), _ = substitute([eqn], [], replaced)
        if not eqn.outs:  # a multiple-results op with no results (unstack of an empty axis)
            kept.append(eqn)
            continue
        out = eqn.outs[0]
        target = None
        for rule in _TABLE.get(eqn.op.name, ()):
            atom = rule(eqn)
            if atom is not None and atom.shape == out.shape and atom.dtype == out.dtype:
                target = atom
                break
        if target is not None:
            replaced[out.id] = target
            continue
        v = _diagonal_of(eqn)
        if v is None and eqn.op.name == "transpose" and isinstance(eqn.ins[0], Var):
            v = diagonals.get(eqn.ins[0].id)  # a diagonal matrix is its own transpose
        if v is not None:
            diagonals[out.id] = v
        elif eqn.op.name == "matmul" and any(isinstance(a, Var) and a.id in diagonals
                                             for a in eqn.ins):
            scaled, next_id = _scale_by_diagonal(eqn, diagonals, next_id)
            if scaled:
                kept.extend(scaled)
                continue
        kept.append(eqn)
    _, outputs = substitute([], program.outputs, replaced)
    return program.replace(eqns=kept, outputs=outputs)


def _scale_by_diagonal(eqn, diagonals, next_id):
    """diag(v) @ X -> reshape(v, (n, 1)) * X;  X @ diag(v) -> X * v (same shape and dtype)."""
    from ..ops import BUILTIN_OPS as ops
    a, b = eqn.ins
    out = eqn.outs[0]
    if isinstance(a, Var) and a.id in diagonals and len(b.shape) in (1, 2):
        v = diagonals[a.id]
        if len(b.shape) == 1:
            if v.shape != b.shape:
                return None, next_id
            return [Eqn(ops["multiply"], {}, [v, b], [out])], next_id
        column = Var(next_id, (v.shape[-1], 1), v.dtype)
        return [Eqn(ops["reshape"], {"shape": column.shape}, [v], [column]),
                Eqn(ops["multiply"], {}, [column, b], [out])], next_id + 1
    if isinstance(b, Var) and b.id in diagonals and len(a.shape) in (1, 2):
        return [Eqn(ops["multiply"], {}, [a, diagonals[b.id]], [out])], next_id
    return None, next_id
