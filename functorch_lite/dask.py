"""The Dask bridge: vmap over Dask arrays, and gradient sums over a Dask-chunked batch.

The library schedules nothing itself (docs/architecture.md). A vmapped function whose batched
arguments include a `dask.array.Array` becomes a Dask graph: the batch dimension keeps its chunks,
every other dimension is rechunked to one chunk, and the in-memory vmap runs once per batch chunk
through `dask.array.blockwise`. Unbatched arguments enter the graph once, as one key each, so a
cluster ships the parameters to a worker once per graph, not once per task. `grad_sum` maps the
gradient of each chunk's loss sum over the chunks and adds the per-chunk gradients with Dask's own
tree reduction (`Array.sum(split_every=...)`). Whatever scheduler Dask would use runs the graph:
its threads by default, or the `distributed.Client` the user has opened.

Install with the `dask` extra, from a clone: `pip install -e ".[dask]"`.
"""
import functools
import importlib.util
import sys

import numpy as np
import optree

from .transforms.vmap import _batch_size, _out_dims_per_leaf, register_handover, vmap
from .tree import ravel

if importlib.util.find_spec("dask") is None:  # pragma: no cover - only without the extra
    raise ImportError("functorch_lite.dask needs Dask: install the extra with "
                      "pip install \"dask[array]\" distributed (or, from a clone, pip install -e \".[dask]\")")
# Dask itself is imported where it is used: functorch_lite imports this module whenever Dask is
# installed (vmap hands Dask arrays to it), and importing Dask takes seconds.

__all__ = ["is_dask_array", "vmap_over_chunks", "grad_sum", "value_and_grad_sum",
           "chunk_memory_limit"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__


def is_dask_array(x):
    """Whether `x` is a dask.array.Array.

    The test vmap uses to send a call to vmap_over_chunks: any batched argument leaf for which
    it holds turns the call into a Dask graph.

    Args:
        x: any object.

    Returns:
        True for a dask.array.Array (not for Dask delayed objects or NumPy arrays), else False.

    Examples:
        >>> import numpy as np, dask.array as da
        >>> from functorch_lite.dask import is_dask_array
        >>> is_dask_array(da.ones(3, chunks=1)), is_dask_array(np.ones(3))
        (True, False)
    """
    da = sys.modules.get("dask.array")   # no Dask array exists before it is imported
    return da is not None and isinstance(x, da.Array)


def chunk_memory_limit():
    """Bytes one rechunked input chunk may hold.

    vmap over a Dask array makes every non-batch dimension one chunk; before building the graph
    it checks each such chunk against this limit and raises MemoryError rather than let a
    worker run out of memory. The limit is the config value `functorch_lite.chunk-limit`
    (`dask.config.set({"functorch_lite.chunk-limit": "2GB"})`) if set, else the smallest
    worker memory limit of the active `distributed.Client`, else None (no limit: the threads
    scheduler shares this process's memory).

    Returns:
        The limit in bytes (an int), or None.

    Raises:
        ValueError: the config value is a string Dask cannot read as a size ("2GB", "500 MiB").

    Examples:
        >>> import dask
        >>> from functorch_lite.dask import chunk_memory_limit
        >>> with dask.config.set({"functorch_lite.chunk-limit": "2GB"}):
        ...     chunk_memory_limit()
        2000000000
    """
    import dask
    limit = dask.config.get("functorch_lite.chunk-limit", None)
    if limit is not None:
        return dask.utils.parse_bytes(limit) if isinstance(limit, str) else int(limit)
    try:
        from distributed import default_client
        client = default_client()
    except (ImportError, ValueError):
        return None
    limits = [w.get("memory_limit") for w in client.scheduler_info()["workers"].values()]
    limits = [m for m in limits if m]
    return min(limits) if limits else None


def _check_chunk_fits(x, bdim, name):
    import dask
    limit = chunk_memory_limit()
    if limit is None:
        return
    biggest = max(x.chunks[bdim]) if x.chunks[bdim] else 0
    per_example = int(np.prod([s for i, s in enumerate(x.shape) if i != bdim]))
    nbytes = biggest * per_example * x.dtype.itemsize
    if nbytes > limit:
        raise MemoryError(
            f"vmap over a Dask array: {name} would hold {dask.utils.format_bytes(nbytes)} per "
            f"chunk once its non-batch dimensions are one chunk, more than the memory limit "
            f"{dask.utils.format_bytes(limit)}; give the batch dimension smaller chunks "
            f"(x.rechunk({{{bdim}: n}})) or raise functorch_lite.chunk-limit")


def _map_chunks(chunk_fn, leaves, dims):
    """Run `chunk_fn(*chunk_leaves)` once per batch chunk through `da.blockwise`.

    Batched leaves keep the batch chunks of the first batched Dask leaf, every other dimension
    becomes one chunk; unbatched leaves enter the graph once each. Returns (boxes, operands,
    batch_chunks): `boxes` has one object element per chunk holding what chunk_fn returned.
    """
    import dask
    import dask.array as da
    first = next(k for k, (x, d) in enumerate(zip(leaves, dims))
                 if d is not None and is_dask_array(x))
    ref = leaves[first]
    bchunks = ref.chunks[dims[first] % ref.ndim]
    if any(np.isnan(c) for c in bchunks):
        raise ValueError("vmap over a Dask array needs known chunk sizes along the batch "
                         "dimension; call x.compute_chunk_sizes() first")
    operands, blockwise_args = [], []
    for k, (x, d) in enumerate(zip(leaves, dims)):
        if d is None:
            # One graph key per constant: shipped to each worker once, not once per task.
            x = dask.delayed(x, pure=True) if hasattr(x, "shape") else x
            operands.append(x)
            blockwise_args += [x, None]
            continue
        d %= x.ndim
        target = {i: (bchunks if i == d else -1) for i in range(x.ndim)}
        x = x.rechunk(target) if is_dask_array(x) else da.from_array(x, chunks=target)
        _check_chunk_fits(x, d, f"argument leaf {k}")
        operands.append(x)
        blockwise_args += [x, tuple("b" if i == d else f"{k}.{i}" for i in range(x.ndim))]

    def boxed(*chunk_leaves):
        box = np.empty(1, dtype=object)  # one block of an object array holds the result
        box[0] = chunk_fn(*chunk_leaves)
        return box

    boxes = da.blockwise(boxed, "b", *blockwise_args, concatenate=True, dtype=object,
                         meta=np.empty((0,), dtype=object), adjust_chunks={"b": 1})
    return boxes, operands, bchunks


def vmap_over_chunks(func, in_dims, out_dims, args, kwargs, leaves, dims):
    """vmap(func, in_dims, out_dims)(*args, **kwargs) as a Dask graph, one task per batch chunk.

    What ft.vmap calls when a batched argument is a Dask array; call ft.vmap instead unless you
    already have the leaves and their dims. Batched leaves keep the batch chunks of the first
    batched Dask leaf and become one chunk in every other dimension; unbatched leaves enter the
    graph once each. The first example is computed at once to learn the outputs' structure,
    shapes and dtypes; the rest is lazy.

    Args:
        func: the function to map, as for vmap.
        in_dims: vmap's in_dims.
        out_dims: vmap's out_dims.
        args: the positional arguments (a tuple).
        kwargs: the keyword arguments (a dict, never mapped over).
        leaves: the leaves of `args` in optree's order.
        dims: the batch dim of each leaf (None for an unbatched one).

    Returns:
        The outputs of vmap, with the structure of func's output, as Dask arrays chunked along
        their batch dim as the input was.

    Raises:
        ValueError: the batch dimension's chunk sizes are unknown (NaN).
        MemoryError: a rechunked input chunk would exceed chunk_memory_limit().

    Examples:
        >>> import optree, dask.array as da
        >>> from functorch_lite.dask import vmap_over_chunks
        >>> args = (da.ones((6, 3), chunks=2),)
        >>> out = vmap_over_chunks(lambda r: r.sum(), 0, 0, args, {}, optree.tree_leaves(args), [0])
        >>> out.chunks, out.compute().tolist()
        (((2, 2, 2),), [3.0, 3.0, 3.0, 3.0, 3.0, 3.0])
    """
    import dask.array as da
    mapped = vmap(func, in_dims=in_dims, out_dims=out_dims)
    rebuild = functools.partial(optree.tree_unflatten, optree.tree_structure(args))
    boxes, operands, bchunks = _map_chunks(
        lambda *chunk: mapped(*rebuild(chunk), **kwargs), leaves, dims)
    meta_out = _first_example(mapped, operands, dims, rebuild, kwargs)
    out_leaves, out_spec = optree.tree_flatten(meta_out)
    results = []
    for k, (leaf, od) in enumerate(zip(out_leaves, _out_dims_per_leaf(meta_out, out_dims))):
        leaf = np.asarray(leaf)
        if od is None:  # the same for every example
            results.append(da.from_array(leaf, chunks=leaf.shape))
            continue
        od %= leaf.ndim
        index = tuple("b" if i == od else f"out.{i}" for i in range(leaf.ndim))
        new_axes = {f"out.{i}": leaf.shape[i] for i in range(leaf.ndim) if i != od}
        results.append(da.blockwise(_Pick(k), index, boxes, "b", new_axes=new_axes,
                                    dtype=leaf.dtype, adjust_chunks={"b": bchunks},
                                    meta=np.empty((0,) * leaf.ndim, dtype=leaf.dtype)))
    return out_spec.unflatten(results)


class _Pick:
    """Leaf `k` of the outputs boxed in a one-element object block."""

    def __init__(self, k):
        self.k = k

    def __call__(self, box):
        return optree.tree_leaves(box[0])[self.k]


def _first_example(mapped, operands, dims, rebuild, kwargs):
    """The outputs for a batch of the first example: their structure, dtypes and shapes."""
    import dask
    parts = []
    for x, d in zip(operands, dims):
        if d is None:
            parts.append(x)
        else:
            d %= x.ndim
            parts.append(x[(slice(None),) * d + (slice(0, 1),)])
    parts = dask.compute(*parts)
    return mapped(*rebuild(parts), **kwargs)


def _gradient_sum(f, argnums, in_dims, split_every, with_value):
    import dask.array as da
    from .transforms.reverse import _check_scalar_output, grad_and_value
    transform = "value_and_grad_sum" if with_value else "grad_sum"

    def scalar_f(*example):
        """f, refusing what ft.grad refuses of one example's loss (with its message), where
        the chunk's sum would hide it: a non-scalar or non-float loss."""
        out = f(*example)
        _check_scalar_output(out, transform)
        return out

    def summed(*args):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        nums = tuple(n % len(args) for n in nums)
        dims = tuple(in_dims) if in_dims is not None else tuple(
            None if i in nums else 0 for i in range(len(args)))
        if len(dims) != len(args):
            raise ValueError(f"{transform}: in_dims={dims!r} has {len(dims)} entries for "
                             f"{len(args)} arguments")
        if any(dims[i] is not None for i in nums):
            raise ValueError(f"{transform}: argument(s) {nums} are differentiated, so they must "
                             f"be unbatched (in_dims None); got in_dims={dims!r}")
        leaves, spec = optree.tree_flatten(tuple(args))
        leaf_dims = []
        for a, d in zip(args, dims):
            leaf_dims.extend([d] * len(optree.tree_leaves(a)))
        # vmap's checks of the batched leaves, with its messages: no Python scalar in a
        # batched position, batch dims in range, one batch size
        _batch_size(args, dims, leaves, leaf_dims, None)
        if not any(is_dask_array(x) and d is not None for x, d in zip(leaves, leaf_dims)):
            raise TypeError(f"{transform}: no batched argument is a Dask array; use ft.grad on "
                            "in-memory data")

        def chunk_loss(*a):
            return vmap(scalar_f, in_dims=dims)(*a).sum()

        def chunk_row(*chunk_leaves):
            g, v = grad_and_value(chunk_loss, argnums=argnums)(*spec.unflatten(chunk_leaves))
            flat, _ = ravel(g)
            return np.concatenate([flat, np.reshape(v, 1).astype(flat.dtype)])

        picked = tuple(args[n] for n in nums)
        zeros = optree.tree_map(lambda x: np.zeros(np.shape(x), np.result_type(x, 0.0)), picked)
        flat0, unravel = ravel(zeros[0] if isinstance(argnums, int) else zeros)
        boxes, _, _ = _map_chunks(chunk_row, leaves, leaf_dims)
        rows = da.blockwise(_row, ("b", "z"), boxes, "b", new_axes={"z": flat0.size + 1},
                            dtype=flat0.dtype, meta=np.empty((0, 0), dtype=flat0.dtype))
        total = rows.sum(axis=0, split_every=split_every).compute()  # Dask's tree reduction
        grads = unravel(total[:-1])
        return (total[-1], grads) if with_value else grads

    return summed


def _row(box):
    return box[0][None, :]


def grad_sum(f, argnums=0, *, in_dims=None, split_every=None):
    """The gradient of a loss summed over a Dask-chunked batch, computed chunk by chunk.

    For `f(params, *batch)` returning one example's scalar loss, returns a function of the same
    arguments giving the sum over the batch of the gradients with respect to argument(s)
    `argnums`, as NumPy arrays with the structure of those arguments. Calling it computes at
    once: each chunk runs one reverse pass over its loss sum, and the per-chunk gradients are
    added by Dask's tree reduction, on whatever scheduler Dask would use.

    Args:
        f: the per-example loss, returning a scalar.
        argnums: int or tuple of ints: the (unbatched) arguments to differentiate.
        in_dims: one entry per argument, as vmap's; by default None for the differentiated
            arguments and 0 for the others.
        split_every: chunks added per node of the reduction tree (Dask's default if None).

    Returns:
        A function returning the summed gradient (a tuple of them for a tuple argnums).

    Raises:
        ValueError: (when called) `in_dims` has not one entry per argument, a differentiated
            argument is batched, a batched argument has no such axis (a Python scalar) or the
            batch sizes differ (vmap's messages), or f returns a non-scalar (ft.grad's).
        TypeError: (when called) no batched argument is a Dask array, or f's loss is not a
            real float (ft.grad's message).
        MemoryError: (when called) a rechunked input chunk would exceed chunk_memory_limit().

    Examples:
        >>> import numpy as np, dask.array as da
        >>> from functorch_lite.dask import grad_sum
        >>> w, x = np.array([1.0, 2.0]), np.arange(12.0).reshape(6, 2)
        >>> g = grad_sum(lambda w, xi: (w @ xi) ** 2)(w, da.from_array(x, chunks=2))
        >>> bool(np.allclose(g, (2 * (x @ w)) @ x))
        True
    """
    return _gradient_sum(f, argnums, in_dims, split_every, with_value=False)


def value_and_grad_sum(f, argnums=0, *, in_dims=None, split_every=None):
    """As `grad_sum`, returning (sum of the losses, sum of the gradients) (JAX's order).

    The losses are summed in the same pass and tree reduction as the gradients.

    Args:
        f: the per-example loss, returning a scalar.
        argnums: int or tuple of ints: the (unbatched) arguments to differentiate.
        in_dims: one entry per argument, as vmap's; by default None for the differentiated
            arguments and 0 for the others.
        split_every: chunks added per node of the reduction tree (Dask's default if None).

    Returns:
        A function returning (loss sum, gradient sum), the sum a NumPy scalar.

    Raises:
        ValueError: (when called) `in_dims` has not one entry per argument, a differentiated
            argument is batched, a batched argument has no such axis (a Python scalar) or the
            batch sizes differ (vmap's messages), or f returns a non-scalar (ft.grad's).
        TypeError: (when called) no batched argument is a Dask array, or f's loss is not a
            real float (ft.grad's message).
        MemoryError: (when called) a rechunked input chunk would exceed chunk_memory_limit().

    Examples:
        >>> import numpy as np, dask.array as da
        >>> from functorch_lite.dask import value_and_grad_sum
        >>> w, x = np.array([1.0, 2.0]), np.arange(12.0).reshape(6, 2)
        >>> loss, g = value_and_grad_sum(lambda w, xi: (w @ xi) ** 2)(w, da.from_array(x, chunks=2))
        >>> bool(np.isclose(loss, ((x @ w) ** 2).sum())), g.shape
        (True, (2,))
    """
    return _gradient_sum(f, argnums, in_dims, split_every, with_value=True)


def _claims(leaves, dims):
    """Whether a batched argument is a Dask array: vmap then builds a Dask graph."""
    return any(d is not None and is_dask_array(x) for x, d in zip(leaves, dims))


register_handover("dask.array", _claims, vmap_over_chunks)
