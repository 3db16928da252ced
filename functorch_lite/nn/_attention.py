"""Scaled dot-product attention, in torch.nn.functional's layout: queries (..., L, E), keys
(..., S, E), values (..., S, Ev), any leading (batch, head) dims."""
import math

import numpy as np

from .. import numpy as fnp
from ._activations import softmax


def scaled_dot_product_attention(query, key, value, attn_mask=None, is_causal=False,
                                 scale=None, *, mask=None):
    """softmax(query @ key^T * scale + mask) @ value, the result of shape (..., L, Ev)
    (torch.nn.functional.scaled_dot_product_attention, without dropout).

    `attn_mask` (or `mask`, JAX's spelling) broadcasts to (..., L, S): a boolean mask keeps the
    True entries (as PyTorch: True takes part in attention), a float mask is added to the
    scores. `is_causal=True` lets query i attend to keys j <= i only. `scale` defaults to
    1 / sqrt(E). A query row with every key masked out gives NaN, as in PyTorch.
    """
    if mask is not None:
        if attn_mask is not None:
            raise TypeError("scaled_dot_product_attention: give attn_mask or mask, not both")
        attn_mask = mask
    e = fnp.shape(query)[-1]
    scale = 1.0 / math.sqrt(e) if scale is None else scale
    scores = fnp.matmul(query, fnp.swapaxes(key, -1, -2)) * scale
    if is_causal:
        length, source = fnp.shape(query)[-2], fnp.shape(key)[-2]
        causal = fnp.tril(fnp.ones((length, source), dtype=bool, like=scores))
        scores = fnp.where(causal, scores, -np.inf)
    if attn_mask is not None:
        if np.dtype(attn_mask.dtype if hasattr(attn_mask, "dtype") else float) == np.bool_:
            scores = fnp.where(attn_mask, scores, -np.inf)
        else:
            scores = scores + attn_mask
    return fnp.matmul(softmax(scores, axis=-1), value)


__all__ = ["scaled_dot_product_attention"]
