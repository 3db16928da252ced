"""scipy.stats distributions beyond the normal ones (as jax.scipy.stats): t, gamma, beta,
uniform, expon (logpdf, pdf, cdf, sf) and the discrete poisson and binom
(logpmf, pmf, cdf, sf), as composites of library ops. The densities are differentiable in x and
every parameter; the cdf and sf of t, gamma, beta, poisson and binom go through the incomplete
gamma and beta functions, so they are differentiable in x, loc, scale, mu and p but not in the
shape parameters df, a, b and n (a derivative there raises NotImplementedError). Outside the
support the log density is -inf, as SciPy's. The result's dtype is NumPy's promotion of the
inputs, with Python numbers weak (NEP 50, as jax.scipy): a float32 x with Python parameters gives
float32."""
import inspect
import math
import types

import numpy as np

from .. import numpy as fnp
from ..numpy._util import as_operand
from . import special
from ._weak import float_dtype, in_dtype_of, is_python_number, weak


def _z(x, loc, scale, *shapes):
    """(x - loc) / scale; a Python number in the parameters' dtype when one is an array."""
    return in_dtype_of((as_operand(x) - loc) / scale, loc, scale, *shapes)


def _log(value):
    """log(value); a Python number stays a Python number (weak, as the inputs')."""
    return weak(fnp.log, value)


def _as_float(k, dt, *operands):
    """Counts k as floats of dtype `dt`, the float_dtype of k and `operands` (a Python k: a
    Python float, or a 0-d array beside array operands)."""
    if is_python_number(k):
        return in_dtype_of(float(k), *operands)
    return k if np.dtype(k.dtype) == dt else fnp.astype(k, dt)


def _outside(cond, value):
    """-inf where `cond`, `value` elsewhere."""
    return fnp.where(cond, -np.inf, value)


def _t_logpdf(x, df, loc=0.0, scale=1.0):
    """log of Student's t density with `df` degrees of freedom (t.logpdf)."""
    df = as_operand(df)
    z = _z(x, loc, scale, df)
    return (weak(special.gammaln, (df + 1) / 2) - weak(special.gammaln, df / 2)
            - 0.5 * _log(df * math.pi) - _log(scale)
            - (df + 1) / 2 * fnp.log1p(z * z / df))


def _gamma_logpdf(x, a, loc=0.0, scale=1.0):
    """log of the gamma density with shape `a` (gamma.logpdf); -inf for x < loc."""
    a = as_operand(a)
    z = _z(x, loc, scale, a)
    negative = fnp.less(z, 0)
    z = fnp.where(negative, 1.0, z)
    value = special.xlogy(a - 1, z) - z - weak(special.gammaln, a) - _log(scale)
    return _outside(negative, value)


def _beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    """log of the beta density with shapes `a`, `b` (beta.logpdf); -inf outside [0, 1]."""
    a, b = as_operand(a), as_operand(b)
    z = _z(x, loc, scale, a, b)
    out = fnp.logical_or(fnp.less(z, 0), fnp.greater(z, 1))
    z = fnp.where(out, 0.5, z)
    value = (special.xlogy(a - 1, z) + special.xlog1py(b - 1, -z) - weak(special.betaln, a, b)
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


def _uniform_sf(x, loc=0.0, scale=1.0):
    """1 - (x - loc) / scale clipped to [0, 1] (uniform.sf)."""
    z = _z(x, loc, scale)
    return fnp.where(fnp.less(z, 0), 1.0, fnp.where(fnp.greater(z, 1), 0.0, 1.0 - z))


def _expon_logpdf(x, loc=0.0, scale=1.0):
    """-z - log(scale) for z = (x - loc) / scale >= 0, -inf below (expon.logpdf)."""
    z = _z(x, loc, scale)
    return _outside(fnp.less(z, 0), -z - _log(scale))


def _expon_cdf(x, loc=0.0, scale=1.0):
    """1 - exp(-z) for z >= 0, 0 below (expon.cdf), through expm1."""
    z = _z(x, loc, scale)
    return fnp.where(fnp.less(z, 0), 0.0, -fnp.expm1(-fnp.where(fnp.less(z, 0), 0.0, z)))


def _expon_sf(x, loc=0.0, scale=1.0):
    """exp(-z) for z >= 0, 1 below (expon.sf): keeps its relative precision far in the tail,
    where 1 - cdf would round to 0."""
    z = _z(x, loc, scale)
    negative = fnp.less(z, 0)
    return fnp.where(negative, 1.0, fnp.exp(-fnp.where(negative, 0.0, z)))


def _t_cdf(x, df, loc=0.0, scale=1.0):
    """Student's t CDF (t.cdf) through betainc: 1/2 I_{df/(df+z^2)}(df/2, 1/2) in the tails and
    1/2 + sign(z)/2 I_{z^2/(df+z^2)}(1/2, df/2) near the centre (z^2 < min(df, 4)), each where
    its argument keeps its precision and the sum does not cancel. At z = 0 exactly (where
    betainc's derivative is infinite times the chain
    rule's 0) the value is 1/2 + z pdf(z), which has the right first and second derivatives."""
    df = as_operand(df)
    return _t_tail(_z(x, loc, scale, df), df)


def _t_sf(x, df, loc=0.0, scale=1.0):
    """1 - t.cdf, computed as the CDF at -z (t.sf): accurate in the upper tail."""
    df = as_operand(df)
    return _t_tail(-_z(x, loc, scale, df), df)


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
    at_zero = 0.5 + z * fnp.exp(_t_logpdf(z, df))
    return fnp.where(zero, at_zero, fnp.where(centre, middle, tail))


def _gamma_cdf(x, a, loc=0.0, scale=1.0):
    """gammainc(a, z), 0 for z < 0 (gamma.cdf)."""
    a = as_operand(a)
    z = _z(x, loc, scale, a)
    negative = fnp.less(z, 0)
    return fnp.where(negative, 0.0, special.gammainc(a, fnp.where(negative, 0.0, z)))


def _gamma_sf(x, a, loc=0.0, scale=1.0):
    """gammaincc(a, z), 1 for z < 0 (gamma.sf)."""
    a = as_operand(a)
    z = _z(x, loc, scale, a)
    negative = fnp.less(z, 0)
    return fnp.where(negative, 1.0, special.gammaincc(a, fnp.where(negative, 0.0, z)))


def _beta_cdf(x, a, b, loc=0.0, scale=1.0):
    """betainc(a, b, z) for z in [0, 1], 0 below and 1 above (beta.cdf)."""
    a, b = as_operand(a), as_operand(b)
    z = _z(x, loc, scale, a, b)
    below, above = fnp.less(z, 0), fnp.greater(z, 1)
    out = fnp.logical_or(below, above)
    inside = special.betainc(a, b, fnp.where(out, 0.5, z))
    return fnp.where(below, 0.0, fnp.where(above, 1.0, inside))


def _beta_sf(x, a, b, loc=0.0, scale=1.0):
    """1 - betainc(a, b, z) for z < 1/2 (where 1 - z would round), betainc(b, a, 1 - z) above
    (where the small sf keeps its relative precision); 1 below 0 and 0 above 1 (beta.sf)."""
    a, b = as_operand(a), as_operand(b)
    z = _z(x, loc, scale, a, b)
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
    k, mu = as_operand(k), as_operand(mu)
    k = _as_float(k - loc, float_dtype(k, mu, loc), mu, loc)
    bad = _not_count(k)
    k = fnp.where(bad, 0, k)
    return _outside(bad, special.xlogy(k, mu) - mu - special.gammaln(k + 1.0))


def _binom_logpmf(k, n, p, loc=0):
    """log(n choose k) + k log(p) + (n - k) log(1 - p) (binom.logpmf); -inf where k - loc is
    not a count up to n."""
    k, n, p = as_operand(k), as_operand(n), as_operand(p)
    dt = float_dtype(k, n, p, loc)
    k, n = _as_float(k - loc, dt, n, p, loc), _counts_array(n, p, dt)
    bad = fnp.logical_or(_not_count(k), fnp.greater(k, n))
    k = fnp.where(bad, 0, k)
    choose = special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - special.gammaln(n - k + 1.0)
    return _outside(bad, choose + special.xlogy(k, p) + special.xlog1py(n - k, -p))


def _counts_array(n, p, dt):
    """The number of trials n as an array of dtype `dt` on p's device (a Python n too, so that
    the terms computed from n alone stay in dtype `dt`)."""
    if is_python_number(n):
        return fnp.asarray(n, dtype=dt, like=p if hasattr(p, "shape") else None)
    return _as_float(n, dt)


def _counts_below(k, dt, loc, *params):
    """floor(k - loc) as floats of dtype `dt`, and where it is negative."""
    k = as_operand(k)
    k = _as_float(math.floor(k - loc) if is_python_number(k) and is_python_number(loc)
                  else fnp.floor(k - loc), dt, loc, *params)
    return k, fnp.less(k, 0)


def _poisson_cdf(k, mu, loc=0):
    """gammaincc(floor(k) + 1, mu), 0 for k < 0 (poisson.cdf); differentiable in mu."""
    k, mu = as_operand(k), as_operand(mu)
    k, negative = _counts_below(k, float_dtype(k, mu, loc), loc, mu)
    return fnp.where(negative, 0.0, special.gammaincc(fnp.where(negative, 0.0, k) + 1.0, mu))


def _poisson_sf(k, mu, loc=0):
    """gammainc(floor(k) + 1, mu), 1 for k < 0 (poisson.sf)."""
    k, mu = as_operand(k), as_operand(mu)
    k, negative = _counts_below(k, float_dtype(k, mu, loc), loc, mu)
    return fnp.where(negative, 1.0, special.gammainc(fnp.where(negative, 0.0, k) + 1.0, mu))


def _binom_tails(k, n, p, loc):
    """(k, n, below, above, safe k): floor(k) as a float, n, k < 0, k >= n, k clipped inside."""
    k, n, p = as_operand(k), as_operand(n), as_operand(p)
    dt = float_dtype(k, n, p, loc)
    k, below = _counts_below(k, dt, loc, n, p)
    n = _counts_array(n, p, dt)
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


def _exp_of(logf, summary):
    def f(*args, **kwargs):
        return fnp.exp(logf(*args, **kwargs))
    f.__name__ = f.__qualname__ = logf.__name__.replace("log", "", 1)    # _t_pdf
    f.__signature__ = inspect.signature(logf)
    f.__doc__ = summary
    return f


# -- the docstrings, generated from a table (the functions above carry their summary line) ---

_ARGS = {
    "x": "points (array or scalar); all arguments broadcast together.",
    "k": "counts (array or scalar; an integer array does not raise the precision); all "
         "arguments broadcast together.",
    "df": "degrees of freedom (> 0).",
    "a": "the shape (> 0).",
    "b": "the second shape (> 0).",
    "loc": "the location: the distribution is shifted by loc.",
    "scale": "the scale (> 0): the distribution of (x - loc) / scale.",
    "mu": "the mean (> 0).",
    "n": "the number of trials (a non-negative integer).",
    "p": "the success probability, in [0, 1].",
}
_RETURNS = {
    "logpdf": "The log density (-inf outside the support)",
    "pdf": "The density (0 outside the support)",
    "logpmf": "The log probability of k (-inf where k - loc is not a count of the support)",
    "pmf": "The probability of k (0 where k - loc is not a count of the support)",
    "cdf": "P(X <= {x}), in [0, 1]",
    "sf": "P(X > {x}), the survival function 1 - cdf without its rounding, in [0, 1]",
}
_DTYPE = ("of the broadcast shape, in the floating dtype NumPy's promotion gives the inputs "
          "(Python numbers are weak: a float32 array with Python parameters gives float32).")
_NEEDS_SCIPY = "ImportError: SciPy is not installed (the `scipy` extra)."
_SHAPES_RAISE = ("NotImplementedError: a derivative with respect to {} (differentiable in the "
                 "others).")


def _document(name, method, fn, shapes, example, values):
    """fn's summary line, then Args, Returns, Raises and an example generated from its row.

    `shapes`: the parameters the function is not differentiable in (None: it needs no SciPy
    kernel); `example`: the arguments after x; `values`: what SciPy gives for them."""
    x = "np.array([0, 3])" if method in ("logpmf", "pmf") or name in ("poisson", "binom") \
        else "np.array([{}], np.float32)"
    first = {"t": "0.0, 1.0", "gamma": "0.5, 2.0", "beta": "0.25, 0.5", "uniform": "0.5, 3.0",
             "expon": "-1.0, 1.0"}.get(name)
    x = x.format(first) if first else x
    dtype = "float64" if name in ("poisson", "binom") else "float32"
    params = list(inspect.signature(fn).parameters)
    args = "\n".join(f"    {p}: {_ARGS[p]}" for p in params)
    raises = [] if shapes is None else [_NEEDS_SCIPY]
    if shapes and method in ("cdf", "sf"):
        raises.append(_SHAPES_RAISE.format(shapes))
    raises = "".join(f"\n    {r}" for r in raises)
    fn.__doc__ = (f"{inspect.cleandoc(fn.__doc__)}\n\nArgs:\n{args}\n\nReturns:\n    "
                  f"{_RETURNS[method].format(x=params[0])}, {_DTYPE}\n"
                  + (f"\nRaises:{raises}\n" if raises else "")
                  + f"""
Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import stats
    >>> out = stats.{name}.{method}({x}, {example})
    >>> out.dtype, bool(np.allclose(out, {values}, rtol=1e-5))
    (dtype('{dtype}'), True)
""")
    return fn


def _distribution(name, shapes, example, **methods):
    """The namespace of `name`'s functions, each documented; `methods`: name -> (function,
    what SciPy gives at the example)."""
    return types.SimpleNamespace(**{
        method: _document(name, method, fn, shapes, example, values)
        for method, (fn, values) in methods.items()})


t = _distribution(
    "t", "df", "3.0",
    logpdf=(_t_logpdf, "[-1.000889, -1.576253]"),
    pdf=(_exp_of(_t_logpdf, "The density of Student's t (t.pdf), exp of t.logpdf."),
         "[0.3675526, 0.2067483]"),
    cdf=(_t_cdf, "[0.5, 0.8044989]"), sf=(_t_sf, "[0.5, 0.1955011]"))
"""Student's t: t.logpdf(x, df, loc=0, scale=1), pdf, cdf, sf."""
gamma = _distribution(
    "gamma", "a", "2.0",
    logpdf=(_gamma_logpdf, "[-1.193147, -1.306853]"),
    pdf=(_exp_of(_gamma_logpdf, "The gamma density (gamma.pdf), exp of gamma.logpdf; 0 for "
                                "x < loc."), "[0.3032653, 0.2706706]"),
    cdf=(_gamma_cdf, "[0.09020401, 0.5939942]"), sf=(_gamma_sf, "[0.909796, 0.4060058]"))
"""The gamma distribution: gamma.logpdf(x, a, loc=0, scale=1), pdf, cdf, sf."""
beta = _distribution(
    "beta", "a or b", "2.0, 3.0",
    logpdf=(_beta_logpdf, "[0.5232481, 0.4054651]"),
    pdf=(_exp_of(_beta_logpdf, "The beta density (beta.pdf), exp of beta.logpdf; 0 outside "
                               "[0, 1]."), "[1.6875, 1.5]"),
    cdf=(_beta_cdf, "[0.2617188, 0.6875]"), sf=(_beta_sf, "[0.7382812, 0.3125]"))
"""The beta distribution: beta.logpdf(x, a, b, loc=0, scale=1), pdf, cdf, sf."""
uniform = _distribution(
    "uniform", None, "0.0, 2.0",
    logpdf=(_uniform_logpdf, "[-0.6931472, -np.inf]"),
    pdf=(_exp_of(_uniform_logpdf, "1 / scale on [loc, loc + scale], 0 elsewhere (uniform.pdf)."),
         "[0.5, 0.0]"),
    cdf=(_uniform_cdf, "[0.25, 1.0]"), sf=(_uniform_sf, "[0.75, 0.0]"))
"""The uniform distribution on [loc, loc + scale]: logpdf, pdf, cdf, sf."""
expon = _distribution(
    "expon", None, "0.0, 2.0",
    logpdf=(_expon_logpdf, "[-np.inf, -1.193147]"),
    pdf=(_exp_of(_expon_logpdf, "exp(-z) / scale for z = (x - loc) / scale >= 0, 0 below "
                                "(expon.pdf)."), "[0.0, 0.3032653]"),
    cdf=(_expon_cdf, "[0.0, 0.3934693]"), sf=(_expon_sf, "[1.0, 0.6065307]"))
"""The exponential distribution: expon.logpdf(x, loc=0, scale=1), pdf, cdf, sf."""
poisson = _distribution(
    "poisson", "", "2.0",
    logpmf=(_poisson_logpmf, "[-2.0, -1.712318]"),
    pmf=(_exp_of(_poisson_logpmf, "mu^k e^-mu / k! (poisson.pmf), exp of poisson.logpmf."),
         "[0.1353353, 0.180447]"),
    cdf=(_poisson_cdf, "[0.1353353, 0.8571235]"), sf=(_poisson_sf, "[0.8646647, 0.1428765]"))
"""The Poisson distribution: poisson.logpmf(k, mu, loc=0), pmf, cdf, sf."""
binom = _distribution(
    "binom", "n", "5, 0.4",
    logpmf=(_binom_logpmf, "[-2.554128, -1.467938]"),
    pmf=(_exp_of(_binom_logpmf, "(n choose k) p^k (1 - p)^(n - k) (binom.pmf), exp of "
                                "binom.logpmf."), "[0.07776, 0.2304]"),
    cdf=(_binom_cdf, "[0.07776, 0.91296]"), sf=(_binom_sf, "[0.92224, 0.08704]"))
"""The binomial distribution: binom.logpmf(k, n, p, loc=0), pmf, cdf, sf."""
