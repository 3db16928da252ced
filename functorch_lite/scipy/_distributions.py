"""scipy.stats distributions beyond the normal ones (as jax.scipy.stats): t, gamma, beta,
uniform, expon (logpdf, pdf, cdf; sf for t, gamma and beta) and the discrete poisson and binom
(logpmf, pmf, cdf, sf), as composites of library ops. The densities are differentiable in x and
every parameter; the cdf and sf of t, gamma, beta, poisson and binom go through the incomplete
gamma and beta functions, so they are differentiable in x, loc, scale, mu and p but not in the
shape parameters df, a, b and n (a derivative there raises NotImplementedError). Outside the
support the log density is -inf, as SciPy's."""
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


def _in_float_dtype_of(value, *operands):
    """value cast to the floating dtype of the array operands (t.logpdf of a Python df is
    float64 whatever z's dtype)."""
    dt = np.result_type(np.float16, *[o.dtype for o in operands if hasattr(o, "dtype")])
    return fnp.astype(value, dt) if getattr(value, "dtype", dt) != dt else value


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


def _t_cdf(x, df, loc=0.0, scale=1.0):
    """Student's t CDF (t.cdf) through betainc: 1/2 I_{df/(df+z^2)}(df/2, 1/2) in the tails and
    1/2 + sign(z)/2 I_{z^2/(df+z^2)}(1/2, df/2) near the centre (z^2 < min(df, 4)), each where
    its argument keeps its precision and the sum does not cancel. At z = 0 exactly (where betainc's derivative is infinite times the chain
    rule's 0) the value is 1/2 + z pdf(z), which has the right first and second derivatives."""
    return _t_tail(_z(x, loc, scale), as_operand(df))


def _t_sf(x, df, loc=0.0, scale=1.0):
    """1 - t.cdf, computed as the CDF at -z (t.sf): accurate in the upper tail."""
    return _t_tail(-_z(x, loc, scale), as_operand(df))


def _t_tail(z, df):
    z2 = z * z
    centre = fnp.logical_and(fnp.less(z2, df), fnp.less(z2, 4.0))
    zero = fnp.equal(z, 0)
    safe_tail = fnp.where(centre, df + 4.0, z2)              # keeps both branches finite
    tail = 0.5 * special.betainc(df / 2, 0.5, df / (df + safe_tail))
    tail = fnp.where(fnp.greater(z, 0), 1.0 - tail, tail)
    safe_centre = fnp.where(fnp.logical_and(centre, fnp.logical_not(zero)), z2, 1.0)
    inner = special.betainc(0.5, df / 2, safe_centre / (df + safe_centre))
    middle = 0.5 + 0.5 * fnp.sign(z) * inner
    at_zero = 0.5 + z * _in_float_dtype_of(fnp.exp(_t_logpdf(z, df)), z, df)
    return fnp.where(zero, at_zero, fnp.where(centre, middle, tail))


def _gamma_cdf(x, a, loc=0.0, scale=1.0):
    """gammainc(a, z), 0 for z < 0 (gamma.cdf)."""
    z = _z(x, loc, scale)
    negative = fnp.less(z, 0)
    return fnp.where(negative, 0.0, special.gammainc(as_operand(a), fnp.where(negative, 0.0, z)))


def _gamma_sf(x, a, loc=0.0, scale=1.0):
    """gammaincc(a, z), 1 for z < 0 (gamma.sf)."""
    z = _z(x, loc, scale)
    negative = fnp.less(z, 0)
    return fnp.where(negative, 1.0, special.gammaincc(as_operand(a), fnp.where(negative, 0.0, z)))


def _beta_cdf(x, a, b, loc=0.0, scale=1.0):
    """betainc(a, b, z) for z in [0, 1], 0 below and 1 above (beta.cdf)."""
    z = _z(x, loc, scale)
    below, above = fnp.less(z, 0), fnp.greater(z, 1)
    out = fnp.logical_or(below, above)
    inside = special.betainc(as_operand(a), as_operand(b), fnp.where(out, 0.5, z))
    return fnp.where(below, 0.0, fnp.where(above, 1.0, inside))


def _beta_sf(x, a, b, loc=0.0, scale=1.0):
    """1 - betainc(a, b, z) for z < 1/2 (where 1 - z would round), betainc(b, a, 1 - z) above
    (where the small sf keeps its relative precision); 1 below 0 and 0 above 1 (beta.sf)."""
    z = _z(x, loc, scale)
    a, b = as_operand(a), as_operand(b)
    below, above = fnp.less(z, 0), fnp.greater(z, 1)
    low = fnp.less(z, 0.5)
    z_low = fnp.where(fnp.logical_and(low, fnp.logical_not(below)), z, 0.25)
    z_high = fnp.where(fnp.logical_or(low, above), 0.75, z)
    inside = fnp.where(low, 1.0 - special.betainc(a, b, z_low),
                       special.betainc(b, a, 1.0 - z_high))
    return fnp.where(below, 1.0, fnp.where(above, 0.0, inside))


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


def _counts_below(k, param, loc):
    """floor(k - loc) in the parameter's floating dtype, and where it is negative."""
    k = _as_float_of(fnp.floor(as_operand(k) - loc), param)
    return k, fnp.less(k, 0)


def _poisson_cdf(k, mu, loc=0):
    """gammaincc(floor(k) + 1, mu), 0 for k < 0 (poisson.cdf); differentiable in mu."""
    mu = as_operand(mu)
    k, negative = _counts_below(k, mu, loc)
    return fnp.where(negative, 0.0, special.gammaincc(fnp.where(negative, 0.0, k) + 1.0, mu))


def _poisson_sf(k, mu, loc=0):
    """gammainc(floor(k) + 1, mu), 1 for k < 0 (poisson.sf)."""
    mu = as_operand(mu)
    k, negative = _counts_below(k, mu, loc)
    return fnp.where(negative, 1.0, special.gammainc(fnp.where(negative, 0.0, k) + 1.0, mu))


def _binom_tails(k, n, p, loc):
    """(k, n, below, above, safe k): floor(k) as a float, n, k < 0, k >= n, k clipped inside."""
    p = as_operand(p)
    n = as_operand(n)
    if not hasattr(n, "shape"):
        n = fnp.asarray(n, like=p if hasattr(p, "shape") else None)
    k, below = _counts_below(k, p, loc)
    n = _as_float_of(n, p)
    above = fnp.greater_equal(k, n)
    safe = fnp.where(fnp.logical_or(below, above), 0.0, k)
    return n, p, below, above, fnp.where(above, fnp.maximum(n - 1.0, 0.0), safe)


def _binom_cdf(k, n, p, loc=0):
    """betainc(n - k, k + 1, 1 - p) for 0 <= k < n, 0 below and 1 from n on (binom.cdf);
    differentiable in p."""
    n, p, below, above, k = _binom_tails(k, n, p, loc)
    inside = special.betainc(fnp.maximum(n - k, 1.0), k + 1.0, 1.0 - p)
    return fnp.where(below, 0.0, fnp.where(above, 1.0, inside))


def _binom_sf(k, n, p, loc=0):
    """betainc(k + 1, n - k, p) for 0 <= k < n, 1 below and 0 from n on (binom.sf)."""
    n, p, below, above, k = _binom_tails(k, n, p, loc)
    inside = special.betainc(k + 1.0, fnp.maximum(n - k, 1.0), p)
    return fnp.where(below, 1.0, fnp.where(above, 0.0, inside))


def _exp_of(logf, name):
    def f(*args, **kwargs):
        return fnp.exp(logf(*args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"exp of {logf.__name__.lstrip('_').replace('_', '.', 1)}."
    return f


t = types.SimpleNamespace(logpdf=_t_logpdf, pdf=_exp_of(_t_logpdf, "pdf"), cdf=_t_cdf,
                          sf=_t_sf)
"""Student's t: t.logpdf(x, df, loc=0, scale=1), pdf, cdf, sf."""
gamma = types.SimpleNamespace(logpdf=_gamma_logpdf, pdf=_exp_of(_gamma_logpdf, "pdf"),
                              cdf=_gamma_cdf, sf=_gamma_sf)
"""The gamma distribution: gamma.logpdf(x, a, loc=0, scale=1), pdf, cdf, sf."""
beta = types.SimpleNamespace(logpdf=_beta_logpdf, pdf=_exp_of(_beta_logpdf, "pdf"),
                             cdf=_beta_cdf, sf=_beta_sf)
"""The beta distribution: beta.logpdf(x, a, b, loc=0, scale=1), pdf, cdf, sf."""
uniform = types.SimpleNamespace(logpdf=_uniform_logpdf, pdf=_exp_of(_uniform_logpdf, "pdf"),
                                cdf=_uniform_cdf)
"""The uniform distribution on [loc, loc + scale]: logpdf, pdf, cdf."""
expon = types.SimpleNamespace(logpdf=_expon_logpdf, pdf=_exp_of(_expon_logpdf, "pdf"),
                              cdf=_expon_cdf)
"""The exponential distribution: expon.logpdf(x, loc=0, scale=1), pdf, cdf."""
poisson = types.SimpleNamespace(logpmf=_poisson_logpmf, pmf=_exp_of(_poisson_logpmf, "pmf"),
                                cdf=_poisson_cdf, sf=_poisson_sf)
"""The Poisson distribution: poisson.logpmf(k, mu, loc=0), pmf, cdf, sf."""
binom = types.SimpleNamespace(logpmf=_binom_logpmf, pmf=_exp_of(_binom_logpmf, "pmf"),
                              cdf=_binom_cdf, sf=_binom_sf)
"""The binomial distribution: binom.logpmf(k, n, p, loc=0), pmf, cdf, sf."""
