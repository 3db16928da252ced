"""DP-SGD on a 784-128-10 tanh MLP: per-example gradients with vmap(grad), each clipped to a
norm bound, summed, noised (Gaussian), averaged. The data is a synthetic 10-class problem made
here (no downloads): noisy points around 10 random centroids in 784 dimensions.

    python examples/dp_sgd_mlp.py [--epochs 5] [--batch 64] [--ghost]

Prints loss and accuracy per epoch, the privacy spent (epsilon at delta 1e-5, by Google's
dp-accounting; the `examples` extra), the final test accuracy, and the time of one batch of
per-example gradients by vmap(grad) against a Python loop of grad. With --ghost the clipped sums
come from functorch_lite.dp.clipped_grad_sum, which never forms per-example gradients.
"""
import argparse
import time

import numpy as np
import optree

import functorch_lite as ft
import functorch_lite.numpy as fnp

D_IN, D_HID, N_CLASSES = 784, 128, 10


def make_data(rng, n, centroids):
    labels = rng.integers(0, N_CLASSES, n)
    x = centroids[labels] + 1.0 * rng.standard_normal((n, D_IN))
    return x.astype(np.float32), labels


def init_params(rng):
    return {"w1": (rng.standard_normal((D_IN, D_HID)) / np.sqrt(D_IN)).astype(np.float32),
            "b1": np.zeros(D_HID, np.float32),
            "w2": (rng.standard_normal((D_HID, N_CLASSES)) / np.sqrt(D_HID)).astype(np.float32),
            "b2": np.zeros(N_CLASSES, np.float32)}


def predict(params, x):
    h = fnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def loss(params, x, y):
    """Cross-entropy of one example."""
    return ft.nn.cross_entropy(predict(params, x), y)


per_example_grads = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))


def clip_and_noise(grads, clip_norm, noise_multiplier, rng):
    """Clip each example's whole gradient to norm <= clip_norm, sum, add N(0, (sigma C)^2)."""
    leaves, spec = optree.tree_flatten(grads)
    batch = leaves[0].shape[0]
    norms = np.sqrt(sum((g.reshape(batch, -1).astype(np.float64) ** 2).sum(1) for g in leaves))
    scale = np.minimum(1.0, clip_norm / np.maximum(norms, 1e-12)).astype(np.float32)
    noisy = []
    for g in leaves:
        total = np.tensordot(scale, g, axes=1)
        noise = rng.normal(0.0, noise_multiplier * clip_norm, total.shape).astype(np.float32)
        noisy.append((total + noise) / batch)
    return spec.unflatten(noisy)


def ghost_clip_and_noise(params, x, y, clip_norm, noise_multiplier, key):
    """The same step by functorch_lite.dp: clipped sum from factors, Gaussian noise, average."""
    total, _ = ft.dp.clipped_grad_sum(loss, clip_norm)(params, x, y)
    noisy = ft.dp.add_noise(key, total, noise_multiplier, clip_norm)
    return {k: v / len(x) for k, v in noisy.items()}


def epsilon(q, noise_multiplier, steps, delta):
    """Epsilon of `steps` Poisson-sampled Gaussian mechanisms, by dp-accounting (Renyi DP)."""
    from dp_accounting import dp_event, rdp
    accountant = rdp.RdpAccountant(orders=[float(a) for a in range(2, 128)])
    accountant.compose(dp_event.PoissonSampledDpEvent(
        q, dp_event.GaussianDpEvent(noise_multiplier)), steps)
    return float(accountant.get_epsilon(delta))


def accuracy(params, x, y):
    return float((np.argmax(predict(params, x), axis=1) == y).mean())


def main():
    parser = argparse.ArgumentParser(description="DP-SGD with per-example gradients")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--noise", type=float, default=0.5)
    parser.add_argument("--train", type=int, default=1024)
    parser.add_argument("--ghost", action="store_true",
                        help="clipped sums by functorch_lite.dp (no per-example gradients)")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    centroids = rng.standard_normal((N_CLASSES, D_IN)) * 0.25
    x_train, y_train = make_data(rng, args.train, centroids)
    x_test, y_test = make_data(rng, 1000, centroids)
    params = init_params(rng)
    key = ft.random.key(1)
    steps = 0

    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(args.train)
        t0 = time.perf_counter()
        for start in range(0, args.train - args.batch + 1, args.batch):
            idx = order[start:start + args.batch]
            if args.ghost:
                key, sub = ft.random.split(key)
                step = ghost_clip_and_noise(params, x_train[idx], y_train[idx], args.clip,
                                            args.noise, sub)
            else:
                grads = per_example_grads(params, x_train[idx], y_train[idx])
                step = clip_and_noise(grads, args.clip, args.noise, rng)
            steps += 1
            params = {k: params[k] - args.lr * step[k] for k in params}
        train_loss = float(ft.nn.cross_entropy(predict(params, x_train), y_train))
        print(f"epoch {epoch}: train loss {train_loss:.4f}, "
              f"train acc {accuracy(params, x_train, y_train):.3f}, "
              f"test acc {accuracy(params, x_test, y_test):.3f} "
              f"({time.perf_counter() - t0:.2f} s)")
    final = accuracy(params, x_test, y_test)
    print(f"final test accuracy: {final:.3f}")
    try:
        eps = epsilon(args.batch / args.train, args.noise, steps, 1e-5)
        print(f"privacy spent: ({eps:.1f}, 1e-05)-DP after {steps} steps (dp-accounting, RDP)")
    except ImportError:
        print("privacy spent: install dp-accounting (the examples extra) to report it")

    xb, yb = x_train[:args.batch], y_train[:args.batch]
    per_example_grads(params, xb, yb)
    t0 = time.perf_counter()
    for _ in range(5):
        batched = per_example_grads(params, xb, yb)
    t_vmap = (time.perf_counter() - t0) / 5
    t0 = time.perf_counter()
    looped = [ft.grad(loss)(params, xb[b], yb[b]) for b in range(args.batch)]
    t_loop = time.perf_counter() - t0
    np.testing.assert_allclose(batched["w1"][3], looped[3]["w1"], rtol=1e-4, atol=1e-6)
    print(f"per-example gradients of one batch of {args.batch}: vmap(grad) "
          f"{t_vmap * 1e3:.1f} ms, loop of grad {t_loop * 1e3:.1f} ms "
          f"({t_loop / t_vmap:.1f}x faster)")
    return final


if __name__ == "__main__":
    main()
