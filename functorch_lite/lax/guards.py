"""Guards on what a branch or a loop step reads: its derivative flows only where the branch
was taken, its value unchanged (branches.py's Note [branches and their derivatives])."""
from ..compiler import bodies
from ..ops.elementwise import select, stop_gradient
from ..rule_checks import inexact
from ..tensor import Tensor, TransformTensor
from ..transforms.forward import DualTensor
from ..transforms.reverse import GradTensor


def guard(taken, x):
    """x whose derivative flows only where `taken` holds, its value unchanged (branches.py's Note
    [branches and their derivatives]); x itself when nothing differentiates it (a loop body
    being traced may be differentiated when it is replayed: there x is always guarded)."""
    return select(taken, x, stop_gradient(x)) if needs_guard(x) else x


def needs_guard(x):
    return isinstance(x, Tensor) and inexact(x) and (bodies.inside_body() or _differentiated(x))


def _differentiated(x):
    """Whether a derivative transform wraps x at some level (under the other wrappers)."""
    while isinstance(x, TransformTensor):
        if isinstance(x, (GradTensor, DualTensor)):
            return True
        x = x.value
    return False
