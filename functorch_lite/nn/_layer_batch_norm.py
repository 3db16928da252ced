"""Layer normalization and batch normalization, in torch.nn.functional's argument names and
layouts (channels on axis 1 for batch norm). State goes in and comes out: batch_norm returns
the updated running statistics instead of changing them in place."""
from .. import numpy as fnp
from ..tensor import TransformTensor
from ..transforms.vmap import BatchedTensor


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing dims `normalized_shape` (int or tuple) to zero mean and unit
    (biased) variance, then scale by `weight` and shift by `bias` (both of normalized_shape),
    as torch.nn.functional.layer_norm."""
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
    """Whether x is batched by some running vmap (at any level of its wrapper chain)."""
    while isinstance(x, TransformTensor):
        if isinstance(x, BatchedTensor):
            return True
        x = x.value
    return False


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over (N, C, *) inputs, per channel C (torch.nn.functional.batch_norm).

    Returns `(out, running_mean, running_var)`. In evaluation mode (training=False) the running
    statistics normalize and come back unchanged. In training mode the batch's own mean and
    biased variance normalize, and the running statistics come back updated as PyTorch does:
    (1 - momentum) * running + momentum * batch statistic (the unbiased variance for
    running_var). Training mode mixes the examples of a batch, so it is refused under vmap
    (a per-example gradient would not be one): use group_norm or layer_norm there.
    """
    shape = fnp.shape(input)
    if len(shape) < 2:
        raise ValueError(f"batch_norm: input must be (N, C, *), got shape {shape}")
    bshape = (1, shape[1]) + (1,) * (len(shape) - 2)
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
