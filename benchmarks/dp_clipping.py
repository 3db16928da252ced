"""Clipped per-example gradient sums (DP-SGD's step before its noise), every way at hand, in one
run, float32, one thread:

- functorch_lite eagerly: dp.clipped_grad_sum (factored: ghost / book-keeping clipping), the
  materializing path (vmap(grad), then NumPy norms, clipping factors and the weighted sum) and
  one ordinary gradient of the batch loss (grad of the sum of vmap(loss): what a non-private
  step costs);
- the first two compiled by ft.jit, backend="numpy" and backend="xla" (NumPy arrays in/out);
- peers, each when importable (else a line says why its rows are missing): jax.jit of the same
  step written in JAX (vmap(grad), norms, clipping factors, weighted sum), optax's DP-SGD
  aggregation (optax.contrib.differentially_private_aggregate on jax.vmap(jax.grad), noise
  multiplier 0: it still draws its noise), torch.func (vmap(grad) through functional_call, then
  clip and sum), Opacus's ghost clipping and Opacus's materializing GradSampleModule (as
  benchmarks/dp_opacus.py builds them), and one ordinary PyTorch gradient.

Models: the transformer of per_example_transformer.py, the CNN of the DP-SGD demo
(examples/dp_sgd_cnn.py), an MLP of 512x512 layers. Times are medians of interleaved single
calls; peak memory by tracemalloc (NumPy reports its buffers to it, XLA and PyTorch do not:
"-"), in a separate, untraced run. Every row's result is checked before timing: our compiled
rows and JAX's against dp.clipped_grad_sum (sums and norms), PyTorch's by the per-example norms
(Opacus's ghost clipping refuses tied weights, so PyTorch's transformer has the unembedding
untied, as in dp_opacus.py, and is checked against dp on that model; dp_opacus.py checks the
sums in float64 and measures PyTorch's memory).

    python benchmarks/dp_clipping.py [--repeats 5] [--cpu-time] [--quick] [--models cnn]

Targets (issue 23): memory of clipped_grad_sum <= 1/10 of the materializing path where the
per-example gradients dominate (the MLP), time <= 2x one ordinary gradient, and no slower
than the materializing path at the demo's sizes. Issue 31: ft.jit xla within 1.2x of jax.jit
and no slower than torch.func on the DP step.
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
import per_example_transformer as transformer  # noqa: E402  (sets one thread: xla_models)

CLOCK = time.perf_counter
MAX_NORM = 1.0
EAGER = ("dp.clipped_grad_sum", "materializing", "ordinary gradient")


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


def check_close(name, got, want, norms_only=False):
    """got and want: (sums pytree, per-example norms), float32 tolerances."""
    np.testing.assert_allclose(np.asarray(got[1]), want[1], rtol=2e-3, err_msg=name)
    if norms_only:
        return
    for a, b in zip(optree.tree_leaves(got[0]), optree.tree_leaves(want[0]), strict=True):
        b = np.asarray(b)
        np.testing.assert_allclose(np.asarray(a), b, rtol=2e-3, atol=2e-3 * np.abs(b).max(),
                                   err_msg=name)


# -- the rows of one model ----------------------------------------------------------------------

def ours(loss, params, batch, jax):
    """name -> call: the eager paths, and the clipped sums compiled by ft.jit (xla with JAX)."""
    ghost = ft.dp.clipped_grad_sum(loss, MAX_NORM)

    def mat(p, *b):
        return materialized(loss, p, *b)
    calls = {"dp.clipped_grad_sum": lambda: ghost(params, *batch),
             "materializing": lambda: mat(params, *batch),
             "ordinary gradient": lambda: ordinary(loss, params, *batch)}
    for backend in ("numpy", "xla") if jax is not None else ("numpy",):
        for label, fn in (("dp.clipped_grad_sum", ghost), ("materializing", mat)):
            compiled = ft.jit(fn, backend=backend)
            calls[f"ft.jit {backend}: {label}"] = lambda c=compiled: c(params, *batch)
    return calls


def jax_grads(jax, loss):
    """jax.vmap(jax.grad) of the model of `loss` written in JAX."""
    if loss is transformer.loss:
        return transformer.jax_per_example_grads()
    jnp = jax.numpy
    if loss is mlp_loss:
        def jloss(p, x, y):
            for k in range(len(p) // 2):
                x = jax.nn.relu(x @ p[f"w{k}"].T + p[f"b{k}"])
            return -jax.nn.log_softmax(x @ p["out"].T)[y]
        return jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0))
    lax = jax.lax

    def conv(x, w, b):
        return lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1))) + b[:, None, None]

    def cnn_loss(p, x, y):
        h = jax.nn.relu(conv(x[None], p["conv1"], p["b1"]))
        h = conv(h, p["conv2"], p["b2"])
        g = h.reshape(1, 4, -1)
        mu = g.mean(-1, keepdims=True)
        g = (g - mu) / jnp.sqrt(((g - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        h = g.reshape(h.shape) * p["gn_scale"][:, None, None] + p["gn_shift"][:, None, None]
        h = lax.reduce_window(jax.nn.relu(h), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                              "VALID")
        return -jax.nn.log_softmax(h.reshape(-1) @ p["fc"] + p["fc_b"])[y]
    return jax.vmap(jax.grad(cnn_loss), in_axes=(None, 0, 0))


def jax_dp_step(jax, grads_fn, clip):
    """The clipped per-example gradient sum and the norms, in JAX."""
    jnp = jax.numpy

    def step(p, *batch):
        grads = grads_fn(p, *batch)
        b = len(batch[0])
        norms = jnp.sqrt(sum(jnp.sum(g.reshape(b, -1) ** 2, axis=1)
                             for g in jax.tree_util.tree_leaves(grads)))
        scale = jnp.minimum(1.0, clip / jnp.maximum(norms, 1e-12))
        return jax.tree_util.tree_map(lambda g: jnp.tensordot(scale, g, axes=1), grads), norms
    return step


def jax_rows(jax, loss, params, batch, want):
    """name -> call of the JAX rows (jax.jit, optax when installed), each checked."""
    grads_fn = jax_grads(jax, loss)
    jargs = optree.tree_map(jax.device_put, (params,) + tuple(batch))
    step = jax.jit(jax_dp_step(jax, grads_fn, MAX_NORM))
    check_close("jax.jit DP step", step(*jargs), want)
    calls = {"jax.jit DP step": lambda: jax.block_until_ready(step(*jargs))}
    try:
        import optax
    except ImportError:
        print("  (optax missing: no optax DP-SGD row)")
        return calls
    agg = optax.contrib.differentially_private_aggregate(MAX_NORM, 0.0, key=jax.random.key(0))
    state = agg.init(jargs[0])
    optax_step = jax.jit(lambda p, *b: agg.update(grads_fn(p, *b), state)[0])
    mean = optax_step(*jargs)            # the clipped sum over the batch size (and the noise)
    b = len(batch[0])
    for got, ref in zip(optree.tree_leaves(mean), optree.tree_leaves(want[0]), strict=True):
        np.testing.assert_allclose(np.asarray(got) * b, ref, rtol=2e-3,
                                   atol=2e-3 * np.abs(ref).max(), err_msg="optax")
    calls["optax DP-SGD aggregate"] = lambda: jax.block_until_ready(optax_step(*jargs))
    return calls


def torch_rows(index, loss, params, batch):
    """name -> call of PyTorch's rows (torch.func, Opacus ghost and materializing, an ordinary
    gradient), each checked by its per-example norms against dp's on the model PyTorch runs (the
    transformer untied); {} with a line saying why without torch or Opacus."""
    try:
        import dp_opacus      # torch and opacus; one thread
        import torch
    except ImportError as exc:
        print(f"  ({exc.name} missing: no torch.func / Opacus rows)")
        return {}
    if index == 0:
        loss, params = dp_opacus.untied_transformer_loss, dict(params, unembed=params["tok"])
    want = (None, ft.dp.clipped_grad_sum(loss, MAX_NORM)(params, *batch)[1])
    params = {k: v for k, v in params.items() if k != "unembed"}   # torch_case unties itself
    calls = {}
    for name, cls in (("torch.func DP step", TorchFuncStep),
                      ("opacus ghost", dp_opacus.OpacusGhost),
                      ("opacus materializing", dp_opacus.OpacusMaterializing),
                      ("torch ordinary gradient", dp_opacus.TorchOrdinary)):
        call = cls(*dp_opacus.torch_case(index, params, batch, torch.float32))
        if name != "torch ordinary gradient":
            norms = call()[1].detach().numpy()
            worst = float(np.max(np.abs(norms - want[1]) / want[1]))
            if worst > 2e-3:   # reported, and timed all the same
                print(f"  ({name}: per-example norms differ from dp's by up to {worst:.1e} "
                      f"relative in float32)")
        calls[name] = call
    return calls


class TorchFuncStep:
    """torch.func's DP step on a module: vmap(grad) of the per-example loss through
    functional_call, then the norms, clipping factors and the weighted sum."""

    def __init__(self, module, inputs, target):
        import torch
        from torch.func import functional_call, grad, vmap
        F = torch.nn.functional
        self.torch, self.inputs, self.target = torch, inputs, target
        self.params = {k: v.detach() for k, v in module.named_parameters()}

        def loss(p, x, t):
            logits = functional_call(module, p, (x[None],))
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t.reshape(-1))
        self.grads = vmap(grad(loss), in_dims=(None, 0, 0))

    def __call__(self):
        torch = self.torch
        g = self.grads(self.params, self.inputs[0], self.target)
        b = len(self.target)
        norms = torch.sqrt(sum((v.reshape(b, -1) ** 2).sum(1) for v in g.values()))
        scale = (MAX_NORM / norms.clamp(min=1e-12)).clamp(max=1.0)
        return {k: torch.tensordot(scale, v, dims=1) for k, v in g.items()}, norms


def jax_or_none():
    try:
        import jax
    except ImportError:
        print("(JAX missing: no ft.jit xla, jax.jit or optax rows)")
        return None
    return jax


def run(index, name, loss, params, batch, repeats, jax):
    calls = ours(loss, params, batch, jax)
    want = calls["dp.clipped_grad_sum"]()
    for key, call in calls.items():
        if key != "dp.clipped_grad_sum" and key != "ordinary gradient":
            check_close(key, call(), want)
    if jax is not None:
        calls.update(jax_rows(jax, loss, params, batch, want))
    calls.update(torch_rows(index, loss, params, batch))
    traced = [k for k in calls if k in EAGER or k.startswith("ft.jit numpy")]
    mem = {k: peak_bytes(calls[k]) for k in traced}
    secs = dict(zip(calls, timed(list(calls.values()), repeats)))
    n_params = sum(v.size for v in params.values())
    b = len(batch[0])
    print(f"\n{name}: batch {b}, {n_params:,} parameters "
          f"(per-example gradients {b * n_params * 4 / 2 ** 20:.1f} MiB)")
    print(f"  {'':36s}{'ms':>9s}{'/ dp':>7s}{'/ ordinary':>12s}{'peak MiB':>10s}"
          f"{'mem / materializing':>21s}")
    for k in calls:
        m = (f"{mem[k] / 2 ** 20:10.1f}{mem[k] / mem['materializing']:21.3f}" if k in mem
             else f"{'-':>10s}{'-':>21s}")
        print(f"  {k:36s}{secs[k] * 1e3:9.2f}{secs[k] / secs['dp.clipped_grad_sum']:7.2f}"
              f"{secs[k] / secs['ordinary gradient']:12.2f}{m}")
    summary(secs)
    return mem, secs


def summary(secs):
    """One line: our fastest DP step against each peer's fastest."""
    mine = {k: v for k, v in secs.items() if k in EAGER[:2] or k.startswith("ft.jit")}
    best = min(mine, key=mine.get)
    peers = {"JAX": ("jax.jit DP step", "optax DP-SGD aggregate"),
             "torch.func": ("torch.func DP step",),
             "Opacus": ("opacus ghost", "opacus materializing")}
    parts = [f"{secs[best] / min(secs[k] for k in keys if k in secs):.2f}x {peer}'s"
             for peer, keys in peers.items() if any(k in secs for k in keys)]
    print(f"  fastest DP step of ours: {best}, {secs[best] * 1e3:.2f} ms"
          + (f" = {', '.join(parts)} fastest" if parts else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by this process's CPU time instead of wall time")
    parser.add_argument("--quick", action="store_true", help="small batches (a smoke test)")
    parser.add_argument("--models", nargs="+", choices=list(KEYS.values()),
                        default=list(KEYS.values()))
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    warnings.simplefilter("error", ft.dp.FallbackWarning)   # every op here is factored
    jax = jax_or_none()
    for index, (name, loss, params, batch) in enumerate(models(args.quick)):
        if KEYS[loss] in args.models:
            run(index, name, loss, params, batch, args.repeats, jax)


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


KEYS = {transformer.loss: "transformer", dp_sgd_cnn.loss: "cnn", mlp_loss: "mlp"}


def _has_sklearn():
    try:
        import sklearn  # noqa: F401
        return True
    except ImportError:
        print("(scikit-learn missing: the CNN's data is skipped)")
        return False


if __name__ == "__main__":
    main()
