"""Batching rules of the check ops: the check runs on the whole batch at once."""
from ..ops import checks
from .helpers import elementwise

elementwise(checks.check_index_range)
