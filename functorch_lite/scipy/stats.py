"""scipy.stats distributions (as jax.scipy.stats): `norm` (logpdf, pdf, cdf, logcdf, sf, ppf)
and `multivariate_normal` (logpdf, pdf), as composites of library ops, differentiable in every
argument (x, loc, scale, mean, cov)."""
import math
import types

from .. import numpy as fnp
from ..numpy._util import as_operand, shape
from . import special
from .linalg import solve_triangular

__all__ = ["norm", "multivariate_normal"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _standardized(x, loc, scale):
    return (as_operand(x) - loc) / scale


def _norm_logpdf(x, loc=0.0, scale=1.0):
    """log N(x; loc, scale^2)."""
    z = _standardized(x, loc, scale)
    return -0.5 * z * z - fnp.log(as_operand(scale) * 1.0) - _HALF_LOG_2PI


def _norm_pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(_norm_logpdf(x, loc, scale))


def _norm_cdf(x, loc=0.0, scale=1.0):
    """Phi((x - loc) / scale), through erfc: accurate in the lower tail."""
    return special.ndtr(_standardized(x, loc, scale))


def _norm_logcdf(x, loc=0.0, scale=1.0):
    return fnp.log(_norm_cdf(x, loc, scale))


def _norm_sf(x, loc=0.0, scale=1.0):
    """1 - cdf, as Phi(-z): accurate in the upper tail."""
    return special.ndtr(-_standardized(x, loc, scale))


def _norm_ppf(q, loc=0.0, scale=1.0):
    """The quantile function loc + scale * ndtri(q)."""
    return loc + scale * special.ndtri(as_operand(q))


norm = types.SimpleNamespace(logpdf=_norm_logpdf, pdf=_norm_pdf, cdf=_norm_cdf,
                             logcdf=_norm_logcdf, sf=_norm_sf, ppf=_norm_ppf)
"""The normal distribution: norm.logpdf(x, loc=0, scale=1), pdf, cdf, logcdf, sf, ppf(q)."""


def _mvn_logpdf(x, mean, cov, allow_singular=False):
    """log N(x; mean, cov) for x of shape (..., d) (one point per row, as SciPy), through the
    Cholesky factor of cov: -|L^-1 (x - mean)|^2 / 2 - sum(log diag L) - d/2 log(2 pi)."""
    if allow_singular:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular=True is not "
                                  "supported (cov must be positive definite)")
    x, mean, cov = as_operand(x), as_operand(mean), as_operand(cov)
    d = shape(cov)[-1]
    low = fnp.linalg.cholesky(cov)
    diff = x - mean                                          # (..., d)
    rows = fnp.reshape(diff, (-1, d))
    z = solve_triangular(low, fnp.swapaxes(rows, 0, 1), lower=True)    # (d, n)
    maha = fnp.reshape(fnp.sum(z * z, axis=0), shape(diff)[:-1])
    log_det = fnp.sum(fnp.log(fnp.diagonal(low)))
    return -0.5 * maha - log_det - d * _HALF_LOG_2PI


def _mvn_pdf(x, mean, cov, allow_singular=False):
    return fnp.exp(_mvn_logpdf(x, mean, cov, allow_singular))


multivariate_normal = types.SimpleNamespace(logpdf=_mvn_logpdf, pdf=_mvn_pdf)
"""The multivariate normal: multivariate_normal.logpdf(x, mean, cov) with cov positive definite."""
