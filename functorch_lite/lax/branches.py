"""cond, switch and select (jax.lax's): one branch in Python when the predicate is the same for
every example, every branch and a routing select when it is batched or traced, one compiled
branch under ft.jit (Note [branches and their derivatives] below; loops.py's Note [control
flow under the transforms])."""
import optree

from .. import numpy as fnp
from ..compiler import bodies
from ..interpreter import stack
from ..numpy._indexing import on_device_of
from ..ops.elementwise import select as _select_op
from ..transforms.forward import ForwardInterpreter
from ..transforms.reverse import ReverseInterpreter
from . import lowering
from .checks import _arrays, _check_predicate, _check_same_types, _dtype, _inspect
from .guards import guard


def _select(pred, on_true, on_false):
    """Per example: the leaves of on_true where pred holds, else those of on_false, their
    derivatives routed (select, not where: nothing of the other side reaches them)."""
    return optree.tree_map(lambda t, f: _select_op(pred, t, f), on_true, on_false)


# Note [branches and their derivatives]
# -------------------------------------
# A cond or switch whose predicate is batched (vmap) or traced (ft.jit) runs every branch, and
# a while_loop under vmap runs its body on the examples that have finished too: on values the
# branch would never see eagerly (sqrt of a negative number behind `x > 0`). Their results
# are discarded by a select, but a derivative taken through them would still meet the branch's
# non-finite partials: 0 * inf is NaN. So, as JAX's cond does, derivatives go only through
# the branch each example takes:
# - the results are combined by `select`, whose jvp and vjp route (where's multiply by 0/1);
# - each input of a branch reaches it as select(taken, x, stop_gradient(x)): the same value,
#   whose derivative flows only where the branch is taken. "Each input" includes the values
#   the branch reads from outside (a weight it closes over), so while a transform that
#   differentiates is running, the branch is first traced into a closed program
#   (compiler/bodies.py's Body, the tracing of loop bodies) that names them; one that reads a
#   value in Python (`float(x)`) cannot be traced, and only its operands are guarded.
# Without a derivative interpreter on the level stack nothing is guarded: values are equal.


def _differentiating():
    return any(isinstance(i, (ReverseInterpreter, ForwardInterpreter)) for i in stack())


def _guarded(fun, operands):
    """`call(taken, operands)` = fun(*operands), its derivatives flowing to every input of
    fun, operands and values read from outside alike, only where `taken` holds. See Note
    [branches and their derivatives]."""
    if not _differentiating():
        return lambda taken, ops: fun(*ops)
    leaves, spec = optree.tree_flatten(operands, none_is_leaf=True)
    out_spec = []

    def flat(*xs):
        out_leaves, out = optree.tree_flatten(fun(*spec.unflatten(xs)), none_is_leaf=True)
        out_spec[:] = [out]
        return out_leaves
    body = bodies.closed(flat, leaves)
    if body is None:
        return lambda taken, ops: fun(*optree.tree_map(lambda x: guard(taken, x), ops,
                                                       none_is_leaf=True))

    def call(taken, ops):
        xs = optree.tree_leaves(ops, none_is_leaf=True) + body.captured
        return out_spec[0].unflatten(body.run(*[guard(taken, x) for x in xs]))
    return call


def select(pred, on_true, on_false):
    """on_true where pred holds, else on_false, elementwise, routing derivatives
    (jax.lax.select; pred, on_true and on_false broadcast as in numpy.where).

    The values are numpy.where's. The derivatives differ: `where` weighs each side's tangent
    by 0 or 1, so a NaN tangent of the side not taken still gives NaN; `select` routes
    tangents and cotangents, as jax.lax.select and JAX's where: the side not taken gets an
    exact zero cotangent (which that side's own rules may still turn into NaN, 0 * inf, as in
    JAX: cond guards its branches' inputs against that). cond, switch and while_loop combine
    their branches with it (Note [branches and their derivatives]).

    Args:
        pred: a boolean array or scalar.
        on_true: values where pred holds.
        on_false: values elsewhere.

    Returns:
        An array of the broadcast shape.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.array([-1.0, 4.0])
        >>> ft.jvp(lambda x: ft.lax.select(x > 0, np.sqrt(x), -x), (x,), (np.ones(2),))[1]
        array([-1.  ,  0.25])
        >>> ft.jvp(lambda x: np.where(x > 0, np.sqrt(x), -x), (x,), (np.ones(2),))[1]
        array([ nan, 0.25])
    """
    return _select_op(on_device_of(pred, on_true, on_false), on_true, on_false)


# -- cond and switch --------------------------------------------------------------------------

def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands)` if pred else `false_fun(*operands)` (jax.lax.cond).

    With a pred that is the same for every example only the chosen branch runs. Under vmap with
    a batched pred both branches run and each example takes its branch's outputs (the branches
    must then return equal types); under ft.jit with a traced pred both branches are recorded
    with a select. See Note [control flow under the transforms].

    Args:
        pred: a scalar bool (or number, true when nonzero).
        true_fun: the branch taken where pred holds.
        false_fun: the branch taken elsewhere.
        *operands: the branches' arguments (pytrees).

    Returns:
        The chosen branch's output.

    Raises:
        TypeError: pred is not a scalar bool or number, a branch is not callable, or (when both
            run) the branches' outputs differ in structure, shape or dtype.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.cond(True, lambda x: x + 1, lambda x: x - 1, np.array(1.0))
        array(2.)
        >>> ft.vmap(lambda p, x: ft.cond(p, np.sin, np.cos, x))(
        ...     np.array([True, False]), np.zeros(2))
        array([0., 1.])
    """
    for role, fun in (("true_fun", true_fun), ("false_fun", false_fun)):
        if not callable(fun):
            raise TypeError(f"cond: {role} must be callable, got a {type(fun).__name__}")
    _check_predicate(pred, "cond", "pred", "biufc")
    kind, bottom = _inspect(pred)
    if kind == "value":
        return _arrays((true_fun if bool(bottom) else false_fun)(*operands))
    if _dtype(pred).kind != "b":
        pred = fnp.not_equal(pred, 0)
    if kind == "traced" and bodies.tracing_at_top():   # Note [compiled branches]
        out = lowering.switch(pred, (false_fun, true_fun), operands)
        if out is not None:
            return out
    on_true = _guarded(true_fun, operands)(pred, operands)
    on_false = _guarded(false_fun, operands)(fnp.logical_not(pred), operands)
    _check_same_types("cond", on_true, on_false,
                      ("output of true_fun", "output of false_fun", "output"))
    return _select(pred, on_true, on_false)


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped to the branches (jax.lax.switch).

    As `cond`: under vmap with a batched index every branch runs and each example takes its
    own; under ft.jit with a traced index every branch is recorded with a select.

    Args:
        index: a scalar integer; below 0 it picks the first branch, past the end the last.
        branches: a non-empty sequence of callables.
        *operands: the branches' arguments (pytrees).

    Returns:
        The chosen branch's output.

    Raises:
        TypeError: index is not a scalar integer, branches is empty or holds a non-callable,
            or (when several run) the branches' outputs differ in structure, shape or dtype.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> branches = [lambda x: x, lambda x: 2 * x, lambda x: 3 * x]
        >>> ft.lax.switch(1, branches, np.array(5.0))
        array(10.)
        >>> ft.vmap(lambda i: ft.lax.switch(i, branches, np.array(5.0)))(np.array([0, 2, 7]))
        array([ 5., 15., 15.])
    """
    branches = tuple(branches)
    if not branches:
        raise TypeError("switch: branches must be a non-empty sequence of callables")
    for k, fun in enumerate(branches):
        if not callable(fun):
            raise TypeError(f"switch: branches[{k}] must be callable, got a "
                            f"{type(fun).__name__}")
    _check_predicate(index, "switch", "index", "iu")
    kind, bottom = _inspect(index)
    last = len(branches) - 1
    if kind == "value":
        return _arrays(branches[min(max(int(bottom), 0), last)](*operands))
    index = fnp.clip(index, 0, last)
    if kind == "traced" and bodies.tracing_at_top():   # Note [compiled branches]
        out = lowering.switch(index, branches, operands)
        if out is not None:
            return out
    outs = [_guarded(fun, operands)(fnp.equal(index, k), operands)
            for k, fun in enumerate(branches)]
    for k in range(1, len(outs)):
        _check_same_types("switch", outs[0], outs[k],
                          ("output of branches[0]", f"output of branches[{k}]", "output"))
    out = outs[last]
    for k in range(last - 1, -1, -1):
        out = _select(fnp.equal(index, k), outs[k], out)
    return out
