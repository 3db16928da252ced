"""check_vmap: a vmapped function against a Python loop over the batch (public test helper)."""
import numpy as np
import optree

from ..batching_rules.fallback import fallback_as_error
from ..transforms.vmap import vmap


def _take(x, dim, i):
    return x[(slice(None),) * (dim % x.ndim) + (i,)]


def loop_reference(fn, args, in_dims=0, out_dims=0, axis_size=None, kwargs=None):
    """What vmap(fn, in_dims, out_dims)(*args) must equal, by a Python loop.

    fn is called once per example on plain NumPy values (each batched leaf indexed at its
    in_dim) and the results are stacked at out_dims: an independent reference for vmap.

    Args:
        fn: the function to map.
        args: tuple of positional arguments (pytrees of arrays).
        in_dims: int, None, or a tuple with one entry (an int, None or a pytree prefix) per
            argument, as vmap's.
        out_dims: int, None or a pytree prefix of the output, as vmap's.
        axis_size: the batch size when no argument is batched.
        kwargs: keyword arguments passed to every call (never mapped over).

    Returns:
        fn's output structure with every leaf stacked over the batch at its out_dim.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import loop_reference
        >>> loop_reference(lambda x: x.sum(), (np.ones((3, 4)),))
        array([4., 4., 4.])
    """
    kwargs = kwargs or {}
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    per_arg = []
    size = axis_size
    for a, d in zip(args, dims):
        leaves, spec = optree.tree_flatten(a)
        dleaves = optree.tree_broadcast_prefix(d, a, none_is_leaf=True) if d is not None \
            and not isinstance(d, int) else None
        dl = optree.tree_leaves(dleaves, none_is_leaf=True) if dleaves is not None else \
            [d] * len(leaves)
        per_arg.append((leaves, spec, dl))
        for leaf, ld in zip(leaves, dl):
            if ld is not None:
                size = leaf.shape[ld]
    outs = []
    for i in range(size):
        example = [spec.unflatten([leaf if ld is None else _take(np.asarray(leaf), ld, i)
                                   for leaf, ld in zip(leaves, dl)])
                   for leaves, spec, dl in per_arg]
        outs.append(fn(*example, **kwargs))
    first, spec = optree.tree_flatten(outs[0])
    if isinstance(out_dims, int) or out_dims is None:
        odims = [out_dims] * len(first)
    else:
        odims = optree.tree_leaves(optree.tree_broadcast_prefix(out_dims, outs[0],
                                                                none_is_leaf=True),
                                   none_is_leaf=True)
    all_leaves = [optree.tree_leaves(o) for o in outs]
    stacked = []
    for k, od in enumerate(odims):
        if od is None:
            stacked.append(first[k])
        else:
            stacked.append(np.stack([np.asarray(lv[k]) for lv in all_leaves], axis=od))
    return spec.unflatten(stacked)


def check_vmap(fn, args, in_dims=0, out_dims=0, *, rtol=1e-7, atol=1e-12, check_dtype=True,
               allow_fallback=True, kwargs=None):
    """Assert that vmap(fn, in_dims, out_dims)(*args) equals a Python loop over the batch:
    same structure, shapes, dtypes, and values within rtol/atol. With allow_fallback False, a
    loop fallback inside vmap (an op with no batching rule) fails the check.

    Args:
        fn: the function to map.
        args: tuple of positional arguments (pytrees of arrays).
        in_dims: vmap's in_dims.
        out_dims: vmap's out_dims.
        rtol: relative tolerance of the value comparison.
        atol: absolute tolerance of the value comparison.
        check_dtype: compare dtypes as well.
        allow_fallback: accept vmap's per-example loop fallback for ops without a batch rule.
        kwargs: keyword arguments passed to fn (never mapped over).

    Returns:
        The vmap result.

    Raises:
        AssertionError: the batched result differs from the loop (naming the output leaf).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import check_vmap
        >>> xs = np.linspace(0.1, 1.0, 12).reshape(3, 4)
        >>> check_vmap(lambda x: np.log(np.cosh(x)), (xs,), in_dims=1).shape
        (4, 3)
    """
    kwargs = kwargs or {}
    expected = loop_reference(fn, args, in_dims, out_dims, kwargs=kwargs)
    with fallback_as_error(not allow_fallback):
        got = vmap(fn, in_dims, out_dims)(*args, **kwargs)
    g_leaves, g_spec = optree.tree_flatten(got)
    e_leaves, e_spec = optree.tree_flatten(expected)
    assert g_spec == e_spec, f"vmap output structure {g_spec} != loop structure {e_spec}"
    for k, (g, e) in enumerate(zip(g_leaves, e_leaves)):
        g_arr, e_arr = np.asarray(g), np.asarray(e)
        assert g_arr.shape == e_arr.shape, \
            f"output {k}: vmap shape {g_arr.shape} != loop shape {e_arr.shape}"
        if check_dtype:
            assert g_arr.dtype == e_arr.dtype, \
                f"output {k}: vmap dtype {g_arr.dtype} != loop dtype {e_arr.dtype}"
        np.testing.assert_allclose(g_arr, e_arr, rtol=rtol, atol=atol,
                                   err_msg=f"output {k} of vmap differs from the loop")
    return got
