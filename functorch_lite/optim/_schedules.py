"""Learning-rate schedules with optax's names and formulas: functions of the step count (0 for
the first update) to pass as a learning rate (optim.adam(lr=schedule)) or to
scale_by_schedule. Written with library ops, so a step count that ft.jit traces as a value
gives the right rate on every call.
"""
import math
from typing import Any, Callable, Dict, Optional

from .. import numpy as fnp

Schedule = Callable[[Any], Any]


def constant_schedule(value: float) -> Schedule:
    """step -> value (optax.constant_schedule).

    Args:
        value: the constant.

    Returns:
        A schedule.

    Examples:
        >>> from functorch_lite import optim
        >>> optim.constant_schedule(0.1)(1000)
        0.1
    """
    return lambda step: value


def linear_schedule(init_value: float, end_value: float, transition_steps: int,
                    transition_begin: int = 0) -> Schedule:
    """init_value until transition_begin, then linearly to end_value over transition_steps
    steps, then end_value (optax.linear_schedule).

    Args:
        init_value: the value at the start.
        end_value: the value after the transition.
        transition_steps: the length of the ramp (<= 0: init_value throughout, as optax).
        transition_begin: steps to wait before the ramp.

    Returns:
        A schedule.

    Examples:
        >>> from functorch_lite import optim
        >>> warmup = optim.linear_schedule(0.0, 1.0, transition_steps=4)
        >>> [float(warmup(s)) for s in range(6)]
        [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    """
    if transition_steps <= 0:
        return constant_schedule(init_value)

    def schedule(step):
        done = fnp.clip(step - transition_begin, 0, transition_steps) / transition_steps
        return (end_value - init_value) * done + init_value
    return schedule


def exponential_decay(init_value: float, transition_steps: int, decay_rate: float,
                      transition_begin: int = 0, staircase: bool = False,
                      end_value: Optional[float] = None) -> Schedule:
    """init_value * decay_rate ** ((step - transition_begin) / transition_steps) after
    transition_begin (init_value before), the exponent floored with staircase, and bounded by
    end_value when given (optax.exponential_decay).

    Args:
        init_value: the value at the start.
        transition_steps: steps per factor of decay_rate (<= 0: init_value throughout).
        decay_rate: the factor per transition_steps steps.
        transition_begin: steps to wait before decaying.
        staircase: decay in whole steps of transition_steps.
        end_value: a floor (a ceiling when decay_rate > 1).

    Returns:
        A schedule.

    Examples:
        >>> from functorch_lite import optim
        >>> decay = optim.exponential_decay(1.0, transition_steps=10, decay_rate=0.5)
        >>> float(decay(10)), round(float(decay(25)), 4)          # 0.5 ** 2.5
        (0.5, 0.1768)
    """
    if transition_steps <= 0:
        return constant_schedule(init_value)

    def schedule(step):
        elapsed = step - transition_begin
        power = elapsed / transition_steps
        if staircase:
            power = fnp.floor(power)
        value = fnp.where(elapsed <= 0, init_value, init_value * decay_rate ** power)
        if end_value is not None:
            bound = fnp.maximum if decay_rate < 1 else fnp.minimum
            value = bound(value, end_value)
        return value
    return schedule


def cosine_decay_schedule(init_value: float, decay_steps: int, alpha: float = 0.0,
                          exponent: float = 1.0) -> Schedule:
    """init_value * ((1 - alpha) * c ** exponent + alpha) with
    c = (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2: from init_value down to
    alpha * init_value over decay_steps steps (optax.cosine_decay_schedule, Loshchilov and
    Hutter's SGDR without restarts).

    Args:
        init_value: the value at step 0.
        decay_steps: the length of the decay (> 0).
        alpha: the final value as a fraction of init_value.
        exponent: the power of the cosine factor.

    Returns:
        A schedule.

    Raises:
        ValueError: decay_steps <= 0.

    Examples:
        >>> from functorch_lite import optim
        >>> cosine = optim.cosine_decay_schedule(1.0, decay_steps=100)
        >>> float(cosine(0)), float(cosine(50)), float(cosine(100)), float(cosine(200))
        (1.0, 0.5, 0.0, 0.0)
    """
    if decay_steps <= 0:
        raise ValueError(f"cosine_decay_schedule: decay_steps must be positive, got "
                         f"{decay_steps}")

    def schedule(step):
        done = fnp.minimum(step, decay_steps) / decay_steps
        cosine = 0.5 * (1 + fnp.cos(math.pi * done))
        return init_value * ((1 - alpha) * cosine ** exponent + alpha)
    return schedule


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int,
                                 decay_steps: int, end_value: float = 0.0,
                                 exponent: float = 1.0) -> Schedule:
    """A linear warmup from init_value to peak_value over warmup_steps, then a cosine decay
    to end_value, reached at step decay_steps (which counts the warmup, as optax's
    warmup_cosine_decay_schedule).

    Args:
        init_value: the value at step 0.
        peak_value: the value at the end of the warmup.
        warmup_steps: the warmup's length.
        decay_steps: the total length, warmup included (> warmup_steps).
        end_value: the final value.
        exponent: the power of the cosine factor.

    Returns:
        A schedule.

    Raises:
        ValueError: decay_steps <= warmup_steps.

    Examples:
        >>> from functorch_lite import optim
        >>> lr = optim.warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=10, decay_steps=110)
        >>> [round(float(lr(s)), 3) for s in (0, 5, 10, 60, 110)]
        [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    alpha = 0.0 if peak_value == 0 else end_value / peak_value
    warmup = linear_schedule(init_value, peak_value, warmup_steps)
    decay = cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)

    def schedule(step):
        return fnp.where(step < warmup_steps, warmup(step), decay(step - warmup_steps))
    return schedule


def piecewise_constant_schedule(init_value: float,
                                boundaries_and_scales: Optional[Dict[int, float]] = None
                                ) -> Schedule:
    """init_value, multiplied by scale from each boundary step on
    (optax.piecewise_constant_schedule): {100: 0.1, 200: 0.1} divides the rate by 10 at step
    100 and again at step 200.

    Args:
        init_value: the value before the first boundary.
        boundaries_and_scales: {step: factor}.

    Returns:
        A schedule.

    Examples:
        >>> from functorch_lite import optim
        >>> lr = optim.piecewise_constant_schedule(1.0, {2: 0.1, 4: 0.5})
        >>> [round(float(lr(s)), 3) for s in range(6)]
        [1.0, 1.0, 0.1, 0.1, 0.05, 0.05]
    """
    steps = sorted((boundaries_and_scales or {}).items())

    def schedule(step):
        value = init_value
        for boundary, factor in steps:
            value = fnp.where(step >= boundary, value * factor, value)
        return value
    return schedule


__all__ = ["constant_schedule", "linear_schedule", "exponential_decay", "cosine_decay_schedule",
           "warmup_cosine_decay_schedule", "piecewise_constant_schedule"]
