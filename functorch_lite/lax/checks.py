"""What lax checks of its arguments, as JAX does: predicates (looked at through the wrappers,
down to the raw array), and the pytree structure, shapes, dtypes and weak typing of carries and
branch outputs (a mismatch is a TypeError naming the leaf)."""
import numbers

import numpy as np
import optree

from ..compiler.trace import TraceTensor
from ..tensor import TransformTensor
from ..transforms._pytree import as_plain
from ..transforms.vmap import BatchedTensor


def _inspect(p):
    """(kind, bottom) of a predicate or index. Note [control flow under the transforms] in loops.py.

    kind "value": one value for every example, `bottom` the raw value; "batched": one value per
    example of a running vmap, `bottom` the raw array holding every example's; "traced": known
    only when an ft.jit program runs."""
    x, batched = p, False
    while isinstance(x, TransformTensor):
        x._interpreter.check_alive(x)
        if type(x) is TraceTensor:
            return "traced", None
        if type(x) is BatchedTensor and x.bdim is not None:
            batched = True
        x = x.value
    return ("batched" if batched else "value"), x


def _scalar_shape(x):
    return tuple(getattr(x, "shape", np.shape(x)))


_KIND_NAMES = {"b": "boolean", "iu": "integer", "biufc": "bool or number"}


def _check_predicate(p, what, role, kinds):
    """p must be a scalar whose dtype kind is in `kinds` (JAX's checks on pred and index)."""
    shape = _scalar_shape(p)
    if shape != ():
        raise TypeError(f"{what}: {role} must be a scalar, got a value of shape {shape}")
    dt = _dtype(p)
    if dt is None or dt.kind not in kinds:
        raise TypeError(f"{what}: {role} must be a scalar of kind {_KIND_NAMES[kinds]}, got "
                        f"{dt if dt is not None else type(p).__name__}")


# -- avals: shape, dtype and weak typing of a leaf ---------------------------------------------

_PYTHON_KINDS = {bool: "b", int: "iu", float: "f", complex: "c"}


def _dtype(x):
    if isinstance(x, bool):
        return np.dtype(bool)
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        return np.asarray(x).dtype
    dt = getattr(x, "dtype", None)
    return np.dtype(dt) if dt is not None else None


def _python_number(x):
    """The Python number a leaf is or stands for (weakly typed), or None: a Python scalar, or
    under ft.jit a weak traced value (a jitted function's Python-number argument, which its
    eager call gets as the number itself; vmap's unbatched wrapper of one too, where eager vmap
    passes the number as it is)."""
    while type(x) is BatchedTensor and x.bdim is None:
        x = x.value
    if type(x) is TraceTensor and x.var.weak:
        x = x.value
    return x if type(x) in _PYTHON_KINDS else None


def _weak_kinds(x):
    """The dtype kinds a Python scalar leaf matches (weak typing), or None for an array."""
    number = _python_number(x)
    return None if number is None else _PYTHON_KINDS[type(number)]


def _type_name(x):
    shape = ",".join(str(d) for d in _scalar_shape(x))
    if _weak_kinds(x) is not None:
        return f"{type(_python_number(x)).__name__} (a Python scalar)"
    return f"{_dtype(x)}[{shape}]"


def _mismatch(a, b):
    """Why leaf b cannot stand for leaf a ("the shapes do not match", ...), or None."""
    if _scalar_shape(a) != _scalar_shape(b):
        return "the shapes do not match"
    wa, wb = _weak_kinds(a), _weak_kinds(b)
    da, db = _dtype(a), _dtype(b)
    if da is None or db is None:
        return None if da == db else "one of them is not an array"
    if wa is not None or wb is not None:
        kinds = wa if wa is not None else wb
        other = db if wa is not None else da
        return None if other.kind in kinds else "the dtypes do not match"
    return None if da == db else "the dtypes do not match"


def _check_same_types(what, first, second, names):
    """`second` must have the pytree structure, shapes and dtypes of `first`; `names` =
    (the role of first, the role of second, the name of the tree's root)."""
    in_role, out_role, root = names
    paths, leaves, spec = optree.tree_flatten_with_path(first)
    out_spec = optree.tree_structure(second)
    if out_spec != spec:
        raise TypeError(f"{what}: the {out_role} must have the pytree structure of the "
                        f"{in_role}; the {in_role} is {spec} but the {out_role} is {out_spec}")
    for path, a, b in zip(paths, leaves, optree.tree_leaves(second)):
        problem = _mismatch(a, b)
        if problem is not None:
            where = root + "".join(f"[{p!r}]" for p in path)
            raise TypeError(f"{what}: the {in_role} component {where} has type {_type_name(a)} "
                            f"but the corresponding {out_role} component has type "
                            f"{_type_name(b)}, so {problem}")


def _check_carry(what, init, out):
    _check_same_types(what, init, out, ("input carry", "output carry", "carry"))


def _arrays(tree):
    """`tree` with NumPy scalars (what NumPy gives for 0-d results) as 0-d arrays, as JAX and
    the transforms return them (also the loops ft.jit compiles: Note [output types] in
    compiler/trace.py)."""
    return optree.tree_map(as_plain, tree)
