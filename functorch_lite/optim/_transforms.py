"""Gradient transformations in optax's shape, each an (init, update) pair to chain: scaling,
learning rates and schedules, momentum (trace), Adam's moment scaling, weight decay and
clipping. Each keeps its state in a dict (empty when it has none), so the torch-style
optimizers of _optimizers.py fuse their links' states into one flat dict.
"""
from typing import Any, Callable, Optional, Union

import optree

from .. import numpy as fnp
from ._base import Optimizer, PyTree, as_dtype_of, tree_map

Schedule = Callable[[Any], Any]


def scale(step_size: float) -> Optimizer:
    """Updates multiplied by `step_size` (optax.scale). Stateless.

    Args:
        step_size: the factor.

    Returns:
        An Optimizer (a link of a chain).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> optim.scale(-0.5).update({"w": np.array([2.0])}, {})[0]
        {'w': array([-1.])}
    """
    def init(params):
        return {}

    def update(updates, state, params=None):
        return tree_map(lambda u: step_size * u, updates), {}

    return Optimizer(init, update)


def scale_by_schedule(schedule: Schedule) -> Optimizer:
    """Updates multiplied by schedule(step), step counting the updates from 0
    (optax.scale_by_schedule). The state is {"step": n}.

    Args:
        schedule: a function of the step count (see constant_schedule and the others).

    Returns:
        An Optimizer (a link of a chain).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> t = optim.scale_by_schedule(lambda step: 0.5 ** step)
        >>> state = t.init(None)
        >>> for _ in range(3):
        ...     u, state = t.update({"w": np.ones(1)}, state)
        >>> u["w"], state["step"]
        (array([0.25]), 3)
    """
    def init(params):
        return {"step": 0}

    def update(updates, state, params=None):
        factor = schedule(state["step"])
        return tree_map(lambda u: factor * u, updates), {"step": state["step"] + 1}

    return Optimizer(init, update)


def scale_by_learning_rate(learning_rate: Union[float, Schedule]) -> Optimizer:
    """Updates multiplied by -learning_rate, a number or a schedule of the step count
    (optax.scale_by_learning_rate): the last link of an optimizer's chain, turning a descent
    direction into a step.

    Args:
        learning_rate: a float, or a function of the step count (a schedule).

    Returns:
        An Optimizer (stateless for a number; {"step": n} for a schedule).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> optim.scale_by_learning_rate(0.1).update({"w": np.array([2.0])}, {})[0]
        {'w': array([-0.2])}
    """
    if callable(learning_rate):
        return scale_by_schedule(lambda step: -learning_rate(step))
    return scale(-learning_rate)


def _needs_params(params, name):
    if params is None:
        raise ValueError(f"optim.{name}: weight_decay needs the params: update(grads, state, "
                         f"params)")


def add_decayed_weights(weight_decay: float, name: str = "add_decayed_weights") -> Optimizer:
    """updates + weight_decay * params (optax.add_decayed_weights): L2 regularization before a
    scaling (torch's Adam, SGD), decoupled weight decay after it (AdamW). Stateless.

    Args:
        weight_decay: the factor.
        name: the name errors give (the optimizer that uses it).

    Returns:
        An Optimizer (a link of a chain); its update needs params.

    Raises:
        ValueError: (from update) no params given.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> params = {"w": np.array([1.0, -2.0])}
        >>> optim.add_decayed_weights(0.1).update({"w": np.zeros(2)}, {}, params)[0]
        {'w': array([ 0.1, -0.2])}
    """
    def init(params):
        return {}

    def update(updates, state, params=None):
        _needs_params(params, name)
        return tree_map(lambda u, p: u + weight_decay * p, updates, params), {}

    return Optimizer(init, update)


def trace(decay: float, nesterov: bool = False) -> Optimizer:
    """Momentum (optax.trace, torch.optim.SGD's buffer with dampening 0): buf = decay * buf +
    u, and the update is buf, or u + decay * buf with nesterov. The state is {"momentum": buf}.

    buf starts at zeros, so the first step's buf is u exactly, as torch's first step.

    Args:
        decay: the momentum factor.
        nesterov: use Nesterov momentum.

    Returns:
        An Optimizer (a link of a chain).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> t = optim.trace(0.9)
        >>> u, state = t.update({"w": np.ones(1)}, t.init({"w": np.zeros(1)}))
        >>> u, state = t.update({"w": np.ones(1)}, state)
        >>> u["w"]                                  # 0.9 * 1 + 1
        array([1.9])
    """
    def init(params):
        return {"momentum": tree_map(fnp.zeros_like, params)}

    def update(updates, state, params=None):
        # no branch on a step count (which ft.jit traces as a value): zeros make buf = u
        buf = tree_map(lambda b, u: decay * b + u, state["momentum"], updates)
        out = tree_map(lambda u, b: u + decay * b, updates, buf) if nesterov else buf
        return out, {"momentum": buf}

    return Optimizer(init, update)


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                  eps_root: float = 0.0) -> Optimizer:
    """Adam's scaling (optax.scale_by_adam): the bias-corrected moment estimates
    m_hat = m / (1 - b1^t), v_hat = v / (1 - b2^t) give the update
    m_hat / (sqrt(v_hat + eps_root) + eps). The state is {"count", "mu", "nu"}.

    Args:
        b1: decay rate of the first moment estimate.
        b2: decay rate of the second moment estimate.
        eps: added to the square root in the denominator.
        eps_root: added inside the square root (keeps its derivative finite when the step
            itself is differentiated, as in meta-learning).

    Returns:
        An Optimizer (a link of a chain).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> t = optim.scale_by_adam()
        >>> u, state = t.update({"w": np.array([-3.0])}, t.init({"w": np.zeros(1)}))
        >>> u["w"].round(6), state["count"]                  # the first step is sign(g)
        (array([-1.]), 1)
    """
    def init(params):
        return {"count": 0, "mu": tree_map(fnp.zeros_like, params),
                "nu": tree_map(fnp.zeros_like, params)}

    def update(updates, state, params=None):
        t = state["count"] + 1
        mu = tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["mu"], updates)
        nu = tree_map(lambda v, g: b2 * v + (1 - b2) * (g * g), state["nu"], updates)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        if eps_root:
            step = tree_map(lambda m, v: (m / c1) / (fnp.sqrt(v / c2 + eps_root) + eps), mu, nu)
        else:
            step = tree_map(lambda m, v: (m / c1) / (fnp.sqrt(v / c2) + eps), mu, nu)
        return step, {"count": t, "mu": mu, "nu": nu}

    return Optimizer(init, update)


def global_norm(tree: PyTree) -> Any:
    """The L2 norm of all leaves of a pytree taken together.

    sqrt of the sum of squares of every entry of every leaf: the norm of the flattened tree.

    Args:
        tree: a pytree of real arrays.

    Returns:
        A 0-d array (0.0 for a tree without leaves).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> float(optim.global_norm({"a": np.array([3.0]), "b": np.array([4.0])}))
        5.0
    """
    return fnp.sqrt(sum(fnp.sum(x * x) for x in optree.tree_leaves(tree)))


def clip_by_global_norm(grads_or_max_norm: Any = None, max_norm: Optional[float] = None) -> Any:
    """Gradients scaled by min(1, max_norm / global_norm(grads)): torch's clip_grad_norm_
    (without its 1e-6: a zero gradient stays zero), in two forms.

    clip_by_global_norm(max_norm) (or clip_by_global_norm(max_norm=...)) is the gradient
    transformation (optax.clip_by_global_norm), a stateless link of a chain;
    clip_by_global_norm(grads, max_norm) clips a gradient pytree at once. Gradients whose global norm is at most max_norm come back unchanged (up to a
    multiply by 1); each leaf keeps its dtype.

    Args:
        grads_or_max_norm: the gradient pytree, or (alone) max_norm for the transformation.
        max_norm: the largest global norm allowed (> 0), with a gradient pytree.

    Returns:
        A pytree like grads, or an Optimizer (a link of a chain) given max_norm alone.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> optim.clip_by_global_norm({"a": np.array([3.0]), "b": np.array([4.0])}, 1.0)["b"]
        array([0.8])
        >>> clip = optim.clip_by_global_norm(1.0)
        >>> clip.update({"a": np.array([3.0]), "b": np.array([4.0])}, clip.init(None))[0]["a"]
        array([0.6])
    """
    if grads_or_max_norm is None or max_norm is None:
        limit = max_norm if grads_or_max_norm is None else grads_or_max_norm
        if limit is None:
            raise TypeError("clip_by_global_norm needs max_norm: clip_by_global_norm(max_norm) "
                            "for the transformation, clip_by_global_norm(grads, max_norm) to "
                            "clip at once")
        return Optimizer(lambda params: {},
                         lambda updates, state, params=None: (_clip(updates, limit), {}))
    return _clip(grads_or_max_norm, max_norm)


def _clip(grads, max_norm):
    norm = global_norm(grads)
    factor = fnp.minimum(1.0, max_norm / fnp.maximum(norm, max_norm))
    return tree_map(lambda g: as_dtype_of(g * factor, g), grads)


def clip_per_example(grads: PyTree, max_norm: float) -> PyTree:
    """Per-example gradients (each leaf with the examples along axis 0, as vmap(grad) returns
    them) each clipped to L2 norm at most `max_norm`, the norm taken over all leaves of one
    example: g_i / max(1, ||g_i|| / max_norm), the clipping step of DP-SGD (Abadi et al.
    2016). Sum the clipped gradients and add noise for DP-SGD (docs/dp_sgd.md).

    Args:
        grads: a pytree of per-example gradients, every leaf with the same leading size n.
        max_norm: the largest per-example norm allowed (> 0).

    Returns:
        A pytree like grads, each leaf keeping its dtype.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> per_example = {"w": np.array([[3.0, 4.0], [0.3, 0.4]])}   # 2 examples
        >>> optim.clip_per_example(per_example, 1.0)["w"]
        array([[0.6, 0.8],
               [0.3, 0.4]])
    """
    leaves = optree.tree_leaves(grads)
    if not leaves:
        return grads
    n = fnp.shape(leaves[0])[0]
    sq = sum(fnp.sum(fnp.reshape(x * x, (n, -1)), axis=1) for x in leaves)
    scale = 1.0 / fnp.maximum(1.0, fnp.sqrt(sq) / max_norm)

    def clip(g):
        s = fnp.reshape(scale, (n,) + (1,) * (fnp.ndim(g) - 1))
        return as_dtype_of(g * s, g)
    return tree_map(clip, grads)
