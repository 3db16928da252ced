"""Primitives: each a name, a kernel against the array module `xp`, and (elsewhere) its rules.

Positional operands, keyword static parameters (see dispatch.py). The NumPy-named public
functions in `functorch_lite.numpy` are these primitives or composites of them.
"""
from . import elementwise, reductions, shape, indexing, linalg  # noqa: F401  (registers ops)
from . import checks  # noqa: F401
from ..dispatch import OPS as _OPS

BUILTIN_OPS = dict(_OPS)
"""The library's own primitives, by name (tests and users may register more in OPS)."""
