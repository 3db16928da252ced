"""Memory stays flat over many transform calls: nothing (tapes, interpreters, frames) is kept
from one call to the next. Measured with tracemalloc, as a bound on growth, not a time."""
import gc
import tracemalloc

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp


def _fifty_ops(x):
    """50 ops: 10 rounds of five."""
    for _ in range(10):
        x = fnp.sin(x) * 0.9 + fnp.tanh(x) - x / 3.0
    return fnp.sum(x)


def _growth(fn, calls, warmup=50):
    """Bytes still allocated after `calls` calls of fn beyond what `warmup` calls left."""
    for _ in range(warmup):
        fn()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(calls):
            fn()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after - before


def test_memory_flat_over_1000_grads_of_a_50_op_function():
    x = np.linspace(-1.0, 1.0, 16)
    grad = ft.grad(_fifty_ops)
    expected = grad(x)
    results = []

    def call():
        g = grad(x)
        if not results:
            results.append(g)
    growth = _growth(call, 1000)
    np.testing.assert_allclose(results[0], expected)
    print(f"\nmemory growth over 1000 grads of a 50-op function: {growth} bytes")
    assert growth < 20_000, growth  # a leak of even one array or tape node per call is more


def test_memory_flat_over_nested_transforms_and_escaped_errors():
    x = np.linspace(-1.0, 1.0, 8)
    xs = np.stack([x, 2 * x])
    kept = []
    ft.grad(lambda y: (kept.append(y), fnp.sum(y))[1])(x)

    def call():
        ft.vmap(ft.grad(_fifty_ops))(xs)
        ft.jvp(_fifty_ops, (x,), (x,))
        try:
            ft.grad(lambda y: fnp.sum(y * kept[0]))(x)
        except ft.EscapedWrapperError:
            pass
    growth = _growth(call, 50, warmup=10)
    print(f"\nmemory growth over 50 rounds of vmap(grad), jvp and a refused wrapper: {growth} B")
    assert growth < 20_000, growth
