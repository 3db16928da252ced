"""Losses as torch.nn.functional defines them (reductions 'mean', 'sum', 'none'), with the class
axis last by default (as jax.nn; docs/layers.md): cross_entropy, nll_loss, mse_loss. A single
example (1-d scores, 0-d label) works too, so each can be used per example inside vmap.
"""
from typing import Any, Optional

from .. import numpy as fnp
from ..numpy._indexing import on_device_of
from ..numpy._util import dtype_of, normalize_axis
from ..ops.checks import check_range
from ..numpy._logsumexp import max_shift as _max_shift
from ._activations import log_softmax


def _reduce(loss, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', not {reduction!r}")
    if reduction == "none" or fnp.ndim(loss) == 0:
        return loss  # one example (as under vmap): its mean and sum are itself, no ops needed
    return fnp.mean(loss) if reduction == "mean" else fnp.sum(loss)


def cross_entropy(logits: Any, labels: Any, reduction: str = "mean", axis: int = -1) -> Any:
    """Softmax cross-entropy of `logits` against class `labels`
    (torch.nn.functional.cross_entropy, with the classes on `axis`, default last).

    Integer labels pick the class of each example: the loss is logsumexp(logits) -
    logits[label]. Floating labels are class probabilities of the logits' shape: the loss is
    -sum(labels * log_softmax(logits)). A single example (1-d logits, 0-d label) works too, so
    this can be used per example inside vmap. Computed in the max-shifted form.

    Args:
        logits: an array (..., C) (C classes on `axis`).
        labels: integers in 0..C-1 of the logits' shape without `axis`, or floating
            probabilities of the logits' shape.
        reduction: 'mean' (default) or 'sum' over the examples, or 'none' (one loss per
            example).
        axis: the class axis of logits; negative counts from the end.

    Returns:
        A 0-d array for 'mean' and 'sum'; for 'none', the logits' shape without `axis`.

    Raises:
        IndexError: an integer label outside 0..C-1 (as PyTorch).
        ValueError: reduction is not 'mean', 'sum' or 'none'.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> logits = np.zeros((2, 4))
        >>> bool(np.isclose(ft.nn.cross_entropy(logits, np.array([1, 3])), np.log(4)))
        True
        >>> ft.nn.cross_entropy(logits, np.array([1, 3]), reduction="none").shape
        (2,)
        >>> probs = np.full((2, 4), 0.25)
        >>> bool(np.isclose(ft.nn.cross_entropy(logits, probs), np.log(4)))
        True
    """
    if dtype_of(labels).kind not in "biu":
        return _reduce(-fnp.sum(labels * log_softmax(logits, axis=axis), axis=axis), reduction)
    # Integer labels: log(sum(exp(shifted))) - shifted[label], the label's entry picked with a
    # boolean mask (no one-hot floats, no (..., n) log-probabilities): fewer ops in both
    # directions than -sum(one_hot * log_softmax), and as accurate (both use the shifted form).
    axis = normalize_axis(axis, fnp.ndim(logits))
    labels = _checked_labels(labels, logits, axis, "cross_entropy")
    shifted = logits - _max_shift(logits, axis)
    picked = _pick(shifted, labels, axis)
    return _reduce(fnp.log(fnp.sum(fnp.exp(shifted), axis=axis)) - picked, reduction)


def _checked_labels(labels, scores, axis, fn):
    """Integer labels checked to lie in 0..C-1 (IndexError, as PyTorch), on scores' device."""
    n = fnp.shape(scores)[axis]
    labels = check_range(labels, low=0, high=n - 1, error=IndexError,
                         message=f"{fn}: label {{value}} is out of range: with {n} "
                                 f"classes it must be in 0..{n - 1}")
    return on_device_of(labels, scores, size=n)


def _pick(scores, labels, axis):
    """scores[..., label, ...] along `axis`, picked with a boolean mask (no one-hot floats):
    fewer ops in both directions than a one-hot product, and exact."""
    n = fnp.shape(scores)[axis]
    classes = fnp.arange(n, like=scores)
    if axis != fnp.ndim(scores) - 1:
        classes = fnp.reshape(classes, (n,) + (1,) * (fnp.ndim(scores) - 1 - axis))
    hot = fnp.equal(fnp.expand_dims(labels, axis), classes)
    return fnp.sum(fnp.where(hot, scores, 0), axis=axis)


def nll_loss(log_probs: Any, labels: Any, weight: Optional[Any] = None,
             ignore_index: int = -100, reduction: str = "mean", axis: int = -1) -> Any:
    """Negative log-likelihood of class `labels` under `log_probs`
    (torch.nn.functional.nll_loss, with the classes on `axis`, default last).

    Each example's loss is -weight[label] * log_probs[label] (weight 1 without `weight`);
    examples whose label equals `ignore_index` count 0 and weigh 0. 'mean' divides the sum by
    the total weight of the counted examples, as torch (so with all examples ignored it is
    NaN, and for a single example it is -log_probs[label] whatever its weight).
    cross_entropy(logits, labels) is nll_loss(log_softmax(logits), labels).

    Args:
        log_probs: an array (..., C) of log-probabilities (C classes on `axis`).
        labels: integers in 0..C-1 (or ignore_index) of log_probs' shape without `axis`.
        weight: an optional array (C,) of per-class weights.
        ignore_index: the label value of examples to leave out (-100, as torch).
        reduction: 'mean' (default, weighted), 'sum', or 'none' (one loss per example, 0 for
            ignored ones).
        axis: the class axis of log_probs; negative counts from the end.

    Returns:
        A 0-d array for 'mean' and 'sum'; for 'none', log_probs' shape without `axis`.

    Raises:
        IndexError: a label outside 0..C-1 that is not ignore_index (as PyTorch).
        ValueError: reduction is not 'mean', 'sum' or 'none'.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> log_probs = np.log(np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]]))
        >>> ft.nn.nll_loss(log_probs, np.array([0, 2]), reduction="none").round(3)
        array([0.693, 0.223])
        >>> w = np.array([1.0, 1.0, 3.0])               # weighted mean: (0.693 + 3 * 0.223) / 4
        >>> round(float(ft.nn.nll_loss(log_probs, np.array([0, 2]), weight=w)), 3)
        0.341
        >>> float(ft.nn.nll_loss(log_probs, np.array([0, -100])))    # the second is ignored
        0.6931471805599453
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', not {reduction!r}")
    axis = normalize_axis(axis, fnp.ndim(log_probs))
    ignored = fnp.equal(labels, ignore_index)
    labels = _checked_labels(fnp.where(ignored, 0, labels), log_probs, axis, "nll_loss")
    ignored = on_device_of(ignored, log_probs)
    if weight is None:
        w = fnp.astype(fnp.logical_not(ignored), dtype_of(log_probs))
    else:
        w = fnp.where(ignored, 0, fnp.take(weight, labels))
    loss = -w * _pick(log_probs, labels, axis)
    if reduction == "none":
        return loss
    total = fnp.sum(loss)
    return total if reduction == "sum" else total / fnp.sum(w)


def mse_loss(pred: Any, target: Any, reduction: str = "mean") -> Any:
    """Squared error (pred - target)^2, averaged, summed or elementwise
    (torch.nn.functional.mse_loss).

    pred and target broadcast against each other.

    Args:
        pred: an array of predictions.
        target: an array broadcasting with pred.
        reduction: 'mean' (default), 'sum', or 'none' (the elementwise squared errors).

    Returns:
        A 0-d array for 'mean' and 'sum'; for 'none', the broadcast shape.

    Raises:
        ValueError: reduction is not 'mean', 'sum' or 'none'.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> float(ft.nn.mse_loss(np.array([1.0, 2.0]), np.array([0.0, 0.0])))
        2.5
        >>> ft.nn.mse_loss(np.array([1.0, 2.0]), 0.0, reduction="none")
        array([1., 4.])
    """
    diff = pred - target
    return _reduce(diff * diff, reduction)


__all__ = ["cross_entropy", "nll_loss", "mse_loss"]
