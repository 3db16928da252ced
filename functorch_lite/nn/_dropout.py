"""Dropout with an explicit key (functorch_lite.random): the mask is a pure function of the
key, so vmap over split keys gives each example (or ensemble member) its own mask."""
import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of
from .. import random


def dropout(key, x, rate, deterministic=False):
    """Inverted dropout with an explicit random key.

    Zeroes each entry of x with probability `rate` and scales the rest by 1 / (1 - rate), so
    the expectation is unchanged (torch.nn.functional.dropout with p=rate, training=not
    deterministic; the key comes first, as in JAX code). The mask depends only on the key:
    the same key gives the same mask, and vmap over ft.random.split keys gives each example
    its own. `deterministic=True` (evaluation) or rate=0 returns x unchanged; rate=1 gives
    zeros. The mask is a constant to the transforms: the gradient is the mask scaled by
    1 / (1 - rate).

    Args:
        key: a key from functorch_lite.random (ft.random.key, ft.random.split).
        x: a floating array of any shape; float32 draws float32 uniforms.
        rate: the drop probability, in [0, 1].
        deterministic: skip dropout (evaluation mode).

    Returns:
        An array of x's shape.

    Raises:
        ValueError: rate outside [0, 1].

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> x = np.ones((2, 5))
        >>> y = ft.nn.dropout(ft.random.key(0), x, 0.5)
        >>> y.shape, bool(np.all((y == 0) | (y == 2)))
        ((2, 5), True)
        >>> bool(np.array_equal(y, ft.nn.dropout(ft.random.key(0), x, 0.5)))
        True
        >>> ft.nn.dropout(ft.random.key(0), x, 0.5, deterministic=True) is x
        True
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1], got {rate}")
    if deterministic or rate == 0.0:
        return x
    if rate == 1.0:
        return fnp.zeros_like(x)
    # float32 data draws float32 uniforms: half the random words of float64.
    keep_prob = np.float32(1.0 - rate) if dtype_of(x) == np.float32 else 1.0 - rate
    key = fnp.asarray(key, like=x)      # a host key draws on x's device (two words move)
    keep = random.bernoulli(key, keep_prob, fnp.shape(x))
    return fnp.where(keep, x / (1.0 - rate), 0.0)


__all__ = ["dropout"]
