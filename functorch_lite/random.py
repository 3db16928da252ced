"""Random numbers with explicit keys (JAX's model): no hidden state, so every transform sees
the same draws for the same key.

A key is a plain uint32 array of shape (2,): `key(seed)` makes one, `split(key, n)` makes n new
independent ones, `fold_in(key, i)` derives one from an integer. Every draw is a pure function
of its key: the same key gives the same numbers, on NumPy and on CuPy alike. Draws come from the
Threefry-2x32 counter-based generator (ops/random.py).

Under vmap, a batched key (`vmap(f)(split(key, B))`) gives each example its own draws, all in
one kernel call; an unbatched key (closed over, or `in_dims=None`) gives every example the SAME
draws, as in JAX. Random values are constants to grad and jvp: no derivative flows into a key.
Values drawn from parameters follow ordinary calculus where JAX's do (`sigma * normal(k)`, the
bounds of `uniform`); draws decided by comparisons (`bernoulli(k, p)`, `randint`,
`categorical`) have no derivative with respect to their parameters.
"""
import math
import operator

import numpy as np

from . import _normal_tails as tails
from . import numpy as fnp
from .numpy._util import dtype_of, normalize_axis, shape as shape_of
from .ops.checks import check_range
from .ops.elementwise import stop_gradient
from .ops.random import threefry2x32
from .tensor import Tensor

_WORD = 1 << 32


def key(seed, *, like=None):
    """A new key from an integer seed (a uint32 array of shape (2,): the seed's high and low
    32-bit words). `like=cupy_array` makes the key on the GPU.

    Keys are plain arrays: store them, pass them through transforms, split them, but never
    reuse one for two draws that should be independent.

    Args:
        seed: a Python or NumPy integer (negative seeds count as their 64-bit two's complement).
        like: an array whose array module (NumPy or CuPy) the key is made with.

    Returns:
        A uint32 array of shape (2,).

    Raises:
        TypeError: `seed` is not an integer (derive keys for an array of seeds with fold_in).

    Examples:
        >>> import functorch_lite.random as random
        >>> random.key(1).tolist()
        [0, 1]
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"random.key: seed must be a Python or NumPy integer, got "
                        f"{type(seed).__name__} (for an array or batch of seeds, derive keys "
                        f"with random.fold_in(random.key(0), seed))")
    seed = int(seed) % (1 << 64)  # negative seeds as their two's complement, as JAX
    return fnp.asarray(np.array([seed >> 32, seed % _WORD], dtype=np.uint32), like=like)


PRNGKey = key  # JAX's older name, for porting


def _check_key(k, fn):
    if shape_of(k) != (2,) or dtype_of(k) != np.uint32:
        hint = (" (a batch of keys: map over it with vmap)"
                if len(shape_of(k)) > 1 and shape_of(k)[-1] == 2 else "")
        raise TypeError(f"random.{fn}: key must be a uint32 array of shape (2,) made by "
                        f"random.key or random.split, got shape {shape_of(k)} and dtype "
                        f"{dtype_of(k)}{hint}")


def _shape(shape, fn):
    """shape as a tuple of ints, refused as NumPy's Generator refuses it: a non-integer entry
    (2.5 is not truncated) is a TypeError, a negative one a ValueError. A value of a transform
    is converted first, so that its transform's own refusal (ft.jit's names static_argnums)
    is the error."""
    for s in shape if isinstance(shape, tuple) else (shape,):
        if isinstance(s, Tensor) and s.ndim == 0:
            operator.index(s)
    try:
        shape = (operator.index(shape),) if not hasattr(shape, "__iter__") else \
            tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"random.{fn}: shape must be a tuple of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"random.{fn}: negative dimensions are not allowed, got shape {shape}")
    return shape


def _checked(value, fn, *, low, high, what, name, carry=None):
    """value, refused with ValueError(`random.fn: what (got name = ...)`) unless every entry
    lies in [low, high]: at once for a Python or NumPy scalar, by the check_range primitive
    for an array, so that a bad value is caught under every transform and under jit (returning
    `carry` instead of value keeps a check whose value is not used further in the program)."""
    if isinstance(value, (int, float, np.generic)) and not isinstance(value, Tensor):
        if not low <= value <= high:   # NaN fails too
            raise ValueError(f"random.{fn}: {what} (got {name} = {value})")
        return value if carry is None else carry
    extra = () if carry is None else (carry,)
    return check_range(value, *extra, low=low, high=high,
                       message=f"random.{fn}: {what} (got {name} = {{value}})")


def _words(k, n):
    """n uint32 words of the stream of key k: Threefry of the counters (0, 0), (0, 1), ...
    (the high counter word 0 keeps bit streams apart from fold_in, which uses 1)."""
    m = -(-n // 2)
    if m >= _WORD:
        raise ValueError(f"random: {n} words exceed one key's stream; split the key")
    counts = fnp.stack([fnp.zeros(m, dtype=np.uint32, like=k),
                        fnp.arange(m, dtype=np.uint32, like=k)], axis=-1)
    words = fnp.reshape(threefry2x32(k, counts), (2 * m,))
    return words if n == 2 * m else words[:n]


def bits(key, shape=(), dtype=np.uint32):
    """Uniformly random unsigned integers (uint8/16/32/64) of `shape`.

    The raw Threefry stream of `key`: uint32 draws are its words, uint64 join two words, and
    uint8/uint16 keep each word's high bits. Not differentiable (integers).

    Args:
        key: one key.
        shape: a tuple of ints (or one int).
        dtype: uint8, uint16, uint32 (the default) or uint64.

    Returns:
        An array of `shape` and `dtype`.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or `dtype` is not an unsigned integer type.

    Examples:
        >>> import numpy as np, functorch_lite.random as random
        >>> b = random.bits(random.key(0), (2, 3), np.uint8)
        >>> b.shape, b.dtype
        ((2, 3), dtype('uint8'))
    """
    _check_key(key, "bits")
    shape, dtype = _shape(shape, "bits"), np.dtype(dtype)
    n = math.prod(shape)
    if dtype == np.uint64:
        w = fnp.astype(fnp.reshape(_words(key, 2 * n), shape + (2,)), np.uint64)
        return w[..., 0] * np.uint64(_WORD) + w[..., 1]
    if dtype.kind != "u" or dtype.itemsize > 8:
        raise TypeError(f"random.bits: dtype must be an unsigned integer type, got {dtype}")
    w = fnp.reshape(_words(key, n), shape)
    if dtype.itemsize < 4:  # keep the high bits
        w = fnp.floor_divide(w, np.uint32(1 << (32 - 8 * dtype.itemsize)))
    return fnp.astype(w, dtype)


def split(key, num=2):
    """`num` new keys, independent of each other and of `key`: an array of shape (num, 2).

    Use one of them for the next draw and keep another to split again; `key` itself should not
    be used after it was split.

    Args:
        key: one key (from key, split or fold_in).
        num: how many keys to make.

    Returns:
        A uint32 array of shape (num, 2): row i is a key.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        ValueError: num is negative or not an int.

    Examples:
        >>> import functorch_lite.random as random
        >>> random.split(random.key(0), 3).shape
        (3, 2)
    """
    _check_key(key, "split")
    n = num.__index__() if hasattr(num, "__index__") else -1
    if n < 0:
        raise ValueError(f"random.split: num must be a non-negative int (how many keys), got "
                         f"{num!r}")
    return fnp.reshape(_words(key, 2 * n), (n, 2))


def fold_in(key, data):
    """A new key derived from `key` and an integer (or 0-d integer array) `data`: different
    data give independent keys, so `fold_in(key, step)` numbers a stream per step.

    Args:
        key: one key.
        data: a Python or NumPy integer, or a 0-d integer array (taken modulo 2**32).

    Returns:
        A new key, a uint32 array of shape (2,).

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `data` is not an integer scalar.

    Examples:
        >>> import functorch_lite.random as random
        >>> k = random.key(0)
        >>> bool((random.fold_in(k, 1) != random.fold_in(k, 2)).any())
        True
    """
    _check_key(key, "fold_in")
    if isinstance(data, (int, np.integer)):
        data = int(data) % _WORD
    elif shape_of(data) != () or dtype_of(data).kind not in "iu":
        raise TypeError(f"random.fold_in: data must be an integer scalar, got shape "
                        f"{shape_of(data)} and dtype {dtype_of(data)}")
    word = fnp.astype(fnp.asarray(data, like=key) if isinstance(data, int) else data, np.uint32)
    return threefry2x32(key, fnp.stack([fnp.ones_like(word), word]))


def _unit_uniform(key, shape, dtype, fn, open_interval=False):
    """Uniform floats in [0, 1) with a full mantissa: 53 random bits for float64 (from two
    words), 24 for float32. open_interval=True: in (0, 1) instead, the midpoints
    (k + 1/2) 2^-52 (2^-23 for float32) of one bit fewer, symmetric and exact."""
    dtype = np.dtype(dtype)
    half = 0.5 if open_interval else 0.0
    if dtype == np.float64:
        w = fnp.reshape(_words(key, 2 * math.prod(shape)), (2,) + shape)
        hi = fnp.astype(fnp.floor_divide(w[0], np.uint32(32)), np.float64)   # 27 bits
        lo_bits = 25 if open_interval else 26
        lo = fnp.astype(fnp.floor_divide(w[1], np.uint32(1 << (32 - lo_bits))), np.float64)
        return (hi * float(1 << lo_bits) + lo + half) * 2.0 ** -(27 + lo_bits)
    if dtype == np.float32:
        bits = 23 if open_interval else 24
        w = fnp.reshape(_words(key, math.prod(shape)), shape)
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
    _check_key(key, "uniform")
    shape = _shape(shape, "uniform")
    u = _unit_uniform(key, shape, dtype, "uniform")
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
    _check_key(key, "normal")
    shape = _shape(shape, "normal")
    u = _unit_uniform(key, (2,) + shape, dtype, "normal")
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
    _check_key(key, "truncated_normal")
    if shape is None:
        shape = fnp.broadcast_shapes(shape_of(lower), shape_of(upper))
    shape = _shape(shape, "truncated_normal")
    dtype = np.dtype(dtype)
    u = _unit_uniform(key, shape, dtype, "truncated_normal", open_interval=True)
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
    log_q = _checked(b0 - a0, "truncated_normal", low=0, high=math.inf, carry=log_q,
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


def bernoulli(key, p=0.5, shape=None):
    """Booleans, True with probability p.

    A uniform draw compared with p, so there is no derivative with respect to p. The uniform
    is float32 when p is, float64 otherwise.

    Args:
        key: one key.
        p: probability of True (scalar or array broadcasting to `shape`).
        shape: a tuple of ints; None (the default) means p's shape.

    Returns:
        A bool array of `shape`.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints.
        ValueError: `shape` has a negative dimension, or p is outside [0, 1] or NaN (as
            NumPy's Generator.binomial).

    Examples:
        >>> import functorch_lite.random as random
        >>> b = random.bernoulli(random.key(0), 0.3, (10000,))
        >>> b.dtype, bool(abs(b.mean() - 0.3) < 0.02)
        (dtype('bool'), True)
    """
    _check_key(key, "bernoulli")
    shape = _shape(shape_of(p) if shape is None else shape, "bernoulli")
    dtype = np.float32 if dtype_of(p) == np.float32 else np.float64
    p = _checked(p, "bernoulli", low=0, high=1, what="p must be a probability in [0, 1]",
                 name="p")
    return fnp.less(_unit_uniform(key, shape, dtype, "bernoulli"), p)


def randint(key, shape, minval, maxval, dtype=np.int64):
    """Integers uniform in [minval, maxval).

    The 53-bit uniform behind each draw keeps the bias below range / 2**53. Not
    differentiable (integers).

    Args:
        key: one key.
        shape: a tuple of ints (or one int).
        minval: lowest value (int or integer array broadcasting to `shape`).
        maxval: one past the highest value (int or integer array broadcasting to `shape`).
        dtype: the integer dtype of the result (int64 by default).

    Returns:
        An array of `shape` and `dtype`.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, `dtype` is not an integer type, or a bound
            is not an integer.
        ValueError: `shape` has a negative dimension, minval >= maxval, or a bound is out of
            `dtype`'s range (NumPy's Generator.integers refuses the same).

    Examples:
        >>> import functorch_lite.random as random
        >>> r = random.randint(random.key(0), (1000,), 0, 10)
        >>> r.dtype, int(r.min()), int(r.max())
        (dtype('int64'), 0, 9)
    """
    _check_key(key, "randint")
    shape = _shape(shape, "randint")
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"random.randint: dtype must be an integer type, got {dtype}")
    for name, bound in (("minval", minval), ("maxval", maxval)):
        if dtype_of(bound).kind not in "biu":
            raise TypeError(f"random.randint: {name} must be an integer or an integer array, "
                            f"got dtype {dtype_of(bound)}")
    info = np.iinfo(dtype)
    # the bounds within the dtype (maxval is exclusive: one past its largest value), checked
    # only where the bound's own type can leave that range
    if not _within(dtype_of(minval), info.min, info.max) or isinstance(minval, int):
        minval = _checked(minval, "randint", low=info.min, high=info.max, name="minval",
                          what=f"minval is out of bounds for {dtype} ({info.min}..{info.max})")
    if not _within(dtype_of(maxval), info.min + 1, info.max + 1) or isinstance(maxval, int):
        maxval = _checked(maxval, "randint", low=info.min + 1, high=info.max + 1,
                          name="maxval", what=f"maxval is out of bounds for {dtype} "
                                               f"({info.min + 1}..{info.max + 1}, exclusive)")
    span = _checked(maxval - minval, "randint", low=1, high=math.inf,
                    what="minval must be less than maxval", name="maxval - minval")
    u = _unit_uniform(key, shape, np.float64, "randint")
    return fnp.astype(fnp.floor(u * span) + minval, dtype)


def _within(dtype, low, high):
    """Whether every value of an integer (or bool) dtype lies in [low, high]."""
    info = np.iinfo(dtype) if dtype.kind != "b" else np.iinfo(np.uint8)
    return dtype.kind != "b" and low <= info.min and info.max <= high or \
        dtype.kind == "b" and low <= 0 and 1 <= high


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
    _check_key(key, "gumbel")
    shape = _shape(shape, "gumbel")
    u = uniform(key, shape, dtype, minval=float(np.finfo(dtype).tiny), maxval=1.0)
    return -fnp.log(-fnp.log(u))


def categorical(key, logits, axis=-1, shape=None):
    """Class indices drawn with probabilities softmax(logits) along `axis`.

    The Gumbel-max trick: argmax of logits plus Gumbel noise. Not differentiable in the logits
    (indices). `shape` defaults to the logits' shape without `axis`; a longer shape draws
    several samples per distribution (its trailing dims must match that batch shape).

    Args:
        key: one key.
        logits: unnormalised log-probabilities; `axis` indexes the classes.
        axis: the class axis (negative counts from the end).
        shape: a tuple of ints ending with the logits' batch shape, or None.

    Returns:
        An integer array of `shape`: class indices in [0, logits.shape[axis]).

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints.
        ValueError: `shape` does not end with the logits' shape without `axis`.
        numpy.exceptions.AxisError: `axis` is out of range (a ValueError, as NumPy's).

    Examples:
        >>> import numpy as np, functorch_lite.random as random
        >>> k = random.key(0)
        >>> random.categorical(k, np.zeros((4, 3))).shape       # one draw per row
        (4,)
        >>> random.categorical(k, np.zeros((4, 3)), shape=(7, 4)).shape
        (7, 4)
        >>> random.categorical(k, np.array([-1e9, 0.0, -1e9]), shape=(3,)).tolist()
        [1, 1, 1]
    """
    _check_key(key, "categorical")
    lshape = shape_of(logits)
    axis = normalize_axis(axis, len(lshape), "random.categorical: axis")
    batch = lshape[:axis] + lshape[axis + 1:]
    shape = batch if shape is None else _shape(shape, "categorical")
    if shape[len(shape) - len(batch):] != batch:
        raise ValueError(f"random.categorical: shape {shape} must end with the logits' batch "
                         f"shape {batch}")
    prefix = shape[:len(shape) - len(batch)]
    noise_shape = prefix + lshape
    logits = fnp.reshape(logits, (1,) * len(prefix) + lshape)
    dtype = np.float32 if dtype_of(logits) == np.float32 else np.float64
    return fnp.argmax(logits + gumbel(key, noise_shape, dtype), axis=len(prefix) + axis)


def permutation(key, x, axis=0):
    """A random permutation of range(x) (x an int), or of x's entries along `axis`.

    Every order is equally likely (argsort of uniform floats). The permuted array is
    differentiable in x (a gather).

    Args:
        key: one key.
        x: an int n (permute range(n)), also as a 0-d integer array, or an array.
        axis: the axis of x to shuffle.

    Returns:
        An int64 array of shape (n,), or an array of x's shape.

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).

    Examples:
        >>> import numpy as np, functorch_lite.random as random
        >>> sorted(random.permutation(random.key(0), 5).tolist())
        [0, 1, 2, 3, 4]
        >>> random.permutation(random.key(0), np.arange(6).reshape(3, 2)).shape
        (3, 2)
    """
    _check_key(key, "permutation")
    if not isinstance(x, (int, np.integer)) and shape_of(x) == ():  # a 0-d array (as JAX)
        if dtype_of(x).kind not in "iu":
            raise TypeError(f"random.permutation: x must be an int or an array with at least "
                            f"one axis, got a 0-d array of dtype {dtype_of(x)}")
        x = int(x)
    if isinstance(x, (int, np.integer)):
        return fnp.argsort(_unit_uniform(key, (int(x),), np.float64, "permutation"), kind="stable")
    n = shape_of(x)[axis]
    return fnp.take(x, permutation(key, n), axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Entries of `a` (an int n means range(n)) drawn along `axis`, with or without replacement,
    uniformly or with probabilities `p`.

    With replacement, draws are randint (uniform) or categorical (with p); without, the first
    entries of a permutation (uniform) or the top k of log p plus Gumbel noise (with p).

    Args:
        key: one key.
        a: an int n (choose from range(n)) or an array to choose from along `axis`.
        shape: a tuple of ints: the shape of the draws.
        replace: draw with replacement (default) or without.
        p: probabilities of the n entries, or None for uniform; any non-negative weights
            with a positive sum (normalised to sum 1, where NumPy wants the sum 1 itself).
        axis: the axis of `a` to choose along.

    Returns:
        Indices of `shape` when `a` is an int, else an array of shape
        a.shape[:axis] + shape + a.shape[axis+1:].

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or p is not real.
        ValueError: more samples than entries are asked for without replacement; a is not
            positive (an int) or has no entries along axis (an array), unless shape is empty;
            p is not 1-d with one entry per entry of a, has a negative, infinite or NaN entry,
            is all zeros, or (without replacement) has fewer nonzero entries than samples
            (NumPy's Generator.choice refuses the same); `shape` has a negative dimension.

    Examples:
        >>> import numpy as np, functorch_lite.random as random
        >>> k = random.key(0)
        >>> sorted(set(random.choice(k, 5, (5,), replace=False).tolist()))
        [0, 1, 2, 3, 4]
        >>> random.choice(k, np.arange(10.0), (2, 3)).shape
        (2, 3)
        >>> random.choice(k, 3, (4,), p=np.array([1e-12, 1e-12, 1.0])).tolist()
        [2, 2, 2, 2]
    """
    _check_key(key, "choice")
    shape = _shape(shape, "choice")
    k = math.prod(shape)
    if isinstance(a, (int, np.integer)):
        n = int(a)
        if n <= 0 and k > 0:
            raise ValueError(f"random.choice: a must be a positive integer unless no samples "
                             f"are taken, got {n}")
    else:
        a_shape = shape_of(a)
        if not -len(a_shape) <= axis < len(a_shape):
            raise ValueError(f"random.choice: axis {axis} is out of range for a of shape "
                             f"{a_shape}")
        n = a_shape[axis]
        if n == 0 and k > 0:
            raise ValueError(f"random.choice: a has no entries along axis {axis} to choose "
                             f"from (shape {a_shape}) unless no samples are taken")
    if not replace and k > n:
        raise ValueError(f"random.choice: cannot take {k} samples from {n} entries "
                         f"without replacement")
    if p is not None:
        logits = _choice_logits(p, n, k, replace)
    if k == 0:     # nothing to draw (from a possibly empty a)
        idx = fnp.zeros(shape, dtype=np.int64, like=key)
    elif replace:
        idx = randint(key, shape, 0, n) if p is None else categorical(key, logits, shape=shape)
    else:
        if p is None:
            idx = permutation(key, n)[:k]
        else:  # Gumbel top-k: the k largest of log p + Gumbel noise
            idx = fnp.argsort(-(logits + gumbel(key, (n,), dtype_of(logits))), kind="stable")[:k]
        idx = fnp.reshape(idx, shape)
    return idx if isinstance(a, (int, np.integer)) else fnp.take(a, idx, axis=axis)


def _choice_logits(p, n, k, replace):
    """log(p / sum(p)), with p refused as NumPy's Generator.choice refuses it: not one entry per
    choice, an entry negative, infinite or NaN, all zeros, or (without replacement) fewer
    nonzero entries than samples."""
    if shape_of(p) != (n,):
        raise ValueError(f"random.choice: p must be 1-d with one probability per entry of a "
                         f"({n}), got shape {shape_of(p)}")
    if dtype_of(p).kind not in "fiub":
        raise TypeError(f"random.choice: p must be real probabilities, got dtype {dtype_of(p)}")
    p = _checked(p, "choice", low=0, high=np.finfo(np.float64).max, name="an entry of p",
                 what="p must be finite and non-negative")
    total = _checked(fnp.sum(p), "choice", low=np.nextafter(0.0, 1.0), high=math.inf,
                     what="p must not be all zeros", name="sum(p)")
    if not replace:   # the Gumbel top-k would take zero-probability entries
        total = _checked(fnp.sum(fnp.greater(p, 0)), "choice", low=k, high=math.inf,
                         what=f"p has fewer nonzero entries than the {k} samples taken "
                              f"without replacement", name="nonzero entries", carry=total)
    return fnp.log(p) - fnp.log(total)


__all__ = ["key", "PRNGKey", "split", "fold_in", "bits", "uniform", "normal", "truncated_normal",
           "bernoulli", "randint", "gumbel", "categorical", "permutation", "choice"]
