"""Algebraic simplification on structured constants, as a table of rewrites.

Each row is (op name, rewrite): the rewrite gets an equation and returns the atom its output
equals, or None. A row only fires when that atom has exactly the output's shape, dtype,
weakness and traced strides (a broadcast view standing for a fresh product would change the
layout, and with it the summation order of a reduction downstream), so broadcasting and type
promotion are never lost, and only where the identity is
exact in IEEE arithmetic for every input, infinities, NaN and signed zeros included: x * 1 and
x / 1 always; x + z only for a zero z that adds nothing (-0.0, or an integer zero: x + 0.0
turns -0.0 into 0.0); x - z only for +0.0 or an integer zero; a copy that keeps x's layout
(the program's outputs are fresh memory anyway). The constants these rows look
for are what the transforms feed in: identity matrices and one-hot bases (jacrev, jacfwd,
hessian), ones (the seed of grad), zeros (symbolic zeros made concrete).

Products with an identity or a diagonal matrix are not exact as rewrites (inf * 0 is NaN, and
zero entries sum with signs the BLAS decides), so they become guarded equations instead: the
cheap form (x itself, or a scaling by the diagonal) when every operand is finite and every
result entry nonzero, where it is bitwise the product, else the product as traced. Only real
floating products are guarded; a constant operand's part of the check is decided once, at
compile time (one with a zero or an infinity is never scaled: the product stays a matmul).
"""
import functools
import math

import numpy as np

from ..dispatch import Op
from ._rewrite import substitute
from .ir import Const, Eqn, Var


def _const_equal(atom, fill, sign=None):
    """Whether `atom` is a constant equal to `fill` everywhere (for floats, with a zero's sign
    bit `sign` when given; integer and bool zeros have no sign)."""
    if not isinstance(atom, Const):
        return False
    v = atom.value
    if isinstance(v, (bool, int, float, complex)):
        v = np.asarray(v)
    elif type(v) is not np.ndarray or v.size > 1 << 22:
        return False
    if not (v == fill).all():
        return False
    if sign is None or v.dtype.kind not in "fc":
        return True
    parts = (v.real, v.imag) if v.dtype.kind == "c" else (v,)
    return all(bool((np.signbit(p) == sign).all()) for p in parts)


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


def _negative_zeros(atom):
    return _const_equal(atom, 0, sign=True)


def _positive_zeros(atom):
    return _const_equal(atom, 0, sign=False)


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
    ("multiply", _either(_ones)),                # x * 1 -> x
    ("add", _either(_negative_zeros)),           # x + -0.0 -> x
    ("subtract", _other_if(1, _positive_zeros)),  # x - 0.0 -> x
    ("divide", _other_if(1, _ones)),             # x / 1 -> x
    ("true_divide", _other_if(1, _ones)),
    ("reshape", _reshape_to_same_shape),         # reshape to its own shape -> x
    ("getitem", _full_slices),                   # x[0:n] on n rows -> x
    ("copy", lambda eqn: eqn.ins[0]),            # a copy in x's own layout -> x
]
_TABLE = {}
for _name, _rule in RULES:
    _TABLE.setdefault(_name, []).append(_rule)


def _strides(atom):
    """The memory layout an atom has (as traced): a rewrite keeps it, since a reduction's
    summation order downstream follows it."""
    if isinstance(atom, Var):
        return atom.strides
    return getattr(atom.value, "strides", ())


def _diagonal_of(eqn):
    """(eye, v) when `eqn` is I * v (or v * I) for a vector v: the identity basis of
    jacfwd/jacrev scaled by a vector is diag(v)."""
    if eqn.op.name != "multiply" or len(eqn.ins) != 2:
        return None
    for eye, v in (eqn.ins, eqn.ins[::-1]):
        n = v.shape[-1] if v.shape else 0
        if (_is_identity(eye) and eye.shape == (n, n) and v.shape in ((n,), (1, n))
                and v.dtype == eqn.outs[0].dtype and not v.weak):
            return eye, v
    return None


def simplify(program):
    """Apply RULES, then turn products with an identity or a diagonal matrix into guarded
    equations (diag(v) @ X as v[:, None] * X where that is exact: an n^3 product becomes n^2
    work)."""
    kept, replaced, diagonals = [], {}, {}
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
            if (atom is not None and atom.shape == out.shape and atom.dtype == out.dtype
                    and atom.weak == out.weak and out.strides is not None
                    and _strides(atom) == out.strides):
                target = atom
                break
        if target is not None:
            replaced[out.id] = target
            continue
        found = _diagonal_of(eqn)
        if found is not None:
            diagonals[out.id] = found + (eqn, None)
        elif (eqn.op.name == "transpose" and isinstance(eqn.ins[0], Var)
              and eqn.ins[0].id in diagonals):
            diagonals[out.id] = diagonals[eqn.ins[0].id][:3] + (eqn,)
        elif eqn.op.name == "matmul" and len(eqn.ins) == 2:
            eqn = _guarded_product(eqn, diagonals)
        kept.append(eqn)
    _, outputs = substitute([], program.outputs, replaced)
    return program.replace(eqns=kept, outputs=outputs)


def _guarded_product(eqn, diagonals):
    """matmul(a, b) with an identity or diagonal operand as a guarded equation, else as is.
    Real floating products only: a complex product's zero real or imaginary part takes its
    sign from the zeros the BLAS adds, and integer products need no guard to be exact."""
    a, b = eqn.ins
    out = eqn.outs[0]
    if out.dtype.kind != "f":
        return eqn
    for k, (m, x) in enumerate(((a, b), (b, a))):
        if x.shape == out.shape and x.dtype == out.dtype and not x.weak and _is_identity(m):
            return Eqn(identity_product, {"left": k == 0}, [m, x], eqn.outs, eqn.region)
        if isinstance(m, Var) and m.id in diagonals and len(x.shape) in (1, 2):
            eye, v, product, transpose = diagonals[m.id]
            if v.shape[-1] != x.shape[0 if k == 0 else -1] or v.dtype != out.dtype:
                continue
            x_min = None
            if isinstance(x, Const):
                x_min = _smallest_magnitude(x)
                if x_min is None:     # the scaling is never exact: the product as traced
                    return eqn
            params = {"left": k == 0, "eye_first": product.ins[0] is eye,
                      "transpose": None if transpose is None else tuple(transpose.params.items()),
                      "x_min": x_min}
            return Eqn(diagonal_product, params, [eye, v, x], eqn.outs, eqn.region)
    return eqn


def _smallest_magnitude(x):
    """min |x| for a constant x, decided once at compile time, or None where no scaling of x
    is exact (an infinity, a NaN or a zero in x, or no entry). The check on each call then
    reads v only: O(n), not O(n^2)."""
    value = np.asarray(x.value)
    if not value.size:
        return None
    magnitude = np.abs(value)
    smallest = float(magnitude.min())
    return smallest if smallest > 0.0 and np.isfinite(magnitude).all() else None


@functools.lru_cache(maxsize=None)
def _underflow_margin(dtype):
    """A product of this magnitude or more is far from underflowing to a zero."""
    return 4 * float(np.finfo(dtype).tiny)


def _exact(xp, result, *operands):
    """Whether `result`, computed without the zeros of an identity or diagonal matrix, is
    bitwise the matrix product: finite operands (no inf * 0) and no zero entry (whose sign
    the BLAS's summation would decide)."""
    return all(bool(xp.isfinite(o).all()) for o in operands) and bool((result != 0).all())


def _identity_product_kernel(xp, eye, x, *, left):
    if _exact(xp, x, x):
        return xp.ascontiguousarray(x)     # the layout of matmul's result
    return xp.matmul(eye, x) if left else xp.matmul(x, eye)


def _diagonal_product_kernel(xp, eye, v, x, *, left, eye_first, transpose, x_min=None):
    if x_min is not None:   # a constant x, finite, min |x| = x_min: no v_i * x_ij underflows to
        a = xp.abs(v)       # a zero when min |v| * x_min is well above the least normal number
        exact = (float(a.min()) * x_min > _underflow_margin(v.dtype)
                 and float(a.max()) < math.inf)   # (a NaN fails the first test, an inf the 2nd)
        scaled = _scaled(v, x, left, eye.shape[0]) if exact else None
    else:
        scaled = _scaled(v, x, left, eye.shape[0])
        exact = _exact(xp, scaled, v, x)
    if exact:
        return xp.ascontiguousarray(scaled)   # the layout of matmul's result
    d = xp.multiply(eye, v) if eye_first else xp.multiply(v, eye)
    if transpose is not None:
        d = xp.transpose(d, **dict(transpose))
    return xp.matmul(d, x) if left else xp.matmul(x, d)


def _scaled(v, x, left, n):
    """diag(v) @ x (left) or x @ diag(v) as a scaling of x's rows or columns."""
    if not left:
        return x * v.reshape(n)
    return v.reshape(n, 1) * x if x.ndim == 2 else v.reshape(n) * x


identity_product = Op("identity_product", _identity_product_kernel)
"""I @ x (left) or x @ I: x itself where that is exact (made by simplify, never by tracing)."""
diagonal_product = Op("diagonal_product", _diagonal_product_kernel)
"""diag(v) @ x (left) or x @ diag(v), diag(v) = I * v (transposed by `transpose`'s params):
a scaling where that is exact (made by simplify, never by tracing)."""
