"""Batching rules by op family, their shared helpers, and the loop fallback."""
from . import elementwise, reductions, shape, indexing, linalg  # noqa: F401  (registers the rules)
from . import checks  # noqa: F401
from .fallback import (  # noqa: F401
    PerformanceWarning, MissingBatchRuleError, set_fallback_error, fallback_as_error,
    fallback_ops, clear_fallback_record)
