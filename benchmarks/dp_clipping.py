"""Clipped per-example gradient sums (DP-SGD's step) three ways, in one run: functorch_lite.dp's
clipped_grad_sum (factored: ghost / book-keeping clipping), the materializing path
(vmap(grad), then NumPy norms, clipping factors and the weighted sum) and one ordinary
gradient of the batch loss (grad of the sum of vmap(loss): what a non-private step costs).
Peak memory by tracemalloc (NumPy reports its buffers to it), median times in a separate,
untraced run. Models: the transformer of per_example_transformer.py, the CNN of the DP-SGD
demo (examples/dp_sgd_cnn.py), an MLP of 512x512 layers; float32.

    python benchmarks/dp_clipping.py [--repeats 5] [--cpu-time] [--quick]

With JAX installed, the demo CNN's DP step also runs compiled by XLA (issue 31): ft.jit of
clipped_grad_sum and of the materializing step (dp_sgd_cnn.clipped_sum), backend="xla", NumPy
arrays in and out, against jax.jit of the same step written in JAX (vmap(grad), per-example
norms, clipping factors, weighted sum), medians of interleaved single calls.

Targets (issue 23): memory of clipped_grad_sum <= 1/10 of the materializing path where the
per-example gradients dominate (the MLP), time <= 2x one ordinary gradient, and no slower
than the materializing path at the demo's sizes.
"""
import argparse
import pathlib
import sys
import time
import tracemalloc
import warnings

import numpy as np
from _timing import interleaved_medians
import optree

import functorch_lite as ft
from functorch_lite import nn

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "examples"))

import dp_sgd_cnn  # noqa: E402
import per_example_transformer as transformer  # noqa: E402

CLOCK = time.perf_counter
MAX_NORM = 1.0


def mlp_params(rng, width=512, depth=3, classes=10):
    p = {}
    for k in range(depth):
        p[f"w{k}"] = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
        p[f"b{k}"] = np.zeros(width, np.float32)
    p["out"] = (rng.standard_normal((classes, width)) / np.sqrt(width)).astype(np.float32)
    return p


def mlp_loss(p, x, y):
    h = x
    for k in range(len(p) // 2):
        h = nn.relu(nn.linear(h, p[f"w{k}"], p[f"b{k}"]))
    return nn.cross_entropy(nn.linear(h, p["out"]), y)


def materialized(loss, params, *batch):
    """vmap(grad), then clip each example's gradient and sum (the path dp replaces)."""
    grads = ft.vmap(ft.grad(loss), in_dims=(None,) + (0,) * len(batch))(params, *batch)
    leaves, spec = optree.tree_flatten(grads)
    b = leaves[0].shape[0]
    norms = np.sqrt(sum(np.einsum("ij,ij->i", g.reshape(b, -1), g.reshape(b, -1))
                        for g in leaves))
    scale = np.minimum(1.0, MAX_NORM / np.maximum(norms, 1e-12)).astype(leaves[0].dtype)
    return spec.unflatten([np.tensordot(scale, g, axes=1) for g in leaves]), norms


def ordinary(loss, params, *batch):
    """One non-private gradient of the batch loss."""
    in_dims = (None,) + (0,) * len(batch)
    return ft.grad(lambda p: ft.vmap(loss, in_dims=in_dims)(p, *batch).sum())(params)


def peak_bytes(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def timed(fns, repeats):
    """Median seconds of each function, measured interleaved with CLOCK (wall time, or
    this process's CPU time with --cpu-time)."""
    return interleaved_medians(fns, repeats, CLOCK)


def check_equal(loss, params, batch):
    ours, norms = ft.dp.clipped_grad_sum(loss, MAX_NORM)(params, *batch)
    ref, ref_norms = materialized(loss, params, *batch)
    np.testing.assert_allclose(norms, ref_norms, rtol=2e-3)
    for a, b in zip(optree.tree_leaves(ours), optree.tree_leaves(ref)):
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-3 * np.abs(b).max())


def run(name, loss, params, batch, repeats):
    check_equal(loss, params, batch)
    fns = {"dp.clipped_grad_sum": lambda: ft.dp.clipped_grad_sum(loss, MAX_NORM)(params, *batch),
           "materializing": lambda: materialized(loss, params, *batch),
           "ordinary gradient": lambda: ordinary(loss, params, *batch)}
    mem = {k: peak_bytes(f) for k, f in fns.items()}
    secs = dict(zip(fns, timed(list(fns.values()), repeats)))
    n_params = sum(v.size for v in params.values())
    b = len(batch[0])
    print(f"\n{name}: batch {b}, {n_params:,} parameters "
          f"(per-example gradients {b * n_params * 4 / 2 ** 20:.1f} MiB)")
    print(f"  {'':22s}{'peak MiB':>10s}{'ms':>10s}{'mem / materializing':>22s}"
          f"{'time / ordinary':>17s}{'time / materializing':>22s}")
    for k in fns:
        print(f"  {k:22s}{mem[k] / 2 ** 20:10.1f}{secs[k] * 1e3:10.1f}"
              f"{mem[k] / mem['materializing']:22.3f}{secs[k] / secs['ordinary gradient']:17.2f}"
              f"{secs[k] / secs['materializing']:22.2f}")
    return mem, secs


def jax_dp_step(clip):
    """The demo CNN's clipped per-example gradient sum and norms, in JAX."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, b):
        return lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1))) + b[:, None, None]

    def loss(p, x, y):
        h = jax.nn.relu(conv(x[None], p["conv1"], p["b1"]))
        h = conv(h, p["conv2"], p["b2"])
        g = h.reshape(1, 4, -1)
        mu = g.mean(-1, keepdims=True)
        g = (g - mu) / jnp.sqrt(((g - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        h = g.reshape(h.shape) * p["gn_scale"][:, None, None] + p["gn_shift"][:, None, None]
        h = lax.reduce_window(jax.nn.relu(h), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                              "VALID")
        return -jax.nn.log_softmax(h.reshape(-1) @ p["fc"] + p["fc_b"])[y]

    def step(p, x, y):
        grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(p, x, y)
        norms = jnp.sqrt(sum(jnp.sum(g.reshape(len(x), -1) ** 2, axis=1)
                             for g in jax.tree_util.tree_leaves(grads)))
        scale = jnp.minimum(1.0, clip / jnp.maximum(norms, 1e-12))
        return {k: jnp.tensordot(scale, g, axes=1) for k, g in grads.items()}, norms
    return step


def dp_step_on_xla(params, batch, repeats):
    """The demo CNN's DP step compiled by XLA beside JAX's (see the module docstring)."""
    try:
        import jax
    except ImportError:
        print("\n(JAX missing: no XLA DP-step row)")
        return
    ghost = ft.jit(ft.dp.clipped_grad_sum(dp_sgd_cnn.loss, MAX_NORM), backend="xla")
    materialized = ft.jit(lambda p, x, y: dp_sgd_cnn.clipped_sum(p, x, y, MAX_NORM),
                          backend="xla")
    ref = jax.jit(jax_dp_step(MAX_NORM))
    jargs = optree.tree_map(jax.device_put, (params,) + tuple(batch))
    want = ref(*jargs)
    for name, f in (("clipped_grad_sum", ghost), ("materializing", materialized)):
        got = f(params, *batch)
        for a, b in zip(optree.tree_leaves(got), optree.tree_leaves(want)):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=name)
    secs = timed([lambda: ghost(params, *batch), lambda: materialized(params, *batch),
                  lambda: jax.block_until_ready(ref(*jargs))], repeats)
    print(f"\nDP step of the demo CNN on XLA (batch {len(batch[0])}): ft.jit xla "
          f"clipped_grad_sum {secs[0] * 1e3:.2f} ms ({secs[0] / secs[2]:.2f}x jax.jit), "
          f"materializing {secs[1] * 1e3:.2f} ms ({secs[1] / secs[2]:.2f}x), "
          f"jax.jit DP step {secs[2] * 1e3:.2f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this process's CPU time instead of wall time")
    parser.add_argument("--quick", action="store_true", help="small batches (a smoke test)")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    warnings.simplefilter("error", ft.dp.FallbackWarning)   # every op here is factored
    for name, loss, params, batch in models(args.quick):
        run(name, loss, params, batch, args.repeats)
        if loss is dp_sgd_cnn.loss:
            dp_step_on_xla(params, batch, max(args.repeats, 15))


def models(quick=False):
    """(name, per-example loss, float32 params, batch) of the three benchmark models, drawn from
    one seeded generator (benchmarks/dp_opacus.py runs Opacus on the same numbers)."""
    rng = np.random.default_rng(0)
    scale = 8 if quick else 1
    tokens = rng.integers(0, transformer.VOCAB, (64 // scale, transformer.LENGTH))
    yield ("transformer (per_example_transformer.py)", transformer.loss,
           transformer.init_params(rng), (tokens,))
    (x, y), _ = dp_sgd_cnn.load_data(rng) if _has_sklearn() else ((None, None), None)
    if x is not None:
        b = 64 // scale
        yield ("CNN of the DP-SGD demo (examples/dp_sgd_cnn.py)", dp_sgd_cnn.loss,
               dp_sgd_cnn.init_params(rng), (x[:b], y[:b]))
    b = 256 // scale
    yield ("MLP, three 512x512 layers", mlp_loss, mlp_params(rng),
           (rng.standard_normal((b, 512)).astype(np.float32), rng.integers(0, 10, b)))


def _has_sklearn():
    try:
        import sklearn  # noqa: F401
        return True
    except ImportError:
        print("(scikit-learn missing: the CNN's data is skipped)")
        return False


if __name__ == "__main__":
    main()
