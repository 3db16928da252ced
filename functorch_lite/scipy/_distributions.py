"""scipy.stats distributions beyond the normal ones (as jax.scipy.stats): t, gamma, beta,
uniform, expon (logpdf, pdf; cdf for uniform and expon) and the discrete poisson and binom
(logpmf, pmf), as composites of library ops differentiable in x and every parameter. Outside
the support the log density is -inf, as SciPy's."""
import math
import types

import numpy as np

from .. import numpy as fnp
from ..numpy._util import as_operand
from . import special


def _z(x, loc, scale):
    return (as_operand(x) - loc) / scale


def _log(scale):
    """log(scale): a Python number stays a Python number (weakly typed, as the inputs')."""
    return math.log(scale) if isinstance(scale, (int, float)) else fnp.log(as_operand(scale))


def _as_float_of(k, param):
    """Counts k in the floating dtype of the parameter (float64 for a Python number)."""
    if isinstance(k, (int, float)):
        return float(k)
    dt = np.result_type(getattr(param, "dtype", np.float64), np.float16)
    return fnp.astype(k, dt)


def _outside(cond, value):
    """-inf where `cond`, `value` elsewhere."""
    return fnp.where(cond, -np.inf, value)


def _t_logpdf(x, df, loc=0.0, scale=1.0):
    """log of Student's t density with `df` degrees of freedom (t.logpdf)."""
    z, df = _z(x, loc, scale), as_operand(df)
    return (special.gammaln((df + 1) / 2) - special.gammaln(df / 2)
            - 0.5 * fnp.log(df * math.pi) - _log(scale)
            - (df + 1) / 2 * fnp.log1p(z * z / df))


def _gamma_logpdf(x, a, loc=0.0, scale=1.0):
    """log of the gamma density with shape `a` (gamma.logpdf); -inf for x < loc."""
    z, a = _z(x, loc, scale), as_operand(a)
    negative = fnp.less(z, 0)
    z = fnp.where(negative, 1.0, z)
    value = (special.xlogy(a - 1, z) - z - special.gammaln(a)
             - _log(scale))
    return _outside(negative, value)


def _beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    """log of the beta density with shapes `a`, `b` (beta.logpdf); -inf outside [0, 1]."""
    z, a, b = _z(x, loc, scale), as_operand(a), as_operand(b)
    out = fnp.logical_or(fnp.less(z, 0), fnp.greater(z, 1))
    z = fnp.where(out, 0.5, z)
    value = (special.xlogy(a - 1, z) + special.xlog1py(b - 1, -z) - special.betaln(a, b)
             - _log(scale))
    return _outside(out, value)


def _uniform_logpdf(x, loc=0.0, scale=1.0):
    """-log(scale) on [loc, loc + scale], -inf elsewhere (uniform.logpdf)."""
    z = _z(x, loc, scale)
    inside = -_log(scale) + 0.0 * z
    return _outside(fnp.logical_or(fnp.less(z, 0), fnp.greater(z, 1)), inside)


def _uniform_cdf(x, loc=0.0, scale=1.0):
    """(x - loc) / scale clipped to [0, 1] (uniform.cdf)."""
    z = _z(x, loc, scale)
    return fnp.where(fnp.less(z, 0), 0.0, fnp.where(fnp.greater(z, 1), 1.0, z))


def _expon_logpdf(x, loc=0.0, scale=1.0):
    """-z - log(scale) for z = (x - loc) / scale >= 0, -inf below (expon.logpdf)."""
    z = _z(x, loc, scale)
    return _outside(fnp.less(z, 0), -z - _log(scale))


def _expon_cdf(x, loc=0.0, scale=1.0):
    """1 - exp(-z) for z >= 0, 0 below (expon.cdf), through expm1."""
    z = _z(x, loc, scale)
    return fnp.where(fnp.less(z, 0), 0.0, -fnp.expm1(-fnp.where(fnp.less(z, 0), 0.0, z)))


def _not_count(k):
    """Where k is not a non-negative integer (the pmf is 0 there)."""
    return fnp.logical_or(fnp.less(k, 0), fnp.not_equal(k, fnp.floor(k)))


def _poisson_logpmf(k, mu, loc=0):
    """k log(mu) - mu - log(k!) (poisson.logpmf); -inf where k - loc is not a count."""
    k, mu = as_operand(k) - loc, as_operand(mu)
    k = _as_float_of(k, mu)
    bad = _not_count(k)
    k = fnp.where(bad, 0, k)
    return _outside(bad, special.xlogy(k, mu) - mu - special.gammaln(k + 1.0))


def _binom_logpmf(k, n, p, loc=0):
    """log(n choose k) + k log(p) + (n - k) log(1 - p) (binom.logpmf); -inf where k - loc is
    not a count up to n."""
    k, n, p = as_operand(k) - loc, as_operand(n), as_operand(p)
    if not hasattr(n, "shape"):              # a Python count: in p's dtype and device
        n = fnp.asarray(n, like=p if hasattr(p, "shape") else None)
    k, n = _as_float_of(k, p), _as_float_of(n, p)
    bad = fnp.logical_or(_not_count(k), fnp.greater(k, n))
    k = fnp.where(bad, 0, k)
    choose = special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - special.gammaln(n - k + 1.0)
    return _outside(bad, choose + special.xlogy(k, p) + special.xlog1py(n - k, -p))


def _exp_of(logf, name):
    def f(*args, **kwargs):
        return fnp.exp(logf(*args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"exp of {logf.__name__.lstrip('_').replace('_', '.', 1)}."
    return f


t = types.SimpleNamespace(logpdf=_t_logpdf, pdf=_exp_of(_t_logpdf, "pdf"))
"""Student's t: t.logpdf(x, df, loc=0, scale=1), pdf."""
gamma = types.SimpleNamespace(logpdf=_gamma_logpdf, pdf=_exp_of(_gamma_logpdf, "pdf"))
"""The gamma distribution: gamma.logpdf(x, a, loc=0, scale=1), pdf."""
beta = types.SimpleNamespace(logpdf=_beta_logpdf, pdf=_exp_of(_beta_logpdf, "pdf"))
"""The beta distribution: beta.logpdf(x, a, b, loc=0, scale=1), pdf."""
uniform = types.SimpleNamespace(logpdf=_uniform_logpdf, pdf=_exp_of(_uniform_logpdf, "pdf"),
                                cdf=_uniform_cdf)
"""The uniform distribution on [loc, loc + scale]: logpdf, pdf, cdf."""
expon = types.SimpleNamespace(logpdf=_expon_logpdf, pdf=_exp_of(_expon_logpdf, "pdf"),
                              cdf=_expon_cdf)
"""The exponential distribution: expon.logpdf(x, loc=0, scale=1), pdf, cdf."""
poisson = types.SimpleNamespace(logpmf=_poisson_logpmf, pmf=_exp_of(_poisson_logpmf, "pmf"))
"""The Poisson distribution: poisson.logpmf(k, mu, loc=0), pmf."""
binom = types.SimpleNamespace(logpmf=_binom_logpmf, pmf=_exp_of(_binom_logpmf, "pmf"))
"""The binomial distribution: binom.logpmf(k, n, p, loc=0), pmf."""
