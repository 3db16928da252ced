"""custom_vjp: a function with a user-written reverse-mode rule (JAX's API).

    @ft.custom_vjp
    def f(x, y): ...
    def f_fwd(x, y): return f(x, y), residuals
    def f_bwd(residuals, ct): return (ct_x, ct_y)
    f.defvjp(f_fwd, f_bwd)

Each call of a custom_vjp function becomes one call of an Op made for that function (not in
the global registry): the operands are the array leaves of the differentiable arguments, the
static params carry everything else. Reverse mode calls the op's "vjp_fwd" rule (the user's
fwd, keeping its residuals on the tape) and then the "vjp" rule (the user's bwd); see Note
[the reverse-mode tape] in reverse.py. Under vmap the batching rule runs f under an inner vmap,
and fwd/bwd of an enclosing grad simply run on batched values, so vmap(grad(f)) uses bwd.
Under grad(vmap(f)) the batched call differentiates f's own body (bwd is bypassed there).
"""
import functools

import optree

from .. import numpy as fnp
from ..dispatch import Op
from ..tensor import Tensor
from ..backend import is_array


class _Call:
    """Static facts of one call: argument structure, static leaves, and (once run) the output
    structure and output leaf shapes."""

    __slots__ = ("spec", "is_operand", "static_leaves", "nondiff", "out_spec", "out_like")

    def __init__(self, spec, is_operand, static_leaves, nondiff):
        self.spec, self.is_operand = spec, is_operand
        self.static_leaves, self.nondiff = static_leaves, nondiff
        self.out_spec = self.out_like = None

    def rebuild(self, operands):
        """The differentiable arguments with `operands` in the array positions."""
        it, st = iter(operands), iter(self.static_leaves)
        leaves = [next(it) if op else next(st) for op in self.is_operand]
        return optree.tree_unflatten(self.spec, leaves)

    def record_output(self, out):
        leaves, self.out_spec = optree.tree_flatten(out)
        self.out_like = [(tuple(getattr(o, "shape", ())), getattr(o, "dtype", None))
                         for o in leaves]
        return tuple(leaves)


class custom_vjp:
    """Decorator: give `fun` a custom reverse-mode rule with `defvjp(fwd, bwd)`.

    fwd(*args) returns (output, residuals); bwd(residuals, ct) returns one cotangent per
    differentiable argument (None for zero). With nondiff_argnums (through
    functools.partial(custom_vjp, nondiff_argnums=(...))) those arguments are static and bwd
    is called as bwd(*nondiff_args, residuals, ct).
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.op = Op(f"custom_vjp[{getattr(fun, '__name__', 'f')}]", self._kernel,
                     multiple_results=True)
        self.op.def_rule("vjp_fwd", self._vjp_fwd)
        self.op.def_vjp(self._vjp)
        self.op.def_batch_rule(self._batch_rule)
        self.op.def_jvp(self._no_jvp)

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        return self

    # -- calling --
    def _split(self, args):
        nondiff = tuple(args[i] for i in self.nondiff_argnums)
        diff = tuple(a for i, a in enumerate(args) if i not in self.nondiff_argnums)
        return nondiff, diff

    def _full_args(self, nondiff, diff):
        args, it_n, it_d = [], iter(nondiff), iter(diff)
        for i in range(len(nondiff) + len(diff)):
            args.append(next(it_n) if i in self.nondiff_argnums else next(it_d))
        return args

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{self.op.name}: pass arguments positionally (custom_vjp functions "
                            "take no keyword arguments)")
        if self.fwd is None:
            raise TypeError(f"{self.op.name}: call defvjp(fwd, bwd) before using it")
        nondiff, diff = self._split(args)
        leaves, spec = optree.tree_flatten(diff)
        is_operand = [isinstance(x, Tensor) or is_array(x) for x in leaves]
        if not any(isinstance(x, Tensor) for x in leaves):
            return self.fun(*args)
        call = _Call(spec, is_operand, [x for x, o in zip(leaves, is_operand) if not o], nondiff)
        operands = [x for x, o in zip(leaves, is_operand) if o]
        out = self.op(*operands, call=call)
        return optree.tree_unflatten(call.out_spec, list(out))

    # -- rules --
    def _kernel(self, xp, *operands, call):
        return call.record_output(self.fun(*self._full_args(call.nondiff, call.rebuild(operands))))

    def _vjp_fwd(self, *operands, call):
        out, residuals = self.fwd(*self._full_args(call.nondiff, call.rebuild(operands)))
        return call.record_output(out), residuals

    def _vjp(self, ct, operands, residuals, *, call):
        cts = [fnp.zeros(shape, dtype=dtype) if c is None else c
               for c, (shape, dtype) in zip(ct, call.out_like)]
        in_cts = self.bwd(*call.nondiff, residuals, optree.tree_unflatten(call.out_spec, cts))
        in_cts = tuple(in_cts) if isinstance(in_cts, (tuple, list)) else (in_cts,)
        n_diff = call.spec.num_children
        if len(in_cts) != n_diff:
            raise ValueError(f"{self.op.name}: bwd returned {len(in_cts)} cotangent(s) for "
                             f"{n_diff} differentiable argument(s)")
        flat = []
        for arg_ct, arg_spec in zip(in_cts, call.spec.children()):
            if arg_ct is None:
                flat.extend([None] * arg_spec.num_leaves)
            else:
                flat.extend(arg_spec.flatten_up_to(arg_ct))
        return tuple(c for c, o in zip(flat, call.is_operand) if o)

    def _no_jvp(self, primals, tangents, *, call):
        # As JAX: a custom_vjp function only has a reverse-mode rule, so forward mode (jvp,
        # jacfwd, linearize, hessian = jacfwd(jacrev)) cannot see through it. Say so in the
        # user's terms instead of the generic "op has no jvp rule" (which points at op internals).
        name = getattr(self.fun, "__name__", "f")
        raise TypeError(
            f"forward-mode differentiation (jvp, jacfwd, linearize, hessian) cannot go through "
            f"the custom_vjp function {name!r}: it only has a reverse-mode rule. Use reverse "
            f"mode (grad, vjp, jacrev, jacrev(jacrev(f)) for a Hessian), or define it with "
            f"custom_jvp instead")

    def _batch_rule(self, args, bdims, *, call):
        from .vmap import vmap

        def run(*operands):
            return self._kernel(None, *operands, call=call)
        out = vmap(run, in_dims=tuple(bdims))(*args)
        return tuple(out), (0,) * len(out)


# ---------------------------------------------------------------------------------------------
# custom_jvp (forward-mode helper's part)
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

    Note [custom_jvp under the transforms]
    Each call becomes a one-off primitive whose kernel is f, whose jvp rule is the user's rule,
    whose batching rule is the same construction over vmap(f) and vmap(rule) (so the custom rule
    survives vmap at any nesting), and whose vjp rule transposes the user's rule: reverse mode
    computes J^T ct as the vjp of `t -> rule(primals, t)[1]`, which is linear in t (as JAX, which
    also differentiates custom_jvp functions in reverse mode through their jvp rule). A rule
    that is not linear in its tangents therefore gives wrong gradients, as in JAX.
    """

    def __init__(self, fun, nondiff_argnums=()):
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
            out_leaves, spec = optree.tree_flatten(out)
            out_def[:] = [spec]
            return tuple(out_leaves)

        def flat_rule(xs, ts):
            ps = optree.tree_unflatten(in_def, list(xs))
            ts = optree.tree_unflatten(in_def, list(ts))
            out, t_out = self.jvp_rule(*nondiff, tuple(ps), tuple(ts))
            out_leaves, spec = optree.tree_flatten(out)
            try:
                t_leaves = spec.flatten_up_to(t_out)
            except (ValueError, TypeError) as e:
                raise TypeError(f"the jvp rule of {name!r} returned a tangent whose structure "
                                f"does not match the primal output ({spec}): {e}") from None
            out_def[:] = [spec]
            return tuple(out_leaves), tuple(t_leaves)

        outs = _custom_jvp_op(name, flat_fun, flat_rule)(*leaves)
        return optree.tree_unflatten(out_def[0], list(outs))


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
