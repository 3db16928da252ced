"""ft.nn layers (linear, embedding, layer_norm, batch_norm, dropout, attention) against direct
float64 loop implementations written here, against torch.nn.functional when torch is
importable, and the semantics the sample database cannot express: batch_norm's training mode
and running statistics, its refusal under vmap, dropout's statistics, padding_idx gradients,
per-example gradients with no loop fallback."""
import math

import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite import nn
from functorch_lite import random as fr
from functorch_lite.testing.grad_checks import gradcheck

RNG = np.random.default_rng(0)


def _randn(*shape):
    return RNG.standard_normal(shape)


# -- loop references ---------------------------------------------------------------------------

def _linear_loop(x, w, b):
    out = np.zeros(x.shape[:-1] + (w.shape[0],))
    for idx in np.ndindex(*x.shape[:-1]):
        for o in range(w.shape[0]):
            out[idx + (o,)] = sum(x[idx + (i,)] * w[o, i] for i in range(w.shape[1])) + b[o]
    return out


def _layer_norm_loop(x, w, b, eps):
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx]
        mu = sum(row) / len(row)
        var = sum((v - mu) ** 2 for v in row) / len(row)
        out[idx] = [(v - mu) / math.sqrt(var + eps) * w[j] + b[j] for j, v in enumerate(row)]
    return out


def _batch_norm_train_loop(x, w, b, eps):
    """(out, batch mean, biased var, unbiased var) over N and the spatial dims, per channel."""
    n, c = x.shape[:2]
    out = np.zeros_like(x)
    means, biased, unbiased = np.zeros(c), np.zeros(c), np.zeros(c)
    for ch in range(c):
        vals = x[:, ch].ravel().tolist()
        mu = sum(vals) / len(vals)
        ss = sum((v - mu) ** 2 for v in vals)
        means[ch], biased[ch], unbiased[ch] = mu, ss / len(vals), ss / (len(vals) - 1)
        out[:, ch] = (x[:, ch] - mu) / math.sqrt(biased[ch] + eps) * w[ch] + b[ch]
    return out, means, biased, unbiased


def _attention_loop(q, k, v, causal):
    length, source = q.shape[0], k.shape[0]
    out = np.zeros((length, v.shape[1]))
    for i in range(length):
        scores = [sum(q[i, e] * k[j, e] for e in range(q.shape[1])) / math.sqrt(q.shape[1])
                  for j in range(source)]
        allowed = [j for j in range(source) if not causal or j <= i]
        top = max(scores[j] for j in allowed)
        weights = {j: math.exp(scores[j] - top) for j in allowed}
        total = sum(weights.values())
        for j in allowed:
            out[i] += weights[j] / total * v[j]
    return out


# -- values against the loops --------------------------------------------------------------------

def test_linear_against_loop():
    x, w, b = _randn(2, 3, 4), _randn(5, 4), _randn(5)
    np.testing.assert_allclose(nn.linear(x, w, b), _linear_loop(x, w, b), rtol=1e-12)


def test_embedding_picks_rows():
    w = _randn(6, 3)
    idx = np.array([[0, 5], [2, 2]])
    out = nn.embedding(idx, w)
    assert out.shape == (2, 2, 3)
    for i, j in np.ndindex(2, 2):
        np.testing.assert_array_equal(out[i, j], w[idx[i, j]])


def test_embedding_gradient_accumulates_and_skips_padding():
    w = _randn(4, 2)
    idx = np.array([1, 3, 1, 0])
    g = ft.grad(lambda w: np.sum(nn.embedding(idx, w) * np.arange(1.0, 3.0)))(w)
    np.testing.assert_allclose(g, [[1, 2], [2, 4], [0, 0], [1, 2]])
    g = ft.grad(lambda w: np.sum(nn.embedding(idx, w, padding_idx=1)))(w)
    np.testing.assert_allclose(g, [[1, 1], [0, 0], [0, 0], [1, 1]])


def test_layer_norm_against_loop():
    x, w, b = _randn(3, 5), _randn(5), _randn(5)
    np.testing.assert_allclose(nn.layer_norm(x, 5, w, b, eps=1e-3),
                               _layer_norm_loop(x, w, b, 1e-3), rtol=1e-10)
    with pytest.raises(ValueError, match="normalized_shape"):
        nn.layer_norm(x, (4,))


def test_batch_norm_training_mode_and_running_statistics():
    x, w, b = _randn(4, 3, 5), _randn(3), _randn(3)
    rm, rv = _randn(3), np.abs(_randn(3)) + 0.5
    out, new_rm, new_rv = nn.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-4)
    ref, mu, _, unbiased = _batch_norm_train_loop(x, w, b, 1e-4)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(new_rm, 0.8 * rm + 0.2 * mu, rtol=1e-12)
    np.testing.assert_allclose(new_rv, 0.8 * rv + 0.2 * unbiased, rtol=1e-12)
    # evaluation mode uses (and returns unchanged) the running statistics
    out, rm2, rv2 = nn.batch_norm(x, new_rm, new_rv, w, b)
    assert rm2 is new_rm and rv2 is new_rv
    np.testing.assert_allclose(out, (x - new_rm[:, None]) / np.sqrt(new_rv[:, None] + 1e-5)
                               * w[:, None] + b[:, None], rtol=1e-12)
    # training-mode gradients (through the batch statistics) against finite differences
    gradcheck(lambda x, w, b: nn.batch_norm(x, None, None, w, b, training=True)[0],
              (x, w, b))


def test_batch_norm_training_mode_is_refused_under_vmap():
    x = _randn(2, 4, 3, 5)
    f = lambda x: nn.batch_norm(x, np.zeros(3), np.ones(3), training=True)[0]  # noqa: E731
    with pytest.raises(ValueError, match="group_norm"):
        ft.vmap(f)(x)
    with pytest.raises(ValueError, match="group_norm"):
        ft.vmap(ft.grad(lambda x: np.sum(f(x))))(x)
    # evaluation mode is per example, and works under vmap(grad)
    g = ft.vmap(ft.grad(lambda x: np.sum(nn.batch_norm(x, np.zeros(3), np.ones(3))[0] ** 2)))(x)
    np.testing.assert_allclose(g, 2 * x / (1 + 1e-5), rtol=1e-12)


def test_batch_norm_training_mode_under_vmap_of_an_unbatched_input():
    """in_dims None for the input: one batch for every example (it used to be refused).
    Per-example weights and running statistics, against a loop over them."""
    x, w, rm = _randn(4, 3, 5), _randn(2, 3), _randn(2, 3)
    f = lambda x, w, rm: nn.batch_norm(x, rm, np.ones(3), w, training=True)  # noqa: E731
    out, new_rm, new_rv = ft.vmap(f, in_dims=(None, 0, 0))(x, w, rm)
    for i in range(2):
        ref, ref_rm, ref_rv = f(x, w[i], rm[i])
        np.testing.assert_allclose(out[i], ref, rtol=1e-12)
        np.testing.assert_allclose(new_rm[i], ref_rm, rtol=1e-12)
        np.testing.assert_allclose(new_rv[i], ref_rv, rtol=1e-12)
    # per-example weight gradients through an unbatched input's batch statistics
    loss = lambda w, x: np.sum(nn.batch_norm(x, None, None, w, training=True)[0] ** 3)  # noqa
    got = ft.vmap(ft.grad(loss), in_dims=(0, None))(w, x)
    np.testing.assert_allclose(got, np.stack([ft.grad(loss)(wi, x) for wi in w]), rtol=1e-12)
    # an input that becomes batched inside the function is still refused
    with pytest.raises(ValueError, match="group_norm"):
        ft.vmap(lambda x, w: nn.batch_norm(x * w[:, None], None, None, training=True)[0],
                in_dims=(None, 0))(x, w)


def test_batch_norm_momentum_none_is_a_clear_error():
    """torch.nn.BatchNorm's momentum=None (a cumulative average) needs a batch count the
    functional form does not carry: the error says what to pass (it was a TypeError from
    1 - None)."""
    x = _randn(4, 3)
    with pytest.raises(ValueError, match=r"momentum=None .* momentum=1 / \(n \+ 1\)"):
        nn.batch_norm(x, np.zeros(3), np.ones(3), training=True, momentum=None)
    # the advice gives the cumulative average of the batch means
    batches, rm = [_randn(4, 3) for _ in range(3)], np.zeros(3)
    for n, b in enumerate(batches):
        _, rm, _ = nn.batch_norm(b, rm, None, training=True, momentum=1 / (n + 1))
    np.testing.assert_allclose(rm, np.mean([b.mean(0) for b in batches], axis=0), rtol=1e-12)


def test_attention_against_loop():
    q, k, v = _randn(4, 3), _randn(6, 3), _randn(6, 2)
    np.testing.assert_allclose(nn.scaled_dot_product_attention(q, k, v),
                               _attention_loop(q, k, v, False), rtol=1e-10)
    k, v = _randn(4, 3), _randn(4, 2)
    np.testing.assert_allclose(nn.scaled_dot_product_attention(q, k, v, is_causal=True),
                               _attention_loop(q, k, v, True), rtol=1e-10)
    causal_mask = np.tril(np.ones((4, 4), bool))
    np.testing.assert_allclose(nn.scaled_dot_product_attention(q, k, v, mask=causal_mask),
                               _attention_loop(q, k, v, True), rtol=1e-10)
    float_mask = np.where(causal_mask, 0.0, -np.inf)
    np.testing.assert_allclose(nn.scaled_dot_product_attention(q, k, v, attn_mask=float_mask),
                               _attention_loop(q, k, v, True), rtol=1e-10)


def test_dropout_statistics_and_modes():
    x = np.ones((200, 100))
    out = nn.dropout(fr.key(0), x, 0.3)
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.01                    # 20000 draws: sd 0.003
    np.testing.assert_allclose(out[kept], 1 / 0.7)
    assert nn.dropout(fr.key(0), x, 0.3, deterministic=True) is x
    np.testing.assert_array_equal(nn.dropout(fr.key(0), x, 1.0), 0)
    assert nn.dropout(fr.key(0), x.astype(np.float32), 0.5).dtype == np.float32
    with pytest.raises(ValueError, match="rate"):
        nn.dropout(fr.key(0), x, 1.5)
    # the gradient goes through the kept entries only, scaled
    g = ft.grad(lambda x: np.sum(nn.dropout(fr.key(1), x, 0.5)))(np.ones(50))
    np.testing.assert_array_equal(g, (nn.dropout(fr.key(1), np.ones(50), 0.5) != 0) * 2.0)


def test_dropout_masks_differ_per_key_under_vmap():
    keys = fr.split(fr.key(2), 4)
    x = np.ones(64)
    with ft.fallback_as_error():
        out = ft.vmap(nn.dropout, in_dims=(0, None, None))(keys, x, 0.5)
    for i in range(4):
        np.testing.assert_array_equal(out[i], nn.dropout(keys[i], x, 0.5))
    assert len({tuple(row) for row in (out != 0).tolist()}) == 4


def test_per_example_gradients_of_a_block_use_no_fallback():
    """vmap(grad) of embedding -> layer_norm -> causal attention -> linear: against a loop."""
    params = {"emb": _randn(7, 4), "ln_w": _randn(4), "ln_b": _randn(4), "wq": _randn(4, 4),
              "wk": _randn(4, 4), "wv": _randn(4, 4), "out": _randn(7, 4), "out_b": _randn(7)}
    tokens = RNG.integers(0, 7, (3, 5))

    def loss(p, t):
        h = nn.embedding(t, p["emb"])
        h = nn.layer_norm(h, 4, p["ln_w"], p["ln_b"])
        q, k, v = nn.linear(h, p["wq"]), nn.linear(h, p["wk"]), nn.linear(h, p["wv"])
        h = h + nn.scaled_dot_product_attention(q, k, v, is_causal=True)
        logits = nn.linear(h, p["out"], p["out_b"])
        return nn.cross_entropy(logits[:-1], t[1:])

    with ft.fallback_as_error():
        batched = ft.vmap(ft.grad(loss), in_dims=(None, 0))(params, tokens)
    for i in range(3):
        single = ft.grad(loss)(params, tokens[i])
        for name in params:
            np.testing.assert_allclose(batched[name][i], single[name], rtol=1e-10, atol=1e-12)
    gradcheck(lambda emb, wq: loss({**params, "emb": emb, "wq": wq}, tokens[0]),
              (params["emb"], params["wq"]))


# -- torch.nn.functional, when importable ------------------------------------------------------

def test_against_torch_functional():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    t = torch.from_numpy
    x, w, b = _randn(2, 3, 4), _randn(5, 4), _randn(5)
    np.testing.assert_allclose(nn.linear(x, w, b), F.linear(t(x), t(w), t(b)).numpy(),
                               rtol=1e-12)
    lw, lb = _randn(4), _randn(4)
    np.testing.assert_allclose(nn.layer_norm(x, (4,), lw, lb),
                               F.layer_norm(t(x), (4,), t(lw), t(lb)).numpy(), rtol=1e-10)
    xb, rm, rv, bw, bb = _randn(4, 3, 5), _randn(3), np.abs(_randn(3)), _randn(3), _randn(3)
    trm, trv = t(rm.copy()), t(rv.copy())
    ref = F.batch_norm(t(xb), trm, trv, t(bw), t(bb), training=True, momentum=0.1)
    out, new_rm, new_rv = nn.batch_norm(xb, rm, rv, bw, bb, training=True)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(new_rm, trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(new_rv, trv.numpy(), rtol=1e-12)
    idx = np.array([[0, 2], [1, 0]])
    np.testing.assert_array_equal(nn.embedding(idx, w), F.embedding(t(idx), t(w)).numpy())
    q, k, v = _randn(2, 5, 3), _randn(2, 5, 3), _randn(2, 5, 4)
    np.testing.assert_allclose(
        nn.scaled_dot_product_attention(q, k, v, is_causal=True),
        F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True).numpy(), rtol=1e-10)
