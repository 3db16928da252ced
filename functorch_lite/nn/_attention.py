"""Scaled dot-product attention, in torch.nn.functional's layout: queries (..., L, E), keys
(..., S, E), values (..., S, Ev), any leading (batch, head) dims."""
import math

import numpy as np

from .. import numpy as fnp
from ..numpy._indexing import on_device_of
from ..numpy._util import dtype_of
from ._activations import softmax


def scaled_dot_product_attention(query, key, value, attn_mask=None, is_causal=False,
                                 scale=None, *, mask=None):
    """Scaled dot-product attention softmax(query @ key^T * scale + mask) @ value
    (torch.nn.functional.scaled_dot_product_attention, without dropout).

    PyTorch's layout: sequence before feature, any leading (batch, head) dims, which
    broadcast between query, key and value. `attn_mask` (or `mask`, JAX's spelling)
    broadcasts to (..., L, S): a boolean mask keeps the True entries (as PyTorch: True takes
    part in attention; JAX's convention is the same), a float mask is added to the scores.
    `is_causal=True` lets query i attend to keys j <= i only (the top-left aligned lower
    triangle, as PyTorch), and combines with attn_mask. A query row with every key masked out
    gives NaN, as in PyTorch.

    Args:
        query: (..., L, E).
        key: (..., S, E).
        value: (..., S, Ev).
        attn_mask: optional boolean or float array broadcasting to (..., L, S).
        is_causal: apply the causal mask.
        scale: the factor on the scores; None (default) means 1 / sqrt(E).
        mask: keyword-only alias of attn_mask.

    Returns:
        (..., L, Ev).

    Raises:
        TypeError: both attn_mask and mask are given.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> q, k, v = np.ones((2, 5, 8)), np.ones((2, 7, 8)), np.ones((2, 7, 6))
        >>> ft.nn.scaled_dot_product_attention(q, k, v).shape
        (2, 5, 6)
        >>> x = np.arange(6.0).reshape(3, 2)
        >>> out = ft.nn.scaled_dot_product_attention(x, x, x, is_causal=True)
        >>> bool(np.allclose(out[0], x[0]))  # the first query sees only the first key
        True
    """
    if mask is not None:
        if attn_mask is not None:
            raise TypeError("scaled_dot_product_attention: give attn_mask or mask, not both")
        attn_mask = mask
    e = fnp.shape(query)[-1]
    scale = 1.0 / math.sqrt(e) if scale is None else scale
    scores = fnp.matmul(query, fnp.swapaxes(key, -1, -2)) * scale
    # Masks become an additive bias of 0 and -inf, as PyTorch does: adding a constant costs
    # nothing in reverse mode, where a where() would cost a select per pass.
    if is_causal:
        length, source = fnp.shape(query)[-2], fnp.shape(key)[-2]
        causal = fnp.tril(fnp.ones((length, source), dtype=bool, like=scores))
        scores = scores + fnp.astype(fnp.where(causal, 0.0, -np.inf), dtype_of(scores))
    if attn_mask is not None:
        if dtype_of(attn_mask) == np.bool_:   # a NumPy mask selects: it follows the scores
            attn_mask = on_device_of(attn_mask, scores)
            attn_mask = fnp.astype(fnp.where(attn_mask, 0.0, -np.inf), dtype_of(scores))
        scores = scores + attn_mask
    return fnp.matmul(softmax(scores, axis=-1), value)


__all__ = ["scaled_dot_product_attention"]
