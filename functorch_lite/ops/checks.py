"""Value checks as primitives: the identity on valid input, an error naming the bad value
otherwise. Being primitives, they run in the kernel on the raw values, whatever transforms
wrap them (under vmap the kernel sees the whole batch), so bad values are caught everywhere."""
from ..dispatch import defop


def _check_index_range_kernel(xp, x, *, size, what, of="classes"):
    bad = xp.asarray((x < 0) | (x >= size))   # a Python int label gives a Python bool
    if bad.any():
        value = int(x[bad].ravel()[0])
        raise IndexError(f"{what} {value} is out of range: with {size} {of} it must be in "
                         f"0..{size - 1}")
    return x


check_index_range = defop(
    "check_index_range", _check_index_range_kernel, differentiable=False,
    doc="x itself when every entry is in [0, size); IndexError naming `what` and the first bad "
        "entry otherwise (class labels of cross_entropy, rows of an embedding table; `of` "
        "names what the size counts).")


def _check_in_range_kernel(xp, x, *carry, low, high, what, name):
    bad = xp.asarray(~((x >= low) & (x <= high)))   # NaN is out of every range
    if bad.any():
        value = xp.asarray(x)[bad].ravel()[0].item()
        raise ValueError(f"{what} (got {name} = {value})")
    return carry[0] if carry else x


check_in_range = defop(
    "check_in_range", _check_in_range_kernel, differentiable=False,
    doc="x itself (or the one `carry` operand, for a check whose value is not used further) "
        "when every entry of x is in [low, high]; ValueError `what` (got `name` = the first bad "
        "entry) otherwise, NaN included (parameters of functorch_lite.random).")
