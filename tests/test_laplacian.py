"""ft.laplacian and ft.forward_laplacian: equal to trace(hessian) (to 1e-12 in float64), the
weighted operator to sum(A * H), composed with vmap, grad and jit (both backends); the
Hutchinson estimator against its own draws and for unbiasedness; errors."""
import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite.testing import float_leaf_function, real_outputs
from functorch_lite.testing.samples import OP_DB

RNG = np.random.default_rng(0)
D = 5
W1, B1, W2 = RNG.standard_normal((D, 16)), RNG.standard_normal(16), RNG.standard_normal((16, 1))


def mlp(x, params=(W1, B1, W2)):
    w1, b1, w2 = params
    h = np.tanh(x @ w1 + b1)
    return (np.sin(h) @ w2)[0]


FUNCTIONS = {
    "mlp": mlp,
    "rational": lambda x: np.exp(x).sum() * x[0] / (1 + x[1] ** 2),
    "selection": lambda x: np.sqrt(1 + x ** 2).max() + np.where(x > 0, x ** 3, np.sin(x)).sum(),
    "softmax": lambda x: ft.nn.softmax(x * x)[0] + ft.nn.logsumexp(np.cos(x)),
    "shapes": lambda x: np.concatenate([x[:2] ** 2, x[2:] * x[0]]).reshape(1, -1).T.sum(),
    "einsum_power": lambda x: np.einsum("i,i,i->", x, np.exp(x), x) + np.abs(x) @ x ** 1.5,
    "linalg": lambda x: np.linalg.det(np.outer(x, x) + np.eye(D)) + np.sort(x ** 3)[-1],
    "vector_output": lambda x: np.stack([np.sum(x ** 4), np.prod(np.cos(x))]),
}


def hessian_trace(f, x):
    h = ft.hessian(f)(x)
    return np.trace(h, axis1=-2, axis2=-1) if h.ndim > 2 else np.trace(h)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_laplacian_is_hessian_trace(name):
    f = FUNCTIONS[name]
    x = np.abs(RNG.standard_normal(D)) + 0.1
    np.testing.assert_allclose(ft.laplacian(f)(x), hessian_trace(f, x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_weighted(name):
    """sum_ij A_ij d_i d_j f (only A's symmetric part matters) and sum_i a_i d_i^2 f."""
    f = FUNCTIONS[name]
    x = np.abs(RNG.standard_normal(D)) + 0.1
    h = ft.hessian(f)(x)
    a_mat, a_vec = RNG.standard_normal((D, D)), RNG.standard_normal(D)
    np.testing.assert_allclose(ft.laplacian(f, weights=a_mat)(x),
                               np.sum(a_mat * h, axis=(-2, -1)), rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(ft.laplacian(f, weights=a_vec)(x),
                               np.sum(a_vec * np.diagonal(h, axis1=-2, axis2=-1), axis=-1),
                               rtol=1e-12, atol=1e-12)


def test_forward_laplacian_value_and_jacobian():
    x = RNG.standard_normal(D)
    f = FUNCTIONS["vector_output"]
    value, jac, lap = ft.forward_laplacian(f)(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-15)
    np.testing.assert_allclose(jac, ft.jacfwd(f)(x), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(lap, hessian_trace(f, x), rtol=1e-12)


def test_pytree_inputs_and_argnums():
    """The coordinates are the flattened leaves of the chosen arguments, concatenated."""
    def f(p, y, c):
        return np.sum(np.sin(p["a"]) * p["b"] ** 2) * np.exp(y).sum() * c
    p = {"a": RNG.standard_normal((2, 2)), "b": RNG.standard_normal(4).reshape(2, 2)}
    y = RNG.standard_normal(3)

    def flat(z):
        return f({"a": z[:4].reshape(2, 2), "b": z[4:8].reshape(2, 2)}, z[8:], 2.0)
    z = np.concatenate([p["a"].ravel(), p["b"].ravel(), y])
    np.testing.assert_allclose(ft.laplacian(f, argnums=(0, 1))(p, y, 2.0),
                               np.trace(ft.hessian(flat)(z)), rtol=1e-12)
    np.testing.assert_allclose(ft.laplacian(f, argnums=1)(p, y, 2.0),
                               np.trace(ft.hessian(flat)(z)[8:, 8:]), rtol=1e-12)
    value, jac, _ = ft.forward_laplacian(f, argnums=(0, 1))(p, y, 2.0)
    g = ft.grad(f, argnums=(0, 1))(p, y, 2.0)
    np.testing.assert_allclose(jac[0]["a"], g[0]["a"], rtol=1e-13)
    np.testing.assert_allclose(jac[1], g[1], rtol=1e-13)


def test_matrix_input():
    x = RNG.standard_normal((3, 2))
    f = lambda m: np.sum(np.tanh(m @ m.T))  # noqa: E731
    np.testing.assert_allclose(ft.laplacian(f)(x),
                               np.trace(ft.hessian(f)(x).reshape(6, 6)), rtol=1e-12)


def test_vmap_over_points_is_the_loop():
    xs = RNG.standard_normal((7, D))
    np.testing.assert_allclose(ft.vmap(ft.laplacian(mlp))(xs),
                               [hessian_trace(mlp, x) for x in xs], rtol=1e-12, atol=1e-12)


def pinn_loss(params, xs, lap):
    u = lambda x: mlp(x, params)  # noqa: E731
    residual = ft.vmap(lap(u))(xs) - np.sum(np.sin(xs), axis=1)
    return np.mean(residual ** 2)


def test_grad_of_pinn_loss():
    xs = RNG.standard_normal((6, D))
    params = (W1, B1, W2)
    g = ft.grad(pinn_loss)(params, xs, ft.laplacian)
    g_ref = ft.grad(pinn_loss)(params, xs, lambda u: lambda x: np.trace(ft.hessian(u)(x)))
    for a, b in zip(g, g_ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_jit(backend):
    xs = RNG.standard_normal((6, D))
    eager = ft.vmap(ft.laplacian(mlp))(xs)
    jitted = ft.jit(ft.vmap(ft.laplacian(mlp)), backend=backend)
    for _ in range(2):
        np.testing.assert_allclose(jitted(xs), eager, rtol=1e-12, atol=1e-12)
    loss = ft.jit(ft.grad(lambda p, xs: pinn_loss(p, xs, ft.laplacian)), backend=backend)
    g_ref = ft.grad(pinn_loss)((W1, B1, W2), xs, ft.laplacian)
    for a, b in zip(loss((W1, B1, W2), xs), g_ref):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_hutchinson_is_its_quadratic_forms():
    """One estimate is the mean of v^T H v over the Rademacher vectors the key gives."""
    x = RNG.standard_normal(D)
    key = ft.random.key(3)
    est = ft.laplacian(mlp, estimator="hutchinson", key=key, samples=6)(x)
    v = np.where(ft.random.bernoulli(key, 0.5, shape=(6, D)), 1.0, -1.0)
    h = ft.hessian(mlp)(x)
    np.testing.assert_allclose(est, np.mean(np.einsum("si,ij,sj->s", v, h, v)), rtol=1e-12)


def test_hutchinson_is_unbiased():
    x = RNG.standard_normal(D)
    f = FUNCTIONS["rational"]
    keys = ft.random.split(ft.random.key(0), 400)
    est = ft.vmap(lambda k: ft.laplacian(f, estimator="hutchinson", key=k, samples=3)(x))(keys)
    assert np.std(est) > 0  # really random
    se = np.std(est) / np.sqrt(len(est))
    assert abs(np.mean(est) - hessian_trace(f, x)) < 4 * se


def test_errors():
    x = np.ones(3)
    with pytest.raises(TypeError, match="dtype"):
        ft.laplacian(lambda n: n * 2)(np.arange(3))
    with pytest.raises(ValueError, match="shape"):
        ft.laplacian(np.sum, weights=np.ones(2))(x)
    with pytest.raises(ValueError, match="key"):
        ft.laplacian(np.sum, estimator="hutchinson")(x)
    with pytest.raises(ValueError, match="estimator"):
        ft.laplacian(np.sum, estimator="stochastic")(x)
    op = ft.defop("laplacian_test_cube", lambda xp, x: x ** 3)
    with pytest.raises(ft.JetRuleError, match="laplacian_test_cube"):
        ft.laplacian(lambda x: op(x).sum())(x)


def test_control_flow():
    """scan, fori_loop, while_loop and cond: eagerly, under vmap and under jit."""
    def scan_f(x):
        c, ys = ft.scan(lambda c, xi: (c * np.sin(xi) + xi, c ** 2), 1.0, x)
        return c + ys.sum()

    def loop_f(x):
        return ft.fori_loop(0, 3, lambda i, c: np.tanh(c) * x, x).sum()

    def while_f(x):
        return ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, np.sin(c[1]) * x),
                             (0, x))[1].sum()

    def cond_f(x):
        return ft.cond(x.sum() > 0, lambda x: np.exp(x).sum(), lambda x: np.cos(x).sum(), x)

    xs = np.array([[0.3, 0.7, -0.2], [-0.6, 0.1, -0.4]])
    for f in (scan_f, loop_f, while_f, cond_f):
        ref = [np.trace(ft.hessian(f)(x)) for x in xs]
        np.testing.assert_allclose(ft.vmap(ft.laplacian(f))(xs), ref, rtol=1e-12, atol=1e-12,
                                   err_msg=f.__name__)
        np.testing.assert_allclose(ft.jit(ft.vmap(ft.laplacian(f)))(xs), ref, rtol=1e-12,
                                   atol=1e-12, err_msg=f.__name__)


REAL_OPS = [info for info in OP_DB if info.differentiable and not info.creation]
JET_REFUSED = {"scipy.sparse.linalg.cg"}


@pytest.mark.parametrize("info", REAL_OPS, ids=lambda i: i.name)
def test_laplacian_ops(info):
    """Every op's first float64 real sample: the Laplacian, in all its float inputs, of a
    random linear functional of its real outputs equals the Hessian's trace."""
    rng = np.random.default_rng(5)
    for sample in info.samples(rng):
        floats = [x for x in sample.leaves() if x.dtype.kind in "fc"]
        if floats and all(x.dtype == np.float64 for x in floats):
            break
    else:
        pytest.skip("no real float64 sample")
    f, floats = float_leaf_function(info.fn, sample)
    f = real_outputs(f)
    probes = [rng.standard_normal(np.shape(o)) for o in f(*floats)]
    sizes = [x.size for x in floats]

    def g(z):
        parts, k = [], 0
        for x, n in zip(floats, sizes):
            parts.append(z[k:k + n].reshape(x.shape))
            k += n
        return sum(np.sum(p * o) for p, o in zip(probes, f(*parts)))
    z = np.concatenate([x.ravel() for x in floats])
    if info.name in JET_REFUSED:
        with pytest.raises(ft.JetRuleError):
            ft.laplacian(g)(z)
        return
    lap = ft.laplacian(g)(z)
    ref = np.trace(ft.hessian(g)(z))
    np.testing.assert_allclose(lap, ref, rtol=1e-8, atol=1e-8 * (1 + abs(ref)),
                               err_msg=f"{info.name} sample {sample.name}")
