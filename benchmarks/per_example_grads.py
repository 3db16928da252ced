"""Per-example gradients of a 784-128-10 tanh MLP with softmax cross-entropy (float32):
vmap(grad(loss), in_dims=(None, 0, 0)) against hand-written batched NumPy (the backward pass
derived by hand, with einsum) and against a Python loop of grad. Prints median times, the ratio
to hand-written NumPy, and peak traced memory (tracemalloc).

    python benchmarks/per_example_grads.py [--batches 64 512] [--repeats 20]

Targets (issue 4): at most 1.3x hand-written at batch 64 and 1.15x at batch 512.
"""
import argparse
import tracemalloc

import numpy as np
from _timing import interleaved_medians

import functorch_lite as ft
import functorch_lite.numpy as fnp

D_IN, D_HID, D_OUT = 784, 128, 10


def init_params(rng, dtype=np.float32):
    return {"w1": (rng.standard_normal((D_IN, D_HID)) / np.sqrt(D_IN)).astype(dtype),
            "b1": np.zeros(D_HID, dtype),
            "w2": (rng.standard_normal((D_HID, D_OUT)) / np.sqrt(D_HID)).astype(dtype),
            "b2": np.zeros(D_OUT, dtype)}


def loss(params, x, y):
    """Cross-entropy of one example (x: (784,), y: a 0-d integer label)."""
    h = fnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return ft.nn.cross_entropy(logits, y)


per_example_grads = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))


def handwritten_per_example_grads(params, X, Y):
    """The same gradients by hand: forward, then the backward pass written out with einsum."""
    h = np.tanh(X @ params["w1"] + params["b1"])                  # (B, 128)
    logits = h @ params["w2"] + params["b2"]                      # (B, 10)
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(Y)), Y] -= 1.0                                # d loss / d logits
    g_w2 = np.einsum("bi,bj->bij", h, p)
    g_h = p @ params["w2"].T
    g_pre = g_h * (1.0 - h * h)
    g_w1 = np.einsum("bi,bj->bij", X, g_pre)
    return {"w1": g_w1, "b1": g_pre, "w2": g_w2, "b2": p}


def loop_of_grad(params, X, Y):
    grads = [ft.grad(loss)(params, X[b], Y[b]) for b in range(len(Y))]
    return {k: np.stack([g[k] for g in grads]) for k in params}


def timed(fns, repeats):
    """Median wall-clock seconds of each function, measured interleaved."""
    return interleaved_medians(fns, repeats)


def peak_memory(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def _peer_figures(params, X, Y, repeats):
    """Eager torch.func figures when torch is importable (not a dependency)."""
    out = {}
    try:
        import torch
        from torch.func import grad, vmap
    except ImportError:
        return out
    tp = {k: torch.from_numpy(v) for k, v in params.items()}
    tx, ty = torch.from_numpy(X), torch.from_numpy(Y)

    def tloss(p, x, y):
        h = torch.tanh(x @ p["w1"] + p["b1"])
        return torch.nn.functional.cross_entropy((h @ p["w2"] + p["b2"])[None], y[None])
    f = vmap(grad(tloss), in_dims=(None, 0, 0))
    out["torch.func"], = timed([lambda: f(tp, tx, ty)], repeats)
    return out


def run(batch, repeats, rng):
    params = init_params(rng)
    X = rng.standard_normal((batch, D_IN)).astype(np.float32)
    Y = rng.integers(0, D_OUT, batch)
    ours = per_example_grads(params, X, Y)
    ref = handwritten_per_example_grads(params, X, Y)
    for k in params:
        assert ours[k].dtype == np.float32 and ours[k].shape == ref[k].shape
        np.testing.assert_allclose(ours[k], ref[k], rtol=2e-4, atol=2e-5)
    t_hand, t_ours = timed([lambda: handwritten_per_example_grads(params, X, Y),
                            lambda: per_example_grads(params, X, Y)], repeats)
    t_loop, = timed([lambda: loop_of_grad(params, X, Y)], max(2, repeats // 10))
    m_hand = peak_memory(lambda: handwritten_per_example_grads(params, X, Y))
    m_ours = peak_memory(lambda: per_example_grads(params, X, Y))
    print(f"batch {batch:4d}: hand-written NumPy {t_hand * 1e3:8.2f} ms | "
          f"vmap(grad) {t_ours * 1e3:8.2f} ms ({t_ours / t_hand:.2f}x) | "
          f"loop of grad {t_loop * 1e3:8.1f} ms ({t_loop / t_hand:.1f}x)")
    print(f"            peak memory: hand-written {m_hand / 2**20:.1f} MiB, "
          f"vmap(grad) {m_ours / 2**20:.1f} MiB ({m_ours / m_hand:.2f}x)")
    for name, t in _peer_figures(params, X, Y, repeats).items():
        print(f"            {name} (eager): {t * 1e3:.2f} ms ({t / t_hand:.2f}x)")
    return t_ours / t_hand


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 512])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for batch in args.batches:
        run(batch, args.repeats, rng)


if __name__ == "__main__":
    main()
