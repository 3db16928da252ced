"""Code generation: a program becomes one Python function of direct kernel calls.

Each equation is one line `v7 = k3(v2, c0)`, where `k3` is the op's kernel for the backend with
its static params bound, so a call of the compiled function costs one Python call per primitive
and nothing else: no dispatch, no interpreters, no rules. Ufunc equations write into the
buffers of dead intermediates where buffers.py allows it (`v9 = k5(v7, v8, out=v7)`). Constants are globals of the
generated function; an output that is a constant array is copied, so a caller that writes into
a result never changes what a later call returns.

On a device module each fusion group (fuse.py) becomes one generated function of xp ufunc calls
wrapped with `xp.fuse`, called once (`v8, v9 = g0(v6, v0)`): cupy.fuse compiles it into one
kernel. Its array constants are arguments (cupy.fuse traces arguments only); scalars are globals.
Device intermediates are left to CuPy's memory pool (the buffer plan is NumPy's).
"""
import functools

import numpy as np

from ..backend import is_host
from .buffers import plan_buffers
from .fuse import FusionGroup, elementwise_name, fusion_groups, is_array_const, schedule
from .ir import Const, Var


def _kernel(op, params, xp):
    fn = op.numpy_impl if xp is np else functools.partial(op.kernel, xp)
    return functools.partial(fn, **params) if params else fn


def generate(program, xp, single=False):
    """The program as a function of its inputs returning the list of its outputs (the output
    itself when `single`)."""
    scope, consts = {}, {}

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
        return f"    {outs} = k{i}({', '.join(args)})"

    params = ", ".join(f"v{v.id}" for v in program.inputs)
    lines, fused = [f"def program({params}):"], []
    if is_host(xp):
        buffers = plan_buffers(program)
        lines += [call(i, eqn, buffers.get(i)) for i, eqn in enumerate(program.eqns)]
    else:
        scope["xp"] = xp
        for node in schedule(program, fusion_groups(program)):
            if isinstance(node, FusionGroup):
                fused.append(_fused_function(node, f"g{len(fused)}", name))
                ins = ", ".join(_fused_params(node, name))
                lines.append(f"    {', '.join(map(repr, node.outputs))} = g{len(fused) - 1}({ins})")
            else:
                lines.append(call(node, program.eqns[node]))
    results = []
    for atom in program.outputs:
        text = name(atom)
        if isinstance(atom, Const) and hasattr(atom.value, "copy"):
            text += ".copy()"
        results.append(text)
    lines.append(f"    return {results[0]}" if single else f"    return [{', '.join(results)}]")
    source = "\n\n".join(fused + ["\n".join(lines)])
    exec(compile(source, "<ft.jit program>", "exec"), scope)
    for k in range(len(fused)):
        scope[f"g{k}"] = xp.fuse(kernel_name=f"ft_jit_g{k}")(scope[f"g{k}"])
    fn = scope["program"]
    fn.source = source
    return fn


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
