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
