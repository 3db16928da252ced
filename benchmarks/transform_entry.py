"""Fixed entry cost of the transforms in eager mode (no jit), on tiny functions.

For grad, vmap, vmap(grad), jvp and vjp of f(x) = sum(sin(x) * 2) on float32 arrays of a few
elements, and for broadcast_to at level 0, prints microseconds per call next to the time of the
same computation written in NumPy, their ratio, and the difference (the transform's own Python).
Each figure is the minimum over repeats of timeit's average, all variants timed in turn within
each repeat, so that machine load affects them alike.

    OPENBLAS_NUM_THREADS=1 python benchmarks/transform_entry.py [--quick]

Targets (issue 10): grad at most 30 us, vmap(grad) at most 60 us, broadcast_to about 0.8 us.
"""
import argparse
import timeit

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp


def f(x):
    return fnp.sum(fnp.sin(x) * 2)


def _numpy_f(x):
    return np.sum(np.sin(x) * 2)


def _numpy_grad(x):
    return np.cos(x) * np.float32(2)


def _numpy_vmap(x):
    return np.sum(np.sin(x) * 2, axis=1)


def _cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(8).astype(np.float32)
    xb = rng.standard_normal((4, 8)).astype(np.float32)
    t = np.ones_like(x)
    grad_f, vmap_f, vmap_grad_f = ft.grad(f), ft.vmap(f), ft.vmap(ft.grad(f))
    row = rng.standard_normal(8).astype(np.float32)
    return [
        # name, numpy fn, functorch_lite fn, args
        ("grad", _numpy_grad, grad_f, (x,)),
        ("vmap", _numpy_vmap, vmap_f, (xb,)),
        ("vmap(grad)", _numpy_grad, vmap_grad_f, (xb,)),
        ("jvp", lambda x, t: (_numpy_f(x), np.sum(np.cos(x) * t * 2)),
         lambda x, t: ft.jvp(f, (x,), (t,)), (x, t)),
        ("vjp+vjp_fn", _numpy_grad, lambda x: ft.vjp(f, x)[1](np.float32(1)), (x,)),
        ("broadcast_to", lambda r: np.broadcast_to(r, (4, 8)),
         lambda r: fnp.broadcast_to(r, (4, 8)), (row,)),
    ]


def _calls_per_run(fn, args, budget):
    timer, n = timeit.Timer(lambda: fn(*args)), 1
    while timer.timeit(n) < budget:
        n *= 2
    return n


def _time_interleaved(variants, repeat, budget):
    """Microseconds per call of each (fn, args): minimum over rounds, variants timed in turn."""
    n = max(_calls_per_run(fn, args, budget) for fn, args in variants)
    timers = [timeit.Timer(lambda fn=fn, args=args: fn(*args)) for fn, args in variants]
    best = [float("inf")] * len(variants)
    for _ in range(repeat):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(n) / n * 1e6)
    return best


def main(quick=False):
    repeat, budget = (3, 0.01) if quick else (9, 0.05)
    header = f"{'transform':14} {'numpy us':>9} {'ft us':>9} {'ratio':>7} {'ft-numpy us':>12}"
    print(header)
    print("-" * len(header))
    for name, np_fn, ft_fn, args in _cases():
        raw, ours = _time_interleaved([(np_fn, args), (ft_fn, args)], repeat, budget)
        print(f"{name:14} {raw:9.2f} {ours:9.2f} {ours / raw:7.1f} {ours - raw:12.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    main(**vars(parser.parse_args()))
