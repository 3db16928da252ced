"""Value checks as primitives: the identity on valid input, an error naming the bad value
otherwise. Being primitives, they run in the kernel on the raw values, whatever transforms
wrap them (under vmap the kernel sees the whole batch; under jit they run on every call), so
bad values are caught everywhere."""
from ..dispatch import defop


def _check_range_kernel(xp, x, *carry, low, high, message, error=ValueError):
    bad = xp.asarray(~((xp.asarray(x) >= low) & (xp.asarray(x) <= high)))  # NaN is never in
    if bad.any():
        raise error(message.format(value=xp.asarray(x)[bad].ravel()[0].item()))
    return carry[0] if carry else x


check_range = defop(
    "check_range", _check_range_kernel, differentiable=False,
    doc="x itself (or the one `carry` operand, for a check whose value is not used further: "
        "the check stays in a jitted program only if its result is used) when every entry of "
        "x is in [low, high]; otherwise `error(message)` with {value} in the message filled by "
        "the first bad entry (NaN is bad): class labels of cross_entropy, embedding indices, "
        "parameters of functorch_lite.random.")


def _loop_slots_kernel(xp, n, *, bound):
    most = int(xp.max(xp.asarray(n))) if xp.asarray(n).size else 0
    return xp.arange(max(bound, most))


loop_slots = defop(
    "loop_slots", _loop_slots_kernel, differentiable=False,
    doc="arange(bound) when every entry of the trip counts n is at most `bound`, else a longer "
        "arange: the static steps of a loop recorded for reverse mode, whose bound was chosen "
        "from the trip counts when it was traced. The result's length depends on n's values, "
        "so a compiled program replaying it traces again when a call needs more steps "
        "(lax/rules.py, Note [reverse mode through while_loop]).")
loop_slots.value_dependent_shape = lambda n, bound: True
