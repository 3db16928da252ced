"""scipy.sparse's solvers (as jax.scipy.sparse): `linalg.cg`."""
from . import linalg  # noqa: F401

__all__ = ["linalg"]
