"""DP-SGD training of a small CNN on real handwritten digits (scikit-learn's 8x8 digits, shipped
inside the scikit-learn package: no download).

Model (PyTorch layout, one example at a time): conv 3x3 (1 -> 8) + relu, conv 3x3 (8 -> 16),
group norm (4 groups) + relu, 2x2 max pool, linear (256 -> 10). Group norm, not batch norm:
per-example gradients need examples that do not see each other.

One DP-SGD step (Abadi et al. 2016): per-example gradients with vmap(grad), each clipped to
L2 norm <= C, summed, Gaussian noise N(0, (sigma C)^2) added, divided by the batch size. With
--ghost the clipped sum comes from functorch_lite.dp.clipped_grad_sum instead, which never forms
the per-example gradients (equal results; see docs/dp_sgd.md for when each is faster). With
--jit xla (the default when JAX is installed) the clipped sum of a step is one program compiled
by XLA (`ft.jit(..., backend="xla")`); --jit numpy replays it as NumPy calls, --jit none runs
it eagerly; the noise is drawn on the host either way. The
privacy cost is reported as (epsilon, delta) by Google's dp-accounting library (the Renyi-DP
accountant of the sampled Gaussian mechanism, Mironov et al. 2019), which assumes Poisson
sampling of each batch; this program draws shuffled fixed-size batches, as most DP-SGD
tutorials do.

    python examples/dp_sgd_cnn.py [--epochs 15] [--ghost] [--jit xla|numpy|none]
                                  [--figure dp_sgd_cnn.png]

Needs the `examples` extra (scikit-learn, matplotlib, dp-accounting): pip install -e ".[examples]".
"""
import argparse
import sys
import time

import numpy as np
import optree

import functorch_lite as ft
import functorch_lite.numpy as fnp


def load_data(rng):
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.images / 16.0 - 0.3).astype(np.float32)[:, None]       # (1797, 1, 8, 8)
    order = rng.permutation(len(x))
    x, y = x[order], digits.target[order]
    n_test = 360
    return (x[n_test:], y[n_test:]), (x[:n_test], y[:n_test])


def init_params(rng):
    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)
    return {"conv1": he(8, 1, 3, 3), "b1": np.zeros(8, np.float32),
            "conv2": he(16, 8, 3, 3), "b2": np.zeros(16, np.float32),
            "gn_scale": np.ones(16, np.float32), "gn_shift": np.zeros(16, np.float32),
            "fc": he(10, 256).T.copy(), "fc_b": np.zeros(10, np.float32)}


def predict(params, x):
    """Logits of a batch x (N, 1, 8, 8)."""
    h = ft.nn.relu(ft.nn.conv2d(x, params["conv1"], params["b1"], padding=1))
    h = ft.nn.conv2d(h, params["conv2"], params["b2"], padding=1)
    h = ft.nn.relu(ft.nn.group_norm(h, 4, params["gn_scale"], params["gn_shift"]))
    h = ft.nn.max_pool2d(h, 2)                                          # (N, 16, 4, 4)
    return fnp.reshape(h, (h.shape[0], -1)) @ params["fc"] + params["fc_b"]


def loss(params, x, y):
    """Cross-entropy of one example x (1, 8, 8), run as a batch of one (as torch.func does)."""
    return ft.nn.cross_entropy(predict(params, x[None])[0], y)


per_example_grads = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))


def clipped_sum(params, x, y, clip):
    """The per-example gradients clipped to norm <= clip and summed, and their norms before
    clipping: what a DP-SGD step computes before its noise, as one function to compile."""
    grads = per_example_grads(params, x, y)
    norms = fnp.sqrt(sum(fnp.sum(fnp.reshape(g, (g.shape[0], -1)) ** 2, axis=1)
                         for g in optree.tree_leaves(grads)))
    scale = fnp.minimum(1.0, clip / fnp.maximum(norms, 1e-12))
    return {k: fnp.tensordot(scale, g, axes=1) for k, g in grads.items()}, norms


def jit_choice(name):
    """The --jit path: as asked, else XLA where JAX is installed, else eager."""
    if name is not None:
        return name
    try:
        import jax  # noqa: F401
    except ImportError:
        return "none"
    return "xla"


def epsilon(q, noise_multiplier, steps, delta, orders=range(2, 128)):
    """(epsilon, best order) of `steps` compositions of the Poisson-sampled Gaussian mechanism
    (sampling rate q), by dp-accounting's Renyi-DP accountant at the given orders."""
    from dp_accounting import dp_event, rdp
    accountant = rdp.RdpAccountant(orders=[float(a) for a in orders])
    event = dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(noise_multiplier))
    accountant.compose(event, steps)
    eps, order = accountant.get_epsilon_and_optimal_order(delta)
    return float(eps), int(order)


def accuracy(params, x, y):
    return float((np.argmax(predict(params, x), axis=1) == y).mean())


def progress(done, total, width=20):
    filled = round(width * done / total)
    return "[" + "#" * filled + "." * (width - filled) + "]"


def plot(history, norms_before, norms_after, clip, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    epochs = np.arange(1, len(history["loss"]) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, history["loss"], "o-", label="train loss")
    left.set_xlabel("epoch")
    left.set_ylabel("cross-entropy")
    twin = left.twinx()
    twin.plot(epochs, history["train_acc"], "s--", color="tab:green", label="train accuracy")
    twin.plot(epochs, history["test_acc"], "s-", color="tab:red", label="test accuracy")
    twin.set_ylabel("accuracy")
    twin.set_ylim(0, 1)
    # one legend, drawn by the twin axes (drawn last, so nothing covers it)
    lines = left.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    twin.legend(lines, [line.get_label() for line in lines], loc="center right")
    left.set_title("DP-SGD training of the CNN")
    low = max(norms_before.min(), 1e-6)      # norms span decades: log-spaced bins
    bins = np.logspace(np.log10(low), np.log10(max(norms_before.max(), clip) * 1.1), 60)
    right.hist(norms_before, bins=bins, alpha=0.6, label="before clipping")
    right.hist(norms_after, bins=bins, alpha=0.6, label="after clipping")
    right.axvline(clip, color="k", linestyle=":", label=f"clipping norm C = {clip:g}")
    right.set_xscale("log")
    right.set_xlabel("per-example gradient L2 norm (log scale)")
    right.set_ylabel("examples (all steps)")
    right.set_title("Per-example gradient norms")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description="DP-SGD of a CNN on the 8x8 digits")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--noise", type=float, default=1.0)
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--figure", default="dp_sgd_cnn.png")
    parser.add_argument("--ghost", action="store_true",
                        help="clipped sums by functorch_lite.dp (no per-example gradients)")
    parser.add_argument("--jit", choices=["xla", "numpy", "none"], default=None,
                        help="compile each step's clipped sum (default: xla if JAX is "
                             "installed, else none)")
    args = parser.parse_args(argv)
    args.jit = jit_choice(args.jit)
    if args.ghost:
        step_sum = ft.dp.clipped_grad_sum(loss, args.clip)
    else:
        step_sum = lambda p, x, y: clipped_sum(p, x, y, args.clip)  # noqa: E731
    if args.jit != "none":
        step_sum = ft.jit(step_sum, backend=args.jit)

    rng = np.random.default_rng(0)
    (x_train, y_train), (x_test, y_test) = load_data(rng)
    params = init_params(rng)
    key = ft.random.key(1)
    n = len(x_train)
    q = args.batch / n
    steps_per_epoch = n // args.batch
    print(f"DP-SGD on {n} training digits (8x8), {len(x_test)} test digits; " +
          ("clipped sums by dp.clipped_grad_sum (ghost clipping)" if args.ghost else
             "per-example gradients by vmap(grad)") +
          {"xla": ", each step compiled by XLA (ft.jit backend='xla')",
           "numpy": ", each step compiled to NumPy calls (ft.jit backend='numpy')",
           "none": ", run eagerly (no ft.jit)"}[args.jit])
    print(f"privacy parameters: noise multiplier sigma = {args.noise}, clipping norm "
          f"C = {args.clip}, sampling rate q = {args.batch}/{n} = {q:.4f}, "
          f"delta = {args.delta:g}")
    history = {"loss": [], "train_acc": [], "test_acc": []}
    before, after = [], []
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(n)
        for step in range(steps_per_epoch):
            idx = order[step * args.batch:(step + 1) * args.batch]
            total, norms = step_sum(params, x_train[idx], y_train[idx])
            if args.ghost:
                key, sub = ft.random.split(key)
                noisy = ft.dp.add_noise(sub, total, args.noise, args.clip)
            else:
                noisy = {k: v + rng.normal(0.0, args.noise * args.clip, v.shape).astype(
                    np.float32) for k, v in total.items()}
            private = {k: v / len(idx) for k, v in noisy.items()}
            clipped = np.minimum(norms, args.clip)
            before.append(norms)
            after.append(clipped)
            params = {k: params[k] - args.lr * private[k] for k in params}
        history["loss"].append(float(ft.nn.cross_entropy(predict(params, x_train), y_train)))
        history["train_acc"].append(accuracy(params, x_train, y_train))
        history["test_acc"].append(accuracy(params, x_test, y_test))
        eps, _ = epsilon(q, args.noise, epoch * steps_per_epoch, args.delta)
        print(f"{progress(epoch, args.epochs)} epoch {epoch:2d}/{args.epochs}: "
              f"train loss {history['loss'][-1]:.3f}, train acc {history['train_acc'][-1]:.3f},"
              f" test acc {history['test_acc'][-1]:.3f}, epsilon {eps:.2f} "
              f"({time.perf_counter() - start:.1f} s)")
        sys.stdout.flush()
    eps, order = epsilon(q, args.noise, args.epochs * steps_per_epoch, args.delta)
    final = history["test_acc"][-1]
    print(f"final test accuracy: {final:.3f}")
    print(f"privacy spent: ({eps:.2f}, {args.delta:g})-DP after {args.epochs * steps_per_epoch} "
          f"steps (Renyi order {order}; sigma = {args.noise}, C = {args.clip}, q = {q:.4f})")
    before, after = np.concatenate(before), np.concatenate(after)
    print(f"per-example gradient norms: median {np.median(before):.2f} before clipping, "
          f"{np.mean(before > args.clip):.0%} of them clipped to C = {args.clip}")
    if args.figure:
        plot(history, before, after, args.clip, args.figure)
        print(f"figure: {args.figure}")
    return final


if __name__ == "__main__":
    main()
