"""Parameter initializers with torch.nn.init's formulas and defaults, drawn from explicit keys
(functorch_lite.random): `init(key, shape, ..., dtype)` returns a new array instead of filling
a tensor in place, so an ensemble initializes every model at once with vmap over split keys.

Fans follow torch's weight layouts (as ft.nn's layers): a weight of shape
(out_features, in_features, *kernel) has fan_in = in_features * prod(kernel) and
fan_out = out_features * prod(kernel). `linear` and `conv` build a layer's parameters as
torch.nn.Linear and torch.nn.Conv*d do by default: weights kaiming_uniform with a=sqrt(5)
(uniform within 1/sqrt(fan_in)) and biases uniform within 1/sqrt(fan_in).
"""
import math
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from .. import numpy as fnp
from .. import random

Shape = Union[int, Sequence[int]]
DType = Any

_GAINS = {"linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
          "conv_transpose1d": 1.0, "conv_transpose2d": 1.0, "conv_transpose3d": 1.0,
          "sigmoid": 1.0, "tanh": 5.0 / 3.0, "relu": math.sqrt(2.0), "selu": 0.75}


def _tuple(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The gain torch.nn.init recommends for a nonlinearity: 1 for linear layers and sigmoid,
    5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (slope `param`,
    default 0.01), 3/4 for selu.

    Args:
        nonlinearity: "linear", "conv1d"/"conv2d"/"conv3d" (and conv_transpose), "sigmoid",
            "tanh", "relu", "leaky_relu" or "selu".
        param: leaky_relu's negative slope.

    Returns:
        The gain, a float.

    Raises:
        ValueError: an unknown nonlinearity.

    Examples:
        >>> from functorch_lite.nn import init
        >>> init.calculate_gain("tanh"), round(init.calculate_gain("leaky_relu", 0.2), 4)
        (1.6666666666666667, 1.3868)
    """
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1.0 + slope ** 2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}; one of "
                         f"{sorted([*_GAINS, 'leaky_relu'])}")
    return _GAINS[nonlinearity]


def fans(shape: Shape) -> Tuple[int, int]:
    """(fan_in, fan_out) of a weight of torch's layout (out, in, *kernel), as torch.nn.init.

    Args:
        shape: the weight's shape, at least 2-d.

    Returns:
        The pair (in * prod(kernel), out * prod(kernel)).

    Raises:
        ValueError: a shape of fewer than 2 dimensions.

    Examples:
        >>> from functorch_lite.nn import init
        >>> init.fans((16, 3, 5, 5))              # a conv2d weight
        (75, 400)
    """
    shape = _tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"fan in and fan out need a weight of at least 2 dimensions (out, in, "
                         f"...); got shape {shape}")
    receptive = int(np.prod(shape[2:], dtype=np.int64))
    return shape[1] * receptive, shape[0] * receptive


def _fan(shape, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', not {mode!r}")
    fan_in, fan_out = fans(shape)
    return fan_in if mode == "fan_in" else fan_out


def zeros(key: Any, shape: Shape, dtype: DType = np.float64) -> Any:
    """Zeros of `shape` (the key is unused: every initializer takes one, as jax.nn.initializers).

    Args:
        key: a key (ignored).
        shape: the shape.
        dtype: the dtype.

    Returns:
        An array of zeros.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.nn.init.zeros(ft.random.key(0), (2,))
        array([0., 0.])
    """
    return np.zeros(_tuple(shape), dtype)


def ones(key: Any, shape: Shape, dtype: DType = np.float64) -> Any:
    """Ones of `shape` (the key is unused), as for a normalization layer's scale.

    Args:
        key: a key (ignored).
        shape: the shape.
        dtype: the dtype.

    Returns:
        An array of ones.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.nn.init.ones(ft.random.key(0), (2,))
        array([1., 1.])
    """
    return np.ones(_tuple(shape), dtype)


def uniform(key: Any, shape: Shape, a: float = 0.0, b: float = 1.0,
            dtype: DType = np.float64) -> Any:
    """Uniform draws in [a, b) (torch.nn.init.uniform_).

    Args:
        key: a key from functorch_lite.random.
        shape: the shape.
        a: the lower bound.
        b: the upper bound.
        dtype: float32 or float64.

    Returns:
        An array of `shape`.

    Examples:
        >>> import functorch_lite as ft
        >>> w = ft.nn.init.uniform(ft.random.key(0), (1000,), -0.1, 0.1)
        >>> bool(w.min() >= -0.1 and w.max() < 0.1)
        True
    """
    return random.uniform(key, _tuple(shape), dtype, minval=a, maxval=b)


def normal(key: Any, shape: Shape, mean: float = 0.0, std: float = 1.0,
           dtype: DType = np.float64) -> Any:
    """Normal draws of mean `mean` and standard deviation `std` (torch.nn.init.normal_).

    Args:
        key: a key from functorch_lite.random.
        shape: the shape.
        mean: the mean.
        std: the standard deviation.
        dtype: float32 or float64.

    Returns:
        An array of `shape`.

    Examples:
        >>> import functorch_lite as ft
        >>> w = ft.nn.init.normal(ft.random.key(0), (10000,), std=0.02)
        >>> round(float(w.std()), 2)
        0.02
    """
    return mean + std * random.normal(key, _tuple(shape), dtype)


def xavier_uniform(key: Any, shape: Shape, gain: float = 1.0, dtype: DType = np.float64) -> Any:
    """Glorot/Xavier uniform: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))
    (torch.nn.init.xavier_uniform_; jax.nn.initializers.glorot_uniform with gain 1).

    Args:
        key: a key from functorch_lite.random.
        shape: the weight's shape (out, in, *kernel).
        gain: the scale (calculate_gain of the nonlinearity that follows).
        dtype: float32 or float64.

    Returns:
        An array of `shape`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> w = ft.nn.init.xavier_uniform(ft.random.key(0), (30, 20))
        >>> bool(np.abs(w).max() < np.sqrt(6 / 50))
        True
    """
    fan_in, fan_out = fans(shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform(key, shape, -bound, bound, dtype)


def xavier_normal(key: Any, shape: Shape, gain: float = 1.0, dtype: DType = np.float64) -> Any:
    """Glorot/Xavier normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))
    (torch.nn.init.xavier_normal_).

    Args:
        key: a key from functorch_lite.random.
        shape: the weight's shape (out, in, *kernel).
        gain: the scale.
        dtype: float32 or float64.

    Returns:
        An array of `shape`.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.nn.init.xavier_normal(ft.random.key(0), (30, 20)).shape
        (30, 20)
    """
    fan_in, fan_out = fans(shape)
    return normal(key, shape, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), dtype)


def kaiming_uniform(key: Any, shape: Shape, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", dtype: DType = np.float64) -> Any:
    """He/Kaiming uniform: U(-b, b) with b = gain * sqrt(3 / fan), gain =
    calculate_gain(nonlinearity, a) (torch.nn.init.kaiming_uniform_, same defaults).

    torch.nn.Linear and Conv*d initialize their weights with a=sqrt(5), which makes
    b = 1 / sqrt(fan_in) (see `linear` and `conv`).

    Args:
        key: a key from functorch_lite.random.
        shape: the weight's shape (out, in, *kernel).
        a: the negative slope of the leaky_relu that follows.
        mode: "fan_in" (preserves the forward pass's variance) or "fan_out" (the backward's).
        nonlinearity: as calculate_gain.
        dtype: float32 or float64.

    Returns:
        An array of `shape`.

    Raises:
        ValueError: an unknown mode or nonlinearity.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> w = ft.nn.init.kaiming_uniform(ft.random.key(0), (64, 100), a=np.sqrt(5))
        >>> bool(np.abs(w).max() < 1 / np.sqrt(100))
        True
    """
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(shape, mode))
    bound = math.sqrt(3.0) * std
    return uniform(key, shape, -bound, bound, dtype)


def kaiming_normal(key: Any, shape: Shape, a: float = 0.0, mode: str = "fan_in",
                   nonlinearity: str = "leaky_relu", dtype: DType = np.float64) -> Any:
    """He/Kaiming normal: N(0, std^2) with std = gain / sqrt(fan)
    (torch.nn.init.kaiming_normal_, same defaults).

    Args:
        key: a key from functorch_lite.random.
        shape: the weight's shape (out, in, *kernel).
        a: the negative slope of the leaky_relu that follows.
        mode: "fan_in" or "fan_out".
        nonlinearity: as calculate_gain.
        dtype: float32 or float64.

    Returns:
        An array of `shape`.

    Raises:
        ValueError: an unknown mode or nonlinearity.

    Examples:
        >>> import functorch_lite as ft
        >>> w = ft.nn.init.kaiming_normal(ft.random.key(0), (256, 512), nonlinearity="relu")
        >>> round(float(w.std() * 512 ** 0.5), 1)            # sqrt(2)
        1.4
    """
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(shape, mode))
    return normal(key, shape, 0.0, std, dtype)


def orthogonal(key: Any, shape: Shape, gain: float = 1.0, dtype: DType = np.float64) -> Any:
    """A (semi-)orthogonal matrix times `gain` (torch.nn.init.orthogonal_): the Q of a QR
    decomposition of a normal draw, its signs fixed by R's diagonal so that the distribution
    is uniform (Haar). Dimensions after the first are flattened, as torch.

    Args:
        key: a key from functorch_lite.random.
        shape: at least 2-d; rows = shape[0], columns = the product of the others.
        gain: the scale.
        dtype: float32 or float64.

    Returns:
        An array of `shape` whose rows (or columns, whichever are fewer) are orthonormal
        times gain.

    Raises:
        ValueError: a shape of fewer than 2 dimensions.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> q = ft.nn.init.orthogonal(ft.random.key(0), (3, 5))
        >>> bool(np.allclose(q @ q.T, np.eye(3)))
        True
    """
    shape = _tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"orthogonal needs a shape of at least 2 dimensions; got {shape}")
    rows, cols = shape[0], int(np.prod(shape[1:], dtype=np.int64))
    draw = random.normal(key, (max(rows, cols), min(rows, cols)), dtype)
    q, r = fnp.linalg.qr(draw)
    q = q * fnp.sign(fnp.diagonal(r))
    if rows < cols:
        q = fnp.swapaxes(q, 0, 1)
    return fnp.reshape(gain * q, shape)


def linear(key: Any, in_features: int, out_features: int, bias: bool = True,
           dtype: DType = np.float64) -> Dict[str, Any]:
    """The parameters of torch.nn.Linear(in_features, out_features) as torch initializes
    them: {"weight": (out, in), "bias": (out,)}, both uniform within 1/sqrt(in_features).

    Use them with ft.nn.linear(x, p["weight"], p["bias"]).

    Args:
        key: a key from functorch_lite.random (split inside for weight and bias).
        in_features: the input size.
        out_features: the output size.
        bias: include a bias.
        dtype: float32 or float64.

    Returns:
        A dict with "weight" (and "bias").

    Examples:
        >>> import functorch_lite as ft
        >>> p = ft.nn.init.linear(ft.random.key(0), 3, 2)
        >>> p["weight"].shape, p["bias"].shape
        ((2, 3), (2,))
    """
    return _layer(key, (out_features, in_features), bias, dtype)


def conv(key: Any, in_channels: int, out_channels: int, kernel_size: Union[int, Sequence[int]],
         groups: int = 1, bias: bool = True, dtype: DType = np.float64) -> Dict[str, Any]:
    """The parameters of torch.nn.Conv{1,2,3}d as torch initializes them:
    {"weight": (out, in // groups, *kernel), "bias": (out,)}, uniform within 1/sqrt(fan_in).

    A kernel_size of one int makes a conv1d weight; a tuple gives one entry per spatial axis.

    Args:
        key: a key from functorch_lite.random.
        in_channels: input channels.
        out_channels: output channels.
        kernel_size: an int (1-d) or a tuple of ints.
        groups: the number of groups (in_channels and out_channels divisible by it).
        bias: include a bias.
        dtype: float32 or float64.

    Returns:
        A dict with "weight" (and "bias").

    Raises:
        ValueError: channels not divisible by groups.

    Examples:
        >>> import functorch_lite as ft
        >>> p = ft.nn.init.conv(ft.random.key(0), 3, 8, (5, 5))
        >>> p["weight"].shape, p["bias"].shape
        ((8, 3, 5, 5), (8,))
    """
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"conv: in_channels ({in_channels}) and out_channels ({out_channels}) "
                         f"must be divisible by groups ({groups})")
    return _layer(key, (out_channels, in_channels // groups) + _tuple(kernel_size), bias, dtype)


def _layer(key, weight_shape, bias, dtype):
    k_weight, k_bias = random.split(key)
    params = {"weight": kaiming_uniform(k_weight, weight_shape, a=math.sqrt(5.0), dtype=dtype)}
    if bias:
        bound = 1.0 / math.sqrt(fans(weight_shape)[0])
        params["bias"] = uniform(k_bias, (weight_shape[0],), -bound, bound, dtype)
    return params


__all__ = ["calculate_gain", "fans", "zeros", "ones", "uniform", "normal", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "linear", "conv"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
