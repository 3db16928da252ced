"""Batching rules of getitem (x[idx]) and scatter (x.at[idx].set/add/...).

Two cases (see `_plan`):
- only the source is batched: its batch dim goes first and a leading full slice is added to
  the index; basic indexing stays a view.
- an index array is batched: the batch becomes one more advanced index. Batched index arrays
  get their batch dim first (padded to the rank of the advanced block); a batched source gets
  an `arange(B)` index at the first advanced position, with its batch dim moved to the matching
  axis, so example b gathers only from slice b.
NumPy places the advanced block's dims where the block stands when its indices are adjacent,
else first; the plan tracks where that puts the batch dim. A batched boolean mask would give a
different result shape per example, so it is refused.
"""
import numpy as np

from ..backend import is_host, module_of
from ..ops.indexing import ARRAY, getitem, scatter
from ..ops import shape as sh
from ..numpy._util import dtype_of, ndim, shape, xp_of
from ..tensor import Tensor
from .helpers import batch_size, batched_front, broadcast_batch, move_bdim_to_front


def _refuse_batched_mask():
    err = ValueError(
        "boolean-mask indexing with a batched mask under vmap: the result's shape would differ "
        "from example to example. Use fnp.where(mask, x, fill) (or multiply by the mask) to "
        "keep the shape fixed")
    err.vmap_user_error = True
    return err


def _expand_masks(index, arrays, bdims):
    """Unbatched boolean masks become their integer index arrays (mask.nonzero()), so every
    advanced index is an integer array; a batched mask is refused."""
    new_index, new_arrays, new_bdims = [], [], []
    it = iter(zip(arrays, bdims))
    for item in index:
        if item is not ARRAY:
            new_index.append(item)
            continue
        a, d = next(it)
        if dtype_of(a).kind != "b":
            new_index.append(ARRAY)
            new_arrays.append(a)
            new_bdims.append(d)
            continue
        if d is not None:
            raise _refuse_batched_mask()
        if isinstance(a, Tensor):
            a = a._concretize("array")
        for component in module_of(a).nonzero(a):
            new_index.append(ARRAY)
            new_arrays.append(component)
            new_bdims.append(None)
    return tuple(new_index), new_arrays, new_bdims


class _Plan:
    """Where the batch dim goes for one batched indexing operation.

    Fields: index, arrays (physical), x_dest (axis the source's batch dim must be at), bdim
    (of x[index]), rank (logical rank of x[index]).
    """

    def __init__(self, x_rank, index, arrays, bdims, size, x_batched, xp):
        if not is_host(xp):  # NumPy index arrays follow the data to the device, as in CuPy
            arrays = [xp.asarray(a) if type(a) is np.ndarray else a for a in arrays]
        if any(d is not None for d in bdims):
            index, arrays, bdims = _expand_masks(index, arrays, bdims)
        ranks = [ndim(a) - (d is not None) for a, d in zip(arrays, bdims)]
        masks = [dtype_of(a).kind == "b" for a in arrays]
        consumed = sum(1 for i in index if i is not None and i is not Ellipsis and i is not ARRAY)
        consumed += sum(r if m else 1 for r, m in zip(ranks, masks))
        ellipsis_len = x_rank - consumed if Ellipsis in index else 0
        has_adv = bool(arrays)
        adv_rank = max((1 if m else r for r, m in zip(ranks, masks)), default=0)
        adv_pos = [k for k, i in enumerate(index)
                   if i is ARRAY or (has_adv and isinstance(i, int))]
        contiguous = not adv_pos or adv_pos[-1] - adv_pos[0] == len(adv_pos) - 1
        before = index[:adv_pos[0]] if adv_pos else index
        n_slices = sum(1 for i in before if isinstance(i, slice))
        n_new = sum(1 for i in before if i is None)
        dims_before = n_slices + (ellipsis_len if Ellipsis in before else 0)
        self.rank = (sum(1 for i in index if isinstance(i, slice) or i is None)
                     + x_rank - consumed + (adv_rank if has_adv else 0))
        if not any(d is not None for d in bdims):
            # only the source is batched: batch first, leading full slice
            self.index, self.arrays, self.x_dest = (slice(None),) + index, list(arrays), 0
            self.bdim = 0 if contiguous else adv_rank
            return
        arrays = [batched_front(a, d, size, adv_rank) for a, d in zip(arrays, bdims)]
        self.x_dest = dims_before
        if x_batched:
            q = adv_pos[0]
            n_arrays_before = sum(1 for i in index[:q] if i is ARRAY)
            batch_index = xp.arange(size).reshape((size,) + (1,) * adv_rank)
            index = index[:q] + (ARRAY,) + index[q:]
            arrays.insert(n_arrays_before, batch_index)
        self.index, self.arrays = index, arrays
        self.bdim = dims_before + n_new if contiguous else 0


@getitem.def_batch_rule
def getitem_batch_rule(args, bdims, index):
    x, xb = args[0], bdims[0]
    size = batch_size(args, bdims)
    x_rank = ndim(x) - (xb is not None)
    plan = _Plan(x_rank, index, args[1:], bdims[1:], size, xb is not None, xp_of(x))
    if xb is not None:
        x = _move(x, xb, plan.x_dest)
    return getitem(x, *plan.arrays, index=plan.index), plan.bdim


@scatter.def_batch_rule
def scatter_batch_rule(args, bdims, index, mode):
    """The source is made batched (a broadcast view: the kernel copies it anyway); values are
    laid out like x[index] with the batch dim where the plan puts it."""
    x, values = args[0], args[1]
    xb, vb = bdims[0], bdims[1]
    size = batch_size(args, bdims)
    x_rank = ndim(x) - (xb is not None)
    plan = _Plan(x_rank, index, args[2:], bdims[2:], size, True, xp_of(x))
    x = broadcast_batch(x, xb, size, plan.x_dest)
    values = _layout_values(values, vb, size, plan.rank, plan.bdim)
    return scatter(x, values, *plan.arrays, index=plan.index, mode=mode), plan.x_dest


def _layout_values(values, vb, size, rank, bdim):
    """values shaped to broadcast against the batched x[index] (rank+1 dims, batch at bdim)."""
    if vb is not None:
        v = batched_front(values, vb, size, rank)
        return v if bdim == 0 else sh.transpose(v, axes=_front_to(bdim, rank + 1))
    vs = shape(values)
    if len(vs) <= rank - bdim:  # right-aligned, it never reaches the batch dim
        return values
    padded = (1,) * (rank - len(vs)) + tuple(vs)
    return sh.reshape(values, shape=padded[:bdim] + (1,) + padded[bdim:])


def _front_to(dest, nd):
    order = list(range(1, nd))
    order.insert(dest, 0)
    return tuple(order)


def _move(x, bdim, dest):
    if bdim == dest:
        return x
    if dest == 0:
        return move_bdim_to_front(x, bdim)
    order = [i for i in range(ndim(x)) if i != bdim]
    order.insert(dest, bdim)
    return sh.transpose(x, axes=tuple(order))
