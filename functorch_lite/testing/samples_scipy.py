"""Sample entries of functorch_lite.scipy ("scipy.special.erf", "scipy.linalg.lu_factor",
"scipy.stats.norm.logpdf", ...), against SciPy itself. SciPy is optional: without it there are
no entries (the functions need it anyway)."""
import numpy as np

from .samples_base import (F32, F64, NONZERO, POSITIVE, REAL, UNIT, Domain, OpInfo, S, array,
                           reduction, scipy_stats_ref, spd, unary, well_conditioned)

try:
    import scipy.linalg as scipy_linalg
    import scipy.special as scipy_special
except ImportError:                                   # pragma: no cover
    scipy_special = None

PROBABILITY = Domain(lambda rng, shape: rng.uniform(0.05, 0.95, shape), 0.3, None)
"""Inside (0, 1), away from the ends where logit and ndtri blow up."""


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


# -- special ----------------------------------------------------------------------------------

def _polygamma(rng):
    return [S(n, _a(rng, *s, domain=POSITIVE)) for n, s in [(0, (5,)), (1, (2, 3)), (2, ())]] \
        + [S(1, _a(rng, 3, dtype=F32, domain=POSITIVE))]


def _axes(rng):
    """softmax-style samples: axis None (all), an int, a negative int, a tuple."""
    return [S(_a(rng, 2, 3, 4)), S(_a(rng, 2, 3, 4), axis=1), S(_a(rng, 5), axis=-1),
            S(_a(rng, 2, 3, 4), axis=(0, 2)), S(_a(rng, 3, 4, dtype=F32), axis=0)]


def _logsumexp(rng):
    return reduction(REAL, ints=False)(rng) + [
        S(_a(rng, 3, 4), 1, _a(rng, 3, 4, domain=POSITIVE), name="f64_3x4_axis=1_b"),
        S(_a(rng, 2, 3), -1, _a(rng, 3, domain=POSITIVE), keepdims=True,
          name="f64_2x3_axis=-1_b_keepdims"),
        S(_a(rng, 3, 4), 0, _a(rng, 3, 4, domain=NONZERO), return_sign=True,
          name="f64_3x4_signed_b"),
        S(_a(rng, 4, 1), 0, _a(rng, 4, 1, domain=POSITIVE), return_sign=True,
          name="f64_4x1_return_sign")]


def _xlogy(rng):
    """Broadcasting pairs with y > 0 (and y > -1 for xlog1py), and x with exact zeros."""
    zeros = np.array([0.0, 1.5, 0.0, -0.7])
    return [S(_a(rng, 3, 4), _a(rng, 3, 4, domain=POSITIVE)),
            S(_a(rng, 3, 1), _a(rng, 4, domain=POSITIVE)),
            S(_a(rng, 2, 3), 1.5), S(0.5, _a(rng, 3, domain=POSITIVE)),
            S(zeros + 0.0 * rng.uniform(size=4), _a(rng, 4, domain=POSITIVE),
              name="f64_4_zeros_in_x"),
            S(_a(rng, 3, dtype=F32), _a(rng, 3, dtype=F32, domain=POSITIVE))]


def _special(name, samples, fn_name=None, **kw):
    from ..scipy import special
    fn = getattr(special, fn_name or name)
    ref = getattr(scipy_special, name)
    numpy_fn = ref if isinstance(ref, np.ufunc) else None
    return OpInfo(f"scipy.special.{name}", fn, ref, samples, numpy_fn=numpy_fn, **kw)


def _special_entries():
    return [
        _special("erf", unary(REAL, ints=True)),
        _special("erfc", unary(REAL)),
        _special("erfinv", unary(UNIT)),
        _special("gammaln", unary(POSITIVE)),
        _special("digamma", unary(POSITIVE)),
        _special("polygamma", _polygamma),
        _special("expit", unary(REAL)),
        _special("logit", unary(PROBABILITY)),
        _special("logsumexp", _logsumexp),
        _special("xlogy", _xlogy),
        _special("xlog1py", _xlogy),
        _special("softmax", _axes),
        _special("log_softmax", _axes),
        _special("ndtr", unary(REAL)),
        _special("ndtri", unary(PROBABILITY))]


# -- linalg -----------------------------------------------------------------------------------

def _triangular(rng):
    def a(*shape, dtype=F64):
        return well_conditioned(rng, shape[-1], shape[:-2], dtype)
    return [S(a(3, 3), _a(rng, 3)), S(a(3, 3), _a(rng, 3, 2), lower=True),
            S(a(4, 4), _a(rng, 4, 2), trans=1), S(a(3, 3), _a(rng, 3), trans="T", lower=True),
            S(a(3, 3), _a(rng, 3, 2), unit_diagonal=True, lower=True),
            S(a(3, 3), _a(rng, 3, 2), trans=2, unit_diagonal=True),
            S(a(2, 3, 3), _a(rng, 2, 3, 2)), S(a(2, 3, 3), _a(rng, 3, 2), lower=True),
            S(a(3, 3, dtype=F32), _a(rng, 3, dtype=F32))]


def _spd(rng):
    return [S(spd(rng, 3)), S(spd(rng, 4), lower=True), S(spd(rng, 3, (2,))),
            S(spd(rng, 3, dtype=F32), lower=True)]


def _cho_solve(rng):
    return [S(spd(rng, 3), _a(rng, 3)), S(spd(rng, 3), _a(rng, 3, 2), lower=True),
            S(spd(rng, 3, (2,)), _a(rng, 2, 3, 2)),
            S(spd(rng, 3, dtype=F32), _a(rng, 3, dtype=F32))]


def _square(rng):
    return [S(_a(rng, 3, 3)), S(_a(rng, 4, 4)), S(_a(rng, 2, 3, 3)), S(_a(rng, 1, 1)),
            S(_a(rng, 3, 3, dtype=F32))]


def _pivots(rng, n):
    """Valid LAPACK pivots (row i swapped with a row >= i), fixed for every generator."""
    return np.array([min(i + (i % 2), n - 1) for i in range(n)], dtype=np.int32)


def _lu_solve(rng):
    def lu(n, batch=(), dtype=F64):
        return well_conditioned(rng, n, batch, dtype)
    return [S(lu(3), _pivots(rng, 3), _a(rng, 3)), S(lu(4), _pivots(rng, 4), _a(rng, 4, 2)),
            S(lu(3), _pivots(rng, 3), _a(rng, 3, 2), trans=1),
            S(lu(3, (2,)), np.stack([_pivots(rng, 3)] * 2), _a(rng, 2, 3, 1)),
            S(lu(3, dtype=F32), _pivots(rng, 3), _a(rng, 3, dtype=F32))]


def _expm(rng):
    return [S(_a(rng, 3, 3)), S(0.3 * _a(rng, 2, 2)), S(2.0 * _a(rng, 3, 3)),
            S(_a(rng, 2, 3, 3)), S(_a(rng, 3, 3, dtype=F32))]


def _block_diag(rng):
    return [S(_a(rng, 2, 2), _a(rng, 1, 3)), S(_a(rng, 2, 3), _a(rng), _a(rng, 2)),
            S(_a(rng, 3, 1)), S(_a(rng, 2, 2, dtype=F32), _a(rng, 1, 1, dtype=F32))]


def _tri(c, lower):
    return np.tril(c) if lower else np.triu(c)


def _sym(a):
    """(a + a^T) / 2: the Cholesky-based functions read one triangle, so the entries take the
    symmetric part and finite differences see the function of the whole matrix."""
    return (a + a.swapaxes(-1, -2)) / 2


def _linalg_entries():
    from ..scipy import linalg
    sl = scipy_linalg
    return [
        OpInfo("scipy.linalg.solve_triangular", linalg.solve_triangular, sl.solve_triangular,
               _triangular, rtol={F32: 1e-4}),
        OpInfo("scipy.linalg.cho_factor",
               lambda a, lower=False: linalg.cho_factor(_sym(a), lower)[0],
               lambda a, lower=False: _tri(sl.cho_factor(_sym(a), lower)[0], lower), _spd,
               rtol={F32: 1e-4}, doc="the factor only; SciPy's other triangle holds "
                                     "leftovers of a, ours zeros (masked in the reference)"),
        OpInfo("scipy.linalg.cho_solve",
               lambda c, b, lower=False: linalg.cho_solve(linalg.cho_factor(_sym(c), lower), b),
               lambda c, b, lower=False: sl.cho_solve(sl.cho_factor(_sym(c), lower), b), _cho_solve,
               rtol={F32: 1e-4}, doc="factor then solve: the first operand is the matrix"),
        OpInfo("scipy.linalg.lu_factor", linalg.lu_factor, sl.lu_factor, _square,
               rtol={F32: 1e-4}),
        OpInfo("scipy.linalg.lu_solve",
               lambda lu, piv, b, trans=0: linalg.lu_solve((lu, piv), b, trans),
               lambda lu, piv, b, trans=0: sl.lu_solve((lu, piv), b, trans), _lu_solve,
               rtol={F32: 1e-4}, doc="any packed matrix with valid pivots is a factorization"),
        OpInfo("scipy.linalg.expm", linalg.expm, sl.expm, _expm, rtol={F32: 1e-4}),
        OpInfo("scipy.linalg.block_diag", linalg.block_diag, sl.block_diag, _block_diag)]


# -- stats ------------------------------------------------------------------------------------

def _norm(domain):
    def samples(rng):
        return [S(_a(rng, 5, domain=domain)), S(_a(rng, 2, 3, domain=domain), 0.5, 2.0),
                S(_a(rng, 2, 3, domain=domain), _a(rng, 3), _a(rng, 2, 1, domain=POSITIVE)),
                S(_a(rng, domain=domain), _a(rng, 4), 1.5),
                S(_a(rng, 3, dtype=F32, domain=domain), _a(rng, 3, dtype=F32),
                  _a(rng, 3, dtype=F32, domain=POSITIVE)),
                S(_a(rng, 4, dtype=F32, domain=domain), 0.5, 2.0)]     # Python numbers are weak
    return samples


def _mvn(rng):
    return [S(_a(rng, 3), _a(rng, 3), spd(rng, 3)), S(_a(rng, 5, 3), _a(rng, 3), spd(rng, 3)),
            S(_a(rng, 2, 4, 2), _a(rng, 2), spd(rng, 2)),
            S(_a(rng, 3, dtype=F32), _a(rng, 3, dtype=F32), spd(rng, 3, dtype=F32))]


def _in_input_dtype(ref):
    """scipy.stats computes in float64 whatever the input; functorch_lite (as jax.scipy) keeps
    the inputs' floating dtype: the reference is SciPy's result cast to it."""
    def cast(*args, **kwargs):
        arrays = [a for a in list(args) + list(kwargs.values()) if isinstance(a, np.ndarray)]
        return np.asarray(ref(*args, **kwargs)).astype(np.result_type(*arrays))
    return cast


def _stats_entries():
    from ..scipy import stats
    entries = [OpInfo(f"scipy.stats.norm.{name}", getattr(stats.norm, name),
                      _in_input_dtype(scipy_stats_ref("norm", name)),
                      _norm(PROBABILITY if name == "ppf" else REAL), rtol={F32: 1e-5})
               for name in ["logpdf", "pdf", "cdf", "logcdf", "sf", "ppf"]]
    entries.append(OpInfo("scipy.stats.multivariate_normal.logpdf",
                          lambda x, m, c: stats.multivariate_normal.logpdf(x, m, _sym(c)),
                          _in_input_dtype(lambda x, m, c:
                                          scipy_stats_ref("multivariate_normal", "logpdf")(
                                              x, m, _sym(c))),
                          _mvn, rtol={F32: 1e-4}))
    return entries


ENTRIES = [] if scipy_special is None else \
    _special_entries() + _linalg_entries() + _stats_entries()
