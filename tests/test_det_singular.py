"""det's derivative is the adjugate, defined at every matrix (issue 20, item 6): grad and jvp
of det at singular matrices used to raise LinAlgError; torch and JAX return the adjugate
([[4, -2], [-2, 1]] for [[1, 2], [2, 4]]). slogdet's sign has a zero derivative there too."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.ops import linalg as la

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def cofactor_adjugate(a):
    """adj(a)[j, i] = (-1)^(i+j) det(a without row i and column j), by minors."""
    n = a.shape[-1]
    adj = np.zeros_like(a)
    for i, j in itertools.product(range(n), repeat=2):
        minor = np.delete(np.delete(a, i, 0), j, 1)
        adj[j, i] = (-1) ** (i + j) * np.linalg.det(minor)
    return adj


def det_finite_differences(a, h=1e-6):
    """det is a polynomial: central differences are exact up to rounding, singular or not."""
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = h
        g[idx] = (np.linalg.det(a + d) - np.linalg.det(a - d)) / (2 * h)
    return g


def low_rank(rng, n, rank, dtype=np.float64):
    u, v = rng.integers(-3, 4, (n, rank)), rng.integers(-3, 4, (rank, n))
    a = (u @ v).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * (rng.integers(-2, 3, (n, rank)) @ v)
    return a


def test_the_issues_example():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_allclose(ft.grad(fnp.linalg.det)(a), [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-14)
    out, t = ft.jvp(fnp.linalg.det, (a,), (np.eye(2),))
    assert out == 0.0 and t == pytest.approx(5.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 5), deficiency=st.integers(0, 3), seed=st.integers(0, 2 ** 16),
       dtype=st.sampled_from([np.float64, np.complex128]))
def test_grad_and_jvp_of_det_are_the_adjugate(n, deficiency, seed, dtype):
    """Rank n (generic), n - 1 (the adjugate has rank one) and n - 2 or less (it is zero):
    grad against the cofactor formula and finite differences, jvp as tr(adj da)."""
    rng = np.random.default_rng(seed)
    a = low_rank(rng, n, max(n - deficiency, 0), dtype)
    adj = cofactor_adjugate(a)
    scale = max(1.0, np.abs(adj).max())
    np.testing.assert_allclose(la.adjugate(a), adj, atol=1e-9 * scale)
    if dtype == np.float64:
        g = ft.grad(fnp.linalg.det)(a)
        np.testing.assert_allclose(g, adj.T, atol=1e-9 * scale)
        np.testing.assert_allclose(g, det_finite_differences(a), atol=1e-5 * scale)
    da = rng.standard_normal(a.shape).astype(dtype)
    out, t = ft.jvp(fnp.linalg.det, (a,), (da,))
    np.testing.assert_allclose(t, np.trace(adj @ da), atol=1e-8 * scale * np.abs(da).sum())
    _, vjp_fn = ft.vjp(fnp.linalg.det, a)   # the transpose: <ct, J da> == <J^T ct, da>
    np.testing.assert_allclose(np.sum(vjp_fn(np.ones((), dtype))[0] * da), t,
                               atol=1e-8 * scale * np.abs(da).sum())


def test_vmap_of_grad_mixes_singular_and_regular_matrices():
    rng = np.random.default_rng(0)
    batch = np.stack([np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]),   # rank 2
                      low_rank(rng, 3, 1),                                              # rank 1
                      np.zeros((3, 3)),
                      rng.standard_normal((3, 3)) + 3 * np.eye(3)])
    got = ft.vmap(ft.grad(fnp.linalg.det))(batch)
    np.testing.assert_allclose(got, [cofactor_adjugate(a).T for a in batch], atol=1e-12)
    t = ft.vmap(lambda a: ft.jvp(fnp.linalg.det, (a,), (np.eye(3),))[1])(batch)
    np.testing.assert_allclose(t, [np.trace(cofactor_adjugate(a)) for a in batch], atol=1e-12)
    np.testing.assert_allclose(ft.grad(lambda b: fnp.sum(fnp.linalg.det(b)))(batch), got,
                               atol=1e-12)


def test_second_derivatives_where_det_is_invertible():
    """The adjugate's own derivative (det's Hessian) against finite differences of grad."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    h = ft.hessian(fnp.linalg.det)(a)
    g, eps = ft.grad(fnp.linalg.det), 1e-5
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        np.testing.assert_allclose(h[(Ellipsis,) + idx], (g(a + d) - g(a - d)) / (2 * eps),
                                   atol=1e-7)
    np.testing.assert_allclose(ft.jacfwd(ft.grad(fnp.linalg.det))(a), h, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_slogdet_sign_has_a_zero_derivative_at_singular_matrices(dtype):
    """jvp and grad through slogdet's sign are 0 where the matrix is singular (they used to
    raise); log|det| = -inf has no finite derivative there: NaN."""
    a = np.array([[1.0, 2.0], [2.0, 4.0]], dtype=dtype)
    da = np.array([[0.5, -1.0], [2.0, 1.0]], dtype=dtype)
    (sign, logdet), (t_sign, t_logdet) = ft.jvp(fnp.linalg.slogdet, (a,), (da,))
    assert sign == 0 and logdet == -np.inf
    assert t_sign == 0 and np.isnan(t_logdet)
    if dtype == np.float64:
        np.testing.assert_array_equal(ft.grad(lambda a: fnp.linalg.slogdet(a)[0])(a), 0.0)
        assert np.isnan(ft.grad(lambda a: fnp.linalg.slogdet(a)[1])(a)).all()
    else:
        _, vjp_fn = ft.vjp(lambda a: tuple(fnp.linalg.slogdet(a)), a)
        np.testing.assert_array_equal(vjp_fn((np.ones((), dtype), np.zeros(())))[0], 0.0)


def test_slogdet_under_vmap_keeps_regular_matrices_exact():
    """A singular matrix in the batch does not disturb the others' derivatives."""
    rng = np.random.default_rng(2)
    regular = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    batch = np.stack([regular, np.zeros((3, 3))])
    g = ft.vmap(ft.grad(lambda a: fnp.linalg.slogdet(a)[1]))(batch)
    np.testing.assert_allclose(g[0], np.linalg.inv(regular).T, rtol=1e-12)
    assert np.isnan(g[1]).all()
    t = ft.vmap(lambda a: ft.jvp(fnp.linalg.slogdet, (a,), (np.eye(3),))[1][1])(batch)
    np.testing.assert_allclose(t[0], np.trace(np.linalg.inv(regular)), rtol=1e-12)
    assert np.isnan(t[1])
