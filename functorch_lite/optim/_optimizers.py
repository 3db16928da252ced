"""torch.optim's SGD, Adam and AdamW as chains of gradient transformations (_transforms.py),
with their update formulas and defaults; the state is one flat dict (fused chain)."""
from typing import Any, Callable, Union

from ._base import Optimizer, fused
from ._transforms import add_decayed_weights, scale_by_adam, scale_by_learning_rate, trace

LearningRate = Union[float, Callable[[Any], Any]]


def sgd(lr: LearningRate, momentum: float = 0.0, nesterov: bool = False,
        weight_decay: float = 0.0) -> Optimizer:
    """Stochastic gradient descent as torch.optim.SGD (dampening 0): g += weight_decay * p;
    buf = momentum * buf + g (buf = g on the first step); the step is g + momentum * buf with
    nesterov, else buf; the update is -lr * step: the chain add_decayed_weights(weight_decay),
    trace(momentum, nesterov), scale_by_learning_rate(lr). The state is the momentum buffers
    ({"momentum"}, none without momentum).

    Args:
        lr: the learning rate, a float or a schedule of the step count.
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
    links = [add_decayed_weights(weight_decay, "sgd")] if weight_decay else []
    links += [trace(momentum, nesterov)] if momentum else []
    return fused(*links, scale_by_learning_rate(lr))


def adam(lr: LearningRate, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
         weight_decay: float = 0.0) -> Optimizer:
    """Adam as torch.optim.Adam: weight decay is an L2 term added to the gradient; the update
    is -lr * m_hat / (sqrt(v_hat) + eps) with bias-corrected moment estimates: the chain
    add_decayed_weights(weight_decay), scale_by_adam(b1, b2, eps), scale_by_learning_rate(lr).

    The state is a step count and the first and second moment estimates (mu, nu), each a
    pytree like params.

    Args:
        lr: the learning rate, a float or a schedule of the step count.
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
    links = [add_decayed_weights(weight_decay, "adam")] if weight_decay else []
    return fused(*links, scale_by_adam(b1, b2, eps), scale_by_learning_rate(lr))


def adamw(lr: LearningRate, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
          weight_decay: float = 0.01) -> Optimizer:
    """AdamW as torch.optim.AdamW: Adam with decoupled weight decay.

    The update is -lr * (m_hat / (sqrt(v_hat) + eps) + weight_decay * p): the decay shrinks
    the parameters directly instead of entering the moment estimates, as in Loshchilov and
    Hutter (2019): the chain scale_by_adam(b1, b2, eps), add_decayed_weights(weight_decay),
    scale_by_learning_rate(lr), as optax.adamw. Note the default weight_decay 0.01, as torch's.

    Args:
        lr: the learning rate, a float or a schedule of the step count.
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
    links = [add_decayed_weights(weight_decay, "adamw")] if weight_decay else []
    return fused(scale_by_adam(b1, b2, eps), *links, scale_by_learning_rate(lr))


__all__ = ["sgd", "adam", "adamw"]
