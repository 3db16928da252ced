"""The public functions of functorch_lite.dp: per-example gradient norms, clipped sums and the
Gaussian noise of DP-SGD."""
import optree

from .. import numpy as fnp
from .. import random as frandom
from ._pieces import squared_norms, weighted_sum
from ._trace import capture, leaf_structure


def _leaf_squared_norms(leaves, pieces):
    """Per leaf: (B,) squared norms (None for a leaf no gradient reaches) and its pieces."""
    sq, kept = [], []
    for leaf, ps in zip(leaves, pieces):
        s, ps = squared_norms(ps, _size(leaf)) if ps else (None, ps)
        sq.append(s)
        kept.append(ps)
    return sq, kept


def _size(x):
    n = 1
    for d in getattr(x, "shape", ()):
        n *= d
    return n


def _batch_size(args, nums):
    for i, a in enumerate(args):
        if i not in nums:
            leaves = optree.tree_leaves(a)
            if leaves:
                return fnp.shape(leaves[0])[0]
    raise ValueError("no batched argument: pass the examples as the arguments not in argnums")


def _total(sq, batch, like):
    total = None
    for s in sq:
        if s is not None:
            total = s if total is None else total + s
    return fnp.zeros((batch,), dtype=like.dtype) if total is None else total


def per_example_grad_norms(loss, argnums=0, *, per_leaf=False, strict=False):
    """The L2 norm of each example's gradient, without forming the per-example gradients.

    `loss` is written for one example, as for `vmap(grad(loss), in_dims=(None, 0, ...))`: the
    arguments in `argnums` (the parameters, any pytree) are shared, every other positional
    argument carries the examples on axis 0. The result equals the norms of the materialized
    per-example gradients (to rounding): parameters read by matrix products, gathers
    (embeddings) and convolutions contribute through their factors (the ghost norm, or the
    direct product for the one layer at hand when that is smaller), elementwise parameters
    (biases, norm scales) through their per-example sums. See docs/dp_sgd.md.

    Args:
        loss: loss(*args) -> a scalar, for one example.
        argnums: int or tuple of ints, the differentiated (shared) arguments.
        per_leaf: also return each leaf's norms, in the structure of the differentiated
            arguments.
        strict: raise FallbackError instead of warning when a parameter's per-example
            gradient has to be materialized (an op with no factor rule reads it).

    Returns:
        A function of loss's arguments returning the (B,) norms, or (norms, per-leaf norms)
        with per_leaf=True.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> loss = lambda w, x: ((x @ w) ** 2).sum()
        >>> w, x = np.ones((3, 2)), np.arange(6.0).reshape(2, 3)
        >>> norms = ft.dp.per_example_grad_norms(loss)(w, x)
        >>> per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0))(w, x)
        >>> bool(np.allclose(norms, np.sqrt((per_example ** 2).sum(axis=(1, 2)))))
        True
    """
    def norms_fn(*args):
        leaves, spec, is_tuple, nums, pieces = capture(loss, argnums, args, strict,
                                                       "per_example_grad_norms")
        batch = _batch_size(args, nums)
        sq, _ = _leaf_squared_norms(leaves, pieces)
        total = fnp.sqrt(_total(sq, batch, leaves[0]))
        if not per_leaf:
            return total
        zeros = fnp.zeros((batch,), dtype=leaves[0].dtype)
        return total, leaf_structure(spec, [zeros if s is None else fnp.sqrt(s) for s in sq],
                                     is_tuple)
    return norms_fn


def clipped_grad_sum(loss, max_norm, argnums=0, *, strict=False):
    """sum_i g_i min(1, max_norm / ||g_i||) over the examples i, and the norms ||g_i||, without
    forming the per-example gradients g_i.

    Equal to clipping the materialized per-example gradients (vmap(grad) then clip, then sum)
    to rounding; one forward and one backward pass (book-keeping: the clipped sum is one
    contraction of the kept factors weighted by each example's clipping factor). The arguments
    are those of `per_example_grad_norms`.

    Per-layer clipping (Opacus's `clipping="per_layer"`): `max_norm` may be a pytree with the
    structure of the differentiated arguments, one threshold per leaf; each leaf of each
    example is then clipped to its own threshold, and the norms come back per leaf.

    Args:
        loss: loss(*args) -> a scalar, for one example.
        max_norm: the clipping norm C > 0, or a pytree of them (per-layer clipping).
        argnums: int or tuple of ints, the differentiated (shared) arguments.
        strict: raise FallbackError instead of warning when a parameter's per-example
            gradient has to be materialized.

    Returns:
        A function of loss's arguments returning (clipped sum, norms): the sum has the
        structure, shapes and dtypes of the differentiated arguments (as grad's result); the
        norms are (B,), or a pytree of (B,) per leaf for per-layer thresholds.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> loss = lambda w, x: ((x @ w) ** 2).sum()
        >>> w, x = np.ones((3, 2)), np.arange(6.0).reshape(2, 3)
        >>> total, norms = ft.dp.clipped_grad_sum(loss, 1.0)(w, x)
        >>> g = ft.vmap(ft.grad(loss), in_dims=(None, 0))(w, x)
        >>> scale = np.minimum(1, 1.0 / np.sqrt((g ** 2).sum(axis=(1, 2))))
        >>> bool(np.allclose(total, np.tensordot(scale, g, axes=1)))
        True
    """
    def clipped_fn(*args):
        leaves, spec, is_tuple, nums, pieces = capture(loss, argnums, args, strict,
                                                       "clipped_grad_sum")
        batch = _batch_size(args, nums)
        sq, pieces = _leaf_squared_norms(leaves, pieces)
        per_layer = not _is_number(max_norm)
        if per_layer:
            nums_t = tuple(nums)
            limits = optree.tree_leaves(max_norm)
            if len(limits) != len(leaves):
                raise ValueError(f"clipped_grad_sum: max_norm has {len(limits)} thresholds "
                                 f"for {len(leaves)} parameter leaves (argnums {nums_t})")
        else:
            limits = [max_norm] * len(leaves)
            total = fnp.sqrt(_total(sq, batch, leaves[0]))
        sums, norms = [], []
        for leaf, ps, s, limit in zip(leaves, pieces, sq, limits):
            if per_layer:
                norm = fnp.zeros((batch,), dtype=leaf.dtype) if s is None \
                    else fnp.sqrt(s)
                norms.append(norm)
            else:
                norm = total
            if not ps:
                sums.append(fnp.zeros_like(leaf))
                continue
            c = limit / fnp.maximum(norm, limit)           # min(1, C / norm); 1 at norm 0
            g = weighted_sum(ps, fnp.astype(c, leaf.dtype))
            sums.append(fnp.astype(g, leaf.dtype))
        out = leaf_structure(spec, sums, is_tuple)
        return out, (leaf_structure(spec, norms, is_tuple) if per_layer else total)
    return clipped_fn


def _is_number(x):
    return isinstance(x, (int, float)) or fnp.ndim(x) == 0 and not isinstance(x, (dict, list,
                                                                                  tuple))


def add_noise(key, clipped_sum, noise_multiplier, max_norm):
    """clipped_sum + N(0, (noise_multiplier * C)^2) in every element: the Gaussian mechanism of
    DP-SGD, with an explicit random key (functorch_lite.random).

    For per-layer thresholds (a pytree max_norm) the sensitivity C is the norm of the vector
    of thresholds, sqrt(sum_l C_l^2), as in Opacus.

    Args:
        key: a key of functorch_lite.random; one split per leaf.
        clipped_sum: the sum from clipped_grad_sum (any pytree of arrays).
        noise_multiplier: sigma, the noise's standard deviation in units of C.
        max_norm: the clipping norm C, or the pytree of per-layer thresholds.

    Returns:
        The noisy sum, with clipped_sum's structure and dtypes.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> noisy = ft.dp.add_noise(ft.random.key(0), {"w": np.zeros(4)}, 1.0, 0.5)
        >>> noisy["w"].shape
        (4,)
    """
    limits = [max_norm] if _is_number(max_norm) else optree.tree_leaves(max_norm)
    sensitivity = fnp.sqrt(sum(fnp.square(fnp.asarray(c, dtype=float)) for c in limits))
    leaves, spec = optree.tree_flatten(clipped_sum)
    keys = frandom.split(key, len(leaves)) if leaves else []
    std = noise_multiplier * sensitivity
    noisy = [leaf + fnp.astype(std * frandom.normal(k, fnp.shape(leaf),
                                                    dtype=leaf.dtype),
                               leaf.dtype)
             for leaf, k in zip(leaves, keys)]
    return spec.unflatten(noisy)
