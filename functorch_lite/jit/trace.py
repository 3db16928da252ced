"""Tracing: run a function once on TraceTensors and record the primitives reaching their level.

The TraceInterpreter is one more level on the stack (Note [levels and escaped wrappers]). jit
enters it only at level 1 (when no other transform is running), so every transform inside the
traced function sits above it and lowers to the primitives it records: no rule knows about
tracing. Tracing runs the kernels on the real argument values, so every Var knows its shape and
dtype; Python code that reads a traced *value* (`if x > 0`, `float(x)`) is refused, because the
replayed program would not run that Python again.
"""
import optree

from ..interpreter import Interpreter
from ..tensor import Tensor, TransformTensor
from .ir import Const, Eqn, Program, Var


class TracerConversionError(TypeError):
    """A traced value was turned into a Python value or raw array during ft.jit tracing.

    The compiled program replays array operations only, so `if x > 0:`, `float(x)` or
    `np.asarray(x)` on a traced argument cannot be recorded. Mark the argument static, or use
    array ops (np.where). A subclass of TypeError.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> f = ft.jit(lambda x: x if float(x[0]) > 0 else -x)
        >>> try:
        ...     f(np.array([1.0]))
        ... except ft.TracerConversionError:
        ...     print("caught")
        caught
    """


class TraceTensor(TransformTensor):
    """A value under ft.jit: its trace-time value and the Var that names it in the program."""

    __slots__ = ("value", "var")

    def __init__(self, value, var, interpreter):
        self.value = value
        self.var = var
        self._interpreter = interpreter


class TraceInterpreter(Interpreter):
    """Records each op applied to its TraceTensors as an Eqn. See Note [the jit program]."""

    name = "jit"

    def __init__(self, input_names):
        super().__init__()
        self.eqns = []
        self.nvars = 0
        self.input_names = input_names
        self.inputs = []

    def new_var(self, value):
        var = Var(self.nvars, getattr(value, "shape", ()), getattr(value, "dtype", None))
        self.nvars += 1
        return TraceTensor(value, var, self)

    def new_input(self, value):
        t = self.new_var(value)
        self.inputs.append(t.var)
        return t

    def process(self, op, args, params):
        ins, values = [], []
        for a in args:
            if type(a) is TraceTensor and a._interpreter is self:
                ins.append(a.var)
                values.append(a.value)
            elif isinstance(a, Tensor):
                raise TypeError(f"ft.jit cannot record op {op.name!r} on a {type(a).__name__}: "
                                "only values derived from the jitted function's arguments may "
                                "reach it")
            else:
                ins.append(Const(a))
                values.append(a)
        out = op(*values, **params)
        if op.multiple_results:
            wrapped = tuple(self.new_var(o) for o in out)
            outs = [w.var for w in wrapped]
        else:
            wrapped = self.new_var(out)
            outs = [wrapped.var]
        self.eqns.append(Eqn(op, params, ins, outs))
        return wrapped

    def concretize(self, tensor, kind):
        what = {"bool": "a Python bool (if/while on it)", "int": "a Python int",
                "float": "a Python float", "complex": "a Python complex",
                "index": "an index", "array": "a raw array"}[kind]
        names = ", ".join(self._sources(tensor.var)) or "no argument (a constant)"
        raise TracerConversionError(
            f"ft.jit: cannot convert a traced value of shape {tensor.shape} to {what} while "
            f"tracing; it depends on {names}. The compiled program replays array operations "
            "only, so Python control flow on values cannot be recorded: mark the argument "
            "static (static_argnums / static_argnames) or write the choice with fnp.where")

    def _sources(self, var):
        """Names of the inputs `var` depends on (walks the equations backwards)."""
        needed, names = {var.id}, []
        for eqn in reversed(self.eqns):
            if any(v.id in needed for v in eqn.outs):
                needed.update(a.id for a in eqn.ins if isinstance(a, Var))
        for v, name in zip(self.inputs, self.input_names):
            if v.id in needed:
                names.append(name)
        return names


def trace(f, leaves, dynamic, rebuild, input_names):
    """(Program, output values) of f traced at `leaves` (the argument leaves; those marked in `dynamic` are
    the program's inputs, the others constants). `rebuild(leaves)` gives (args, kwargs)."""
    with TraceInterpreter(input_names) as interp:
        wrapped = [interp.new_input(x) if d else x for x, d in zip(leaves, dynamic)]
        args, kwargs = rebuild(wrapped)
        out = f(*args, **kwargs)
        del wrapped, args, kwargs
    out_leaves, out_tree = optree.tree_flatten(out)
    atoms, values = [], []
    for x in out_leaves:
        if type(x) is TraceTensor and x._interpreter is interp:
            atoms.append(x.var)
            values.append(x.value)
        elif isinstance(x, TransformTensor):
            x._interpreter.check_alive(x)
            raise TypeError(f"ft.jit: the function returned a {type(x).__name__} of a "
                            "transform that is still running")
        else:
            atoms.append(Const(x))
            values.append(x.copy() if hasattr(x, "copy") else x)
    return Program(interp.inputs, interp.eqns, atoms, out_tree, input_names), values
