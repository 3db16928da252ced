"""Dropout with an explicit key (functorch_lite.random): the mask is a pure function of the
key, so vmap over split keys gives each example (or ensemble member) its own mask."""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of
from .. import random


def dropout(key, x, rate, deterministic=False):
    """Zero each entry of x with probability `rate` and scale the rest by 1 / (1 - rate), so
    the expectation is unchanged (inverted dropout, as torch.nn.functional.dropout with
    p=rate). `deterministic=True` (evaluation) returns x unchanged; rate=1 gives zeros."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1], got {rate}")
    if deterministic or rate == 0.0:
        return x
    if rate == 1.0:
        return fnp.zeros_like(x)
    # float32 data draws float32 uniforms: half the random words of float64.
    keep_prob = np.float32(1.0 - rate) if dtype_of(x) == np.float32 else 1.0 - rate
    keep = random.bernoulli(key, keep_prob, fnp.shape(x))
    return fnp.where(keep, x / (1.0 - rate), 0.0)


__all__ = ["dropout"]
