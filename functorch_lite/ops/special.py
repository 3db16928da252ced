"""Special-function primitives (as scipy.special): erf, erfc, erfinv, gammaln, digamma,
polygamma, ndtri. Their kernels call SciPy on NumPy arrays and cupyx.scipy.special on CuPy
arrays; SciPy is an optional dependency (the `scipy` extra), imported the first time a kernel
runs, so the library imports without it."""
from ..dispatch import defop


def special_module(xp):
    """scipy.special for NumPy arrays, cupyx.scipy.special for CuPy arrays."""
    try:
        if xp.__name__ == "cupy":
            import cupyx.scipy.special as special
        else:
            import scipy.special as special
    except ImportError as e:
        raise ImportError("functorch_lite.scipy needs SciPy for this function: "
                          "pip install 'functorch-lite[scipy]'") from e
    return special


def _special_op(name, doc):
    return defop(name, lambda xp, x: getattr(special_module(xp), name)(x), doc=doc)


erf = _special_op("erf", "The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.")
erfc = _special_op("erfc", "1 - erf(x), accurate where erf(x) is close to 1.")
erfinv = _special_op("erfinv", "The inverse of erf on (-1, 1).")
gammaln = _special_op("gammaln", "log|Gamma(x)|.")
digamma = _special_op("digamma", "d/dx log Gamma(x).")
ndtri = _special_op("ndtri", "The inverse of the standard normal CDF on (0, 1).")
polygamma = defop("polygamma", lambda xp, x, n: special_module(xp).polygamma(n, x),
                  doc="The n-th derivative of digamma (n a static non-negative integer).")
