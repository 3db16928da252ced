"""Derivatives at the points where the textbook partial is 0/0 or inf - inf but the function is
defined (issue 20): hypot at the origin and at infinity, logaddexp/logaddexp2 of infinities.
The conventions (partials.py) are limits, checked here against one-sided difference quotients
and against the formula away from the special points, in every mode."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
INF = np.inf


def _partials_every_mode(f, x, y):
    """(df/dx, df/dy) by grad, by jvp, and by jacfwd/jacrev of the stacked pair."""
    g = ft.grad(f, argnums=(0, 1))(x, y)
    t = tuple(ft.jvp(f, (x, y), tangents)[1] for tangents in ((1.0, 0.0), (0.0, 1.0)))
    pair = lambda v: f(v[0], v[1])  # noqa: E731
    v = np.array([x, y])
    return {"grad": np.array(g, float), "jvp": np.array(t, float),
            "jacrev": ft.jacrev(pair)(v), "jacfwd": ft.jacfwd(pair)(v)}


@pytest.mark.parametrize("x, y, expected", [
    (0.0, 0.0, (0.0, 0.0)),               # the origin: the subgradient abs'(0) = 0 gives
    (INF, 3.0, (1.0, 0.0)), (-INF, 3.0, (-1.0, 0.0)), (3.0, -INF, (0.0, -1.0)),
    (INF, INF, (0.5 ** 0.5, 0.5 ** 0.5)), (INF, -INF, (0.5 ** 0.5, -0.5 ** 0.5)),
    (3.0, 4.0, (0.6, 0.8)), (0.0, -2.0, (0.0, -1.0)),
])
def test_hypot_partials_at_the_origin_and_infinity(x, y, expected):
    for mode, got in _partials_every_mode(fnp.hypot, x, y).items():
        np.testing.assert_allclose(got, expected, rtol=1e-15, err_msg=mode)


def test_hypot_at_the_origin_matches_abs_and_limits():
    # hypot(x, 0) = |x| and hypot(0, y) = |y|: their derivatives at 0 are abs'(0) = 0
    assert ft.grad(lambda x: fnp.hypot(x, 0.0))(0.0) == ft.grad(fnp.abs)(0.0) == 0.0
    # away from the origin the partial is x / hypot, approached from any direction
    for angle in np.linspace(0, 2 * np.pi, 7):
        x, y = 1e-300 * np.cos(angle), 1e-300 * np.sin(angle)
        np.testing.assert_allclose(ft.grad(fnp.hypot, argnums=(0, 1))(x, y),
                                   (np.cos(angle), np.sin(angle)), rtol=1e-12, atol=1e-15)
    # float32 stays float32; vmap over a mixed batch
    g = ft.grad(lambda v: fnp.sum(fnp.hypot(v, np.float32(0))))(np.zeros(3, np.float32))
    assert g.dtype == np.float32 and np.array_equal(g, np.zeros(3))
    xs, ys = np.array([0.0, 3.0, INF]), np.array([0.0, 4.0, 1.0])
    np.testing.assert_array_equal(ft.vmap(ft.grad(fnp.hypot))(xs, ys), [0.0, 0.6, 1.0])


@pytest.mark.parametrize("op", [fnp.logaddexp, fnp.logaddexp2])
@pytest.mark.parametrize("x, y, expected", [
    (INF, INF, (0.5, 0.5)), (-INF, -INF, (0.5, 0.5)),     # the limit along the diagonal
    (INF, 3.0, (1.0, 0.0)), (3.0, INF, (0.0, 1.0)), (INF, -INF, (1.0, 0.0)),
    (-INF, 3.0, (0.0, 1.0)), (1e300, 1e300, (0.5, 0.5)),  # log 2 below the ulp of 1e300
    (1.0, 1.0, (0.5, 0.5)),
])
def test_logaddexp_partials_at_infinities(op, x, y, expected):
    for mode, got in _partials_every_mode(op, x, y).items():
        np.testing.assert_allclose(got, expected, rtol=1e-15, err_msg=mode)


@pytest.mark.parametrize("op, base", [(fnp.logaddexp, np.e), (fnp.logaddexp2, 2.0)])
def test_logaddexp_partials_keep_the_formula_at_finite_points(op, base):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(50) * 30, rng.standard_normal(50) * 30
    gx, gy = ft.grad(lambda x, y: fnp.sum(op(x, y)), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, 1 / (1 + base ** (y - x)), rtol=1e-13)
    np.testing.assert_allclose(gy, 1 / (1 + base ** (x - y)), rtol=1e-13)
    x32 = x.astype(np.float32)
    assert ft.grad(lambda x: fnp.sum(op(x, np.float32(INF))))(x32).dtype == np.float32


def test_softplus_gradient_is_finite_at_infinity():
    # softplus(x) = logaddexp(x, 0): its derivative sigmoid(x) is 1 at +inf and 0 at -inf
    np.testing.assert_array_equal(ft.vmap(ft.grad(ft.nn.softplus))(np.array([INF, -INF, 0.0])),
                                  [1.0, 0.0, 0.5])


def test_against_jax_where_jax_is_finite_and_right():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    for x, y in [(3.0, 4.0), (1.0, 1.0), (INF, -INF), (-2.0, 5.0)]:   # JAX in float32
        np.testing.assert_allclose(ft.grad(fnp.logaddexp, argnums=(0, 1))(x, y),
                                   jax.grad(jnp.logaddexp, argnums=(0, 1))(x, y), rtol=1e-6)
    for x, y in [(3.0, 4.0), (0.0, 2.0), (-1.0, 0.5)]:
        np.testing.assert_allclose(ft.grad(fnp.hypot, argnums=(0, 1))(x, y),
                                   jax.grad(jnp.hypot, argnums=(0, 1))(x, y), rtol=1e-6)
