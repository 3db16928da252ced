"""The capture: one forward and one backward pass of the loss, per example under vmap, that
hands each parameter leaf's pieces (Note [factored pieces]) back instead of its gradient.

Note [the capture pass]
-----------------------
The loss is written for one example. `capture` runs it under vmap (the examples) with a
reverse-mode tape inside (the parameters are the tape's leaves), as vmap(grad(loss)) would, and
walks the tape backwards itself. Under vmap a value is either *batched* (it depends on the
example: activations, cotangents) or not; since only parameters are differentiated, an operand
on the tape that is not batched is parameter-like (a parameter, or computed from parameters
only). At each node:

- a parameter leaf, or a layout-only view of it (its 2-d transpose: `linear` reads weight.T;
  tensordot's transposes and row-major reshapes), read by an op with a factor rule (_factors.py) gets a factored piece; the op's vjp rule is not asked for its
  cotangent, so the per-example gradient is never formed;
- a parameter-like operand no larger than the node's output (a bias, a norm scale, a
  positional table added elementwise) takes its ordinary cotangent: per example it is no
  larger than the activation cotangent the pass holds anyway;
- any other parameter-like operand (a factored op on a parameter that is not a plain view, a
  reduction of a parameter, an op with no factor rule) also takes its ordinary cotangent, which
  materializes that parameter's per-example gradient: this is the fallback, reported with a
  FallbackWarning, or a FallbackError with strict=True.

The cotangent that reaches a leaf is its Dense piece. vmap returns every piece's arrays with
the examples on axis 0; the pieces' shapes and kinds stay on the Python side.
"""
import linecache
import sys
import warnings

import optree

from .. import numpy as fnp
from ..batching_rules.fallback import PerformanceWarning
from ..interpreter import stack
from ..ops import shape as sh
from ..ops.indexing import getitem
from ..transforms._pytree import (flatten_diff_args, normalize_argnums, replace_args,
                                  unflatten_selected)
from ..transforms.reverse import GradTensor, ReverseInterpreter, _check_scalar_output, \
    _seed, fit_cotangent
from ..transforms.vmap import BatchedTensor, vmap
from ._factors import FACTOR_RULES
from ._pieces import Dense, Outer


class FallbackWarning(PerformanceWarning):
    """A parameter's per-example gradient was materialized: an op read it in a way no factor
    rule covers. The result is still exact; pass strict=True to make this a FallbackError.

    Examples:
        >>> import warnings, numpy as np, functorch_lite as ft
        >>> loss = lambda w, x: (x @ np.exp(w)).sum()     # the product reads exp(w), not w
        >>> w, x = np.zeros((3, 2)), np.arange(12.0).reshape(4, 3)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     norms = ft.dp.per_example_grad_norms(loss)(w, x)
        >>> any(issubclass(c.category, ft.dp.FallbackWarning) for c in caught)
        True
        >>> per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0))(w, x)
        >>> bool(np.allclose(norms, np.sqrt((per_example ** 2).sum(axis=(1, 2)))))
        True
    """


class FallbackError(NotImplementedError):
    """strict=True and a parameter's per-example gradient would have been materialized.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> loss = lambda w, x: (x @ np.exp(w)).sum()
        >>> try:
        ...     ft.dp.per_example_grad_norms(loss, strict=True)(np.zeros((3, 2)), np.ones((4, 3)))
        ... except ft.dp.FallbackError:
        ...     print("refused")
        refused
    """


def _batched(x, vmap_level):
    return type(x) is BatchedTensor and x._interpreter is vmap_level and x.bdim is not None


def _size(x):
    n = 1
    for d in getattr(x, "shape", ()):
        n *= d
    return n


def _views(tape, views):
    """`views` (slot -> (leaf, transposed, leaf shape)) extended through the layout-only ops
    on them: a 2-d transpose flips `transposed`, an identity transpose keeps the view, and so
    does a row-major reshape of an untransposed view (tensordot's reshapes): a factored piece
    of it is reshaped to the leaf's shape."""
    for node in tape:
        src = node.in_slots[0] if node.in_slots else None
        if src not in views:
            continue
        leaf, t, shape = views[src]
        x = node.primals[0]
        if node.op is sh.transpose:
            axes = node.params.get("axes")
            if axes is not None and tuple(axes) == tuple(range(x.ndim)):
                views[node.out_slot] = views[src]
            elif x.ndim == 2:
                views[node.out_slot] = (leaf, not t, shape)
        elif node.op is sh.reshape and node.params.get("order", "C") == "C" and \
                (not t or tuple(node.out.shape) == tuple(x.shape)):
            views[node.out_slot] = views[src]
    return views


class _Reporter:
    """What a fallback report names: each parameter leaf by its pytree path, and the line of
    user code that called each op (recorded on the capture pass's tape)."""

    def __init__(self, strict, names, lines):
        self.strict, self.names, self.lines = strict, names, lines

    def report(self, node, k, tape, views):
        leaves = sorted(_parameters_of(tape, views, node.in_slots[k]))
        which = ", ".join(self.names[i] for i in leaves) or "a parameter"
        where = self.lines.get(id(node))
        code = linecache.getline(where[0], where[1]).strip() if where else ""
        at = f" at {where[0]}:{where[1]}" + (f" ({code})" if code else "") if where else ""
        what = (f"op {node.op.name!r}{at} reads {which} (operand {k}) in a way no factor rule "
                f"covers: its per-example gradient is materialized")
        if self.strict:
            raise FallbackError(what + " (strict=True)")
        what += "; the result is exact. Pass strict=True to make this an error."
        if where is None:
            warnings.warn(what, FallbackWarning, stacklevel=5)
            return
        filename, lineno, module_globals = where
        warnings.warn_explicit(what, FallbackWarning, filename, lineno,
                               module=module_globals.get("__name__"),
                               registry=module_globals.setdefault("__warningregistry__", {}))


def _parameters_of(tape, views, slot):
    """The parameter leaves `slot` was computed from: a forward walk of the tape (run only to
    name them in a report)."""
    deps = {s: {leaf} for s, (leaf, _, _) in views.items()}
    for node in tape:
        got = set()
        for s in node.in_slots:
            got |= deps.get(s, set())
        if got:
            outs = node.out_slot if type(node.out_slot) is tuple else (node.out_slot,)
            for out in outs:
                deps[out] = got
    return deps.get(slot, set())


class _RecordingInterpreter(ReverseInterpreter):
    """The capture pass's tape, with the user's source line of every op: the first frame
    outside the library (a few frames walked per op, on this pass only)."""

    def __init__(self, transform):
        super().__init__(transform)
        self.lines = {}

    def process(self, op, args, params):
        out = super().process(op, args, params)
        if self.tape and id(self.tape[-1]) not in self.lines:
            frame = sys._getframe(1)
            while frame is not None and frame.f_globals.get("__name__", "").startswith(
                    "functorch_lite."):
                frame = frame.f_back
            if frame is not None:
                self.lines[id(self.tape[-1])] = (frame.f_code.co_filename, frame.f_lineno,
                                                 frame.f_globals)
        return out


def _backward(tape, nslots, seeds, views, pieces, vmap_level, reporter):
    """The tape's backward pass, with factored pieces (appended to `pieces`, by leaf) in place
    of the parameters' cotangents; returns the cotangents by slot. `views` maps the slots of
    the parameter leaves to (leaf, False). See Note [the capture pass]."""
    views = _views(tape, views)
    cts = [None] * nslots
    for slot, ct in seeds:
        cts[slot] = ct if cts[slot] is None else fnp.add(cts[slot], ct)
    for node in reversed(tape):
        out_slot = node.out_slot
        if type(out_slot) is tuple:
            ct = tuple(cts[s] for s in out_slot)
            if all(c is None for c in ct):
                continue
            ct_sizes = [_size(c) for c in ct if c is not None]
        else:
            ct = cts[out_slot]
            if ct is None:
                continue
            ct_sizes = [_size(ct)]
        replay = getattr(node.op, "replay", None)
        if replay is not None:
            in_cts = _replay_backward(node, replay, ct, views, pieces, vmap_level, reporter)
        else:
            in_cts = _node_backward(node, ct, max(ct_sizes), views, pieces, vmap_level,
                                    reporter, tape)
        for slot, primal, g in zip(node.in_slots, node.primals, in_cts):
            if slot is None or g is None:
                continue
            g = fit_cotangent(g, primal)
            cts[slot] = g if cts[slot] is None else fnp.add(cts[slot], g)
    return cts


def _leaf_piece(piece, view):
    """A factored piece of a view, in its leaf's coordinates (None: not expressible)."""
    _, transposed, shape = view
    if piece is None or tuple(piece.shape) == shape and not transposed:
        return piece
    if not isinstance(piece, Outer):
        return None
    return piece.swapped(shape) if transposed else Outer(piece.left, piece.right, shape)


def _node_backward(node, ct, out_size, views, pieces, vmap_level, reporter, tape):
    """One node's operand cotangents; factored operands get pieces and None."""
    needed = [s is not None for s in node.in_slots]
    factor = FACTOR_RULES.get(node.op)
    for k, (slot, primal) in enumerate(zip(node.in_slots, node.primals)):
        if slot is None or _batched(primal, vmap_level):
            continue
        view = views.get(slot)
        if factor is not None and view is not None:
            piece = _leaf_piece(factor(ct, node.primals, k, node.params), view)
            if piece is not None:
                pieces[view[0]].append(piece)
                needed[k] = False
                continue
        if factor is not None or (node.op is not getitem and _size(primal) > out_size):
            reporter.report(node, k, tape, views)
    if not any(needed):
        return ()
    rule = node.op.rules["vjp"]
    if getattr(rule, "takes_needed", False):
        in_cts = rule(ct, node.primals, node.out, needed=tuple(needed), **node.params)
    else:
        in_cts = rule(ct, node.primals, node.out, **node.params)
    return [g if need else None for g, need in zip(in_cts, needed)]


def _replay_backward(node, replay, ct, views, pieces, vmap_level, reporter):
    """A checkpointed segment: recomputed on a tape of its own, whose backward pass is this
    one (so parameters read inside the segment are factored too)."""
    with ReverseInterpreter("dp checkpoint") as interp:
        inputs = [interp.new_leaf(v) for v in node.primals]
        outs = replay(*inputs, use_saved=True)
        del inputs
    tape, nslots = interp.tape, interp.nslots
    interp.tape = None
    seeds = [(o.slot, c) for o, c in zip(outs, ct)
             if c is not None and type(o) is GradTensor and o._interpreter is interp]
    inner_views = {j: views[s] for j, s in enumerate(node.in_slots) if s in views}
    cts = _backward(tape, nslots, seeds, inner_views, pieces, vmap_level, reporter)
    return cts[:len(node.primals)]


def examples(args, nums, argnums, transform):
    """The number of examples: axis 0 of every leaf of the arguments not in argnums, checked
    here so that a mistake is told in dp's terms (the user's argument positions; dp has no
    in_dims or axis_size, which vmap's own errors would suggest)."""
    sizes = []
    for i, a in enumerate(args):
        if i in nums:
            continue
        paths, leaves, _ = optree.tree_flatten_with_path(a)
        for path, leaf in zip(paths, leaves):
            name = f"argument {i}" + "".join(f"[{p!r}]" for p in path)
            shape = getattr(leaf, "shape", None)
            if not shape:
                what = "a 0-d array" if shape is not None else f"a {type(leaf).__name__}"
                raise ValueError(
                    f"{transform}: {name} is {what}, but every argument not in "
                    f"argnums={argnums!r} carries the examples on its axis 0; pass a value "
                    "shared by every example through the loss instead (functools.partial("
                    "loss, value=...) or a closure)")
            sizes.append((name, shape[0]))
    if not sizes:
        raise ValueError(f"{transform}: no per-example argument: every argument is in "
                         f"argnums={argnums!r}; pass the examples as the arguments not in "
                         "argnums, with the examples on axis 0 (loss(params, x, y) with "
                         "argnums=0)")
    if len({n for _, n in sizes}) > 1:
        raise ValueError(f"{transform}: the arguments not in argnums={argnums!r} hold "
                         "different numbers of examples on axis 0: "
                         + ", ".join(f"{name} has {n}" for name, n in sizes))
    return sizes[0][1]


def capture(loss, argnums, args, strict, transform):
    """(leaves, treespec, is_tuple, pieces by leaf with batched arrays, the number of
    examples). See Note [the capture pass]."""
    nums, is_tuple = normalize_argnums(argnums, len(args), transform)
    batch = examples(args, nums, argnums, transform)
    leaves, spec = flatten_diff_args(args, nums, transform)
    paths = optree.tree_flatten_with_path(tuple(args[i] for i in nums))[0]
    names = [f"argument {nums[p[0]]}" + "".join(f"[{k!r}]" for k in p[1:]) for p in paths]
    others = [a for i, a in enumerate(args) if i not in nums]
    meta = []

    def per_example(params, batch):
        vmap_level = stack()[-1]
        with _RecordingInterpreter(transform) as interp:
            wrapped = [interp.new_leaf(leaf) for leaf in params]
            it = iter(batch)
            full = [next(it) if i not in nums else None for i in range(len(args))]
            out = loss(*replace_args(tuple(full), nums, unflatten_selected(spec, wrapped)))
            del wrapped
            _check_scalar_output(out, transform)
        tape, nslots = interp.tape, interp.nslots
        interp.tape = None
        pieces = [[] for _ in params]
        if type(out) is GradTensor and out._interpreter is interp:
            views = {k: (k, False, tuple(getattr(leaf, "shape", ()))) for k, leaf in enumerate(params)}
            cts = _backward(tape, nslots, [(out.slot, _seed(out.value))], views, pieces,
                            vmap_level, _Reporter(strict, names, interp.lines))
            for k, leaf in enumerate(params):
                if cts[k] is not None:
                    pieces[k].append(Dense(fit_cotangent(cts[k], leaf)))
        meta.append(pieces)
        return [[p.arrays for p in ps] for ps in pieces]

    arrays = vmap(per_example, in_dims=(None, 0))(leaves, others)
    pieces = meta[-1]
    for ps, arrs in zip(pieces, arrays):
        for p, a in zip(ps, arrs):
            p.arrays = a
    return leaves, spec, is_tuple, pieces, batch


def leaf_structure(spec, values, is_tuple):
    """Per-leaf values in the structure of the differentiated arguments (as grad returns)."""
    out = unflatten_selected(spec, values)
    return out if is_tuple else out[0]


__all__ = ["capture", "leaf_structure", "FallbackWarning", "FallbackError"]
