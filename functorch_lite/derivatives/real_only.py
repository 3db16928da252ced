"""A guard for derivative rules written for real operands only (the matrix decompositions)."""
import functools

from ..numpy._util import dtype_of


def _is_complex(x):
    if isinstance(x, (tuple, list)):
        return any(_is_complex(y) for y in x)
    return hasattr(x, "dtype") and dtype_of(x).kind == "c"


def real_only(name):
    """Decorate a jvp or vjp rule of op `name` so that a complex operand, tangent or cotangent
    is refused with a TypeError naming the op, instead of giving a wrong derivative."""
    def decorate(rule):
        @functools.wraps(rule)
        def guarded(*args, **params):
            if any(_is_complex(a) for a in args):
                raise TypeError(
                    f"{name}: derivatives for complex input are not supported (the rule is "
                    f"written for real matrices); the function itself runs on complex input")
            return rule(*args, **params)
        return guarded
    return decorate
