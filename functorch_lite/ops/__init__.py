"""Primitives: each a name, a kernel against the array module `xp`, and (elsewhere) its rules.

Positional operands, keyword static parameters (see dispatch.py). The NumPy-named public
functions in `functorch_lite.numpy` are these primitives or composites of them.
"""
from . import (  # noqa: F401  (registers the ops)
    elementwise, reductions, shape, indexing, linalg, conv, pool, fft, special, searching,
    scipy_linalg, eig, random, checks, linalg_factored)
from ..dispatch import OPS as _OPS

BUILTIN_OPS = dict(_OPS)
"""The library's own primitives, by name (tests and users may register more in OPS)."""
