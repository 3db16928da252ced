"""The public functions of functorch_lite.dp: per-example gradient norms, clipped sums and the
Gaussian noise of DP-SGD."""
import numbers

import numpy as np
import optree

from .. import numpy as fnp
from .. import random as frandom
from ..backend import is_array
from ..tensor import Tensor
from ..transforms._pytree import check_function
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
    check_function(loss, "per_example_grad_norms")

    def norms_fn(*args):
        leaves, spec, is_tuple, pieces, batch = capture(loss, argnums, args, strict,
                                                        "per_example_grad_norms")
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

    An example's clipping factor is min(1, C / norm), taken as 1 where norm <= C (a zero
    gradient, or C = inf). Per-layer clipping (Opacus's `clipping="per_layer"`): `max_norm`
    may be a pytree with exactly the structure of the differentiated arguments (thresholds are
    matched to leaves by structure, never by position), one threshold per leaf; each leaf of
    each example is then clipped to its own threshold, and the norms come back per leaf.

    Args:
        loss: loss(*args) -> a scalar, for one example.
        max_norm: the clipping norm C >= 0 (inf: no clipping, the plain sum; 0: zeros), or
            a pytree of them with the structure of the differentiated arguments (per-layer
            clipping). Anything else is a ValueError.
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
    check_function(loss, "clipped_grad_sum")
    limits_spec, limits = _thresholds(max_norm, "clipped_grad_sum")

    def clipped_fn(*args):
        leaves, spec, is_tuple, pieces, batch = capture(loss, argnums, args, strict,
                                                        "clipped_grad_sum")
        sq, pieces = _leaf_squared_norms(leaves, pieces)
        per_layer = limits_spec is not None
        if per_layer:
            _check_structure(limits_spec, leaf_structure(spec, leaves, is_tuple),
                             f"the differentiated arguments (argnums={argnums!r})",
                             "clipped_grad_sum")
        else:
            total = fnp.sqrt(_total(sq, batch, leaves[0]))
        sums, norms = [], []
        for leaf, ps, s, limit in zip(leaves, pieces, sq,
                                      limits if per_layer else limits * len(leaves)):
            if per_layer:
                norm = fnp.zeros((batch,), dtype=leaf.dtype) if s is None \
                    else fnp.sqrt(s)
                norms.append(norm)
            else:
                norm = total
            if not ps:
                sums.append(fnp.zeros_like(leaf))
                continue
            g = weighted_sum(ps, fnp.astype(_clip_factor(norm, limit), leaf.dtype))
            sums.append(fnp.astype(g, leaf.dtype))
        out = leaf_structure(spec, sums, is_tuple)
        return out, (leaf_structure(spec, norms, is_tuple) if per_layer else total)
    return clipped_fn


def _clip_factor(norm, limit):
    """min(1, C / norm), taken as 1 wherever norm <= C: C = inf clips nothing (the plain sum),
    and at C = 0 a zero gradient keeps factor 1 (it stays zero) while every other gets 0, so
    neither 0/0 nor inf/inf is ever formed."""
    over = norm > limit
    return fnp.where(over, limit / fnp.where(over, norm, 1), 1)


def _threshold(c, where, transform):
    """One clipping threshold checked: a real number >= 0 (inf: no clipping), as a float; a
    0-d value of a transform (a traced max_norm) passes on its dtype, its value unknown."""
    if isinstance(c, Tensor):
        if c.ndim == 0 and c.dtype.kind in "iuf":
            return c
    elif not isinstance(c, (bool, np.bool_)) and (
            isinstance(c, numbers.Real) or is_array(c) and c.ndim == 0 and c.dtype.kind in "iuf"):
        if float(c) >= 0:   # False for NaN
            return float(c)
    raise ValueError(f"{transform}: {where} must be a real number >= 0 (inf: no clipping), "
                     f"got {c!r}; per-layer clipping takes a pytree of such numbers with the "
                     "structure of the differentiated arguments")


def _thresholds(max_norm, transform):
    """max_norm checked once: (None, [C]) for one global threshold, or (its treespec, the
    thresholds by leaf) for per-layer ones."""
    spec = optree.tree_structure(max_norm)
    if spec.is_leaf():
        return None, [_threshold(max_norm, "max_norm", transform)]
    paths, leaves, spec = optree.tree_flatten_with_path(max_norm)
    if not leaves:
        raise ValueError(f"{transform}: max_norm must be a real number >= 0 or a pytree of "
                         f"them, got {max_norm!r}, which holds no threshold")
    return spec, [_threshold(c, "max_norm" + "".join(f"[{p!r}]" for p in path), transform)
                  for path, c in zip(paths, leaves)]


def _check_structure(limits_spec, reference, what, transform):
    """Per-layer thresholds are matched to leaves by structure, never by position alone."""
    expected = optree.tree_structure(reference)
    if limits_spec != expected:
        raise ValueError(f"{transform}: a per-layer max_norm must have the structure of {what}, "
                         f"{expected}; got {limits_spec}. Give one threshold per leaf in that "
                         "structure, or one number for a global norm")


def add_noise(key, clipped_sum, noise_multiplier, max_norm):
    """clipped_sum + N(0, (noise_multiplier * C)^2) in every element: the Gaussian mechanism of
    DP-SGD, with an explicit random key (functorch_lite.random).

    For per-layer thresholds (a pytree max_norm) the sensitivity C is the norm of the vector
    of thresholds, sqrt(sum_l C_l^2), as in Opacus.

    Args:
        key: a key of functorch_lite.random; one split per leaf.
        clipped_sum: the sum from clipped_grad_sum (any pytree of arrays).
        noise_multiplier: sigma, the noise's standard deviation in units of C.
        max_norm: the finite clipping norm C >= 0 the sum was clipped to, or the pytree of
            per-layer thresholds (clipped_sum's structure).

    Returns:
        The noisy sum, with clipped_sum's structure and dtypes.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> noisy = ft.dp.add_noise(ft.random.key(0), {"w": np.zeros(4)}, 1.0, 0.5)
        >>> noisy["w"].shape
        (4,)
    """
    limits_spec, limits = _thresholds(max_norm, "add_noise")
    if limits_spec is not None:
        _check_structure(limits_spec, clipped_sum, "clipped_sum", "add_noise")
    if any(not isinstance(c, Tensor) and c == np.inf for c in limits):
        raise ValueError("add_noise: max_norm=inf (no clipping) bounds no example's "
                         "contribution, so no noise scale makes the sum private; pass the "
                         "finite max_norm the sum was clipped to")
    sensitivity = fnp.sqrt(sum(fnp.square(fnp.asarray(c, dtype=float)) for c in limits))
    leaves, spec = optree.tree_flatten(clipped_sum)
    keys = frandom.split(key, len(leaves)) if leaves else []
    std = noise_multiplier * sensitivity
    noisy = [leaf + fnp.astype(std * frandom.normal(k, fnp.shape(leaf),
                                                    dtype=leaf.dtype),
                               leaf.dtype)
             for leaf, k in zip(leaves, keys)]
    return spec.unflatten(noisy)
