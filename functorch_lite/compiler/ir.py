"""The program that ft.jit compiles: a list of primitive applications over named slots.

Note [the jit program]
----------------------
A Program is autodidax's jaxpr in miniature. `inputs` are Vars (one per array leaf of the
arguments); each Eqn applies one Op with its static params to atoms (Vars or Consts) and binds
new Vars; `outputs` are atoms. Every Var is bound exactly once, and equations are in execution
order, so a pass is a loop over the list. A Var records the shape and dtype seen when it was
traced (passes use them to decide rewrites, the printer shows them), and its strides: the
signature holds the arguments' strides, so every intermediate has the traced layout on every
call, and buffer planning keeps it (a reduction's summation order, a BLAS kernel's choice,
follow the layout, so a different one would change the last bits). A *weak* Var is a Python
scalar argument, passed to the kernels as the Python scalar itself, so NumPy's promotion rules
for Python scalars (NEP 50) hold as in eager code.

Note [captured constants]: a Const is a value the program does not compute: an array the
traced function read without receiving it as an argument (a closure array, a global, a
creation result, a one-hot basis of jacrev) or a folded subprogram. ft.jit follows JAX's rule
and holds it in every pass: such a value is read once, at trace time. Tracing copies each
mutable array operand when it first meets it, in its exact layout (strides and offset: a
layout-blind copy would make a broadcast view's zero stride real and send matmul down another
path), so a later in-place change by the caller (`A *= 10`) is seen by no part of the program,
exactly as it is not seen by Python code that ran while tracing (`np.sum(A)` on a closure array
runs once, then). Passes may therefore read and fold constants freely. Arrays that change
between calls are arguments.

An Eqn carries two marks besides its op: `region` (equations of a recomputation, such as a
checkpointed segment replayed in the backward pass, get a fresh region, and CSE never merges
equations of different regions, which would undo the checkpoint), and `guard` (the op's output
shape depends on operand values, e.g. a boolean mask: the generated code checks it against the
traced shape on every call and the program is traced again when it differs).
"""
import numpy as np


class Var:
    """A slot bound once: an input or an equation's output."""

    __slots__ = ("id", "shape", "dtype", "weak", "strides")

    def __init__(self, id, shape, dtype, weak=False, strides=None):
        self.id = id
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self.weak = weak
        self.strides = strides   # the memory layout seen when traced (None: not known)

    def __repr__(self):
        return f"v{self.id}"


class Const:
    """A value the program does not compute, fixed at trace time (Note [captured constants])."""

    __slots__ = ("value",)
    weak = False

    def __init__(self, value):
        self.value = value

    @property
    def shape(self):
        return tuple(getattr(self.value, "shape", ()))

    @property
    def dtype(self):
        dt = getattr(self.value, "dtype", None)
        return np.dtype(dt) if dt is not None else np.asarray(self.value).dtype


class Eqn:
    """outs = op(*ins, **params), with its recomputation `region` and shape `guard`."""

    __slots__ = ("op", "params", "ins", "outs", "region", "guard")

    def __init__(self, op, params, ins, outs, region=0, guard=False):
        self.op = op
        self.params = params
        self.ins = tuple(ins)
        self.outs = tuple(outs)
        self.region = region
        self.guard = guard

    def with_ins(self, ins):
        """The same equation reading other atoms."""
        return Eqn(self.op, self.params, ins, self.outs, self.region, self.guard)


class Program:
    """inputs -> eqns -> outputs; `out_tree` rebuilds the function's output pytree. `scalars`
    says per output whether the eager value is a NumPy scalar (True) or an array (False), which
    the backends return each 0-d output as (Note [output types] in trace.py); None for a loop
    body, whose outputs are carries."""

    def __init__(self, inputs, eqns, outputs, out_tree=None, input_names=None, scalars=None):
        self.inputs = list(inputs)
        self.eqns = list(eqns)
        self.outputs = list(outputs)
        self.out_tree = out_tree
        self.input_names = input_names
        self.scalars = scalars

    def replace(self, eqns=None, outputs=None):
        """A copy with new equations and/or outputs (passes never mutate their input)."""
        return Program(self.inputs, self.eqns if eqns is None else eqns,
                       self.outputs if outputs is None else outputs, self.out_tree,
                       self.input_names, self.scalars)

    def evaluate(self, *args):
        """Run the program equation by equation (the reference the generated code must match)."""
        env = {v.id: a for v, a in zip(self.inputs, args)}

        def read(atom):
            return atom.value if isinstance(atom, Const) else env[atom.id]
        for eqn in self.eqns:
            out = eqn.op.impl(*map(read, eqn.ins), **eqn.params)
            outs = out if eqn.op.multiple_results else (out,)
            for v, o in zip(eqn.outs, outs):
                env[v.id] = o
        return [read(a) for a in self.outputs]

    def __len__(self):
        return len(self.eqns)

    def __str__(self):
        consts = {}

        def name(atom):
            if isinstance(atom, Var):
                return f"v{atom.id}"
            value = atom.value
            if not hasattr(value, "shape"):
                return repr(value)
            key = id(value)
            if key not in consts:
                consts[key] = (f"c{len(consts)}", atom)
            return consts[key][0]
        body = []
        for eqn in self.eqns:
            outs = " ".join(f"{v}:{_typ(v)}" for v in eqn.outs)
            params = " ".join(f"{k}={_short(p)}" for k, p in eqn.params.items())
            ins = " ".join(name(a) for a in eqn.ins)
            body.append(f"    {outs} = {eqn.op.name} {ins}" + (f"  [{params}]" if params else ""))
        outs = ", ".join(name(a) for a in self.outputs)
        ins = " ".join(f"{v}:{_typ(v)}" for v in self.inputs)
        head = " ".join(f"{n}:{_typ(a)}" for n, a in consts.values())
        return "\n".join([f"{{ lambda {head}{' ; ' if head else ''}{ins} ."] + body
                         + [f"  in ({outs}) }}"])

    __repr__ = __str__


def _typ(atom):
    dt = atom.dtype
    short = {"float64": "f64", "float32": "f32", "int64": "i64", "int32": "i32", "bool": "bool",
             "complex128": "c128", "complex64": "c64"}.get(str(dt), str(dt))
    return f"{short}[{','.join(map(str, atom.shape))}]"


def _short(p):
    text = repr(p)
    return text if len(text) <= 40 else text[:37] + "..."


class LoopInfo:
    """What a backend needs to compile a loop equation (lax/lowering.py) as a loop of its own, set
    as the equation's `op.loop`: its kind ("scan", "fori_loop", "while_loop" or "switch"),
    its body (and a while_loop's predicate, `cond`; a switch's `branches`, None for one not
    traced) as traced bodies (`.program`, `.captured`), and how many carry (`nc`) and xs (`nx`)
    leaves lead its operands; the captured values follow them."""

    __slots__ = ("kind", "body", "cond", "nc", "nx", "branches")

    def __init__(self, kind, body, cond=None, nc=0, nx=0, branches=()):
        self.kind, self.body, self.cond, self.nc, self.nx = kind, body, cond, nc, nx
        self.branches = branches
