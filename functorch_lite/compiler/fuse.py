"""Fusion: chains of elementwise equations become groups that run as one kernel on a device.

Note [fusion groups]
--------------------
A group is a set of elementwise equations (a parameter-free NumPy ufunc, or `where` on a bool
condition: each output element is computed from the matching elements of the broadcast
operands) that one elementwise kernel can compute: `cupy.fuse` compiles the group's generated
function into one launch. Grouping reads the program only, so it is the same on every backend;
on NumPy the equations still run one ufunc at a time (with the buffer plan's `out=` writes).

- Levels keep groups acyclic: a non-elementwise equation (matmul, a reduction, a reshape) sits
  one level above its operands, an elementwise one at the level of its operands. Elementwise
  equations connected by a value at one level form a group; no group can then feed a
  non-elementwise equation that feeds the same group. An elementwise equation whose readers all
  belong to one group of a higher level moves into it (computed where it is needed).
- One kernel has one iteration shape, the broadcast of its operands, and writes every output
  at every index, so all outputs of a group have that shape: an equation whose smaller result is
  read outside the group is split off with its producers in the group (values of a smaller
  shape read only inside, such as a row statistic broadcast over the row, stay in it). Readers
  of one small value whose shapes do not broadcast together (a scalar read at (6,) and at
  (3, 2)) go to separate groups.
"""
import numpy as np

from ..ops.elementwise import LOGICAL, where as _where   # CuPy's logical ufuncs: no complex
from .ir import Const, Var, _typ


def elementwise_name(eqn):
    """The array-module function computing `eqn` one element at a time, or None (also for
    Python scalar arithmetic, a weak Var: it runs on the host as Python scalars)."""
    if eqn.outs[0].weak:
        return None
    impl = eqn.op.numpy_impl
    if isinstance(impl, np.ufunc):   # matmul is a gufunc (a signature): not elementwise
        ok = impl.signature is None and impl.nout == 1 and not eqn.params and not (
            impl.__name__ in LOGICAL and any(a.dtype.kind == "c" for a in eqn.ins))
        return impl.__name__ if ok else None
    if eqn.op is _where and not eqn.params and eqn.ins[0].dtype == np.bool_:
        return "where"               # cupy's fusable where takes a bool condition only
    return None


class FusionGroup:
    """Equations fused into one kernel: `eqns` in program order, `positions` their indices in
    the program, `inputs` the atoms read from outside, `outputs` the Vars read after it (or
    returned), `internal` the Vars nobody outside sees, `shape` the kernel's iteration shape."""

    __slots__ = ("positions", "eqns", "inputs", "outputs", "internal", "shape")

    def __init__(self, program, positions, escapes):
        self.positions = positions
        self.eqns = [program.eqns[i] for i in positions]
        made = {v.id for e in self.eqns for v in e.outs}
        seen, self.inputs = set(), []
        for e in self.eqns:
            for a in e.ins:
                key = ("v", a.id) if isinstance(a, Var) else ("c", id(a.value))
                if key not in seen and not (isinstance(a, Var) and a.id in made):
                    seen.add(key)
                    self.inputs.append(a)
        inside = set(positions)
        outs = [v for e in self.eqns for v in e.outs]
        self.outputs = [v for v in outs if escapes(v.id, inside)]
        self.internal = [v for v in outs if not escapes(v.id, inside)]
        self.shape = np.broadcast_shapes(*(v.shape for v in outs))

    @property
    def ops(self):
        """The op names of the equations, in order."""
        return tuple(e.op.name for e in self.eqns)

    def __repr__(self):
        ins = " ".join(_atom(a) for a in self.inputs)
        outs = " ".join(map(repr, self.outputs))
        return f"[{','.join(map(str, self.shape))}] {' '.join(self.ops)}  ({ins} -> {outs})"


def _atom(a):
    if isinstance(a, Var):
        return repr(a)
    return f"const:{_typ(a)}" if hasattr(a.value, "shape") else repr(a.value)


def fusion_groups(program):
    """The program's fusion groups of two or more equations (Note [fusion groups])."""
    eqns = program.eqns
    producer, users = {}, {}
    for i, e in enumerate(eqns):
        for v in e.outs:
            producer[v.id] = i
        for a in e.ins:
            if isinstance(a, Var):
                users.setdefault(a.id, set()).add(i)
    returned = {a.id for a in program.outputs if isinstance(a, Var)}
    fusable = [elementwise_name(e) is not None for e in eqns]

    def escapes(var_id, members):
        readers = users.get(var_id, ())
        return var_id in returned or not readers or not readers <= members

    level, label = [], list(range(len(eqns)))   # label: the group (a union-find root)

    def find(i):
        while label[i] != i:
            label[i] = label[label[i]]
            i = label[i]
        return i
    for i, e in enumerate(eqns):
        below = [level[producer[a.id]] for a in e.ins if isinstance(a, Var) and a.id in producer]
        level.append(max(below, default=0) + (0 if fusable[i] else 1))
        if fusable[i]:
            for a in e.ins:
                j = producer.get(a.id) if isinstance(a, Var) else None
                if j is not None and fusable[j] and level[j] == level[i]:
                    label[find(j)] = find(i)
    group = [find(i) for i in range(len(eqns))]
    group_level = {g: level[g] for g in group}
    for i in reversed(range(len(eqns))):           # move producers into their readers' group
        readers = {group[j] for v in eqns[i].outs for j in users.get(v.id, ())}
        if (fusable[i] and len(readers) == 1 and not any(v.id in returned for v in eqns[i].outs)
                and all(fusable[j] for v in eqns[i].outs for j in users.get(v.id, ()))):
            (g,) = readers
            if group_level[g] > level[i]:
                group[i] = g
    members = {}
    for i in range(len(eqns)):
        if fusable[i]:
            members.setdefault(group[i], []).append(i)
    parts = [p for m in members.values() for p in _split_by_shape(m, eqns, producer, escapes)]
    return [FusionGroup(program, p, escapes) for p in sorted(parts) if len(p) > 1]


def _split_by_shape(part, eqns, producer, escapes):
    """`part` as groups whose outputs all have the group's iteration shape."""
    inside = set(part)

    def closure(seeds):      # the seeds and their producers inside the part
        taken, stack = set(), list(seeds)
        while stack:
            i = stack.pop()
            if i not in taken:
                taken.add(i)
                stack.extend(producer[a.id] for a in eqns[i].ins
                             if isinstance(a, Var) and producer.get(a.id) in inside)
        return taken
    shapes = [eqns[i].outs[0].shape for i in part]
    if _broadcastable(*shapes):
        shape = np.broadcast_shapes(*shapes)
        small = closure(i for i, s in zip(part, shapes)
                        if s != shape and escapes(eqns[i].outs[0].id, inside))
        if not small:
            return [part]
        if len(small) == len(part):  # every equation feeds a smaller output: split at the last
            small = closure([part[-1]])
    else:                            # readers of one small value at clashing shapes (a scalar
        small = closure(_clashing(part, shapes))   # read at (6,) and at (3, 2)): split them off
    head = [i for i in part if i in small]
    rest = [i for i in part if i not in small]
    return (_split_by_shape(head, eqns, producer, escapes)
            + _split_by_shape(rest, eqns, producer, escapes))


def _clashing(part, shapes):
    """The equations whose shapes do not broadcast with those of the equations after them that
    do: some when the shapes do not broadcast together, never the last (so never the producer
    of another)."""
    kept, clash = shapes[-1], []
    for i, shape in zip(reversed(part), reversed(shapes)):
        if _broadcastable(kept, shape):
            kept = np.broadcast_shapes(kept, shape)
        else:
            clash.append(i)
    return clash


def _broadcastable(*shapes):
    try:
        np.broadcast_shapes(*shapes)
        return True
    except ValueError:
        return False


def schedule(program, groups):
    """The program's equations and groups in an order that respects every value's producer:
    a list of FusionGroups and equation indices."""
    node = {}
    for g in groups:
        for i in g.positions:
            node[i] = g
    producer = {v.id: i for i, e in enumerate(program.eqns) for v in e.outs}

    def needs(n):
        eqns = n.eqns if isinstance(n, FusionGroup) else [program.eqns[n]]
        return [node.get(producer[a.id], producer[a.id]) for e in eqns for a in e.ins
                if isinstance(a, Var) and a.id in producer]
    done, order = set(), []       # nodes: FusionGroups and indices of ungrouped equations
    for i in range(len(program.eqns)):
        stack = [node.get(i, i)]
        while stack:
            n = stack[-1]
            pending = [m for m in needs(n) if m is not n and m not in done]
            if n in done:
                stack.pop()
            elif pending:
                stack.extend(pending)
            else:
                done.add(n)
                order.append(n)
                stack.pop()
    return order


def is_array_const(atom):
    """A constant that a fused function takes as an argument (cupy.fuse refuses arrays it
    closes over) rather than reading as a scalar global."""
    return isinstance(atom, Const) and hasattr(atom.value, "shape") and not isinstance(
        atom.value, np.generic)
