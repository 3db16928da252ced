"""custom_vjp and custom_jvp: functions with user-written derivative rules (JAX's API).

    @ft.custom_vjp
    def f(x, y): ...
    def f_fwd(x, y): return f(x, y), residuals
    def f_bwd(residuals, ct): return (ct_x, ct_y)
    f.defvjp(f_fwd, f_bwd)

Note [custom_vjp under the transforms]
Each call of a custom_vjp function becomes one call of a one-off Op (not in the global
registry) made from three flat functions of the array leaves of the differentiable arguments:
`fun` (f itself, the kernel), `fwd` (the "vjp_fwd" rule: the user's fwd, whose residuals reverse
mode keeps on the tape in place of the output, see Note [the reverse-mode tape] in reverse.py)
and `bwd` (the "vjp" rule: the user's bwd, its cotangents checked against the operands). The
batching rule makes a new op of the same kind from the three functions batched: fun and fwd run
under an inner vmap (the residuals keep whatever batch dims they have), bwd is vmapped over the
residuals and output cotangents, and the cotangent of an unbatched operand is summed over the
batch. So the user's bwd runs in every composition of vmap with reverse mode, at any nesting
(grad(vmap(f)) as well as vmap(grad(f))). Forward mode has no rule to use: as JAX, jvp through a
custom_vjp function is an error (jvp of its reverse mode, jvp(grad(f)), is fine when fwd computes
its output with library ops: fwd and bwd are then differentiated as ordinary code).

Each user function's result is checked where it returns (rule_checks.py): fwd returns a pair,
bwd one cotangent per differentiable argument with its structure, shapes and dtypes, and none of
them returns a value of a transform level its inputs do not carry (a closure over a value being
transformed, which the rules cannot see).
"""
import functools

import optree

from .. import numpy as fnp
from ..dispatch import Op
from ..rule_checks import RuleError, check_like, inexact, shape_of
from ..tensor import Tensor, TransformTensor, check_usable
from ..backend import is_array
from ._pytree import check_function


class custom_vjp:
    """Decorator: give `fun` a custom reverse-mode rule with `defvjp(fwd, bwd)`.

    fwd(*args) returns (output, residuals); bwd(residuals, ct) returns one cotangent per
    differentiable argument (None for zero), each with its argument's structure, shapes and
    dtypes (checked: a mismatch is a RuleError naming the argument and both shapes). With
    nondiff_argnums (through functools.partial(custom_vjp, nondiff_argnums=(...))) those
    arguments are static and bwd is called as bwd(*nondiff_args, residuals, ct).
    See Note [custom_vjp under the transforms]. The function has only a reverse-mode rule:
    forward mode (jvp, jacfwd, linearize) refuses it; vmap and grad of grad work.

    Args:
        fun: the function; its positional arguments are pytrees of arrays.
        nondiff_argnums: positions of static arguments that get no cotangent.

    Returns:
        A callable with fun's arguments; `defvjp(fwd, bwd)` attaches the rule and returns it.

    Raises:
        TypeError: the function is called with keyword arguments, before defvjp, under forward
            mode, or it closes over a value being transformed.
        RuleError: fwd does not return a pair, or bwd returns the wrong number of cotangents or
            ones whose structure, shape or dtype does not fit their argument.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> @ft.custom_vjp
        ... def clip_grad_square(x):
        ...     return x ** 2
        >>> def fwd(x):
        ...     return x ** 2, x
        >>> def bwd(x, ct):
        ...     return (np.clip(2 * x * ct, -1.0, 1.0),)
        >>> _ = clip_grad_square.defvjp(fwd, bwd)
        >>> ft.grad(lambda x: clip_grad_square(x).sum())(np.array([0.25, 3.0]))
        array([0.5, 1. ])
    """

    def __init__(self, fun, nondiff_argnums=()):
        check_function(fun, "custom_vjp")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.name = getattr(fun, "__name__", "f")

    def defvjp(self, fwd, bwd):
        """Attach the rule: fwd(*args) -> (output, residuals), bwd(residuals, ct) -> one
        cotangent per differentiable argument. Returns the custom_vjp function."""
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"custom_vjp function {self.name!r}: pass arguments positionally "
                            "(custom_vjp functions take no keyword arguments)")
        if self.fwd is None:
            raise TypeError(f"custom_vjp function {self.name!r}: call defvjp(fwd, bwd) before "
                            "using it")
        nondiff = tuple(args[i] for i in self.nondiff_argnums)
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff_argnums)
        leaves, spec = optree.tree_flatten(diff)
        if not any(isinstance(x, Tensor) for x in leaves):
            return self.fun(*args)
        is_operand = [isinstance(x, Tensor) or is_array(x) for x in leaves]
        statics = [x for x, o in zip(leaves, is_operand) if not o]
        out_spec = []   # filled by whichever of fun / fwd runs first

        def rebuild(operands):
            it, st = iter(operands), iter(statics)
            diff = optree.tree_unflatten(spec, [next(it) if o else next(st) for o in is_operand])
            return _with_nondiff(self.nondiff_argnums, nondiff, diff)

        what = f"custom_vjp function {self.name!r}"

        def flat_fun(*operands):
            out = self.fun(*rebuild(operands))
            _check_no_closure(f"the {what}", operands, out)
            out_leaves, out_spec[:] = _flatten_out(out)
            return out_leaves

        def flat_fwd(*operands):
            result = self.fwd(*rebuild(operands))
            if not (isinstance(result, (tuple, list)) and len(result) == 2):
                raise RuleError(f"the fwd of {what} must return a pair (output, residuals); it "
                                f"returned {_describe(result)}")
            _check_no_closure(f"the fwd of {what}", operands, result)
            out_leaves, out_spec[:] = _flatten_out(result[0])
            return out_leaves, result[1]

        def flat_bwd(operands, residuals, cts):
            ct_tree = optree.tree_unflatten(out_spec[0], list(cts))
            in_cts = self.bwd(*nondiff, residuals, ct_tree)
            _check_no_closure(f"the bwd of {what}", (operands, residuals, cts), in_cts)
            return self._flat_cotangents(in_cts, spec, is_operand, operands)

        op = _custom_vjp_op(f"custom_vjp[{self.name}]", self.name, flat_fun, flat_fwd, flat_bwd)
        out = op(*[x for x, o in zip(leaves, is_operand) if o])
        return optree.tree_unflatten(out_spec[0], list(out))

    def _flat_cotangents(self, in_cts, spec, is_operand, operands):
        """bwd's result checked against the differentiable arguments: one cotangent (or None)
        per argument, each with its argument's structure, shapes and dtypes."""
        rule = f"the bwd of custom_vjp function {self.name!r}"
        n_diff = spec.num_children
        if not isinstance(in_cts, (tuple, list)):
            if n_diff != 1:
                raise RuleError(f"{rule} must return a tuple with one cotangent per "
                                f"differentiable argument ({n_diff}); it returned "
                                f"{_describe(in_cts)}")
            in_cts = (in_cts,)
        if len(in_cts) != n_diff:
            raise RuleError(f"{rule} returned {len(in_cts)} cotangent(s) for {n_diff} "
                            f"differentiable argument(s)")
        positions = [i for i in range(n_diff + len(self.nondiff_argnums))
                     if i not in self.nondiff_argnums]
        flat, names = [], []
        for pos, arg_ct, arg_spec in zip(positions, in_cts, spec.children()):
            paths = arg_spec.paths()
            names.extend(f"argument {pos}" + "".join(f"[{p!r}]" for p in path)
                         for path in paths)
            if arg_ct is None:
                flat.extend([None] * arg_spec.num_leaves)
                continue
            try:
                flat.extend(arg_spec.flatten_up_to(arg_ct))
            except (ValueError, TypeError):
                raise RuleError(f"{rule} returned a cotangent of structure "
                                f"{optree.tree_structure(arg_ct)} for argument {pos}, whose "
                                f"structure is {arg_spec}") from None
        out, it = [], iter(operands)
        for ct, name, o in zip(flat, names, is_operand):
            if not o:
                continue
            primal = next(it)
            if ct is None or not inexact(primal):
                out.append(None)
                continue
            check_like(ct, primal, rule, name)
            out.append(ct if hasattr(ct, "shape") else fnp.full_like(primal, ct))
        return tuple(out)


def _check_no_closure(who, inputs, outputs):
    """Refuse (as JAX) a custom function or rule that returns a value of a transform level
    higher than any of its inputs: it closed over a value being transformed, which its rules
    cannot see (the derivative or batch would be lost, or a wrapper would escape)."""
    top = max((x.level for x in optree.tree_leaves(inputs) if isinstance(x, TransformTensor)),
              default=0)
    for o in optree.tree_leaves(outputs):
        if isinstance(o, TransformTensor) and o.level > top:
            check_usable((o,))  # a finished transform's value: an escaped wrapper
            raise TypeError(
                f"{who} returned a value of the {o._interpreter.name} transform at level "
                f"{o.level} that does not come from its arguments: the function closes over a "
                "value that is being transformed. Pass that value as an argument (custom rules "
                "only see their arguments)")


def _describe(x):
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of length {len(x)}"
    return f"a {type(x).__name__}"


def _flatten_out(out):
    leaves, spec = optree.tree_flatten(out)
    return tuple(leaves), [spec]


def _custom_vjp_op(name, fun_name, flat_fun, flat_fwd, flat_bwd):
    """A one-off primitive for one call. See Note [custom_vjp under the transforms]."""
    op = Op(name, lambda xp, *xs: flat_fun(*xs), multiple_results=True)
    op.inline = flat_fun
    out_like = []   # (shape, dtype) of each output, for symbolic-zero cotangents

    @op.def_rule("vjp_fwd")
    def _vjp_fwd(*operands):
        out, residuals = flat_fwd(*operands)
        out_like[:] = [(shape_of(o), getattr(o, "dtype", None)) for o in out]
        return out, residuals

    @op.def_vjp
    def _vjp(ct, operands, residuals):
        like = operands[0] if operands else None
        cts = tuple(fnp.zeros(s, dtype=d, like=like) if c is None else c
                    for c, (s, d) in zip(ct, out_like))
        return flat_bwd(operands, residuals, cts)

    @op.def_jvp
    def _no_jvp(primals, tangents):
        # As JAX: a custom_vjp function only has a reverse-mode rule, so forward mode cannot
        # see through it. Say so in the user's terms.
        raise TypeError(
            f"forward-mode differentiation (jvp, jacfwd, linearize) cannot go through the "
            f"custom_vjp function {fun_name!r}: it only has a reverse-mode rule. Use reverse "
            f"mode (grad, vjp, jacrev; forward over reverse such as jacfwd(jacrev(f)) works), "
            f"or define it with custom_jvp instead")

    @op.def_batch_rule
    def _batch(args, bdims):
        from .vmap import batch_subcall, vmap
        bdims = tuple(bdims)
        size = next(shape_of(a)[d] for a, d in zip(args, bdims) if d is not None)

        def batched_fun(*xs):
            return tuple(vmap(flat_fun, in_dims=bdims, out_dims=0, axis_size=size)(*xs))

        def batched_fwd(*xs):
            leaves, leaf_bdims, spec = batch_subcall(lambda *x: flat_fwd(*x), xs, bdims, size)
            n_out = spec.children()[0].num_leaves
            out = tuple(_batch_at_front(v, b, size)
                        for v, b in zip(leaves[:n_out], leaf_bdims[:n_out]))
            res_spec = spec.children()[1]
            return out, (leaves[n_out:], leaf_bdims[n_out:], res_spec)

        def batched_bwd(operands, residuals, cts):
            res_leaves, res_bdims, res_spec = residuals
            n_op, n_res = len(operands), len(res_leaves)
            present = []

            def per_example(*flat):
                ops, res, c = flat[:n_op], flat[n_op:n_op + n_res], flat[n_op + n_res:]
                in_cts = flat_bwd(ops, optree.tree_unflatten(res_spec, list(res)), c)
                present[:] = [g is not None for g in in_cts]
                return tuple(g for g in in_cts if g is not None)
            values, value_bdims, _ = batch_subcall(
                per_example, (*operands, *res_leaves, *cts),
                bdims + tuple(res_bdims) + (0,) * len(cts), size)
            it = iter(zip(values, value_bdims))
            return tuple(_fit_batch(*next(it), d, size) if p else None
                         for p, d in zip(present, bdims))

        outs = _custom_vjp_op(name, fun_name, batched_fun, batched_fwd, batched_bwd)(*args)
        return outs, (0,) * len(outs)

    return op


def _batch_at_front(value, bdim, size):
    """A batch of `size` examples along axis 0, from `value` batched at `bdim` (None: the same
    for every example)."""
    if bdim is None:
        shape = shape_of(value)
        return fnp.broadcast_to(fnp.reshape(value, (1,) + shape), (size,) + shape)
    return value if bdim == 0 else fnp.moveaxis(value, bdim, 0)


def _fit_batch(ct, ct_bdim, operand_bdim, size):
    """The cotangent of an operand batched at `operand_bdim` from per-example cotangents batched
    at `ct_bdim`: an unbatched operand gets the sum over the batch."""
    if operand_bdim is None:
        return ct * size if ct_bdim is None else fnp.sum(ct, axis=ct_bdim)
    if ct_bdim is None:
        ct = _batch_at_front(ct, None, size)
        ct_bdim = 0
    return ct if ct_bdim == operand_bdim else fnp.moveaxis(ct, ct_bdim, operand_bdim)


# ---------------------------------------------------------------------------------------------
# custom_jvp
# ---------------------------------------------------------------------------------------------

class custom_jvp:
    """A function with a user-given jvp rule (JAX's `jax.custom_jvp`).

        @ft.custom_jvp
        def f(x): ...
        @f.defjvp
        def f_jvp(primals, tangents):
            x, = primals
            t, = tangents
            return f(x), <tangent of the output, linear in t>

    `nondiff_argnums` (through functools.partial) names static arguments; the rule is then
    called as `rule(*nondiff_args, primals, tangents)`. Symbolic-zero tangents reach the rule as
    explicit zeros.

    Args:
        fun: the function; its positional arguments are pytrees of arrays or numbers.
        nondiff_argnums: positions of static arguments that get no tangent.

    Returns:
        A callable with fun's arguments; `defjvp(rule)` attaches the rule and returns it.

    Raises:
        TypeError: a call with keyword arguments, a non-array argument not listed in
            nondiff_argnums, a rule whose output tangent has the wrong structure, or a function
            closing over a value being transformed.
        AttributeError: the function is called before defjvp attached a rule.
        RuleError: the rule returns a tangent whose shape or dtype does not fit the output.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> @ft.custom_jvp
        ... def softplus(x):
        ...     return np.log1p(np.exp(x))
        >>> @softplus.defjvp
        ... def softplus_jvp(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     return softplus(x), t / (1 + np.exp(-x))
        >>> ft.grad(lambda x: softplus(x).sum())(np.array([0.0]))
        array([0.5])

    Note [custom_jvp under the transforms]
    Each call becomes a one-off primitive whose kernel is f, whose jvp rule is the user's rule,
    whose batching rule is the same construction over vmap(f) and vmap(rule) (so the custom rule
    survives vmap at any nesting), and whose vjp rule transposes the user's rule: reverse mode
    computes J^T ct as the vjp of `t -> rule(primals, t)[1]`, which is linear in t (as JAX, which
    also differentiates custom_jvp functions in reverse mode through their jvp rule). A rule
    that is not linear in its tangents therefore gives wrong gradients, as in JAX.
    """

    def __init__(self, fun, nondiff_argnums=()):
        check_function(fun, "custom_jvp")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp_rule = None

    def defjvp(self, rule):
        """Attach the jvp rule `rule(primals, tangents) -> (primal_out, tangent_out)`."""
        self.jvp_rule = rule
        return rule

    def __call__(self, *args, **kwargs):
        name = getattr(self.fun, "__name__", "custom_jvp function")
        if kwargs:
            raise TypeError(f"custom_jvp function {name!r}: pass arguments positionally "
                            "(custom_jvp functions take no keyword arguments)")
        if self.jvp_rule is None:
            raise AttributeError(f"no jvp rule defined for the custom_jvp function {name!r}; "
                                 f"attach one with @{name}.defjvp")
        nondiff = tuple(args[i] for i in self.nondiff_argnums)
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff_argnums)
        leaves, in_def = optree.tree_flatten(diff)
        if not any(isinstance(x, Tensor) for x in leaves):
            return self.fun(*args)   # no transform is watching: just f
        for k, leaf in enumerate(leaves):
            if not (isinstance(leaf, (Tensor, int, float, complex)) or is_array(leaf)):
                raise TypeError(f"custom_jvp function {name!r}: argument leaf {k} is a "
                                f"{type(leaf).__name__}; non-array arguments must be listed in "
                                "nondiff_argnums")
        out_def = []   # filled by whichever path evaluates f or the rule first

        def flat_fun(*xs):
            out = self.fun(*_with_nondiff(self.nondiff_argnums, nondiff,
                                          optree.tree_unflatten(in_def, list(xs))))
            _check_no_closure(f"the custom_jvp function {name!r}", xs, out)
            out_leaves, spec = optree.tree_flatten(out)
            out_def[:] = [spec]
            return tuple(out_leaves)

        def flat_rule(xs, ts):
            ps = optree.tree_unflatten(in_def, list(xs))
            ts = optree.tree_unflatten(in_def, list(ts))
            result = self.jvp_rule(*nondiff, tuple(ps), tuple(ts))
            if not (isinstance(result, (tuple, list)) and len(result) == 2):
                raise RuleError(f"the jvp rule of custom_jvp function {name!r} must return a "
                                f"pair (primal_out, tangent_out); it returned "
                                f"{_describe(result)}")
            out, t_out = result
            _check_no_closure(f"the jvp rule of custom_jvp function {name!r}", (xs, ts),
                              (out, t_out))
            out_leaves, spec = optree.tree_flatten(out)
            try:
                t_leaves = spec.flatten_up_to(t_out)
            except (ValueError, TypeError) as e:
                raise TypeError(f"the jvp rule of {name!r} returned a tangent whose structure "
                                f"does not match the primal output ({spec}): {e}") from None
            out_def[:] = [spec]
            return tuple(out_leaves), _checked_tangents(name, out_leaves, t_leaves, spec)

        outs = _custom_jvp_op(name, flat_fun, flat_rule)(*leaves)
        return optree.tree_unflatten(out_def[0], list(outs))


def _checked_tangents(name, out_leaves, t_leaves, spec):
    """The rule's output tangents, each checked against its primal output's shape and dtype."""
    rule = f"the jvp rule of custom_jvp function {name!r}"
    checked = []
    for path, o, t in zip(spec.paths(), out_leaves, t_leaves):
        if t is not None and inexact(o):
            what = "output" + "".join(f"[{p!r}]" for p in path)
            check_like(t, o, rule, f"the tangent of {what}")
            if not hasattr(t, "shape"):
                t = fnp.full_like(o, t)
        checked.append(t)
    return tuple(checked)


def _with_nondiff(nums, nondiff, diff):
    """The full argument tuple from the static (nondiff) and the differentiable arguments."""
    args, it_s, it_d = [], iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        args.append(next(it_s) if i in nums else next(it_d))
    return tuple(args)


def _inexact_leaf(x):
    dt = getattr(x, "dtype", None)
    return (dt.kind in "fc") if dt is not None else isinstance(x, (float, complex))


def _custom_jvp_op(name, flat_fun, flat_rule):
    """A one-off primitive for one call. See Note [custom_jvp under the transforms]."""
    op = Op(f"custom_jvp[{name}]", lambda xp, *xs: flat_fun(*xs), multiple_results=True)
    op.inline = flat_fun

    @op.def_jvp
    def _jvp(primals, tangents):
        ts = [fnp.zeros_like(p) if t is None else t for p, t in zip(primals, tangents)]
        out, t_out = flat_rule(primals, ts)
        return out, tuple(t if _inexact_leaf(o) else None for o, t in zip(out, t_out))

    @op.def_batch_rule
    def _batch(args, bdims):
        from .vmap import vmap
        size = next(fnp.shape(a)[d] for a, d in zip(args, bdims) if d is not None)

        def batched_fun(*xs):
            return vmap(flat_fun, in_dims=bdims, out_dims=0, axis_size=size)(*xs)

        def batched_rule(xs, ts):
            ts = [fnp.zeros_like(x) if t is None else t for x, t in zip(xs, ts)]
            return vmap(lambda x, t: flat_rule(x, t), in_dims=(list(bdims), list(bdims)),
                        out_dims=0, axis_size=size)(list(xs), list(ts))
        outs = _custom_jvp_op(name, batched_fun, batched_rule)(*args)
        return outs, (0,) * len(outs)

    @op.def_vjp
    def _vjp(ct, primals, out):
        from .reverse import vjp
        diff = [i for i, p in enumerate(primals) if _inexact_leaf(p)]

        def tangent_map(*ts):
            full = [fnp.zeros_like(p) for p in primals]
            for i, t in zip(diff, ts):
                full[i] = t
            return tuple(t for o, t in zip(out, flat_rule(primals, full)[1]) if _inexact_leaf(o))
        cts = tuple(fnp.zeros_like(o) if c is None else c
                    for o, c in zip(out, ct) if _inexact_leaf(o))
        _, pullback = vjp(tangent_map, *[fnp.zeros_like(primals[i]) for i in diff])
        in_cts = pullback(cts)
        result = [None] * len(primals)
        for i, g in zip(diff, in_cts):
            result[i] = g
        return tuple(result)

    return op
