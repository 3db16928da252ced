"""Hand-written checks of the NumPy composites that the sample database cannot express:
all-NaN slices of the nan* reductions (NaN result, zero derivative), the unsupported quantile
methods, lstsq's documented difference, and matrix_power / lstsq under vmap and jvp."""
import warnings

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

X_NAN = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 3.0]])


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanmax", "nanmin"])
def test_all_nan_slice_matches_numpy_and_has_zero_gradient(name):
    ours, ref = getattr(fnp, name), getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on all-NaN slices
        expected = ref(X_NAN, axis=1)
    np.testing.assert_array_equal(ours(X_NAN, axis=1), expected)
    # derivative of the finite slice only, and no NaN leaks into the derivative
    g = ft.grad(lambda x: fnp.nansum(ours(x, axis=1)))(X_NAN)
    assert not np.any(np.isnan(g))
    assert np.all(g[0] == 0) and g[1, 1] == 0
    expected_row = {"nansum": [1, 0, 1], "nanmean": [0.5, 0, 0.5], "nanmax": [0, 0, 1],
                    "nanmin": [1, 0, 0]}[name]
    np.testing.assert_allclose(g[1], expected_row)
    _, t = ft.jvp(lambda x: ours(x, axis=1), (X_NAN,), (np.ones_like(X_NAN),))
    np.testing.assert_allclose(t, [0.0, g[1].sum()])


@pytest.mark.parametrize("fn, q", [(fnp.quantile, 0.5), (fnp.percentile, 50.0)])
def test_quantile_methods_other_than_linear_are_refused(fn, q):
    with pytest.raises(NotImplementedError, match="nearest"):
        fn(np.arange(5.0), q, method="nearest")
    with pytest.raises(ValueError):
        fnp.quantile(np.arange(5.0), 1.5)


def test_lstsq_rank_deficient_residuals_difference_is_as_documented():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])  # rank 1, m > n
    b = np.array([1.0, 0.0, 2.0])
    x, res, rank, s = fnp.linalg.lstsq(a, b)
    x_np, res_np, rank_np, s_np = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x, x_np, atol=1e-12)
    np.testing.assert_allclose(s, s_np, atol=1e-12)
    assert rank == rank_np == 1 and rank.dtype == np.int32
    assert res_np.shape == (0,)  # NumPy: empty for rank-deficient a
    np.testing.assert_allclose(res, [np.sum((b - a @ x_np) ** 2)])  # ours: the residual


def test_lstsq_vmap_and_jvp_of_float_outputs():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5, 3)) + np.eye(5, 3)
    b = rng.standard_normal((4, 5))
    x, res, rank, s = ft.vmap(fnp.linalg.lstsq)(a, b)
    for i in range(4):
        ref = np.linalg.lstsq(a[i], b[i])
        for got, exp in zip((x[i], res[i], rank[i], s[i]), ref):
            np.testing.assert_allclose(got, exp, rtol=1e-10, atol=1e-12)
    ta = rng.standard_normal(a[0].shape)
    _, (tx, tres, _, ts) = ft.jvp(lambda m: fnp.linalg.lstsq(m, b[0]), (a[0],), (ta,))
    h = 1e-6
    plus, minus = np.linalg.lstsq(a[0] + h * ta, b[0]), np.linalg.lstsq(a[0] - h * ta, b[0])
    for got, k in ((tx, 0), (tres, 1), (ts, 3)):
        np.testing.assert_allclose(got, (plus[k] - minus[k]) / (2 * h), rtol=1e-5, atol=1e-7)


def test_matrix_power_zero_and_negative_under_vmap():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 2, 2)) + 2 * np.eye(2)
    for n in (0, -3, 5):
        got = ft.vmap(lambda m: fnp.linalg.matrix_power(m, n))(a)
        np.testing.assert_allclose(got, np.linalg.matrix_power(a, n), rtol=1e-10)
    g = ft.grad(lambda m: fnp.sum(fnp.linalg.matrix_power(m, 0)))(a[0])
    np.testing.assert_array_equal(g, np.zeros((2, 2)))


def test_numpy_functions_dispatch_on_wrappers_under_grad():
    """Plain NumPy code (np.median, np.linalg.pinv, ...) keeps working under transforms."""
    rng = np.random.default_rng(2)
    x = rng.permutation(7) + rng.uniform(0.1, 0.9, 7)

    def f(v):
        m = np.median(v)
        return np.ptp(v) + m + np.nanmean(v) + np.quantile(v, 0.3)
    g = ft.grad(f)(x)
    h = 1e-6
    fd = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(7)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_fmod_special_values_match_numpy():
    x = np.array([-5.0, 5.0, 3.0, -2.5, 0.0, -0.0, 7.0])
    y = np.array([np.inf, np.inf, -np.inf, 2.0, 3.0, 3.0, 0.0])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(fnp.fmod(x, y), np.fmod(x, y))
    np.testing.assert_array_equal(fnp.fmod(np.array([5, -5, 7]), np.array([0, 3, -3])),
                                  np.fmod(np.array([5, -5, 7]), np.array([0, 3, -3])))
    g = ft.grad(lambda a: fnp.sum(fnp.fmod(a, y[:4])))(x[:4])
    np.testing.assert_array_equal(g, np.ones(4))
