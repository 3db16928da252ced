"""ft.jit of lax loops: compile time and call time of a loop compiled as one loop equation
(Note [compiled loops] in functorch_lite/lax/lowering.py) against the same loop recorded step by
step (unrolled), and against a hand-written NumPy loop, in one run.

Rows: an RNN scan (tanh(h @ W + x), d=16) over n steps, and a Newton square root by while_loop
(only the compiled form exists: an unrolled while_loop cannot be traced). Columns: first-call
latency (trace + passes + code generation + one run) and the median call time as a ratio to the
hand-written NumPy loop. Last, eager grad of the RNN's loss with respect to W and xs per step,
which stays flat as n grows (reverse mode through a scan is linear in the trip count), and
ft.jit of that gradient: two loop equations (forward, then backward; Note [loops under the
transforms]) against the gradient recorded step by step, as ratios to the eager gradient; and
ft.jit of the Newton square root's gradient (a while_loop under reverse mode: the loop, then a
bounded scan and its backward, Note [reverse mode through while_loop]) against eager grad.

    OPENBLAS_NUM_THREADS=1 python benchmarks/lax_loops.py [--steps 100 2000] [--repeats 20]
"""
import argparse
import contextlib
import time

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.compiler import bodies as loops


@contextlib.contextmanager
def unrolled():
    """Loops recorded step by step, as before loops compiled."""
    saved = loops.tracing, loops.tracing_at_top
    loops.tracing = loops.tracing_at_top = lambda: False
    try:
        yield
    finally:
        loops.tracing, loops.tracing_at_top = saved


def rnn(w, h0, xs):
    def step(h, x):
        h = np.tanh(h @ w + x)
        return h, h.sum()
    return ft.scan(step, h0, xs)


def rnn_numpy(w, h0, xs):
    h, ys = h0, np.empty(len(xs))
    for i, x in enumerate(xs):
        h = np.tanh(h @ w + x)
        ys[i] = h.sum()
    return h, ys


def newton_sqrt(a):
    def cond_fun(c):
        return fnp.abs(c[0] - c[1]) > 1e-12 * c[1]

    def body_fun(c):
        return c[1], 0.5 * (c[1] + a / c[1])
    return ft.while_loop(cond_fun, body_fun, (a, 0.5 * (a + 1.0)))[1]


def newton_numpy(a):
    prev, x = a, 0.5 * (a + 1.0)
    while abs(prev - x) > 1e-12 * x:
        prev, x = x, 0.5 * (x + a / x)
    return x


def median_us(fn, args, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e6


def first_call_ms(fn, args):
    jitted = ft.jit(fn)
    t0 = time.perf_counter()
    jitted(*args)
    return (time.perf_counter() - t0) * 1e3, jitted


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, nargs="+", default=[100, 2000])
    parser.add_argument("--repeats", type=int, default=20)
    opts = parser.parse_args()
    rng = np.random.default_rng(0)
    w, h0 = rng.standard_normal((16, 16)) * 0.3, rng.standard_normal(16)
    print(f"{'row':28} {'numpy us':>10} {'compile ms':>11} {'x numpy':>8} "
          f"{'unrolled compile ms':>20} {'x numpy':>8}")
    for n in opts.steps:
        xs = rng.standard_normal((n, 16))
        args = (w, h0, xs)
        base = median_us(rnn_numpy, args, opts.repeats)
        compile_ms, jitted = first_call_ms(rnn, args)
        with unrolled():
            unrolled_ms, jitted_unrolled = first_call_ms(rnn, args)
        assert all(np.array_equal(a, b) for a, b in zip(jitted(*args), jitted_unrolled(*args)))
        print(f"{f'RNN scan, {n} steps':28} {base:10.0f} {compile_ms:11.1f} "
              f"{median_us(jitted, args, opts.repeats) / base:8.2f} {unrolled_ms:20.1f} "
              f"{median_us(jitted_unrolled, args, opts.repeats) / base:8.2f}")
    grad_rnn = ft.grad(lambda w, xs: rnn(w, h0, xs)[1].sum(), argnums=(0, 1))
    print(f"{'(grad rows: x eager grad)':28}")
    for n in opts.steps:
        xs = rng.standard_normal((n, 16))
        base = median_us(grad_rnn, (w, xs), max(3, opts.repeats // 5))
        compile_ms, jitted = first_call_ms(grad_rnn, (w, xs))
        with unrolled():
            unrolled_ms, jitted_unrolled = first_call_ms(grad_rnn, (w, xs))
        for a, b in zip(jitted(w, xs), jitted_unrolled(w, xs)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
        print(f"{f'jit(grad) of RNN scan, {n}':28} {base:10.0f} {compile_ms:11.1f} "
              f"{median_us(jitted, (w, xs), opts.repeats) / base:8.2f} {unrolled_ms:20.1f} "
              f"{median_us(jitted_unrolled, (w, xs), opts.repeats) / base:8.2f}")
    for n in opts.steps:
        xs = rng.standard_normal((n, 16))
        print(f"{f'eager grad of RNN scan, {n}':28} "
              f"{median_us(grad_rnn, (w, xs), max(3, opts.repeats // 5)) / n:10.1f} us per step")
    a = np.array(1e6)
    base = median_us(newton_numpy, (a,), opts.repeats)
    compile_ms, jitted = first_call_ms(newton_sqrt, (a,))
    print(f"{'Newton sqrt while_loop':28} {base:10.1f} {compile_ms:11.1f} "
          f"{median_us(jitted, (a,), opts.repeats) / base:8.2f} {'(cannot unroll)':>20}")
    grad_newton = ft.grad(newton_sqrt)
    base = median_us(grad_newton, (a,), opts.repeats)
    compile_ms, jitted = first_call_ms(grad_newton, (a,))
    np.testing.assert_allclose(jitted(a), grad_newton(a), rtol=1e-12)
    print(f"{'jit(grad) Newton while_loop':28} {base:10.1f} {compile_ms:11.1f} "
          f"{median_us(jitted, (a,), opts.repeats) / base:8.2f} {'(x eager grad)':>20}")


if __name__ == "__main__":
    main()
