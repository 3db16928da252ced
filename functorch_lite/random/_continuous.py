"""Draws of real numbers: uniform, normal, truncated_normal and gumbel, from uniform bits by
their inverse transforms."""
import math

import numpy as np

from .. import _normal_tails as tails
from .. import numpy as fnp
from ..numpy._util import dtype_of, shape as shape_of
from ..ops.elementwise import stop_gradient
from ..tensor import Tensor

from ._keys import check_key, check_shape, checked, words


def unit_uniform(key, shape, dtype, fn, open_interval=False):
    """Uniform floats in [0, 1) with a full mantissa: 53 random bits for float64 (from two
    words), 24 for float32. open_interval=True: in (0, 1) instead, the midpoints
    (k + 1/2) 2^-52 (2^-23 for float32) of one bit fewer, symmetric and exact."""
    dtype = np.dtype(dtype)
    half = 0.5 if open_interval else 0.0
    if dtype == np.float64:
        w = fnp.reshape(words(key, 2 * math.prod(shape)), (2,) + shape)
        hi = fnp.astype(fnp.floor_divide(w[0], np.uint32(32)), np.float64)   # 27 bits
        lo_bits = 25 if open_interval else 26
        lo = fnp.astype(fnp.floor_divide(w[1], np.uint32(1 << (32 - lo_bits))), np.float64)
        return (hi * float(1 << lo_bits) + lo + half) * 2.0 ** -(27 + lo_bits)
    if dtype == np.float32:
        bits = 23 if open_interval else 24
        w = fnp.reshape(words(key, math.prod(shape)), shape)
        k = fnp.astype(fnp.floor_divide(w, np.uint32(1 << (32 - bits))), np.float32)
        return (k + np.float32(half)) * np.float32(2.0 ** -bits) if open_interval else \
            k * np.float32(2.0 ** -bits)
    raise TypeError(f"random.{fn}: dtype must be float32 or float64, got {dtype}")


def uniform(key, shape=(), dtype=np.float64, minval=0.0, maxval=1.0):
    """Uniform floats in [minval, maxval) of `shape` (minval and maxval broadcast to it, and are
    differentiable).

    Args:
        key: one key.
        shape: a tuple of ints (or one int).
        dtype: float32 or float64.
        minval: lower bound (scalar or array broadcasting to `shape`).
        maxval: upper bound, exclusive (scalar or array broadcasting to `shape`).

    Returns:
        An array of `shape` and `dtype`.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or `dtype` is not float32 or float64.

    Examples:
        >>> import functorch_lite.random as random
        >>> u = random.uniform(random.key(0), (1000,), minval=-1.0, maxval=1.0)
        >>> bool(u.min() >= -1.0 and u.max() < 1.0)
        True
    """
    check_key(key, "uniform")
    shape = check_shape(shape, "uniform")
    u = unit_uniform(key, shape, dtype, "uniform")
    if isinstance(minval, float) and isinstance(maxval, float) and (minval, maxval) == (0., 1.):
        return u
    return fnp.maximum(minval, u * (maxval - minval) + minval)


def normal(key, shape=(), dtype=np.float64):
    """Standard normal floats of `shape` (Box-Muller transform of two uniforms).

    The transform calls log1p and cos, which a GPU's libm rounds its own way (an ulp from
    NumPy's here and there). So it runs in float64 and float32 draws are rounded from it: the
    same bits on every backend (but where a float64 result lies within an ulp of a float32
    rounding boundary, about one draw in 10^8); float64 draws agree within two ulp.

    Scale and shift the result for other means and deviations (`mu + sigma * normal(k)`): the
    draw is a constant to grad, so derivatives in mu and sigma follow.

    Args:
        key: one key.
        shape: a tuple of ints (or one int).
        dtype: float32 or float64.

    Returns:
        An array of `shape` and `dtype`.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or `dtype` is not float32 or float64.

    Examples:
        >>> import numpy as np, functorch_lite as ft, functorch_lite.random as random
        >>> keys = random.split(random.key(0), 4)        # one key per example: different draws
        >>> ft.vmap(lambda k: random.normal(k, (3,)))(keys).shape
        (4, 3)
    """
    check_key(key, "normal")
    shape = check_shape(shape, "normal")
    u = unit_uniform(key, (2,) + shape, dtype, "normal")
    narrow = np.dtype(dtype) == np.float32
    if narrow:
        u = fnp.astype(u, np.float64)
    radius = fnp.sqrt(-2.0 * fnp.log1p(-u[0]))   # 1 - u in (0, 1]: log never sees 0
    z = radius * fnp.cos((2 * math.pi) * u[1])
    return fnp.astype(z, np.float32) if narrow else z


def truncated_normal(key, lower, upper, shape=None, dtype=np.float64):
    """Standard normal floats conditioned on [lower, upper].

    Drawn by the inverse-CDF method in log space, so it stays exact far in the tails (on
    [8, 9], [20, 21] or [-40, -39], where 1 - Phi rounds to 0): the draw x solves
    Q(x) = (1 - u) Q(a) + u Q(b) for a uniform u, with Q(x) = P(Z > x) taken on the side of
    the interval's midpoint where it is small, in log space through a Chebyshev series of the
    Mills ratio (no SciPy), and inverted by Newton's method. The bounds may be arrays and are
    differentiable: the draw moves with them as the inverse CDF says,
    dx/da = (1 - u) phi(a) / phi(x) and dx/db = u phi(b) / phi(x).

    Args:
        key: one key.
        lower: lower bound (scalar or array; -inf allowed).
        upper: upper bound (scalar or array; inf allowed).
        shape: a tuple of ints; None (the default) means the broadcast shape of the bounds.
        dtype: float32 or float64 (the arithmetic is done in it).

    Returns:
        An array of `shape` and `dtype` with entries in [lower, upper].

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or `dtype` is not float32 or float64.
        ValueError: `shape` has a negative dimension, or lower > upper (or a bound is NaN).

    Examples:
        >>> import numpy as np, functorch_lite.random as random
        >>> t = random.truncated_normal(random.key(0), -1.0, 2.0, (1000,))
        >>> bool(t.min() >= -1.0 and t.max() <= 2.0)
        True
        >>> far = random.truncated_normal(random.key(0), 8.0, 9.0, (1000,))
        >>> bool(8.0 < far.min() and far.mean() < 8.2)     # mean 8.12, not a pile at 8
        True
    """
    check_key(key, "truncated_normal")
    if shape is None:
        shape = fnp.broadcast_shapes(shape_of(lower), shape_of(upper))
    shape = check_shape(shape, "truncated_normal")
    dtype = np.dtype(dtype)
    u = unit_uniform(key, shape, dtype, "truncated_normal", open_interval=True)
    # the bounds as arrays of the draw's dtype on the key's device (a Python bound must
    # neither sit on the host nor promote a float32 draw)
    lower, upper = (fnp.asarray(v, dtype, like=key) if isinstance(v, (int, float, np.generic))
                    else v if dtype_of(v) == dtype else fnp.astype(v, dtype)
                    for v in (lower, upper))
    # Work on the side of the interval's midpoint that is >= 0 (mirror it otherwise), where
    # Q(x) is the small tail; the draw is computed on constants and given the inverse-CDF
    # derivative afterwards, so no derivative runs through Newton's iterations.
    flip = fnp.less(stop_gradient(upper), -stop_gradient(lower))   # no inf - inf
    a = fnp.where(flip, -upper, lower)
    b = fnp.where(flip, -lower, upper)
    a0, b0 = stop_gradient(a), stop_gradient(b)
    log_qa, log_qb = tails.log_sf(a0), tails.log_sf(b0)          # log Q(a) >= log Q(b)
    log_q = log_qa + fnp.log1p(u * fnp.expm1(log_qb - log_qa))  # log Q(x), x in [a, b]
    log_q = checked(b0 - a0, "truncated_normal", low=0, high=math.inf, carry=log_q,
                     what="lower must not exceed upper (nor be NaN)", name="upper - lower")
    x = fnp.clip(tails.inverse_log_sf(log_q, 2 if dtype == np.float32 else 3), a0, b0)
    if isinstance(a, Tensor):    # a transform follows the bounds: attach dx/da and dx/db
        x = x + _moved_with(a, a0, (1.0 - u) * fnp.exp(0.5 * (x * x - a0 * a0))) \
            + _moved_with(b, b0, u * fnp.exp(0.5 * (x * x - b0 * b0)))
    return fnp.where(flip, -x, x)


def _moved_with(bound, bound0, weight):
    """0 in value, `weight` times the bound's tangent in derivative (an infinite bound, which
    does not move the draw, contributes nothing: inf - inf is kept out)."""
    finite = fnp.isfinite(bound0)
    return weight * (fnp.where(finite, bound, 0) - fnp.where(finite, bound0, 0))


def gumbel(key, shape=(), dtype=np.float64):
    """Standard Gumbel floats of `shape`: -log(-log(u)) for u uniform in (0, 1).

    The lower bound of u is the smallest normal float of `dtype`, so the result is finite.
    argmax(logits + gumbel(...)) samples from softmax(logits) (see categorical).

    Args:
        key: one key.
        shape: a tuple of ints (or one int).
        dtype: float32 or float64.

    Returns:
        An array of `shape` and `dtype`.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or `dtype` is a float type other than
            float32 or float64.
        ValueError: `dtype` is not a float type (NumPy's finfo refuses it).

    Examples:
        >>> import numpy as np, functorch_lite.random as random
        >>> g = random.gumbel(random.key(0), (1000,))
        >>> g.shape, bool(np.isfinite(g).all())
        ((1000,), True)
    """
    check_key(key, "gumbel")
    shape = check_shape(shape, "gumbel")
    u = uniform(key, shape, dtype, minval=float(np.finfo(dtype).tiny), maxval=1.0)
    return -fnp.log(-fnp.log(u))
