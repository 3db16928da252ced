"""A pass-through transform: wraps values at a level and changes nothing.

It exercises the whole dispatch path (wrap, resolve by level, unwrap, re-run one level down,
re-wrap) without any transform semantics, so op results under it must equal plain NumPy's.
Tests and users writing their own interpreter can start from it.
"""
import optree

from ..interpreter import Interpreter
from ..tensor import TransformTensor


class PassThroughTensor(TransformTensor):
    """A value wrapped at a pass-through level: `value` is the value one level down.

    Made by PassThroughInterpreter.wrap; every op on it dispatches to the interpreter, which
    runs the op on the unwrapped values and wraps the result again.

    Args:
        value: the wrapped value (an array, or a tensor of a lower level).
        interpreter: the PassThroughInterpreter owning this level.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> from functorch_lite.testing import PassThroughInterpreter, PassThroughTensor
        >>> with PassThroughInterpreter() as interp:
        ...     y = fnp.exp(interp.wrap(np.zeros(2)))
        ...     isinstance(y, PassThroughTensor), interp.unwrap(y)
        (True, array([1., 1.]))
    """
    __slots__ = ("value",)

    def __init__(self, value, interpreter):
        self.value = value
        self._interpreter = interpreter


class PassThroughInterpreter(Interpreter):
    """The interpreter of a transform that changes nothing.

    Entering it (a `with` block) pushes a new level; `process` unwraps the arguments, runs the
    op one level down and wraps the result. It exercises the whole dispatch path, so results
    under it must equal plain NumPy's; it is also the smallest example of an interpreter to
    start a new transform from (docs/extending.md).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> from functorch_lite.testing import PassThroughInterpreter
        >>> with PassThroughInterpreter() as interp:
        ...     out = interp.unwrap(fnp.sum(interp.wrap(np.arange(4.0))))
        >>> float(out)
        6.0
    """
    name = "pass-through"

    def wrap(self, value):
        return PassThroughTensor(value, self)

    def unwrap(self, x):
        """The value below this level (lower-level values are constants: returned as they are)."""
        if isinstance(x, PassThroughTensor) and x._interpreter is self:
            return x.value
        return x

    def process(self, op, args, params):
        out = op(*(self.unwrap(a) for a in args), **params)
        if op.multiple_results:
            return tuple(self.wrap(o) for o in out)
        return self.wrap(out)

    def concretize(self, tensor, kind):
        value = tensor.value
        if kind == "array":
            return value._concretize("array") if hasattr(value, "_concretize") else value
        return {"bool": bool, "int": int, "float": float, "complex": complex,
                "index": lambda v: v.__index__()}[kind](value)


def passthrough(f):
    """f run with every array leaf of its arguments wrapped at a new pass-through level.

    The result's wrappers are unwrapped again, so passthrough(f) must return what f returns:
    the test suite compares the two to check that dispatch itself changes nothing.

    Args:
        f: a function of arrays (pytrees of arrays are wrapped leaf by leaf).

    Returns:
        A function with f's signature and results.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> from functorch_lite.testing import passthrough
        >>> x = np.array([0.0, 1.0])
        >>> bool(np.allclose(passthrough(lambda x: fnp.sin(x) * 2)(x), np.sin(x) * 2))
        True
    """
    def run(*args, **kwargs):
        with PassThroughInterpreter() as interp:
            wrapped = optree.tree_map(
                lambda a: interp.wrap(a) if hasattr(a, "shape") else a, (args, kwargs))
            out = f(*wrapped[0], **wrapped[1])
            return optree.tree_map(interp.unwrap, out)
    return run
