"""Every op of the sample database under vmap, against a Python loop over the batch.

For each sample: every combination of batched / unbatched tensor leaves, with the batch dim at
0, last and in the middle; then vmap of vmap with different in_dims. Results must match the
loop (tight tolerances, same dtype) and no op may fall back to the loop.
"""
import itertools
import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.batching_rules.fallback import fallback_as_error
from functorch_lite.testing.samples import OP_DB
from op_cases import check_each

B = 3
INFOS = [info for info in OP_DB if not info.creation]
MAX_SUBSETS = 7


def examples(info, size, seed=0):
    """size lists of samples with identical shapes (one per rng): a batch per sample."""
    return [info.samples(np.random.default_rng(seed + b)) for b in range(size)]


def _leaf_fn(info, sample):
    return lambda *leaves: sample.call(info.fn, list(leaves))


def _position(where, rank):
    """Physical batch position for an example of `rank` dims."""
    return {"front": 0, "last": rank, "middle": (rank + 1) // 2}[where]


def _batched_leaves(per_example_leaves, batched, where):
    """The vmap inputs: batched leaves stacked at their position, others from example 0."""
    leaves, dims = [], []
    for k, first in enumerate(per_example_leaves[0]):
        if k in batched:
            d = _position(where, first.ndim)
            leaves.append(np.stack([ex[k] for ex in per_example_leaves], axis=d))
            dims.append(d)
        else:
            leaves.append(first)
            dims.append(None)
    return leaves, tuple(dims)


def _loop(fn, per_example_leaves, batched):
    outs = []
    for ex in per_example_leaves:
        leaves = [ex[k] if k in batched else per_example_leaves[0][k]
                  for k in range(len(ex))]
        outs.append(fn(*leaves))
    first, spec = optree.tree_flatten(outs[0])
    return spec, [np.stack([np.asarray(optree.tree_leaves(o)[k]) for o in outs])
                  for k in range(len(first))]


def _assert_close(info, got, expected_spec, expected):
    got_leaves, spec = optree.tree_flatten(got)
    assert spec == expected_spec
    for g, e in zip(got_leaves, expected):
        assert type(g) is type(e) or isinstance(g, np.ndarray), type(g)
        g = np.asarray(g)
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, e.shape, g.dtype, e.dtype)
        if info.check_values:
            rtol, atol = info.tolerance(e.dtype)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


def _subsets(n):
    subsets = [set(c) for r in range(1, n + 1) for c in itertools.combinations(range(n), r)]
    if len(subsets) > MAX_SUBSETS:   # keep singles and all-batched
        subsets = [s for s in subsets if len(s) == 1] + [set(range(n))]
    return subsets


def _mask_indexing(info, sample, batched):
    leaves = sample.leaves()
    return info.name in ("getitem", "at_set", "at_add", "at_multiply", "at_min", "at_max") \
        and any(leaves[k].dtype == bool for k in batched)


def check_vmap(info):
    if "test_vmap" in info.skips:
        pytest.skip(info.skips["test_vmap"])
    batches = examples(info, B)
    for i, sample in enumerate(batches[0]):
        per_example = [samples[i].leaves() for samples in batches]
        fn = _leaf_fn(info, sample)
        n = len(per_example[0])
        for batched in _subsets(n):
            spec, expected = _loop(fn, per_example, batched)
            for where in ("front", "last", "middle"):
                leaves, dims = _batched_leaves(per_example, batched, where)
                with fallback_as_error():
                    if _mask_indexing(info, sample, batched):
                        with pytest.raises(ValueError, match="boolean-mask"):
                            ft.vmap(fn, in_dims=dims)(*leaves)
                        continue
                    try:
                        got = ft.vmap(fn, in_dims=dims)(*leaves)
                    except Exception as err:
                        raise AssertionError(f"{sample.name}, batched {sorted(batched)}, "
                                             f"in_dims {dims}") from err
                try:
                    _assert_close(info, got, spec, expected)
                except AssertionError as err:
                    raise AssertionError(f"{sample.name}, batched {sorted(batched)}, "
                                         f"in_dims {dims}: {err}") from None


def check_vmap_vmap(info):
    """Two levels: the outer batch at the front, the inner one last, every leaf batched."""
    if "test_vmap_vmap" in info.skips or "test_vmap" in info.skips:
        pytest.skip(info.skips.get("test_vmap_vmap") or info.skips["test_vmap"])
    outer, inner = 2, 3
    grid = [examples(info, inner, seed=10 * o) for o in range(outer)]
    for i, sample in enumerate(grid[0][0]):
        leaves_grid = [[grid[o][j][i].leaves() for j in range(inner)] for o in range(outer)]
        fn = _leaf_fn(info, sample)
        n = len(leaves_grid[0][0])
        if _mask_indexing(info, sample, set(range(n))):
            continue
        # physical layout: leaf[o] stacked at 0, inner examples stacked last
        stacked = [np.stack([np.stack([leaves_grid[o][j][k] for j in range(inner)], axis=-1)
                             for o in range(outer)], axis=0) for k in range(n)]
        inner_dims = tuple(-1 for _ in range(n))
        with fallback_as_error():
            got = ft.vmap(ft.vmap(fn, in_dims=inner_dims), in_dims=0)(*stacked)
        outs = [[fn(*leaves_grid[o][j]) for j in range(inner)] for o in range(outer)]
        first, spec = optree.tree_flatten(outs[0][0])
        expected = [np.stack([np.stack([np.asarray(optree.tree_leaves(outs[o][j])[k])
                                        for j in range(inner)]) for o in range(outer)])
                    for k in range(len(first))]
        try:
            _assert_close(info, got, spec, expected)
        except AssertionError as err:
            raise AssertionError(f"{sample.name}: {err}") from None


def test_every_builtin_op_has_a_batching_rule():
    """A real rule for every primitive of the library: the loop fallback is for user ops."""
    builtin = list(ft.ops.BUILTIN_OPS.values())
    assert len(builtin) >= 90
    missing = sorted(op.name for op in builtin if "batch" not in op.rules)
    assert not missing, f"ops without a batching rule: {missing}"


def _empty_batch(leaf, where):
    """A batch of 0 examples shaped like `leaf`: the batch dim at its position, of size 0."""
    d = _position(where, leaf.ndim)
    return np.empty(leaf.shape[:d] + (0,) + leaf.shape[d:], dtype=leaf.dtype), d


def check_vmap_empty_batch(info):
    """A batch of size 0: every output has shape (0, *per-example shape) and the per-example
    dtype (what one example gives without vmap), for every batched subset and batch position."""
    if "test_vmap" in info.skips:
        pytest.skip(info.skips["test_vmap"])
    for sample in examples(info, 1)[0]:
        leaves = sample.leaves()
        fn = _leaf_fn(info, sample)
        one = optree.tree_flatten(fn(*leaves))
        for batched in _subsets(len(leaves)):
            if _mask_indexing(info, sample, batched):
                continue
            for where in ("front", "last", "middle"):
                args, dims = zip(*[_empty_batch(x, where) if k in batched else (x, None)
                                   for k, x in enumerate(leaves)])
                try:
                    with fallback_as_error():
                        got = ft.vmap(fn, in_dims=dims)(*args)
                    got_leaves, spec = optree.tree_flatten(got)
                    assert spec == one[1], (spec, one[1])
                    for g, e in zip(got_leaves, one[0]):
                        e = np.asarray(e)
                        assert (g.shape, g.dtype) == ((0,) + e.shape, e.dtype), \
                            (g.shape, g.dtype, e.shape, e.dtype)
                except Exception as err:
                    raise AssertionError(f"{sample.name}, batched {sorted(batched)}, "
                                         f"in_dims {dims}: {type(err).__name__}: "
                                         f"{err}") from None


@pytest.mark.parametrize("info", INFOS, ids=lambda i: i.name)
def test_batching(info):
    """vmap, vmap of vmap and vmap over an empty batch of the op: one item
    (op_cases.check_each)."""
    check_each(info, [check_vmap, check_vmap_vmap, check_vmap_empty_batch])
