"""Scaled dot-product attention, in torch.nn.functional's layout: queries (..., L, E), keys
(..., S, E), values (..., S, Ev), any leading (batch, head) dims."""
import math

import numpy as np

from .. import numpy as fnp
from ..numpy._indexing import on_device_of
from ..numpy._util import dtype_of
from ..ops.elementwise import stop_gradient
from ._activations import _max_shift


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, *, mask=None):
    """Scaled dot-product attention softmax(query @ key^T * scale + mask) @ value
    (torch.nn.functional.scaled_dot_product_attention, with its argument order, without
    dropout: dropout_p must be 0).

    PyTorch's layout: sequence before feature, any leading (batch, head) dims, which
    broadcast between query, key and value. `attn_mask` (or `mask`, JAX's spelling)
    broadcasts to (..., L, S): a boolean mask keeps the True entries (as PyTorch: True takes
    part in attention; JAX's convention is the same), a float mask is added to the scores.
    `is_causal=True` lets query i attend to keys j <= i only (the top-left aligned lower
    triangle, as PyTorch), and combines with attn_mask. An integer mask is refused (as
    PyTorch: is 1 "keep" or "add one"?); a float mask of another precision is cast to the
    scores' dtype, so a float64 mask keeps float32 attention float32.

    A query row that sees no key (every entry masked out) gets zero weights, so its output
    row is 0 and it passes no NaN to the other rows or to any gradient: PyTorch 2.5 and later
    do the same (their "safe softmax"; checked against torch 2.13, whose output row is 0),
    where older versions returned NaN.

    Args:
        query: (..., L, E).
        key: (..., S, E).
        value: (..., S, Ev).
        attn_mask: optional boolean or floating array broadcasting to (..., L, S).
        dropout_p: 0 only (here so that torch's positional calls port unchanged); dropout
            needs an explicit key: apply ft.nn.dropout to the inputs or outputs.
        is_causal: apply the causal mask.
        scale: the factor on the scores; None (default) means 1 / sqrt(E).
        mask: keyword-only alias of attn_mask.

    Returns:
        (..., L, Ev).

    Raises:
        TypeError: both attn_mask and mask are given, or the mask is neither boolean nor
            floating.
        NotImplementedError: dropout_p is not 0.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> q, k, v = np.ones((2, 5, 8)), np.ones((2, 7, 8)), np.ones((2, 7, 6))
        >>> ft.nn.scaled_dot_product_attention(q, k, v).shape
        (2, 5, 6)
        >>> x = np.arange(6.0).reshape(3, 2)
        >>> out = ft.nn.scaled_dot_product_attention(x, x, x, is_causal=True)
        >>> bool(np.allclose(out[0], x[0]))  # the first query sees only the first key
        True
        >>> sees_none = np.array([[False, False, False], [True, True, True], [True, False, True]])
        >>> ft.nn.scaled_dot_product_attention(x, x, x, attn_mask=sees_none)[0]
        array([0., 0.])
    """
    if dropout_p != 0:
        raise NotImplementedError(
            f"scaled_dot_product_attention: dropout_p={dropout_p} is not supported (dropout "
            f"takes an explicit key here): pass dropout_p=0 and apply "
            f"ft.nn.dropout(key, x, rate) where you need it")
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
        scores = scores + _mask_bias(attn_mask, dtype_of(scores), scores)
    return fnp.matmul(_softmax_of_rows_that_see_a_key(scores), value)


def _mask_bias(attn_mask, dtype, scores):
    """The additive bias of a mask, in the scores' dtype: 0 and -inf for a boolean mask, the
    mask itself for a floating one."""
    kind = dtype_of(attn_mask).kind
    if kind == "b":   # a NumPy mask selects: it follows the scores
        attn_mask = on_device_of(attn_mask, scores)
        return fnp.astype(fnp.where(attn_mask, 0.0, -np.inf), dtype)
    if kind != "f":
        raise TypeError(f"scaled_dot_product_attention: attn_mask must be boolean (True takes "
                        f"part) or floating (added to the scores), got dtype "
                        f"{dtype_of(attn_mask)}; for a 0/1 mask pass mask.astype(bool)")
    return attn_mask if dtype_of(attn_mask) == dtype else fnp.astype(attn_mask, dtype)


def _softmax_of_rows_that_see_a_key(scores):
    """softmax over the last axis, with all-zero weights for a row of -inf scores (a query
    that sees no key) instead of 0/0. A row that sees a key sums to at least 1 (its maximum
    gives exp(0)), so adding 1 to the zero sums only is exact, and as a constant it adds no
    work to the derivatives."""
    e = fnp.exp(scores - _max_shift(scores, -1))
    total = fnp.sum(e, axis=-1, keepdims=True)
    empty = fnp.astype(fnp.equal(stop_gradient(total), 0), dtype_of(total))
    return e / (total + empty)


__all__ = ["scaled_dot_product_attention"]
