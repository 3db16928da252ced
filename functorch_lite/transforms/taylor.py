"""Taylor mode: JetTensor, its interpreter and `jet` (truncated Taylor polynomials).

A JetTensor holds a primal x_0 and the normalized coefficients x_1 .. x_K of a polynomial
x(t) = x_0 + x_1 t + ... + x_K t^K. The jet interpreter unwraps its level and applies the op's
jet rule (derivatives/taylor_*.py), which computes the coefficients of op(x(t)) with library
ops on the values below, so `jet` composes with vmap, grad, jvp and jit like jvp does. The
user-facing `jet` takes and returns derivative-scaled terms (the k-th term is k! x_k), as
`jax.experimental.jet`; the interpreter and its rules use the normalized coefficients.

Note [Taylor rules from jvp rules]
----------------------------------
An op with a jvp rule but no jet rule of its own (or whose rule returns NotImplemented) gets
its coefficients from the jvp rule: with y(t) = op(x(t)), y'(t) = J(x(t)) x'(t), and the jvp
rule computes exactly that from library ops. So the series of y' to order K-1 is the jvp rule
run under a jet interpreter of order K-1, on the primals' series and on the tangent series
x'(t) = sum_j (j+1) x_(j+1) t^j; then y_k = (y')_(k-1) / k. The inner ops recurse the same way
with one order less, down to the plain jvp at order 1: exact, not a finite difference, for
every op whose jvp rule is itself differentiable (which composing rules already requires).
The cost grows with K for ops whose jvp rule calls the op again (solve, inv: about 2^K), so the
common families have direct rules. An op with neither rule is refused with JetRuleError.
"""
import math

import optree

from ..interpreter import Interpreter
from ..tensor import Tensor, TransformTensor, check_usable
from ..derivatives import (  # noqa: F401  (registers the jet rules)
    taylor_elementwise, taylor_structural)
from ..derivatives.jvp_helpers import fit, instantiate
from ..derivatives.taylor_helpers import none_if_zero, order_of
from .. import numpy as fnp
from ._pytree import check_function, fresh_outputs
from .forward import _as_primal, _dtype, check_tangent, float0_zeros


class JetRuleError(NotImplementedError):
    """An op reached by `jet` (or `laplacian`) has no Taylor rule and none can be derived.

    Raised, naming the op, rather than giving a wrong coefficient. Give the op a rule with
    `op.def_rule("jet", rule)` (see derivatives/taylor_helpers.py for the signature), or a
    jvp rule built from library ops, from which one is derived.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> cube = ft.defop("cube_nojvp", lambda xp, x: x ** 3)
        >>> try:
        ...     ft.jet(cube, (np.array(1.0),), ([np.array(1.0)],))
        ... except ft.JetRuleError as e:
        ...     print(e.op_name)
        cube_nojvp
    """

    def __init__(self, op_name, message):
        super().__init__(message)
        self.op_name = op_name


class JetTensor(TransformTensor):
    """A primal and its normalized Taylor coefficients at one jet level.

    What a function under `jet` receives. `value` (also `primal`) is x_0, `series` the tuple
    x_1 .. x_K (an entry None is a zero coefficient).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> seen = []
        >>> _ = ft.jet(lambda x: seen.append((x.primal, x.series)) or x,
        ...            (np.array([1.0]),), ([np.array([2.0]), np.array([6.0])],))
        >>> seen
        [(array([1.]), (array([2.]), array([3.])))]
    """

    __slots__ = ("value", "series")

    def __init__(self, primal, series, interpreter):
        self.value = primal
        self.series = series
        self._interpreter = interpreter

    @property
    def primal(self):
        return self.value


class JetInterpreter(Interpreter):
    """Applies jet rules at truncation order `order`. See Note [Taylor rules from jvp rules]."""

    name = "jet"

    def __init__(self, order):
        super().__init__()
        self.order = order

    def split(self, x):
        """(primal, series) of a value; values of other levels are constants (series None)."""
        if isinstance(x, JetTensor) and x._interpreter is self:
            return x.value, x.series
        return x, None

    def wrap(self, primal, series):
        series = None if series is None else none_if_zero(series)
        return primal if series is None else JetTensor(primal, series, self)

    def process(self, op, args, params):
        primals, series, any_series = [], [], False
        for a in args:
            if isinstance(a, JetTensor) and a._interpreter is self:
                primals.append(a.value)
                series.append(a.series)
                any_series = True
            else:
                primals.append(a)
                series.append(None)
        if not any_series or not op.differentiable:
            return op(*primals, **params)
        out, s_out = apply_jet_rule(op, tuple(primals), tuple(series), params)
        if op.multiple_results:
            s_out = (None,) * len(out) if s_out is None else s_out
            return tuple(self.wrap(o, s) for o, s in zip(out, s_out))
        return self.wrap(out, s_out)

    def concretize(self, tensor, kind):
        if kind == "array":
            raise TypeError(
                "cannot convert a value under jet (level %d) to a raw array: its Taylor "
                "coefficients would be lost. Use functorch_lite.numpy functions on it, or "
                "convert outside the transform" % self.level)
        primal = tensor.primal
        if isinstance(primal, Tensor):
            return primal._concretize(kind)
        return {"bool": bool, "int": int, "float": float, "complex": complex,
                "index": lambda v: v.__index__()}[kind](primal)


def apply_jet_rule(op, primals, series, params):
    """(out, out_series) of op: its jet rule, or one derived from its jvp rule."""
    rule = op.rules.get("jet")
    result = NotImplemented if rule is None else rule(primals, series, **params)
    if result is NotImplemented:
        result = jet_from_jvp(op, primals, series, params)
    return result


def _derivative_series(x, s, order):
    """(x'_0, (x'_1 .. x'_(order-1))) of x(t) with series s: x'_j = (j+1) x_(j+1)."""
    if s is None:
        return None, None
    d = [None if c is None else fnp.multiply(c, float(j + 1)) for j, c in enumerate(s)]
    return (None if all(c is None for c in d) else instantiate(d[0], x)), tuple(d[1:order])


def jet_from_jvp(op, primals, series, params):
    """Note [Taylor rules from jvp rules]."""
    jvp = op.rules.get("jvp")
    if jvp is None:
        raise JetRuleError(op.name, f"op {op.name!r} has no jet rule and no jvp rule to derive "
                           "one from; add one with op.def_rule('jet', rule)")
    order = order_of(series)
    try:
        if order == 1:
            out, t_out = jvp(primals, tuple(None if s is None else s[0] for s in series),
                             **params)
            return out, _integrated(op, out, t_out, lambda t: (t, ()), order)
        with JetInterpreter(order - 1) as inner:
            xs, ts = [], []
            for x, s in zip(primals, series):
                d0, ds = _derivative_series(x, s, order)
                xs.append(inner.wrap(x, None if s is None else s[:order - 1]))
                ts.append(None if d0 is None else inner.wrap(d0, ds))
            out, t_out = jvp(tuple(xs), tuple(ts), **params)
            outs = out if op.multiple_results else (out,)
            out = tuple(inner.split(o)[0] for o in outs)
            out = out if op.multiple_results else out[0]
            return out, _integrated(op, out, t_out, inner.split, order)
    except (TypeError, NotImplementedError) as e:
        if isinstance(e, JetRuleError):
            raise
        raise JetRuleError(op.name, f"op {op.name!r} has no jet rule, and deriving one from its "
                           f"jvp rule failed ({type(e).__name__}: {e}); add one with "
                           "op.def_rule('jet', rule)") from e


def _integrated(op, out, t_out, split, order):
    """The series y_1 .. y_K from the series of y' (split(t) -> (y'_0, (y'_1, ...)))."""
    def one(o, t):
        if t is None or _dtype(o).kind not in "fc":
            return None
        d0, ds = split(t)
        ds = tuple(ds or ()) + (None,) * (order - 1 - len(ds or ()))
        return none_if_zero(None if c is None else fit(fnp.multiply(c, 1.0 / (k + 1)), o)
                            for k, c in enumerate((d0,) + ds))
    if op.multiple_results:
        t_out = (None,) * len(out) if t_out is None else t_out
        return tuple(one(o, t) for o, t in zip(out, t_out))
    return one(out, t_out)


# ---------------------------------------------------------------------------------------------
# jet
# ---------------------------------------------------------------------------------------------

def _flatten_series(primals, series, factorial_scaled):
    if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
        raise TypeError("jet: primals and series must be tuples (one entry per positional "
                        "argument of fun); write jet(f, (x,), ([x1, x2],))")
    if len(primals) != len(series):
        raise ValueError(f"jet: got {len(primals)} primals but {len(series)} series; they "
                         "must match one to one")
    orders = {len(s) for s in series if s is not None}
    for s in series:
        if s is not None and not isinstance(s, (tuple, list)):
            raise TypeError(f"jet: each series must be a list of terms (one per order), got "
                            f"{type(s).__name__}")
    if len(orders) > 1:
        raise ValueError(f"jet: every series must have the same number of terms, got "
                         f"{sorted(orders)}")
    order = orders.pop() if orders else 0
    p_leaves, s_leaves, treedefs = [], [], []
    for i, (p, s) in enumerate(zip(primals, series)):
        paths, leaves, treedef = optree.tree_flatten_with_path(p)
        terms = []
        for k in range(order):
            if s is None:
                terms.append([None] * len(leaves))
                continue
            try:
                terms.append(treedef.flatten_up_to(s[k]))
            except (ValueError, TypeError) as e:
                raise ValueError(f"jet: series[{i}][{k}] does not have the structure of "
                                 f"primals[{i}] ({treedef}): {e}") from None
        for n, (path, leaf) in enumerate(zip(paths, leaves)):
            leaf = _as_primal(leaf)
            where = f"jet: series[{i}]" + "".join(f"[{q!r}]" for q in path)
            coeffs = []
            for k in range(order):
                c = check_tangent(leaf, terms[k][n], f"{where}, term {k + 1}")
                if c is not None and factorial_scaled and k > 0:
                    c = fnp.multiply(c, 1.0 / math.factorial(k + 1))
                coeffs.append(c)
            p_leaves.append(leaf)
            s_leaves.append(coeffs)
        treedefs.append(treedef)
    return p_leaves, s_leaves, treedefs, order


def _out_terms(primal, coeffs, order, factorial_scaled):
    if _dtype(primal).kind not in "fc":
        return [float0_zeros(primal) for _ in range(order)]
    coeffs = coeffs or (None,) * order
    terms = []
    for k, c in enumerate(coeffs):
        if c is None:
            terms.append(fnp.zeros_like(primal))
        elif factorial_scaled and k > 0:
            terms.append(fnp.multiply(c, float(math.factorial(k + 1))))
        else:
            terms.append(c)
    return terms


def jet(fun, primals, series, factorial_scaled=True):
    """Taylor-mode derivatives: push a truncated Taylor polynomial through `fun`.

    The semantics and scaling of `jax.experimental.jet`: `primals[i]` and `series[i] = [x1,
    ..., xK]` stand for the curve x(t) = x0 + x1 t + x2 t^2/2! + ... + xK t^K/K!, and the
    result holds f(x(0)) and the first K derivatives of t -> f(x(t)) at 0. With x1 = v and
    the other terms zero, the k-th term out is the k-th directional derivative of f along v.
    Every op with a jvp rule works (Note [Taylor rules from jvp rules]); an op with neither
    raises JetRuleError.

    Args:
        fun: the function, called as fun(*primals); its output is any pytree of arrays.
        primals: tuple of the positional arguments of fun (pytrees).
        series: tuple with, per primal, a list of K terms, each with the primal's structure,
            shapes and dtypes (or None for an argument held constant). Integer primals take
            None or float0 terms.
        factorial_scaled: True (JAX's default): the k-th term is the k-th derivative. False:
            the terms are the plain polynomial coefficients, in and out.

    Returns:
        (primal_out, series_out): fun(*primals), and the output's structure with each leaf
        replaced by its list of K terms.

    Raises:
        TypeError, ValueError: primals or series of the wrong kind, length, structure, shape
            or dtype.
        JetRuleError: an op without a Taylor rule (named in the message).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> out, (d1, d2, d3) = ft.jet(np.sin, (np.array(0.5),), ([np.array(1.0), 0.0, 0.0],))
        >>> bool(np.allclose([d1, d2, d3], [np.cos(0.5), -np.sin(0.5), -np.cos(0.5)]))
        True
    """
    check_function(fun, "jet")
    p_leaves, s_leaves, treedefs, order = _flatten_series(primals, series, factorial_scaled)
    check_usable(p_leaves)
    check_usable([c for cs in s_leaves for c in cs])
    with JetInterpreter(order) as interp:
        args, k = [], 0
        for td in treedefs:
            n = td.num_leaves
            args.append(td.unflatten([interp.wrap(p, s) if order else p for p, s in
                                      zip(p_leaves[k:k + n], s_leaves[k:k + n])]))
            k += n
        out = fun(*args)
        out_leaves, out_def = optree.tree_flatten(out)
        pairs = [interp.split(o) for o in out_leaves]
    p_out = [p for p, _ in pairs]
    s_out = [_out_terms(p, s, order, factorial_scaled) for p, s in pairs]
    check_usable(p_out)
    check_usable([t for ts in s_out for t in ts])
    inputs = p_leaves + [c for cs in s_leaves for c in cs if c is not None]
    p_out, s_out = fresh_outputs((p_out, s_out), inputs)
    return out_def.unflatten(p_out), out_def.unflatten([list(ts) for ts in s_out])
