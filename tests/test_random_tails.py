"""truncated_normal far in the tails (issue 20): the log-space tail function of
functorch_lite._normal_tails against scipy.special.log_ndtr, Kolmogorov-Smirnov tests against
scipy.stats.truncnorm on intervals where 1 - Phi rounds to 0, derivatives in the bounds against
finite differences and the inverse-CDF formula, and the same draws on a device backend."""
import numpy as np
import pytest

pytest.importorskip("scipy", reason="SciPy (the scipy extra) gives these tests' references")
from scipy import special, stats  # noqa: E402

import functorch_lite as ft
from functorch_lite import _normal_tails as tails
from functorch_lite import random as fr

P_MIN = 1e-3
N = 20000
FAR = [(-9.0, -8.0), (7.0, 8.0), (8.0, 9.0), (20.0, 21.0)]


def test_log_upper_tail_against_scipy():
    y = np.concatenate([np.linspace(0, 40, 4001), np.geomspace(40, 1e4, 300)])
    ref = special.log_ndtr(-y)
    np.testing.assert_allclose(tails.log_upper_tail(y), ref, rtol=3e-15)
    y32 = y.astype(np.float32)
    got = tails.log_upper_tail(y32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, special.log_ndtr(-y32.astype(np.float64)), rtol=1e-6)
    x = np.linspace(-5, 30, 3501)
    np.testing.assert_allclose(tails.log_sf(x), special.log_ndtr(-x), rtol=1e-14)
    # below 0, log P(Z > x) = log1p(-Q(-x)) is about -Q(-x) = -exp(log Q(-x)): exp turns the
    # rounding of log Q (~|log Q| ulp) into a relative error of that size
    x = np.linspace(-30, -5, 2501)
    np.testing.assert_allclose(tails.log_sf(x), special.log_ndtr(-x), rtol=1e-12)
    assert tails.log_upper_tail(np.inf) == -np.inf and tails.log_sf(-np.inf) == 0.0


def test_inverse_log_upper_tail_inverts():
    tau = -np.geomspace(np.log(2), 1e5, 3000)
    y = tails.inverse_log_upper_tail(tau, 3)
    np.testing.assert_allclose(tails.log_upper_tail(y), tau, rtol=2e-15)
    q = np.linspace(1e-6, 0.5, 2001)     # against scipy's quantile function where it is exact
    np.testing.assert_allclose(tails.inverse_log_upper_tail(np.log(q), 3), -special.ndtri(q),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tails.inverse_log_sf(np.log(1 - q), 3), special.ndtri(q),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("lower, upper", FAR + [(-40.0, -39.0), (5.0, 5.001), (-3.0, 30.0),
                                                (0.0, np.inf), (-np.inf, np.inf)])
def test_truncated_normal_ks_in_the_tails(lower, upper, dtype):
    z = fr.truncated_normal(fr.key(4), lower, upper, (N,), dtype)
    assert z.dtype == dtype and np.all((z >= lower) & (z <= upper))
    assert stats.kstest(z.astype(np.float64), stats.truncnorm(lower, upper).cdf).pvalue > P_MIN


def test_truncated_normal_does_not_pile_on_the_bound():
    # the old erfinv draw returned 8.0 for every draw on [8, 9]: the mean is 8.1195
    z = fr.truncated_normal(fr.key(5), 8.0, 9.0, (N,))
    assert len(np.unique(z)) == N
    np.testing.assert_allclose(z.mean(), stats.truncnorm(8, 9).mean(), rtol=1e-3)
    w = fr.truncated_normal(fr.key(5), np.array([-21.0, 7.0]), np.array([-20.0, 8.0]), (N, 2))
    np.testing.assert_allclose(w.mean(axis=0), [stats.truncnorm(-21, -20).mean(),
                                                stats.truncnorm(7, 8).mean()], rtol=1e-3)


@pytest.mark.parametrize("lower, upper", [(-1.0, 2.0), (7.0, 8.0), (-9.0, -8.0),
                                          (0.5, np.inf), (-np.inf, -0.3)])
def test_truncated_normal_derivatives_in_the_bounds(lower, upper):
    k = fr.key(6)
    f = lambda a, b: fr.truncated_normal(k, a, b, (8,))  # noqa: E731
    ga, gb = ft.jacrev(f, argnums=(0, 1))(lower, upper)
    eps = 1e-6
    for g, bound, fd in [(ga, lower, lambda e: f(lower + e, upper)),
                         (gb, upper, lambda e: f(lower, upper + e))]:
        expected = (fd(eps) - fd(-eps)) / (2 * eps) if np.isfinite(bound) else 0.0
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-8)
    # the inverse-CDF formula: dx/da = (1 - u) phi(a) / phi(x), dx/db = u phi(b) / phi(x),
    # with u the draw's conditional CDF value
    x = f(lower, upper)
    u = (stats.norm.cdf(x) - stats.norm.cdf(lower)) / (stats.norm.cdf(upper) -
                                                       stats.norm.cdf(lower))
    if abs(lower) < 3 and np.isfinite(upper):
        np.testing.assert_allclose(gb, u * stats.norm.pdf(upper) / stats.norm.pdf(x), rtol=1e-8)
        np.testing.assert_allclose(ga, (1 - u) * stats.norm.pdf(lower) / stats.norm.pdf(x),
                                   rtol=1e-8)
    _, t = ft.jvp(lambda a: f(a, upper), (lower,), (1.0,))
    np.testing.assert_allclose(t, ga, rtol=1e-12)
    # per-example bounds under vmap(grad)
    lows = np.array([lower, lower + 0.1])
    g = ft.vmap(ft.grad(lambda a: fr.truncated_normal(k, a, upper, (8,)).sum()))(lows)
    np.testing.assert_allclose(g[0], ga.sum(), rtol=1e-12)


def test_truncated_normal_float32_bounds_and_no_warnings():
    with np.errstate(divide="raise", invalid="raise", over="raise"):
        for lower, upper in [(-np.inf, np.inf), (2.0, 2.0), (-np.inf, 0.0), (30.0, np.inf)]:
            z = fr.truncated_normal(fr.key(7), np.float32(lower), np.float32(upper), (50,),
                                    np.float32)
            assert z.dtype == np.float32 and np.all((z >= lower) & (z <= upper))
    z = fr.truncated_normal(fr.key(7), np.array([8.0, -9.0]), np.array([9.0, -8.0]), None,
                            np.float32)
    assert z.dtype == np.float32 and z.shape == (2,)


def test_truncated_normal_same_draws_on_a_device(dxp):
    k = fr.key(8)
    for lower, upper, dtype in [(8.0, 9.0, np.float64), (-21.0, -20.0, np.float32),
                                (-1.0, np.inf, np.float64)]:
        on_device = fr.truncated_normal(fr.key(8, like=dxp.zeros(1)), lower, upper, (64,),
                                        dtype)
        assert isinstance(on_device, dxp.ndarray) and on_device.dtype == dtype
        np.testing.assert_allclose(on_device.get(), fr.truncated_normal(k, lower, upper, (64,),
                                                                        dtype),
                                   rtol=1e-6 if dtype == np.float32 else 1e-13)
