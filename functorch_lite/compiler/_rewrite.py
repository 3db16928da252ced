"""Substituting atoms in a program: the one helper every rewriting pass shares."""
from .ir import Var


def substitute(eqns, outputs, replaced):
    """Equations and outputs with every Var whose id is in `replaced` swapped for its atom."""
    if not replaced:
        return list(eqns), list(outputs)

    def sub(atom):
        while isinstance(atom, Var) and atom.id in replaced:
            atom = replaced[atom.id]
        return atom
    new_eqns = [e if not any(isinstance(a, Var) and a.id in replaced for a in e.ins)
                else e.with_ins([sub(a) for a in e.ins]) for e in eqns]
    return new_eqns, [sub(a) for a in outputs]
