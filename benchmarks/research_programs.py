"""Research programs on small arrays: eager functorch_lite, ft.jit on NumPy, ft.jit on XLA,
JAX's own jax.jit and torch.func eager of the same program, side by side in one process on one
thread (float64).

Rows (each program written once against a namespace of transforms `T` and an array module `xp`,
so functorch_lite, JAX and torch.func run the same code):
  pinn     the Laplacian of an MLP u: R^2 -> R (2-64-64-1, tanh) at 256 points: vmap(trace(hessian))
  node     value_and_grad of an RK4 neural ODE (20 x 50 states, 50-64-50 tanh field, 10 steps,
           each under checkpoint) against a target
  hyper    the hypergradient of a validation loss through 20 unrolled SGD steps of ridge
           regression (200 x 20 data) with respect to the log of the ridge penalty
  hmc      one HMC transition (10 leapfrog steps, Metropolis accept) of 32 chains, vmapped, on a
           Bayesian logistic regression posterior (200 x 10 data)
  ssm      value_and_grad of the sliced score-matching loss of an MLP score (8-64-8, tanh) over 256
           points with one projection each (v . J v by jvp)
  deq      the gradient of a loss through a deep-equilibrium layer z = tanh(z W + x U) (16 x 32
           states): a custom_vjp whose forward iterates to the fixed point in a while_loop and
           whose backward solves the implicit adjoint by another (no torch column: torch.func has
           neither)
  node-scan, hyper-loop, hmc-loop   node, hyper and hmc with their steps in lax loops (a scan of
           the checkpointed RK4 step, fori_loops of the SGD and leapfrog steps), as JAX users
           write them: one loop to trace and compile whatever the trip count (node-scan100:
           100 steps); torch runs them as Python loops

Each row prints the milliseconds per call of every column: the process's CPU time (all its
threads; one is busy), the best of `--repeats` rounds of interleaved batches (each of at least
10 calls and 5 ms, 3 calls for the eager columns: a batch of a few 0.1 ms calls would measure
the caches the previous column left as much as the program), since on a shared machine
wall-clock time measures the other tenants as much as the program; the ratios ft.jit(xla) / JAX
and ft.jit(numpy) / JAX, `shuf` the median wall time of single calls of xla-jax over that of
jax.jit, the two called in random order (_shuffled_ratio; JAX's best batch on these 0.1 ms
programs can be half its typical one), the first-call (trace +
compile) seconds of ft.jit on XLA and of jax.jit, and the largest difference of ft.jit(xla) from
ft.jit(numpy) relative to the result's scale. JAX runs with 64-bit types enabled (the programs
are float64), twice: on arguments it already holds, returning its own arrays (jax.jit, its best
case), and with NumPy arrays in and out (jax-np). ft.jit on XLA runs both ways too: on NumPy
arrays (jit-xla) and on the JAX arrays jax.jit holds, returning JAX arrays (xla-jax); xla/jax is
xla-jax / jax.jit, xla/jnp is jit-xla / jax-np (each the same arrays in and out as its
reference). torch.func runs eagerly on tensors it already holds (torch.set_num_threads(1));
`torch vs np` is its largest difference from ft.jit(numpy), relative as above. torch.func
refuses torch.utils.checkpoint (saved-tensor hooks), so its neural ODE runs without
checkpointing (same result, less work). A column whose library is not installed is left out with
a note.

    PYTHONPATH=. python benchmarks/research_programs.py [--repeats 15] [--rows pinn node]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import optree  # noqa: E402

import functorch_lite as ft  # noqa: E402
import functorch_lite.numpy as fnp  # noqa: E402


class FT:
    """functorch_lite's transforms under JAX's names."""
    vmap = staticmethod(lambda f, in_axes=0: ft.vmap(f, in_dims=in_axes))
    grad, value_and_grad, hessian, jvp = ft.grad, ft.value_and_grad, ft.hessian, ft.jvp
    checkpoint = staticmethod(ft.checkpoint)
    scan, fori_loop = staticmethod(ft.scan), staticmethod(ft.fori_loop)
    while_loop, custom_vjp = staticmethod(ft.while_loop), staticmethod(ft.custom_vjp)


def _python_scan(f, init, xs, length=None):
    """lax.scan as a Python loop (torch has no loop primitives): no ys, xs None."""
    carry = init
    for _ in range(length):
        carry, _ = f(carry, None)
    return carry, None


def _python_fori_loop(lower, upper, body, init):
    val = init
    for i in range(lower, upper):
        val = body(i, val)
    return val


def _jax():
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def mlp(xp, params, x):
    *hidden, (w, b) = params
    for wh, bh in hidden:
        x = xp.tanh(x @ wh + bh)
    return x @ w + b


def _layers(rng, sizes):
    return [(rng.standard_normal((m, n)) / np.sqrt(m), 0.1 * rng.standard_normal(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def pinn(T, xp, rng):
    def u(params, x):
        return mlp(xp, params, x)[0]

    def laplacian(params, xs):
        return T.vmap(lambda x: xp.trace(T.hessian(lambda y: u(params, y))(x)))(xs)
    return laplacian, (_layers(rng, [2, 64, 64, 1]), rng.uniform(-1, 1, (256, 2)))


def node(T, xp, rng, steps=10, h=0.1):
    def field(params, z):
        (w1, b1), (w2, _) = params
        return xp.tanh(z @ w1 + b1) @ w2

    def rk4(params, z):
        k1 = field(params, z)
        k2 = field(params, z + h / 2 * k1)
        k3 = field(params, z + h / 2 * k2)
        k4 = field(params, z + h * k3)
        return z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def loss(params, z0, target):
        z = z0
        for _ in range(steps):
            z = T.checkpoint(rk4)(params, z)
        return xp.sum((z - target) ** 2)

    def value_and_grad(params, z0, target):
        return T.value_and_grad(loss)(params, z0, target)
    value_and_grad.field = field
    return value_and_grad, (_layers(rng, [50, 64, 50]), rng.standard_normal((20, 50)),
                            rng.standard_normal((20, 50)))


def hyper(T, xp, rng, steps=20, lr=0.05):
    def train_loss(w, log_lam, x, y):
        return xp.mean((x @ w - y) ** 2) + xp.exp(log_lam) * xp.sum(w ** 2)

    def val_loss(log_lam, w0, x, y, xv, yv):
        w = w0
        for _ in range(steps):
            w = w - lr * T.grad(train_loss)(w, log_lam, x, y)
        return xp.mean((xv @ w - yv) ** 2)

    w_true = rng.standard_normal(20)
    x, xv = rng.standard_normal((200, 20)), rng.standard_normal((200, 20))
    hypergradient = T.grad(val_loss)
    hypergradient.train_loss = train_loss
    return (hypergradient, (np.array(-2.0), np.zeros(20), x,
                            x @ w_true + 0.3 * rng.standard_normal(200), xv, xv @ w_true))


def hmc(T, xp, rng, leapfrogs=10, eps=0.05):
    data_x = rng.standard_normal((200, 10))
    labels = (data_x @ rng.standard_normal(10) + 0.5 * rng.standard_normal(200) > 0) * 1.0

    def log_density(q, x, t):
        logits = x @ q
        return xp.sum(t * logits - xp.logaddexp(0.0, logits)) - 0.5 * xp.sum(q ** 2)

    def transition(q, p, u, x, t):
        grad = T.grad(log_density)
        q1, p1 = q, p + 0.5 * eps * grad(q, x, t)
        for k in range(leapfrogs):
            q1 = q1 + eps * p1
            p1 = p1 + (eps if k < leapfrogs - 1 else 0.5 * eps) * grad(q1, x, t)
        h0 = -log_density(q, x, t) + 0.5 * xp.sum(p ** 2)
        h1 = -log_density(q1, x, t) + 0.5 * xp.sum(p1 ** 2)
        accept = xp.log(u) < h0 - h1
        return xp.where(accept, q1, q)

    chains = 32
    step = T.vmap(transition, in_axes=(0, 0, 0, None, None))
    step.log_density = log_density
    return (step,
            (0.1 * rng.standard_normal((chains, 10)), rng.standard_normal((chains, 10)),
             rng.uniform(size=chains), data_x, labels))


def node_scan(T, xp, rng, steps=10, h=0.1):
    """node with its steps in a scan of the checkpointed RK4 step (one loop to compile)."""
    loss_fn, args = node(T, xp, rng, steps, h)
    field = loss_fn.field

    def rk4(params, z):
        k1 = field(params, z)
        k2 = field(params, z + h / 2 * k1)
        k3 = field(params, z + h / 2 * k2)
        k4 = field(params, z + h * k3)
        return z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    def loss(params, z0, target):
        step = T.checkpoint(lambda z, _: (rk4(params, z), None))
        z, _ = T.scan(step, z0, None, length=steps)
        return xp.sum((z - target) ** 2)
    return (lambda params, z0, target: T.value_and_grad(loss)(params, z0, target)), args


def hyper_loop(T, xp, rng, steps=20, lr=0.05):
    """hyper with the SGD steps in a fori_loop."""
    fn, args = hyper(T, xp, rng, steps, lr)
    train_loss = fn.train_loss

    def val_loss(log_lam, w0, x, y, xv, yv):
        w = T.fori_loop(0, steps, lambda i, w: w - lr * T.grad(train_loss)(w, log_lam, x, y), w0)
        return xp.mean((xv @ w - yv) ** 2)
    return T.grad(val_loss), args


def hmc_loop(T, xp, rng, leapfrogs=10, eps=0.05):
    """hmc with the leapfrog steps in a fori_loop."""
    fn, args = hmc(T, xp, rng, leapfrogs, eps)
    log_density = fn.log_density

    def transition(q, p, u, x, t):
        grad = T.grad(log_density)

        def leapfrog(k, qp):
            q1, p1 = qp
            q1 = q1 + eps * p1
            return q1, p1 + eps * grad(q1, x, t)
        q1, p1 = T.fori_loop(0, leapfrogs - 1, leapfrog, (q, p + 0.5 * eps * grad(q, x, t)))
        q1 = q1 + eps * p1
        p1 = p1 + 0.5 * eps * grad(q1, x, t)
        h0 = -log_density(q, x, t) + 0.5 * xp.sum(p ** 2)
        h1 = -log_density(q1, x, t) + 0.5 * xp.sum(p1 ** 2)
        return xp.where(xp.log(u) < h0 - h1, q1, q)
    return T.vmap(transition, in_axes=(0, 0, 0, None, None)), args


def ssm(T, xp, rng):
    def loss(params, xs, vs):
        def one(x, v):
            s, jv = T.jvp(lambda y: mlp(xp, params, y), (x,), (v,))
            return xp.sum(v * jv) + 0.5 * xp.sum(v * s) ** 2
        return xp.mean(T.vmap(one)(xs, vs))
    return (T.value_and_grad(loss),
            (_layers(rng, [8, 64, 8]), rng.standard_normal((256, 8)),
             rng.standard_normal((256, 8))))


def deq(T, xp, rng, width=32, batch=16, features=8):
    def fixed_point(f, z0):
        def cond(c):
            z_prev, z, k = c
            return (xp.max(xp.abs(z - z_prev)) > 1e-10) & (k < 200)

        def body(c):
            _, z, k = c
            return z, f(z), k + 1
        return T.while_loop(cond, body, (z0, f(z0), 0))[1]

    @T.custom_vjp
    def layer(w, ux):
        return fixed_point(lambda z: xp.tanh(z @ w + ux), xp.zeros_like(ux))

    def layer_fwd(w, ux):
        z = layer(w, ux)
        return z, (w, z)

    def layer_bwd(res, g):   # the adjoint u = g + (u * (1 - z^2)) W^T, by iteration
        w, z = res
        slope = 1 - z ** 2
        v = fixed_point(lambda u: (u * slope) @ w.T + g, g) * slope
        return z.T @ v, v
    layer.defvjp(layer_fwd, layer_bwd)

    def loss(w, u, x):
        return xp.sum(layer(w, x @ u) ** 2)
    return (T.grad(loss, argnums=(0, 1)),
            (rng.standard_normal((width, width)) * 0.3 / np.sqrt(width),
             rng.standard_normal((features, width)), rng.standard_normal((batch, features))))


class _TorchNumpy:
    """The array functions the programs call, as torch functions (xp for torch.func)."""

    def __getattr__(self, name):
        import torch
        return getattr(torch, name)

    @staticmethod
    def logaddexp(a, b):
        import torch
        a, b = (torch.as_tensor(v, dtype=torch.float64) for v in (a, b))
        return torch.logaddexp(a, b)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def _torch_row(torch, program):
    """The row's program under torch.func and its arguments as tensors, or (None, reason)."""
    from torch import func

    def grad_then_value(f):
        def vg(*args):
            g, v = func.grad_and_value(f)(*args)
            return v, g
        return vg

    class TT:
        vmap = staticmethod(lambda f, in_axes=0: func.vmap(f, in_dims=in_axes))
        grad, hessian = staticmethod(func.grad), staticmethod(func.hessian)
        jvp, value_and_grad = staticmethod(func.jvp), staticmethod(grad_then_value)
        checkpoint = staticmethod(lambda f: f)   # refused under torch.func (module docstring)
        scan, fori_loop = staticmethod(_python_scan), staticmethod(_python_fori_loop)
    fn, args = program(TT, _TorchNumpy(), np.random.default_rng(0))
    return fn, optree.tree_map(torch.as_tensor, args)


ROWS = {"pinn": pinn, "node": node, "hyper": hyper, "hmc": hmc, "ssm": ssm, "deq": deq,
        "node-scan": node_scan, "node-scan100": lambda T, xp, rng: node_scan(T, xp, rng, 100),
        "hyper-loop": hyper_loop, "hmc-loop": hmc_loop}


def _block(out):
    for leaf in optree.tree_leaves(out):
        getattr(leaf, "block_until_ready", lambda: None)()
    return out


def _first_call_s(fn, args):
    t0 = time.process_time()
    _block(fn(*args))
    return time.process_time() - t0


def _scale_diff(a, b):
    a, b = optree.tree_leaves(a), optree.tree_leaves(b)
    return max(float(np.max(np.abs(np.asarray(x) - np.asarray(y)), initial=0.0))
               / max(float(np.max(np.abs(np.asarray(y)), initial=0.0)), 1e-300)
               for x, y in zip(a, b))


def run_row(name, repeats, jax, torch):
    program = ROWS[name]
    fn, args = program(FT, fnp, np.random.default_rng(0))
    columns = {"eager": fn}
    first = {}
    for backend in ("numpy", "xla"):
        jitted = ft.jit(fn, backend=backend)
        first[backend] = _first_call_s(jitted, args)
        columns[f"jit-{backend}"] = jitted
    held = {}   # the arguments of the columns that run on their own library's arrays
    if jax is not None:
        import jax.numpy as jnp

        class JX:
            vmap = staticmethod(jax.vmap)
            grad, value_and_grad, hessian = jax.grad, jax.value_and_grad, jax.hessian
            jvp, checkpoint = staticmethod(jax.jvp), staticmethod(jax.checkpoint)
            scan, fori_loop = staticmethod(jax.lax.scan), staticmethod(jax.lax.fori_loop)
            while_loop, custom_vjp = staticmethod(jax.lax.while_loop), jax.custom_vjp
        jfn, _ = program(JX, jnp, np.random.default_rng(0))
        jitted = jax.jit(jfn)
        held["jax.jit"] = jax.tree_util.tree_map(jnp.asarray, args)
        first["jax"] = _first_call_s(jitted, held["jax.jit"])
        columns["jax.jit"] = jitted
        columns["jax.jit-np"] = lambda *a, f=jitted: [np.asarray(o) for o in
                                                      jax.tree_util.tree_leaves(f(*a))]
        columns["jit-xla-jax"] = columns["jit-xla"]   # the same function, on JAX's arrays
        held["jit-xla-jax"] = held["jax.jit"]
        _block(columns["jit-xla-jax"](*held["jit-xla-jax"]))   # its own (second) compile
    if torch is not None and name != "deq":   # torch.func has no while_loop nor custom_vjp
        columns["torch"], held["torch"] = _torch_row(torch, program)
    times = {k: [] for k in columns}
    calls, once = {}, {}
    for k, f in columns.items():   # calls per batch: at least 10 and 5 ms (eager ones 3)
        a = held.get(k, args)
        t0 = time.process_time()
        _block(f(*a))
        once[k] = max(time.process_time() - t0, 1e-6)
        calls[k] = 3 if k in ("eager", "torch") else max(10, int(0.005 / once[k]) + 1)
    for _ in range(repeats):
        for k, f in columns.items():
            a = held.get(k, args)
            n = calls[k]
            gc.collect()
            gc.disable()   # as timeit: a collection the eager column provoked lands elsewhere
            t0 = time.process_time()
            for _ in range(n):
                _block(f(*a))
            times[k].append((time.process_time() - t0) / n * 1e3)
            gc.enable()
    ms = {k: float(np.min(v)) for k, v in times.items()}
    if "jax.jit" in times:
        ms["shuffled xla/jax"] = _shuffled_ratio(columns, held, "jit-xla-jax", "jax.jit",
                                                 min(1000, max(50, int(2.0 / once["jax.jit"]))))
    reference = columns["jit-numpy"](*args)
    diff = {"xla": _scale_diff(columns["jit-xla"](*args), reference)}
    if "jit-xla-jax" in columns:
        diff["xla"] = max(diff["xla"], _scale_diff(
            columns["jit-xla-jax"](*held["jit-xla-jax"]), reference))
    if "torch" in columns:
        out = optree.tree_map(lambda t: t.detach().numpy(), columns["torch"](*held["torch"]))
        diff["torch"] = _scale_diff(out, reference)
    return ms, first, diff


def _shuffled_ratio(columns, held, ours, theirs, calls):
    """The median wall time of single calls of `ours` over that of `theirs`, each round calling
    the two in random order. At 0.1 ms a call's time depends on what ran just before it, which
    batches and a fixed order turn into a bias for one side (and a best round rewards the side
    with the luckier streak)."""
    rng = np.random.default_rng(1)
    spent = {ours: [], theirs: []}
    for _ in range(calls):
        for k in rng.permutation([ours, theirs]):
            t0 = time.perf_counter()
            _block(columns[k](*held[k]))
            spent[k].append(time.perf_counter() - t0)
    return float(np.median(spent[ours]) / np.median(spent[theirs]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--rows", nargs="*", default=list(ROWS))
    args = parser.parse_args()
    jax, torch = _jax(), _torch()
    for library, module in (("JAX", jax), ("torch", torch)):
        if module is None:
            print(f"({library} is not installed: its columns are left out)")
    head = (f"{'row':12} {'eager':>8} {'jit-np':>8} {'jit-xla':>8} {'xla-jax':>8} {'jax.jit':>8}"
            f" {'jax-np':>8} {'torch':>8}   {'xla/jax':>7} {'xla/jnp':>7} {'np/jax':>7}"
            f" {'shuf':>5}   {'compile xla':>11} {'jax':>6} {'ratio':>6}   {'xla vs np':>9}"
            f" {'torch vs np':>11}")
    print("ms of CPU per call (best round), one thread, float64; compile = first call, "
          "seconds of CPU")
    print(head)
    nan = float("nan")
    for name in args.rows:
        ms, first, diff = run_row(name, args.repeats, jax, torch)
        j, jn, t, xj = (ms.get(k, nan) for k in ("jax.jit", "jax.jit-np", "torch",
                                                 "jit-xla-jax"))
        fj = first.get("jax", nan)
        print(f"{name:12} {ms['eager']:8.3f} {ms['jit-numpy']:8.3f} {ms['jit-xla']:8.3f} "
              f"{xj:8.3f} {j:8.3f} {jn:8.3f} {t:8.3f}   {xj / j:7.2f} {ms['jit-xla'] / jn:7.2f} "
              f"{ms['jit-numpy'] / j:7.2f} {ms.get('shuffled xla/jax', nan):5.2f}   "
              f"{first['xla']:11.2f} {fj:6.2f} "
              f"{first['xla'] / fj:6.2f}   {diff['xla']:9.1e} {diff.get('torch', nan):11.1e}",
              flush=True)
    if torch is not None:
        print("torch: node runs without checkpoint (torch.func refuses torch.utils.checkpoint)")


if __name__ == "__main__":
    main()
