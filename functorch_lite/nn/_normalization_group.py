"""Group normalization, as torch.nn.functional.group_norm: per example, statistics over each
group of channels and all spatial positions, so examples stay independent (the normalization
for per-example gradients, where batch_norm mixes examples). A composite of library ops."""
from .. import numpy as fnp
from ..numpy._util import shape

__all__ = ["group_norm"]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize input (N, C, *S) over groups of C / num_groups channels, then scale by weight
    (C,) and shift by bias (C,) when given. Biased variance, as PyTorch."""
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
