"""The PINN Laplacian of an MLP and its parameter gradient: the forward Laplacian against the
Hessian's trace, in one process.

    python benchmarks/laplacian.py [--quick] [--repeat N]

u(x) is a tanh MLP R^d -> R with two hidden layers of width W; the Laplacian is taken at a
batch of B collocation points, and the PINN loss is mean((lap u - f)^2) over them, whose
gradient with respect to the parameters is the training step. Rows, each checked against the
first before it is timed:

  ft.laplacian         ft.vmap(ft.laplacian(u))                       (the forward Laplacian)
  ft trace(hessian)    ft.vmap(lambda x: trace(ft.hessian(u)(x)))
  ... jit numpy / jit xla: the same under ft.jit (NumPy and XLA backends)
  jax trace(hessian)   jax.jit(jax.vmap(trace(jax.hessian(u))))       (when JAX is installed)
  jax jet              jax.jit of the sum over the d unit directions of jet's second term

Times are medians of interleaved runs in milliseconds of this process's CPU time (steady on a
shared machine); the ratios are against ft.laplacian in the same mode. Goal: the forward
Laplacian at least 2x faster than vmap(trace(hessian)) at d >= 8, eagerly and under ft.jit.
Set OPENBLAS_NUM_THREADS=1 on a shared machine.
"""
import argparse
import time

import numpy as np

import functorch_lite as ft

from _timing import interleaved_medians


def init(d, width, rng):
    sizes = [(d, width), (width, width), (width, 1)]
    params = []
    for fan_in, fan_out in sizes:
        params += [rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in), np.zeros(fan_out)]
    return params


def mlp(np_):
    def u(params, x):
        h = x
        for k in range(0, len(params) - 2, 2):
            h = np_.tanh(h @ params[k] + params[k + 1])
        return (h @ params[-2] + params[-1])[0]
    return u


U = mlp(np)


def ft_laplacians():
    forward = lambda p, xs: ft.vmap(ft.laplacian(lambda x: U(p, x)))(xs)  # noqa: E731
    hess = lambda p, xs: ft.vmap(  # noqa: E731
        lambda x: np.trace(ft.hessian(lambda y: U(p, y))(x)))(xs)
    return forward, hess


def pinn_grad(lap):
    def loss(p, xs):
        return np.mean((lap(p, xs) - np.sum(np.sin(xs), axis=1)) ** 2)
    return ft.grad(loss)


def jax_rows(d):
    try:
        import jax
        import jax.numpy as jnp
        from jax.experimental import jet
    except ImportError:
        return {}
    jax.config.update("jax_enable_x64", True)
    u = mlp(jnp)

    def hess(p, xs):
        return jax.vmap(lambda x: jnp.trace(jax.hessian(lambda y: u(p, y))(x)))(xs)

    def by_jet(p, xs):
        eye = jnp.eye(d)

        def one(x):
            second = jax.vmap(lambda e: jet.jet(lambda y: u(p, y), (x,),
                                                ((e, jnp.zeros_like(e)),))[1][1])(eye)
            return jnp.sum(second)
        return jax.vmap(one)(xs)

    def loss(p, xs):
        return jnp.mean((hess(p, xs) - jnp.sum(jnp.sin(xs), axis=1)) ** 2)
    return {"jax trace(hessian)": jax.jit(hess), "jax jet": jax.jit(by_jet),
            "jax grad": jax.jit(jax.grad(loss))}


def case(d, width, batch, repeat):
    rng = np.random.default_rng(0)
    params, xs = init(d, width, rng), rng.standard_normal((batch, d))
    forward, hess = ft_laplacians()
    ref = forward(params, xs)
    rows = {}
    modes = [("eager", lambda f: f), ("jit numpy", lambda f: ft.jit(f)),
             ("jit xla", lambda f: ft.jit(f, backend="xla"))]
    for mode, wrap in modes:
        rows[f"ft.laplacian {mode}"] = wrap(forward)
        rows[f"ft trace(hessian) {mode}"] = wrap(hess)
    jax_fns = jax_rows(d)
    for name in ("jax trace(hessian)", "jax jet"):
        if name in jax_fns:
            rows[name] = jax_fns[name]
    for name, fn in rows.items():
        np.testing.assert_allclose(np.asarray(fn(params, xs)), ref, rtol=1e-9, atol=1e-9,
                                   err_msg=name)
    names = list(rows)
    times = interleaved_medians([lambda fn=rows[n]: np.asarray(fn(params, xs)) for n in names],
                                repeat, clock=time.process_time)
    lap_times = dict(zip(names, times))

    grads = {}
    for mode, wrap in modes:
        grads[f"ft.laplacian {mode}"] = wrap(pinn_grad(forward))
        grads[f"ft trace(hessian) {mode}"] = wrap(pinn_grad(hess))
    if "jax grad" in jax_fns:
        grads["jax trace(hessian)"] = jax_fns["jax grad"]
    g_ref = grads["ft.laplacian eager"](params, xs)
    for name, fn in grads.items():
        for a, b in zip(fn(params, xs), g_ref):
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-7, atol=1e-9, err_msg=name)
    gnames = list(grads)
    gtimes = interleaved_medians([lambda fn=grads[n]: [np.asarray(g) for g in fn(params, xs)]
                                  for n in gnames], repeat, clock=time.process_time)
    return lap_times, dict(zip(gnames, gtimes))


def report(title, times):
    print(f"  {title}")
    for mode in ("eager", "jit numpy", "jit xla"):
        fwd = times[f"ft.laplacian {mode}"]
        hess = times[f"ft trace(hessian) {mode}"]
        print(f"    {mode:<10} forward {fwd * 1e3:8.2f} ms   trace(hessian) {hess * 1e3:8.2f} ms"
              f"   speedup {hess / fwd:5.2f}x")
    for name in ("jax trace(hessian)", "jax jet"):
        if name in times:
            fwd = times["ft.laplacian jit xla"]
            print(f"    {name:<19} {times[name] * 1e3:8.2f} ms   ({times[name] / fwd:5.2f}x "
                  "ft.laplacian jit xla)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a reduced grid")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    if args.quick:
        grid = [(d, 64, 256) for d in (2, 8, 32)]
        repeat = args.repeat or 5
    else:
        grid = [(d, w, b) for d in (2, 8, 32, 100) for w in (64, 256) for b in (256, 1024)]
        repeat = args.repeat or 10
    for d, width, batch in grid:
        lap, grad = case(d, width, batch, repeat)
        print(f"\nd = {d}, width = {width}, batch = {batch}")
        report("Laplacian", lap)
        report("gradient of the PINN loss", grad)


if __name__ == "__main__":
    main()
