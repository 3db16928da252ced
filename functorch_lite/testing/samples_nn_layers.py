"""Sample entries of the ft.nn layers: linear, embedding, layer_norm, batch_norm (evaluation
mode; training mode refuses vmap, so test_nn_layers.py covers it), dropout and
scaled_dot_product_attention. References are direct NumPy formulas computed in float64."""
import math

import numpy as np

from .. import nn
from .. import random as frandom
from .samples_base import F32, F64, I64, OpInfo, POSITIVE, REAL, S, array


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


def _f64(*xs):
    return [None if x is None else np.asarray(x, np.float64) for x in xs]


def _like(out, x):
    """The float64 reference result in the input's float dtype."""
    return out.astype(F32 if np.asarray(x).dtype == F32 else F64)


# -- references ------------------------------------------------------------------------------

def _linear_ref(x, w, b=None):
    x64, w64, b64 = _f64(x, w, b)
    out = np.einsum("...i,oi->...o", x64, w64)
    return _like(out if b is None else out + b64, x)


def _embedding_ref(idx, w, padding_idx=None):
    return np.asarray(w)[np.asarray(idx)]


def _layer_norm_ref(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    x64, w64, b64 = _f64(x, weight, bias)
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    flat = x64.reshape(x64.shape[:x64.ndim - k] + (-1,))
    mu = flat.mean(-1, keepdims=True)
    sd = np.sqrt(((flat - mu) ** 2).mean(-1, keepdims=True) + eps)
    out = ((flat - mu) / sd).reshape(x64.shape)
    out = out if weight is None else out * w64
    return _like(out if bias is None else out + b64, x)


def _batch_norm_eval_ref(x, mean, var, weight=None, bias=None, training=False, momentum=0.1,
                         eps=1e-5):
    x64, m64, v64, w64, b64 = _f64(x, mean, var, weight, bias)
    shape = (1, x64.shape[1]) + (1,) * (x64.ndim - 2)
    out = (x64 - m64.reshape(shape)) / np.sqrt(v64.reshape(shape) + eps)
    out = out if weight is None else out * w64.reshape(shape)
    out = out if bias is None else out + b64.reshape(shape)
    return _like(out, x), mean, var


def _dropout_ref(key, x, rate, deterministic=False):
    """The mask drawn by the library's generator (tested in test_random.py), applied here."""
    if deterministic:
        return x
    keep = frandom.uniform(key, np.shape(x), F32 if x.dtype == F32 else F64) < 1.0 - rate
    return np.where(keep, x / (1.0 - rate), 0.0).astype(x.dtype)


def _attention_ref(q, k, v, attn_mask=None, is_causal=False, scale=None):
    q64, k64, v64 = _f64(q, k, v)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = np.einsum("...le,...se->...ls", q64, k64) * scale
    if is_causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if attn_mask is not None:
        m = np.asarray(attn_mask)
        s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return _like(np.einsum("...ls,...sv->...lv", p, v64), q)


# -- samples ---------------------------------------------------------------------------------

def _linear(r):
    return [S(_a(r, 4), _a(r, 3, 4), _a(r, 3)), S(_a(r, 2, 4), _a(r, 3, 4)),
            S(_a(r, 2, 5, 4), _a(r, 3, 4), _a(r, 3)),
            S(_a(r, 2, 4, dtype=F32), _a(r, 3, 4, dtype=F32), _a(r, 3, dtype=F32))]


def _indices(r, n, *shape):
    return np.asarray(r.integers(0, n, shape), dtype=I64)


def _embedding(r):
    return [S(_indices(r, 5, 3), _a(r, 5, 4)), S(_indices(r, 5, 2, 3), _a(r, 5, 2)),
            S(_indices(r, 5), _a(r, 5, 3)), S(_indices(r, 4, 3), _a(r, 4, 2), padding_idx=0),
            S(_indices(r, 4, 3), _a(r, 4, 3, dtype=F32))]


def _layer_norm(r):
    return [S(_a(r, 5), 5), S(_a(r, 3, 4), (4,), _a(r, 4), _a(r, 4)),
            S(_a(r, 2, 3, 4), (3, 4), _a(r, 3, 4), _a(r, 3, 4)),
            S(_a(r, 2, 3), 3, _a(r, 3), eps=1e-3),
            S(_a(r, 3, 4, dtype=F32), 4, _a(r, 4, dtype=F32), _a(r, 4, dtype=F32))]


def _batch_norm(r):
    def stats(c, dtype=F64):
        return _a(r, c, dtype=dtype), _a(r, c, dtype=dtype, domain=POSITIVE)
    return [S(_a(r, 4, 3), *stats(3)), S(_a(r, 2, 3, 5), *stats(3), _a(r, 3), _a(r, 3)),
            S(_a(r, 2, 2, 3, 3), *stats(2), _a(r, 2), _a(r, 2), eps=1e-3),
            S(_a(r, 2, 3, 4, dtype=F32), *stats(3, F32), _a(r, 3, dtype=F32),
              _a(r, 3, dtype=F32))]


def _key(r):
    return np.asarray(r.integers(0, 2 ** 32, 2), dtype=np.uint32)


def _dropout(r):
    return [S(_key(r), _a(r, 6), 0.5), S(_key(r), _a(r, 3, 4), 0.25),
            S(_key(r), _a(r, 3, 4), 0.5, deterministic=True), S(_key(r), _a(r, 2, 3), 0.0),
            S(_key(r), _a(r, 4, 5, dtype=F32), 0.3)]


def _keep_mask(r, *shape):
    """A random boolean mask keeping at least the first key of every query."""
    m = r.random(shape) < 0.6
    m[..., 0] = True
    return m


def _attention(r):
    return [S(_a(r, 3, 4), _a(r, 5, 4), _a(r, 5, 2)),
            S(_a(r, 2, 3, 4), _a(r, 2, 3, 4), _a(r, 2, 3, 4), is_causal=True),
            S(_a(r, 2, 3, 4), _a(r, 2, 5, 4), _a(r, 2, 5, 3), _keep_mask(r, 3, 5)),
            S(_a(r, 3, 4), _a(r, 5, 4), _a(r, 5, 2), _a(r, 3, 5)),
            S(_a(r, 3, 4), _a(r, 3, 4), _a(r, 3, 4), scale=0.3, is_causal=True),
            S(_a(r, 2, 3, 4, dtype=F32), _a(r, 2, 3, 4, dtype=F32), _a(r, 2, 3, 2, dtype=F32),
              is_causal=True)]


def _nn(name, ref, samples, **kw):
    return OpInfo(f"nn.{name}", getattr(nn, name), ref, samples, numpy_fn=None, **kw)


ENTRIES = [
    _nn("linear", _linear_ref, _linear),
    _nn("embedding", _embedding_ref, _embedding),
    _nn("layer_norm", _layer_norm_ref, _layer_norm, atol={F32: 1e-5}),
    _nn("batch_norm", _batch_norm_eval_ref, _batch_norm, atol={F32: 1e-5},
        doc="evaluation mode (training mode is refused under vmap: see test_nn_layers.py)"),
    _nn("dropout", _dropout_ref, _dropout, doc="keys are uint32 leaves (batched under vmap)"),
    _nn("scaled_dot_product_attention", _attention_ref, _attention, atol={F32: 1e-5}),
]
