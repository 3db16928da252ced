"""checkpoint / remat: same values and derivatives as the function itself in every composition,
recomputation in the backward pass (policies decide what is kept), and peak memory of grad
through a chain of blocks growing like the square root of the chain's length."""
import math
import tracemalloc

import numpy as np
import optree
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 4)) * 0.5
X = RNG.standard_normal(4)
XS = RNG.standard_normal((3, 4))
KERNEL_CALLS = {"n": 0}


def _counted_sin_kernel(xp, x):
    KERNEL_CALLS["n"] += 1
    return xp.sin(x)


counted_sin = ft.defop("test_checkpoint_counted_sin", _counted_sin_kernel)
counted_sin.def_jvp(lambda primals, tangents: (counted_sin(primals[0]),
                                               fnp.cos(primals[0]) * tangents[0]))
counted_sin.def_vjp(lambda ct, primals, out: (ct * fnp.cos(primals[0]),))
counted_sin.def_batch_rule(lambda args, bdims: (counted_sin(args[0]), bdims[0]))


@ft.custom_vjp
def scaled_square(x):
    return x * x


scaled_square.defvjp(lambda x: (x * x, x), lambda x, ct: (3.0 * x * ct,))


@ft.custom_jvp
def scaled_cube(x):
    return x ** 3


@scaled_cube.defjvp
def _(primals, tangents):
    (x,), (t,) = primals, tangents
    return scaled_cube(x), 4.0 * x * x * t


def block(h, w, with_custom_vjp=True):
    """A block reading a closed-over or passed weight, with a custom_vjp (forward mode cannot
    go through it, so compositions with forward mode innermost leave it out), a custom_jvp and
    a user primitive inside."""
    h = fnp.tanh(h @ w) + 0.1 * counted_sin(h)
    square = scaled_square(h) if with_custom_vjp else 1.5 * h * h
    return 0.5 * square + 0.1 * scaled_cube(h) + h


def chain(x, w, wrap, with_custom_vjp):
    h = x
    for _ in range(3):
        h = wrap(block)(h, w, with_custom_vjp)
    return fnp.sum(h * h)


def _pairs(policy, with_custom_vjp=True):
    """(plain, checkpointed) versions of the chain as a function of x and w."""
    return (lambda x, w: chain(x, w, lambda f: f, with_custom_vjp),
            lambda x, w: chain(x, w, lambda f: ft.checkpoint(f, policy=policy),
                               with_custom_vjp))


def _second(f):
    return lambda x, w: fnp.sum(ft.grad(f)(x, w) ** 2)


COMPOSITIONS = {
    "value": lambda f: f(X, W),
    "grad": lambda f: ft.grad(f, argnums=(0, 1))(X, W),
    "grad_of_closure": lambda f: ft.grad(lambda w: ft.checkpoint(lambda x: f(x, w))(X))(W),
    "vjp": lambda f: ft.vjp(lambda x: f(x, W), X)[1](np.array(1.5)),
    "jvp": lambda f: ft.jvp(lambda x: f(x, W), (X,), (XS[0],)),
    "jvp_grad": lambda f: ft.jvp(ft.grad(lambda x: f(x, W)), (X,), (XS[0],)),
    "grad_grad": lambda f: ft.grad(_second(f), argnums=(0, 1))(X, W),
    "hessian": lambda f: ft.hessian(lambda x: f(x, W))(X),
    "jacrev_grad": lambda f: ft.jacrev(ft.grad(lambda x: f(x, W)))(X),
    "jacfwd": lambda f: ft.jacfwd(lambda x: f(x, W))(X),
    "vmap_grad": lambda f: ft.vmap(ft.grad(f), in_dims=(0, None))(XS, W),
    "grad_vmap": lambda f: ft.grad(lambda w: fnp.sum(ft.vmap(f, in_dims=(0, None))(XS, w)))(W),
    "vmap_grad_grad": lambda f: ft.vmap(ft.grad(_second(f)), in_dims=(0, None))(XS, W),
    "jacrev_vmap": lambda f: ft.jacrev(ft.vmap(lambda x: f(x, W)))(XS),
    "grad_jvp": lambda f: ft.grad(lambda x: ft.jvp(lambda x: f(x, W), (x,), (XS[0],))[1])(X),
    "vmap_jvp": lambda f: ft.vmap(lambda x: ft.jvp(lambda x: f(x, W), (x,), (x,)))(XS),
    "linearize": lambda f: ft.linearize(lambda x: f(x, W), X)[1](XS[1]),
    "vjp_fn_twice": lambda f: [ft.vjp(f, X, W)[1](np.array(c)) for c in (1.0, -2.0)],
}
FORWARD_INNERMOST = ("jvp", "jacfwd", "grad_jvp", "vmap_jvp", "linearize")
POLICIES = {"default": None, "nothing": ft.checkpoint_policies.nothing_saveable,
            "everything": ft.checkpoint_policies.everything_saveable,
            "dots": ft.checkpoint_policies.dots_saveable}


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize("composition", COMPOSITIONS, ids=str)
def test_checkpoint_equals_the_function(composition, policy):
    plain, checkpointed = _pairs(POLICIES[policy], composition not in FORWARD_INNERMOST)
    run = COMPOSITIONS[composition]
    expected, got = run(plain), run(checkpointed)
    e_leaves, e_spec = optree.tree_flatten(expected)
    g_leaves, g_spec = optree.tree_flatten(got)
    assert g_spec == e_spec
    for g, e in zip(g_leaves, e_leaves):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def test_gradient_against_finite_differences():
    # (the chain above has deliberately scaled custom rules; this one has none)
    layer = ft.checkpoint(lambda h, w: fnp.tanh(h @ w) + 0.1 * counted_sin(h))

    def loss(x):
        return fnp.sum(layer(layer(x, W), W) ** 2)
    g, eps = ft.grad(loss)(X), 1e-6
    for i in range(4):
        e = np.zeros(4)
        e[i] = eps
        np.testing.assert_allclose(g[i], (loss(X + e) - loss(X - e)) / (2 * eps), rtol=1e-6)


def test_the_backward_pass_recomputes_unless_the_policy_saves():
    def run(policy):
        KERNEL_CALLS["n"] = 0
        ft.grad(lambda x: fnp.sum(ft.checkpoint(counted_sin, policy=policy)(x)))(X)
        return KERNEL_CALLS["n"]
    assert run(None) == 2                      # once forward, once in the backward pass
    assert run(ft.checkpoint_policies.everything_saveable) == 1
    assert run(ft.checkpoint_policies.dots_saveable) == 2
    saved_ops = []

    def save_counted(op, *operands, **params):
        saved_ops.append(op.name)
        return op is counted_sin
    assert run(save_counted) == 1
    assert saved_ops == ["test_checkpoint_counted_sin"]
    KERNEL_CALLS["n"] = 0
    ft.grad(lambda x: fnp.sum(counted_sin(x)))(X)
    assert KERNEL_CALLS["n"] == 1              # without checkpoint: no recomputation


def test_the_recomputation_replays_primitives_not_python():
    python_calls, noise = [], RNG.standard_normal(4)

    def f(x):
        python_calls.append(1)                 # a side effect: happens once
        return fnp.sin(x) * noise               # np.random-like constants: replayed as they were
    g = ft.grad(lambda x: fnp.sum(ft.checkpoint(f)(x)))(X)
    np.testing.assert_allclose(g, np.cos(X) * noise)
    assert python_calls == [1]


def test_the_user_rules_run_in_the_recomputation():
    calls = []

    @ft.custom_vjp
    def f(x):
        return fnp.sin(x)

    def bwd(x, ct):
        calls.append("bwd")
        return (2.0 * fnp.cos(x) * ct,)
    f.defvjp(lambda x: (f(x), x), bwd)
    g = ft.grad(lambda x: fnp.sum(ft.checkpoint(f)(x)))(X)
    np.testing.assert_allclose(g, 2 * np.cos(X))
    assert calls == ["bwd"]


def test_nested_checkpoints_forms_and_remat():
    inner = ft.checkpoint(lambda h: fnp.tanh(h @ W))

    @ft.checkpoint(policy=ft.checkpoint_policies.dots_saveable)
    def outer(h):
        return inner(inner(h)) * 2.0
    plain = lambda h: fnp.tanh(fnp.tanh(h @ W) @ W) * 2.0  # noqa: E731
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(outer(x) ** 2))(X),
                               ft.grad(lambda x: fnp.sum(plain(x) ** 2))(X))
    assert ft.remat is ft.checkpoint
    # outside reverse mode a checkpointed function is the function: pytrees and kwargs pass
    f = ft.checkpoint(lambda d, k=1.0: {"y": d["a"] * k})
    np.testing.assert_allclose(f({"a": X}, k=2.0)["y"], 2 * X)
    np.testing.assert_allclose(ft.grad(lambda a: fnp.sum(f({"a": a}, k=3.0)["y"]))(X),
                               np.full(4, 3.0))
    with pytest.raises(TypeError, match="checkpoint needs a function"):
        ft.checkpoint(3.0)


# -- memory -----------------------------------------------------------------------------------

N = 4000


def _layer(h):
    return fnp.tanh(h * 1.01 + 0.1)


def _layers(h, k):
    for _ in range(k):
        h = _layer(h)
    return h


def _chain_loss(n, segment):
    """Sum of a chain of n layers; with `segment`, each run of `segment` layers checkpointed."""
    def loss(x):
        h, done = x, 0
        while done < n:
            k = min(segment or n, n - done)
            h = ft.checkpoint(_layers)(h, k) if segment else _layers(h, k)
            done += k
        return fnp.sum(h)
    return loss


def _peak_of_grad(loss, x):
    grad = ft.grad(loss)
    grad(x)   # warm any caches outside the measurement
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        g = grad(x)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return peak / x.nbytes, g


def test_peak_memory_of_grad_grows_like_the_square_root_of_the_chain():
    x = np.linspace(-1.0, 1.0, N)
    peaks = {}
    for n in (50, 200):
        plain, g_plain = _peak_of_grad(_chain_loss(n, None), x)
        ckpt, g_ckpt = _peak_of_grad(_chain_loss(n, round(math.sqrt(n))), x)
        np.testing.assert_allclose(g_ckpt, g_plain, rtol=1e-12)
        peaks[n] = plain, ckpt
    (plain50, ckpt50), (plain200, ckpt200) = peaks[50], peaks[200]
    # in units of one activation: without checkpointing every layer keeps its intermediates
    # (about 3 activations per layer), with it about 2 sqrt(n) segment inputs and one segment
    assert ckpt50 < 0.35 * plain50, (ckpt50, plain50)
    assert plain200 / plain50 > 3.5, (plain200, plain50)          # linear in n
    assert ckpt200 / ckpt50 < 2.5, (ckpt200, ckpt50)              # sqrt(4) = 2
