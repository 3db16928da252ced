"""Per-example gradients of a one-block transformer (token and position embeddings, pre-norm
causal self-attention, a ReLU MLP, tied unembedding; next-token cross-entropy), float32:
vmap(grad(loss), in_dims=(None, 0)) against hand-written batched NumPy (the backward pass
derived by hand below) and against a Python loop of grad. Prints median times and ratios to
the hand-written code; torch.func's figure beside when torch is importable.

    python benchmarks/per_example_transformer.py [--batches 32 128] [--repeats 20] [--cpu-time]

With JAX installed, a second line per batch: ft.jit(per_example_grads, backend="xla") on NumPy
arrays and on JAX arrays against jax.jit of the same block written in JAX (xla_models.py).

Target (issue 9): at most 1.5x hand-written NumPy.
"""
import argparse
import time

import numpy as np
from _timing import interleaved_medians

import functorch_lite as ft
from functorch_lite import nn
from xla_models import format_columns, jax_or_none, xla_columns

VOCAB, LENGTH, DIM, HIDDEN = 64, 32, 64, 256
EPS = 1e-5


def init_params(rng, dtype=np.float32):
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(dtype)
    return {"tok": w(VOCAB, DIM), "pos": w(LENGTH, DIM),
            "ln1_w": (1 + 0.1 * rng.standard_normal(DIM)).astype(dtype),
            "ln1_b": (0.1 * rng.standard_normal(DIM)).astype(dtype),
            "wq": w(DIM, DIM), "wk": w(DIM, DIM), "wv": w(DIM, DIM), "wo": w(DIM, DIM),
            "ln2_w": (1 + 0.1 * rng.standard_normal(DIM)).astype(dtype),
            "ln2_b": (0.1 * rng.standard_normal(DIM)).astype(dtype),
            "w1": w(HIDDEN, DIM), "b1": (0.1 * rng.standard_normal(HIDDEN)).astype(dtype),
            "w2": w(DIM, HIDDEN), "b2": np.zeros(DIM, dtype), "unembed_b": np.zeros(VOCAB, dtype)}


def loss(p, tokens):
    """Mean next-token cross-entropy of one sequence (L,)."""
    h = nn.embedding(tokens, p["tok"]) + p["pos"]
    a = nn.layer_norm(h, DIM, p["ln1_w"], p["ln1_b"])
    q, k, v = nn.linear(a, p["wq"]), nn.linear(a, p["wk"]), nn.linear(a, p["wv"])
    h = h + nn.linear(nn.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
    m = nn.layer_norm(h, DIM, p["ln2_w"], p["ln2_b"])
    h = h + nn.linear(nn.relu(nn.linear(m, p["w1"], p["b1"])), p["w2"], p["b2"])
    logits = nn.linear(h, p["tok"], p["unembed_b"])
    return nn.cross_entropy(logits[:-1], tokens[1:])


per_example_grads = ft.vmap(ft.grad(loss), in_dims=(None, 0))


# -- hand-written batched NumPy ------------------------------------------------------------------

def _ln_forward(x, w, b):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = 1.0 / np.sqrt((xc * xc).mean(-1, keepdims=True) + EPS)
    xhat = xc * rstd
    return xhat * w + b, xhat, rstd


def _ln_backward(dy, xhat, rstd, w):
    """(dx, per-example dw, per-example db) of y = xhat * w + b over the last axis."""
    dw = np.einsum("bld,bld->bd", dy, xhat)
    db = dy.sum(1)
    dxhat = dy * w
    dx = rstd * (dxhat - dxhat.mean(-1, keepdims=True)
                 - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return dx, dw, db


def _outer(dy, x):
    """Per-example weight gradient of y = x @ W.T: sum over positions of dy x^T -> (B, O, I)."""
    return np.matmul(dy.transpose(0, 2, 1), x)


def handwritten_per_example_grads(p, T):
    B, L = T.shape
    scale = np.float32(1.0 / np.sqrt(DIM))
    causal = np.tril(np.ones((L, L), bool))
    h0 = p["tok"][T] + p["pos"]
    a, xhat1, rstd1 = _ln_forward(h0, p["ln1_w"], p["ln1_b"])
    q, k, v = a @ p["wq"].T, a @ p["wk"].T, a @ p["wv"].T
    s = np.where(causal, (q @ k.transpose(0, 2, 1)) * scale, -np.inf)
    P = np.exp(s - s.max(-1, keepdims=True))
    P /= P.sum(-1, keepdims=True)
    o = P @ v
    h1 = h0 + o @ p["wo"].T
    m, xhat2, rstd2 = _ln_forward(h1, p["ln2_w"], p["ln2_b"])
    z = m @ p["w1"].T + p["b1"]
    r = np.maximum(z, 0)
    h2 = h1 + r @ p["w2"].T + p["b2"]
    logits = h2 @ p["tok"].T + p["unembed_b"]
    # backward: d loss / d logits of the mean cross-entropy over positions 0..L-2
    e = np.exp(logits[:, :-1] - logits[:, :-1].max(-1, keepdims=True))
    dlogits = np.zeros_like(logits)
    dlogits[:, :-1] = e / e.sum(-1, keepdims=True)
    np.put_along_axis(dlogits[:, :-1], T[:, 1:, None],
                      np.take_along_axis(dlogits[:, :-1], T[:, 1:, None], -1) - 1, -1)
    dlogits /= L - 1
    g = {"unembed_b": dlogits.sum(1)}
    d_tok = _outer(dlogits, h2)
    dh2 = dlogits @ p["tok"]
    g["b2"], g["w2"] = dh2.sum(1), _outer(dh2, r)
    dz = (dh2 @ p["w2"]) * (z > 0)
    g["b1"], g["w1"] = dz.sum(1), _outer(dz, m)
    dh1, g["ln2_w"], g["ln2_b"] = _ln_backward(dz @ p["w1"], xhat2, rstd2, p["ln2_w"])
    dh1 += dh2
    g["wo"] = _outer(dh1, o)
    do = dh1 @ p["wo"]
    dP = do @ v.transpose(0, 2, 1)
    dv = P.transpose(0, 2, 1) @ do
    ds = P * (dP - (dP * P).sum(-1, keepdims=True)) * scale
    dq, dk = ds @ k, ds.transpose(0, 2, 1) @ q
    g["wq"], g["wk"], g["wv"] = _outer(dq, a), _outer(dk, a), _outer(dv, a)
    da = dq @ p["wq"] + dk @ p["wk"] + dv @ p["wv"]
    dh0, g["ln1_w"], g["ln1_b"] = _ln_backward(da, xhat1, rstd1, p["ln1_w"])
    dh0 += dh1
    g["pos"] = dh0
    onehot = (T[:, :, None] == np.arange(VOCAB)).astype(dh0.dtype)
    g["tok"] = d_tok + np.matmul(onehot.transpose(0, 2, 1), dh0)
    return g


def loop_of_grad(p, T):
    grads = [ft.grad(loss)(p, t) for t in T]
    return {k: np.stack([g[k] for g in grads]) for k in p}


CLOCK = time.perf_counter


def timed(fns, repeats):
    """Median seconds of each function, measured interleaved with CLOCK (wall time, or
    this process's CPU time with --cpu-time)."""
    return interleaved_medians(fns, repeats, CLOCK)


def _torch_figure(p, T, repeats):
    """Eager torch.func when torch is importable (not a dependency), else None."""
    try:
        import torch
        from torch.func import grad, vmap
    except ImportError:
        return None
    F = torch.nn.functional
    tp = {k: torch.from_numpy(v) for k, v in p.items()}
    tT = torch.from_numpy(T)

    def tloss(p, t):
        h = F.embedding(t, p["tok"]) + p["pos"]
        a = F.layer_norm(h, (DIM,), p["ln1_w"], p["ln1_b"])
        q, k, v = F.linear(a, p["wq"]), F.linear(a, p["wk"]), F.linear(a, p["wv"])
        h = h + F.linear(F.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
        m = F.layer_norm(h, (DIM,), p["ln2_w"], p["ln2_b"])
        h = h + F.linear(F.relu(F.linear(m, p["w1"], p["b1"])), p["w2"], p["b2"])
        return F.cross_entropy(F.linear(h, p["tok"], p["unembed_b"])[:-1], t[1:])
    f = vmap(grad(tloss), in_dims=(None, 0))
    return timed([lambda: f(tp, tT)], repeats)[0]


def jax_per_example_grads():
    """The same block in JAX: jax.vmap(jax.grad(loss)), for the xla columns."""
    import jax
    import jax.numpy as jnp

    def ln(x, w, b):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / jnp.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + EPS) * w + b

    def jloss(p, t):
        h = p["tok"][t] + p["pos"]
        a = ln(h, p["ln1_w"], p["ln1_b"])
        q, k, v = a @ p["wq"].T, a @ p["wk"].T, a @ p["wv"].T
        s = jnp.where(jnp.tril(jnp.ones((LENGTH, LENGTH), bool)), q @ k.T / np.sqrt(DIM),
                      -jnp.inf)
        h = h + (jax.nn.softmax(s, axis=-1) @ v) @ p["wo"].T
        m = ln(h, p["ln2_w"], p["ln2_b"])
        h = h + jax.nn.relu(m @ p["w1"].T + p["b1"]) @ p["w2"].T + p["b2"]
        logp = jax.nn.log_softmax((h @ p["tok"].T + p["unembed_b"])[:-1], axis=-1)
        return -jnp.take_along_axis(logp, t[1:, None], axis=-1).mean()
    return jax.vmap(jax.grad(jloss), in_axes=(None, 0))


def run(batch, repeats, rng):
    p = init_params(rng)
    T = rng.integers(0, VOCAB, (batch, LENGTH))
    ours, ref = per_example_grads(p, T), handwritten_per_example_grads(p, T)
    for k in p:
        assert ours[k].dtype == np.float32 and ours[k].shape == ref[k].shape, k
        np.testing.assert_allclose(ours[k], ref[k], rtol=2e-3, atol=2e-5, err_msg=k)
    t_hand, t_ours = timed([lambda: handwritten_per_example_grads(p, T),
                            lambda: per_example_grads(p, T)], repeats)
    t_loop, = timed([lambda: loop_of_grad(p, T)], max(2, repeats // 10))
    print(f"batch {batch:4d}: hand-written NumPy {t_hand * 1e3:8.2f} ms | "
          f"vmap(grad) {t_ours * 1e3:8.2f} ms ({t_ours / t_hand:.2f}x) | "
          f"loop of grad {t_loop * 1e3:8.1f} ms ({t_loop / t_hand:.1f}x)")
    t_torch = _torch_figure(p, T, repeats)
    if t_torch is not None:
        print(f"            torch.func (eager): {t_torch * 1e3:.2f} ms "
              f"({t_torch / t_hand:.2f}x)")
    if jax_or_none() is not None:
        times, diffs = xla_columns(per_example_grads, jax_per_example_grads(), (p, T), repeats)
        print(f"            {format_columns(times, diffs)}")
    return t_ours / t_hand


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this process's CPU time instead of wall time")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    print(f"one block: vocab {VOCAB}, length {LENGTH}, width {DIM}, MLP {HIDDEN}, float32")
    rng = np.random.default_rng(0)
    for batch in args.batches:
        run(batch, args.repeats, rng)


if __name__ == "__main__":
    main()
