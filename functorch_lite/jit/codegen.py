"""Code generation: a program becomes one Python function of direct kernel calls.

Each equation is one line `v7 = k3(v2, c0)`, where `k3` is the op's kernel for the backend with
its static params bound, so a call of the compiled function costs one Python call per primitive
and nothing else: no dispatch, no interpreters, no rules. Ufunc equations write into the
buffers of dead intermediates where buffers.py allows it (`v9 = k5(v7, v8, out=v7)`). Constants are globals of the
generated function; an output that is a constant array is copied, so a caller that writes into
a result never changes what a later call returns.
"""
import functools

import numpy as np

from .buffers import plan_buffers
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

    buffers = plan_buffers(program) if xp is np else {}
    params = ", ".join(f"v{v.id}" for v in program.inputs)
    lines = [f"def program({params}):"]
    for i, eqn in enumerate(program.eqns):
        scope[f"k{i}"] = _kernel(eqn.op, eqn.params, xp)
        outs = ", ".join(f"v{v.id}" for v in eqn.outs)
        if eqn.op.multiple_results:
            outs += ","
        args = [name(a) for a in eqn.ins]
        if i in buffers:
            args.append(f"out=v{buffers[i].id}")
        lines.append(f"    {outs} = k{i}({', '.join(args)})")
    results = []
    for atom in program.outputs:
        text = name(atom)
        if isinstance(atom, Const) and hasattr(atom.value, "copy"):
            text += ".copy()"
        results.append(text)
    lines.append(f"    return {results[0]}" if single else f"    return [{', '.join(results)}]")
    source = "\n".join(lines)
    exec(compile(source, "<ft.jit program>", "exec"), scope)
    fn = scope["program"]
    fn.source = source
    return fn
