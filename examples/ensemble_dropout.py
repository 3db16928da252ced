"""A model ensemble with dropout, trained in one vectorized program: the members' parameters
are stacked along a leading axis, and vmap over (parameters, keys) runs every member's forward
and backward pass at once, each member drawing its own dropout masks from its own key.

The data is scikit-learn's 8x8 handwritten digits (shipped inside the package, no download).

    python examples/ensemble_dropout.py [--members 8] [--epochs 15]

Prints each member's test accuracy and that of the ensemble (softmax outputs averaged).
"""
import argparse

import numpy as np

import functorch_lite as ft
from functorch_lite import nn, optim
from functorch_lite import random as fr

HIDDEN, CLASSES = 128, 10


def load_digits(rng):
    from sklearn.datasets import load_digits as sklearn_digits
    data = sklearn_digits()
    x = (data.data / 16.0).astype(np.float32)
    order = rng.permutation(len(x))
    x, y = x[order], data.target[order]
    return (x[:1400], y[:1400]), (x[1400:], y[1400:])


def init_member(key, n_in):
    k1, k2 = fr.split(key)
    return {"w1": (fr.normal(k1, (HIDDEN, n_in)) / np.sqrt(n_in)).astype(np.float32),
            "b1": np.zeros(HIDDEN, np.float32),
            "w2": (fr.normal(k2, (CLASSES, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32),
            "b2": np.zeros(CLASSES, np.float32)}


def forward(params, key, x, rate, deterministic):
    """One member on a batch x: linear -> relu -> dropout -> linear."""
    h = nn.relu(nn.linear(x, params["w1"], params["b1"]))
    h = nn.dropout(key, h, rate, deterministic=deterministic)
    return nn.linear(h, params["w2"], params["b2"])


def loss(params, key, x, y, rate):
    return nn.cross_entropy(forward(params, key, x, rate, False), y)


# Every member at once: parameters and keys batched, the data shared.
ensemble_grads = ft.vmap(ft.value_and_grad(loss), in_dims=(0, 0, None, None, None))
ensemble_logits = ft.vmap(forward, in_dims=(0, None, None, None, None))


def main():
    parser = argparse.ArgumentParser(description="an ensemble with dropout, vmapped")
    parser.add_argument("--members", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rate", type=float, default=0.3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    (x_train, y_train), (x_test, y_test) = load_digits(rng)
    key = fr.key(0)
    key, init_key = fr.split(key)
    member_keys = fr.split(init_key, args.members)
    params = ft.vmap(init_member, in_dims=(0, None))(member_keys, x_train.shape[1])
    opt = optim.adam(1e-3)      # elementwise: updates the stacked parameters as they stand
    state = opt.init(params)

    # One member by hand gives the same loss and gradient as its row of the vmapped program.
    xb, yb = x_train[:args.batch], y_train[:args.batch]
    step_keys = fr.split(key, args.members)
    values, grads = ensemble_grads(params, step_keys, xb, yb, args.rate)
    member = {k: v[2] for k, v in params.items()}
    value2, grad2 = ft.value_and_grad(loss)(member, step_keys[2], xb, yb, args.rate)
    np.testing.assert_allclose(values[2], value2, rtol=1e-5)
    np.testing.assert_allclose(grads["w1"][2], grad2["w1"], rtol=1e-4, atol=1e-6)

    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order) - args.batch + 1, args.batch):
            idx = order[start:start + args.batch]
            key, sub = fr.split(key)
            values, grads = ensemble_grads(params, fr.split(sub, args.members),
                                           x_train[idx], y_train[idx], args.rate)
            updates, state = opt.update(grads, state, params)
            params = optim.apply_updates(params, updates)
        if epoch % 5 == 0 or epoch == args.epochs:
            print(f"epoch {epoch}: mean member training loss {float(np.mean(values)):.3f}")

    logits = ensemble_logits(params, key, x_test, args.rate, True)     # (members, n, classes)
    member_acc = (np.argmax(logits, -1) == y_test).mean(axis=1)
    ensemble_acc = float((np.argmax(nn.softmax(logits).mean(0), -1) == y_test).mean())
    print("member test accuracies: " + " ".join(f"{a:.3f}" for a in member_acc))
    print(f"mean member accuracy: {member_acc.mean():.3f}")
    print(f"final ensemble test accuracy: {ensemble_acc:.3f}")
    return ensemble_acc, member_acc


if __name__ == "__main__":
    main()
