"""vjp rules of the pooling ops. pool_sum's adjoint spreads each window's cotangent over the
window (sliding_window_sum of the broadcast cotangent); a max pool's cotangent goes to each
window's first argmax (scatter), and select and scatter are each other's adjoints."""
from .. import numpy as fnp
from ..ops import conv as cv, pool as pl
from .vjp_helpers import defvjp, shape_of


def _pool_sum_vjp(g, out, x, axes, window, stride, dilation):
    s = shape_of(g)
    spread = fnp.broadcast_to(fnp.reshape(g, s + (1,) * len(window)), s + tuple(window))
    return cv.sliding_window_sum(spread, shape=shape_of(x), axes=axes, window=window,
                                 stride=stride, dilation=dilation)


defvjp(pl.pool_sum, _pool_sum_vjp)
defvjp(pl.pool_max, lambda g, out, x, **p: pl.pool_max_scatter(x, g, **p))
defvjp(pl.pool_max_select, None, lambda g, out, x, u, **p: pl.pool_max_scatter(x, g, **p))
defvjp(pl.pool_max_scatter, None, lambda g, out, x, v, **p: pl.pool_max_select(x, g, **p))
