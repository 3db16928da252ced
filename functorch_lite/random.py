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

import numpy as np

from . import numpy as fnp
from .numpy._util import dtype_of, shape as shape_of
from .ops.random import threefry2x32

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


def _check_key(k, fn):
    if shape_of(k) != (2,) or dtype_of(k) != np.uint32:
        hint = (" (a batch of keys: map over it with vmap)"
                if len(shape_of(k)) > 1 and shape_of(k)[-1] == 2 else "")
        raise TypeError(f"random.{fn}: key must be a uint32 array of shape (2,) made by "
                        f"random.key or random.split, got shape {shape_of(k)} and dtype "
                        f"{dtype_of(k)}{hint}")


def _shape(shape, fn):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"random.{fn}: shape must be a tuple of ints, got {shape!r}") from None


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


def _unit_uniform(key, shape, dtype, fn):
    """Uniform floats in [0, 1) with a full mantissa: 53 random bits for float64 (from two
    words), 24 for float32."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = fnp.reshape(_words(key, 2 * math.prod(shape)), (2,) + shape)
        hi = fnp.astype(fnp.floor_divide(w[0], np.uint32(32)), np.float64)   # 27 bits
        lo = fnp.astype(fnp.floor_divide(w[1], np.uint32(64)), np.float64)   # 26 bits
        return (hi * 67108864.0 + lo) * 2.0 ** -53
    if dtype == np.float32:
        w = fnp.reshape(_words(key, math.prod(shape)), shape)
        return fnp.astype(fnp.floor_divide(w, np.uint32(256)), np.float32) * np.float32(2 ** -24)
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
    radius = fnp.sqrt(-2.0 * fnp.log1p(-u[0]))   # 1 - u in (0, 1]: log never sees 0
    return radius * fnp.cos((2 * math.pi) * u[1])


# Abramowitz and Stegun 7.1.26: |error| < 1.5e-7 for x >= 0.
_AS_P = 0.3275911
_AS_COEFFS = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single precision.
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coeffs, t):
    out = coeffs[0]
    for c in coeffs[1:]:
        out = out * t + c
    return out


def _erf(x):
    ax = fnp.abs(x)
    t = 1.0 / (1.0 + _AS_P * ax)
    y = 1.0 - _horner(_AS_COEFFS, t) * t * fnp.exp(-ax * ax)
    return fnp.where(fnp.less(x, 0), -y, y)


def _erfinv(y):
    w = -fnp.log1p(-y * y)
    central = _horner(_GILES_CENTRAL, w - 2.5)
    tail = _horner(_GILES_TAIL, fnp.sqrt(fnp.maximum(w, 5.0)) - 3.0)
    return fnp.where(fnp.less(w, 5.0), central, tail) * y


def truncated_normal(key, lower, upper, shape=None, dtype=np.float64):
    """Standard normal floats conditioned on [lower, upper].

    Drawn by the inverse-CDF method; the erf and erfinv approximations inside are accurate to
    about 1e-7 (float32 precision), and the result is clipped to the bounds. The bounds may be
    arrays and are differentiable (the draw moves with them, as the inverse CDF says).

    Args:
        key: one key.
        lower: lower bound (scalar or array).
        upper: upper bound (scalar or array).
        shape: a tuple of ints; None (the default) means the broadcast shape of the bounds.
        dtype: float32 or float64.

    Returns:
        An array of `shape` and `dtype` with entries in [lower, upper].

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints, or `dtype` is not float32 or float64.

    Examples:
        >>> import functorch_lite.random as random
        >>> t = random.truncated_normal(random.key(0), -1.0, 2.0, (1000,))
        >>> bool(t.min() >= -1.0 and t.max() <= 2.0)
        True
    """
    _check_key(key, "truncated_normal")
    if shape is None:
        shape = fnp.broadcast_shapes(shape_of(lower), shape_of(upper))
    shape = _shape(shape, "truncated_normal")
    root2 = math.sqrt(2.0)
    # scalar bounds as 0-d arrays of the draw's dtype on the key's device: _erf's where gives
    # an array, which must neither sit on the host nor promote a float32 draw
    a, b = (_erf((fnp.asarray(v, dtype, like=key) if isinstance(v, (int, float, np.generic))
                  else v) / root2) for v in (lower, upper))
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    return fnp.clip(root2 * _erfinv(u), lower, upper)


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

    Examples:
        >>> import functorch_lite.random as random
        >>> b = random.bernoulli(random.key(0), 0.3, (10000,))
        >>> b.dtype, bool(abs(b.mean() - 0.3) < 0.02)
        (dtype('bool'), True)
    """
    _check_key(key, "bernoulli")
    shape = _shape(shape_of(p) if shape is None else shape, "bernoulli")
    dtype = np.float32 if dtype_of(p) == np.float32 else np.float64
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
        TypeError: `shape` is not a tuple of ints.

    Examples:
        >>> import functorch_lite.random as random
        >>> r = random.randint(random.key(0), (1000,), 0, 10)
        >>> r.dtype, int(r.min()), int(r.max())
        (dtype('int64'), 0, 9)
    """
    _check_key(key, "randint")
    shape = _shape(shape, "randint")
    u = _unit_uniform(key, shape, np.float64, "randint")
    return fnp.astype(fnp.floor(u * (maxval - minval)) + minval, dtype)


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
    axis = axis % len(lshape)
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
        return fnp.argsort(_unit_uniform(key, (int(x),), np.float64, "permutation"))
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
        p: probabilities of the n entries (normalised to sum 1), or None for uniform.
        axis: the axis of `a` to choose along.

    Returns:
        Indices of `shape` when `a` is an int, else an array of shape
        a.shape[:axis] + shape + a.shape[axis+1:].

    Raises:
        TypeError: `key` is not one key (a uint32 array of shape (2,); a batch of keys is
            mapped over with vmap).
        TypeError: `shape` is not a tuple of ints.
        ValueError: more samples than entries are asked for without replacement.

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
    n = int(a) if isinstance(a, (int, np.integer)) else shape_of(a)[axis]
    k = math.prod(shape)
    if replace:
        if p is None:
            idx = randint(key, shape, 0, n)
        else:
            idx = categorical(key, fnp.log(p), shape=shape)
    else:
        if k > n:
            raise ValueError(f"random.choice: cannot take {k} samples from {n} entries "
                             f"without replacement")
        if p is None:
            idx = permutation(key, n)[:k]
        else:  # Gumbel top-k: the k largest of log p + Gumbel noise
            idx = fnp.argsort(-(fnp.log(p) + gumbel(key, (n,))))[:k]
        idx = fnp.reshape(idx, shape)
    return idx if isinstance(a, (int, np.integer)) else fnp.take(a, idx, axis=axis)


__all__ = ["key", "split", "fold_in", "bits", "uniform", "normal", "truncated_normal",
           "bernoulli", "randint", "gumbel", "categorical", "permutation", "choice"]
