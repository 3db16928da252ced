"""Functional optimizers over parameter pytrees, in optax's shape: an optimizer is a pair of
pure functions `init(params) -> state` and `update(grads, state, params) -> (updates, state)`,
and `apply_updates(params, updates)` adds the updates. Nothing is changed in place, so a
training step is a pure function (and can itself be transformed, e.g. vmapped over an
ensemble). The update formulas and defaults follow torch.optim (SGD, Adam, AdamW).

    opt = optim.adam(lr=1e-3)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    params = optim.apply_updates(params, updates)

Each optimizer is a chain of gradient transformations, as in optax, and the links are public:
`chain(clip_by_global_norm(1.0), scale_by_adam(), add_decayed_weights(1e-4),
scale_by_learning_rate(warmup_cosine_decay_schedule(...)))` builds an AdamW with clipping and
a schedule. Schedules are functions of the step count.
"""
from ._base import Optimizer, apply_updates, chain
from ._optimizers import adam, adamw, sgd
from ._schedules import (constant_schedule, cosine_decay_schedule, exponential_decay,
                         linear_schedule, piecewise_constant_schedule,
                         warmup_cosine_decay_schedule)
from ._transforms import (add_decayed_weights, clip_by_global_norm, clip_per_example,
                          global_norm, scale, scale_by_adam, scale_by_learning_rate,
                          scale_by_schedule, trace)

__all__ = ["Optimizer", "sgd", "adam", "adamw", "apply_updates", "global_norm",
           "clip_by_global_norm", "clip_per_example",
           # gradient transformations (optax's names)
           "chain", "scale", "scale_by_learning_rate", "scale_by_schedule", "scale_by_adam",
           "trace", "add_decayed_weights",
           # schedules
           "constant_schedule", "linear_schedule", "exponential_decay", "cosine_decay_schedule",
           "warmup_cosine_decay_schedule", "piecewise_constant_schedule"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
