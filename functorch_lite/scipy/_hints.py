"""Which functorch_lite.scipy function to name when SciPy's own function meets a wrapper.

SciPy's ufuncs (scipy.special.erf, expit, ...) reach functorch_lite.scipy.special through
NumPy's ufunc protocol. Its Python-level functions (logsumexp, softmax, scipy.linalg.*,
scipy.stats.*) convert their arguments with np.asarray first, which a transform cannot follow;
the conversion error then names our function of the same name."""
import sys

def _scipy_frame():
    """(submodule, function name) of the outermost SciPy frame on the stack, or None."""
    frame, found = sys._getframe(2), None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("scipy."):
            found = (module.split(".")[1], frame.f_code.co_name)
        frame = frame.f_back
    return found


def scipy_hint():
    """A sentence naming the functorch_lite.scipy replacement, or '' outside SciPy's code."""
    found = _scipy_frame()
    if found is None:
        return ""
    sub, name = found
    if sub not in ("special", "linalg", "stats"):
        return ""
    from . import linalg, special, stats
    ours = {"special": special, "linalg": linalg, "stats": stats}[sub]
    target = (f"functorch_lite.scipy.{sub}.{name}" if name in getattr(ours, "__all__", ())
              else f"the functions of functorch_lite.scipy.{sub} ({', '.join(ours.__all__)})")
    return (f"SciPy's scipy.{sub}.{name} converts its arguments to NumPy arrays, which a "
            f"transform cannot follow: use {target} instead. ")
