"""Batching rules by op family, their shared helpers, and the loop fallback."""
from . import (  # noqa: F401  (registers the rules)
    elementwise, reductions, shape, indexing, linalg, conv, pool, fft, special, searching,
    scipy_linalg, eig, random, checks)
from .fallback import (  # noqa: F401
    PerformanceWarning, MissingBatchRuleError, set_fallback_error, fallback_as_error,
    fallback_ops, clear_fallback_record)
