"""scipy.stats distributions (as jax.scipy.stats): `norm` (logpdf, pdf, cdf, logcdf, sf, ppf)
and `multivariate_normal` (logpdf, pdf), as composites of library ops, differentiable in every
argument (x, loc, scale, mean, cov); t, gamma, beta, uniform, expon, poisson and binom are in
_distributions.py."""
import math
import types

from .. import numpy as fnp
from ..numpy._util import as_operand, shape
from . import special
from ._weak import weak
from .linalg import solve_triangular

from ._distributions import beta, binom, expon, gamma, poisson, t, uniform  # noqa: F401

__all__ = ["norm", "multivariate_normal", "t", "gamma", "beta", "uniform", "expon", "poisson",
           "binom"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__


_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _standardized(x, loc, scale):
    return (as_operand(x) - loc) / scale


def _norm_logpdf(x, loc=0.0, scale=1.0):
    """log N(x; loc, scale^2): norm.logpdf, as scipy.stats.norm.logpdf.

    -z^2 / 2 - log(scale) - log(2 pi) / 2 for z = (x - loc) / scale, differentiable in x, loc
    and scale.

    Args:
        x: points (array or scalar); x, loc and scale broadcast.
        loc: the mean.
        scale: the standard deviation (> 0).

    Returns:
        The log density, of the broadcast shape.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import norm
        >>> bool(np.allclose(norm.logpdf(0.0), -0.5 * np.log(2 * np.pi)))
        True
    """
    z = _standardized(x, loc, scale)
    return -0.5 * z * z - weak(fnp.log, as_operand(scale) * 1.0) - _HALF_LOG_2PI


def _norm_pdf(x, loc=0.0, scale=1.0):
    """N(x; loc, scale^2): norm.pdf, exp of norm.logpdf.

    Args:
        x: points (array or scalar); x, loc and scale broadcast.
        loc: the mean.
        scale: the standard deviation (> 0).

    Returns:
        The density, of the broadcast shape.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import norm
        >>> bool(np.allclose(norm.pdf(np.array([1.0]), loc=1.0, scale=2.0), 0.19947114))
        True
    """
    return fnp.exp(_norm_logpdf(x, loc, scale))


def _norm_cdf(x, loc=0.0, scale=1.0):
    """Phi((x - loc) / scale), through erfc: accurate in the lower tail (norm.cdf).

    Args:
        x: points (array or scalar); x, loc and scale broadcast.
        loc: the mean.
        scale: the standard deviation (> 0).

    Returns:
        Probabilities in [0, 1], of the broadcast shape.

    Raises:
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import norm
        >>> bool(np.allclose(norm.cdf(np.array([0.0, 1.96])), [0.5, 0.9750021]))
        True
    """
    return special.ndtr(_standardized(x, loc, scale))


def _norm_logcdf(x, loc=0.0, scale=1.0):
    """log Phi((x - loc) / scale): norm.logcdf, the log of norm.cdf (-inf where it
    underflows, below about z = -38).

    Args:
        x: points (array or scalar); x, loc and scale broadcast.
        loc: the mean.
        scale: the standard deviation (> 0).

    Returns:
        Log probabilities, of the broadcast shape.

    Raises:
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import norm
        >>> bool(np.allclose(norm.logcdf(0.0), np.log(0.5)))
        True
    """
    return fnp.log(_norm_cdf(x, loc, scale))


def _norm_sf(x, loc=0.0, scale=1.0):
    """1 - cdf, as Phi(-z): accurate in the upper tail (norm.sf, the survival function).

    Args:
        x: points (array or scalar); x, loc and scale broadcast.
        loc: the mean.
        scale: the standard deviation (> 0).

    Returns:
        Probabilities in [0, 1], of the broadcast shape.

    Raises:
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> from functorch_lite.scipy.stats import norm
        >>> bool(norm.sf(30.0) > 0)                  # 1 - cdf would round to 0
        True
    """
    return special.ndtr(-_standardized(x, loc, scale))


def _norm_ppf(q, loc=0.0, scale=1.0):
    """The quantile function loc + scale * ndtri(q): norm.ppf, the inverse of norm.cdf.

    Args:
        q: probabilities in [0, 1] (-inf and inf at 0 and 1); q, loc and scale broadcast.
        loc: the mean.
        scale: the standard deviation (> 0).

    Returns:
        Quantiles, of the broadcast shape.

    Raises:
        ImportError: SciPy is not installed (the `scipy` extra).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import norm
        >>> bool(np.allclose(norm.cdf(norm.ppf(np.array([0.1, 0.5]), loc=2.0), loc=2.0),
        ...                  [0.1, 0.5]))
        True
    """
    return loc + scale * weak(special.ndtri, as_operand(q))


norm = types.SimpleNamespace(logpdf=_norm_logpdf, pdf=_norm_pdf, cdf=_norm_cdf,
                             logcdf=_norm_logcdf, sf=_norm_sf, ppf=_norm_ppf)
"""The normal distribution: norm.logpdf(x, loc=0, scale=1), pdf, cdf, logcdf, sf, ppf(q)."""


def _mvn_logpdf(x, mean, cov, allow_singular=False):
    """log N(x; mean, cov) for x of shape (..., d) (one point per row, as SciPy), through the
    Cholesky factor of cov: -|L^-1 (x - mean)|^2 / 2 - sum(log diag L) - d/2 log(2 pi).

    multivariate_normal.logpdf, differentiable in x, mean and cov.

    Args:
        x: points, (d,) or (..., d).
        mean: the mean, (d,) (broadcast against x).
        cov: the (d, d) covariance, symmetric positive definite.
        allow_singular: must be False (SciPy's pseudo-inverse path is not supported).

    Returns:
        The log density at each point: shape x.shape[:-1].

    Raises:
        NotImplementedError: allow_singular is True.
        numpy.linalg.LinAlgError: cov is not positive definite.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import multivariate_normal
        >>> x = np.zeros((4, 2))
        >>> out = multivariate_normal.logpdf(x, np.zeros(2), np.eye(2))
        >>> out.shape, bool(np.allclose(out, -np.log(2 * np.pi)))
        ((4,), True)
    """
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
    """N(x; mean, cov): multivariate_normal.pdf, exp of multivariate_normal.logpdf.

    Args:
        x: points, (d,) or (..., d).
        mean: the mean, (d,) (broadcast against x).
        cov: the (d, d) covariance, symmetric positive definite.
        allow_singular: must be False.

    Returns:
        The density at each point: shape x.shape[:-1].

    Raises:
        NotImplementedError: allow_singular is True.
        numpy.linalg.LinAlgError: cov is not positive definite.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.scipy.stats import multivariate_normal
        >>> p = multivariate_normal.pdf(np.zeros(2), np.zeros(2), np.eye(2))
        >>> bool(np.allclose(p, 1 / (2 * np.pi)))
        True
    """
    return fnp.exp(_mvn_logpdf(x, mean, cov, allow_singular))


multivariate_normal = types.SimpleNamespace(logpdf=_mvn_logpdf, pdf=_mvn_pdf)
"""The multivariate normal: multivariate_normal.logpdf(x, mean, cov) with cov positive definite."""
