"""Jacobians and Hessians against hand-written NumPy.

    python benchmarks/jacobians.py [--quick]

1. Hessian of f(x) = sum(tanh(A @ x) ** 2) for n = 100 and 500: ft.hessian, jacfwd(jacrev),
   jacrev(jacrev), and the analytic A^T diag(2 (1 - t^2)(1 - 3 t^2)) A in NumPy (t = tanh(A x)).
   Target: hessian within 2x of the analytic form at n = 500.
2. Jacobian of a 200 -> 200 function by jacrev and jacfwd, against its analytic form.
3. linearize: one call of its jvp_fn against a fresh jvp (which re-runs the primal).

Every result is checked against the NumPy form before it is timed. Times are the best of
`repeat` runs, in milliseconds. On a shared or loaded machine set OPENBLAS_NUM_THREADS=1 (or the
equivalent for your BLAS): threaded GEMMs fighting for cores make every ratio meaningless.

Why 2x is the floor for the Hessian: the analytic form is one n x n x n product (A^T D A);
forward over reverse does two (A @ V for the tangents, A^T @ (...) in the backward pass), as in
JAX and torch.func, plus a few elementwise passes over the n x n tangents.
"""
import argparse

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

from _timing import best_ms


def hessian_case(n, repeat):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)) / np.sqrt(n)
    x = rng.standard_normal(n)

    def f(x):
        return fnp.sum(fnp.tanh(a @ x) ** 2)

    def analytic():
        t = np.tanh(a @ x)
        d2 = 2 * (1 - t ** 2) * (1 - 3 * t ** 2)
        return (a.T * d2) @ a

    ref = analytic()
    rows = [("numpy analytic", analytic)]
    for name, fn in [("hessian", ft.hessian(f)), ("jacfwd(jacrev)", ft.jacfwd(ft.jacrev(f))),
                     ("jacrev(jacrev)", ft.jacrev(ft.jacrev(f)))]:
        np.testing.assert_allclose(fn(x), ref, rtol=1e-8, atol=1e-10)
        rows.append((name, lambda fn=fn: fn(x)))
    peer = _torch_hessian(a, x)
    if peer is not None:
        np.testing.assert_allclose(peer().numpy(), ref, rtol=1e-8, atol=1e-10)
        rows.append(("torch.func", peer))
    times = [(name, best_ms(fn, repeat)) for name, fn in rows]
    base = times[0][1]
    print(f"\nHessian of sum(tanh(A @ x)**2), n = {n}")
    for name, ms in times:
        print(f"  {name:<16} {ms:9.2f} ms   {ms / base:5.2f}x numpy")
    return times


def _torch_hessian(a, x):
    """torch.func.hessian of the same function, when torch is importable (not a dependency)."""
    try:
        import torch
        from torch.func import hessian
    except ImportError:
        return None
    ta, tx = torch.from_numpy(a), torch.from_numpy(x)
    h = hessian(lambda x: torch.sum(torch.tanh(ta @ x) ** 2))
    return lambda: h(tx)


def jacobian_case(repeat, n=200):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((n, n)) / np.sqrt(n)
    x = rng.standard_normal(n)

    def f(x):
        return fnp.sin(w @ x) * x

    def analytic():
        return np.cos(w @ x)[:, None] * w * x[:, None] + np.diag(np.sin(w @ x))

    ref = analytic()
    rows = [("numpy analytic", analytic)]
    for name, fn in [("jacrev", ft.jacrev(f)), ("jacfwd", ft.jacfwd(f))]:
        np.testing.assert_allclose(fn(x), ref, rtol=1e-10, atol=1e-12)
        rows.append((name, lambda fn=fn: fn(x)))
    times = [(name, best_ms(fn, repeat)) for name, fn in rows]
    base = times[0][1]
    print(f"\nJacobian of sin(W @ x) * x, {n} -> {n}")
    for name, ms in times:
        print(f"  {name:<16} {ms:9.2f} ms   {ms / base:5.2f}x numpy")
    return times


def linearize_case(repeat, n=300, depth=6):
    rng = np.random.default_rng(2)
    ws = [rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(depth)]
    x = rng.standard_normal(n)
    v = rng.standard_normal(n)

    def f(x):
        for w in ws:
            x = fnp.tanh(w @ x) + fnp.sin(x)
        return fnp.sum(x ** 2)

    out, jvp_fn = ft.linearize(f, x)
    np.testing.assert_allclose(jvp_fn(v), ft.jvp(f, (x,), (v,))[1], rtol=1e-12)
    t_lin = best_ms(lambda: jvp_fn(v), repeat)
    t_jvp = best_ms(lambda: ft.jvp(f, (x,), (v,)), repeat)
    t_setup = best_ms(lambda: ft.linearize(f, x), repeat)
    t_primal = best_ms(lambda: f(x), repeat)
    print(f"\nlinearize of a {depth}-layer tanh network, n = {n}")
    print(f"  f(x) alone         {t_primal:9.3f} ms")
    print(f"  fresh jvp          {t_jvp:9.3f} ms")
    print(f"  linearize (once)   {t_setup:9.3f} ms")
    print(f"  jvp_fn (replay)    {t_lin:9.3f} ms   ({jvp_fn.num_ops} tangent ops replayed)")
    return t_lin, t_jvp


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 100 only, fewer repeats")
    args = parser.parse_args()
    repeat = 2 if args.quick else 5
    for n in ([100] if args.quick else [100, 500]):
        hessian_case(n, repeat)
    jacobian_case(repeat)
    linearize_case(repeat * 4)


if __name__ == "__main__":
    main()
