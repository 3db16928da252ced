"""checkpoint (remat): trade compute for memory in reverse mode (jax.checkpoint semantics).

Note [checkpointed segments]
----------------------------
`checkpoint(f)(*args)` runs f as usual, so every transform and every closure works unchanged.
For each reverse-mode interpreter on the level stack it then compacts what f recorded: the
nodes f appended to that interpreter's tape are replaced by one node of a one-off op whose
residual is a *recipe*, the recorded ops with their static params and constant operands but
without the values that flowed between them. The node's operands are the segment's external
inputs (values of that level f read: its arguments and closed-over wrappers), its outputs the
values of f's outputs made inside the segment. So between the forward and the backward pass
only the external inputs (and what the policy saves) stay alive. The node's vjp rule replays
the recipe under a fresh `vjp` (recomputing the intermediates) and pulls the cotangent back
through it; a replay is library ops, so it composes with vmap, jvp and further reverse levels
(grad(grad(checkpoint(f))) checkpoints at both levels). Forward mode and vmap need no memory
trick: with no reverse level running, checkpoint(f) is f.

A policy decides per recorded op, `policy(op, *operands, **params) -> bool`, whether its output
may be saved; a saved op is not recomputed (its vjp rule still runs, on the saved output).
Values must leave f through its outputs: a wrapper of f's intermediates kept in a closure or a
global is not an output of the node, and no cotangent flows back through it.
"""
import functools

import optree

from .. import numpy as fnp
from ..dispatch import Op
from ..interpreter import recomputation, stack
from ..tensor import TransformTensor
from ._pytree import check_function
from .reverse import GradTensor, ReverseInterpreter, _Node


# -- policies ---------------------------------------------------------------------------------

class checkpoint_policies:
    """Policies for `checkpoint(f, policy=...)`, as `jax.checkpoint_policies`.

    Each is a function `policy(op, *operands, **params) -> bool` saying whether an op's output
    may be kept instead of recomputed: `nothing_saveable` (the default), `everything_saveable`
    and `dots_saveable` (alias `checkpoint_dots`). Any function of that signature is a policy.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> f = ft.checkpoint(lambda w, x: np.tanh(x @ w).sum(),
        ...                   policy=ft.checkpoint_policies.dots_saveable)
        >>> w, x = np.zeros((2, 2)), np.array([[1.0, 2.0]])
        >>> ft.grad(f)(w, x)
        array([[1., 1.],
               [2., 2.]])
    """

    @staticmethod
    def nothing_saveable(op, *operands, **params):
        """Recompute everything (the default)."""
        return False

    @staticmethod
    def everything_saveable(op, *operands, **params):
        """Keep every output: no recomputation, no memory saved (for comparison)."""
        return True

    @staticmethod
    def dots_saveable(op, *operands, **params):
        """Keep the results of matrix products (matmul, einsum and what is built on them:
        dot, tensordot, inner, ...); recompute the cheap elementwise work between them."""
        return op.name in ("matmul", "einsum")

    checkpoint_dots = dots_saveable


# -- the public function ----------------------------------------------------------------------

def checkpoint(fun=None, *, policy=None):
    """`fun` whose intermediates reverse mode does not keep: they are recomputed from its
    inputs in the backward pass (jax.checkpoint; `remat` is the same function). Values and
    derivatives equal those of `fun` in every composition. `policy` (see `checkpoint_policies`)
    picks intermediates that may be kept after all. Usable as `@checkpoint`,
    `@checkpoint(policy=...)` or `checkpoint(f, policy=...)`.
    See Note [checkpointed segments].

    Args:
        fun: the function to checkpoint (omit it to get a decorator with the given policy).
        policy: `policy(op, *operands, **params) -> bool`, which op outputs may be kept (see
            `checkpoint_policies`; default: recompute everything).

    Returns:
        A function with fun's arguments and results, or a decorator when fun is None.

    Raises:
        TypeError: fun is not callable.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> f = ft.checkpoint(lambda x: np.sin(np.sin(x)))
        >>> x = np.array([0.5, 1.0])
        >>> bool(np.allclose(ft.grad(lambda x: f(x).sum())(x), np.cos(np.sin(x)) * np.cos(x)))
        True
    """
    if fun is None:
        return functools.partial(checkpoint, policy=policy)
    check_function(fun, "checkpoint")
    policy = policy or checkpoint_policies.nothing_saveable
    name = getattr(fun, "__name__", type(fun).__name__)

    @functools.wraps(fun)
    def checkpointed(*args, **kwargs):
        if _in_loop_body is not None:
            out = _in_loop_body(fun, args, kwargs, name)
            if out is not None:   # Note [loops under the transforms] in lax/rules.py
                return out
        levels = [i for i in stack() if isinstance(i, ReverseInterpreter)]
        starts = [len(i.tape) for i in levels]
        out = fun(*args, **kwargs)
        roots = optree.tree_leaves(out)
        # highest level first: what its node keeps may hold values of the levels below
        for interp, start in reversed(list(zip(levels, starts))):
            roots = roots + _compact(interp, start, roots, policy, name)
        return out

    return checkpointed


remat = checkpoint

_in_loop_body = None


def record_in_loop_bodies(record):
    """Install `record(fun, args, kwargs, name)`: a checkpointed call recorded as one op of the
    loop body being traced, or None where it runs inline. functorch_lite.lax, which owns loop
    bodies, installs it at import."""
    global _in_loop_body
    _in_loop_body = record


# -- compaction and replay --------------------------------------------------------------------

class _Step:
    """One recorded op of a segment: operands are ("slot", s) or ("const", value)."""

    __slots__ = ("op", "params", "operands", "out_slot", "saved")

    def __init__(self, op, params, operands, out_slot, saved):
        self.op, self.params, self.operands = op, params, operands
        self.out_slot, self.saved = out_slot, saved


def _compact(interp, start, roots, policy, name):
    """Replace interp.tape[start:] by one checkpoint node whose outputs are the values of this
    level made in the segment and reachable from `roots` (f's outputs, what the nodes of higher
    levels keep). Returns the values the node keeps. See Note [checkpointed segments]."""
    segment = interp.tape[start:]
    if not segment:
        return []
    produced, ext_seen, ext_slots, ext_values, steps = set(), set(), [], [], []
    for node in segment:
        operands = []
        for slot, value in zip(node.in_slots, node.primals):
            if slot is None:
                operands.append(("const", value))
                continue
            if slot not in produced and slot not in ext_seen:
                ext_seen.add(slot)
                ext_slots.append(slot)
                ext_values.append(value)
            operands.append(("slot", slot))
        keep = ("vjp_fwd" not in node.op.rules and
                policy(node.op, *node.primals, **node.params))
        steps.append(_Step(node.op, node.params, tuple(operands), node.out_slot,
                           node.out if keep else None))
        produced.update(node.out_slot if type(node.out_slot) is tuple else (node.out_slot,))
    out_slots = []
    for x in _values_of_level(roots, interp):
        if x.slot in produced and x.slot not in out_slots:
            out_slots.append(x.slot)
    del interp.tape[start:]
    if not out_slots:
        return []
    op = _checkpoint_op(name, steps, tuple(ext_slots), tuple(out_slots))
    interp.tape.append(_Node(op, {}, tuple(ext_values), None, tuple(ext_slots),
                             tuple(out_slots)))
    kept = [v for step in steps for kind, v in step.operands if kind == "const"]
    kept += [step.saved for step in steps if step.saved is not None]
    return ext_values + optree.tree_leaves(kept)


def _values_of_level(roots, interp):
    """The GradTensors of `interp` inside `roots`, looking through wrappers of higher levels
    (a batched value's batch, a dual number's primal and tangent)."""
    todo, found = list(roots), []
    while todo:
        x = todo.pop()
        if type(x) is GradTensor and x._interpreter is interp:
            found.append(x)
        elif isinstance(x, TransformTensor) and x._interpreter.level > interp.level:
            todo.extend(v for v in (getattr(x, "value", None), getattr(x, "tangent", None))
                        if v is not None)
    return found


def _replay(steps, ext_slots, out_slots, inputs, use_saved):
    """The segment's outputs recomputed from its external inputs."""
    env = dict(zip(ext_slots, inputs))
    for step in steps:
        args = [env[v] if kind == "slot" else v for kind, v in step.operands]
        op = step.op if step.saved is None or not use_saved else _saved_op(step.op, step.saved)
        out = op(*args, **step.params)
        if type(step.out_slot) is tuple:
            env.update(zip(step.out_slot, out))
        else:
            env[step.out_slot] = out
    return tuple(env[s] for s in out_slots)


def _saved_op(op, saved):
    """`op` with its output already known: reverse mode records it without running the kernel
    (through a "vjp_fwd" rule, see Note [the reverse-mode tape]) and pulls back with op's rule."""
    saved_op = Op(f"saved[{op.name}]", lambda xp, *a, **p: saved,
                  multiple_results=op.multiple_results)
    saved_op.rules["vjp_fwd"] = lambda *a, **p: (saved, saved)
    saved_op.rules["vjp"] = op.rules["vjp"]
    return saved_op


def _checkpoint_op(name, steps, ext_slots, out_slots):
    """The one-off op of one compacted segment: its kernel, jvp and batching rules replay the
    recipe forward; its vjp rule recomputes it under vjp."""
    def replay(*xs, use_saved=False):
        return _replay(steps, ext_slots, out_slots, xs, use_saved)

    op = Op(f"checkpoint[{name}]", lambda xp, *xs: replay(*xs), multiple_results=True)
    op.replay = replay  # functorch_lite.dp replays a segment on its own tape
    op.rules["vjp_fwd"] = lambda *xs: (op(*xs), None)

    @op.def_vjp
    def _vjp(ct, primals, _):
        from .reverse import vjp
        with recomputation():
            outs, pullback = vjp(functools.partial(replay, use_saved=True), *primals)
        return pullback(tuple(fnp.zeros_like(o) if c is None else c for c, o in zip(ct, outs)))

    @op.def_jvp
    def _jvp(primals, tangents):
        from .forward import jvp
        return jvp(replay, tuple(primals), tuple(tangents))

    @op.def_batch_rule
    def _batch(args, bdims):
        from .vmap import vmap
        size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
        outs = vmap(replay, in_dims=tuple(bdims), out_dims=0, axis_size=size)(*args)
        return tuple(outs), (0,) * len(outs)

    return op
