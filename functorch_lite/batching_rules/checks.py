"""Batching rules of the check ops: the check runs on the whole batch at once."""
from ..ops import checks


@checks.check_range.def_batch_rule
def check_range_batch_rule(args, bdims, **params):
    """What is returned (x, or the carry operand) keeps its batch dim."""
    return checks.check_range(*args, **params), bdims[-1]


@checks.loop_slots.def_batch_rule
def loop_slots_batch_rule(args, bdims, bound):
    """The steps of the longest example: one unbatched range for the whole batch."""
    return checks.loop_slots(args[0], bound=bound), None
