"""Layer normalization and batch normalization, in torch.nn.functional's argument names and
layouts (channels on axis 1 for batch norm). State goes in and comes out: batch_norm returns
the updated running statistics instead of changing them in place."""
from .. import numpy as fnp
from ..tensor import TransformTensor
from ..transforms.vmap import BatchedTensor


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the trailing dims, as torch.nn.functional.layer_norm.

    Each slice over the trailing `normalized_shape` dims is normalized to zero mean and unit
    (biased, as PyTorch) variance, then scaled by `weight` and shifted by `bias`. Examples
    never mix, so it works under vmap and gives true per-example gradients.

    Args:
        input: (..., *normalized_shape).
        normalized_shape: an int or a tuple: the trailing dims normalized over.
        weight: optional scale, broadcasting to normalized_shape.
        bias: optional shift, broadcasting to normalized_shape.
        eps: added to the variance before the square root.

    Returns:
        An array of input's shape.

    Raises:
        ValueError: the input's trailing dims are not normalized_shape.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.arange(24.0).reshape(2, 4, 3)
        >>> out = ft.nn.layer_norm(x, (4, 3))
        >>> out.shape, bool(np.allclose(out.mean(axis=(1, 2)), 0.0))
        ((2, 4, 3), True)
        >>> bool(np.allclose(ft.nn.layer_norm(x, 3).std(axis=-1), 1.0, atol=1e-5))
        True
    """
    normalized_shape = ((normalized_shape,) if isinstance(normalized_shape, int)
                        else tuple(normalized_shape))
    k = len(normalized_shape)
    if tuple(fnp.shape(input)[fnp.ndim(input) - k:]) != normalized_shape:
        raise ValueError(f"layer_norm: the input's trailing dims {fnp.shape(input)} do not "
                         f"match normalized_shape {normalized_shape}")
    axes = tuple(range(-k, 0))
    mean = fnp.mean(input, axis=axes, keepdims=True)
    centered = input - mean
    var = fnp.mean(centered * centered, axis=axes, keepdims=True)
    out = centered * (1.0 / fnp.sqrt(var + eps))   # the division on the small array
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def _is_batched(x):
    """Whether x holds a batch dim of some running vmap (at any level of its wrapper chain);
    an unbatched argument of a vmapped function (in_dims None) is one batch for every
    example."""
    while isinstance(x, TransformTensor):
        if isinstance(x, BatchedTensor) and x.bdim is not None:
            return True
        x = x.value
    return False


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over (N, C, *) inputs, per channel C (torch.nn.functional.batch_norm).

    Functional state: returns `(out, running_mean, running_var)` instead of updating buffers
    in place (as flax's batch_stats). In evaluation mode (training=False) the running
    statistics normalize and come back unchanged. In training mode the batch's own mean and
    biased variance normalize, and the running statistics come back updated as PyTorch does:
    (1 - momentum) * running + momentum * batch statistic (the unbiased variance for
    running_var); running statistics given as None come back None. Training mode mixes the
    examples of a batch, so it is refused under vmap for an input that vmap maps over (a
    per-example gradient would not be one): use group_norm or layer_norm there. An input
    that is not mapped (in_dims None) is one batch for every example, and works.

    Args:
        input: (N, C, *), channels on axis 1.
        running_mean: (C,), or None in training mode.
        running_var: (C,), or None in training mode.
        weight: optional (C,) scale.
        bias: optional (C,) shift.
        training: normalize with the batch statistics and update the running ones.
        momentum: the weight of the batch statistic in the update (PyTorch's convention:
            flax's momentum is 1 minus this). None (torch.nn.BatchNorm's cumulative
            average) is refused: pass 1 / (n + 1) for the n-th batch instead.
        eps: added to the variance before the square root.

    Returns:
        (out, running_mean, running_var): out of input's shape, the statistics (C,) (or None
        where None was given).

    Raises:
        ValueError: input with fewer than 2 dims; evaluation mode without running_mean and
            running_var; training mode with one value per channel; training mode on an
            input mapped by vmap; momentum=None.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.arange(24.0).reshape(2, 4, 3)
        >>> out, mean, var = ft.nn.batch_norm(x, np.zeros(4), np.ones(4), training=True)
        >>> out.shape, mean.shape, bool(np.allclose(out.mean(axis=(0, 2)), 0.0))
        ((2, 4, 3), (4,), True)
        >>> bool(np.allclose(mean, 0.1 * x.mean(axis=(0, 2))))
        True
        >>> out, _, _ = ft.nn.batch_norm(x, np.zeros(4), np.ones(4))  # evaluation mode
        >>> bool(np.allclose(out, x / np.sqrt(1 + 1e-5)))
        True
    """
    shape = fnp.shape(input)
    if len(shape) < 2:
        raise ValueError(f"batch_norm: input must be (N, C, *), got shape {shape}")
    bshape = (1, shape[1]) + (1,) * (len(shape) - 2)
    if momentum is None:
        raise ValueError(
            "batch_norm: momentum=None (torch.nn.BatchNorm's cumulative moving average) needs "
            "the number of batches seen, which this functional form does not carry; pass "
            "momentum=1 / (n + 1) for the n-th batch (n from 0) to get the same average")
    if training:
        if _is_batched(input):
            raise ValueError(
                "batch_norm: training-mode batch norm under vmap would mix the examples of the "
                "batch, so per-example results (such as per-example gradients) are not defined; "
                "use nn.group_norm or nn.layer_norm, or batch_norm with training=False")
        axes = (0,) + tuple(range(2, len(shape)))
        mean = fnp.mean(input, axis=axes, keepdims=True)
        centered = input - mean
        var = fnp.mean(centered * centered, axis=axes, keepdims=True)
        count = fnp.size(input) // shape[1]
        if count < 2:
            raise ValueError(f"batch_norm: training needs more than one value per channel, "
                             f"got input shape {shape}")
        if running_mean is not None:
            running_mean = ((1 - momentum) * running_mean
                            + momentum * fnp.reshape(mean, (shape[1],)))
        if running_var is not None:
            running_var = ((1 - momentum) * running_var
                           + momentum * (count / (count - 1)) * fnp.reshape(var, (shape[1],)))
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: evaluation mode (training=False) needs running_mean "
                             "and running_var")
        centered = input - fnp.reshape(running_mean, bshape)
        var = fnp.reshape(running_var, bshape)
    out = centered / fnp.sqrt(var + eps)
    if weight is not None:
        out = out * fnp.reshape(weight, bshape)
    if bias is not None:
        out = out + fnp.reshape(bias, bshape)
    return out, running_mean, running_var


__all__ = ["layer_norm", "batch_norm"]
