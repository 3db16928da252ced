"""Keys and their bit streams (key, split, fold_in, bits: Threefry-2x32), and the argument checks
that every draw shares."""
import math
import operator

import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of, shape as shape_of
from ..ops.checks import check_range
from ..ops.random import threefry2x32
from ..tensor import Tensor

WORD = 1 << 32


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
    return fnp.asarray(np.array([seed >> 32, seed % WORD], dtype=np.uint32), like=like)


PRNGKey = key  # JAX's older name, for porting


def check_key(k, fn):
    if shape_of(k) != (2,) or dtype_of(k) != np.uint32:
        hint = (" (a batch of keys: map over it with vmap)"
                if len(shape_of(k)) > 1 and shape_of(k)[-1] == 2 else "")
        raise TypeError(f"random.{fn}: key must be a uint32 array of shape (2,) made by "
                        f"random.key or random.split, got shape {shape_of(k)} and dtype "
                        f"{dtype_of(k)}{hint}")


def check_shape(shape, fn):
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


def checked(value, fn, *, low, high, what, name, carry=None):
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


def words(k, n):
    """n uint32 words of the stream of key k: Threefry of the counters (0, 0), (0, 1), ...
    (the high counter word 0 keeps bit streams apart from fold_in, which uses 1)."""
    m = -(-n // 2)
    if m >= WORD:
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
    check_key(key, "bits")
    shape, dtype = check_shape(shape, "bits"), np.dtype(dtype)
    n = math.prod(shape)
    if dtype == np.uint64:
        w = fnp.astype(fnp.reshape(words(key, 2 * n), shape + (2,)), np.uint64)
        return w[..., 0] * np.uint64(WORD) + w[..., 1]
    if dtype.kind != "u" or dtype.itemsize > 8:
        raise TypeError(f"random.bits: dtype must be an unsigned integer type, got {dtype}")
    w = fnp.reshape(words(key, n), shape)
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
    check_key(key, "split")
    n = num.__index__() if hasattr(num, "__index__") else -1
    if n < 0:
        raise ValueError(f"random.split: num must be a non-negative int (how many keys), got "
                         f"{num!r}")
    return fnp.reshape(words(key, 2 * n), (n, 2))


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
    check_key(key, "fold_in")
    if isinstance(data, (int, np.integer)):
        data = int(data) % WORD
    elif shape_of(data) != () or dtype_of(data).kind not in "iu":
        raise TypeError(f"random.fold_in: data must be an integer scalar, got shape "
                        f"{shape_of(data)} and dtype {dtype_of(data)}")
    word = fnp.astype(fnp.asarray(data, like=key) if isinstance(data, int) else data, np.uint32)
    return threefry2x32(key, fnp.stack([fnp.ones_like(word), word]))
