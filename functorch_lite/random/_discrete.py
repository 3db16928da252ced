"""Draws decided by comparisons: bernoulli, randint, categorical, permutation, choice."""
import math

import numpy as np

from .. import numpy as fnp
from ..numpy._util import dtype_of, normalize_axis, shape as shape_of
from ._continuous import gumbel, unit_uniform
from ._keys import check_key, check_shape, checked


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
    check_key(key, "bernoulli")
    shape = check_shape(shape_of(p) if shape is None else shape, "bernoulli")
    dtype = np.float32 if dtype_of(p) == np.float32 else np.float64
    p = checked(p, "bernoulli", low=0, high=1, what="p must be a probability in [0, 1]",
                 name="p")
    return fnp.less(unit_uniform(key, shape, dtype, "bernoulli"), p)


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
    check_key(key, "randint")
    shape = check_shape(shape, "randint")
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
        minval = checked(minval, "randint", low=info.min, high=info.max, name="minval",
                          what=f"minval is out of bounds for {dtype} ({info.min}..{info.max})")
    if not _within(dtype_of(maxval), info.min + 1, info.max + 1) or isinstance(maxval, int):
        maxval = checked(maxval, "randint", low=info.min + 1, high=info.max + 1,
                          name="maxval", what=f"maxval is out of bounds for {dtype} "
                                               f"({info.min + 1}..{info.max + 1}, exclusive)")
    span = checked(maxval - minval, "randint", low=1, high=math.inf,
                    what="minval must be less than maxval", name="maxval - minval")
    u = unit_uniform(key, shape, np.float64, "randint")
    return fnp.astype(fnp.floor(u * span) + minval, dtype)


def _within(dtype, low, high):
    """Whether every value of an integer (or bool) dtype lies in [low, high]."""
    info = np.iinfo(dtype) if dtype.kind != "b" else np.iinfo(np.uint8)
    return dtype.kind != "b" and low <= info.min and info.max <= high or \
        dtype.kind == "b" and low <= 0 and 1 <= high


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
    check_key(key, "categorical")
    lshape = shape_of(logits)
    axis = normalize_axis(axis, len(lshape), "random.categorical: axis")
    batch = lshape[:axis] + lshape[axis + 1:]
    shape = batch if shape is None else check_shape(shape, "categorical")
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
    check_key(key, "permutation")
    if not isinstance(x, (int, np.integer)) and shape_of(x) == ():  # a 0-d array (as JAX)
        if dtype_of(x).kind not in "iu":
            raise TypeError(f"random.permutation: x must be an int or an array with at least "
                            f"one axis, got a 0-d array of dtype {dtype_of(x)}")
        x = int(x)
    if isinstance(x, (int, np.integer)):
        return fnp.argsort(unit_uniform(key, (int(x),), np.float64, "permutation"), kind="stable")
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
    check_key(key, "choice")
    shape = check_shape(shape, "choice")
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
    p = checked(p, "choice", low=0, high=np.finfo(np.float64).max, name="an entry of p",
                 what="p must be finite and non-negative")
    total = checked(fnp.sum(p), "choice", low=np.nextafter(0.0, 1.0), high=math.inf,
                     what="p must not be all zeros", name="sum(p)")
    if not replace:   # the Gumbel top-k would take zero-probability entries
        total = checked(fnp.sum(fnp.greater(p, 0)), "choice", low=k, high=math.inf,
                         what=f"p has fewer nonzero entries than the {k} samples taken "
                              f"without replacement", name="nonzero entries", carry=total)
    return fnp.log(p) - fnp.log(total)
