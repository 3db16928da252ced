"""Functional neural-network helpers (as jax.nn), each a composite of library ops, so every one
works on plain arrays and under every transform. Reductions take `axis=-1` by default.

Each is written in a numerically stable form: nothing overflows for inputs around 1e4, and the
unused side of a `where` never produces inf or NaN (so gradients stay finite too).
"""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of, normalize_axis
from ..ops.checks import check_index_range
from ..ops.elementwise import stop_gradient
from ..ops.special import erf

_SQRT_HALF = float(np.sqrt(0.5))


def relu(x):
    """max(x, 0); the derivative at 0 is 0 (as jax.nn.relu)."""
    return fnp.where(fnp.greater(x, 0), x, 0)


def gelu(x, approximate=True):
    """Gaussian error linear unit x Phi(x). approximate=True (the default, as jax.nn.gelu) or
    'tanh' (torch's spelling): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); False or
    'none': the exact 0.5 x (1 + erf(x / sqrt(2))) (its erf kernel needs SciPy)."""
    if approximate in (False, "none"):
        return 0.5 * x * (1.0 + erf(x * _SQRT_HALF))
    if approximate not in (True, "tanh"):
        raise ValueError(f"gelu: approximate must be True, False, 'tanh' or 'none', not "
                         f"{approximate!r}")
    inner = float(np.sqrt(2.0 / np.pi)) * (x + 0.044715 * (x * x * x))  # float: keeps float32
    return 0.5 * x * (1.0 + fnp.tanh(inner))


def sigmoid(x):
    """1 / (1 + exp(-x)) computed from exp(-|x|) <= 1, so neither side overflows."""
    positive = fnp.greater_equal(x, 0)
    z = fnp.exp(fnp.where(positive, -x, x))  # exp(-|x|), with derivative defined at 0
    return fnp.where(positive, 1.0 / (1.0 + z), z / (1.0 + z))


def softplus(x):
    """log(1 + exp(x)) = logaddexp(x, 0): stable for large |x|."""
    return fnp.logaddexp(x, 0.0)


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    return x * sigmoid(x)


def _max_shift(x, axis):
    """max over axis (keepdims), replaced by 0 where it is not finite (all -inf rows).

    The functions below do not depend on the shift mathematically (it cancels), so it is a
    constant to every transform (stop_gradient): no derivative of max or where is computed,
    at any order, and the ops run below the transforms' levels."""
    m = fnp.max(stop_gradient(x), axis=axis, keepdims=True)
    return fnp.where(fnp.isfinite(m), m, 0)


def logsumexp(x, axis=-1, keepdims=False):
    """log(sum(exp(x))) over axis, shifted by the max so that it cannot overflow."""
    m = _max_shift(x, axis)
    out = fnp.log(fnp.sum(fnp.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else fnp.squeeze(out, axis=axis)


def log_softmax(x, axis=-1):
    """x - logsumexp(x) over axis, in the shifted form."""
    shifted = x - _max_shift(x, axis)
    return shifted - fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) over axis, in the shifted form."""
    e = fnp.exp(x - _max_shift(x, axis))
    return e / fnp.sum(e, axis=axis, keepdims=True)


def one_hot(labels, num_classes, dtype=np.float64, axis=-1):
    """Integer labels to one-hot vectors along a new `axis`. A label outside 0..num_classes-1
    gives a row of zeros, as jax.nn.one_hot (cross_entropy refuses such labels)."""
    classes = fnp.arange(num_classes, like=labels)  # on the labels' device (numpy or cupy)
    hot = fnp.equal(fnp.expand_dims(labels, -1), classes)
    if axis not in (-1, fnp.ndim(hot) - 1):
        hot = fnp.moveaxis(hot, -1, axis)
    return fnp.astype(hot, dtype)


def _reduce(loss, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', not {reduction!r}")
    if reduction == "none" or fnp.ndim(loss) == 0:
        return loss  # one example (as under vmap): its mean and sum are itself, no ops needed
    return fnp.mean(loss) if reduction == "mean" else fnp.sum(loss)


def cross_entropy(logits, labels, reduction="mean", axis=-1):
    """Softmax cross-entropy of `logits` against integer class `labels` (or class probabilities
    of the logits' shape). A single example (1-d logits, 0-d label) works too, so this can be
    used per example inside vmap."""
    if dtype_of(labels).kind not in "biu":
        return _reduce(-fnp.sum(labels * log_softmax(logits, axis=axis), axis=axis), reduction)
    # Integer labels: log(sum(exp(shifted))) - shifted[label], the label's entry picked with a
    # boolean mask (no one-hot floats, no (..., n) log-probabilities): fewer ops in both
    # directions than -sum(one_hot * log_softmax), and as accurate (both use the shifted form).
    axis = normalize_axis(axis, fnp.ndim(logits))
    n = fnp.shape(logits)[axis]
    labels = check_index_range(labels, size=n, what="cross_entropy: label")  # as PyTorch
    shifted = logits - _max_shift(logits, axis)
    classes = fnp.arange(n, like=logits)
    if axis != fnp.ndim(logits) - 1:
        classes = fnp.reshape(classes, (n,) + (1,) * (fnp.ndim(logits) - 1 - axis))
    hot = fnp.equal(fnp.expand_dims(labels, axis), classes)
    picked = fnp.sum(fnp.where(hot, shifted, 0), axis=axis)
    return _reduce(fnp.log(fnp.sum(fnp.exp(shifted), axis=axis)) - picked, reduction)


def mse_loss(pred, target, reduction="mean"):
    """Mean (or sum, or elementwise) squared error."""
    diff = pred - target
    return _reduce(diff * diff, reduction)


__all__ = ["relu", "gelu", "sigmoid", "softplus", "silu", "softmax", "log_softmax", "logsumexp",
           "one_hot", "cross_entropy", "mse_loss"]
