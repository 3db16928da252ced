"""The optimizer type, chain and apply_updates: the pieces every transformation shares."""
from typing import Any, Callable, NamedTuple

import optree

from .. import numpy as fnp
from ..numpy._util import dtype_of

PyTree = Any


class Optimizer(NamedTuple):
    """An (init, update) pair of pure functions: an optimizer, or one gradient transformation
    of a chain (optax's GradientTransformation).

    `init(params) -> state` makes the state for a parameter pytree;
    `update(grads, state, params=None) -> (updates, state)` turns gradients (or the updates of
    the transformation before it in a chain) into updates to add with apply_updates. Neither
    changes its arguments, so a whole training step stays a pure function that transforms can
    map over.

    Attributes:
        init: params -> state.
        update: (grads, state, params=None) -> (updates, new state).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> opt = optim.adam(lr=0.5)
        >>> isinstance(opt, optim.Optimizer), opt.init({"w": np.zeros(2)})["count"]
        (True, 0)
    """
    init: Callable
    update: Callable


def tree_map(fn, tree, *rest):
    return optree.tree_map(fn, tree, *rest)


def as_dtype_of(x, like):
    """x in the dtype of `like` when `like` is an array (Python numbers stay as they are)."""
    return fnp.astype(x, dtype_of(like)) if hasattr(like, "dtype") else x


def apply_updates(params: PyTree, updates: PyTree) -> PyTree:
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
    return tree_map(lambda p, u: as_dtype_of(p + u, p), params, updates)


def chain(*transforms: Optimizer) -> Optimizer:
    """The transformations applied one after the other (optax.chain): each update's output is
    the next one's input, and the state is the tuple of their states.

    An optimizer is a chain ending in a learning rate: optim.adam(lr) gives the updates of
    chain(scale_by_adam(), scale_by_learning_rate(lr)), and clipping, weight decay or a
    schedule are further links.

    Args:
        *transforms: Optimizers (init, update pairs), applied left to right.

    Returns:
        An Optimizer whose state is a tuple with one entry per transformation.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite import optim
        >>> opt = optim.chain(optim.clip_by_global_norm(1.0), optim.scale_by_learning_rate(0.1))
        >>> grads = {"w": np.array([3.0, 4.0])}                    # norm 5, clipped to 1
        >>> updates, state = opt.update(grads, opt.init(grads))
        >>> updates["w"]
        array([-0.06, -0.08])
    """
    transforms = tuple(transforms)

    def init(params):
        return tuple(t.init(params) for t in transforms)

    def update(updates, state, params=None):
        new_state = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params)
            new_state.append(s)
        return updates, tuple(new_state)

    return Optimizer(init, update)


def fused(*transforms: Optimizer) -> Optimizer:
    """A chain whose state is one dict, the union of its links' dict states (their keys are
    distinct): the flat state torch-style optimizers keep ({"count", "mu", "nu"} for adam)."""
    def init(params):
        state = {}
        for t in transforms:
            state.update(t.init(params))
        return state

    def update(updates, state, params=None):
        new_state = dict(state)
        for t in transforms:
            updates, s = t.update(updates, state, params)
            new_state.update(s)
        return updates, new_state

    return Optimizer(init, update)
