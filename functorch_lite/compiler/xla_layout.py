"""The XLA backend's lazy transposes: a transpose is carried as (base, perm) through the ops that
can read it so, and computed only where an op needs the array itself.

Note [lazy transposes in the XLA lowering]
------------------------------------------
Batching rules move batch dims as NumPy views cost nothing (docs/architecture.md): a matrix times
a batch of vectors is `W @ reshape(transpose(X))`, its result moved back by another transpose,
and a Hessian is chains of such moves. XLA computes every transpose that a dot or a fusion's
output layout does not absorb: lowered one op at a time, a vmap(hessian) MLP compiled to eleven
transposing copies where JAX's own trace of the same program has one, and ran 10-15% slower
(the pinn row of benchmarks/research_programs.py; with these rules its HLO is JAX's).

So the lowering (xla.lower_program) keeps the result of a transpose as `Permuted(base, perm)`,
the value `transpose(base, perm)` not yet computed, and these ops read it without computing it:
  - transpose: composes the permutations;
  - reshape (C order): when each run of axes it merges or splits is a run of consecutive axes
    of the base, in order, it reshapes the base and permutes the result;
  - elementwise ops: when every other operand, broadcast to the result's rank and permuted
    back, needs no transpose (a scalar, a vector along one axis, another Permuted value of the
    same permutation), the op runs on the bases and its result is permuted;
  - reductions: over the base's axes that the reduced axes are;
  - matmul of floating matrices and vectors: one dot_general on the bases, its contracting
    dimensions read from the permutations. When the right operand is transposed and every
    reader of the product only moves it (transposes it, or reshapes it into a value so read),
    it computes the transposed product b^T @ a^T, whose rows are the batch the right operand
    carries, and returns it permuted: the transpose the batching rule writes next cancels it.
    An operand that several equations read (a weight's transpose, read by every step's
    product) is computed once instead, since XLA's small dots read a transposed operand more
    slowly than a copy.
Any other reader, the program's outputs and a loop's operands get the computed transpose (one
per value, whatever the number of readers). A permutation that moves only axes of length one is
a reshape and is never carried, so no value is carried lazily that costs nothing to compute.
Transposes, reshapes and elementwise ops on permuted operands are exact; a dot or reduction over
the base may add in another order, which XLA is free to choose anyway (xla_checks.RTOL). The
NumPy backend never sees any of this.
"""
import jax.numpy as jnp
import numpy as np
from jax import lax

from .xla_lowerings import LOWERINGS, UFUNCS, _HIGHEST, _promote


class Permuted:
    """The value `jnp.transpose(base, perm)`, not yet computed (Note [lazy transposes ...])."""
    __slots__ = ("base", "perm", "value")

    def __init__(self, base, perm):
        self.base, self.perm, self.value = base, perm, None

    @property
    def shape(self):
        return tuple(self.base.shape[p] for p in self.perm)

    @property
    def ndim(self):
        return len(self.perm)

    @property
    def dtype(self):
        return self.base.dtype


def permute(x, perm):
    """x transposed by perm: a Permuted value, or an array where only unit axes move."""
    if isinstance(x, Permuted):
        x, perm = x.base, tuple(x.perm[p] for p in perm)
    shape = tuple(x.shape[p] for p in perm)
    moved = [p for p in perm if x.shape[p] != 1]
    if moved == sorted(moved):
        return x if shape == tuple(x.shape) else jnp.reshape(x, shape)
    return Permuted(x, tuple(perm))


def computed(x):
    """x as an array: a Permuted value's transpose is computed here, once for all its readers
    (within a loop body, copies of one transpose would each be hoisted and carried)."""
    if not isinstance(x, Permuted):
        return x
    if x.value is None:
        x.value = jnp.transpose(x.base, x.perm)
    return x.value


def _inverse(perm):
    return tuple(int(k) for k in np.argsort(perm))


def _reshape(x, shape):
    """A Permuted value reshaped (C order) to shape, or None where that needs its transpose."""
    base, perm = x.base, x.perm
    if 0 in base.shape:
        return None
    logical = [a for a in range(len(perm)) if base.shape[perm[a]] != 1]
    target = [d for d in shape if d != 1]
    order = [p for p in range(base.ndim) if base.shape[p] != 1]
    place = {p: i for i, p in enumerate(order)}   # a non-unit base axis's rank among them
    runs = []   # (first base rank, target dims) per run of axes the reshape merges or splits
    for axes, dims in _groups([base.shape[perm[a]] for a in logical], target):
        at = [place[perm[logical[i]]] for i in axes]
        if at != list(range(at[0], at[0] + len(at))):
            return None   # the run is not consecutive axes of the base, in order
        runs.append((at[0], [target[j] for j in dims]))
    by_base = sorted(range(len(runs)), key=lambda g: runs[g][0])
    new_shape, start = [], {}
    for g in by_base:
        start[g] = len(new_shape)
        new_shape += runs[g][1]
    axes = iter([start[g] + i for g in range(len(runs)) for i in range(len(runs[g][1]))])
    units = iter(range(len(new_shape), len(shape) - len(target) + len(new_shape)))
    full = tuple(next(units) if d == 1 else next(axes) for d in shape)
    return permute(jnp.reshape(base, tuple(new_shape) + (1,) * (len(shape) - len(target))),
                   full)


def _groups(source, target):
    """The runs (source positions, target positions) of dims of equal products that a reshape
    from source to target dims (none of them 0 or 1) merges or splits."""
    groups, i, j = [], 0, 0
    while i < len(source):
        src, tgt, ps, pt = [i], [j], source[i], target[j]
        i, j = i + 1, j + 1
        while ps != pt:
            if ps < pt:
                src.append(i)
                ps, i = ps * source[i], i + 1
            else:
                tgt.append(j)
                pt, j = pt * target[j], j + 1
        groups.append((src, tgt))
    return groups


def _elementwise(lower):
    """The op on the bases, where every operand aligns with the first Permuted one's
    permutation without a transpose (None otherwise)."""
    def lazy(ctx, eqn, *operands, **params):
        perm = _reference(operands, len(eqn.outs[0].shape))
        if perm is None:
            return None
        back = _inverse(perm)
        aligned = []
        for x in operands:
            if getattr(x, "ndim", 0) == 0:   # a Python or 0-d value broadcasts as it is
                aligned.append(x)
                continue
            y = permute(_expand(x, len(perm)), back)
            if isinstance(y, Permuted):
                return None
            aligned.append(y)
        return permute(lower(ctx, *aligned, **params), perm)
    return lazy


def _reference(operands, rank):
    """The permutation of the first Permuted operand, at the result's rank (None if none)."""
    for x in operands:
        if isinstance(x, Permuted):
            lead = rank - x.ndim
            return tuple(range(lead)) + tuple(lead + p for p in x.perm)
    return None


def _expand(x, rank):
    """x with unit axes in front up to rank (as broadcasting reads it)."""
    lead = rank - len(x.shape)
    if lead == 0:
        return x
    if isinstance(x, Permuted):
        return Permuted(jnp.reshape(x.base, (1,) * lead + tuple(x.base.shape)),
                        tuple(range(lead)) + tuple(lead + p for p in x.perm))
    return jnp.reshape(x, (1,) * lead + tuple(x.shape))


def _transpose(ctx, eqn, x, axes=None):
    if not hasattr(x, "ndim"):
        return None
    return permute(x, tuple(range(x.ndim))[::-1] if axes is None else
                   tuple(a % x.ndim for a in axes))


def _reshape_lazy(ctx, eqn, x, shape, order="C"):   # shape may hold -1: the result's is read
    if not isinstance(x, Permuted) or order != "C":
        return None
    return _reshape(x, eqn.outs[0].shape)


def _reduction(name):
    """The reduction over the base's axes that the reduced axes are."""
    lower = LOWERINGS[name]

    def lazy(ctx, eqn, x, axis=None, keepdims=False, **params):
        if not isinstance(x, Permuted):
            return None
        axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
        axes = tuple(a % x.ndim for a in axes)
        base_axes = tuple(sorted(x.perm[a] for a in axes))
        y = lower(ctx, x.base, axis=base_axes, keepdims=keepdims, **params)
        if keepdims:
            return permute(y, x.perm)
        kept = [x.perm[a] for a in range(x.ndim) if a not in axes]
        rank = {p: i for i, p in enumerate(sorted(kept))}
        return permute(y, tuple(rank[p] for p in kept))
    return lazy


def _matmul(ctx, eqn, a, b):
    """Note [lazy transposes in the XLA lowering]: a product of matrices or vectors as one
    dot_general on the bases."""
    a, b = (computed(x) if _shared(ctx, atom) else x for x, atom in zip((a, b), eqn.ins))
    if not (isinstance(a, Permuted) or isinstance(b, Permuted)) or a.ndim > 2 or b.ndim > 2 \
            or not all(jnp.issubdtype(x.dtype, jnp.inexact) for x in (a, b)):
        return None
    a_base, b_base = _promote(_base(a), _base(b))
    ka = a.ndim - 1 if not isinstance(a, Permuted) else a.perm[1]   # a's contracting axis
    kb = 0 if not isinstance(b, Permuted) else b.perm[0]
    if isinstance(b, Permuted) and a.ndim == 2 and _only_moved(ctx, eqn.outs[0]):
        # (a @ b)^T = b^T @ a^T: b's base's rows (a batch folded into b) stay rows
        y = lax.dot_general(b_base, a_base, (((kb,), (ka,)), ((), ())), precision=_HIGHEST)
        return permute(y, (1, 0))
    return lax.dot_general(a_base, b_base, (((ka,), (kb,)), ((), ())), precision=_HIGHEST)


def _shared(ctx, atom):
    """Whether several equations read atom (a weight's transpose read by every step's product):
    computed once, it is read in the order each product wants, where XLA's dot would otherwise
    reorder a transposed operand again for each one (13% slower for 20 x 64 x 50 products)."""
    return len(ctx.readers.get(getattr(atom, "id", None), ())) > 1


def _only_moved(ctx, var):
    """Whether every reader of var transposes it, or reshapes it into a value so read."""
    readers = ctx.readers.get(var.id, ())
    return bool(readers) and all(
        e is not None and (e.op.name == "transpose" or e.op.name == "reshape"
                           and _only_moved(ctx, e.outs[0])) for e in readers)


def readers(program):
    """var id -> the equations that read it (None for the program's outputs)."""
    found = {}
    for eqn in program.eqns:
        for a in eqn.ins:
            if hasattr(a, "id"):
                found.setdefault(a.id, []).append(eqn)
    for a in program.outputs:
        if hasattr(a, "id"):
            found.setdefault(a.id, []).append(None)
    return found


def _base(x):
    return x.base if isinstance(x, Permuted) else x


ELEMENTWISE = (*UFUNCS, "where", "lax_select", "astype", "stop_gradient", "copy")
"""Ops whose every result element reads the operands' elements at its own index."""

LAZY = {name: _elementwise(LOWERINGS[name]) for name in ELEMENTWISE}
LAZY.update({"transpose": _transpose, "reshape": _reshape_lazy, "matmul": _matmul})
LAZY.update({name: _reduction(name) for name in ("sum", "prod", "max", "min", "all", "any")})
"""`lazy(ctx, eqn, *operands, **params)` for the ops that read Permuted operands: their
result (an array or a Permuted value), or None where the op needs its operands computed."""
