"""Code generation: a program becomes one Python function of direct kernel calls.

Each equation is one line `v7 = k3(v2, c0)`, where `k3` is the op's kernel for the backend with
its static params bound, so a call of the compiled function costs one Python call per primitive
and nothing else: no dispatch, no interpreters, no rules. Ufunc equations write into the
buffers of dead intermediates where buffers.py allows it (`v9 = k5(v7, v8, out=v7)`). Constants
are globals of the
generated function; an output that is a constant array is copied, so a caller that writes into
a result never changes what a later call returns.

Every intermediate dies at its last use (`del`), whatever op made it, so the program's peak of
memory is that of eager code. An equation whose output shape depends on operand values (a
boolean mask) is followed by a check of that shape, raising StaleShape when it differs from
the traced one (the caller traces again). Outputs are fresh: one that may share memory with an
input, a constant or another output (a view of one, an input returned as is, a value
returned twice) is copied, so writing into a result never changes an argument, a later result
or another output; a view of an intermediate no other output shares (a transposed product) is
returned as is, as eager code returns it. A weak Var (Python scalar arithmetic) is made a Python
scalar again (`.item()`, unless the op returned one), and any other 0-d output the NumPy scalar or
0-d array the eager call gives (Note [output types] in trace.py).

On a device module each fusion group (fuse.py) becomes one generated function of xp ufunc calls
wrapped with `xp.fuse`, called once (`v8, v9 = g0(v6, v0)`): cupy.fuse compiles it into one
kernel. Its array constants are arguments (cupy.fuse traces arguments only); scalars are globals.
Device intermediates are left to CuPy's memory pool (the buffer plan is NumPy's).
"""
import functools

import numpy as np

from ..backend import is_host
from ..ops.indexing import getitem
from ..ops.shape import reshape, transpose
from .buffers import plan_buffers
from .fuse import FusionGroup, elementwise_name, fusion_groups, is_array_const, schedule
from .ir import Const, Var
from .simplify import diagonal_product


def _python_scalar(value):
    """A weak Var's value: NumPy's scalar result made a Python scalar again (an op that
    returns its Python-scalar operand, stop_gradient, returns one already)."""
    return value.item() if hasattr(value, "item") else value


class StaleShape(Exception):
    """A value-dependent shape differs from the traced one: the program must be traced again."""


def _kernel(op, params, xp):
    fn = op.numpy_impl if xp is np else functools.partial(op.kernel, xp)
    return functools.partial(fn, **params) if params else fn


def generate(program, xp, single=False, moved=()):
    """The program as a function of its inputs returning the list of its outputs (the output
    itself when `single`). The inputs whose Var ids are in `moved` (NumPy arrays beside device
    arrays) are moved to `xp` on entry."""
    scope, consts = {"StaleShape": StaleShape, "python_scalar": _python_scalar}, {}

    def name(atom):
        if isinstance(atom, Var):
            return f"v{atom.id}"
        key = id(atom.value)
        if key not in consts:
            consts[key] = f"c{len(consts)}"
            scope[consts[key]] = atom.value
        return consts[key]

    def call(i, eqn, out=None):
        scope[f"k{i}"] = _kernel(eqn.op, eqn.params, xp)
        outs = ", ".join(f"v{v.id}" for v in eqn.outs)
        if eqn.op.multiple_results:
            outs += ","
        args = [name(a) for a in eqn.ins] + ([f"out=v{out.id}"] if out is not None else [])
        call = f"k{i}({', '.join(args)})"
        if eqn.outs[0].weak and not eqn.op.multiple_results:   # (a loop returns its own)
            call = f"python_scalar({call})"
        line = f"    {outs} = {call}"
        return [line] + [f"    if v{v.id}.shape != {v.shape!r}: raise StaleShape"
                         for v in eqn.outs if eqn.guard]

    params = ", ".join(f"v{v.id}" for v in program.inputs)
    lines, fused = [f"def program({params}):"], []
    scope["xp"] = xp
    lines += [f"    v{i} = xp.asarray(v{i})" for i in moved]
    if is_host(xp):
        buffers = plan_buffers(program)
        steps = [(eqn.ins, eqn.outs) for eqn in program.eqns]
        dying = _deaths(program, steps, keep={v.id for v in buffers.values()})
        for i, eqn in enumerate(program.eqns):
            lines += call(i, eqn, buffers.get(i)) + dying[i]
    else:
        nodes = schedule(program, fusion_groups(program))
        steps = [(n.inputs, n.outputs) if isinstance(n, FusionGroup) else
                 (program.eqns[n].ins, program.eqns[n].outs) for n in nodes]
        dying = _deaths(program, steps, keep=set())
        for k, node in enumerate(nodes):
            if isinstance(node, FusionGroup):
                fused.append(_fused_function(node, f"g{len(fused)}", name))
                ins = ", ".join(_fused_params(node, name))
                lines.append(f"    {', '.join(map(repr, node.outputs))} = g{len(fused) - 1}({ins})")
            else:
                lines += call(node, program.eqns[node])
            lines += dying[k]
    results = []
    scalars = program.scalars or [None] * len(program.outputs)
    for k, (atom, how) in enumerate(zip(program.outputs, output_copies(program))):
        text = name(atom)
        if how is COPY:
            text += ".copy()"
        elif how:   # a value that may view or be one of `how`: new memory is returned as is
            alike = "".join(f" and {text} is not {name(a)}" for a in how if a is not None)
            text = f"({text} if {text}.base is None{alike} else {text}.copy())"
        if scalars[k] is not None and atom.shape == ():   # Note [output types] in trace.py
            text = f"{text}[()]" if scalars[k] else f"xp.asarray({text})"
        results.append(text)
    lines.append(f"    return {results[0]}" if single else f"    return [{', '.join(results)}]")
    source = "\n\n".join(fused + ["\n".join(lines)])
    exec(compile(source, "<ft.jit program>", "exec"), scope)
    for k in range(len(fused)):
        scope[f"g{k}"] = xp.fuse(kernel_name=f"ft_jit_g{k}")(scope[f"g{k}"])
    fn = scope["program"]
    fn.source = source
    return fn


def _deaths(program, steps, keep):
    """For each step (atoms read, Vars made), the `del` line of the Vars last read there (or
    made there and never read), leaving out outputs, inputs and the Vars in `keep` (buffers a
    later equation writes into)."""
    last, made = {}, {}
    for k, (reads, outs) in enumerate(steps):
        for v in outs:
            made[v.id] = k
        for a in reads:
            if isinstance(a, Var):
                last[a.id] = k
    spared = keep | {a.id for a in program.outputs if isinstance(a, Var)}
    dying = [[] for _ in steps]
    for vid, k in made.items():
        if vid not in spared:
            dying[last.get(vid, k)].append(f"v{vid}")
    return [[f"    del {', '.join(names)}"] if names else [] for names in dying]


def _fresh_op(eqn):
    """Whether the op always returns new memory (a ufunc without `out=`, matmul included, or
    a diagonal product: a fresh scaling or a fresh matmul)."""
    return isinstance(eqn.op.numpy_impl, np.ufunc) or eqn.op is diagonal_product


_VIEW_OPS = (reshape, transpose, getitem)
"""Ops whose result is a view of their first operand or new memory, never other memory (the
index arrays of getitem are read, not viewed)."""

COPY = "copy"


def output_copies(program):
    """Per output: COPY when it must be copied (a constant, an input, a value returned again),
    () when it is new memory no other output can see, or else the atoms it could be (inputs,
    constants and earlier outputs of its shape and dtype): the generated code then copies it
    unless it is new memory (`.base is None`, which rules out a view) and none of them.

    Each value's possible memory is the set of places it may view: a fresh op's output is its
    own place; a view op's output (reshape, transpose, getitem) those of its first operand; any
    other op's output may view (or be) any of its operands' places or memory of its own. An
    output whose places are all fresh intermediates that no other output shares (a transposed
    product, the reshaped Hessian) is returned as is: every call makes those intermediates
    anew and nothing but this output keeps them. A view that shares its base with another
    output is copied: `.base is None` fails for it, and the other output's check (it is not
    this view) would not catch the sharing."""
    places = {v.id: {("in", v.id)} for v in program.inputs}
    for eqn in program.eqns:
        if _fresh_op(eqn):
            for v in eqn.outs:
                places[v.id] = {("new", v.id)}
            continue
        if any(eqn.op is op for op in _VIEW_OPS) and isinstance(eqn.ins[0], Var):
            for v in eqn.outs:
                places[v.id] = places[eqn.ins[0].id]
            continue
        seen = set()
        for a in eqn.ins:
            if isinstance(a, Var):
                seen |= places[a.id]
            elif hasattr(a.value, "shape") and not isinstance(a.value, np.generic):
                seen.add(("const", id(a.value)))
        for v in eqn.outs:
            places[v.id] = seen | {("made", v.id)}
    sources = list(program.inputs) + [a for e in program.eqns for a in e.ins
                                      if isinstance(a, Const) and hasattr(a.value, "shape")
                                      and not isinstance(a.value, np.generic)]
    held = [places[a.id] if isinstance(a, Var) and not a.weak else set()
            for a in program.outputs]
    out, earlier = [], []
    for k, atom in enumerate(program.outputs):
        if isinstance(atom, Const):
            out.append(COPY if hasattr(atom.value, "copy") else ())
            continue
        if atom.weak:
            out.append(())
            continue
        mine = held[k]
        others = set().union(*(p for j, (p, a) in enumerate(zip(held, program.outputs))
                               if j != k and a is not atom))
        if ("in", atom.id) in mine or any(atom is e for e in earlier):
            out.append(COPY)
        elif all(p[0] == "new" for p in mine) and not mine & others:
            out.append(())
        else:
            alike = {id(a): a for a in sources + earlier
                     if a.shape == atom.shape and a.dtype == atom.dtype and a is not atom}
            out.append(tuple(alike.values()) or _NONE_ALIKE)
        earlier.append(atom)
    return out


_NONE_ALIKE = (None,)   # no atom it could be: only the `.base` check


def _fused_params(group, name):
    return [name(a) for a in group.inputs if isinstance(a, Var) or is_array_const(a)]


def _fused_function(group, fname, name):
    """The source of one group as a function of its Var and array-constant inputs."""
    lines = [f"def {fname}({', '.join(_fused_params(group, name))}):"]
    for eqn in group.eqns:
        args = ", ".join(name(a) for a in eqn.ins)
        lines.append(f"    {eqn.outs[0]!r} = xp.{elementwise_name(eqn)}({args})")
    outs = ", ".join(map(repr, group.outputs))
    lines.append(f"    return {outs}")
    return "\n".join(lines)
