"""Per-call overhead of functorch_lite's op layer against raw NumPy.

For a few ops on small and large arrays, times one call three ways:
  raw      the NumPy function itself
  level 0  functorch_lite.numpy on plain arrays (one scan of the arguments, then the kernel)
  level 1  functorch_lite.numpy on a pass-through wrapper (dispatch, unwrap, kernel, re-wrap)
and prints microseconds per call, the ratio to raw, and the absolute overhead over raw.
Each figure is the minimum over repeats of timeit's average (the least disturbed run); the
three ways are timed in turn within each repeat, so machine load affects them alike.

    python benchmarks/overhead.py [--quick]

Targets: level 0 within 0.5 us of raw NumPy on small arrays, within 2% on large ones.
"""
import argparse
import timeit

import numpy as np

import functorch_lite.numpy as fnp
from functorch_lite.testing import PassThroughInterpreter


def _cases():
    rng = np.random.default_rng(0)
    small, large = rng.standard_normal(8), rng.standard_normal(1_000_000)
    sq_small, sq_large = rng.standard_normal((8, 8)), rng.standard_normal((1000, 1000))
    idx = np.array([0, 3, 5])
    big_idx = rng.integers(0, 1_000_000, 100_000)
    return [
        # name, size, raw fn, our fn, args
        ("add", "small (8,)", np.add, fnp.add, (small, small)),
        ("add", "large (1e6,)", np.add, fnp.add, (large, large)),
        ("sin", "small (8,)", np.sin, fnp.sin, (small,)),
        ("sin", "large (1e6,)", np.sin, fnp.sin, (large,)),
        ("sum", "small (8,)", np.sum, fnp.sum, (small,)),
        ("sum", "large (1e6,)", np.sum, fnp.sum, (large,)),
        ("matmul", "small (8,8)", np.matmul, fnp.matmul, (sq_small, sq_small)),
        ("matmul", "large (1000,1000)", np.matmul, fnp.matmul, (sq_large, sq_large)),
        ("getitem", "small (8,)[idx]", lambda x, i: x[i], fnp.getitem, (small, idx)),
        ("getitem", "large (1e6,)[1e5 idx]", lambda x, i: x[i], fnp.getitem, (large, big_idx)),
    ]


def _calls_per_run(fn, args, budget):
    """Enough calls that one timed run lasts about `budget` seconds."""
    timer, n = timeit.Timer(lambda: fn(*args)), 1
    while timer.timeit(n) < budget:
        n *= 2
    return n


def _time_interleaved(variants, repeat, budget):
    """Microseconds per call of each (fn, args) variant: the minimum over `repeat` rounds, the
    variants timed in turn within each round, so that a busy machine slows all of them alike."""
    n = _calls_per_run(*variants[0], budget)
    timers = [timeit.Timer(lambda fn=fn, args=args: fn(*args)) for fn, args in variants]
    best = [float("inf")] * len(variants)
    for _ in range(repeat):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(n) / n * 1e6)
    return best


def main(quick=False):
    repeat, budget = (3, 0.02) if quick else (15, 0.05)
    rows = []
    for name, size, raw_fn, our_fn, args in _cases():
        with PassThroughInterpreter() as interp:
            wrapped = (interp.wrap(args[0]),) + args[1:]
            raw, level0, level1 = _time_interleaved(
                [(raw_fn, args), (our_fn, args), (our_fn, wrapped)], repeat, budget)
        rows.append((name, size, raw, level0, level1))

    header = (f"{'op':8} {'arrays':24} {'raw us':>10} {'level0 us':>10} {'l0/raw':>7} "
              f"{'l0-raw us':>10} {'level1 us':>10} {'l1/raw':>7} {'l1-raw us':>10}")
    print(header)
    print("-" * len(header))
    for name, size, raw, l0, l1 in rows:
        print(f"{name:8} {size:24} {raw:10.2f} {l0:10.2f} {l0 / raw:7.3f} {l0 - raw:10.2f} "
              f"{l1:10.2f} {l1 / raw:7.3f} {l1 - raw:10.2f}")
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    main(parser.parse_args().quick)
