"""The loop fallback: how vmap runs an op that has no batching rule.

The fallback slices every batched operand along its batch dim, runs the op once per example
and stacks the results. It is correct for any op (so every op works under vmap at once) but
costs one op call per example, so it warns once per op with a `PerformanceWarning`. Users who
must not lose speed silently turn it into an error with `set_fallback_error(True)` (or the
`fallback_as_error()` context manager); `fallback_ops()` lists the ops that fell back.

The setting is per thread, like the level stack: one thread's `fallback_as_error()` block does
not change how vmap behaves in another, and a new thread starts with the fallback allowed.
"""
import contextlib
import threading
import warnings

from .. import numpy as fnp
from ..tensor import Tensor


class PerformanceWarning(UserWarning):
    """vmap ran an op through the slow per-example loop because it has no batching rule."""


class MissingBatchRuleError(NotImplementedError):
    """An op without a batching rule was met under vmap while the fallback is an error."""


class _Setting(threading.local):
    error = False  # class default: what every thread starts with


_STATE = _Setting()
_FELL_BACK = {}          # op name -> number of batched calls that used the loop
_LOCK = threading.Lock()


def set_fallback_error(enabled=True):
    """Make the loop fallback an error (True) or a warning (False) in the current thread;
    returns the old setting (pass it back to restore it)."""
    old = _STATE.error
    _STATE.error = bool(enabled)
    return old


@contextlib.contextmanager
def fallback_as_error(enabled=True):
    """Within the block (in the current thread), an op with no batching rule raises
    MissingBatchRuleError (or, with enabled=False, falls back with a warning). Blocks nest:
    leaving one restores the setting it found on entry."""
    old = _STATE.error
    try:  # set inside the try: an interrupt right after setting still restores
        _STATE.error = bool(enabled)
        yield
    finally:
        _STATE.error = old


def fallback_ops():
    """Names of the ops that ran through the loop fallback since the last clear, sorted."""
    return sorted(_FELL_BACK)


def clear_fallback_record():
    """Forget which ops fell back, so each warns once again on its next fallback."""
    with _LOCK:
        _FELL_BACK.clear()


def _record(op):
    with _LOCK:
        first = op.name not in _FELL_BACK
        _FELL_BACK[op.name] = _FELL_BACK.get(op.name, 0) + 1
    return first


def _select(x, bdim, i):
    """Example i of a batched value (a view for raw arrays)."""
    index = (slice(None),) * bdim + (i,)
    return fnp.getitem(x, index) if isinstance(x, Tensor) else x[index]


def loop_batch_rule(op, args, bdims, batch_size, params):
    """Run `op` once per example and stack the results along a new leading batch dim."""
    if _STATE.error:
        raise MissingBatchRuleError(
            f"op {op.name!r} has no batching rule and the vmap loop fallback is disabled "
            "(set_fallback_error(False) re-enables it); give it a rule with "
            "functorch_lite.register_batch_rule")
    if _record(op):
        warnings.warn(
            f"op {op.name!r} has no batching rule: vmap runs it once per example in a Python "
            "loop, which is slow. Register a rule with functorch_lite.register_batch_rule.",
            PerformanceWarning, stacklevel=6)
    if batch_size == 0:
        return empty_batch(op, args, bdims, params)
    results = []
    for i in range(batch_size):
        example = [a if d is None else _select(a, d, i) for a, d in zip(args, bdims)]
        results.append(op(*example, **params))
    if op.multiple_results:
        outs = tuple(fnp.stack([r[k] for r in results]) for k in range(len(results[0])))
        return outs, (0,) * len(outs)
    return fnp.stack(results), 0


def empty_batch(op, args, bdims, params):
    """A batch of 0 examples: the op runs once on a stand-in example of zeros (a sum over the
    empty batch dim, which keeps the operand's dtype and its lower levels), and its results
    are broadcast to 0 examples."""
    example = [a if d is None else fnp.sum(a, axis=d, dtype=a.dtype)
               for a, d in zip(args, bdims)]
    try:
        out = op(*example, **params)
    except Exception as err:
        raise ValueError(f"vmap cannot run op {op.name!r} over an empty "
                         "batch: on a stand-in example of zeros, to learn the shape of its "
                         f"result, it raised {type(err).__name__}: {err}") from err
    outs = out if op.multiple_results else (out,)
    empty = tuple(fnp.broadcast_to(fnp.expand_dims(o, 0), (0,) + tuple(fnp.shape(o)))
                  for o in outs)
    if op.multiple_results:
        return empty, (0,) * len(empty)
    return empty[0], 0
