"""Result dtypes of functorch_lite.scipy.stats and the scipy.special composites: NumPy's
promotion of the inputs with Python numbers weak (NEP 50, as jax.scipy), so a float32 array
with Python parameters gives float32; values against scipy.stats in float64. Every function of
every distribution namespace is walked, so a new one is covered (or the table below fails).
Also uniform.sf and expon.sf against SciPy, inside and outside the support."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

scipy_stats = pytest.importorskip("scipy.stats")
from functorch_lite.scipy import special, stats  # noqa: E402

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)

# distribution: (points inside and outside the support, parameters as Python numbers)
CONTINUOUS = {
    "norm": (np.array([-2.0, -0.3, 0.0, 0.7, 2.5]), (0.3, 1.2)),
    "t": (np.array([-3.0, -0.4, 0.0, 0.9, 4.0]), (3.5, 0.3, 1.2)),
    "gamma": (np.array([-0.5, 0.05, 0.8, 2.0, 6.0]), (2.2, 0.0, 1.3)),
    "beta": (np.array([-0.1, 0.1, 0.45, 0.8, 1.3]), (2.5, 1.7)),
    "uniform": (np.array([-1.0, -0.4, 0.5, 2.0, 5.0]), (-0.5, 3.0)),
    "expon": (np.array([-1.0, 0.1, 0.5, 2.0, 6.0]), (0.1, 1.5)),
}
DISCRETE = {
    "poisson": (np.array([-1, 0, 2, 5, 9]), (2.5,)),
    "binom": (np.array([-1, 0, 3, 7, 11]), (10, 0.35)),
}
PROBABILITIES = np.array([0.02, 0.3, 0.5, 0.8, 0.97])


def functions(table):
    return [(name, method) for name in table for method in vars(getattr(stats, name))]


def test_the_tables_cover_every_distribution():
    assert set(stats.__all__) == set(CONTINUOUS) | set(DISCRETE) | {"multivariate_normal"}


def _points(name, method):
    x, params = CONTINUOUS[name] if name in CONTINUOUS else DISCRETE[name]
    return (PROBABILITIES if method == "ppf" else x), params


def _reference(name, method, x, params):
    return getattr(getattr(scipy_stats, name), method)(np.asarray(x, np.float64), *params)


def _close(ours, ref, rtol):
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=rtol * 1e-2)


@pytest.mark.parametrize("name,method", functions(CONTINUOUS))
def test_float32_points_with_python_parameters_stay_float32(name, method):
    x, params = _points(name, method)
    out = getattr(getattr(stats, name), method)(x.astype(F32), *params)
    assert out.dtype == F32, (name, method, out.dtype)
    _close(out, _reference(name, method, x.astype(F32), params), 2e-5)


@pytest.mark.parametrize("name,method", functions(CONTINUOUS))
def test_parameters_promote_as_numpy(name, method):
    x, params = _points(name, method)
    fn = getattr(getattr(stats, name), method)
    f32_params = [np.float32(p) for p in params]
    for xs, ps in [(x.astype(F32), [np.asarray(p) for p in f32_params]),   # float32 throughout
                   (x, f32_params),                                       # float64 points
                   (x.astype(F32), [np.asarray(params[0], F64), *f32_params[1:]])]:
        out = fn(xs, *ps)
        expected = np.result_type(xs, *ps)
        assert out.dtype == expected, (name, method, [getattr(v, "dtype", v) for v in ps])
        _close(out, _reference(name, method, xs, [float(p) for p in ps]), 2e-5)


@pytest.mark.parametrize("name,method", functions(CONTINUOUS))
def test_python_points_with_float32_parameters(name, method):
    x, params = _points(name, method)
    out = getattr(getattr(stats, name), method)(float(x[2]), *[np.float32(p) for p in params])
    assert out.dtype == F32
    _close(out, _reference(name, method, x[2], params), 2e-5)


@pytest.mark.parametrize("name,method", functions(DISCRETE))
def test_counts_take_the_dtype_of_the_floating_inputs(name, method):
    """Integer counts do not raise the precision (as jax.scipy); floating ones promote."""
    k, params = _points(name, method)
    fn = getattr(getattr(stats, name), method)
    f32_params = [p if isinstance(p, int) else np.float32(p) for p in params]
    for ks, ps, expected in [(k, params, F64), (k.astype(F32), params, F32),
                             (k, f32_params, F32), (k.astype(F64), f32_params, F64),
                             (k.astype(F32), f32_params, F32), (int(k[2]), f32_params, F32)]:
        out = fn(ks, *ps)
        assert out.dtype == expected, (name, method, ks, ps)
        _close(out, _reference(name, method, k if hasattr(ks, "shape") else ks, params), 1e-10 if ps is params and expected == F64 else 2e-5)


@pytest.mark.parametrize("fn", [special.xlogy, special.xlog1py, special.betaln])
def test_special_composites_keep_a_python_argument_weak(fn):
    x = np.array([0.0, 0.5, 2.0], F32)
    assert fn(x, 2.5).dtype == F32 and fn(2.5, x).dtype == F32
    assert fn(x.astype(F64), 2.5).dtype == F64
    reference = getattr(pytest.importorskip("scipy.special"), fn.__name__)
    _close(fn(x, 2.5), reference(x.astype(F64), 2.5), 2e-6)


def test_t_logpdf_of_a_python_df_is_float32():
    """The case issue 22 reported: a float df made the log density float64."""
    x = np.linspace(-3, 3, 7, dtype=F32)
    assert stats.t.logpdf(x, df=3.0).dtype == F32


_finite = st.floats(-50, 50, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(x=st.lists(_finite, min_size=1, max_size=6), loc=_finite,
       scale=st.floats(0.01, 20), name=st.sampled_from(["uniform", "expon"]))
def test_uniform_and_expon_sf_match_scipy_inside_and_outside_the_support(x, loc, scale, name):
    x = np.array(x)
    ours = getattr(stats, name).sf(x, loc, scale)
    ref = getattr(scipy_stats, name).sf(x, loc, scale)
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-300)
    assert getattr(stats, name).sf(x.astype(F32), loc, scale).dtype == F32


def test_expon_sf_keeps_its_precision_in_the_tail():
    """exp(-z), not 1 - cdf (which is 0 beyond z = 37)."""
    sf = stats.expon.sf(np.array([50.0, 600.0]), 0.0, 1.0)
    np.testing.assert_allclose(sf, scipy_stats.expon.sf([50.0, 600.0]), rtol=1e-14)
    assert np.all(sf > 0)
