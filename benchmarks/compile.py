"""ft.jit against eager functorch_lite and hand-written NumPy, interleaved in one run.

Rows: per-example MLP gradients (B=64, 512), Hessian of sum(tanh(A@x)**2) (n=100, 500),
jacrev/jacfwd of tanh(A@x) (200->200), vmap(grad(f)) and vmap(f) of a tiny f on (4, 8), and a
Hessian-vector product by jvp(grad(f)) (n=1000). Each row prints the median time of the
hand-written NumPy version and the ratios of eager and jitted functorch_lite to it, and the
first-call (trace + compile) latency of ft.jit; JAX's jit of the same computation when jax
is importable (x64 enabled, inputs moved to JAX once).

    OPENBLAS_NUM_THREADS=1 python benchmarks/compile.py [--repeats 30] [--rows mlp64 hess100]
"""
import argparse
import time

import numpy as np

import functorch_lite as ft
from per_example_grads import handwritten_per_example_grads, init_params, loss, timed


def _first_call_ms(make, args):
    fn = make()
    t0 = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - t0) * 1e3


def _rows(rng):
    rows = {}
    for batch in (64, 512):
        params = init_params(rng)
        X = rng.standard_normal((batch, 784)).astype(np.float32)
        Y = rng.integers(0, 10, batch)
        rows[f"mlp{batch}"] = (f"per-example grads MLP 784-128-10, B={batch}",
                               ft.vmap(ft.grad(loss), in_dims=(None, 0, 0)),
                               handwritten_per_example_grads, (params, X, Y), _jax_mlp)
    for n in (100, 500):
        A = rng.standard_normal((n, n)) / np.sqrt(n)
        x = rng.standard_normal(n)

        def hess_f(x, A=A):
            return np.sum(np.tanh(A @ x) ** 2)

        def analytic(x, A=A):
            t = np.tanh(A @ x)
            s = 1.0 - t * t
            return A.T @ ((2.0 * s * (s - 2.0 * t * t))[:, None] * A)
        rows[f"hess{n}"] = (f"hessian of sum(tanh(A@x)**2), n={n}", ft.hessian(hess_f),
                            analytic, (x,), lambda jax, jnp, A=A: jax.hessian(
                                lambda x: jnp.sum(jnp.tanh(A @ x) ** 2)))
    A = rng.standard_normal((200, 200)) / np.sqrt(200)
    x = rng.standard_normal(200)

    def jac_analytic(x):
        return (1.0 - np.tanh(A @ x) ** 2)[:, None] * A
    for name, transform in (("jacrev", ft.jacrev), ("jacfwd", ft.jacfwd)):
        rows[name] = (f"{name} of tanh(A@x), 200->200", transform(lambda x: np.tanh(A @ x)),
                      jac_analytic, (x,), lambda jax, jnp, name=name: getattr(jax, name)(
                          lambda x: jnp.tanh(A @ x)))
    tiny = rng.standard_normal((4, 8)).astype(np.float32)
    rows["vmapgrad"] = ("vmap(grad(sum(sin(x)*2))) on (4, 8)",
                        ft.vmap(ft.grad(lambda v: np.sum(np.sin(v) * 2))),
                        lambda v: np.cos(v) * 2, (tiny,),
                        lambda jax, jnp: jax.vmap(jax.grad(lambda v: jnp.sum(jnp.sin(v) * 2))))
    rows["vmap"] = ("vmap(sin(x)*2+1) on (4, 8)", ft.vmap(lambda v: np.sin(v) * 2 + 1),
                    lambda v: np.sin(v) * 2 + 1, (tiny,),
                    lambda jax, jnp: jax.vmap(lambda v: jnp.sin(v) * 2 + 1))
    n = 1000
    B = rng.standard_normal((n, n)) / np.sqrt(n)
    x, v = rng.standard_normal(n), rng.standard_normal(n)

    def hvp_f(x):
        return np.sum(np.tanh(B @ x) ** 2)

    def hvp(x, v):
        return ft.jvp(ft.grad(hvp_f), (x,), (v,))[1]

    def hvp_analytic(x, v):
        t = np.tanh(B @ x)
        s = 1.0 - t * t
        return B.T @ (2.0 * s * (s - 2.0 * t * t) * (B @ v))
    rows["hvp"] = ("hvp by jvp(grad(f)), n=1000", hvp, hvp_analytic, (x, v),
                   lambda jax, jnp: lambda x, v: jax.jvp(jax.grad(
                       lambda x: jnp.sum(jnp.tanh(B @ x) ** 2)), (x,), (v,))[1])
    return rows


def _jax_mlp(jax, jnp):
    def jloss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return -jax.nn.log_softmax(h @ p["w2"] + p["b2"])[y]
    return jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0))


def _jax_peer(build, inputs):
    """JAX's jit of the same computation, inputs moved to JAX once (None without jax)."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    fn = jax.jit(build(jax, jnp))
    args = jax.tree_util.tree_map(jnp.asarray, inputs)
    return lambda: jax.block_until_ready(fn(*args))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--rows", nargs="*")
    args = parser.parse_args()
    rows = _rows(np.random.default_rng(0))
    print(f"{'workload':44s} {'hand':>10s} {'eager':>8s} {'ft.jit':>8s} {'jit 1st call':>13s}")
    for key, (title, eager, hand, inputs, jax_build) in rows.items():
        if args.rows and key not in args.rows:
            continue
        first_ms = _first_call_ms(lambda: ft.jit(eager), inputs)
        jitted = ft.jit(eager)
        np.testing.assert_allclose(
            np.concatenate([np.ravel(a) for a in _leaves(jitted(*inputs))]),
            np.concatenate([np.ravel(a) for a in _leaves(eager(*inputs))]), rtol=1e-4,
            atol=1e-5)
        fns = [lambda: hand(*inputs), lambda: eager(*inputs), lambda: jitted(*inputs)]
        jax_fn = _jax_peer(jax_build, inputs)
        if jax_fn is not None:
            fns.append(jax_fn)
        times = timed(fns, args.repeats)
        t_hand = times[0]
        line = (f"{title:44s} {_fmt(t_hand):>10s} {times[1] / t_hand:7.2f}x "
                f"{times[2] / t_hand:7.2f}x {first_ms:10.1f} ms")
        if jax_fn is not None:
            line += f"   JAX jit {times[3] / t_hand:.2f}x"
        print(line)


def _leaves(tree):
    import optree
    return optree.tree_leaves(tree)


def _fmt(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


if __name__ == "__main__":
    main()
