"""median, quantile and percentile of slices holding a NaN (Note [NaN slices of sort-based
statistics]): NaN there, as NumPy, eagerly and under vmap, grad and jit on both backends, per
slice with axis and keepdims; the derivative is 0 on a NaN slice and unchanged elsewhere (JAX's),
checked against finite differences of the finite outputs and against JAX itself."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

# NaN at [0, 1] and -NaN at [2, 3] (every sort puts both last): rows 0 and 2 and columns 1 and
# 3 hold one, the rest are finite
X = np.array([[0.3, np.nan, -1.2, 2.5, 0.9],
              [1.7, -0.4, 3.1, 0.2, -2.2],
              [-0.8, 2.9, 0.6, -np.nan, 1.4],
              [2.2, 0.1, -1.9, 1.1, -0.5]])
U = np.random.default_rng(0).standard_normal


CASES = {   # name: (function, q or None, kwargs, columns taken first)
    "median": ("median", None, {}, None), "median_axis1": ("median", None, {"axis": 1}, None),
    "median_axis0_keepdims": ("median", None, {"axis": 0, "keepdims": True}, None),
    "median_even_axis-1": ("median", None, {"axis": -1}, 4),
    "median_none_keepdims": ("median", None, {"axis": None, "keepdims": True}, None),
    "quantile_01_axis1": ("quantile", [0.0, 1.0], {"axis": 1}, None),
    "quantile_3q_axis0_keepdims": ("quantile", [0.0, 0.3, 0.75],
                                   {"axis": 0, "keepdims": True}, None),
    "quantile_scalar": ("quantile", 0.4, {}, None),
    "percentile_axis-1": ("percentile", [10.0, 50.0, 100.0], {"axis": -1}, None),
    "percentile_axis0": ("percentile", 50.0, {"axis": 0}, 3),
}


def _fn(name, ns=np):
    """CASES[name] as a function of the array, calling `ns`'s function (np.* dispatches on
    wrappers; on plain arrays np gives NumPy's own result, fnp the library's)."""
    op, q, kw, cols = CASES[name]
    f = getattr(ns, op)

    def fn(a):
        a = a if cols is None else a[:, :cols]
        return f(a, **kw) if q is None else f(a, q, **kw)
    return fn


def _numpy(name, x):
    return np.asarray(_fn(name)(x))


def _assert_same(got, want, what):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got, want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0, err_msg=what)


@pytest.mark.parametrize("name", CASES)
def test_nan_slices_are_nan_eagerly_and_under_every_transform(name):
    fn, want = _fn(name), _numpy(name, X)
    assert np.isnan(want).any()
    _assert_same(_fn(name, fnp)(X), want, "fnp on plain arrays")
    xs = np.stack([X, X[::-1]])
    batched = np.stack([_numpy(name, x) for x in xs])
    _assert_same(ft.vmap(fn)(xs), batched, "vmap")
    for backend in ("numpy", "xla"):
        if backend == "xla":
            pytest.importorskip("jax")
        jitted = ft.jit(fn, backend=backend)
        for call in range(2):                     # the tracing call, then the compiled replay
            _assert_same(jitted(X), want, f"jit {backend} call {call}")
        _assert_same(ft.jit(ft.vmap(fn), backend=backend)(xs), batched, f"jit {backend} vmap")
    value, _ = ft.value_and_grad(lambda a: fnp.sum(fnp.where(fnp.isnan(fn(a)), 0.0, fn(a))))(X)
    np.testing.assert_allclose(value, np.nansum(want), rtol=1e-15)


def _expected_gradient(name, u, h=1e-6):
    """Central finite differences of sum(u * f(x)) over the finite outputs: a NaN slice stays
    NaN under any perturbation, so its elements get 0, and the others the plain derivative."""
    def phi(x):
        return np.nansum(u * _numpy(name, x))
    g = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = h
        g[i] = (phi(X + e) - phi(X - e)) / (2 * h)
    return g


@pytest.mark.parametrize("name", CASES)
def test_derivative_is_zero_on_nan_slices_and_unchanged_elsewhere(name):
    fn = _fn(name)
    out = _numpy(name, X)
    u = U(out.shape)
    want = _expected_gradient(name, u)

    def loss(a):
        return fnp.sum(fnp.where(fnp.isnan(fn(a)), 0.0, fn(a) * u))
    grads = {"grad": ft.grad(loss)(X), "vmap(grad)": ft.vmap(ft.grad(loss))(X[None])[0],
             "jit(grad)": ft.jit(ft.grad(loss))(X)}
    try:
        import jax  # noqa: F401
        grads["jit(grad) xla"] = ft.jit(ft.grad(loss), backend="xla")(X)
    except ImportError:
        pass
    for how, g in grads.items():
        assert not np.isnan(g).any(), (how, g)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8, err_msg=how)
    # forward mode: the tangent along each basis direction is the same column of the Jacobian
    v = U(X.shape)
    _, t = ft.jvp(fn, (X,), (v,))
    np.testing.assert_array_equal(np.asarray(t)[np.isnan(out)], 0.0)
    np.testing.assert_allclose(np.sum(np.where(np.isnan(out), 0.0, u * t)), np.sum(want * v),
                               rtol=1e-6, atol=1e-8)


JAX_CASES = {"median_axis1": ("median", {"axis": 1}),
             "quantile_3q_axis0_keepdims": ("quantile", {"q": [0.0, 0.3, 0.75], "axis": 0,
                                                         "keepdims": True}),
             "median": ("median", {})}


@pytest.mark.parametrize("name", JAX_CASES)
def test_value_and_derivative_match_jax(name):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    op, kw = JAX_CASES[name]
    u = U(_numpy(name, X).shape)
    with jax.enable_x64(True):
        if "q" in kw:
            kw = dict(kw, q=jnp.asarray(kw["q"]))
        jf = lambda a: getattr(jnp, op)(a, **kw)  # noqa: E731
        jval = np.asarray(jf(jnp.asarray(X)))
        jgrad = np.asarray(jax.grad(lambda a: jnp.sum(jnp.where(jnp.isnan(jf(a)), 0.0,
                                                                jf(a) * u)))(jnp.asarray(X)))
    fn = _fn(name)
    _assert_same(ft.jit(fn)(X), jval, "value")
    g = ft.grad(lambda a: fnp.sum(fnp.where(fnp.isnan(fn(a)), 0.0, fn(a) * u)))(X)
    np.testing.assert_allclose(g, jgrad, rtol=1e-14, atol=0)


def test_nan_ignoring_reductions_keep_skipping_nan():
    """nanmax, nanmin, nanmean and nansum still skip NaN under jit and vmap."""
    for name in ("nanmax", "nanmin", "nanmean", "nansum"):
        ours, ref = getattr(fnp, name), getattr(np, name)
        for fn in (ft.jit(lambda a: ours(a, axis=1)), ft.vmap(lambda a: ours(a))):
            np.testing.assert_array_equal(fn(X), ref(X, axis=1))
