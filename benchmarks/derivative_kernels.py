"""Derivative kernels a research program spends its gradient in (issue 20), as ratios to
hand-written NumPy in the same run.

    PYTHONPATH=. python benchmarks/derivative_kernels.py [--quick]

1. The gradient of x = solve(a, b) (in a and b) against one np.linalg.solve: the gradient
   needs the forward solve and one solve with a^T; reusing a's LU factorization makes that
   about one factorization plus two triangular solve pairs (JAX: about 1.1x one solve).
2. A 33 x 33 Jacobian of a function built from gathers (x[idx], a stencil): jacrev (a
   scatter-add per gather in the backward pass, batched over 33 cotangents) against jacfwd.
3. Scatter-add (the vjp of a gather, .at[idx].add) against np.add.at: 1-d, rows of a table
   (an embedding's gradient), and a 2-d pair of index arrays.

Every result is checked against NumPy before it is timed; times are the best of `repeat` runs.
On a shared machine set OPENBLAS_NUM_THREADS=1, or the ratios mean little.
"""
import argparse

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

from _timing import best_ms


def solve_case(n, repeat):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)
    b = rng.standard_normal((n, 4))
    grad = ft.grad(lambda a, b: fnp.sum(fnp.linalg.solve(a, b)), argnums=(0, 1))
    ga, gb = grad(a, b)
    want_b = np.linalg.solve(a.T, np.ones_like(b))
    np.testing.assert_allclose(gb, want_b, rtol=1e-9)
    np.testing.assert_allclose(ga, -want_b @ np.linalg.solve(a, b).T, rtol=1e-9, atol=1e-12)
    one = best_ms(lambda: np.linalg.solve(a, b), repeat)
    g = best_ms(lambda: grad(a, b), repeat)
    return [(f"solve n={n}: grad(a, b) / one np.linalg.solve", g, one)]


def jacobian_case(repeat):
    rng = np.random.default_rng(1)
    n = 33
    idx = rng.integers(0, n, n)
    x = rng.standard_normal(n)

    def f(x):
        stencil = fnp.concatenate([x[1:] - x[:-1], x[:1]])
        return fnp.tanh(x[idx]) * stencil + x[idx[::-1]] ** 2

    jr, jf = ft.jacrev(f), ft.jacfwd(f)
    np.testing.assert_allclose(jr(x), jf(x), rtol=1e-12, atol=1e-12)
    fwd = best_ms(lambda: jf(x), repeat)
    return [("33 x 33 jacobian: jacrev / jacfwd", best_ms(lambda: jr(x), repeat), fwd)]


def scatter_cases(repeat):
    rng = np.random.default_rng(2)
    rows = []
    cases = [("1-d: 10^5 updates into 10^4", (10_000,), (rng.integers(0, 10_000, 100_000),)),
             ("rows: 4096 lookups into a 1000 x 64 table", (1000, 64),
              (rng.integers(0, 1000, 4096),)),
             ("2-d pairs: 10^5 updates into 300 x 300", (300, 300),
              (rng.integers(0, 300, 100_000), rng.integers(0, 300, 100_000)))]
    for name, shape, idx in cases:
        x = rng.standard_normal(shape)
        values = rng.standard_normal(np.zeros(shape)[idx].shape)

        def numpy_add_at():
            out = x.copy()
            np.add.at(out, idx, values)
            return out
        ours = lambda: fnp.at(x)[idx].add(values)  # noqa: E731
        np.testing.assert_allclose(ours(), numpy_add_at(), rtol=1e-10, atol=1e-12)
        rows.append((f"scatter-add {name}: .at[].add / np.add.at", best_ms(ours, repeat),
                     best_ms(numpy_add_at, repeat)))
        gather_grad = ft.grad(lambda t: fnp.sum(t[idx] * values))
        np.testing.assert_allclose(gather_grad(x), numpy_add_at() - x, rtol=1e-10, atol=1e-10)
        rows.append((f"gather vjp {name}: grad / np.add.at", best_ms(lambda: gather_grad(x),
                                                                      repeat),
                     best_ms(numpy_add_at, repeat)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeat = 3 if args.quick else 15
    rows = []
    for n in ([33] if args.quick else [33, 200, 600]):
        rows += solve_case(n, repeat)
    rows += jacobian_case(repeat)
    rows += scatter_cases(repeat)
    for name, ours, reference in rows:
        print(f"{name:62s} {ours:9.3f} ms / {reference:9.3f} ms = {ours / reference:6.2f}x")


if __name__ == "__main__":
    main()
