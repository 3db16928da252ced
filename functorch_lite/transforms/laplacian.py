"""The forward Laplacian: `laplacian`, `forward_laplacian` and their interpreter.

trace(hessian(f)) builds the whole d x d Hessian (d Hessian-vector products) to keep its
diagonal. The forward Laplacian (Li et al., 2024) instead pushes, in one forward pass, each
value y with its first derivatives along the d input directions and a single *collapsed*
second-order term, sum_i w_i D^2y[v_i, v_i] (Dangel et al., 2025, "collapsing Taylor mode").
That works because the order-2 Taylor coefficient of every op is linear in the inputs'
order-2 coefficients and quadratic in their order-1 ones, so the sum over directions can be
taken as the values flow instead of at the end.

Note [collapsed rules from jet rules]
-------------------------------------
An op's collapsed rule (derivatives/laplacian_rules.py) is a fast path. Any other op gets one
from its jet rule at order 2: with x(t) = x_0 + v t the order-2 coefficient is
y_2 = D^2y[v, v] / 2, so the directions' terms are the jet rule under vmap over the
directions, summed with the weights; the linear part (the inputs' own collapsed terms) is the
jvp rule applied to them. So every op with a jet rule, i.e. every op with a jvp rule
(Note [Taylor rules from jvp rules] in taylor.py), works here too.
"""
import numbers

import numpy as np
import optree

from ..interpreter import Interpreter
from ..tensor import Tensor, TransformTensor, check_usable
from ..derivatives import laplacian_rules  # noqa: F401  (registers the collapsed rules)
from ..derivatives.jvp_helpers import add_tangents, fit
from .. import numpy as fnp
from .. import random as frandom
from ._pytree import check_function, fresh_outputs, normalize_argnums
from .forward import _as_primal, _dtype
from .taylor import JetRuleError, apply_jet_rule
from .vmap import vmap


class LaplacianTensor(TransformTensor):
    """A value, its derivatives along the directions and its collapsed second-order term.

    What a function under `laplacian` receives: `jac` has shape (d,) + value's shape (the d
    directional derivatives), `lap` the value's shape (sum_i w_i D^2 value[v_i, v_i]); None
    stands for zero.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> seen = []
        >>> def f(x):
        ...     y = x ** 2
        ...     seen.append((y.jac.tolist(), y.lap.tolist()))
        ...     return y.sum()
        >>> _ = ft.laplacian(f)(np.array([1.0, 3.0]))
        >>> seen    # jac[i] = d(x**2)/dx_i, lap = sum_i d^2(x**2)/dx_i^2
        [([[2.0, 0.0], [0.0, 6.0]], [2.0, 2.0])]
    """

    __slots__ = ("value", "jac", "lap")

    def __init__(self, value, jac, lap, interpreter):
        self.value = value
        self.jac = jac
        self.lap = lap
        self._interpreter = interpreter

    @property
    def primal(self):
        return self.value


class LaplacianInterpreter(Interpreter):
    """Applies collapsed rules. See Note [collapsed rules from jet rules]."""

    name = "laplacian"

    def __init__(self, weights):
        super().__init__()
        self.weights = weights

    def split(self, x):
        if isinstance(x, LaplacianTensor) and x._interpreter is self:
            return x.value, x.jac, x.lap
        return x, None, None

    def wrap(self, value, jac, lap):
        if jac is None and lap is None:
            return value
        return LaplacianTensor(value, jac, lap, self)

    def process(self, op, args, params):
        primals, jacs, laps, carried = [], [], [], False
        for a in args:
            if isinstance(a, LaplacianTensor) and a._interpreter is self:
                primals.append(a.value)
                jacs.append(a.jac)
                laps.append(a.lap)
                carried = True
            else:
                primals.append(a)
                jacs.append(None)
                laps.append(None)
        if not carried or not op.differentiable:
            return op(*primals, **params)
        primals, jacs, laps = tuple(primals), tuple(jacs), tuple(laps)
        rule = op.rules.get("laplacian")
        result = NotImplemented if rule is None else rule(primals, jacs, laps, self.weights,
                                                          **params)
        if result is NotImplemented:
            result = collapsed_from_jet(op, primals, jacs, laps, self.weights, params)
        out, jac, lap = result
        if op.multiple_results:
            jac = (None,) * len(out) if jac is None else jac
            lap = (None,) * len(out) if lap is None else lap
            return tuple(self.wrap(*t) for t in zip(out, jac, lap))
        return self.wrap(out, jac, lap)

    def concretize(self, tensor, kind):
        if kind == "array":
            raise TypeError(
                "cannot convert a value under laplacian (level %d) to a raw array: its "
                "derivatives would be lost. Use functorch_lite.numpy functions on it, or "
                "convert outside the transform" % self.level)
        primal = tensor.primal
        if isinstance(primal, Tensor):
            return primal._concretize(kind)
        return {"bool": bool, "int": int, "float": float, "complex": complex,
                "index": lambda v: v.__index__()}[kind](primal)


def _direction_sum(q, weights):
    if weights is None:
        return fnp.sum(q, axis=0)
    return fnp.tensordot(weights, q, axes=1)


def collapsed_from_jet(op, primals, jacs, laps, weights, params):
    """Note [collapsed rules from jet rules]."""
    moving = [i for i, j in enumerate(jacs) if j is not None]
    out = op(*primals, **params)
    outs = out if op.multiple_results else (out,)
    inexact = [_dtype(o).kind in "fc" for o in outs]
    parts_j = [None] * len(outs)
    parts_l = [[] for _ in outs]

    def along(*vs):
        series = [None] * len(primals)
        for i, v in zip(moving, vs):
            series[i] = (v, None)
        o, s = apply_jet_rule(op, primals, tuple(series), params)
        s = s if op.multiple_results else (s,)
        os = o if op.multiple_results else (o,)
        return tuple(((fnp.zeros_like(oo), fnp.zeros_like(oo)) if ss is None else
                      tuple(fnp.zeros_like(oo) if c is None else c for c in ss))
                     if ok else None
                     for oo, ss, ok in zip(os, s, inexact))

    try:
        if moving:
            per_out = vmap(along)(*(jacs[i] for i in moving))
            for k, pair in enumerate(per_out):
                if pair is not None:
                    parts_j[k] = pair[0]
                    parts_l[k].append(fnp.multiply(_direction_sum(pair[1], weights), 2.0))
        if any(l is not None for l in laps):
            _, t = op.rule("jvp")(primals, laps, **params)
            ts = t if op.multiple_results else (t,)
            for k, tk in enumerate(ts or (None,) * len(outs)):
                if tk is not None and inexact[k]:
                    parts_l[k].append(tk)
    except (TypeError, NotImplementedError) as e:
        if isinstance(e, JetRuleError):
            raise
        raise JetRuleError(op.name, f"op {op.name!r} has no laplacian rule, and deriving one "
                           f"from its jet rule failed ({type(e).__name__}: {e})") from e
    lap = [fit(add_tangents(*p), o) if ok else None for p, o, ok in zip(parts_l, outs, inexact)]
    jac = [j if ok else None for j, ok in zip(parts_j, inexact)]
    if op.multiple_results:
        return out, tuple(jac), tuple(lap)
    return out, jac[0], lap[0]


# ---------------------------------------------------------------------------------------------
# The user-facing operators
# ---------------------------------------------------------------------------------------------

def _directions(size, dtype, weights, estimator, key, samples, transform):
    """(V, w, scale): rows of V are the directions, w their weights (None: ones), and the
    collapsed term is multiplied by `scale` at the end."""
    if estimator not in ("exact", "hutchinson"):
        raise ValueError(f"{transform}: estimator must be 'exact' or 'hutchinson', got "
                         f"{estimator!r}")
    if estimator == "hutchinson":
        if weights is not None:
            raise ValueError(f"{transform}: weights and estimator='hutchinson' do not combine "
                             "(tr(A H) is not one quadratic form per sample); scale the inputs "
                             "instead")
        if key is None or not isinstance(samples, numbers.Integral) or samples < 1:
            raise ValueError(f"{transform}: estimator='hutchinson' needs key= (an "
                             "ft.random key) and samples= (a positive int)")
        signs = frandom.bernoulli(key, 0.5, shape=(int(samples), size))
        v = fnp.where(signs, 1.0, -1.0)
        return fnp.astype(v, dtype), None, 1.0 / int(samples)
    if key is not None or samples is not None:
        raise ValueError(f"{transform}: key= and samples= belong to estimator='hutchinson'")
    eye = fnp.eye(size, dtype=dtype)
    if weights is None:
        return eye, None, 1.0
    wshape = tuple(weights.shape) if hasattr(weights, "shape") else np.shape(weights)
    if wshape == (size,):
        return eye, weights, 1.0
    if wshape != (size, size):
        raise ValueError(f"{transform}: weights must have shape ({size},) or ({size}, {size}) "
                         f"for inputs of total size {size}, got {wshape}")
    sym = fnp.multiply(fnp.add(weights, fnp.swapaxes(weights, 0, 1)), 0.5)
    lam, q = fnp.linalg.eigh(sym)
    return fnp.swapaxes(q, 0, 1), lam, 1.0


def _run(f, argnums, args, weights, estimator, key, samples, transform):
    check_function(f, transform)
    nums, _ = normalize_argnums(argnums, len(args), transform)
    leaves_of = {}
    for n in nums:
        paths, leaves, treedef = optree.tree_flatten_with_path(args[n])
        leaves = [_as_primal(x) for x in leaves]
        for p, x in zip(paths, leaves):
            if _dtype(x).kind != "f":
                raise TypeError(f"{transform}: argument {n}" + "".join(f"[{q!r}]" for q in p)
                                + f" has dtype {_dtype(x)}; the Laplacian is taken with respect "
                                "to real floating-point inputs")
        leaves_of[n] = (leaves, treedef)
    flat = [x for n in nums for x in leaves_of[n][0]]
    check_usable(flat)
    sizes = [int(np.prod(fnp.shape(x))) for x in flat]
    total = sum(sizes)
    dtype = np.result_type(*[_dtype(x) for x in flat])
    v, w, scale = _directions(total, dtype, weights, estimator, key, samples,
                              transform)
    n_dirs = fnp.shape(v)[0]
    with LaplacianInterpreter(w) as interp:
        new_args, offset = list(args), 0
        for n in nums:
            leaves, treedef = leaves_of[n]
            wrapped = []
            for x in leaves:
                size = int(np.prod(fnp.shape(x)))
                jac = fnp.reshape(v[:, offset:offset + size], (n_dirs,) + tuple(fnp.shape(x)))
                wrapped.append(interp.wrap(x, fnp.astype(jac, _dtype(x)), None))
                offset += size
            new_args[n] = treedef.unflatten(wrapped)
        out = f(*new_args)
        out_leaves, out_def = optree.tree_flatten(out)
        triples = [interp.split(o) for o in out_leaves]
    values, jacs, laps = [], [], []
    for o, j, l in triples:
        values.append(o)
        float_out = _dtype(o).kind in "fc"
        jacs.append(j if j is not None or not float_out else
                    fnp.zeros((n_dirs,) + tuple(fnp.shape(o)), dtype=_dtype(o)))
        lap = fnp.zeros_like(o) if l is None else l
        laps.append(fnp.multiply(lap, scale) if scale != 1.0 else lap)
    check_usable(values + jacs + laps)
    return values, jacs, laps, out_def, nums, leaves_of, flat


def laplacian(f, argnums=0, *, weights=None, estimator="exact", key=None, samples=None):
    """The Laplacian of f with respect to argument(s) `argnums`, by the forward Laplacian.

    `laplacian(f)(x)` equals `trace(hessian(f)(x))` (for an output of any shape: the Laplacian
    of each element), computed in one forward pass that carries the first derivatives and
    the summed second derivatives (see the module docstring), instead of building the Hessian.
    It composes with vmap (collocation points), grad (a PINN loss's parameters) and jit.

    Args:
        f: the function; its output is any pytree of real arrays.
        argnums: which positional argument(s) the derivatives are taken in (int or tuple);
            their floating-point leaves, flattened and concatenated, are the d coordinates.
        weights: None for the Laplacian; a vector a of length d for sum_i a_i d_i^2 f; a d x d
            matrix A for sum_ij A_ij d_i d_j f = trace(A H) (a diffusion operator; only A's
            symmetric part matters).
        estimator: "exact", or "hutchinson": the unbiased estimate mean_s v_s^T H v_s over
            `samples` Rademacher vectors v_s drawn from `key`, for large d.
        key: an ft.random key (estimator="hutchinson").
        samples: how many random directions (estimator="hutchinson").

    Returns:
        A function of f's arguments returning the Laplacian, with f's output structure.

    Raises:
        TypeError: a non-floating-point input leaf.
        ValueError: weights of the wrong shape, a bad estimator, or key/samples missing.
        JetRuleError: an op with no Taylor rule (named in the message).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> f = lambda x: np.sum(x ** 3)
        >>> float(ft.laplacian(f)(np.array([1.0, 2.0])))    # 6 x_1 + 6 x_2
        18.0
    """
    def laplacian_fn(*args):
        _, _, laps, out_def, _, _, flat = _run(f, argnums, args, weights, estimator, key,
                                               samples, "laplacian")
        return out_def.unflatten(fresh_outputs(laps, flat))
    return laplacian_fn


def forward_laplacian(f, argnums=0):
    """`(f(*args), jacobian, laplacian)` of f in one forward pass (what a VMC local energy or a
    PINN residual with advection terms needs).

    The jacobian has jacfwd's layout: for each output leaf, output shape + input shape (a
    tuple over argnums when argnums is a tuple, the input's pytree structure otherwise); the
    Laplacian is as `laplacian`'s.

    Args:
        f: the function; its output is any pytree of real arrays.
        argnums: which positional argument(s) to differentiate (int or tuple).

    Returns:
        A function of f's arguments returning (value, jacobian, laplacian).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> value, grad, lap = ft.forward_laplacian(lambda x: np.sum(x ** 3))(np.ones(2))
        >>> float(value), grad.tolist(), float(lap)
        (2.0, [3.0, 3.0], 12.0)
    """
    def forward_laplacian_fn(*args):
        values, jacs, laps, out_def, nums, leaves_of, flat = _run(
            f, argnums, args, None, "exact", None, None, "forward_laplacian")
        jac_out = []
        for o, j in zip(values, jacs):
            oshape = tuple(fnp.shape(o))
            per_arg, offset = [], 0
            for n in nums:
                leaves, treedef = leaves_of[n]
                parts = []
                for x in leaves:
                    xs = tuple(fnp.shape(x))
                    size = int(np.prod(xs))
                    block = j[offset:offset + size]
                    block = fnp.moveaxis(block, 0, -1) if oshape else block
                    parts.append(fnp.reshape(block, oshape + xs))
                    offset += size
                per_arg.append(treedef.unflatten(parts))
            jac_out.append(tuple(per_arg) if isinstance(argnums, (tuple, list)) else per_arg[0])
        values, jac_out, laps = fresh_outputs((values, jac_out, laps), flat)
        return (out_def.unflatten(values), out_def.unflatten(jac_out),
                out_def.unflatten(laps))
    return forward_laplacian_fn
