"""Timing helpers shared by the benchmarks (run as scripts, so `benchmarks/` is on sys.path)."""
import time

import numpy as np


def best_ms(fn, repeat):
    """The best of `repeat` timed calls of fn, in milliseconds, after one warm-up call."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def interleaved_medians(fns, repeats, clock=time.perf_counter):
    """Median seconds of each function, measured interleaved (load from other processes then
    affects them alike); `clock` is wall time, or time.process_time for this process's CPU
    time, steadier on a machine shared with other work."""
    for fn in fns:
        fn()  # warm up
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, ts in zip(fns, times):
            t0 = clock()
            fn()
            ts.append(clock() - t0)
    return [float(np.median(ts)) for ts in times]
