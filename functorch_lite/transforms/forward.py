"""Forward mode: DualTensor, its interpreter, `jvp` and `linearize`.

A DualTensor pairs a primal value with a tangent of the same shape and dtype. The forward
interpreter unwraps its own level and applies the op's jvp rule (derivatives/jvp_*.py), which
computes with library ops on the values below, so rules are themselves transformable.

Note [symbolic zero tangents]
-----------------------------
An input that is not being differentiated has no tangent: it is not wrapped at all, so ops on it
alone never reach this interpreter and cost nothing extra. Inside a rule a tangent of None is a
symbolic zero; a rule returns None when the output tangent is zero and the interpreter then
returns the plain primal (a constant to this level). Non-differentiable ops (op.differentiable
False: comparisons, floor, argmax, ...) always give constants. Zeros are materialized only at
the boundary, when `jvp` returns.

Note [integer inputs and float0]
--------------------------------
As in JAX, integer and bool values have no tangent space. The tangent of an integer or bool
primal must be None or an array of dtype `float0` (the values are ignored), and an integer or
bool output gets a `float0` tangent of its shape. Any other tangent for an integer primal is a
TypeError naming its position.

Note [linearize records the linear part]
----------------------------------------
`linearize` runs jvp once with the tangents wrapped by a recording interpreter one level *below*
the forward interpreter. Everything a jvp rule computes from primals alone (cos(x) for sin, the
factorization for solve, ...) runs once, at once; every op that touches a tangent reaches the
recorder, which stores it with its other operands as constants (the primal residuals). The
returned `jvp_fn` replays only those recorded ops on new tangents: the primal computation is
never re-run. Replaying calls ops normally, so `jvp_fn` composes with vmap and grad.
"""
import numbers

import numpy as np
import optree

from ..backend import is_array
from ..interpreter import Interpreter
from ..tensor import Tensor, TransformTensor, check_usable
from ..derivatives import (  # noqa: F401  (registers the jvp rules)
    jvp_elementwise, jvp_reductions, jvp_shape, jvp_indexing, jvp_linalg, jvp_conv,
    jvp_pool, jvp_fft, jvp_special, jvp_scipy_linalg, jvp_eig)
from .. import numpy as fnp
from ._pytree import (check_function, check_output_leaf, conversion_hint, fresh_outputs,
                      private_copy, refuse_array_subclass, split_aux)

float0 = np.dtype([("float0", np.void, 0)])
"""The dtype of the tangent of an integer or bool value (as JAX's float0): it holds no data.

An integer or bool primal takes None or a float0 tangent in jvp, and an integer or bool output
gets a float0 tangent of its shape (Note [integer inputs and float0]).

Examples:
    >>> import numpy as np, functorch_lite as ft
    >>> out, t = ft.jvp(lambda n: n * 2, (np.array([1, 2]),), (None,))
    >>> out, t.dtype == ft.float0, t.shape
    (array([2, 4]), True, (2,))
"""


# ---------------------------------------------------------------------------------------------
# The forward interpreter
# ---------------------------------------------------------------------------------------------

class DualTensor(TransformTensor):
    """A primal value and its tangent (same shape and dtype) at one forward-mode level.

    What a function under jvp (or jacfwd) receives; `primal` (also `value`) and `tangent` hold
    the pair. Made by forward mode only.

    Args:
        primal: the value one level down.
        tangent: its tangent (None stands for a symbolic zero).
        interpreter: the forward-mode interpreter that owns it.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> seen = []
        >>> def f(x):
        ...     seen.append((type(x).__name__, x.primal, x.tangent))
        ...     return x
        >>> _ = ft.jvp(f, (np.array([1.0]),), (np.array([0.5]),))
        >>> seen
        [('DualTensor', array([1.]), array([0.5]))]
    """

    __slots__ = ("value", "tangent")

    def __init__(self, primal, tangent, interpreter):
        self.value = primal
        self.tangent = tangent
        self._interpreter = interpreter

    @property
    def primal(self):
        return self.value


class ForwardInterpreter(Interpreter):
    """Applies jvp rules. See Note [symbolic zero tangents]."""

    name = "jvp"

    def split(self, x):
        """(primal, tangent) of an argument; values of other levels are constants."""
        if isinstance(x, DualTensor) and x._interpreter is self:
            return x.primal, x.tangent
        return x, None

    def wrap(self, primal, tangent):
        return primal if tangent is None else DualTensor(primal, tangent, self)

    def process(self, op, args, params):
        primals, tangents, any_tangent = [], [], False
        for a in args:
            if isinstance(a, DualTensor) and a._interpreter is self:
                primals.append(a.value)
                t = a.tangent
                tangents.append(t)
                if t is not None:
                    any_tangent = True
            else:
                primals.append(a)
                tangents.append(None)
        if not any_tangent or not op.differentiable:
            return op(*primals, **params)
        primals, tangents = tuple(primals), tuple(tangents)
        out, t_out = op.rule("jvp")(primals, tangents, **params)
        if op.multiple_results:
            t_out = (None,) * len(out) if t_out is None else t_out
            return tuple(self.wrap(o, t) for o, t in zip(out, t_out))
        return self.wrap(out, t_out)

    def concretize(self, tensor, kind):
        if kind == "array":
            raise TypeError(
                "cannot convert a value under jvp (level %d) to a raw array: its tangent would "
                "be lost. Use functorch_lite.numpy functions on it, or convert outside the "
                "transform" % self.level)
        primal = tensor.primal
        if isinstance(primal, Tensor):
            return primal._concretize(kind)
        return {"bool": bool, "int": int, "float": float, "complex": complex,
                "index": lambda v: v.__index__()}[kind](primal)


# ---------------------------------------------------------------------------------------------
# Checking and pairing primals with tangents
# ---------------------------------------------------------------------------------------------

def _dtype(x):
    dt = getattr(x, "dtype", None)
    return np.dtype(dt) if dt is not None else np.asarray(x).dtype


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _is_value(x):
    refuse_array_subclass(x, "jvp")
    return isinstance(x, (Tensor, numbers.Number)) or is_array(x)


def _as_primal(x):
    """Arrays and wrappers pass; a Python float becomes a NumPy float64 scalar, which mixes
    with device arrays as CuPy allows (a 0-d NumPy array would not)."""
    if isinstance(x, (float, complex)) and not isinstance(x, bool):
        return np.asarray(x)[()]
    return x


def float0_zeros(x):
    """The float0 tangent of an integer or bool value x."""
    return np.zeros(_shape(x), dtype=float0)


def _where(transform, position, path):
    return f"{transform}: {position}" + "".join(f"[{p!r}]" for p in path)


def check_tangent(p, t, where):
    """Validate the tangent t of primal p; returns the tangent to use (None = symbolic zero).
    See Note [integer inputs and float0]."""
    if not _is_value(p):
        if t is not None:
            raise TypeError(f"{where}: the primal is a {type(p).__name__}, not an array, so its "
                            f"tangent must be None{conversion_hint(p)}")
        return None
    pdt = _dtype(p)
    if t is None:
        return None
    if pdt.kind not in "fc":
        if _is_value(t) and _dtype(t) == float0 and _shape(t) == _shape(p):
            return None
        raise TypeError(f"{where}: the primal has dtype {pdt}, which has no tangent space; "
                        f"pass None (or a float0 array of shape {_shape(p)}) as its tangent, as "
                        "in JAX")
    if isinstance(t, (float, complex, int)) and not isinstance(t, bool) and _shape(p) == ():
        return np.asarray(t, dtype=pdt)[()]       # a NumPy scalar, as _as_primal
    if not _is_value(t):
        raise TypeError(f"{where}: the tangent is a {type(t).__name__}, not an array")
    if _shape(t) != _shape(p):
        raise ValueError(f"{where}: the tangent has shape {_shape(t)} but the primal has shape "
                         f"{_shape(p)}; primals and tangents must match exactly")
    if _dtype(t) != pdt:
        raise TypeError(f"{where}: the tangent has dtype {_dtype(t)} but the primal has dtype "
                        f"{pdt}; primals and tangents must have equal dtypes")
    return t


_LEAF_SPEC = optree.tree_structure(0)


def pair_leaves(primals, tangents, transform):
    """Flatten primals and tangents (tuples of pytrees) together.

    Returns (primal_leaves, tangent_leaves, treedef); tangent leaves are checked and None where
    symbolic zero. A whole position's tangent may be None (no tangent for that argument)."""
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"{transform}: {name} must be a tuple of arguments (one entry per "
                            f"positional argument of f), got {type(value).__name__}; write "
                            f"{transform}(f, (x,), (t,))")
    if len(primals) != len(tangents):
        raise ValueError(f"{transform}: got {len(primals)} primals but {len(tangents)} "
                         "tangents; they must match one to one")
    p_leaves, t_leaves, treedefs = [], [], []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        if type(p) is np.ndarray:  # the usual case: the argument is one array
            if (type(t) is np.ndarray and t.shape == p.shape and t.dtype == p.dtype
                    and p.dtype.kind in "fc"):
                p_leaves.append(p)
                t_leaves.append(t)  # what check_tangent returns for it
                treedefs.append(_LEAF_SPEC)
                continue
            paths, leaves, treedef = [()], [p], _LEAF_SPEC
        else:
            paths, leaves, treedef = optree.tree_flatten_with_path(p)
        if t is None:
            ts = [None] * len(leaves)
        else:
            try:
                ts = treedef.flatten_up_to(t)
            except (ValueError, TypeError) as e:
                raise ValueError(f"{transform}: tangents[{i}] does not have the structure of "
                                 f"primals[{i}] ({treedef}): {e}") from None
        for path, leaf, tl in zip(paths, leaves, ts):
            leaf = _as_primal(leaf)
            p_leaves.append(leaf)
            t_leaves.append(check_tangent(leaf, tl, _where(transform, f"tangents[{i}]", path)))
        treedefs.append(treedef)
    return p_leaves, t_leaves, treedefs


def _unflatten_args(treedefs, leaves):
    out, k = [], 0
    for td in treedefs:
        n = td.num_leaves
        out.append(td.unflatten(leaves[k:k + n]))
        k += n
    return tuple(out)


def zero_tangent(x):
    """The materialized zero tangent of a constant output (which must be a value)."""
    check_output_leaf(x, "jvp")
    if _dtype(x).kind not in "fc":
        return float0_zeros(x)
    return fnp.zeros_like(x)


# ---------------------------------------------------------------------------------------------
# jvp
# ---------------------------------------------------------------------------------------------

def jvp(f, primals, tangents, has_aux=False):
    """Forward-mode derivative: `(f(*primals), J_f(primals) @ tangents)`.

    `primals` and `tangents` are tuples (one entry per positional argument of f) of pytrees with
    the same structure, shapes and dtypes. A tangent leaf (or a whole entry) may be None: a
    symbolic zero. Integer and bool primals take None or a float0 tangent and integer outputs get
    float0 tangents (Note [integer inputs and float0]). With has_aux, f returns (out, aux) and
    jvp returns (out, tangent_out, aux).

    Args:
        f: the function, called as f(*primals); its output is any pytree of arrays.
        primals: tuple of the positional arguments of f (the point).
        tangents: tuple with one tangent pytree per primal (the direction).
        has_aux: f returns (output, aux); aux is returned as the third element.

    Returns:
        (output, tangent_out), or (output, tangent_out, aux) with has_aux=True; tangent_out
        has the output's structure.

    Raises:
        ValueError: primals and tangents of different lengths, structures or shapes.
        TypeError: primals or tangents that are not tuples, a tangent whose dtype does not
            fit its primal, or a tangent for a non-array primal.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.jvp(lambda x: x ** 2, (np.array([1.0, 3.0]),), (np.array([1.0, 0.0]),))
        (array([1., 9.]), array([2., 0.]))
    """
    check_function(f, "jvp")
    p_leaves, t_leaves, treedefs = pair_leaves(primals, tangents, "jvp")
    check_usable(p_leaves)
    check_usable(t_leaves)
    with ForwardInterpreter() as interp:
        args = _unflatten_args(treedefs, [interp.wrap(p, t) for p, t in zip(p_leaves, t_leaves)])
        out, aux = split_aux(f(*args), has_aux, "jvp")
        out_leaves, out_def = optree.tree_flatten(out)
        pairs = [interp.split(o) for o in out_leaves]
        if has_aux:
            aux_leaves, aux_def = optree.tree_flatten(aux)
            aux_leaves = [interp.split(a)[0] for a in aux_leaves]
            check_usable(aux_leaves)
            aux = aux_def.unflatten(aux_leaves)
    p_out = [p for p, _ in pairs]
    t_out = [zero_tangent(p) if t is None else t for p, t in pairs]
    check_usable(p_out)  # Note [levels and escaped wrappers], 3
    check_usable(t_out)
    p_out, t_out, aux = fresh_outputs((p_out, t_out, aux), p_leaves + t_leaves)
    primal_out = out_def.unflatten(p_out)
    tangent_out = out_def.unflatten(t_out)
    if has_aux:
        return primal_out, tangent_out, aux
    return primal_out, tangent_out


# ---------------------------------------------------------------------------------------------
# linearize: a recording interpreter below the forward one
# ---------------------------------------------------------------------------------------------

class _Ref:
    """A recorded value: node `k` of the linear tape."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node


class TapeTensor(TransformTensor):
    """A tangent seen by the recorder: a placeholder value and its node on the tape."""

    __slots__ = ("value", "node")

    def __init__(self, value, node, interpreter):
        self.value = value
        self.node = node
        self._interpreter = interpreter


class LinearTapeInterpreter(Interpreter):
    """Records every op applied to tangents. See Note [linearize records the linear part]."""

    name = "linearize"

    def __init__(self):
        super().__init__()
        self.records = []      # (op, operands with _Ref placeholders, params, output nodes)
        self.n_nodes = 0

    def new_input(self, like):
        """A fresh tape input with a zero placeholder shaped like the primal `like`."""
        node = self.n_nodes
        self.n_nodes += 1
        return TapeTensor(fnp.zeros_like(like), node, self)

    def process(self, op, args, params):
        values, operands = [], []
        for a in args:
            if isinstance(a, TapeTensor) and a._interpreter is self:
                values.append(a.value)
                operands.append(_Ref(a.node))
            else:
                values.append(a)
                operands.append(a)
        out = op(*values, **params)
        outs = out if op.multiple_results else (out,)
        nodes = tuple(range(self.n_nodes, self.n_nodes + len(outs)))
        self.n_nodes += len(outs)
        self.records.append((op, tuple(operands), params, nodes))
        wrapped = tuple(TapeTensor(o, n, self) for o, n in zip(outs, nodes))
        return wrapped if op.multiple_results else wrapped[0]

    def concretize(self, tensor, kind):
        raise TypeError("a tangent under linearize has no concrete value (the tangent "
                        "computation is being recorded); jvp rules must not branch on tangents")

    def node_of(self, x):
        return x.node if isinstance(x, TapeTensor) and x._interpreter is self else None


def _prune(records, outputs):
    """The records needed to compute the `outputs` nodes, in order."""
    needed, kept = set(outputs), []
    for rec in reversed(records):
        if needed.intersection(rec[3]):
            kept.append(rec)
            needed.update(a.node for a in rec[1] if isinstance(a, _Ref))
    return kept[::-1]


class LinearizedJVP:
    """`jvp_fn(*tangents)` of linearize: replays the recorded tangent ops only."""

    def __init__(self, primals, p_leaves, treedefs, in_nodes, records, out_def, out_nodes,
                 out_primals):
        self._primals = primals
        self._p_leaves = p_leaves
        self._treedefs = treedefs
        self._in_nodes = in_nodes
        self._records = _prune(records, [n for n in out_nodes if n is not None])
        self._out_def = out_def
        self._out_nodes = out_nodes
        self._out_primals = out_primals

    def __call__(self, *tangents):
        if len(tangents) != len(self._primals):
            raise TypeError(f"linearize's jvp_fn takes {len(self._primals)} tangent(s), one per "
                            f"primal, got {len(tangents)}")
        _, t_leaves, _ = pair_leaves(self._primals, tangents, "linearize jvp_fn")
        check_usable(t_leaves)
        env = {}
        for node, p, t in zip(self._in_nodes, self._p_leaves, t_leaves):
            if node is not None:
                env[node] = fnp.zeros_like(p) if t is None else t
        for op, operands, params, nodes in self._records:
            out = op(*(env[a.node] if isinstance(a, _Ref) else a for a in operands), **params)
            for n, o in zip(nodes, out if op.multiple_results else (out,)):
                env[n] = o
        out = [zero_tangent(p) if n is None else env[n]
               for n, p in zip(self._out_nodes, self._out_primals)]
        check_usable(out)
        out = fresh_outputs(out, t_leaves + self._p_leaves)   # Note [fresh outputs]
        return self._out_def.unflatten(out)

    @property
    def num_ops(self):
        """How many ops one call replays (the primal computation is not among them)."""
        return len(self._records)


def linearize(f, *primals, has_aux=False):
    """`(f(*primals), jvp_fn)`: jvp_fn(*tangents) is the jvp at `primals` without re-running f.

    See Note [linearize records the linear part]. With has_aux, returns (out, jvp_fn, aux).
    As vjp, it works on private copies of the input arrays and returns copies of the output and
    aux arrays, so writing into any of them later leaves jvp_fn unchanged (Note [residual
    snapshots] in reverse.py).

    Args:
        f: the function, called as f(*primals); its output is any pytree of arrays.
        *primals: the point to linearize at, one pytree per positional argument of f.
        has_aux: f returns (output, aux); aux is returned as the third element.

    Returns:
        (output, jvp_fn), or (output, jvp_fn, aux) with has_aux=True. jvp_fn takes one tangent
        per primal and returns the output tangent.

    Raises:
        TypeError: has_aux=True and f does not return a pair; from jvp_fn, a wrong number of
            tangents, a tangent whose dtype does not fit its primal, or a non-None tangent for
            an integer or non-array primal.
        ValueError: from jvp_fn, a tangent whose structure or shape differs from its primal's.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> out, jvp_fn = ft.linearize(np.exp, np.array([0.0, 1.0]))
        >>> jvp_fn(np.array([1.0, 1.0]))
        array([1.        , 2.71828183])
    """
    check_function(f, "linearize")
    primals = tuple(primals)
    p_leaves, _, treedefs = pair_leaves(primals, (None,) * len(primals), "linearize")
    check_usable(p_leaves)
    p_leaves = [private_copy(p) for p in p_leaves]
    with LinearTapeInterpreter() as tape:
        tangents, in_nodes = [], []
        for p in p_leaves:
            if _is_value(p) and _dtype(p).kind in "fc":
                t = tape.new_input(p)
                tangents.append(t)
                in_nodes.append(t.node)
            else:
                tangents.append(None)
                in_nodes.append(None)
        result = jvp(f, _unflatten_args(treedefs, p_leaves),
                     _unflatten_args(treedefs, tangents), has_aux=has_aux)
        out, t_out = result[0], result[1]
        out_leaves, out_def = optree.tree_flatten(out)
        t_leaves = out_def.flatten_up_to(t_out)
        out_nodes = [tape.node_of(t) for t in t_leaves]
    jvp_fn = LinearizedJVP(primals, p_leaves, treedefs, in_nodes, tape.records, out_def,
                           out_nodes, out_leaves)
    out = out_def.unflatten([private_copy(o) for o in out_leaves])
    if has_aux:
        return out, jvp_fn, optree.tree_map(private_copy, result[2])
    return out, jvp_fn

