"""vmap speed: vmap against hand-batched NumPy and a Python loop of the same function.

    python benchmarks/vmap_speed.py

f(x) = sin(x) @ W + b, x of shape (256,), W (256, 256), batch 1000, float32 and float64; a
two-level nested vmap; and the per-call overhead of vmap on a tiny function (shape (8,), three
ops). Times are medians over rounds in which vmap and NumPy are measured in alternation. On a
shared machine, pin BLAS to one thread (OMP_NUM_THREADS=1) for stable ratios.
"""
import timeit

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp


def best(fn, number, repeat=7):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def best_interleaved(fns, number, repeat=41):
    """Median time per call of each function, measured in alternation (round after round) so
    that a busy machine disturbs them alike."""
    for fn in fns:
        fn()
    rounds = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            rounds[k].append(timeit.timeit(fn, number=number) / number)
    return [float(np.median(r)) for r in rounds]


def bench_mlp_layer(dtype, batch=1000, n=256):
    rng = np.random.default_rng(0)
    W = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    X = rng.standard_normal((batch, n)).astype(dtype)

    def f(x):
        return fnp.sin(x) @ W + b

    def f_numpy(x):
        return np.sin(x) @ W + b

    vf = ft.vmap(f)
    np.testing.assert_allclose(vf(X), f_numpy(X), rtol=1e-4 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-12)
    t_vmap, t_hand = best_interleaved([lambda: vf(X), lambda: f_numpy(X)], 5)
    t_loop = best(lambda: np.stack([f_numpy(x) for x in X]), 3)
    return t_vmap, t_hand, t_loop


def bench_nested(dtype, outer=20, inner=50, n=256):
    """vmap(vmap(f)) over a (20, 50) grid of inputs against the same hand-batched NumPy."""
    rng = np.random.default_rng(1)
    W = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    X = rng.standard_normal((outer, inner, n)).astype(dtype)

    def f(x):
        return fnp.sin(x) @ W + b

    vvf = ft.vmap(ft.vmap(f))
    t_vmap, t_hand = best_interleaved([lambda: vvf(X), lambda: np.sin(X) @ W + b], 5)
    return t_vmap, t_hand


def bench_overhead():
    """A tiny function (shape (8,), three ops): the time is all per-call overhead."""
    x = np.linspace(0.0, 1.0, 8 * 4).reshape(4, 8)

    def tiny(x):
        return fnp.sum(fnp.sin(x) * 2.0)

    vt = ft.vmap(tiny)
    t_vmap, t_plain = best_interleaved([lambda: vt(x), lambda: np.sum(np.sin(x) * 2.0, axis=1)],
                                       200)
    return t_vmap, t_plain


def bench_torch(dtype, batch=1000, n=256):
    """torch.func.vmap of the same layer against hand-batched torch, when torch is importable
    (not a dependency); None otherwise."""
    try:
        import torch
        from torch.func import vmap
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    W, b, X = (torch.from_numpy(a.astype(dtype)) for a in (
        rng.standard_normal((n, n)), rng.standard_normal(n), rng.standard_normal((batch, n))))
    vf = vmap(lambda x: torch.sin(x) @ W + b)
    t_vmap, t_hand = best_interleaved([lambda: vf(X), lambda: torch.sin(X) @ W + b], 5)
    tiny, x = vmap(lambda x: torch.sum(torch.sin(x) * 2.0)), torch.linspace(0, 1, 32).reshape(4, 8)
    t_tiny = best(lambda: tiny(x), 200)
    return t_vmap, t_hand, t_tiny


def main():
    print("f(x) = sin(x) @ W + b, x (256,), W (256, 256), batch 1000")
    print(f"{'dtype':8} {'vmap':>10} {'hand NumPy':>12} {'loop':>10} {'vmap/hand':>10} "
          f"{'loop/vmap':>10}")
    for dtype in (np.float32, np.float64):
        t_vmap, t_hand, t_loop = bench_mlp_layer(dtype)
        print(f"{np.dtype(dtype).name:8} {t_vmap * 1e3:8.3f}ms {t_hand * 1e3:10.3f}ms "
              f"{t_loop * 1e3:8.2f}ms {t_vmap / t_hand:10.2f} {t_loop / t_vmap:10.1f}")
    print("\nnested vmap(vmap(f)) over a (20, 50) batch")
    for dtype in (np.float32, np.float64):
        t_vmap, t_hand = bench_nested(dtype)
        print(f"{np.dtype(dtype).name:8} {t_vmap * 1e3:8.3f}ms {t_hand * 1e3:10.3f}ms "
              f"{'':>10} {t_vmap / t_hand:10.2f}")
    t_vmap, t_plain = bench_overhead()
    print(f"\nper-call time of vmap on a tiny function (batch 4, shape (8,), 3 ops): "
          f"{t_vmap * 1e6:.1f} us (hand-batched NumPy: {t_plain * 1e6:.1f} us; "
          f"overhead {(t_vmap - t_plain) * 1e6:.1f} us)")
    for dtype in (np.float32, np.float64):
        peer = bench_torch(dtype)
        if peer is None:
            break
        t_vmap, t_hand, t_tiny = peer
        print(f"torch.func.vmap, {np.dtype(dtype).name}: {t_vmap * 1e3:.3f} ms vs hand-batched "
              f"torch {t_hand * 1e3:.3f} ms ({t_vmap / t_hand:.2f}x); tiny function "
              f"{t_tiny * 1e6:.1f} us per call")


if __name__ == "__main__":
    main()
