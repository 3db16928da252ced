"""Tracing: run a function once on TraceTensors and record the primitives reaching their level.

The TraceInterpreter is one more level on the stack (Note [levels and escaped wrappers]). jit
enters it only at level 1 (when no other transform is running), so every transform inside the
traced function sits above it and lowers to the primitives it records: no rule knows about
tracing. Tracing runs the kernels on the real argument values, so every Var knows its shape and
dtype; Python code that reads a traced *value* (`if x > 0`, `float(x)`) is refused, because the
replayed program would not run that Python again.

Note [output types]
-------------------
A jitted call returns each result as the Python type the eager call gives it. A 0-d result is
a NumPy scalar where NumPy makes one (ufuncs, reductions, `x[i]`) and a 0-d array where eager
code has one (`x.copy()`, `x.reshape(())`, and every 0-d result of a transform or a lax loop,
which `as_plain` makes an array). Tracing runs the eager code on the real values, so each
traced value has the eager type, `as_plain` included: on a TraceTensor it gives one standing
for the 0-d array (`as_array`). The program records per output whether its traced value is a
NumPy scalar (Program.scalars), and every backend returns each 0-d output as that type, whatever
its kernels give when replayed (a kernel fed a NumPy scalar where the trace had a 0-d array
gives a scalar). Within the program the two kinds compute alike: NumPy scalars and 0-d arrays
are both strongly typed (NEP 50); only Python scalars are weak, and those are weak Vars.
"""
import sys

import numpy as np
import optree

from ..interpreter import Interpreter, recomputation_region
from ..tensor import Tensor, TransformTensor
from .ir import Const, Eqn, Program, Var

PYTHON_SCALARS = (bool, int, float, complex)


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
    replays_layout = True

    def __init__(self, value, var, interpreter):
        self.value = value
        self.var = var
        self._interpreter = interpreter

    @property
    def shape(self):
        return self.var.shape

    @property
    def dtype(self):
        return self.var.dtype

    def as_array(self):
        """This value as the transforms return it: where the traced value is a NumPy scalar, a
        TraceTensor of the same Var standing for the 0-d array eager code has (Note [output
        types])."""
        if isinstance(self.value, np.generic):
            return TraceTensor(np.asarray(self.value), self.var, self._interpreter)
        return self


def _python_operator(name):
    """TraceTensor's operator `name`: on Python scalar arguments (weak Vars) and Python scalars
    it gives a weak Var, whose value is a Python scalar at run time too, as Python's own
    arithmetic does in eager code (`lr * 0.5` stays weakly typed; np.multiply(lr, 0.5) is a
    NumPy scalar, as eagerly)."""
    def operator(self, *other):
        if self.var.weak and all(type(o) in PYTHON_SCALARS or
                                 type(o) is TraceTensor and o.var.weak for o in other):
            interp = self._interpreter
            interp.python_arithmetic = True
            try:
                return getattr(Tensor, name)(self, *other)
            finally:
                interp.python_arithmetic = False
        return getattr(Tensor, name)(self, *other)
    operator.__name__ = name
    return operator


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
    for _dunder in (f"__{_name}__", f"__r{_name}__"):
        setattr(TraceTensor, _dunder, _python_operator(_dunder))
for _dunder in ("__neg__", "__pos__", "__abs__"):
    setattr(TraceTensor, _dunder, _python_operator(_dunder))


_CONVERTERS = {Tensor.__module__, __name__}   # modules whose frames convert a value for a caller


def _in_place_operator(symbol):
    """TraceTensor's `x op= y`. Note [augmented assignment under ft.jit]: eager NumPy writes
    into an array in place, keeping its dtype and shape, and every name and view of it (the
    caller's array, when it is an argument) sees the change; the compiled program cannot
    replay a write that others see, and rebinding instead would silently differ, so it is
    refused. A Python or NumPy scalar is immutable: `x op= y` rebinds it eagerly, and does here
    (NotImplemented: Python falls back to `x = x op y`). Transform wrappers (vmap, grad) have
    no in-place operators: there `x op= y` rebinds, as for JAX arrays, and the caller's array
    is never written."""
    def operator(self, other):
        if isinstance(self.value, (np.generic, *PYTHON_SCALARS)):
            return NotImplemented
        interp = self._interpreter
        arg = [n for v, n in zip(interp.inputs, interp.input_names) if v is self.var]
        what = (f"x is {arg[0]}: the caller's array changes" if arg else
                "every other name and view of the array sees the change")
        raise TypeError(
            f"ft.jit: `x {symbol}= ...` on a traced array writes into it in place, as NumPy "
            f"does eagerly ({what}), which the compiled program cannot replay. Write the "
            f"functional form and return the new value: `x = x {symbol} ...` (an optimizer "
            "step: `w = w - lr * g; return w`); on a Python or NumPy scalar `x "
            f"{symbol}= ...` rebinds, as eagerly, and is accepted")
    return operator


for _name, _symbol in (("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"),
                       ("floordiv", "//"), ("mod", "%"), ("pow", "**"), ("matmul", "@"),
                       ("and", "&"), ("or", "|"), ("xor", "^")):
    setattr(TraceTensor, f"__i{_name}__", _in_place_operator(_symbol))


class TraceInterpreter(Interpreter):
    """Records each op applied to its TraceTensors as an Eqn. See Note [the jit program]."""

    name = "jit"
    inlines = True   # record a custom_vjp/custom_jvp call's library-op body in its place

    def __init__(self, input_names):
        super().__init__()
        self.eqns = []
        self.nvars = 0
        self.input_names = input_names
        self.inputs = []
        self.snapshots = {}  # id(array) -> (array, its copy): Note [captured constants]
        self.memory = {}     # id(array owning memory) -> (it, (copy of its bytes, offset))
        self.python_arithmetic = False  # a Python operator on Python scalars is running
        self.refused = None  # (the last TracerConversionError, the frame and instruction that
                             # converted): Note [conversions NumPy swallows]

    def new_var(self, value):
        if type(value) in PYTHON_SCALARS:   # a weak Var: NumPy's default dtype for its type
            var = Var(self.nvars, (), np.dtype(type(value)), weak=True)
        else:
            var = Var(self.nvars, getattr(value, "shape", ()), getattr(value, "dtype", None),
                      strides=getattr(value, "strides", None))
        self.nvars += 1
        return TraceTensor(value, var, self)

    def new_input(self, value):
        t = self.new_var(value)
        self.inputs.append(t.var)
        return t

    def process(self, op, args, params):
        if op.inline is not None and not params and self.inlines:
            inlined = self._inline(op, args)
            if inlined is not None:
                return inlined
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
                ins.append(Const(self.snapshot(a)))
                values.append(a)
        out = op(*values, **params)
        if self.python_arithmetic and all(type(v) in PYTHON_SCALARS for v in values):
            out = out.item()   # a weak Var (see _python_operator)
        if op.multiple_results:
            wrapped = tuple(self.new_var(o) for o in out)
            outs = [w.var for w in wrapped]
        else:
            wrapped = self.new_var(out)
            outs = [wrapped.var]
        guard = op.value_dependent_shape is not None and op.value_dependent_shape(*values,
                                                                                     **params)
        self.eqns.append(Eqn(op, params, ins, outs, recomputation_region(), bool(guard)))
        return wrapped

    def _inline(self, op, args):
        """op's library-op body recorded in its place (a custom_vjp's f: the program then runs
        it as compiled code, not as Python on every call), or None when the body reads a traced
        value in Python (a solver's convergence test): then the op itself is recorded and runs
        its Python on every call."""
        start = len(self.eqns)
        try:
            return op.inline(*args)
        except TracerConversionError:
            del self.eqns[start:]
            return None

    def snapshot(self, value):
        """The copy of a mutable array operand taken when the trace first met it (one per array,
        so equal operands stay one constant; views of one NumPy array stay views of one copy).
        See Note [captured constants] in ir.py."""
        if not hasattr(value, "copy") or isinstance(value, np.generic):
            return value
        entry = self.snapshots.get(id(value))
        if entry is None:
            entry = self.snapshots[id(value)] = (value, self._copy(value))
        return entry[1]

    def _copy(self, value):
        """A copy with value's exact layout: its strides (a zero stride of broadcast_to, a
        transpose's order) and its offset in its memory, so every kernel that reads the
        constant takes the path it takes eagerly (a layout-blind copy would make a broadcast
        view contiguous, and matmul then sums in another order). A NumPy view is rebuilt on
        the copy of the array that owns its memory, so views of one array stay views of one
        copy."""
        if type(value) is not np.ndarray or value.dtype.hasobject or value.size == 0:
            return value.copy(order="K")
        root = value
        while type(root.base) is np.ndarray:
            root = root.base
        owner = root if root.base is None else value   # memory NumPy allocated, or the view
        buffer, start = self._copy_memory(owner)
        offset = start + _address(value) - _address(owner)
        return np.ndarray(value.shape, value.dtype, buffer=buffer, offset=offset,
                          strides=value.strides)

    def _copy_memory(self, owner):
        """(bytes, offset of owner's first element in them): a copy of the memory `owner`
        spans, taken once per owner."""
        entry = self.memory.get(id(owner))
        if entry is None:
            low, high = _span(owner)
            buffer = np.empty(high - low, np.uint8)
            np.copyto(np.ndarray(owner.shape, owner.dtype, buffer=buffer, offset=-low,
                                 strides=owner.strides), owner)
            entry = self.memory[id(owner)] = (owner, (buffer, -low))
        return entry[1]

    def concretize(self, tensor, kind):
        what = {"bool": "a Python bool (if/while on it)", "int": "a Python int",
                "float": "a Python float", "complex": "a Python complex",
                "index": "an index", "array": "a raw array"}[kind]
        names = ", ".join(self._sources(tensor.var)) or "no argument (a constant)"
        error = TracerConversionError(
            f"ft.jit: cannot convert a traced value of shape {tensor.shape} to {what} while "
            f"tracing; it depends on {names}. The compiled program replays array operations "
            "only, so Python control flow on values cannot be recorded: mark the argument "
            "static (static_argnums / static_argnames) or write the choice with fnp.where"
            + ("; functions whose result shape depends on values (nonzero, argwhere, "
               "unique) cannot be compiled: select with fnp.where or a boolean mask x[mask] "
               "(whose shape ft.jit checks on every call)" if kind == "array" else ""))
        frame = sys._getframe(1)
        while frame.f_globals.get("__name__") in _CONVERTERS:
            frame = frame.f_back
        self.refused = (error, frame, frame.f_lasti)
        raise error

    def __exit__(self, kind, err, tb):
        """Note [conversions NumPy swallows]
        ------------------------------------
        NumPy's C shape converter (np.zeros(n), np.ones, np.empty, np.full, np.ndarray,
        np.random's size=) catches the TypeError a traced `n` raises on __index__ and raises
        its own "expected a sequence of integers". When the TypeError leaving the trace was
        raised by the very call (frame and instruction) whose conversion was refused, that
        refusal is what the user needs: it is raised in its place."""
        super().__exit__(kind, err, tb)
        refused, self.refused = self.refused, None
        if refused is None or not isinstance(err, TypeError) or err is refused[0]:
            return False
        site = tb
        while tb.tb_next is not None:   # the innermost entry of Python code (Cython's, as
            tb = tb.tb_next             # np.random.Generator's, adds entries of its own)
            if not tb.tb_frame.f_code.co_filename.endswith(".pyx"):
                site = tb
        if site.tb_frame is refused[1] and site.tb_lasti == refused[2]:
            raise refused[0].with_traceback(err.__traceback__) from None
        return False

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
    """(Program, output values) of f traced at `leaves` (the argument leaves; those marked in
    `dynamic` are the program's inputs, the others constants). `rebuild(leaves)` gives (args,
    kwargs)."""
    with TraceInterpreter(input_names) as interp:
        wrapped = [interp.new_input(x) if d else x for x, d in zip(leaves, dynamic)]
        args, kwargs = rebuild(wrapped)
        out = f(*args, **kwargs)
        del wrapped, args, kwargs
    out_leaves, out_tree = optree.tree_flatten(out)
    atoms, values = _outputs(out_leaves, interp)
    scalars = [None if a.weak or isinstance(a, Const) else isinstance(v, np.generic)
               for a, v in zip(atoms, values)]
    return Program(interp.inputs, interp.eqns, atoms, out_tree, input_names, scalars), values


def _outputs(leaves, interp):
    """The output atoms and the tracing run's output values (a constant output copied), whose
    Python types are the eager call's (Note [output types])."""
    atoms, values = [], []
    for x in leaves:
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
    return atoms, values


def _address(array):
    return array.__array_interface__["data"][0]


def _span(array):
    """(lowest, highest + 1) byte offsets of array's elements from its first element."""
    low = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0)
    return low, high + array.itemsize
