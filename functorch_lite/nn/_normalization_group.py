"""Group normalization, as torch.nn.functional.group_norm: per example, statistics over each
group of channels and all spatial positions, so examples stay independent (the normalization
for per-example gradients, where batch_norm mixes examples). A composite of library ops."""
from .. import numpy as fnp
from ..numpy._util import shape

__all__ = ["group_norm"]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization of input (N, C, *S), as torch.nn.functional.group_norm.

    The C channels split into num_groups consecutive groups; each example's group is
    normalized to zero mean and unit variance (biased, as PyTorch) over its channels and all
    spatial positions, then scaled by weight and shifted by bias per channel. Examples never
    mix, so it works under vmap and gives true per-example gradients. num_groups=1 is a
    layer norm over (C, *S); num_groups=C is an instance norm.

    Args:
        input: (N, C, *S), at least 2-d.
        num_groups: a positive divisor of C.
        weight: optional (C,) scale.
        bias: optional (C,) shift.
        eps: added to the variance before the square root.

    Returns:
        An array of input's shape.

    Raises:
        ValueError: input with fewer than 2 dims, or num_groups not a positive divisor of C.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.arange(24.0).reshape(2, 4, 3)
        >>> out = ft.nn.group_norm(x, 2, weight=np.ones(4), bias=np.zeros(4))
        >>> out.shape
        (2, 4, 3)
        >>> bool(np.allclose(out.reshape(2, 2, 6).mean(axis=-1), 0.0))
        True
    """
    s = shape(input)
    if len(s) < 2:
        raise ValueError(f"group_norm: input must have shape (N, C, ...), got shape {s}")
    n, c = s[:2]
    if num_groups < 1 or c % num_groups:
        raise ValueError(f"group_norm: {c} channels do not split into num_groups={num_groups}")
    x = fnp.reshape(input, (n, num_groups, -1))
    mean = fnp.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = fnp.mean(centered * centered, axis=-1, keepdims=True)
    out = fnp.reshape(centered / fnp.sqrt(var + eps), s)
    affine = (c,) + (1,) * (len(s) - 2)
    if weight is not None:
        out = out * fnp.reshape(weight, affine)
    if bias is not None:
        out = out + fnp.reshape(bias, affine)
    return out
