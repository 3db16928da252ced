"""Batching rules of the check ops: the check runs on the whole batch at once."""
from ..ops import checks
from .helpers import elementwise

elementwise(checks.check_index_range)


@checks.check_in_range.def_batch_rule
def check_in_range_batch_rule(args, bdims, **params):
    """What is returned (x, or the carry operand) keeps its batch dim."""
    return checks.check_in_range(*args, **params), bdims[-1]
