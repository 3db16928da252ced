"""Sample entries of the numerical helpers (trapezoid, gradient, polyval, vander, nan_to_num,
ediff1d, sinc, i0, block, apply_along_axis, unwrap), the where=/initial= arguments of the
reductions, and the SciPy additions (gamma, betaln, log_ndtr, i0e, i1e, entr, the t, gamma,
beta, uniform, expon, poisson and binom distributions, sparse.linalg.cg), against NumPy and
SciPy."""
import numpy as np

from .. import numpy as fnp
from .samples_base import F32, F64, POSITIVE, REAL, OpInfo, S, array, scipy_stats_ref, spd, unary

try:
    import scipy.special as scipy_special
except ImportError:                                   # pragma: no cover
    scipy_special = None


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


def _same(name, samples, **kw):
    return OpInfo(name, getattr(fnp, name), getattr(np, name), samples, **kw)


def _trapezoid(rng):
    xs = np.cumsum(rng.uniform(0.2, 1.0, 5))
    return [S(_a(rng, 5)), S(_a(rng, 5), xs), S(_a(rng, 3, 5), xs),
            S(_a(rng, 4, 3), dx=0.5, axis=0),
            S(_a(rng, 2, 5), np.cumsum(rng.uniform(0.2, 1.0, (2, 5)), axis=1)),
            S(_a(rng, 4, dtype=F32))]


def _gradient(rng):
    return [S(_a(rng, 5)), S(_a(rng, 5), 0.5), S(_a(rng, 3, 4), 0.5, 2.0),
            S(_a(rng, 3, 4), axis=1), S(_a(rng, 4, 5), edge_order=2),
            S(_a(rng, 5, dtype=F32), edge_order=2)]


def _polyval(rng):
    return [S(_a(rng, 4), _a(rng, 5)), S(_a(rng, 1), _a(rng, 2, 3)), S(_a(rng, 3), _a(rng)),
            S(_a(rng, 3, dtype=F32), _a(rng, 4, dtype=F32))]


def _vander(rng):
    return [S(_a(rng, 4)), S(_a(rng, 3), 5), S(_a(rng, 4), 3, increasing=True),
            S(np.array([0.0, 1.0, -1.5]) + 0 * rng.uniform(size=3), name="f64_3_with_zero"),
            S(_a(rng, 3, dtype=F32))]


def _special_values(rng):
    x = _a(rng, 2, 4)
    x[0, 1], x[1, 2], x[1, 3] = np.nan, np.inf, -np.inf
    return [S(x), S(x, nan=1.5, posinf=9.0, neginf=-9.0), S(x.astype(F32)), S(_a(rng, 3)),
            S(np.array([1, 2]), name="i64_2")]


def _ediff1d(rng):
    return [S(_a(rng, 5)), S(_a(rng, 2, 3), _a(rng, 2)), S(_a(rng, 4), to_begin=-1.5),
            S(_a(rng, 4), _a(rng, 1), _a(rng, 2)), S(_a(rng, 3, dtype=F32))]


def _block(rng):
    return [S([_a(rng, 2), _a(rng, 3)]),
            S([[_a(rng, 2, 2), _a(rng, 2, 1)], [_a(rng, 1, 2), _a(rng, 1, 1)]]),
            S([[_a(rng, 3)], [_a(rng, 3)]]), S([_a(rng, 2, dtype=F32), _a(rng, 1, dtype=F32)])]


def _norm_of(v):
    return fnp.sqrt(fnp.sum(v * v))


def _outer_of(v):
    return fnp.outer(v, v[:2])


def _apply_along_axis(rng):
    return [S(_norm_of, 0, _a(rng, 3, 4)), S(_norm_of, -1, _a(rng, 2, 3, 4)),
            S(_outer_of, 1, _a(rng, 2, 3)), S(_norm_of, 0, _a(rng, 4, dtype=F32))]


def _phases(rng, *shape, dtype=F64):
    """Cumulative phases whose steps stay away from the jump at +-pi (and from discont)."""
    steps = rng.uniform(0.2, 1.0, shape) * rng.choice([-1.0, 1.0], shape) \
        + rng.choice([0.0, 2 * np.pi, -2 * np.pi], shape)
    return np.asarray(np.cumsum(steps, axis=-1), dtype=dtype)


def _unwrap(rng):
    return [S(_phases(rng, 6)), S(_phases(rng, 2, 5)), S(_phases(rng, 4, 3), axis=0),
            S(_phases(rng, 5), discont=4.0), S(_phases(rng, 5, dtype=F32))]


def _masked(rng, extremum=False):
    """where=/initial= samples (max and min need initial with where, as NumPy)."""
    m = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
    init = {"initial": -5.0} if extremum else {}
    out = [S(_a(rng, 3, 4), m, axis=1, **init), S(_a(rng, 3, 4), m[0], **init),
           S(_a(rng, 3, 4), m, axis=0, keepdims=True, **init)]
    out.append(S(_a(rng, 3, 4), axis=1, initial=0.5))
    out.append(S(_a(rng, 3, 4, dtype=F32), m, axis=1, **init))
    if extremum:
        out.append(S(_a(rng, 0, 3), axis=0, initial=1.5, name="f64_0x3_initial_empty"))
    return out


def _mean_where(rng):
    m = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
    return [S(_a(rng, 3, 4), m, axis=1), S(_a(rng, 3, 4), m[1]),
            S(_a(rng, 3, 4), m, axis=0, keepdims=True), S(_a(rng, 3, 4, dtype=F32), m, axis=1)]


def _var_where(rng):
    with_ddof = [S(*s.args, **dict(s.kwargs, ddof=1), name=s.name + "_ddof")
                 for s in _mean_where(rng)[:2]]
    return with_ddof + _mean_where(rng)


def _numpy_entries():
    return [
        _same("trapezoid", _trapezoid), _same("gradient", _gradient),
        _same("polyval", _polyval), _same("vander", _vander),
        _same("nan_to_num", _special_values,
              skips={"test_vjp": "finite differences are NaN at the NaN and inf entries; the "
                                 "derivative is checked in tests/test_porting_aids.py"}), _same("ediff1d", _ediff1d),
        _same("sinc", fixed_sinc), _same("block", _block),
        _same("apply_along_axis", _apply_along_axis), _same("unwrap", _unwrap),
        OpInfo("i0", fnp.i0, np.i0, unary(REAL)),
        *[OpInfo(f"{name}[where,initial]", _mask_operand(getattr(fnp, name)),
                 _mask_operand(getattr(np, name)),
                 lambda rng, e=name in ("max", "min"): _masked(rng, e), numpy_fn=None)
          for name in ("sum", "prod", "max", "min")],
        *[OpInfo(f"{name}[where]", _mask_operand(getattr(fnp, name)),
                 _mask_operand(getattr(np, name)), _var_where if name != "mean" else _mean_where,
                 numpy_fn=None)
          for name in ("mean", "var", "std")]]


def _mask_operand(fn):
    """fn(a, where=mask, ...) with the mask an operand (a sample leaf: batched under vmap and
    moved to the device like the data) instead of a static keyword."""
    def call(a, mask=None, **kwargs):
        return fn(a, **kwargs) if mask is None else fn(a, where=mask, **kwargs)
    return call


def fixed_sinc(rng):
    """Points away from 0 and the series switch, plus 0 and points inside the series."""
    return unary(REAL)(rng) + [S(np.array([0.0, 0.05, -0.1]) + 0 * rng.uniform(size=3),
                                 name="f64_3_near_zero")]


# -- SciPy ------------------------------------------------------------------------------------

def _special(name, samples, **kw):
    from ..scipy import special
    ref = getattr(scipy_special, name)
    return OpInfo(f"scipy.special.{name}", getattr(special, name), ref, samples,
                  numpy_fn=ref if isinstance(ref, np.ufunc) else None, **kw)


def _away_from_poles(rng, shape):
    """Positive values, and negative ones between the poles of gamma."""
    return np.where(rng.random(shape) < 0.7, rng.uniform(0.3, 4.0, shape),
                    -rng.integers(0, 3, shape) - rng.uniform(0.2, 0.8, shape))


def _gamma(rng):
    return [S(_away_from_poles(rng, s)) for s in [(), (5,), (2, 3)]] + \
        [S(_away_from_poles(rng, (4,)).astype(F32))]


def _betaln(rng):
    return [S(_a(rng, 3, 4, domain=POSITIVE), _a(rng, 3, 4, domain=POSITIVE)),
            S(_a(rng, 3, domain=POSITIVE), 2.5),
            S(_a(rng, 3, dtype=F32, domain=POSITIVE), _a(rng, 3, dtype=F32, domain=POSITIVE))]


def _log_ndtr(rng):
    return unary(REAL)(rng) + [S(np.array([-30.0, -8.0, 6.0]) + 0 * rng.uniform(size=3),
                                 name="f64_3_tails")]


def _nonzero_real(rng):
    """Real values away from 0, where i0e and i1e have a kink (e^-|x|)."""
    def draw(*shape, dtype=F64):
        return np.asarray(rng.uniform(0.2, 3.0, shape) * rng.choice([-1.0, 1.0], shape), dtype)
    return [S(draw()), S(draw(5)), S(draw(2, 3)), S(draw(4, dtype=F32))]


def _entr(rng):
    return unary(POSITIVE)(rng)


def _dist(rng, *params, dtype=F64, support=REAL):
    """The parameters as Python numbers (with float64 and float32 x: Python numbers are weak, so
    the result keeps x's dtype), float64 and float32 arrays."""
    return [S(_a(rng, 5, domain=support), *params),
            S(_a(rng, 2, 3, domain=support), *[np.asarray(p, dtype) for p in params]),
            S(_a(rng, 4, dtype=F32, domain=support),
              *[np.asarray(p, F32) for p in params]),
            S(_a(rng, 3, dtype=F32, domain=support), *[float(p) for p in params])]


def _positive_params(rng, k):
    return [rng.uniform(1.5, 3.0, ()) for _ in range(k)]


def _in_input_dtype(ref):
    def cast(*args, **kwargs):
        arrays = [a for a in args if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        return np.asarray(ref(*args, **kwargs)).astype(np.result_type(*arrays))
    return cast


UNIT_INTERIOR = type(REAL)(lambda rng, shape: rng.uniform(0.1, 0.9, shape), 0.5, None)


def _stats(name, method, samples, **kw):
    from ..scipy import stats
    dist = getattr(stats, name)
    ref = scipy_stats_ref(name, method)
    return OpInfo(f"scipy.stats.{name}.{method}", getattr(dist, method), _in_input_dtype(ref),
                  samples, rtol={F32: 1e-4}, **kw)


def _counts(rng):
    return [S(rng.integers(0, 8, 5), rng.uniform(0.5, 4.0, ())),
            S(rng.integers(0, 8, (2, 3)), rng.uniform(0.5, 4.0, (3,))),
            S(np.array([-1, 2, 0]), np.array(rng.uniform(0.5, 4.0), F32)),
            S(np.array([0.0, 3.0, 1.0], F32), float(rng.uniform(0.5, 4.0)))]


def _binom(rng):
    return [S(rng.integers(0, 10, 5), 9, rng.uniform(0.1, 0.9, ())),
            S(rng.integers(0, 6, (2, 3)), 5, rng.uniform(0.1, 0.9, (3,))),
            S(np.array([-1, 3, 11]), 10, np.array(rng.uniform(0.1, 0.9), F32))]


def _incomplete(shapes, draw_x):
    """Samples of gammainc-style functions: the shapes are static Python numbers (the functions
    are differentiable in x only; a traced shape raises, tested in tests/test_scipy_cdfs.py,
    with vmap over the shapes) and x is the array operand, inside the domain."""
    def samples(rng):
        return [S(*shapes, draw_x(rng, (5,))), S(*shapes, draw_x(rng, (2, 3))),
                S(*[v + 1.0 for v in shapes], draw_x(rng, ())),
                S(*shapes, draw_x(rng, (4,)).astype(F32))]
    return samples


def _stats_cdf(rng, *shapes, support=REAL):
    """Like _dist, with the shapes as Python numbers (cdf and sf are not differentiable in
    them) and loc, scale as arrays."""
    return [S(_a(rng, 5, domain=support), *shapes),
            S(_a(rng, 2, 3, domain=support), *shapes, np.asarray(0.2), np.asarray(1.3)),
            S(_a(rng, 4, dtype=F32, domain=support), *shapes)]


def _cg(rng):
    return [S(spd(rng, 4), _a(rng, 4)), S(spd(rng, 3), _a(rng, 3)),
            S(spd(rng, 3, dtype=F32), _a(rng, 3, dtype=F32))]


def _scipy_entries():
    from ..scipy import special
    from ..scipy.sparse.linalg import cg
    from scipy.sparse.linalg import cg as scipy_cg
    return [
        _special("gamma", _gamma, rtol={F64: 1e-6}), _special("betaln", _betaln),
        _special("log_ndtr", _log_ndtr), _special("i0", unary(REAL)),
        _special("i0e", _nonzero_real), _special("i1e", _nonzero_real),
        _special("entr", _entr),
        _stats("t", "logpdf", lambda rng: _dist(rng, *_positive_params(rng, 1), 0.3, 1.2)),
        _stats("gamma", "logpdf", lambda rng: _dist(rng, *_positive_params(rng, 1),
                                                     support=POSITIVE)),
        _stats("beta", "logpdf", lambda rng: _dist(rng, *_positive_params(rng, 2),
                                                   support=UNIT_INTERIOR)),
        _stats("uniform", "logpdf", lambda rng: _dist(rng, -0.5, 3.0, support=UNIT_INTERIOR)),
        *[_stats("uniform", method, lambda rng: _dist(rng, -2.5, 5.0)) for method in ["cdf", "sf"]],
        _stats("expon", "logpdf", lambda rng: _dist(rng, 0.1, 1.5, support=POSITIVE)),
        *[_stats("expon", method, lambda rng: _dist(rng, 0.1, 1.5, support=POSITIVE))
          for method in ["cdf", "sf"]],
        _stats("poisson", "logpmf", _counts, skips=_COUNT_SKIPS),
        *[OpInfo(f"scipy.special.{name}", getattr(special, name),
                 _in_input_dtype(getattr(scipy_special, name)), _incomplete(shapes, draw),
                 numpy_fn=getattr(scipy_special, name), rtol={F32: 1e-4},
                 skips={"test_numpy_dispatch:f32_py_4": _WEAK_SHAPE})
          for name, shapes, draw in [
              ("gammainc", (1.7,), lambda rng, s: rng.uniform(0.2, 4.0, s)),
              ("gammaincc", (0.8,), lambda rng, s: rng.uniform(0.2, 4.0, s)),
              ("betainc", (2.5, 1.3), lambda rng, s: rng.uniform(0.1, 0.9, s))]],
        *[_stats(name, method, samples) for method in ["cdf", "sf"] for name, samples in [
            ("t", lambda rng: _stats_cdf(rng, 3.5)),
            ("gamma", lambda rng: _stats_cdf(rng, 2.2, support=POSITIVE)),
            ("beta", lambda rng: _stats_cdf(rng, 2.5, 1.7, support=UNIT_INTERIOR))]],
        *[_stats(name, method, samples, skips=_COUNT_SKIPS) for method in ["cdf", "sf"]
          for name, samples in [("poisson", _counts), ("binom", _binom)]],
        _stats("binom", "logpmf", _binom, skips=_COUNT_SKIPS),
        OpInfo("scipy.sparse.linalg.cg", lambda A, b: cg(_sym(A), b, tol=1e-12)[0],
               lambda A, b: scipy_cg(_sym(A), b, rtol=1e-12)[0].astype(b.dtype), _cg,
               rtol={F32: 1e-3, F64: 1e-6}, atol={F32: 1e-4, F64: 1e-8},
               skips={t: _REVERSE_ONLY for t in _FORWARD_TESTS},
               doc="the solution of the symmetric part of A (cg needs A symmetric positive "
                   "definite, also under finite differences); info is None, as JAX")]


_COARSE = "float32 finite differences in the rate are coarser than the test's tolerance"
_COUNT_SKIPS = {
    "test_jvp_float32": _COARSE,
    "test_device": "the derivative checks keep integer leaves (the counts) as NumPy constants, "
                   "which meet the device parameters: a DeviceMismatchError by the backend rule"}
_WEAK_SHAPE = ("SciPy's ufunc takes its float64 loop for a float32 x and a Python shape; "
               "ours keeps float32 (the Python number is weak, as in jax.scipy)")
_REVERSE_ONLY = "cg's implicit rule is a custom_vjp: forward mode refuses it (as documented)"
_FORWARD_TESTS = ["test_jvp", "test_linearize", "test_jvp_vjp", "test_jvp_float32",
                  "test_vmap_jvp", "test_jvp_vmap", "test_jacfwd_jacrev", "test_hvp",
                  "test_hessian", "test_jit_compositions"]


def _sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


ENTRIES = _numpy_entries() + ([] if scipy_special is None else _scipy_entries())
