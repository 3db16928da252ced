"""Per-example gradients of a one-block transformer (token and position embeddings, layer norm,
causal self-attention, an MLP, pre-norm residuals), trained with DP-SGD: each example's
gradient clipped to a norm bound (optim.clip_per_example), summed, noised, and fed to Adam.

The task is made here (no downloads): each sequence counts modulo V with its own step
(t[i+1] = t[i] + s mod V, s in 1..3), so the next token depends on the context: the model must
read the step off earlier tokens through attention.

    python examples/transformer_per_example.py [--steps 300] [--batch 32]

Prints the loss and next-token accuracy as it trains, the final test accuracy, and the time of
one batch of per-example gradients by vmap(grad) against a Python loop of grad.
"""
import argparse
import time

import numpy as np
import optree

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import nn, optim
from functorch_lite import random as fr

VOCAB, LENGTH, DIM, HIDDEN = 16, 8, 32, 64


def make_data(rng, n):
    start = rng.integers(0, VOCAB, (n, 1))
    step = rng.integers(1, 4, (n, 1))
    return (start + step * np.arange(LENGTH)) % VOCAB


def init_params(key):
    keys = fr.split(key, 8)

    def w(k, *shape):
        return (fr.normal(k, shape) / np.sqrt(shape[-1])).astype(np.float32)
    ones, zeros = np.ones(DIM, np.float32), np.zeros(DIM, np.float32)
    return {"tok": w(keys[0], VOCAB, DIM), "pos": w(keys[1], LENGTH, DIM),
            "ln1_w": ones, "ln1_b": zeros, "wq": w(keys[2], DIM, DIM),
            "wk": w(keys[3], DIM, DIM), "wv": w(keys[4], DIM, DIM), "wo": w(keys[5], DIM, DIM),
            "ln2_w": ones, "ln2_b": zeros, "w1": w(keys[6], HIDDEN, DIM),
            "b1": np.zeros(HIDDEN, np.float32), "w2": w(keys[7], DIM, HIDDEN),
            "b2": zeros, "unembed_b": np.zeros(VOCAB, np.float32)}


def logits_fn(p, tokens):
    """Next-token logits of one sequence (L,) -> (L, VOCAB); the unembedding is tied to the
    token embedding."""
    h = nn.embedding(tokens, p["tok"]) + p["pos"]
    a = nn.layer_norm(h, DIM, p["ln1_w"], p["ln1_b"])
    q, k, v = nn.linear(a, p["wq"]), nn.linear(a, p["wk"]), nn.linear(a, p["wv"])
    h = h + nn.linear(nn.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
    m = nn.layer_norm(h, DIM, p["ln2_w"], p["ln2_b"])
    h = h + nn.linear(nn.relu(nn.linear(m, p["w1"], p["b1"])), p["w2"], p["b2"])
    return nn.linear(h, p["tok"], p["unembed_b"])


def loss(p, tokens):
    """Mean next-token cross-entropy of one sequence."""
    return nn.cross_entropy(logits_fn(p, tokens)[:-1], tokens[1:])


per_example_grads = ft.vmap(ft.grad(loss), in_dims=(None, 0))


def accuracy(p, tokens):
    """Next-token accuracy from position 1 on (position 0 alone does not determine the step)."""
    pred = fnp.argmax(ft.vmap(logits_fn, in_dims=(None, 0))(p, tokens), axis=-1)
    return float(np.mean(pred[:, 1:-1] == tokens[:, 2:]))


def dp_step(params, state, opt, tokens, key, clip, noise):
    grads = optim.clip_per_example(per_example_grads(params, tokens), clip)
    batch = tokens.shape[0]
    leaves, spec = optree.tree_flatten(grads)
    keys = fr.split(key, len(leaves))
    noisy = [(g.sum(0) + noise * clip * fr.normal(k, g.shape[1:], np.float32)) / batch
             for g, k in zip(leaves, keys)]
    updates, state = opt.update(spec.unflatten(noisy), state, params)
    return optim.apply_updates(params, updates), state


def main():
    parser = argparse.ArgumentParser(description="DP-SGD on a one-block transformer")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--noise", type=float, default=0.3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    train, test = make_data(rng, 2048), make_data(rng, 512)
    key = fr.key(0)
    key, init_key = fr.split(key)
    params = init_params(init_key)
    opt = optim.adam(args.lr)
    state = opt.init(params)
    print(f"DP-SGD: clip norm {args.clip}, noise multiplier {args.noise}, batch {args.batch}")
    t0 = time.perf_counter()
    for step in range(1, args.steps + 1):
        idx = rng.choice(len(train), args.batch, replace=False)
        key, step_key = fr.split(key)
        params, state = dp_step(params, state, opt, train[idx], step_key, args.clip, args.noise)
        if step % 50 == 0 or step == args.steps:
            test_loss = float(np.mean(ft.vmap(loss, in_dims=(None, 0))(params, test)))
            print(f"step {step}: test loss {test_loss:.3f}, "
                  f"next-token accuracy {accuracy(params, test):.3f} "
                  f"({time.perf_counter() - t0:.1f} s)")
    final = accuracy(params, test)
    print(f"final test accuracy: {final:.3f}")

    batch = train[:args.batch]
    per_example_grads(params, batch)
    t0 = time.perf_counter()
    batched = per_example_grads(params, batch)
    t_vmap = time.perf_counter() - t0
    t0 = time.perf_counter()
    looped = [ft.grad(loss)(params, batch[b]) for b in range(args.batch)]
    t_loop = time.perf_counter() - t0
    for name in params:
        np.testing.assert_allclose(batched[name][5], looped[5][name], rtol=2e-3, atol=1e-5)
    print(f"per-example gradients of one batch of {args.batch}: vmap(grad) "
          f"{t_vmap * 1e3:.1f} ms, loop of grad {t_loop * 1e3:.1f} ms "
          f"({t_loop / t_vmap:.1f}x faster)")
    return final


if __name__ == "__main__":
    main()
