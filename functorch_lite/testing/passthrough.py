"""A pass-through transform: wraps values at a level and changes nothing.

It exercises the whole dispatch path (wrap, resolve by level, unwrap, re-run one level down,
re-wrap) without any transform semantics, so op results under it must equal plain NumPy's.
Tests and users writing their own interpreter can start from it.
"""
import optree

from ..interpreter import Interpreter
from ..tensor import TransformTensor


class PassThroughTensor(TransformTensor):
    __slots__ = ("value",)

    def __init__(self, value, interpreter):
        self.value = value
        self._interpreter = interpreter


class PassThroughInterpreter(Interpreter):
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
    """f run with every array leaf of its arguments wrapped at a new pass-through level; the
    result's wrappers are unwrapped again."""
    def run(*args, **kwargs):
        with PassThroughInterpreter() as interp:
            wrapped = optree.tree_map(
                lambda a: interp.wrap(a) if hasattr(a, "shape") else a, (args, kwargs))
            out = f(*wrapped[0], **wrapped[1])
            return optree.tree_map(interp.unwrap, out)
    return run
