"""Buffer planning: a ufunc equation writes into the buffer of an intermediate that is dead.

Every intermediate is allocated anew by each call of the program, so reusing one within a call
can never touch what a caller holds from an earlier call. A buffer may be reused once nothing
reads it any more and nothing else can see it: it was made by a ufunc (a fresh array, never a
view of something else), it is not an output, and every equation reading it is a ufunc too (a
ufunc never returns a view of its operands, so no alias of it outlives its last reader). The
writer must be a ufunc whose output has exactly that buffer's shape, dtype and traced strides
(a fresh result would have the writer's traced layout; writing it into a buffer of another
layout would change the summation order of a later reduction, and so its last bits). An
elementwise ufunc may write over one of its own operands, matmul may not (its output is not
computed one element at a time); the values are those of a fresh result, and only which of
two NaNs propagates may differ (`np.add(x, y, out=x)` takes another loop than `x + y`): the
sign and payload of a NaN are not part of ft.jit's contract (IEEE 754 leaves them
unspecified, and NumPy's SIMD and scalar loops already differ there). Fewer fresh allocations mean
fewer page faults on large
arrays and a lower peak of memory.
"""
import numpy as np

from .ir import Var


def _is_ufunc(eqn):
    return isinstance(eqn.op.numpy_impl, np.ufunc) and not eqn.params


def plan_buffers(program):
    """{equation index: Var whose buffer that equation writes into (as `out=`)}."""
    outputs = {a.id for a in program.outputs if isinstance(a, Var)}
    last_use, reusable = {}, {}
    for i, eqn in enumerate(program.eqns):
        for a in eqn.ins:
            if isinstance(a, Var):
                last_use[a.id] = i
                if not _is_ufunc(eqn):
                    reusable[a.id] = False
        if _is_ufunc(eqn):
            for v in eqn.outs:
                reusable.setdefault(v.id, v.id not in outputs and bool(v.shape))
    plan, free = {}, []          # free: dead reusable Vars, oldest first
    for i, eqn in enumerate(program.eqns):
        dying = list({a.id: a for a in eqn.ins if isinstance(a, Var) and last_use[a.id] == i
                      and reusable.get(a.id)}.values())
        if _is_ufunc(eqn) and len(eqn.outs) == 1 and eqn.outs[0].shape:
            out = eqn.outs[0]   # (0-d results are NumPy scalars: no buffer to write into)
            for v in free + ([] if eqn.op.name == "matmul" else dying):
                if (v.shape == out.shape and v.dtype == out.dtype
                        and v.strides is not None and v.strides == out.strides):
                    plan[i] = v           # out takes over v's buffer (and frees it when it dies)
                    (free if v in free else dying).remove(v)
                    break
        free.extend(dying)
    return plan
