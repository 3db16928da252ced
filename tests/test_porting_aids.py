"""The spellings a JAX or torch.func user tries first (issue 22, "Porting aids") and the
CPU-side argument checks of issue 24: each either works with the peer's semantics or is refused
with a message that says what to write instead."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import gradcheck


def _cubic(x):
    return fnp.sum(x ** 3 * x[0])


def test_prngkey_is_key():
    np.testing.assert_array_equal(ft.random.PRNGKey(7), ft.random.key(7))
    np.testing.assert_array_equal(ft.random.normal(ft.random.PRNGKey(3), (4,)),
                                  ft.random.normal(ft.random.key(3), (4,)))


def test_hessian_has_aux_matches_hessian_and_passes_aux_through():
    x = np.array([0.5, -1.0, 2.0])
    h, aux = ft.hessian(lambda x: (_cubic(x), {"n": x.shape[0], "v": x * 2}), has_aux=True)(x)
    np.testing.assert_allclose(h, ft.hessian(_cubic)(x))
    eps, e = 1e-5, np.eye(len(x))
    fd = np.array([(ft.grad(_cubic)(x + eps * e[j]) - ft.grad(_cubic)(x - eps * e[j])) / (2 * eps)
                   for j in range(len(x))]).T
    np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-8)
    assert aux["n"] == 3
    np.testing.assert_array_equal(aux["v"], x * 2)


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 100])
def test_jacfwd_chunk_size_gives_the_unchunked_jacobian(chunk_size):
    x = np.linspace(-1.0, 1.0, 5)

    def f(x):
        return fnp.sin(x) * x[0], x[1:] ** 2
    np.testing.assert_allclose(ft.jacfwd(f, chunk_size=chunk_size)(x)[0], ft.jacrev(f)(x)[0])
    np.testing.assert_allclose(ft.jacfwd(f, chunk_size=chunk_size)(x)[1], ft.jacrev(f)(x)[1])
    jac, aux = ft.jacfwd(lambda x: (f(x)[0], x.sum()), has_aux=True, chunk_size=chunk_size)(x)
    np.testing.assert_allclose(jac, ft.jacrev(lambda x: f(x)[0])(x))
    assert float(aux) == pytest.approx(x.sum())


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_jacfwd_refuses_a_bad_chunk_size(bad):
    with pytest.raises(ValueError, match="chunk_size"):
        ft.jacfwd(fnp.sin, chunk_size=bad)


def test_grad_holomorphic_is_the_complex_derivative():
    z = np.array(0.3 + 0.7j)

    def f(z):
        return fnp.sin(z) * z ** 2
    g = ft.grad(f, holomorphic=True)(z)
    np.testing.assert_allclose(g, np.cos(z) * z ** 2 + 2 * z * np.sin(z))
    h = 1e-6                                   # complex-step along the real axis
    np.testing.assert_allclose(g, (np.sin(z + h) * (z + h) ** 2 - np.sin(z - h) * (z - h) ** 2)
                               / (2 * h), rtol=1e-8)
    value, g2 = ft.value_and_grad(f, holomorphic=True)(z)
    np.testing.assert_allclose(value, f(z))
    np.testing.assert_allclose(g2, g)
    z2 = ft.grad(ft.grad(f, holomorphic=True), holomorphic=True)(z)   # second derivative
    np.testing.assert_allclose(z2, -np.sin(z) * z ** 2 + 4 * z * np.cos(z) + 2 * np.sin(z))


def test_grad_holomorphic_refuses_real_inputs_and_outputs():
    with pytest.raises(TypeError, match="complex inputs"):
        ft.grad(lambda z: z * z, holomorphic=True)(1.5)
    with pytest.raises(TypeError, match="complex output"):
        ft.grad(lambda z: fnp.abs(z), holomorphic=True)(1.0 + 1.0j)


def test_grad_allow_int_gives_float0_zeros_for_integer_inputs():
    x, n = np.array([1.0, 2.0]), np.array([3, 4])
    gx, gn = ft.grad(lambda x, n: fnp.sum(x * n), argnums=(0, 1), allow_int=True)(x, n)
    np.testing.assert_array_equal(gx, n.astype(float))
    assert gn.dtype == ft.float0 and gn.shape == (2,)
    gf, gi = ft.grad(lambda x, k: x * k, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(gf) == 3.0 and gi.dtype == ft.float0 and gi.shape == ()
    tree = ft.grad(lambda p: p["w"] @ p["w"] * p["k"], allow_int=True)({"w": x, "k": np.int32(2)})
    np.testing.assert_array_equal(tree["w"], 4 * x)
    assert tree["k"].dtype == ft.float0
    batched = ft.vmap(ft.grad(lambda x, n: fnp.sum(x * n), argnums=(0, 1), allow_int=True))(
        np.ones((3, 2)), np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(batched[0], np.arange(6).reshape(3, 2))
    with pytest.raises(TypeError, match="floating-point"):      # still refused by default
        ft.grad(lambda x, n: fnp.sum(x * n), argnums=(0, 1))(x, n)


@pytest.mark.parametrize("kwargs, advice", [({"randomness": "different"}, "split"),
                                            ({"randomness": "same"}, "in_dims None"),
                                            ({"axis_name": "batch"}, "reduce over axis 0")])
def test_vmap_refuses_peer_options_with_advice(kwargs, advice):
    with pytest.raises(TypeError, match=advice):
        ft.vmap(fnp.sin, **kwargs)


def test_asarray_of_wrappers_under_grad_is_differentiable():
    x = np.array([1.0, 2.0, 3.0])

    def f(x):
        return fnp.sum(fnp.asarray([x[0] * x[1], x[2]]) ** 2)

    def g(x):
        return fnp.sum(fnp.array([[x[0], 1.0], [x[1], x[2]]]) ** 2)   # nested lists
    np.testing.assert_allclose(ft.grad(f)(x), [2 * x[0] * x[1] ** 2, 2 * x[0] ** 2 * x[1],
                                               2 * x[2]])
    np.testing.assert_allclose(ft.grad(g)(x), 2 * x)
    np.testing.assert_allclose(ft.vmap(f)(np.stack([x, 2 * x])), [f(x), f(2 * x)])


def test_sum_and_mean_of_a_list_of_wrappers_stack_first():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum([x[0], 2 * x[1]]))(x), [1.0, 2.0, 0.0])
    np.testing.assert_allclose(ft.grad(lambda x: fnp.mean([x, x ** 2]))(x), (1 + 2 * x) / 6)
    assert fnp.sum([np.ones(2), np.ones(2)]) == np.sum([np.ones(2), np.ones(2)])


@pytest.mark.parametrize("make", [lambda x, d: fnp.zeros_like(x, device=d),
                                  lambda x, d: fnp.ones_like(x, device=d),
                                  lambda x, d: fnp.empty_like(x, device=d),
                                  lambda x, d: fnp.full_like(x, 2.0, device=d),
                                  lambda x, d: fnp.fft.fftfreq(4, device=d),
                                  lambda x, d: fnp.fft.rfftfreq(4, device=d)])
def test_device_is_cpu_or_refused_as_numpy_does(make):
    x = np.ones(3)
    assert isinstance(make(x, "cpu"), np.ndarray)
    with pytest.raises(ValueError, match="device='cuda'"):
        make(x, "cuda")


@pytest.mark.parametrize("make", [lambda like: fnp.zeros(2, like=like),
                                  lambda like: fnp.asarray([1.0], like=like),
                                  lambda like: fnp.arange(3, like=like),
                                  lambda like: fnp.linspace(0, 1, 3, like=like)])
def test_like_must_be_an_array(make):
    assert isinstance(make(np.ones(1)), np.ndarray)
    with pytest.raises(TypeError, match="like="):
        make("cuda")


def test_a_result_tuple_passed_on_whole_is_named():
    x = np.random.default_rng(0).standard_normal((4, 3))
    out = ft.nn.batch_norm(x, np.zeros(3), np.ones(3), training=True)
    with pytest.raises(TypeError, match="batch_norm.*unpack"):
        ft.nn.relu(out)

    def loss(x):
        return fnp.sum(ft.nn.relu(ft.nn.batch_norm(x, None, None, training=True)))
    with pytest.raises(TypeError, match="unpack"):
        ft.grad(loss)(x)


def test_hessian_has_aux_is_differentiable_again():
    gradcheck(lambda x: fnp.sum(ft.hessian(lambda x: (_cubic(x), 0.0), has_aux=True)(x)[0]),
              (np.array([0.3, 0.6]),))


def test_nan_to_num_derivative_is_one_at_finite_entries_and_zero_elsewhere():
    x = np.array([0.5, np.nan, np.inf, -np.inf, -2.0])
    g = ft.grad(lambda x: fnp.sum(fnp.nan_to_num(x) * np.arange(1.0, 6.0)))(x)
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0, 0.0, 5.0])
    _, t = ft.jvp(fnp.nan_to_num, (x,), (np.ones(5),))
    np.testing.assert_array_equal(t, [1.0, 0.0, 0.0, 0.0, 1.0])


def test_cg_gradients_match_the_dense_solve():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 5))
    A, b = a @ a.T + 5 * np.eye(5), rng.standard_normal(5)
    from functorch_lite.scipy.sparse.linalg import cg

    def loss(A, b):
        return fnp.sum(cg(A, b, tol=1e-13)[0] ** 2)
    x = np.linalg.solve(A, b)
    lam = np.linalg.solve(A.T, 2 * x)
    gA, gb = ft.grad(loss, argnums=(0, 1))(A, b)
    np.testing.assert_allclose(gb, lam, rtol=1e-8)
    np.testing.assert_allclose(gA, -np.outer(lam, x), rtol=1e-8)
    # a matrix-free A closing over a parameter being differentiated, together with b
    gs, gb2 = ft.grad(lambda s, b: fnp.sum(cg(lambda v: s * (A @ v), b, tol=1e-13)[0]),
                      argnums=(0, 1))(2.0, b)
    np.testing.assert_allclose(gs, -np.linalg.solve(A, b).sum() / 4, rtol=1e-8)
    np.testing.assert_allclose(gb2, np.linalg.solve(2 * A, np.ones(5)), rtol=1e-8)
    per_example = ft.vmap(ft.grad(lambda b: loss(A, b)))(np.stack([b, 2 * b]))
    np.testing.assert_allclose(per_example, [lam, 2 * lam], rtol=1e-8)


def test_make_ggnvp_matches_the_dense_gauss_newton_matrix():
    rng = np.random.default_rng(1)
    W, x = rng.standard_normal((4, 3)), rng.standard_normal(3)

    def model(W, x):
        return fnp.tanh(W @ x)

    def g(y):
        return fnp.sum(fnp.exp(y)) + y[0] * y[1]
    J = ft.jacfwd(model)(W, x).reshape(4, 12)
    H = ft.hessian(g)(model(W, x))
    V = rng.standard_normal((4, 3))
    np.testing.assert_allclose(ft.make_ggnvp(model, g)(W, x)(V).ravel(), J.T @ H @ J @ V.ravel())
    Jx = ft.jacrev(model, argnums=1)(W, x)
    v = rng.standard_normal(3)
    np.testing.assert_allclose(ft.make_ggnvp(model, f_argnum=1)(W, x)(v), Jx.T @ Jx @ v)
