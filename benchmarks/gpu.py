"""The GPU table of issue 15: functorch_lite on CuPy beside hand-written CuPy, torch.func (CUDA)
and JAX's jit (GPU), all in one process, float32.

Rows: per-example gradients of tanh MLPs with softmax cross-entropy (784-128-10 at B=512 and
B=8192, 784-1024-1024-10 at B=1024), the Hessian of sum(tanh(A@x)**2) (n=500, 4000; the
hand-written column is the analytic form) and vmap(grad(sum(sin(v)*v))) on (8, 2) (latency).
Columns, in milliseconds: hand-written CuPy (per-example outer products as one batched matmul),
functorch_lite eager and ft.jit on CuPy, torch.func on CUDA and JAX's jit on the GPU (each when
importable and seeing a GPU, "-" otherwise), and the write floor of the per-example gradients:
B x parameters x 4 bytes over the device bandwidth, measured by a 1 GiB device copy in the same
run. Each figure is the median of interleaved rounds; every timed call ends with its framework's
synchronisation (cupy Device().synchronize(), torch.cuda.synchronize(), JAX block_until_ready).
JAX runs at matmul precision "highest" (its GPU default may use TF32; CuPy and torch compute
float32 by default), and every contender's result is checked against the hand-written one
before timing.

    python benchmarks/gpu.py [--repeats 20] [--rows mlp512 hess4000]

Without CuPy, or with CuPy and no CUDA GPU, it prints one line saying which and exits 0.
"""
import argparse
import collections
import os
import sys
import time

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

# A workload: host (NumPy) inputs, the hand-written version `hand(xp, *inputs)`, the
# functorch_lite transform of the inputs, the bytes a per-example result writes (None where no
# floor is shown), and builders of the torch.func and JAX versions.
Workload = collections.namedtuple(
    "Workload", "title inputs hand transform floor_bytes torch_build jax_build")


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


def workloads(rng):
    return {"mlp512": per_example_workload(rng, (784, 128, 10), 512),
            "mlp8192": per_example_workload(rng, (784, 128, 10), 8192),
            "mlp_large": per_example_workload(rng, (784, 1024, 1024, 10), 1024),
            "hess500": hessian_workload(rng, 500),
            "hess4000": hessian_workload(rng, 4000),
            "tiny": tiny_workload(rng, (8, 2))}


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


def copy_bandwidth(cupy, repeats):
    """Bytes per second of a 1 GiB device-to-device copy (read plus write)."""
    src = cupy.ones(1 << 28, cupy.float32)
    dst = cupy.empty_like(src)
    sync = cupy.cuda.Device().synchronize
    [t] = timed([lambda: (cupy.copyto(dst, src), sync())], repeats)
    return 2 * src.nbytes / t


def _peers():
    """torch and jax modules when importable and seeing a GPU (None otherwise)."""
    try:
        import torch
        torch = torch if torch.cuda.is_available() else None
    except ImportError:
        torch = None
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU's memory
    try:
        import jax
        jax.config.update("jax_default_matmul_precision", "highest")
        jax = jax if jax.devices("gpu") else None
    except Exception:  # not installed, or no GPU backend
        jax = None
    return torch, jax


def _contenders(cupy, torch, jax, work):
    """name -> a call of that version on its own device inputs, synchronised, returning its
    result (torch and JAX only when there)."""
    sync = cupy.cuda.Device().synchronize
    args = to_module(work.inputs, cupy)
    eager, jitted = work.transform, ft.jit(work.transform)
    calls = {"hand": lambda: _synced(work.hand(cupy, *args), sync),
             "eager": lambda: _synced(eager(*args), sync),
             "jit": lambda: _synced(jitted(*args), sync)}
    if torch is not None:
        t_fn = work.torch_build(torch)
        t_args = ft.tree.map(lambda a: torch.as_tensor(a, device="cuda"), work.inputs)
        calls["torch"] = lambda: _synced(t_fn(*t_args), torch.cuda.synchronize)
    if jax is not None:
        j_fn = jax.jit(work.jax_build(jax))
        j_args = jax.device_put(_int32_labels(work.inputs), jax.devices("gpu")[0])
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
           ("torch", "torch.func (CUDA)"), ("jax", "JAX jit (GPU)")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rows", nargs="*")
    args = parser.parse_args()
    missing = gpu_missing()
    if missing:
        print(missing)
        return
    import cupy
    torch, jax = _peers()
    name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
    bandwidth = copy_bandwidth(cupy, args.repeats)
    cupy.get_default_memory_pool().free_all_blocks()
    versions = [f"CuPy {cupy.__version__}"] + [f"{m.__name__} {m.__version__}"
                                               for m in (torch, jax) if m is not None]
    name = name.decode() if isinstance(name, bytes) else name
    print(f"{name}, {', '.join(versions)}; device copy "
          f"{bandwidth / 1e9:.0f} GB/s; float32, medians of {args.repeats} rounds, ms")
    print("| workload | " + " | ".join(title for _, title in COLUMNS) + " | write floor |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    notes = []
    for key, work in workloads(np.random.default_rng(0)).items():
        if not args.rows or key in args.rows:
            line, row_notes = table_row(cupy, torch, jax, work, args.repeats, bandwidth)
            print(line, flush=True)
            notes += [f"{key}: {note}" for note in row_notes]
    for note in notes:
        print(note)


def table_row(cupy, torch, jax, work, repeats, bandwidth):
    """One line of the table, and notes on the contenders left out (a wrong result, an error)."""
    calls = _contenders(cupy, torch, jax, work)
    want, notes = calls["hand"](), []
    for name in [n for n in calls if n != "hand"]:
        try:
            err = _max_rel_error(cupy, calls[name](), want)
        except Exception as exc:  # report it and time the others
            notes.append(f"{name} raised {type(exc).__name__}: {exc}")
            del calls[name]
            continue
        if not err <= 2e-3:
            notes.append(f"{name} differs from hand-written CuPy (max relative error "
                         f"{err:.1e}); not timed")
            del calls[name]
    del want
    times = dict(zip(calls, timed(list(calls.values()), repeats)))
    del calls
    cells = [_ms(times[name]) if name in times else "-" for name, _ in COLUMNS]
    if work.hand is hand_hessian:
        cells[0] += " (analytic)"
    floor = "-" if work.floor_bytes is None else _ms(work.floor_bytes / bandwidth)
    cupy.get_default_memory_pool().free_all_blocks()
    if torch is not None:
        torch.cuda.empty_cache()
    return f"| {work.title} | " + " | ".join(cells) + f" | {floor} |", notes


def _ms(seconds):
    return f"{seconds * 1e3:.2f}"


if __name__ == "__main__":
    sys.exit(main())
