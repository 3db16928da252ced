"""Threads: each thread has its own level stack and its own fallback setting. A soak runs mixed
transforms in 8 threads at once, checking every result against a closed form.

    FT_SOAK_SECONDS=20 pytest tests/test_threads.py -k soak -s    # a longer run, with counts
"""
import collections
import os
import threading
import time
import warnings

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.batching_rules import fallback
from functorch_lite.interpreter import stack

_no_rule = ft.defop("test_threads_no_rule", lambda xp, x: x * 2.0)


def _fallback_is_error():
    """Whether vmap of an op with no batching rule raises here (else it falls back)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.PerformanceWarning)
        try:
            np.testing.assert_allclose(ft.vmap(_no_rule)(np.ones(3)), 2.0 * np.ones(3))
        except ft.MissingBatchRuleError:
            return True
    return False


def test_fallback_as_error_is_per_thread_and_nests():
    # A enters, B enters, A leaves, B leaves: each block sees its own setting throughout and
    # neither changes the main thread's; afterwards the fallback is allowed everywhere
    step = [threading.Barrier(3) for _ in range(6)]
    seen = collections.defaultdict(list)

    def thread(name, enter_at, leave_at):
        for k, barrier in enumerate(step):
            if k == enter_at:
                block = fallback.fallback_as_error()
                block.__enter__()
            if k == leave_at:
                block.__exit__(None, None, None)
            seen[name].append(_fallback_is_error())
            barrier.wait(10)
    a = threading.Thread(target=thread, args=("A", 0, 2))
    b = threading.Thread(target=thread, args=("B", 1, 4))
    a.start(), b.start()
    for barrier in step:
        seen["main"].append(_fallback_is_error())
        barrier.wait(10)
    a.join(10), b.join(10)
    assert seen["A"] == [True, True, False, False, False, False]
    assert seen["B"] == [False, True, True, True, False, False]
    assert seen["main"] == [False] * 6
    assert not _fallback_is_error()


def test_fallback_settings_nest_within_a_thread():
    with fallback.fallback_as_error():
        assert _fallback_is_error()
        with fallback.fallback_as_error(False):
            assert not _fallback_is_error()
            assert fallback.set_fallback_error(True) is False  # returns the old setting
            assert _fallback_is_error()
        assert _fallback_is_error()             # the inner block restored what it found
    assert not _fallback_is_error()
    old = fallback.set_fallback_error(True)
    try:
        with fallback.fallback_as_error(False):
            assert not _fallback_is_error()
        assert _fallback_is_error()
    finally:
        fallback.set_fallback_error(old)
    assert not _fallback_is_error()


# -- soak ----------------------------------------------------------------------------------

W = np.random.default_rng(1).standard_normal((5, 4)) / 2   # shared by every thread, read only


def _loss(x):
    return fnp.sum(fnp.tanh(W @ x)) + fnp.sum(fnp.sin(x) * x)


def _loss_grad(x):
    return W.T @ (1 - np.tanh(W @ x) ** 2) + np.cos(x) * x + np.sin(x)


def _loss_hessian(x):
    t = np.tanh(W @ x)
    return W.T @ np.diag(-2 * t * (1 - t ** 2)) @ W + np.diag(2 * np.cos(x) - x * np.sin(x))


def _layer(x):
    return fnp.tanh(W @ x)


def _layer_jacobian(x):
    return (1 - np.tanh(W @ x) ** 2)[:, None] * W


# name -> (run on x (4,) and xs (3, 4) and t (4,), reference)
SOAK = {
    "vmap": (lambda x, xs, t: ft.vmap(_loss)(xs),
             lambda x, xs, t: np.array([np.sum(np.tanh(W @ r)) + np.sum(np.sin(r) * r)
                                        for r in xs])),
    "grad": (lambda x, xs, t: ft.grad(_loss)(x), lambda x, xs, t: _loss_grad(x)),
    "jvp": (lambda x, xs, t: ft.jvp(_loss, (x,), (t,))[1],
            lambda x, xs, t: _loss_grad(x) @ t),
    "jacrev": (lambda x, xs, t: ft.jacrev(_layer)(x), lambda x, xs, t: _layer_jacobian(x)),
    "vmap_grad": (lambda x, xs, t: ft.vmap(ft.grad(_loss))(xs),
                  lambda x, xs, t: np.stack([_loss_grad(r) for r in xs])),
    "hessian": (lambda x, xs, t: ft.hessian(_loss)(x), lambda x, xs, t: _loss_hessian(x)),
}


def soak(seconds, n_threads=8):
    """Run SOAK's transforms in `n_threads` threads for `seconds`; returns (counts per
    transform, list of failures)."""
    counts, failures, lock, deadline = collections.Counter(), [], threading.Lock(), []
    start = threading.Barrier(n_threads,
                              action=lambda: deadline.append(time.perf_counter() + seconds))

    def worker(seed):
        rng = np.random.default_rng(seed)
        names, mine = sorted(SOAK), collections.Counter()
        start.wait(60)
        k = seed
        while k < seed + len(names) or time.perf_counter() < deadline[0]:  # each at least once
            name = names[k % len(names)]
            k += 1
            x, xs, t = rng.standard_normal(4), rng.standard_normal((3, 4)), rng.standard_normal(4)
            run, ref = SOAK[name]
            try:
                np.testing.assert_allclose(run(x, xs, t), ref(x, xs, t), rtol=1e-9, atol=1e-12)
                assert stack() == ()
            except BaseException as err:  # noqa: B902  (reported by the test)
                with lock:
                    failures.append((name, repr(err)[:300]))
                return
            mine[name] += 1
        with lock:
            counts.update(mine)
    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds + 60)
    return counts, failures


def test_soak_mixed_transforms_in_8_threads():
    seconds = float(os.environ.get("FT_SOAK_SECONDS", "2"))
    counts, failures = soak(seconds)
    print(f"\nsoak: {seconds:g} s, 8 threads, {sum(counts.values())} results checked: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    assert not failures, failures[:5]
    assert set(counts) == set(SOAK) and min(counts.values()) >= 1
