"""The per-example rows of issue 31 on one CPU thread, float32: ft.jit(backend="xla") (NumPy
arrays in and out; JAX arrays in and out) against jax.jit of the same model written in JAX,
medians of interleaved single calls in one process, and each one's compile time (the median
of three first calls of fresh functions: trace, passes and XLA's compile) beside jax.jit's.

Rows:
  mlp        per-example grads of a 784-128-10 tanh MLP with cross-entropy
  cnn-pool   per-example grads of conv(1->16, 3x3), relu, max_pool 2, conv(16->32, 3x3,
             stride 2), relu, spatial mean, linear(32->10), cross-entropy; 1x28x28
  cnn        the same without the pool
             (with torch.func's figure where torch is importable: one thread, interleaved)
  attention  one causal attention block (embedding, layer norm, q/k/v, sdpa, residual,
             cross-entropy of the next token), T=16, D=32
  dp         the DP step of the demo CNN (examples/dp_sgd_cnn.py, 1x8x8 inputs):
             ft.jit(dp.clipped_grad_sum(loss, 1.0)) against jax.jit of vmap(grad) + clip + sum

    python benchmarks/xla_models.py [--rows ...] [--batches 64] [--repeats 30]
    python benchmarks/xla_models.py --sweep     # every row at B = 32, 64, 128, 256, 512

By default each row runs once at its own batch (cnn 128, the others 64).

Other benchmarks (per_example_cnn.py, per_example_transformer.py, dp_clipping.py) import the
column helpers (`xla_columns`).
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import optree  # noqa: E402

import functorch_lite as ft  # noqa: E402
import functorch_lite.numpy as fnp  # noqa: E402
from _timing import interleaved_medians  # noqa: E402


def jax_or_none():
    try:
        import jax
    except ImportError:
        return None
    return jax


def max_rel_diff(a, b):
    """The largest difference between two pytrees of arrays, relative to each leaf's scale."""
    worst = 0.0
    for x, y in zip(optree.tree_leaves(a), optree.tree_leaves(b)):
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        worst = max(worst, float(np.max(np.abs(x - y)) / max(np.max(np.abs(y)), 1e-30)))
    return worst


def xla_columns(ft_fn, jax_fn, args, repeats, others=None, compiles=3):
    """{column: median seconds} and the largest relative differences: ft.jit(ft_fn, xla) on
    NumPy arrays ("xla-np") and on JAX arrays ("xla-jax"), against jax.jit(jax_fn) on JAX
    arrays ("jax.jit"), and the calls of `others` ({column: call}) interleaved with them;
    under "compile ..." the median of `compiles` first calls (trace, passes and XLA's compile)
    of fresh functions, taken in turns (one first call varies 2-3x with what ran before it).
    An empty dict without JAX."""
    jax = jax_or_none()
    if jax is None:
        return {}, {}
    jargs = optree.tree_map(jax.device_put, args)
    fresh = {"xla-np": (lambda: ft.jit(ft_fn, backend="xla"), args),
             "xla-jax": (lambda: ft.jit(ft_fn, backend="xla"), jargs),
             # a new function object each time, so that jax.jit's caches do not answer
             "jax.jit": (lambda: jax.jit(lambda *a: jax_fn(*a)), jargs)}
    firsts, made = {name: [] for name in fresh}, {}
    for _ in range(max(compiles, 1)):
        for name, (make, a) in fresh.items():
            made[name] = fn = make()
            t0 = time.perf_counter()
            jax.block_until_ready(fn(*a))
            firsts[name].append(time.perf_counter() - t0)
    on_np, on_jax, ref = made["xla-np"], made["xla-jax"], made["jax.jit"]
    others = others or {}
    calls = [lambda: on_np(*args), lambda: jax.block_until_ready(on_jax(*jargs)),
             lambda: jax.block_until_ready(ref(*jargs)), *others.values()]
    times = dict(zip(("xla-np", "xla-jax", "jax.jit", *others),
                     interleaved_medians(calls, repeats)))
    times.update({"compile " + k: float(np.median(v)) for k, v in firsts.items()})
    want = ref(*jargs)
    diffs = {"xla-np": max_rel_diff(on_np(*args), want),
             "xla-jax": max_rel_diff(on_jax(*jargs), want)}
    return times, diffs


def format_columns(times, diffs):
    if not times:
        return "xla columns: JAX is not installed"
    j = times["jax.jit"]
    return (f"ft.jit xla (NumPy in/out) {times['xla-np'] * 1e3:8.2f} ms "
            f"({times['xla-np'] / j:5.2f}x) | xla (JAX in/out) {times['xla-jax'] * 1e3:8.2f} ms "
            f"({times['xla-jax'] / j:5.2f}x) | jax.jit {j * 1e3:8.2f} ms | "
            + "".join(f"{k} {times[k] * 1e3:8.2f} ms | " for k in times
                      if k not in ("xla-np", "xla-jax", "jax.jit") and " " not in k)
            + "compile "
            f"{times['compile xla-jax']:.2f} s vs {times['compile jax.jit']:.2f} s "
            f"({times['compile xla-jax'] / times['compile jax.jit']:.2f}x) | max rel "
            f"diff {max(diffs.values()):.1e}")


# -- the CNN rows --

def cnn_params(rng):
    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(
            np.float32)
    return {"c1": he(16, 1, 3, 3), "b1": np.zeros(16, np.float32), "c2": he(32, 16, 3, 3),
            "b2": np.zeros(32, np.float32), "fc": he(10, 32).T.copy(),
            "fc_b": np.zeros(10, np.float32)}


def ft_cnn(pool):
    def loss(p, x, y):
        h = ft.nn.relu(ft.nn.conv2d(x[None], p["c1"], p["b1"]))
        if pool:
            h = ft.nn.max_pool2d(h, 2)
        h = ft.nn.relu(ft.nn.conv2d(h, p["c2"], p["b2"], stride=2))
        return ft.nn.cross_entropy(h.mean(axis=(2, 3))[0] @ p["fc"] + p["fc_b"], y)
    return ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))


def jax_cnn(pool):
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, b, stride):
        y = lax.conv_general_dilated(x, w, (stride, stride), "VALID")
        return y + b[None, :, None, None]

    def loss(p, x, y):
        h = jax.nn.relu(conv(x[None], p["c1"], p["b1"], 1))
        if pool:
            h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        h = jax.nn.relu(conv(h, p["c2"], p["b2"], 2))
        logits = h.mean(axis=(2, 3))[0] @ p["fc"] + p["fc_b"]
        return -jax.nn.log_softmax(logits)[y]
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))


def torch_cnn(torch, pool):
    F = torch.nn.functional

    def loss(p, x, y):
        h = F.relu(F.conv2d(x[None], p["c1"], p["b1"]))
        if pool:
            h = F.max_pool2d(h, 2)
        h = F.relu(F.conv2d(h, p["c2"], p["b2"], stride=2))
        return F.cross_entropy((h.mean(dim=(2, 3)) @ p["fc"] + p["fc_b"]), y[None])
    return torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))


def torch_column(pool, args):
    """{"torch.func": the call of the CNN's per-example gradients in torch.func, one thread},
    where torch is importable (it runs in another environment than JAX: issue 31)."""
    try:
        import torch
    except ImportError:
        return {}
    torch.set_num_threads(1)
    params, X, Y = args
    tp = {k: torch.from_numpy(v) for k, v in params.items()}
    tx, ty = torch.from_numpy(X), torch.from_numpy(Y)
    fn = torch_cnn(torch, pool)
    return {"torch.func": lambda: fn(tp, tx, ty)}


def cnn_row(pool, batch, rng):
    params = cnn_params(rng)
    X = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    Y = rng.integers(0, 10, batch)
    return ft_cnn(pool), jax_cnn(pool), (params, X, Y)


# -- the attention row --

def attention_params(rng, vocab=64, d=32):
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
    return {"emb": w(vocab, d), "ln_w": np.ones(d, np.float32), "ln_b": np.zeros(d, np.float32),
            "wq": w(d, d), "wk": w(d, d), "wv": w(d, d), "out": w(d, vocab)}


def ft_attention():
    def loss(p, tokens):
        h = ft.nn.embedding(tokens[:-1], p["emb"])
        n = ft.nn.layer_norm(h, (h.shape[-1],), p["ln_w"], p["ln_b"])
        a = ft.nn.scaled_dot_product_attention(n @ p["wq"], n @ p["wk"], n @ p["wv"],
                                               is_causal=True)
        return ft.nn.cross_entropy((h + a) @ p["out"], tokens[1:])
    return ft.vmap(ft.grad(loss), in_dims=(None, 0))


def jax_attention():
    import jax
    import jax.numpy as jnp

    def loss(p, tokens):
        h = p["emb"][tokens[:-1]]
        mu = h.mean(-1, keepdims=True)
        var = ((h - mu) ** 2).mean(-1, keepdims=True)
        n = (h - mu) / jnp.sqrt(var + 1e-5) * p["ln_w"] + p["ln_b"]
        q, k, v = n @ p["wq"], n @ p["wk"], n @ p["wv"]
        t = q.shape[0]
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), q @ k.T / np.sqrt(q.shape[-1]), -jnp.inf)
        a = jax.nn.softmax(s, axis=-1) @ v
        logp = jax.nn.log_softmax((h + a) @ p["out"], axis=-1)
        return -jnp.take_along_axis(logp, tokens[1:, None], axis=-1).mean()
    return jax.vmap(jax.grad(loss), in_axes=(None, 0))


def attention_row(batch, rng, seq=16):
    params = attention_params(rng)
    tokens = rng.integers(0, 64, (batch, seq + 1))
    return ft_attention(), jax_attention(), (params, tokens)


# -- the MLP row --

def mlp_row(batch, rng, sizes=(784, 128, 10)):
    params = {"w1": (rng.standard_normal(sizes[:2]) / np.sqrt(sizes[0])).astype(np.float32),
              "b1": np.zeros(sizes[1], np.float32),
              "w2": (rng.standard_normal(sizes[1:]) / np.sqrt(sizes[1])).astype(np.float32),
              "b2": np.zeros(sizes[2], np.float32)}
    X = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    Y = rng.integers(0, sizes[2], batch)

    def loss(p, x, y):
        return ft.nn.cross_entropy(np.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"], y)

    def jax_per_example_grads():
        import jax
        import jax.numpy as jnp

        def jloss(p, x, y):
            logits = jnp.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
            return -jax.nn.log_softmax(logits)[y]
        return jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0))
    return ft.vmap(ft.grad(loss), in_dims=(None, 0, 0)), jax_per_example_grads(), (params, X, Y)


# -- the DP-step row --

def dp_row(batch, rng, clip=1.0):
    import pathlib
    import sys
    root = pathlib.Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "examples"))
    import dp_sgd_cnn
    import jax
    from dp_clipping import jax_dp_step, jax_grads
    X = rng.standard_normal((batch, 1, 8, 8)).astype(np.float32)
    Y = rng.integers(0, 10, batch)
    return (ft.dp.clipped_grad_sum(dp_sgd_cnn.loss, clip),
            jax_dp_step(jax, jax_grads(jax, dp_sgd_cnn.loss), clip),
            (dp_sgd_cnn.init_params(rng), X, Y))


ROWS = {
    "mlp": (mlp_row, 64),
    "cnn-pool": (lambda b, rng: cnn_row(True, b, rng), 64),
    "cnn": (lambda b, rng: cnn_row(False, b, rng), 128),
    "attention": (attention_row, 64),
    "dp": (dp_row, 64),
}
"""name -> (function(batch, rng) -> (ft function, JAX function, arguments), default batch)"""
SWEEP = (32, 64, 128, 256, 512)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--batches", type=int, nargs="+",
                        help="batch sizes (default: each row's own)")
    parser.add_argument("--sweep", action="store_true", help=f"batches {SWEEP}, rows without cnn")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    if jax_or_none() is None:
        print("JAX is not installed: no xla columns to measure")
        return
    rows = [r for r in args.rows if r != "cnn"] if args.sweep and args.rows == list(ROWS) \
        else args.rows
    for name in rows:
        make, default = ROWS[name]
        for batch in SWEEP if args.sweep else args.batches or [default]:
            ft_fn, jax_fn, fargs = make(batch, np.random.default_rng(0))
            others = torch_column(name == "cnn-pool", fargs) if name.startswith("cnn") else {}
            times, diffs = xla_columns(ft_fn, jax_fn, fargs, args.repeats, others)
            print(f"{name:10s} B={batch:<4d} {format_columns(times, diffs)}", flush=True)


if __name__ == "__main__":
    main()
