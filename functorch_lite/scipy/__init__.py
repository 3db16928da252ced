"""functorch_lite.scipy: SciPy's names (as jax.scipy), working on plain arrays and on every
transform level: `special`, `linalg`, `stats` and `sparse.linalg` (cg).

SciPy is an optional dependency (`pip install scipy`, or `pip install -e ".[scipy]"` from a
clone): the primitives with
SciPy kernels (erf, gammaln, ndtri, ..., solve_triangular, lu_factor, expm) need it when they
run; the composites (expit, logsumexp, xlogy, cho_solve, the distributions) are built from
library ops.
"""
from .. import tensor as _tensor
from ..numpy._protocols import register_foreign_ufuncs as _register_foreign_ufuncs
from . import special, linalg, stats, sparse  # noqa: F401
from ._hints import scipy_hint as _scipy_hint

__all__ = ["special", "linalg", "stats", "sparse"]

# SciPy's ufuncs meeting a wrapper run ours (scipy.special.psi is digamma there); SciPy's
# Python functions that convert a wrapper fail naming ours.
_register_foreign_ufuncs("scipy.special", special, {"psi": "digamma"})
_tensor.add_conversion_hint(_scipy_hint)
