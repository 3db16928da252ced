"""Research-style programs on a device backend: each runs on NumPy inputs and on the same
values moved to the device (CuPy with a GPU, device_sim always), and the device run must give
device arrays equal to the NumPy run.

Where tests/test_device_ops.py checks one op under one transform, these check whole programs
as users write them (examples/, docs/, benchmarks/per_example_*.py): per-example gradients of
an MLP, a CNN and a transformer block, optimizer steps with clipping, Jacobians, Hessians,
custom rules, checkpointing, random draws from device keys, NumPy constants meeting device
data, and ft.jit serving NumPy and device inputs side by side.
"""
import numpy as np
import optree
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import nn, optim
from functorch_lite import random as fr
from functorch_lite.testing.checks import assert_close

RTOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-10}
ATOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}


def _to(xp, tree):
    return optree.tree_map(lambda x: xp.asarray(x) if isinstance(x, np.ndarray) else x, tree)


def _host(x):
    return x.get() if hasattr(x, "get") and hasattr(x, "shape") else x


def _check(dxp, got, want, what):
    """got (a device run) has want's structure, and device arrays equal to want's leaves."""
    got_leaves, got_spec = optree.tree_flatten(got)
    want_leaves, want_spec = optree.tree_flatten(want)
    assert got_spec == want_spec, f"{what}: structure {got_spec}, expected {want_spec}"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        if getattr(w, "dtype", None) == ft.float0:
            assert getattr(g, "dtype", None) == ft.float0, f"{what}[{i}]: {g!r}"
            continue
        assert not isinstance(g, (np.ndarray, np.generic, ft.Tensor)), \
            f"{what}[{i}]: a {type(g).__name__} came back where a {dxp.__name__} array belongs"
        assert_close(_host(g), w, rtol=lambda dt: RTOL.get(dt, 0.0),
                     atol=lambda dt: ATOL.get(dt, 0.0), path=f"{what}[{i}]")


def _compare(dxp, run, *args, what=None):
    """run(*args) on NumPy and on the device copies of args: the same result."""
    want = run(*args)
    got = run(*_to(dxp, list(args)))
    _check(dxp, got, want, what or getattr(run, "__name__", "program"))
    return got


def _rng():
    return np.random.default_rng(0)


# -- per-example gradients of an MLP, and an optimizer step -----------------------------------

def _mlp(rng, d_in=6, d_hid=5, classes=3, dtype=np.float32):
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(dtype)
    return {"w1": w(d_in, d_hid), "b1": np.zeros(d_hid, dtype), "w2": w(d_hid, classes),
            "b2": np.full(classes, 0.1, dtype)}


def _mlp_loss(p, x, y):
    h = fnp.tanh(x @ p["w1"] + p["b1"])
    return nn.cross_entropy(h @ p["w2"] + p["b2"], y)


def _mlp_batch(rng, b=4, d_in=6, classes=3, dtype=np.float32):
    return rng.standard_normal((b, d_in)).astype(dtype), rng.integers(0, classes, b)


per_example = ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0))
per_example_jit = ft.jit(per_example)


@pytest.mark.parametrize("run", [per_example, per_example_jit], ids=["eager", "jit"])
def test_mlp_per_example_grads(run, dxp):
    rng = _rng()
    _compare(dxp, run, _mlp(rng), *_mlp_batch(rng), what="per-example grads")


@pytest.mark.parametrize("make", [lambda: optim.adam(1e-2), lambda: optim.sgd(0.1, momentum=0.9)],
                         ids=["adam", "sgd"])
def test_mlp_optimizer_step(make, dxp):
    opt = make()

    def step(params, x, y):
        state = opt.init(params)
        for _ in range(2):
            grads = optim.clip_per_example(per_example(params, x, y), 1.0)
            grads = optim.clip_by_global_norm(ft.tree.map(lambda g: g.sum(0), grads), 0.5)
            updates, state = opt.update(grads, state, params)
            params = optim.apply_updates(params, updates)
        return params, optim.global_norm(params)
    rng = _rng()
    _compare(dxp, step, _mlp(rng), *_mlp_batch(rng), what="optimizer step")


def test_mlp_float64_value_and_grad(dxp):
    rng = _rng()
    params, (x, y) = _mlp(rng, dtype=np.float64), _mlp_batch(rng, dtype=np.float64)
    run = ft.value_and_grad(lambda p, x, y: fnp.mean(ft.vmap(_mlp_loss, (None, 0, 0))(p, x, y)))
    _compare(dxp, run, params, x, y, what="value_and_grad")


# -- a small CNN ------------------------------------------------------------------------------

def _cnn_params(rng):
    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)
    return {"c1": he(4, 1, 3, 3), "b1": np.zeros(4, np.float32), "c2": he(4, 4, 3, 3),
            "b2": np.zeros(4, np.float32), "gn_w": np.ones(4, np.float32),
            "gn_b": np.zeros(4, np.float32), "bn_mean": rng.standard_normal(4).astype(np.float32),
            "bn_var": rng.uniform(0.5, 2.0, 4).astype(np.float32),
            "fc": he(16, 3), "fc_b": np.zeros(3, np.float32)}


def _cnn_loss(p, x, y):
    h = nn.relu(nn.conv2d(x[None], p["c1"], p["b1"], padding=1))          # (1, 4, 8, 8)
    h = nn.max_pool2d(h, 2)                                               # (1, 4, 4, 4)
    h = nn.conv2d(h, p["c2"], p["b2"], padding=1)
    h = nn.relu(nn.group_norm(h, 2, p["gn_w"], p["gn_b"]))
    h, _, _ = nn.batch_norm(h, p["bn_mean"], p["bn_var"], training=False)
    h = nn.avg_pool2d(h, 2)                                               # (1, 4, 2, 2)
    return nn.cross_entropy(nn.linear(fnp.reshape(h, (-1,)), p["fc"].T, p["fc_b"]), y)


def test_cnn_per_example_grads(dxp):
    rng = _rng()
    x, y = rng.standard_normal((3, 1, 8, 8)).astype(np.float32), rng.integers(0, 3, 3)
    _compare(dxp, ft.vmap(ft.grad(_cnn_loss), in_dims=(None, 0, 0)), _cnn_params(rng), x, y,
             what="cnn per-example grads")


# -- a transformer block with dropout ---------------------------------------------------------

L, D, H = 4, 8, 16


def _block_params(rng):
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)
    return {"ln_w": np.ones(D, np.float32), "ln_b": np.zeros(D, np.float32),
            "wq": w(D, D), "wk": w(D, D), "wv": w(D, D), "wo": w(D, D),
            "w1": w(H, D), "b1": np.zeros(H, np.float32), "w2": w(D, H),
            "b2": np.zeros(D, np.float32)}


def _block_loss(p, x, key):
    a = nn.layer_norm(x, D, p["ln_w"], p["ln_b"])
    q, k, v = nn.linear(a, p["wq"]), nn.linear(a, p["wk"]), nn.linear(a, p["wv"])
    h = x + nn.linear(nn.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
    m = nn.dropout(key, nn.gelu(nn.linear(h, p["w1"], p["b1"])), 0.25)
    return fnp.mean((h + nn.linear(m, p["w2"], p["b2"])) ** 2)


def test_transformer_block_per_example_grads(dxp):
    def run(p, xs):
        keys = fr.split(fr.key(0, like=xs), xs.shape[0])
        return ft.vmap(ft.grad(_block_loss), in_dims=(None, 0, 0))(p, xs, keys)
    rng = _rng()
    _compare(dxp, run, _block_params(rng), rng.standard_normal((3, L, D)).astype(np.float32),
             what="transformer per-example grads")


# -- Jacobians, Hessians, linearize, vjp over pytrees, ravel ----------------------------------

def _net(p, x):
    h = fnp.tanh(p["layers"][0]["w"] @ x + p["layers"][0]["b"])
    return fnp.sin(p["layers"][1]["w"] @ h) * p["scale"]


def _net_params(rng):
    return {"layers": [{"w": rng.standard_normal((4, 3)), "b": rng.standard_normal(4)},
                       {"w": rng.standard_normal((2, 4))}],
            "scale": np.array(1.5)}


@pytest.mark.parametrize("jac", [ft.jacrev, ft.jacfwd], ids=["jacrev", "jacfwd"])
def test_jacobians_of_pytree_params(jac, dxp):
    rng = _rng()
    _compare(dxp, jac(_net, argnums=(0, 1)), _net_params(rng), rng.standard_normal(3),
             what=jac.__name__)


def _scalar_net(p, x):
    return fnp.sum(_net(p, x) ** 2) + 0.5 * fnp.sum(x[1:] * x[:-1])


def test_hessian_and_hvp(dxp):
    def run(p, x, v):
        hess = ft.hessian(_scalar_net, argnums=1)(p, x)
        hvp = ft.jvp(lambda x: ft.grad(_scalar_net, argnums=1)(p, x), (x,), (v,))[1]
        hvp_params = ft.jvp(ft.grad(_scalar_net), (p, x), (p, v))[1]
        return hess, hvp, hess @ v, hvp_params
    rng = _rng()
    _compare(dxp, run, _net_params(rng), rng.standard_normal(3), rng.standard_normal(3),
             what="hessian and hvp")


def test_linearize_and_vjp_of_pytrees(dxp):
    def run(p, x, ct):
        out, jvp_fn = ft.linearize(_net, p, x)
        tangent = jvp_fn(ft.tree.map(lambda a: 0.5 * a, p), fnp.ones_like(x))
        out2, vjp_fn = ft.vjp(_net, p, x)
        return out, tangent, out2, vjp_fn(ct)
    rng = _rng()
    _compare(dxp, run, _net_params(rng), rng.standard_normal(3), rng.standard_normal(2),
             what="linearize and vjp")


def test_ravel_unravel_device_params(dxp):
    def run(p, x):
        flat, unravel = ft.tree.ravel(p)
        g = ft.grad(lambda v: _scalar_net(unravel(v), x))(flat)
        return flat, g, unravel(flat - 0.1 * g), unravel(g)
    rng = _rng()
    _compare(dxp, run, _net_params(rng), rng.standard_normal(3), what="ravel/unravel")


# -- custom rules and checkpointing -----------------------------------------------------------

@ft.custom_vjp
def clipped_square(x):
    return x ** 2


def _clipped_fwd(x):
    return x ** 2, x


def _clipped_bwd(x, ct):
    return (fnp.clip(2 * x * ct, -1.0, 1.0),)


clipped_square.defvjp(_clipped_fwd, _clipped_bwd)


@ft.custom_jvp
def softplus(x):
    return fnp.log1p(fnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1 + fnp.exp(-x))


def test_custom_rules_under_vmap_and_grad(dxp):
    def run(x):
        f = lambda v: fnp.sum(clipped_square(v) * softplus(v))  # noqa: E731
        return (ft.grad(f)(x[0]), ft.vmap(ft.grad(f))(x), ft.vmap(softplus)(x),
                ft.jvp(softplus, (x,), (fnp.ones_like(x),))[1],
                ft.vmap(ft.grad(lambda v: fnp.sum(softplus(v))))(x))
    _compare(dxp, run, _rng().standard_normal((3, 4)), what="custom rules")


def test_checkpointed_block_under_grad(dxp):
    block = ft.checkpoint(lambda w, h: fnp.tanh(h @ w) + h)

    def loss(ws, x):
        h = x
        for w in ws:
            h = block(w, h)
        return fnp.sum(h ** 2)
    rng = _rng()
    ws = [rng.standard_normal((3, 3)) for _ in range(3)]
    _compare(dxp, ft.grad(loss), ws, rng.standard_normal((2, 3)), what="checkpoint")
    _compare(dxp, ft.vmap(ft.grad(loss), in_dims=(None, 0)), ws, rng.standard_normal((2, 2, 3)),
             what="vmap(grad(checkpoint))")


# -- random draws from device keys: keys, bits and integer draws equal bit for bit (_check is
# exact for integer and bool dtypes); float draws to RTOL, as a GPU's log and cos may round the
# last bit differently

def test_random_draws_on_device_keys(dxp):
    def run(x, logits):
        k = fr.key(0, like=x)
        ks = fr.split(k, 6)
        return (fr.normal(ks[0], (3, 2), np.float32), fr.uniform(ks[1], (4,), minval=-1.0),
                fr.bernoulli(ks[2], 0.3, (5,)), fr.categorical(ks[3], logits),
                fr.permutation(ks[4], x), fr.permutation(ks[5], 6),
                fr.fold_in(k, 3), ft.vmap(lambda kk: fr.normal(kk, (2,)))(fr.split(k, 3)))
    rng = _rng()
    _compare(dxp, run, rng.standard_normal(5), rng.standard_normal((2, 4)), what="random draws")


# -- NumPy constants and Python lists meeting device data -------------------------------------

def test_numpy_scalars_index_arrays_and_lists(dxp):
    idx = np.array([0, 2])
    mask = np.array([True, False, True])

    def run(a, b):
        return (a * np.float64(2.0), np.float32(3.0) + a, a[idx], a[:, idx], a[mask],
                fnp.take(a, idx, axis=1), fnp.where(a > np.float64(0.0), a, np.float64(0.5)),
                fnp.clip(a, np.float64(-0.5), 0.5), fnp.maximum(a, 0.0),
                fnp.concatenate([a, b]), fnp.stack([a[0], b[0]]), a @ b.T,
                fnp.einsum("ij,kj->ik", a, b), fnp.sum(a, axis=np.int64(0)),
                fnp.reshape(a, [3, 3]), fnp.transpose(a, [1, 0]), fnp.pad(a, [(1, 0), (0, 1)]),
                fnp.tile(a, [1, 2]), fnp.power(a, np.int64(2)), a ** np.float32(2.0),
                fnp.linspace(0.0, 1.0, 3, like=a), fnp.zeros_like(a), fnp.full_like(a, 2.0),
                fnp.asarray([1.0, 2.0], like=a), fnp.mean(a, axis=(0, 1)))
    rng = _rng()
    _compare(dxp, run, rng.standard_normal((3, 3)), rng.standard_normal((3, 3)),
             what="numpy constants")


def test_grad_through_numpy_constants(dxp):
    idx = np.array([2, 0])

    def f(a):
        return fnp.sum(fnp.take(a, idx) * np.float64(3.0)) + fnp.sum(a[idx] ** np.int64(2)) \
            + fnp.sum(fnp.where(a > 0, a, np.float64(0.1) * a)) + fnp.trace(fnp.outer(a, a))
    _compare(dxp, lambda a: (ft.grad(f)(a), ft.vmap(ft.grad(f))(fnp.stack([a, 2 * a]))),
             _rng().standard_normal(3), what="grad with numpy constants")


# -- ft.jit on the device, and one jitted function for both backends --------------------------

def test_jit_of_transforms_on_device(dxp):
    rng = _rng()
    params, (x, y) = _mlp(rng), _mlp_batch(rng)
    hess = ft.jit(ft.hessian(_scalar_net, argnums=1))
    jac = ft.jit(ft.jacrev(_net))
    p, v = _net_params(rng), rng.standard_normal(3)
    _compare(dxp, ft.jit(ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0))), params, x, y,
             what="jit(vmap(grad))")
    _compare(dxp, hess, p, v, what="jit(hessian)")
    _compare(dxp, jac, p, v, what="jit(jacrev)")


def _check_host(got, want, what):
    """got (a NumPy run) has want's structure and NumPy arrays equal to want's leaves."""
    got_leaves, got_spec = optree.tree_flatten(got)
    want_leaves, want_spec = optree.tree_flatten(want)
    assert got_spec == want_spec, f"{what}: structure {got_spec}, expected {want_spec}"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        assert isinstance(g, (np.ndarray, np.generic)), f"{what}[{i}]: {type(g).__name__}"
        assert_close(g, w, rtol=lambda dt: RTOL.get(dt, 0.0), atol=lambda dt: ATOL.get(dt, 0.0),
                     path=f"{what}[{i}]")


def test_jit_alternating_numpy_and_device_inputs(dxp):
    traces = []

    def counted(p, x, y):
        traces.append(fnp.shape(x))
        return ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0))(p, x, y)
    run = ft.jit(counted)
    rng = _rng()
    for i in range(3):
        params, (x, y) = _mlp(rng), _mlp_batch(rng)
        want = per_example(params, x, y)
        on_device = run(*_to(dxp, [params, x, y]))
        on_host = run(params, x, y)
        _check(dxp, on_device, want, f"jit on device, round {i}")
        _check_host(on_host, want, f"jit on numpy, round {i}")
    assert len(traces) == 2, f"one trace per backend, got {len(traces)}"


# -- programs of the tutorials: MAML, the NTK, an ensemble with dropout -----------------------

def _sine_net(p, x):
    h = np.tanh(x @ p["W1"] + p["b1"])
    return h @ p["W2"] + p["b2"]


def _sine_params(rng):
    return {"W1": rng.standard_normal((1, 6)) * 0.5, "b1": np.zeros(6),
            "W2": rng.standard_normal((6, 1)) / np.sqrt(6), "b2": np.zeros(1)}


def test_maml_meta_gradient(dxp):
    def mse(p, x, y):
        return np.mean((_sine_net(p, x) - y) ** 2)

    def task_loss(p, xs, ys, xq, yq):
        g = ft.grad(mse)(p, xs, ys)
        return mse(ft.tree.map(lambda w, gw: w - 0.01 * gw, p, g), xq, yq)

    def meta_loss(p, *tasks):
        return np.mean(ft.vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(p, *tasks))
    rng = _rng()
    tasks = [rng.uniform(-3.0, 3.0, (2, 4, 1)) for _ in range(4)]
    _compare(dxp, ft.value_and_grad(meta_loss), _sine_params(rng), *tasks, what="maml")


def test_ntk_two_ways(dxp):
    def net(p, x):
        return _sine_net(p, x)[0]

    def run(p, xs):
        grads = ft.vmap(ft.grad(net), in_dims=(None, 0))(p, xs)
        jac = fnp.concatenate([fnp.reshape(g, (len(xs), -1)) for g in ft.tree.leaves(grads)],
                              axis=1)

        def outputs(p):
            return ft.vmap(net, in_dims=(None, 0))(p, xs)
        _, pullback = ft.vjp(outputs, p)

        def column(e):
            (direction,) = pullback(e)
            return ft.jvp(outputs, (p,), (direction,))[1]
        return jac @ jac.T, ft.vmap(column)(fnp.eye(len(xs), like=xs))
    rng = _rng()
    _compare(dxp, run, _sine_params(rng), np.linspace(-2.0, 2.0, 5)[:, None], what="ntk")


def test_ensemble_with_dropout(dxp):
    def init_member(key, x):
        k1, k2 = fr.split(key)
        return {"w1": fr.normal(k1, (8, x.shape[-1]), np.float32) / np.sqrt(x.shape[-1]),
                "b1": fnp.zeros(8, np.float32, like=x),
                "w2": fr.normal(k2, (3, 8), np.float32) / np.sqrt(8),
                "b2": fnp.zeros(3, np.float32, like=x)}

    def forward(p, key, x, rate, deterministic):
        h = nn.relu(nn.linear(x, p["w1"], p["b1"]))
        h = nn.dropout(key, h, rate, deterministic=deterministic)
        return nn.linear(h, p["w2"], p["b2"])

    def loss(p, key, x, y, rate):
        return nn.cross_entropy(forward(p, key, x, rate, False), y)

    def run(x, y):
        keys = fr.split(fr.key(1, like=x), 4)
        params = ft.vmap(init_member, in_dims=(0, None))(keys, x)
        values, grads = ft.vmap(ft.value_and_grad(loss), in_dims=(0, 0, None, None, None))(
            params, fr.split(keys[0], 4), x, y, 0.3)
        opt = optim.adamw(1e-2)
        updates, _ = opt.update(grads, opt.init(params), params)
        params = optim.apply_updates(params, updates)
        logits = ft.vmap(forward, in_dims=(0, None, None, None, None))(params, keys[1], x,
                                                                       0.3, True)
        return values, params, fnp.argmax(nn.softmax(logits).mean(0), -1)
    rng = _rng()
    _compare(dxp, run, rng.standard_normal((5, 6)).astype(np.float32), rng.integers(0, 3, 5),
             what="ensemble")


# -- a transformer with embeddings, and host labels and tokens on device parameters -----------

def _lm_params(rng, vocab=7):
    p = _block_params(rng)
    p["tok"] = (rng.standard_normal((vocab, D)) / np.sqrt(D)).astype(np.float32)
    p["pos"] = (rng.standard_normal((L, D)) / np.sqrt(D)).astype(np.float32)
    return p


def _lm_loss(p, tokens):
    h = nn.embedding(tokens, p["tok"]) + p["pos"]
    a = nn.layer_norm(h, D, p["ln_w"], p["ln_b"])
    q, k, v = nn.linear(a, p["wq"]), nn.linear(a, p["wk"]), nn.linear(a, p["wv"])
    h = h + nn.linear(nn.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                      scale=np.float32(1 / np.sqrt(D))), p["wo"])
    return nn.cross_entropy(nn.linear(h, p["tok"]), tokens, reduction="sum") / np.float32(L)


def test_language_model_per_example_grads(dxp):
    rng = _rng()
    tokens = rng.integers(0, 7, (3, L))
    run = ft.vmap(ft.grad(_lm_loss), in_dims=(None, 0))
    _compare(dxp, run, _lm_params(rng), tokens, what="lm per-example grads")
    _compare(dxp, lambda p: run(p, tokens), _lm_params(rng), what="lm with numpy tokens")


def test_numpy_labels_and_conditions_on_device_data(dxp):
    rng = _rng()
    x, y = _mlp_batch(rng)
    _compare(dxp, lambda p, x: per_example(p, x, y), _mlp(rng), x, what="numpy labels")
    _compare(dxp, lambda p, x: ft.grad(_mlp_loss)(p, x[0], y[0]), _mlp(rng), x,
             what="a numpy scalar label")
    _compare(dxp, lambda p, x: ft.grad(_mlp_loss)(p, x[0], int(y[0])), _mlp(rng), x,
             what="a python label")
    mask = x > 0

    def masked(x):
        return (fnp.where(mask, x, -x), fnp.select([mask, ~mask], [x, 2 * x]),
                fnp.piecewise(x, [mask], [lambda v: v ** 2, lambda v: -v]))
    _compare(dxp, ft.vmap(lambda m, x: fnp.where(m, x, 0.0)), mask, x, what="batched mask")
    _compare(dxp, lambda x: ft.vmap(lambda m, x: fnp.where(m, x ** 2, 0.0))(mask, x), x,
             what="batched numpy mask")
    _compare(dxp, lambda x: ft.vmap(lambda m, x: fnp.select([m], [x], 1.0))(mask, x), x,
             what="batched numpy select")
    _compare(dxp, masked, x, what="numpy masks")
    _compare(dxp, ft.grad(lambda x: sum(fnp.sum(o) for o in masked(x))), x,
             what="grad through numpy masks")
    _compare(dxp, lambda p, x: ft.grad(lambda p: fnp.mean(
        ft.vmap(_mlp_loss, in_dims=(None, 0, 0))(p, x, y)))(p), _mlp(rng), x,
        what="grad with numpy labels")


# -- second order over parameters, jacobian options, vmap dims --------------------------------

def test_hessian_over_param_pytree(dxp):
    rng = _rng()
    params, (x, y) = _mlp(rng, 3, 2, 2, np.float64), _mlp_batch(rng, 2, 3, 2, np.float64)

    def run(p, x, y):
        def loss(p):
            return fnp.mean(ft.vmap(_mlp_loss, (None, 0, 0))(p, x, y))
        return ft.hessian(loss)(p), ft.jacrev(ft.grad(loss))(p)
    _compare(dxp, run, params, x, y, what="hessian over params")


@pytest.mark.parametrize("scale", [np.float64(1.5), 1.5], ids=["numpy", "python"])
def test_scalar_parameter_among_device_parameters(scale, dxp):
    def loss(p, x):
        return fnp.sum(fnp.tanh(p["w"] @ x) * p["scale"]) + p["scale"] ** 2

    def run(w, x):
        p = {"w": w, "scale": scale}
        return (ft.grad(loss)(p, x), ft.jacrev(loss)(p, x), ft.jacfwd(loss)(p, x),
                ft.hessian(loss)(p, x))
    rng = _rng()
    _compare(dxp, run, rng.standard_normal((2, 3)), rng.standard_normal(3),
             what="scalar parameter")


def test_python_float_against_device_data(dxp):
    def run(x):
        f = lambda s: fnp.sum(fnp.sin(s * x))  # noqa: E731
        return (ft.grad(f)(2.0), ft.grad(ft.grad(f))(2.0), ft.jvp(f, (2.0,), (1.0,)),
                ft.vjp(lambda s: fnp.sin(s * x), 2.0)[1](x), ft.jacrev(lambda s: s * x)(2.0),
                ft.value_and_grad(f)(np.float32(2.0)))
    _compare(dxp, run, _rng().standard_normal(3), what="python float")


def test_jacobian_options(dxp):
    def f(x, w):
        y = fnp.tanh(w @ x)
        return {"y": y, "s": fnp.sum(y ** 2)}, fnp.max(y)

    def run(x, w):
        return (ft.jacrev(f, argnums=(0, 1), has_aux=True, chunk_size=2)(x, w),
                ft.jacfwd(f, has_aux=True)(x, w))
    rng = _rng()
    _compare(dxp, run, rng.standard_normal(3), rng.standard_normal((4, 3)), what="jacobians")


def test_vmap_dims_and_nesting(dxp):
    def f(p, x):
        return {"out": p["w"] @ x + p["b"], "norm": fnp.linalg.norm(x)}

    def run(p, xs):
        moved = fnp.moveaxis(xs, 0, -1)
        a = ft.vmap(f, in_dims=({"w": None, "b": 0}, -1), out_dims={"out": 1, "norm": 0})(
            {"w": p["w"], "b": fnp.stack([p["b"]] * 5)}, moved)
        b = ft.vmap(ft.vmap(f, in_dims=(None, 0)), in_dims=(None, 0))(p, xs.reshape(5, 1, 3))
        c = ft.vmap(f, in_dims=(None, 0), chunk_size=2)(p, xs)
        return a, b, c
    rng = _rng()
    _compare(dxp, run, {"w": rng.standard_normal((2, 3)), "b": rng.standard_normal(2)},
             rng.standard_normal((5, 3)), what="vmap dims")


# -- linear algebra, special functions and FFTs in a program ----------------------------------

def test_gaussian_process_marginal_likelihood(dxp):
    def nll(log_ell, log_noise, x, y):
        d = x[:, None] - x[None, :]
        k = fnp.exp(-0.5 * d ** 2 / fnp.exp(2 * log_ell)) \
            + fnp.exp(2 * log_noise) * fnp.eye(len(x), like=x)
        chol = fnp.linalg.cholesky(k)
        alpha = ft.scipy.linalg.cho_solve((chol, True), y)
        sign, logdet = fnp.linalg.slogdet(k)
        return 0.5 * y @ alpha + 0.5 * logdet + fnp.sum(fnp.log(fnp.diagonal(chol))) * 0.0

    rng = _rng()
    x = np.sort(rng.uniform(-2, 2, 6))
    _compare(dxp, ft.value_and_grad(nll, argnums=(0, 1)), np.array(0.1), np.array(-1.0), x,
             np.sin(x), what="gp nll")
    _compare(dxp, lambda a, b, x, y: ft.hessian(nll, argnums=(0, 1))(a, b, x, y),
             np.array(0.1), np.array(-1.0), x, np.sin(x), what="gp hessian")


def test_special_functions_and_fft_losses(dxp):
    sp = ft.scipy.special

    def loss(w, x):
        z = x @ w
        spec = fnp.abs(fnp.fft.rfft(z, axis=0)) ** 2
        return (fnp.sum(sp.logsumexp(z, axis=-1)) + fnp.sum(sp.erf(z)) + fnp.sum(spec)
                + fnp.sum(sp.xlogy(sp.expit(z), sp.expit(z))) + ft.scipy.stats.norm.logpdf(z).sum())
    rng = _rng()
    _compare(dxp, lambda w, x: (ft.grad(loss)(w, x), ft.vmap(ft.grad(loss), (None, 0))(
        w, fnp.stack([x, -x]))), rng.standard_normal((3, 2)), rng.standard_normal((4, 3)),
        what="special and fft")


# -- more random draws, a jitted training step ------------------------------------------------

def test_more_random_draws(dxp):
    def run(x, p):
        ks = fr.split(fr.key(7, like=x), 5)
        return (fr.truncated_normal(ks[0], -1.0, 1.0, (4,)), fr.randint(ks[1], (3,), 0, 10),
                fr.gumbel(ks[2], (2, 2), np.float32), fr.choice(ks[3], 5, (3,), p=p),
                fr.choice(ks[4], x, (2,), replace=False), fr.bits(ks[0], (3,), np.uint8),
                fr.normal(ks[1], (2,)) * x[:2] + x[2:4])
    rng = _rng()
    p = rng.uniform(size=5)
    _compare(dxp, run, rng.standard_normal(5), p / p.sum(), what="more random draws")


@pytest.mark.parametrize("make", [lambda: optim.adam(1e-2),
                                  lambda: optim.sgd(0.1, momentum=0.9, nesterov=True),
                                  lambda: optim.adamw(1e-2, weight_decay=0.1)],
                         ids=["adam", "sgd", "adamw"])
def test_jitted_training_step(make, dxp):
    opt = make()

    @ft.jit
    def step(params, state, x, y):
        loss, grads = ft.value_and_grad(
            lambda p: fnp.mean(ft.vmap(_mlp_loss, (None, 0, 0))(p, x, y)))(params)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, loss

    def run(params, x, y):
        state = opt.init(params)
        losses = []
        for _ in range(3):
            params, state, loss = step(params, state, x, y)
            losses.append(loss)
        return params, state, losses
    rng = _rng()
    _compare(dxp, run, _mlp(rng), *_mlp_batch(rng), what="jitted training step")


# -- more layers, Python lists, jit with Python scalars and static arguments ------------------

def test_more_layers_under_vmap_grad(dxp):
    def loss(p, x, y):
        h = nn.conv1d(x, p["k1"], padding=1, stride=1)                        # (4, 6)
        h = nn.silu(nn.max_pool1d(h, 2)) + nn.avg_pool1d(h, 2)                # (4, 3)
        h = nn.conv_transpose1d(h[None], p["kt"], stride=2)[0]                # (2, 7)
        h = nn.softplus(nn.linear(fnp.reshape(h, (-1,)), p["w"]))             # (3,)
        logp = nn.log_softmax(h)
        target = nn.one_hot(y, 3, dtype=h.dtype)
        return (-fnp.sum(target * logp) + nn.mse_loss(nn.softmax(h), target)
                + nn.logsumexp(nn.sigmoid(h)) + fnp.sum(nn.gelu(h, approximate=False)))
    rng = _rng()
    p = {"k1": rng.standard_normal((4, 2, 3)), "kt": rng.standard_normal((4, 2, 3)),
         "w": rng.standard_normal((3, 14))}
    x, y = rng.standard_normal((3, 2, 6)), rng.integers(0, 3, 3)
    _compare(dxp, ft.vmap(ft.grad(loss), in_dims=(None, 0, 0)), p, x, y, what="more layers")


def test_python_lists_on_device_data(dxp):
    def run(a):
        return (a[[0, 1]], a[:, [1, 0]], fnp.take(a, [1, 0], axis=0),
                fnp.moveaxis(a, [0, 1], [1, 0]), fnp.sum(a, axis=(0,), keepdims=True),
                fnp.array([a[0, 0], a[1, 1], 2.0]), fnp.stack([a[0], a[1]], axis=1),
                fnp.concatenate([a, a], axis=-1), fnp.split(a, [1], axis=0),
                fnp.broadcast_to(a[0], [2, 3]), fnp.expand_dims(a, [0, 2]),
                fnp.linalg.norm(a, axis=1), fnp.cumsum(a, axis=0), fnp.sort(a, axis=-1),
                fnp.argsort(a[0]), fnp.max(a, axis=0), fnp.var(a, ddof=1), fnp.std(a, axis=0),
                fnp.median(a), fnp.quantile(a, 0.25), fnp.where(a > 0)[0])

    def g(a):
        def f(a):
            b = a.at[[0, 1]].add(1.0).at[np.array([1])].set(np.float64(-1.0))
            return fnp.sum(b ** 2) + sum(fnp.sum(o) for o in ft.tree.leaves(run(a)[:-3]))
        return ft.grad(f)(a)
    rng = _rng()
    _compare(dxp, run, rng.standard_normal((2, 3)), what="python lists")
    _compare(dxp, g, rng.standard_normal((2, 3)), what="grad with python lists")


def test_jit_with_python_scalars_and_static_args(dxp):
    def step(p, x, y, lr, n_steps):
        for _ in range(n_steps):
            g = ft.grad(lambda p: fnp.mean(ft.vmap(_mlp_loss, (None, 0, 0))(p, x, y)))(p)
            p = ft.tree.map(lambda w, gw: w - lr * gw, p, g)
        return p
    jitted = ft.jit(step, static_argnums=4)
    rng = _rng()
    params, (x, y) = _mlp(rng), _mlp_batch(rng)
    for lr in (0.1, 0.2):
        _compare(dxp, lambda p, x, y: jitted(p, x, y, lr, 2), params, x, y, what="jit scalars")
    assert jitted.traces == 2


def test_jit_of_more_programs(dxp):
    def dropout_loss(p, x, key):
        return _block_loss(p, x, key)

    def programs(p, xs, x, w, v):
        keys = fr.split(fr.key(3, like=xs), xs.shape[0])
        out, jvp_fn = ft.linearize(lambda x: _scalar_net(w, x), x)
        return (ft.vmap(ft.grad(dropout_loss), in_dims=(None, 0, 0))(p, xs, keys),
                ft.jacfwd(_net, argnums=1)(w, x), out, jvp_fn(v),
                ft.grad(lambda v: fnp.sum(clipped_square(v) * softplus(v)))(v),
                ft.grad(lambda w: fnp.sum(ft.checkpoint(lambda w: fnp.tanh(w["layers"][0]["w"]
                                                                           @ x))(w) ** 2))(w),
                fr.normal(keys[0], (3,), np.float32), nn.dropout(keys[1], v, 0.5))
    rng = _rng()
    args = (_block_params(rng), rng.standard_normal((2, L, D)).astype(np.float32),
            rng.standard_normal(3), _net_params(rng), rng.standard_normal(3))
    jitted = ft.jit(programs)
    want = programs(*args)
    for _ in range(2):   # the tracing run, then the compiled program
        _check(dxp, jitted(*_to(dxp, list(args))), want, "jit of more programs")
        _check_host(jitted(*args), want, "jit of more programs on numpy")


def test_multi_head_attention_with_host_masks(dxp):
    heads = 2

    def attend(p, x, pad):
        q, k, v = (fnp.swapaxes(fnp.reshape(nn.linear(x, p[n]), (L, heads, D // heads)), 0, 1)
                   for n in ("wq", "wk", "wv"))
        keep = fnp.logical_and(pad[None, :], pad[:, None])     # (L, L), a NumPy bool mask
        o = nn.scaled_dot_product_attention(q, k, v, attn_mask=keep | np.eye(L, dtype=bool))
        o = fnp.reshape(fnp.swapaxes(o, 0, 1), (L, D))
        return fnp.sum(nn.linear(o, p["wo"]) ** 2)

    rng = _rng()
    pads = np.arange(L)[None, :] < np.array([[L], [L - 1], [2]])    # (3, L) keep masks
    xs = rng.standard_normal((3, L, D)).astype(np.float32)
    run = ft.vmap(ft.grad(attend), in_dims=(None, 0, 0))
    _compare(dxp, lambda p, xs: run(p, xs, pads), _block_params(rng), xs, what="host masks")
    _compare(dxp, lambda p, xs: ft.grad(attend)(p, xs[0], pads[1]), _block_params(rng), xs,
             what="host mask")


def test_host_selectors_and_scalars_under_jit(dxp):
    idx, rng = np.array([2, 0]), _rng()
    x, y = _mlp_batch(rng)
    mask = x[:, :3] > 0

    def f(p, xb, s):
        h = fnp.where(mask, xb[:, idx[0]:idx[0] + 3], np.float32(0.5) * s)
        loss = fnp.mean(ft.vmap(_mlp_loss, (None, 0, 0))(p, xb, y)) + fnp.sum(h[idx] ** 2)
        grads = ft.grad(lambda p: fnp.mean(ft.vmap(_mlp_loss, (None, 0, 0))(p, xb, y)))(p)
        picked = ft.vmap(fnp.where, (0, 0, None))(mask, xb[:, :3], 1.0)
        return loss, grads, fnp.take(xb, idx, axis=1), picked
    jitted = ft.jit(f)
    params = _mlp(rng)
    want = jitted(params, x, 2.0)    # a Python scalar argument is traced as a float64 0-d array
    for _ in range(2):
        _check(dxp, jitted(*_to(dxp, [params, x]), 2.0), want, "jit with host selectors")


def test_tree_utilities_on_device_params(dxp):
    def run(w, b):
        p = {"w": w, "b": b, "s": 1.5, "t": np.float32(0.5)}
        flat, unravel = ft.tree.ravel(p)
        stacked = ft.tree.stack([{"w": w, "b": b}, {"w": 2 * w, "b": b - 1}])
        return (flat, unravel(flat * 2), stacked, ft.tree.unstack(stacked),
                ft.vmap(lambda q: fnp.sum(q["w"]) * q["b"])(stacked),
                optim.global_norm(p), optim.clip_by_global_norm(p, 0.5))
    rng = _rng()
    _compare(dxp, run, rng.standard_normal((2, 3)), rng.standard_normal(3), what="tree utils")


def test_custom_rules_and_checkpoint_policies_in_depth(dxp):
    def scaled(x, k):
        return x * k

    scaled = ft.custom_vjp(scaled, nondiff_argnums=(1,))
    scaled.defvjp(lambda x, k: (x * k, None), lambda k, res, ct: (ct * k,))

    @ft.custom_vjp
    def pair(x, y):
        return x * y, x + y

    pair.defvjp(lambda x, y: ((x * y, x + y), (x, y)),
                lambda res, ct: (ct[0] * res[1] + ct[1], ct[0] * res[0] + ct[1]))

    seg = ft.checkpoint(lambda w, h: fnp.tanh(h @ w) * 2.0,
                        policy=ft.checkpoint_policies.dots_saveable)

    def f(x):
        a, b = pair(x, fnp.cos(x))
        return fnp.sum(scaled(a, 3.0) * softplus(b)) + fnp.sum(seg(fnp.outer(x, x), x) ** 2)

    def run(x):
        return (ft.grad(f)(x), ft.vmap(ft.grad(f))(fnp.stack([x, 2 * x])),
                ft.jacrev(ft.grad(f))(x), ft.jvp(ft.grad(lambda v: fnp.sum(softplus(v) ** 2)),
                                                 (x,), (fnp.ones_like(x),)),
                ft.hessian(lambda v: fnp.sum(softplus(v) ** 3))(x))
    _compare(dxp, run, _rng().standard_normal(3), what="custom rules in depth")


def test_jacobians_with_integer_outputs(dxp):
    def f(x):
        return {"s": fnp.sin(x), "i": fnp.argmax(x), "n": fnp.sum(x > 0)}

    def run(x):
        return ft.jacfwd(f)(x), ft.jacrev(f)(x), ft.jvp(f, (x,), (fnp.ones_like(x),))
    _compare(dxp, run, _rng().standard_normal(3), what="integer outputs")


def test_nested_compositions(dxp):
    def f(w, x):
        return fnp.sum(fnp.tanh(w @ x) ** 2)

    def run(w, xs, vs):
        _, jvp_fn = ft.linearize(lambda w: ft.vmap(f, (None, 0))(w, xs), w)
        return (ft.vmap(ft.hessian(f, argnums=1), (None, 0))(w, xs),
                ft.vmap(ft.jacrev(ft.grad(f), argnums=1), (None, 0))(w, xs),
                ft.jacrev(ft.vmap(f, (None, 0)))(w, xs),
                ft.vmap(lambda x, v: ft.jvp(lambda x: ft.grad(f, 1)(w, x), (x,), (v,))[1])(xs, vs),
                ft.jvp(lambda w: ft.vmap(ft.grad(f), (None, 0))(w, xs), (w,), (fnp.ones_like(w),)),
                jvp_fn(w), ft.grad(lambda w: fnp.sum(ft.vmap(ft.grad(f, 1), (None, 0))(w, xs)))(w))
    rng = _rng()
    _compare(dxp, run, rng.standard_normal((2, 3)), rng.standard_normal((4, 3)),
             rng.standard_normal((4, 3)), what="nested compositions")


def test_integer_inputs_and_float0(dxp):
    def f(x, i):
        return fnp.sin(x[i]) * fnp.astype(i, x.dtype)

    def run(x, i):
        out, vjp_fn = ft.vjp(lambda x: f(x, i), x)
        return (out, vjp_fn(fnp.ones_like(out)), ft.jvp(f, (x, i), (fnp.ones_like(x), None)),
                ft.linearize(f, x, i)[1](x, None), ft.jacrev(f)(x, i), ft.jacfwd(f)(x, i))
    _compare(dxp, run, _rng().standard_normal(4), np.array([2, 0, 3]), what="float0")


def test_jit_takes_numpy_labels_beside_device_arrays(dxp):
    """Eager code accepts NumPy labels beside device data (they only select); so does ft.jit."""
    rng = _rng()
    params, (x, y) = _mlp(rng), _mlp_batch(rng)
    params, x = _to(dxp, [params, x])
    want = per_example(params, x, y)
    jitted = ft.jit(per_example)
    for _ in range(2):
        _check(dxp, jitted(params, x, y), want, "jit with numpy labels")


def test_sort_derivatives_at_ties_take_numpys_order_on_the_device(dxp):
    """Sort's rules route derivatives by the stable order at ties; the device's sort is stable
    too (CuPy's always is), so the first and second derivatives equal NumPy's there."""
    x = np.array([[-1.0, -1.0], [-1.0, 0.0]])
    w0 = np.random.default_rng(0).standard_normal((8, 1))
    w1 = np.random.default_rng(1).standard_normal((2, 2))

    def f(x, w0):
        y = fnp.reshape(fnp.broadcast_to(fnp.arctan(x), (2,) + x.shape), (-1, 1))
        return fnp.sum(w0 * fnp.abs(fnp.sort(y, axis=0)))

    def second(x, w0, w1):
        return ft.grad(lambda x: fnp.sum(w1 * ft.grad(f)(x, w0)))(x)
    on_device = [dxp.asarray(a) for a in (x, w0, w1)]
    assert_close(ft.grad(f)(*on_device[:2]), ft.grad(f)(x, w0))
    assert_close(second(*on_device), second(x, w0, w1))
