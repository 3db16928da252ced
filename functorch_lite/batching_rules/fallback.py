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
    """vmap ran an op through the slow per-example loop because it has no batching rule.

    Issued once per op (until the record is cleared); the result is still correct. Give the op
    a rule with `register_batch_rule`, or make the fallback an error with `fallback_as_error`.

    Examples:
        >>> import warnings, numpy as np, functorch_lite as ft
        >>> inc = ft.OPS.get("doc_inc_warn") or ft.defop("doc_inc_warn", lambda xp, x: x + 1)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     out = ft.vmap(inc)(np.array([1.0, 2.0]))
        >>> out, any(issubclass(w.category, ft.PerformanceWarning) for w in caught)
        (array([2., 3.]), True)
    """


class MissingBatchRuleError(NotImplementedError):
    """An op without a batching rule was met under vmap while the fallback is an error.

    Raised inside `fallback_as_error()` or after `set_fallback_error(True)`; a subclass of
    NotImplementedError. The message names the op.

    Examples:
        >>> import warnings, numpy as np, functorch_lite as ft
        >>> inc = ft.OPS.get("doc_inc_error") or ft.defop("doc_inc_error", lambda xp, x: x + 1)
        >>> try:
        ...     with ft.fallback_as_error():
        ...         ft.vmap(inc)(np.array([1.0, 2.0]))
        ... except ft.MissingBatchRuleError as err:
        ...     print("doc_inc_error" in str(err))
        True
    """


class _Setting(threading.local):
    error = False  # class default: what every thread starts with


_STATE = _Setting()
_FELL_BACK = {}          # op name -> number of batched calls that used the loop
_LOCK = threading.Lock()


def set_fallback_error(enabled=True):
    """Make vmap's per-example loop fallback an error (True) or a warning (False).

    The setting belongs to the current thread; `fallback_as_error` is the scoped form.

    Args:
        enabled: True to raise MissingBatchRuleError for an op without a batching rule,
            False to loop over the examples with a PerformanceWarning (the default state).

    Returns:
        The previous setting (pass it back to restore it).

    Examples:
        >>> import warnings, numpy as np, functorch_lite as ft
        >>> inc = ft.OPS.get("doc_inc_set") or ft.defop("doc_inc_set", lambda xp, x: x + 1)
        >>> old = ft.set_fallback_error(True)
        >>> try:
        ...     ft.vmap(inc)(np.array([1.0]))
        ... except ft.MissingBatchRuleError:
        ...     print("no batching rule")
        no batching rule
        >>> ft.set_fallback_error(old)
        True
    """
    old = _STATE.error
    _STATE.error = bool(enabled)
    return old


@contextlib.contextmanager
def fallback_as_error(enabled=True):
    """Context manager: within the block, vmap of an op with no batching rule is an error.

    In the current thread, such an op raises MissingBatchRuleError (or, with enabled=False,
    falls back to the loop with a warning). Blocks nest: leaving one restores the setting it
    found on entry. Useful in tests, to prove a function is batched by rules only.

    Args:
        enabled: True (error) or False (loop fallback with a PerformanceWarning).

    Returns:
        A context manager.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> with ft.fallback_as_error():
        ...     ft.vmap(np.sin)(np.zeros(2))
        array([0., 0.])
    """
    old = _STATE.error
    try:  # set inside the try: an interrupt right after setting still restores
        _STATE.error = bool(enabled)
        yield
    finally:
        _STATE.error = old


def fallback_ops():
    """Names of the ops that ran through vmap's loop fallback since the last clear, sorted.

    A quick audit after running a model under vmap: every name listed lacks a batching rule.

    Returns:
        A sorted list of op names.

    Examples:
        >>> import warnings, numpy as np, functorch_lite as ft
        >>> inc = ft.OPS.get("doc_inc_record") or ft.defop("doc_inc_record", lambda xp, x: x + 1)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     _ = ft.vmap(inc)(np.array([1.0, 2.0]))
        >>> "doc_inc_record" in ft.fallback_ops()
        True
    """
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
