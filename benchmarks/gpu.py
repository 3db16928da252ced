"""The GPU table of issues 15 and 31: functorch_lite on CuPy and through XLA beside hand-written
CuPy, torch.func (CUDA), JAX's jit (GPU) and, for the DP step, Opacus, all in one process,
float32.

Rows: per-example gradients of tanh MLPs with softmax cross-entropy (784-128-10 at B=512 and
B=8192, 784-1024-1024-10 at B=1024), the Hessian of sum(tanh(A@x)**2) (n=500, 4000; the
hand-written column is the analytic form), vmap(grad(sum(sin(v)*v))) on (8, 2) (latency),
per-example gradients of xla_models.py's CNN (conv 3x3 1->16, relu, conv 3x3 16->32 stride 2,
relu, mean, linear; without the pool at B=128 and 1024, with a 2x2 max pool after the first conv
at B=128), of per_example_transformer.py's block (B=64 and 512), and the DP step of the demo CNN
(examples/dp_sgd_cnn.py, random 8x8 inputs): dp.clipped_grad_sum, whose peers are torch.func's
vmap(grad) with clipping, JAX's DP step (dp_clipping.py) and Opacus's ghost clipping (B=256 and
1024).
Columns, in milliseconds: hand-written CuPy (per-example outer products as one batched matmul;
"-" where there is none), functorch_lite eager and ft.jit on CuPy, ft.jit(backend="xla") called
with JAX arrays on the GPU (the outputs stay JAX arrays there), torch.func on CUDA, JAX's jit on
the GPU and Opacus on CUDA (each when importable and seeing a GPU, "-" otherwise), and the
write floor of the per-example gradients: B x parameters x 4 bytes over the device bandwidth,
measured by a 1 GiB device copy in the same run. Each figure is the median of interleaved
rounds of single calls; every timed call ends with its framework's synchronisation (cupy
Device().synchronize(), torch.cuda.synchronize(), JAX block_until_ready). JAX runs at matmul
precision "highest" (its GPU default may use TF32; CuPy and torch compute float32 by default),
and every contender's result is checked before timing against the hand-written one, or, where
there is none, against functorch_lite's eager result on the host (NumPy); a contender that
differs is reported and not timed (Opacus: reported and timed).

    python benchmarks/gpu.py [--repeats 20] [--rows mlp512 hess4000]
    python benchmarks/gpu.py --device cpu --small     # the same code on the CPU, tiny sizes

Without CuPy, or with CuPy and no CUDA GPU, it prints one line saying which and exits 0.
`--device cpu` runs every row on the CPU instead: NumPy in CuPy's columns, torch and JAX on
the CPU, each on one thread (set OPENBLAS_NUM_THREADS=1 for NumPy's); `--small` shrinks every
row (a check that the code runs, not a measurement).
"""
import argparse
import collections
import importlib
import os
import pathlib
import sys
import time
import types

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

# A workload: host (NumPy) inputs, the hand-written version `hand(xp, *inputs)` (None where
# there is none), the functorch_lite transform of the inputs, the bytes a per-example result
# writes (None where no floor is shown), builders of the torch.func and JAX versions, and (the
# DP step) a builder of Opacus's: `opacus_build(torch, device)` -> a call returning the result.
Workload = collections.namedtuple(
    "Workload", "title inputs hand transform floor_bytes torch_build jax_build opacus_build",
    defaults=(None,))
HERE = pathlib.Path(__file__).resolve().parent
MAX_NORM = 1.0


def sibling(name):
    """A benchmark module beside this one, imported when a row needs its model."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return importlib.import_module(name)


# -- per-example gradients of an MLP ------------------------------------------------------------

def mlp_params(rng, sizes):
    """[(w, b), ...] of a tanh MLP with layer widths `sizes`, float32, on the host."""
    return [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]


def mlp_loss(params, x, y):
    """Cross-entropy of one example (x: (d_in,), y: a 0-d integer label)."""
    for w, b in params[:-1]:
        x = fnp.tanh(x @ w + b)
    w, b = params[-1]
    return ft.nn.cross_entropy(x @ w + b, y)


def hand_per_example_grads(xp, params, X, Y):
    """The per-example gradients of mlp_loss by hand: forward, then the backward pass with each
    weight gradient one batched matmul of (B, m, 1) by (B, 1, n)."""
    hs = [X]
    for w, b in params[:-1]:
        hs.append(xp.tanh(hs[-1] @ w + b))
    w, b = params[-1]
    logits = hs[-1] @ w + b
    p = xp.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[xp.arange(len(Y)), Y] -= 1.0                            # d loss / d logits
    grads, g = [], p
    for i in reversed(range(len(params))):
        grads.append((xp.matmul(hs[i][:, :, None], g[:, None, :]), g))
        if i:
            g = (g @ params[i][0].T) * (1.0 - hs[i] * hs[i])
    return grads[::-1]


def per_example_workload(rng, sizes, batch):
    params = mlp_params(rng, sizes)
    X = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    Y = rng.integers(0, sizes[-1], batch)
    n_params = sum(w.size + b.size for w, b in params)
    title = f"per-example grads, MLP {'-'.join(map(str, sizes))}, B={batch}"
    return Workload(title, (params, X, Y), hand_per_example_grads,
                    ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0)), batch * n_params * 4,
                    _torch_mlp, _jax_mlp)


def _torch_mlp(torch):
    def loss(params, x, y):
        for w, b in params[:-1]:
            x = torch.tanh(x @ w + b)
        w, b = params[-1]
        return torch.nn.functional.cross_entropy((x @ w + b)[None], y[None])
    return torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))


def _jax_mlp(jax):
    def loss(params, x, y):
        for w, b in params[:-1]:
            x = jax.numpy.tanh(x @ w + b)
        w, b = params[-1]
        return -jax.nn.log_softmax(x @ w + b)[y]
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))


# -- Hessian of sum(tanh(A @ x)**2) -------------------------------------------------------------

def tanh_square_sum(x, A):
    return fnp.sum(fnp.tanh(fnp.matmul(A, x)) ** 2)


def hand_hessian(xp, x, A):
    """The analytic Hessian: A^T diag(2 s (s - 2 t^2)) A with t = tanh(A x), s = 1 - t^2."""
    t = xp.tanh(A @ x)
    s = 1.0 - t * t
    return A.T @ ((2.0 * s * (s - 2.0 * t * t))[:, None] * A)


def hessian_workload(rng, n):
    A = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    return Workload(f"hessian of sum(tanh(A@x)**2), n={n}", (x, A), hand_hessian,
                    ft.hessian(tanh_square_sum), None,
                    lambda torch: torch.func.hessian(
                        lambda x, A: torch.sum(torch.tanh(A @ x) ** 2)),
                    lambda jax: jax.hessian(lambda x, A: jax.numpy.sum(jax.numpy.tanh(A @ x) ** 2)))


# -- vmap(grad) of a tiny function (latency) ----------------------------------------------------

def hand_sin_grad(xp, v):
    return xp.cos(v) * v + xp.sin(v)


def tiny_workload(rng, shape):
    v = rng.standard_normal(shape).astype(np.float32)
    return Workload(f"vmap(grad(sum(sin(v)*v))) on {shape[0]}x{shape[1]}", (v,), hand_sin_grad,
                    ft.vmap(ft.grad(lambda v: fnp.sum(fnp.sin(v) * v))), None,
                    lambda torch: torch.func.vmap(torch.func.grad(
                        lambda v: torch.sum(torch.sin(v) * v))),
                    lambda jax: jax.vmap(jax.grad(lambda v: jax.numpy.sum(jax.numpy.sin(v) * v))))


# -- per-example gradients of a CNN and of a transformer block; a DP step ----------------------

def _n_params(params):
    return sum(v.size for v in params.values())


def cnn_workload(rng, batch, pool):
    """xla_models.py's CNN (the rows of issue 31)."""
    xm = sibling("xla_models")
    transform, _, inputs = xm.cnn_row(pool, batch, rng)
    title = f"per-example grads, CNN{' with max pool' if pool else ''}, B={batch}"
    return Workload(title, inputs, None, transform, batch * _n_params(inputs[0]) * 4,
                    lambda torch: xm.torch_cnn(torch, pool), lambda jax: xm.jax_cnn(pool))


def transformer_workload(rng, batch):
    """per_example_transformer.py's block (tied unembedding)."""
    tr = sibling("per_example_transformer")
    params = tr.init_params(rng)
    tokens = rng.integers(0, tr.VOCAB, (batch, tr.LENGTH))
    return Workload(f"per-example grads, transformer block, B={batch}", (params, tokens), None,
                    tr.per_example_grads, batch * _n_params(params) * 4,
                    lambda torch: _torch_transformer(torch, tr),
                    lambda jax: tr.jax_per_example_grads())


def _torch_transformer(torch, tr):
    F = torch.nn.functional

    def loss(p, t):
        h = F.embedding(t, p["tok"]) + p["pos"]
        a = F.layer_norm(h, (tr.DIM,), p["ln1_w"], p["ln1_b"], eps=tr.EPS)
        q, k, v = F.linear(a, p["wq"]), F.linear(a, p["wk"]), F.linear(a, p["wv"])
        h = h + F.linear(F.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
        m = F.layer_norm(h, (tr.DIM,), p["ln2_w"], p["ln2_b"], eps=tr.EPS)
        h = h + F.linear(F.relu(F.linear(m, p["w1"], p["b1"])), p["w2"], p["b2"])
        return F.cross_entropy(F.linear(h, p["tok"], p["unembed_b"])[:-1], t[1:])
    return torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0))


def dp_workload(rng, batch):
    """The DP-SGD demo's CNN: the clipped per-example gradient sum and the norms."""
    cnn = sibling("dp_clipping").dp_sgd_cnn      # dp_clipping puts examples/ on the path
    params = cnn.init_params(rng)
    x = rng.standard_normal((batch, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    return Workload(f"DP step (clipped grad sum), demo CNN, B={batch}", (params, x, y), None,
                    ft.dp.clipped_grad_sum(cnn.loss, MAX_NORM), None, _torch_dp_step,
                    _jax_dp_step, lambda torch, device: _opacus_dp_step(torch, device,
                                                                        (params, x, y)))


def _torch_dp_cnn_loss(torch):
    F = torch.nn.functional

    def loss(p, x, y):
        h = F.relu(F.conv2d(x[None], p["conv1"], p["b1"], padding=1))
        h = F.group_norm(F.conv2d(h, p["conv2"], p["b2"], padding=1), 4, p["gn_scale"],
                         p["gn_shift"])
        h = F.max_pool2d(F.relu(h), 2)
        return F.cross_entropy(h.reshape(1, -1) @ p["fc"] + p["fc_b"], y[None])
    return loss


def _torch_dp_step(torch):
    """torch.func's DP step: vmap(grad), the norms, clipping factors and the weighted sum."""
    grads = torch.func.vmap(torch.func.grad(_torch_dp_cnn_loss(torch)), in_dims=(None, 0, 0))

    def step(p, x, y):
        g = grads(p, x, y)
        norms = torch.sqrt(sum((v.reshape(len(x), -1) ** 2).sum(1) for v in g.values()))
        scale = (MAX_NORM / norms.clamp(min=1e-12)).clamp(max=1.0)
        return {k: torch.tensordot(scale, v, dims=1) for k, v in g.items()}, norms
    return step


def _jax_dp_step(jax):
    dpc = sibling("dp_clipping")
    return dpc.jax_dp_step(jax, dpc.jax_grads(jax, dpc.dp_sgd_cnn.loss), MAX_NORM)


# Opacus's parameter names -> the demo's (fc's weight is stored transposed by PyTorch).
_OPACUS_NAMES = {"conv1.weight": "conv1", "conv1.bias": "b1", "conv2.weight": "conv2",
                 "conv2.bias": "b2", "gn.weight": "gn_scale", "gn.bias": "gn_shift",
                 "fc.weight": "fc", "fc.bias": "fc_b"}


def _opacus_dp_step(torch, device, inputs):
    """Opacus's ghost clipping step on `device` (dp_opacus.py's), returning the demo's
    (clipped sum, norms); None without Opacus."""
    try:
        dp_opacus = sibling("dp_opacus")
    except ImportError:
        return None
    params, x, y = inputs
    module = dp_opacus.CNN(params, torch.float32).to(device)
    ghost = dp_opacus.OpacusGhost(module, (torch.as_tensor(x, device=device),),
                                  torch.as_tensor(y, device=device))

    def call():
        grads, norms = ghost()
        named = dict(zip((n.removeprefix("_module.") for n, _ in
                          ghost.gsm.named_parameters()), grads))
        out = {_OPACUS_NAMES[n]: g for n, g in named.items()}
        out["fc"] = out["fc"].T
        return out, norms
    return call


def workloads(rng, small=False):
    """The rows by name; `small`: every row at a tiny size (a check that the code runs)."""
    if small:
        return {"mlp512": per_example_workload(rng, (6, 5, 3), 4),
                "hess500": hessian_workload(rng, 7),
                "tiny": tiny_workload(rng, (8, 2)),
                "cnn128": cnn_workload(rng, 3, pool=False),
                "cnn_pool128": cnn_workload(rng, 3, pool=True),
                "transformer64": transformer_workload(rng, 2),
                "dp256": dp_workload(rng, 4)}
    return {"mlp512": per_example_workload(rng, (784, 128, 10), 512),
            "mlp8192": per_example_workload(rng, (784, 128, 10), 8192),
            "mlp_large": per_example_workload(rng, (784, 1024, 1024, 10), 1024),
            "hess500": hessian_workload(rng, 500),
            "hess4000": hessian_workload(rng, 4000),
            "tiny": tiny_workload(rng, (8, 2)),
            "cnn128": cnn_workload(rng, 128, pool=False),
            "cnn1024": cnn_workload(rng, 1024, pool=False),
            "cnn_pool128": cnn_workload(rng, 128, pool=True),
            "transformer64": transformer_workload(rng, 64),
            "transformer512": transformer_workload(rng, 512),
            "dp256": dp_workload(rng, 256),
            "dp1024": dp_workload(rng, 1024)}


def to_module(tree, xp):
    """The host inputs as arrays of `xp` (one host-to-device copy each)."""
    return ft.tree.map(xp.asarray, tree)


# -- the run on a GPU ---------------------------------------------------------------------------

def gpu_missing():
    """None when CuPy imports and sees a CUDA GPU, else a line saying which is missing."""
    try:
        import cupy
    except ImportError:
        return ("gpu.py: no GPU table: CuPy is not installed (pip install 'functorch-lite[gpu]', "
                "or 'functorch-lite[gpu-cuda13]' for CUDA 13)")
    no_gpu = ("gpu.py: no GPU table: CuPy is installed but finds no CUDA GPU{} (the CuPy wheel "
              "must match the driver's CUDA major version: 'functorch-lite[gpu]' for CUDA 12, "
              "'functorch-lite[gpu-cuda13]' for CUDA 13)")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return no_gpu.format(f": {exc}")
    return None if count else no_gpu.format("")


def timed(fns, repeats, warmup=3):
    """Median seconds of each function (each ends with its own synchronisation), measured in
    interleaved rounds so that drift affects all alike."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, ts in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
    return [float(np.median(ts)) for ts in times]


def copy_bandwidth(cupy, repeats, n=1 << 28):
    """Bytes per second of a device-to-device copy of n float32 (1 GiB; read plus write)."""
    src = cupy.ones(n, cupy.float32)
    dst = cupy.empty_like(src)
    sync = cupy.cuda.Device().synchronize
    [t] = timed([lambda: (cupy.copyto(dst, src), sync())], repeats)
    return 2 * src.nbytes / t


class Host:
    """NumPy dressed as the parts of CuPy's device API the table uses: `--device cpu` runs the
    GPU table's code on the CPU, NumPy in CuPy's columns."""
    cuda = types.SimpleNamespace(Device=lambda: types.SimpleNamespace(synchronize=lambda: None))

    def get_default_memory_pool(self):
        return types.SimpleNamespace(free_all_blocks=lambda: None)

    def __getattr__(self, name):
        return getattr(np, name)


def _peers(device="gpu"):
    """torch and jax modules when importable and seeing `device` (None otherwise)."""
    try:
        import torch
        torch = torch if device == "cpu" or torch.cuda.is_available() else None
    except ImportError:
        torch = None
    if device == "cpu" and torch is not None:
        torch.set_num_threads(1)
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU's memory
    try:
        import jax
        jax.config.update("jax_default_matmul_precision", "highest")
        jax = jax if jax.devices(device) else None
    except Exception:  # not installed, or no GPU backend
        jax = None
    return torch, jax


def _contenders(cupy, torch, jax, work, device="gpu"):
    """name -> a call of that version on its own device inputs, synchronised, returning its
    result (the hand-written one where there is one; torch, JAX and Opacus only when there)."""
    sync = cupy.cuda.Device().synchronize
    args = to_module(work.inputs, cupy)
    eager, jitted = work.transform, ft.jit(work.transform)
    calls = {"eager": lambda: _synced(eager(*args), sync),
             "jit": lambda: _synced(jitted(*args), sync)}
    if work.hand is not None:
        calls = {"hand": lambda: _synced(work.hand(cupy, *args), sync), **calls}
    if jax is not None:
        j_args = jax.device_put(_int32_labels(work.inputs), jax.devices(device)[0])
        on_xla = ft.jit(work.transform, backend="xla")
        calls["xla"] = lambda: jax.block_until_ready(on_xla(*j_args))
    if torch is not None:
        t_device = "cuda" if device == "gpu" else "cpu"
        t_sync = torch.cuda.synchronize if device == "gpu" else (lambda: None)
        t_fn = work.torch_build(torch)
        t_args = ft.tree.map(lambda a: torch.as_tensor(a, device=t_device), work.inputs)
        calls["torch"] = lambda: _synced(t_fn(*t_args), t_sync)
        opacus = work.opacus_build and work.opacus_build(torch, t_device)
        if opacus is not None:
            calls["opacus"] = lambda: _synced(opacus(), t_sync)
    if jax is not None:
        j_fn = jax.jit(work.jax_build(jax))
        calls["jax"] = lambda: jax.block_until_ready(j_fn(*j_args))
    return calls


def _int32_labels(tree):
    """JAX without x64 holds integers as int32: cast the labels once, before timing."""
    return ft.tree.map(lambda a: a.astype(np.int32) if a.dtype == np.int64 else a, tree)


def _synced(result, sync):
    sync()
    return result


def _max_rel_error(cupy, got, want):
    """max |got - want| over max |want|, across the leaves, computed on the GPU."""
    got, want = ft.tree.leaves(got), ft.tree.leaves(want)
    if len(got) != len(want):
        return float("inf")
    err = scale = 0.0
    for g, w in zip(got, want):
        g = _as_cupy(cupy, g)
        err = max(err, float(cupy.abs(g.reshape(w.shape) - w).max()))
        scale = max(scale, float(cupy.abs(w).max()))
    return err / max(scale, 1e-30)


def _as_cupy(cupy, x):
    try:
        return cupy.from_dlpack(x)
    except Exception:  # a framework without DLPack export: through the host
        return cupy.asarray(np.asarray(x.cpu() if hasattr(x, "cpu") else x))


COLUMNS = [("hand", "hand CuPy"), ("eager", "ft eager (CuPy)"), ("jit", "ft.jit (CuPy)"),
           ("xla", "ft.jit xla (JAX arrays)"), ("torch", "torch.func (CUDA)"),
           ("jax", "JAX jit (GPU)"), ("opacus", "Opacus ghost (CUDA)")]
TIMED_ANYWAY = {"opacus"}   # a peer whose result differs is reported and still timed


def column_titles(device):
    titles = [title for _, title in COLUMNS]
    if device == "cpu":
        titles = [t.replace("CuPy", "NumPy").replace("CUDA", "CPU").replace("GPU", "CPU")
                  for t in titles]
    return titles


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rows", nargs="*")
    parser.add_argument("--device", choices=["gpu", "cpu"], default="gpu",
                        help="cpu: the same code on the CPU (NumPy for CuPy, torch and JAX on "
                             "the CPU, one thread)")
    parser.add_argument("--small", action="store_true",
                        help="tiny sizes: a check that every row runs, not a measurement")
    args = parser.parse_args()
    if args.device == "gpu":
        missing = gpu_missing()
        if missing:
            print(missing)
            return
        import cupy
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        name = name.decode() if isinstance(name, bytes) else name
        versions = [f"CuPy {cupy.__version__}"]
    else:   # one thread for XLA (xla_models sets it before JAX starts) and torch (_peers)
        sibling("xla_models")
        cupy, name = Host(), "CPU (NumPy in the CuPy columns)"
        versions = [f"NumPy {np.__version__}"]
    torch, jax = _peers(args.device)
    bandwidth = copy_bandwidth(cupy, args.repeats, 1 << (20 if args.small else 28))
    cupy.get_default_memory_pool().free_all_blocks()
    versions += [f"{m.__name__} {m.__version__}" for m in (torch, jax) if m is not None]
    print(f"{name}, {', '.join(versions)}; device copy "
          f"{bandwidth / 1e9:.0f} GB/s; float32, medians of {args.repeats} rounds, ms")
    print("| workload | " + " | ".join(column_titles(args.device)) + " | write floor |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    notes = []
    for key, work in workloads(np.random.default_rng(0), args.small).items():
        if not args.rows or key in args.rows:
            line, row_notes = table_row(cupy, torch, jax, work, args.repeats, bandwidth,
                                        args.device)
            print(line, flush=True)
            notes += [f"{key}: {note}" for note in row_notes]
    for note in notes:
        print(note)


def table_row(cupy, torch, jax, work, repeats, bandwidth, device="gpu"):
    """One line of the table, and notes on the contenders left out (a wrong result, an error)."""
    calls = _contenders(cupy, torch, jax, work, device)
    if "hand" in calls:
        want, checked = calls["hand"](), [n for n in calls if n != "hand"]
    else:   # functorch_lite eagerly on the host: NumPy's kernels
        want, checked = to_module(work.transform(*work.inputs), cupy), list(calls)
    notes = []
    for name in checked:
        try:
            err = _max_rel_error(cupy, calls[name](), want)
        except Exception as exc:  # report it and time the others
            notes.append(f"{name} raised {type(exc).__name__}: {exc}")
            del calls[name]
            continue
        if not err <= 2e-3:
            reference = "hand-written CuPy" if work.hand is not None else \
                "functorch_lite on the host"
            notes.append(f"{name} differs from {reference} (max relative error {err:.1e}); "
                         + ("timed anyway" if name in TIMED_ANYWAY else "not timed"))
            if name not in TIMED_ANYWAY:
                del calls[name]
    del want
    times = dict(zip(calls, timed(list(calls.values()), repeats)))
    del calls
    cells = [_ms(times[name]) if name in times else "-" for name, _ in COLUMNS]
    if work.hand is hand_hessian:
        cells[0] += " (analytic)"
    floor = "-" if work.floor_bytes is None else _ms(work.floor_bytes / bandwidth)
    cupy.get_default_memory_pool().free_all_blocks()
    if torch is not None and device == "gpu":
        torch.cuda.empty_cache()
    return f"| {work.title} | " + " | ".join(cells) + f" | {floor} |", notes


def _ms(seconds):
    return f"{seconds * 1e3:.2f}"


if __name__ == "__main__":
    sys.exit(main())
