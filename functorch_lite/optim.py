"""Functional optimizers over parameter pytrees, in optax's shape: an optimizer is a pair of
pure functions `init(params) -> state` and `update(grads, state, params) -> (updates, state)`,
and `apply_updates(params, updates)` adds the updates. Nothing is changed in place, so a
training step is a pure function (and can itself be transformed, e.g. vmapped over an
ensemble). The update formulas and defaults follow torch.optim (SGD, Adam, AdamW).

    opt = optim.adam(lr=1e-3)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    params = optim.apply_updates(params, updates)
"""
from typing import Callable, NamedTuple

import optree

from . import numpy as fnp
from .numpy._util import dtype_of


class Optimizer(NamedTuple):
    """An (init, update) pair of pure functions.

    `init(params) -> state` makes the optimizer state for a parameter pytree;
    `update(grads, state, params=None) -> (updates, state)` turns gradients into updates to add
    with apply_updates. Neither changes its arguments, so a whole training step stays a pure
    function that transforms can map over.

    Attributes:
        init: params -> state.
        update: (grads, state, params=None) -> (updates, new state).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> opt = optim.sgd(lr=0.5)
        >>> isinstance(opt, optim.Optimizer), opt.init({"w": np.zeros(2)})["count"]
        (True, 0)
    """
    init: Callable
    update: Callable


def _map(fn, tree, *rest):
    return optree.tree_map(fn, tree, *rest)


def apply_updates(params, updates):
    """params + updates, leaf by leaf (each result keeps its parameter's dtype).

    Args:
        params: a pytree of arrays (or Python numbers).
        updates: a pytree of the same structure, as an optimizer's update returns.

    Returns:
        The new parameters, a pytree like params.

    Raises:
        ValueError: the two pytrees do not have the same structure (from optree).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> optim.apply_updates({"w": np.ones(2, np.float32)}, {"w": np.full(2, 0.5)})["w"]
        array([1.5, 1.5], dtype=float32)
    """
    return _map(lambda p, u: _as_dtype_of(p + u, p), params, updates)


def _as_dtype_of(x, like):
    """x in the dtype of `like` when `like` is an array (Python numbers stay as they are)."""
    return fnp.astype(x, dtype_of(like)) if hasattr(like, "dtype") else x


def _with_weight_decay(grads, params, weight_decay, fn):
    if not weight_decay:
        return grads
    if params is None:
        raise ValueError(f"optim.{fn}: weight_decay needs the params: update(grads, state, "
                         f"params)")
    return _map(lambda g, p: g + weight_decay * p, grads, params)


def sgd(lr, momentum=0.0, nesterov=False, weight_decay=0.0):
    """Stochastic gradient descent as torch.optim.SGD (dampening 0): g += weight_decay * p;
    buf = momentum * buf + g (buf = g on the first step); the step is g + momentum * buf with
    nesterov, else buf; the update is -lr * step. The state is the momentum buffers (None
    without momentum) and a step count.

    Args:
        lr: the learning rate.
        momentum: the momentum factor (0 for plain SGD).
        nesterov: use Nesterov momentum (needs momentum > 0).
        weight_decay: L2 penalty added to the gradient (then update needs params).

    Returns:
        An Optimizer (init, update).

    Raises:
        ValueError: nesterov without momentum; `update` without params when weight_decay is set.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> opt = optim.sgd(lr=0.1, momentum=0.9)
        >>> params = {"w": np.array([1.0, -2.0])}
        >>> state = opt.init(params)
        >>> updates, state = opt.update({"w": np.array([1.0, 1.0])}, state, params)
        >>> optim.apply_updates(params, updates)["w"]
        array([ 0.9, -2.1])
    """
    if nesterov and momentum <= 0:
        raise ValueError("optim.sgd: nesterov needs momentum > 0")

    def init(params):
        buf = _map(fnp.zeros_like, params) if momentum else None
        return {"count": 0, "momentum": buf}

    def update(grads, state, params=None):
        g = _with_weight_decay(grads, params, weight_decay, "sgd")
        if not momentum:
            return _map(lambda x: -lr * x, g), {"count": state["count"] + 1, "momentum": None}
        # buf starts at zeros, so the first step's momentum * 0 + g is torch's buf = g exactly,
        # with no branch on the count (which ft.jit traces as a value)
        buf = _map(lambda b, x: momentum * b + x, state["momentum"], g)
        step = _map(lambda x, b: x + momentum * b, g, buf) if nesterov else buf
        return (_map(lambda s: -lr * s, step),
                {"count": state["count"] + 1, "momentum": buf})

    return Optimizer(init, update)


def _adam(lr, b1, b2, eps, weight_decay, decoupled, name):
    def init(params):
        return {"count": 0, "mu": _map(fnp.zeros_like, params),
                "nu": _map(fnp.zeros_like, params)}

    def update(grads, state, params=None):
        g = grads if decoupled else _with_weight_decay(grads, params, weight_decay, name)
        t = state["count"] + 1
        mu = _map(lambda m, x: b1 * m + (1 - b1) * x, state["mu"], g)
        nu = _map(lambda v, x: b2 * v + (1 - b2) * (x * x), state["nu"], g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        step = _map(lambda m, v: (m / c1) / (fnp.sqrt(v / c2) + eps), mu, nu)
        if decoupled and weight_decay:
            if params is None:
                raise ValueError(f"optim.{name}: weight_decay needs the params: "
                                 f"update(grads, state, params)")
            step = _map(lambda s, p: s + weight_decay * p, step, params)
        return _map(lambda s: -lr * s, step), {"count": t, "mu": mu, "nu": nu}

    return Optimizer(init, update)


def adam(lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0):
    """Adam as torch.optim.Adam: weight decay is an L2 term added to the gradient; the update
    is -lr * m_hat / (sqrt(v_hat) + eps) with bias-corrected moment estimates.

    The state is a step count and the first and second moment estimates (mu, nu), each a
    pytree like params.

    Args:
        lr: the learning rate.
        b1: decay rate of the first moment estimate.
        b2: decay rate of the second moment estimate.
        eps: added to sqrt(v_hat) in the denominator.
        weight_decay: L2 penalty added to the gradient (then update needs params).

    Returns:
        An Optimizer (init, update).

    Raises:
        ValueError: (from update) weight_decay is set and no params are given.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> from functorch_lite import optim
        >>> loss = lambda p: np.sum((p["w"] - 3.0) ** 2)
        >>> params, opt = {"w": np.zeros(2)}, optim.adam(lr=0.1)
        >>> state = opt.init(params)
        >>> for _ in range(200):
        ...     updates, state = opt.update(ft.grad(loss)(params), state, params)
        ...     params = optim.apply_updates(params, updates)
        >>> np.round(params["w"], 1)
        array([3., 3.])
    """
    return _adam(lr, b1, b2, eps, weight_decay, decoupled=False, name="adam")


def adamw(lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01):
    """AdamW as torch.optim.AdamW: Adam with decoupled weight decay.

    The update is -lr * (m_hat / (sqrt(v_hat) + eps) + weight_decay * p): the decay shrinks
    the parameters directly instead of entering the moment estimates, as in Loshchilov and
    Hutter (2019). Note the default weight_decay 0.01, as torch's.

    Args:
        lr: the learning rate.
        b1: decay rate of the first moment estimate.
        b2: decay rate of the second moment estimate.
        eps: added to sqrt(v_hat) in the denominator.
        weight_decay: the decoupled decay factor (update needs params unless it is 0).

    Returns:
        An Optimizer (init, update).

    Raises:
        ValueError: (from update) weight_decay is set and no params are given.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> opt, params = optim.adamw(lr=0.1, weight_decay=0.1), {"w": np.array([1.0, -2.0])}
        >>> updates, state = opt.update({"w": np.zeros(2)}, opt.init(params), params)
        >>> updates["w"]                          # decay alone: -lr * weight_decay * p
        array([-0.01,  0.02])
    """
    return _adam(lr, b1, b2, eps, weight_decay, decoupled=True, name="adamw")


def global_norm(tree):
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


def clip_by_global_norm(grads, max_norm):
    """grads scaled by min(1, max_norm / global_norm(grads)) (torch's clip_grad_norm_, without
    its 1e-6: a zero gradient stays zero).

    Gradients whose global norm is at most max_norm are returned unchanged (up to a multiply
    by 1); each leaf keeps its dtype.

    Args:
        grads: a pytree of gradient arrays.
        max_norm: the largest global norm allowed (> 0).

    Returns:
        A pytree like grads.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> optim.clip_by_global_norm({"a": np.array([3.0]), "b": np.array([4.0])}, 1.0)["b"]
        array([0.8])
    """
    norm = global_norm(grads)
    scale = fnp.minimum(1.0, max_norm / fnp.maximum(norm, max_norm))
    return _map(lambda g: _as_dtype_of(g * scale, g), grads)


def clip_per_example(grads, max_norm):
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
        return _as_dtype_of(g * s, g)
    return _map(clip, grads)


__all__ = ["Optimizer", "sgd", "adam", "adamw", "apply_updates", "global_norm",
           "clip_by_global_norm", "clip_per_example"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
