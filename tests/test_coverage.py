"""Hand-written checks of the coverage functions where the generic op tests cannot reach:
functions that need concrete values (unique, allclose), NumPy's and SciPy's own functions on
wrappers, the errors they give, the ufunc methods against NumPy's, and gelu's two forms."""
import math

import numpy as np
import pytest

pytest.importorskip("scipy", reason="SciPy (the scipy extra) gives these tests' references")
import scipy.linalg  # noqa: E402
import scipy.special  # noqa: E402
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
import functorch_lite.scipy as fsp


def test_unique_under_grad_carries_the_first_occurrences_derivative():
    x = np.array([3.0, 1.0, 3.0, 2.0])

    def f(x):
        values, counts = fnp.unique(x, return_counts=True)
        return fnp.sum(values ** 2 * counts)
    g = ft.grad(f)(x)
    # values [1, 2, 3] counted [1, 1, 2]: d/dx of sum(v^2 c) lands on the first occurrences
    np.testing.assert_allclose(g, [2 * 3.0 * 2, 2 * 1.0, 0.0, 2 * 2.0])
    assert f(x) == np.sum(np.unique(x) ** 2 * np.unique(x, return_counts=True)[1])


def test_unique_and_allclose_are_refused_under_vmap():
    xs = np.array([[1.0, 1.0], [1.0, 2.0]])
    with pytest.raises(TypeError, match="unique cannot run under vmap"):
        ft.vmap(fnp.unique)(xs)
    with pytest.raises(TypeError, match="batched value"):
        ft.vmap(lambda x: fnp.allclose(x, 1.0))(xs)


def test_allclose_is_a_python_bool():
    a = np.array([1.0, 2.0])
    assert fnp.allclose(a, a + 1e-9) is True
    assert fnp.allclose(a, a + 1.0) is False
    assert np.allclose(a, a + 1e-9) is True


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum, np.logaddexp])
def test_ufunc_methods_through_numpy_protocol_under_vmap_and_grad(ufunc):
    rng = np.random.default_rng(0)
    xs = rng.uniform(0.5, 1.5, (3, 4, 5))
    for method in ("reduce", "accumulate"):
        got = ft.vmap(lambda x: getattr(ufunc, method)(x, axis=1))(xs)
        expected = np.stack([getattr(ufunc, method)(x, axis=1) for x in xs])
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    x = xs[0]
    grad = ft.grad(lambda x: fnp.sum(getattr(ufunc, "accumulate")(x, axis=0)))(x)
    eps = 1e-6
    fd = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        fd[idx] = (np.sum(ufunc.accumulate(x + d, axis=0))
                   - np.sum(ufunc.accumulate(x - d, axis=0))) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)


def test_scipy_special_ufuncs_on_wrappers_reach_functorch_lite_scipy():
    x = np.linspace(-1.5, 1.5, 5)
    g = ft.vmap(ft.grad(scipy.special.erf))(x)
    np.testing.assert_allclose(g, 2 / math.sqrt(math.pi) * np.exp(-x ** 2), rtol=1e-12)
    g = ft.grad(lambda x: np.sum(scipy.special.gammaln(x + 3)))(x)
    np.testing.assert_allclose(g, scipy.special.digamma(x + 3), rtol=1e-12)


def test_scipy_errors_name_the_right_function():
    x = np.ones((2, 3))
    with pytest.raises(TypeError, match=r"scipy\.special\.jv is not supported.*"
                                        r"functorch_lite\.scipy\.special has"):
        ft.vmap(lambda x: scipy.special.jv(1, x))(x)
    with pytest.raises(TypeError, match=r"use functorch_lite\.scipy\.special\.logsumexp"):
        ft.vmap(scipy.special.logsumexp)(x)
    with pytest.raises(TypeError, match=r"use functorch_lite\.scipy\.linalg\.expm"):
        ft.grad(lambda a: scipy.linalg.expm(a).sum())(np.eye(2))


def test_storing_a_wrapper_into_a_numpy_array_points_to_at():
    def slice_store(x):
        y = np.zeros(3)
        y[:2] = x[:2]
        return fnp.sum(y * x)

    def slot_store(x):
        y = np.zeros(3)
        y[0] = x[0]
        return fnp.sum(y * x)
    with pytest.raises(TypeError, match=r"fnp\.at\(y\)\[idx\]\.set\(v\)"):
        ft.grad(slice_store)(np.ones(3))
    # one slot: NumPy replaces the error by its own ValueError, caused by ours
    with pytest.raises(ValueError) as info:
        ft.grad(slot_store)(np.ones(3))
    assert ".at[idx].set(v)" in str(info.value.__cause__)
    # the functional form gives the right gradient
    g = ft.grad(lambda x: fnp.sum(fnp.at(np.zeros(3))[0].set(x[0]) * x))(np.ones(3) * 2)
    np.testing.assert_allclose(g, [4.0, 0.0, 0.0])


def test_max_initial_joins_the_reduction_under_grad():
    a = np.array([0.5, 2.0, -1.0])
    assert float(ft.grad(lambda a: np.max(a, initial=0.0))(a)[1]) == 1.0
    np.testing.assert_array_equal(ft.grad(lambda a: np.max(a, initial=5.0))(a), np.zeros(3))
    assert fnp.max(a, initial=5.0) == np.max(a, initial=5.0)


def test_gelu_exact_and_tanh_forms():
    x = np.linspace(-3, 3, 7)
    exact = 0.5 * x * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x]))
    np.testing.assert_allclose(ft.nn.gelu(x, approximate=False), exact, rtol=1e-14)
    np.testing.assert_allclose(ft.nn.gelu(x, approximate="none"), exact, rtol=1e-14)
    np.testing.assert_allclose(ft.nn.gelu(x), exact, rtol=1e-14)  # the default, as PyTorch
    np.testing.assert_allclose(ft.nn.gelu(x, approximate=True), ft.nn.gelu(x, approximate="tanh"))
    assert np.max(np.abs(ft.nn.gelu(x, approximate="tanh") - exact)) < 1e-3  # the tanh form
    pdf = np.exp(-x ** 2 / 2) / math.sqrt(2 * math.pi)
    g = ft.vmap(ft.grad(lambda v: ft.nn.gelu(v, approximate=False)))(x)
    np.testing.assert_allclose(g, 0.5 * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x]))
                               + x * pdf, rtol=1e-12)
    with pytest.raises(ValueError, match="approximate"):
        ft.nn.gelu(x, approximate="fast")


def test_searchsorted_batched_tables_and_queries_match_a_loop():
    rng = np.random.default_rng(1)
    tables = np.sort(rng.standard_normal((4, 6)), axis=1)
    queries = rng.standard_normal((4, 2, 3))
    for side in ("left", "right"):
        got = ft.vmap(lambda a, v: fnp.searchsorted(a, v, side=side))(tables, queries)
        expected = np.stack([np.searchsorted(a, v, side) for a, v in zip(tables, queries)])
        np.testing.assert_array_equal(got, expected)


def test_lu_factor_and_expm_derivatives_against_scipy_finite_differences():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3))
    u = rng.standard_normal((3, 3))

    def f(a):
        lu, _ = fsp.linalg.lu_factor(a)
        return fnp.sum(lu * u) + fnp.sum(fsp.linalg.expm(a) * u)

    def ref(a):
        return np.sum(scipy.linalg.lu_factor(a)[0] * u) + np.sum(scipy.linalg.expm(a) * u)
    g = ft.grad(f)(a)
    eps = 1e-6
    fd = np.array([(ref(a + eps * e) - ref(a - eps * e)) / (2 * eps)
                   for e in np.eye(9).reshape(9, 3, 3)]).reshape(3, 3)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def _phase_free_eig_loss(a, u_w, u_v):
    """Eigenvalues (real and imaginary parts) and |v|^2 (which does not depend on the phase
    LAPACK picks for each eigenvector): a real function with well-defined derivatives."""
    w, v = fnp.linalg.eig(a)
    return (fnp.sum(fnp.real(w) * u_w.real + fnp.imag(w) * u_w.imag)
            + fnp.sum((fnp.real(v) ** 2 + fnp.imag(v) ** 2) * u_v))


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_eig_and_eigvals_derivatives_against_finite_differences(shape):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape)                 # complex eigenvalue pairs and real ones
    assert np.iscomplexobj(np.linalg.eigvals(a)) and np.any(np.linalg.eigvals(a).imag != 0)
    u_w = rng.standard_normal(shape[:-1]) + 1j * rng.standard_normal(shape[:-1])
    u_v = rng.standard_normal(shape)
    basis = np.eye(a.size).reshape((a.size,) + shape)
    for f in (lambda a: _phase_free_eig_loss(a, u_w, u_v),
              lambda a: fnp.sum(fnp.real(fnp.linalg.eigvals(a)) * u_w.real
                                + fnp.imag(fnp.linalg.eigvals(a)) * u_w.imag)):
        eps = 1e-6
        fd = np.array([(f(a + eps * e) - f(a - eps * e)) / (2 * eps) for e in basis])
        fd = fd.reshape(shape)
        np.testing.assert_allclose(ft.grad(f)(a), fd, rtol=1e-6, atol=1e-7)
        t = rng.standard_normal(shape)
        _, jt = ft.jvp(f, (a,), (t,))
        np.testing.assert_allclose(jt, np.sum(fd * t), rtol=1e-6, atol=1e-7)
    # per-example gradients of the eigenvalue part match a loop
    per_example = ft.vmap(ft.grad(lambda m: fnp.sum(fnp.real(fnp.linalg.eigvals(m)) ** 2)))(
        a.reshape((-1,) + shape[-2:]))
    loop = [ft.grad(lambda m: fnp.sum(fnp.real(fnp.linalg.eigvals(m)) ** 2))(m)
            for m in a.reshape((-1,) + shape[-2:])]
    np.testing.assert_allclose(per_example, loop, rtol=1e-12)


# -- properties over shapes (hypothesis) -----------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 8), m=st.integers(1, 8), mode=st.sampled_from(["full", "same", "valid"]),
       seed=st.integers(0, 2 ** 16))
def test_convolve_correlate_match_numpy_and_their_vjp_is_the_transpose(n, m, mode, seed):
    rng = np.random.default_rng(seed)
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    for ours, theirs in ((fnp.convolve, np.convolve), (fnp.correlate, np.correlate)):
        out = ours(a, v, mode)
        np.testing.assert_allclose(out, theirs(a, v, mode), rtol=1e-12, atol=1e-12)
        # linear in a: <u, J t> == <J^T u, t>
        u, t = rng.standard_normal(np.shape(out)), rng.standard_normal(n)
        _, jt = ft.jvp(lambda a: ours(a, v, mode), (a,), (t,))
        (jtu,) = ft.vjp(lambda a: ours(a, v, mode), a)[1](u)
        np.testing.assert_allclose(np.sum(u * jt), np.sum(jtu * t), rtol=1e-10, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       name=st.sampled_from(["add", "multiply", "maximum", "minimum", "logaddexp"]),
       method=st.sampled_from(["reduce", "accumulate"]), data=st.data())
def test_ufunc_methods_match_numpy_on_every_axis(shape, name, method, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.random.default_rng(len(shape)).uniform(0.5, 1.5, shape)
    got = getattr(getattr(fnp, name), method)(x, axis=axis)
    np.testing.assert_allclose(got, getattr(getattr(np, name), method)(x, axis=axis),
                               rtol=1e-12)
    batched = ft.vmap(lambda x: getattr(getattr(np, name), method)(x, axis=axis))(x[None])
    np.testing.assert_allclose(batched[0], got, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(n_knots=st.integers(2, 6), shape=st.lists(st.integers(1, 3), max_size=2),
       seed=st.integers(0, 2 ** 16))
def test_interp_and_searchsorted_match_numpy(n_knots, shape, seed):
    rng = np.random.default_rng(seed)
    xp = np.sort(rng.choice(np.arange(-10.0, 10.0, 0.5), n_knots, replace=False))
    fp = rng.standard_normal(n_knots)
    x = rng.uniform(-12, 12, shape)
    np.testing.assert_allclose(fnp.interp(x, xp, fp), np.interp(x, xp, fp), rtol=1e-12)
    for side in ("left", "right"):
        np.testing.assert_array_equal(fnp.searchsorted(xp, x, side), np.searchsorted(xp, x, side))


def test_lu_solve_refuses_a_right_hand_side_of_the_wrong_length():
    import functorch_lite.scipy.linalg as fsl
    lu_piv = fsl.lu_factor(np.array([[4.0, 1.0], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="b has 3 rows"):
        fsl.lu_solve(lu_piv, np.ones(3))
