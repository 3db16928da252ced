"""functorch_lite.lax under the transforms: vmap against a loop over the batch (batched
predicates select per example, batched while_loops freeze finished examples), grad/jvp against
finite differences and each other (the transpose identity), and compositions (vmap(grad),
grad(grad), jacfwd/jacrev, hessian, ft.jit of derivatives, checkpointed bodies)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import lax
from functorch_lite.testing import check_jvp, check_transpose, check_vmap, gradcheck

RNG = np.random.default_rng(1)
W = RNG.standard_normal((3, 3)) * 0.5


def rnn_loss(w, h0, xs):
    """A scan whose body closes over nothing, with a pytree carry."""
    def step(carry, x):
        h, acc = carry
        h = np.tanh(h @ w + x)
        return (h, acc + (h ** 2).sum()), h[0]
    (h, acc), ys = ft.scan(step, (h0, 0.0), xs)
    return acc + (ys ** 3).sum() + h.sum()


def rnn_loss_closure(w, h0, xs):
    """The same loss, the weight read from the enclosing function (a value being
    transformed)."""
    (h, acc), ys = ft.scan(lambda c, x: _step_with(w, c, x), (h0, 0.0), xs)
    return acc + (ys ** 3).sum() + h.sum()


def _step_with(w, carry, x):
    h, acc = carry
    h = np.tanh(h @ w + x)
    return (h, acc + (h ** 2).sum()), h[0]


def fixed_point(f, a, x_guess):
    """The JAX tutorial's fixed point, written with while_loop."""
    def cond_fun(carry):
        x_prev, x = carry
        return fnp.abs(x_prev - x) > 1e-10

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)
    _, x_star = ft.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


def orbit(x, limit):
    """A while_loop whose trip count depends on the values: x grows until it passes limit."""
    def body(c):
        i, v = c
        return i + 1, v * 1.3 + 0.2 * np.sin(v)
    return ft.while_loop(lambda c: c[1].sum() < limit, body, (0, x))


A = np.array([2.0, 3.0, 9.0, 100.0, 0.25])


# -- vmap -------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", [rnn_loss, rnn_loss_closure])
def test_vmap_scan_over_each_argument(loss):
    h0s, xss = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 5, 3))
    ws = RNG.standard_normal((4, 3, 3)) * 0.5
    check_vmap(loss, (W, h0s, xss), in_dims=(None, 0, 0), rtol=1e-12)
    check_vmap(loss, (ws, h0s[0], xss[0]), in_dims=(0, None, None), rtol=1e-12)
    check_vmap(loss, (W, h0s, np.moveaxis(xss, 0, 2)), in_dims=(None, 0, 2), rtol=1e-12)


def test_vmap_newton_sqrt():
    np.testing.assert_allclose(ft.vmap(newton_sqrt)(A), np.sqrt(A), rtol=1e-14)


def test_vmap_while_loop_freezes_finished_examples():
    xs = np.array([[0.1, 0.2], [3.0, 1.0], [50.0, 60.0], [0.01, 0.0]])
    limits = np.array([5.0, 9.0, 1.0, 30.0])
    check_vmap(orbit, (xs, limits), rtol=1e-14)
    trips, _ = ft.vmap(orbit)(xs, limits)
    assert len(set(trips.tolist())) > 2  # the examples really took different trip counts
    check_vmap(orbit, (xs, 20.0), in_dims=(0, None), rtol=1e-14)


def test_vmap_vmap_while_loop():
    xs = RNG.uniform(0.01, 3.0, (3, 4, 2))
    limits = RNG.uniform(1.0, 40.0, (3, 4))
    got = ft.vmap(ft.vmap(orbit))(xs, limits)
    for i in range(3):
        for j in range(4):
            trips, v = orbit(xs[i, j], limits[i, j])
            assert got[0][i, j] == trips
            np.testing.assert_allclose(got[1][i, j], v, rtol=1e-14)


def test_vmap_cond_and_switch_with_batched_predicates():
    def f(x, k):
        a = ft.cond(x.sum() > 0, lambda x: (x * 2, x.sum()), lambda x: (np.exp(x), -1.0), x)
        b = lax.switch(k, [np.sin, np.cos, lambda x: x ** 2], x)
        return a, b
    xs = RNG.standard_normal((6, 3))
    ks = np.array([0, 1, 2, -1, 5, 1])
    check_vmap(f, (xs, ks), rtol=1e-14)
    check_vmap(f, (xs, 2), in_dims=(0, None), rtol=1e-14)   # unbatched index: one branch
    check_vmap(f, (xs[0], ks), in_dims=(None, 0), rtol=1e-14)


def test_vmap_fori_loop_with_batched_bounds():
    def f(x, n):
        return ft.fori_loop(0, n, lambda i, v: v * 0.5 + i, x)
    check_vmap(f, (RNG.standard_normal((5, 2)), np.array([0, 3, 1, 7, 2])), rtol=1e-14)
    check_vmap(f, (RNG.standard_normal((5, 2)), 4), in_dims=(0, None), rtol=1e-14)


def test_vmap_map():
    check_vmap(lambda xs: lax.map(lambda x: np.sin(x).sum(), xs), (RNG.standard_normal((3, 4, 2)),),
               rtol=1e-14)


# -- derivatives: finite differences and the transpose identity -------------------------------

@pytest.mark.parametrize("loss", [rnn_loss, rnn_loss_closure])
def test_grad_scan_against_finite_differences(loss):
    gradcheck(loss, (W, RNG.standard_normal(3), RNG.standard_normal((4, 3))))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 5), d=st.integers(1, 3), reverse=st.booleans())
def test_scan_jvp_vjp_transpose_identity(n, d, reverse):
    def f(w, h0, xs):
        def step(h, x):
            h = np.sin(h @ w) + x
            return h, h * x
        return ft.scan(step, h0, xs, reverse=reverse)
    args = (RNG.standard_normal((d, d)), RNG.standard_normal(d), RNG.standard_normal((n, d)))
    check_transpose(f, args)
    check_jvp(f, args)


def test_fori_loop_jvp_and_grad():
    def f(x, y):
        return ft.fori_loop(1, 4, lambda i, v: np.sin(v * y) + v / i, x)
    args = (RNG.standard_normal(3), np.array(0.7))
    check_jvp(f, args)
    check_transpose(f, args)
    gradcheck(lambda x, y: f(x, y).sum(), args)


def test_grad_while_loop_differentiates_the_iterations_that_ran():
    # JAX refuses reverse mode through while_loop; here it is the derivative of the loop
    for a in A:
        np.testing.assert_allclose(ft.grad(newton_sqrt)(a), 0.5 / np.sqrt(a), rtol=1e-9)
    gradcheck(lambda x: orbit(x, 7.0)[1].sum(), (np.array([0.3, 0.5]),))


def test_cond_and_switch_derivatives():
    def f(x, k):
        a = ft.cond(x[0] > 0, lambda x: np.sin(x) * x, lambda x: np.exp(x), x)
        return a + lax.switch(k, [np.sin, np.cos, np.tanh], x)
    for k in (0, 1, 2):
        for x in (np.array([0.5, -1.0]), np.array([-0.5, 2.0])):
            check_jvp(lambda x: f(x, k), (x,))
            check_transpose(lambda x: f(x, k), (x,))


# -- compositions -----------------------------------------------------------------------------

def test_vmap_grad_newton_sqrt():
    """The JAX tutorial's vmap(grad(newton_sqrt)) over a data-dependent fixed point."""
    np.testing.assert_allclose(ft.vmap(ft.grad(newton_sqrt))(A), 0.5 / np.sqrt(A), rtol=1e-9)
    np.testing.assert_allclose(ft.vmap(ft.grad(ft.grad(newton_sqrt)))(A), -0.25 * A ** -1.5,
                               rtol=1e-7)
    np.testing.assert_allclose(ft.jacfwd(ft.vmap(newton_sqrt))(A), np.diag(0.5 / np.sqrt(A)),
                               rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ft.jacrev(ft.vmap(newton_sqrt))(A), np.diag(0.5 / np.sqrt(A)),
                               rtol=1e-9, atol=1e-15)


def test_vmap_grad_while_loop_against_a_loop():
    xs = RNG.uniform(0.05, 2.0, (5, 2))
    check_vmap(ft.grad(lambda x, lim: orbit(x, lim)[1].sum()), (xs, np.linspace(2, 30, 5)),
               rtol=1e-12)


@pytest.mark.parametrize("loss", [rnn_loss, rnn_loss_closure])
def test_scan_second_order_and_jacobians(loss):
    h0, xs = RNG.standard_normal(3), RNG.standard_normal((3, 3))
    hess = ft.hessian(loss)(W, h0, xs)
    np.testing.assert_allclose(hess, ft.jacrev(ft.jacrev(loss))(W, h0, xs), rtol=1e-10)
    np.testing.assert_allclose(hess, ft.jacfwd(ft.jacrev(loss))(W, h0, xs), rtol=1e-10)
    gradcheck(lambda w: ft.grad(loss)(w, h0, xs), (W,), rtol=1e-5)   # grad(grad) by FD
    check_vmap(ft.grad(loss), (W, RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3, 3))),
               in_dims=(None, 0, 0), rtol=1e-12)


def test_jit_of_derivatives_through_loops():
    h0, xs, h0s = RNG.standard_normal(3), RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3))
    cases = [(ft.grad(rnn_loss), (W, h0, xs)), (ft.grad(rnn_loss_closure), (W, h0, xs)),
             (ft.vmap(ft.grad(rnn_loss), in_dims=(None, 0, None)), (W, h0s, xs)),
             (ft.vmap(lambda x: ft.cond(x > 0, np.sin, np.cos, x)), (RNG.standard_normal(6),))]
    for f, args in cases:
        jitted = ft.jit(f)
        for _ in range(2):
            np.testing.assert_allclose(jitted(*args), f(*args), rtol=1e-12)
        args = tuple(a + 0.1 for a in args)  # new values, same signature: the cached program
        np.testing.assert_allclose(jitted(*args), f(*args), rtol=1e-12)


# -- checkpoint inside a loop body ------------------------------------------------------------

KERNEL_CALLS = {"n": 0}


def _counted_sin_kernel(xp, x):
    KERNEL_CALLS["n"] += 1
    return xp.sin(x)


counted_sin = ft.defop("test_lax_counted_sin", _counted_sin_kernel)
counted_sin.def_jvp(lambda primals, tangents: (counted_sin(primals[0]),
                                               fnp.cos(primals[0]) * tangents[0]))
counted_sin.def_vjp(lambda ct, primals, out: (ct * fnp.cos(primals[0]),))
counted_sin.def_batch_rule(lambda args, bdims: (counted_sin(args[0]), bdims[0]))


@pytest.mark.parametrize("remat", [False, True])
def test_checkpoint_inside_a_scan_body_recomputes_each_step(remat):
    def body(h, x):
        return counted_sin(h @ W + x), None
    step = ft.checkpoint(body) if remat else body

    def loss(h0, xs):
        return ft.scan(step, h0, xs)[0].sum()
    h0, xs = RNG.standard_normal(3), RNG.standard_normal((6, 3))
    KERNEL_CALLS["n"] = 0
    g = ft.grad(loss)(h0, xs)
    # forward: one call per step; a checkpointed body recomputes every step backwards
    assert KERNEL_CALLS["n"] == (12 if remat else 6)
    np.testing.assert_allclose(g, ft.grad(lambda h0, xs: ft.scan(body, h0, xs)[0].sum())(h0, xs),
                               rtol=1e-14)


def test_python_while_on_a_batched_value_points_to_while_loop():
    def python_newton_sqrt(a):
        x_prev, x = a, 0.5 * (a + 1.0)
        while fnp.abs(x_prev - x) > 1e-10:
            x_prev, x = x, 0.5 * (x + a / x)
        return x
    with pytest.raises(TypeError, match="ft.while_loop"):
        ft.vmap(python_newton_sqrt)(A)


# -- device arrays (device_sim always, CuPy with a GPU) -----------------------------------------

def _device_run(dxp, run, *args):
    """run on NumPy inputs and on their device copies: device arrays equal to the NumPy run."""
    import optree
    want = run(*args)
    got = run(*optree.tree_map(dxp.asarray, args))
    for g, w in zip(optree.tree_leaves(got), optree.tree_leaves(want)):
        assert not isinstance(g, (np.ndarray, np.generic)), f"a {type(g).__name__} came back"
        host = g.get() if hasattr(g, "get") else np.asarray(g)
        np.testing.assert_allclose(host, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_loops_on_device_arrays(dxp, jit):
    wrap = ft.jit if jit else (lambda f: f)
    h0, xs = RNG.standard_normal(3), RNG.standard_normal((4, 3))
    _device_run(dxp, wrap(rnn_loss), W, h0, xs)
    _device_run(dxp, wrap(rnn_loss_closure), W, h0, xs)
    _device_run(dxp, wrap(ft.grad(rnn_loss)), W, h0, xs)
    _device_run(dxp, wrap(newton_sqrt), np.array(7.0))
    if not jit:  # under ft.jit a vmapped while_loop on traced values is refused
        _device_run(dxp, ft.vmap(ft.grad(newton_sqrt)), A)
    _device_run(dxp, wrap(lambda x: ft.fori_loop(0, 3, lambda i, v: np.sin(v) * i, x)), xs)
    _device_run(dxp, wrap(lambda x: lax.switch(fnp.argmax(x), [np.sin, np.cos, np.exp], x)), h0)
