"""Special-function primitives (as scipy.special): erf, erfc, erfinv, gammaln, digamma,
polygamma, ndtri, gamma, log_ndtr, and the incomplete gamma and beta functions. Their kernels
call SciPy on NumPy arrays and cupyx.scipy.special on CuPy arrays; SciPy is an optional
dependency (the `scipy` extra), imported the first time a kernel runs, so the library imports
without it."""
import importlib

from .. import backend
from ..dispatch import defop


def scipy_module(xp, name):
    """scipy.<name> for NumPy arrays, the device module's cupyx.scipy.<name> otherwise (`name`:
    "special", "linalg"), imported on first use so the library imports without SciPy."""
    try:
        if backend.is_host(xp):
            return importlib.import_module("scipy." + name)
        return backend.companion(xp, "cupyx.scipy." + name)
    except ImportError as e:
        raise ImportError(f"functorch_lite.scipy.{name} needs SciPy for this function: "
                          "pip install scipy (or, from a clone, pip install -e '.[scipy]')") from e


def special_module(xp):
    """scipy.special for NumPy arrays, cupyx.scipy.special for CuPy arrays."""
    return scipy_module(xp, "special")


def _special_op(name, doc):
    return defop(name, lambda xp, x: getattr(special_module(xp), name)(x), doc=doc)


erf = _special_op("erf", """The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.

Elementwise, as scipy.special.erf; its derivative is 2/sqrt(pi) * exp(-x^2).

Args:
    x: real array (or scalar).

Returns:
    An array of x's shape and float dtype, in [-1, 1].

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np, functorch_lite as ft
    >>> from functorch_lite.scipy import special
    >>> special.erf(np.array([0.0, 10.0]))
    array([0., 1.])
    >>> bool(np.isclose(ft.grad(special.erf)(0.0), 2 / np.sqrt(np.pi)))
    True
""")

erfc = _special_op("erfc", """1 - erf(x), accurate where erf(x) is close to 1.

Elementwise, as scipy.special.erfc: computed directly, so the upper tail keeps its relative
precision where 1 - erf(x) would round to 0.

Args:
    x: real array (or scalar).

Returns:
    An array of x's shape and float dtype, in [0, 2].

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(special.erfc(np.array(10.0)) > 0)
    True
""")

erfinv = _special_op("erfinv", """The inverse of erf on (-1, 1).

Elementwise, as scipy.special.erfinv: -inf and inf at -1 and 1, NaN outside [-1, 1].

Args:
    x: real array (or scalar) with entries in [-1, 1].

Returns:
    An array of x's shape and float dtype.

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> x = np.array([-0.5, 0.0, 0.9])
    >>> bool(np.allclose(special.erf(special.erfinv(x)), x))
    True
""")

gammaln = _special_op("gammaln", """log|Gamma(x)|.

Elementwise, as scipy.special.gammaln; its derivative is digamma(x). Finite where Gamma(x)
itself would overflow.

Args:
    x: real array (or scalar).

Returns:
    An array of x's shape and float dtype.

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(np.allclose(special.gammaln(np.array([1.0, 5.0])), [0.0, np.log(24.0)]))
    True
""")

digamma = _special_op("digamma", """d/dx log Gamma(x).

Elementwise, as scipy.special.digamma (psi); its derivative is polygamma(1, x).

Args:
    x: real array (or scalar).

Returns:
    An array of x's shape and float dtype.

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(np.allclose(special.digamma(1.0), -np.euler_gamma))
    True
""")

ndtri = _special_op("ndtri", """The inverse of the standard normal CDF on (0, 1).

Elementwise, as scipy.special.ndtri: the x with ndtr(x) = p; -inf and inf at 0 and 1.

Args:
    x: probabilities, a real array (or scalar) with entries in [0, 1].

Returns:
    An array of x's shape and float dtype.

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> p = np.array([0.025, 0.5, 0.975])
    >>> bool(np.allclose(special.ndtr(special.ndtri(p)), p))
    True
""")
def _polygamma_kernel(xp, x, n):
    """cupyx's polygamma takes n as an array: it calls cupy.where(n == 0, ...), which refuses
    the Python bool a Python int n gives."""
    return special_module(xp).polygamma(n if backend.is_host(xp) else xp.asarray(n), x)


polygamma = defop("polygamma", _polygamma_kernel,
                  doc="""The n-th derivative of digamma, the primitive behind
functorch_lite.scipy.special.polygamma(n, x).

Elementwise, as scipy.special.polygamma; its derivative in x is polygamma of order n + 1.

Args:
    x: real array (or scalar).
    n: the order, a static non-negative integer (a keyword).

Returns:
    An array of x's shape and float dtype.

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.ops.special import polygamma
    >>> bool(np.isclose(polygamma(1.0, n=1), np.pi ** 2 / 6))
    True
""")

gamma = _special_op("gamma", """The gamma function, Gamma(n) = (n - 1)! at positive integers.

Elementwise, as scipy.special.gamma; its derivative is gamma(x) digamma(x). Overflows to inf
beyond x = 171.6 (float64): use gammaln there.

Args:
    x: real array (or scalar).

Returns:
    An array of x's shape and float dtype (inf at the poles 0, -1, -2, ...).

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> special.gamma(np.array([1.0, 5.0]))
    array([ 1., 24.])
""")

log_ndtr = _special_op("log_ndtr", """The log of the standard normal CDF, accurate far in the
lower tail.

Elementwise, as scipy.special.log_ndtr; its derivative, the density over the CDF, is computed
as exp(log density - log_ndtr(x)) so it stays finite where ndtr underflows.

Args:
    x: real array (or scalar).

Returns:
    An array of x's shape and float dtype, at most 0.

Raises:
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(np.isfinite(special.log_ndtr(-50.0)))
    True
""")

# -- the regularized incomplete gamma and beta functions: differentiable in x only ------------

_SHAPE_NOTE = """Differentiable in x only: a derivative with respect to the shape parameter{s}
(a traced {names} under grad, jvp, jacrev, ...) raises NotImplementedError, as SciPy has no
kernel for it. JAX differentiates gammainc in `a` by a series; this library does not. Wrap a
shape parameter in ft.stop_gradient to treat it as a constant."""


def _in_operand_dtype(xp, out, *operands):
    """SciPy's result in the operands' floating dtype (a Python number is weak, as in NumPy's
    promotion; SciPy's loops would otherwise pick float64 for float32 arrays and a float)."""
    dt = xp.result_type(*operands)
    return out.astype(dt, copy=False) if dt.kind == "f" and out.dtype != dt else out


def _gammainc_kernel(xp, a, x):
    return _in_operand_dtype(xp, special_module(xp).gammainc(a, x), a, x)


def _gammaincc_kernel(xp, a, x):
    return _in_operand_dtype(xp, special_module(xp).gammaincc(a, x), a, x)


def _betainc_kernel(xp, a, b, x):
    return _in_operand_dtype(xp, special_module(xp).betainc(a, b, x), a, b, x)


gammainc = defop("gammainc", _gammainc_kernel, doc="""The regularized lower incomplete gamma
function P(a, x) = (1 / Gamma(a)) * integral of t^(a-1) e^-t from 0 to x.

Elementwise with broadcasting, as scipy.special.gammainc: the CDF of the gamma distribution of
shape a at x; in [0, 1] for a > 0, x >= 0, NaN for x < 0. Its derivative in x is the gamma
density x^(a-1) e^-x / Gamma(a).

""" + _SHAPE_NOTE.format(s="", names="a") + """

Args:
    a: shape, a positive real array (or scalar).
    x: real array (or scalar), broadcast against a.

Returns:
    An array of the broadcast shape, in the inputs' floating dtype.

Raises:
    NotImplementedError: a traced `a` is being differentiated.
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np, functorch_lite as ft
    >>> from functorch_lite.scipy import special
    >>> bool(np.isclose(special.gammainc(1.0, 2.0), 1 - np.exp(-2.0)))
    True
    >>> bool(np.isclose(ft.grad(special.gammainc, argnums=1)(1.0, 2.0), np.exp(-2.0)))
    True
""")

gammaincc = defop("gammaincc", _gammaincc_kernel, doc="""The regularized upper incomplete
gamma function Q(a, x) = 1 - P(a, x), computed directly.

Elementwise with broadcasting, as scipy.special.gammaincc: keeps its relative precision in the
upper tail where 1 - gammainc(a, x) would round to 0. Its derivative in x is minus the gamma
density, -x^(a-1) e^-x / Gamma(a).

""" + _SHAPE_NOTE.format(s="", names="a") + """

Args:
    a: shape, a positive real array (or scalar).
    x: real array (or scalar), broadcast against a.

Returns:
    An array of the broadcast shape, in the inputs' floating dtype.

Raises:
    NotImplementedError: a traced `a` is being differentiated.
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(special.gammaincc(2.0, 50.0) > 0)
    True
""")

betainc = defop("betainc", _betainc_kernel, doc="""The regularized incomplete beta function
I_x(a, b) = (1 / B(a, b)) * integral of t^(a-1) (1-t)^(b-1) from 0 to x.

Elementwise with broadcasting, as scipy.special.betainc: the CDF of the beta distribution of
shapes a, b at x; NaN for x outside [0, 1]. Its derivative in x is the beta density
x^(a-1) (1-x)^(b-1) / B(a, b).

""" + _SHAPE_NOTE.format(s="s", names="a or b") + """

Args:
    a: first shape, a positive real array (or scalar).
    b: second shape, a positive real array (or scalar).
    x: real array (or scalar) in [0, 1]; a, b and x broadcast.

Returns:
    An array of the broadcast shape, in the inputs' floating dtype.

Raises:
    NotImplementedError: a traced `a` or `b` is being differentiated.
    ImportError: SciPy is not installed (the `scipy` extra).

Examples:
    >>> import numpy as np, functorch_lite as ft
    >>> from functorch_lite.scipy import special
    >>> bool(np.isclose(special.betainc(2.0, 1.0, 0.5), 0.25))
    True
    >>> bool(np.isclose(ft.grad(special.betainc, argnums=2)(2.0, 1.0, 0.5), 1.0))
    True
""")
