"""The cdf and sf of scipy.stats t, gamma, beta, poisson and binom against SciPy (tails, edges,
outside the support), their derivatives against the densities and finite differences, vmap
over the shape parameters against a loop, and the refusal to differentiate a shape parameter of
gammainc, gammaincc and betainc."""
import numpy as np
import pytest

import functorch_lite as ft

scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")
from functorch_lite.scipy import special, stats  # noqa: E402


def _rel(ours, ref):
    ours, ref = np.asarray(ours), np.asarray(ref)
    return np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300))


X_T = np.concatenate([np.linspace(-40, 40, 161), [0.0, -1e-3, 1e-3, 1e3, -1e3]])


@pytest.mark.parametrize("method", ["cdf", "sf"])
@pytest.mark.parametrize("df", [0.7, 1.0, 2.0, 4.5, 30.0, 300.0, 1e4])
def test_t_matches_scipy_in_both_tails(method, df):
    ours = getattr(stats.t, method)(X_T, df, 0.3, 1.7)
    assert _rel(ours, getattr(scipy_stats.t, method)(X_T, df, 0.3, 1.7)) < 1e-12


@pytest.mark.parametrize("method", ["cdf", "sf"])
@pytest.mark.parametrize("a", [0.3, 1.0, 2.5, 10.0, 80.0])
def test_gamma_matches_scipy_with_zero_below_the_support(method, a):
    x = np.concatenate([np.linspace(-1, 150, 200), [0.0]])
    ours = getattr(stats.gamma, method)(x, a, 0.0, 1.3)
    assert _rel(ours, getattr(scipy_stats.gamma, method)(x, a, 0.0, 1.3)) < 1e-12


@pytest.mark.parametrize("method", ["cdf", "sf"])
@pytest.mark.parametrize("a, b", [(0.5, 0.5), (2.0, 3.0), (0.3, 5.0), (30.0, 2.0)])
def test_beta_matches_scipy_including_below_zero_and_above_one(method, a, b):
    x = np.concatenate([np.linspace(-0.5, 1.5, 101), [0.0, 1.0]])
    ours = getattr(stats.beta, method)(x, a, b, -0.1, 1.2)
    # atol: at z = 2.3e-17, SciPy's betaincc(0.5, 0.5, z) is 4.8e-12 from the arcsine law's
    # exact 1 - 2/pi asin(sqrt(z)), which ours matches to the last bit
    np.testing.assert_allclose(ours, getattr(scipy_stats.beta, method)(x, a, b, -0.1, 1.2),
                               rtol=1e-12, atol=1e-11)


@pytest.mark.parametrize("method", ["cdf", "sf"])
@pytest.mark.parametrize("mu", [0.1, 1.0, 4.5, 40.0])
def test_poisson_matches_scipy_at_negative_and_fractional_counts(method, mu):
    k = np.array([-3, -1, -0.5, 0, 1, 2, 2.5, 5, 10, 30, 100])
    assert _rel(getattr(stats.poisson, method)(k, mu, 1),
                getattr(scipy_stats.poisson, method)(k, mu, 1)) < 1e-12


@pytest.mark.parametrize("method", ["cdf", "sf"])
@pytest.mark.parametrize("n", [0, 1, 5, 20])
@pytest.mark.parametrize("p", [0.05, 0.5, 0.93])
def test_binom_matches_scipy_below_zero_and_from_n_on(method, n, p):
    k = np.array([-2, -1, 0, 1, 3, 4.5, 5, 6, 19, 20, 25])
    assert _rel(getattr(stats.binom, method)(k, n, p),
                getattr(scipy_stats.binom, method)(k, n, p)) < 1e-12


@pytest.mark.parametrize("df", [1.0, 3.5, 50.0])
def test_t_cdf_derivatives_are_the_density_and_its_derivative_also_at_the_centre(df):
    x = np.array([-30.0, -3.0, -0.4, 0.3, 0.3 + 1e-9, 2.0, 9.0])
    cdf = lambda x: stats.t.cdf(x, df, 0.3, 1.7)           # noqa: E731
    np.testing.assert_allclose(ft.vmap(ft.grad(cdf))(x), scipy_stats.t.pdf(x, df, 0.3, 1.7),
                               rtol=1e-12, atol=1e-15)
    h, x = 1e-5, x[[0, 1, 2, 3, 5, 6]]      # 1e-9 from the centre the 2nd derivative cancels
    fd = (scipy_stats.t.pdf(x + h, df, 0.3, 1.7) - scipy_stats.t.pdf(x - h, df, 0.3, 1.7)) / (2 * h)
    np.testing.assert_allclose(ft.vmap(ft.grad(ft.grad(cdf)))(x), fd, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("fn, ref, args", [
    (stats.gamma.cdf, scipy_stats.gamma.pdf, (2.2, 0.1, 1.3)),
    (stats.beta.cdf, scipy_stats.beta.pdf, (2.5, 1.7)),
    (stats.t.sf, lambda *a: -scipy_stats.t.pdf(*a), (4.0,))])
def test_continuous_derivative_in_x_is_the_density(fn, ref, args):
    x = np.array([0.15, 0.4, 0.8])
    np.testing.assert_allclose(ft.grad(lambda x: fn(x, *args).sum())(x), ref(x, *args),
                               rtol=1e-11)


@pytest.mark.parametrize("fn, ref, k, rate", [
    (stats.poisson.cdf, scipy_stats.poisson.cdf, np.array([0, 2, 7]), (3.3,)),
    (stats.poisson.sf, scipy_stats.poisson.sf, np.array([0, 2, 7]), (3.3,)),
    (stats.binom.cdf, scipy_stats.binom.cdf, np.array([0, 3, 8]), (10, 0.35)),
    (stats.binom.sf, scipy_stats.binom.sf, np.array([0, 3, 8]), (10, 0.35))])
def test_discrete_derivative_in_the_rate_matches_finite_differences(fn, ref, k, rate):
    *n, r = rate
    h = 1e-6
    fd = (ref(k, *n, r + h) - ref(k, *n, r - h)) / (2 * h)
    g = ft.jacfwd(lambda r: fn(k, *n, r))(r)
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ft.jacrev(lambda r: fn(k, *n, r))(r), g, rtol=1e-12)


def test_vmap_over_shape_parameters_matches_a_loop():
    rng = np.random.default_rng(0)
    a, b, x = rng.uniform(0.5, 4.0, 6), rng.uniform(0.5, 4.0, 6), rng.uniform(0.05, 0.95, 6)
    for fn, args in [(special.gammainc, (a, 3 * x)), (special.gammaincc, (a, 3 * x)),
                     (special.betainc, (a, b, x)), (stats.t.cdf, (4 * x - 2, a)),
                     (stats.beta.sf, (x, a, b))]:
        loop = np.stack([fn(*[v[i] for v in args]) for i in range(6)])
        np.testing.assert_allclose(ft.vmap(fn)(*args), loop, rtol=1e-14)
    loop = np.stack([ft.grad(special.betainc, argnums=2)(a[i], b[i], x[i]) for i in range(6)])
    np.testing.assert_allclose(ft.vmap(ft.grad(special.betainc, argnums=2))(a, b, x), loop,
                               rtol=1e-14)


@pytest.mark.parametrize("fn, args, argnum", [
    (special.gammainc, (2.0, 1.0), 0), (special.gammaincc, (2.0, 1.0), 0),
    (special.betainc, (2.0, 3.0, 0.4), 0), (special.betainc, (2.0, 3.0, 0.4), 1),
    (lambda x, df: stats.t.cdf(x, df), (0.5, 3.0), 1),
    (lambda k, n, p: stats.binom.cdf(k, n, p), (2.0, 7.0, 0.3), 1)])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_shape_parameter_derivative_raises(fn, args, argnum, mode):
    with pytest.raises(NotImplementedError, match="differentiable in x only"):
        if mode == "grad":
            ft.grad(fn, argnums=argnum)(*args)
        else:
            rest = lambda v: fn(*args[:argnum], v, *args[argnum + 1:])  # noqa: E731
            ft.jvp(rest, (args[argnum],), (1.0,))


def test_a_constant_shape_parameter_does_not_raise_and_stop_gradient_makes_one():
    g = ft.grad(lambda a: special.gammainc(ft.stop_gradient(a), 1.0) + a)(2.0)
    assert g == 1.0
    x = np.array([0.2, 0.7])
    np.testing.assert_allclose(ft.grad(lambda x: special.betainc(2.0, 3.0, x).sum())(x),
                               scipy_stats.beta.pdf(x, 2.0, 3.0), rtol=1e-12)


def test_special_values_match_scipy():
    a = np.array([0.1, 1.0, 5.0, 50.0])[:, None]
    x = np.array([0.0, 1e-3, 0.5, 1.0, 20.0, 200.0, -1.0])
    for ours, ref in [(special.gammainc, scipy_special.gammainc),
                      (special.gammaincc, scipy_special.gammaincc)]:
        np.testing.assert_array_equal(ours(a, x), ref(a, x))
    u = np.array([0.0, 0.3, 1.0, 1.5])
    np.testing.assert_array_equal(special.betainc(a, a.T[:, :, None], u)[0],
                                  scipy_special.betainc(a, a.T[:, :, None], u)[0])
