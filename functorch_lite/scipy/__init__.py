"""functorch_lite.scipy: SciPy's names (as jax.scipy), working on plain arrays and on every
transform level: `special`, `linalg`, `stats` and `sparse.linalg` (cg).

SciPy is an optional dependency (`pip install scipy`, or `pip install -e ".[scipy]"` from a
clone): the primitives with
SciPy kernels (erf, gammaln, ndtri, ..., solve_triangular, lu_factor, expm) need it when they
run; the composites (expit, logsumexp, xlogy, cho_solve, the distributions) are built from
library ops.
"""
from . import special, linalg, stats, sparse  # noqa: F401

__all__ = ["special", "linalg", "stats", "sparse"]
