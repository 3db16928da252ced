"""functorch_lite.numpy: NumPy's names, working on plain arrays and on every transform level.

Like `jax.numpy`: the same functions are reached by `np.*` calls on wrappers through NumPy's
dispatch protocols. Functions return plain arrays when given plain arrays.
"""
import sys as _sys

from ..ops.elementwise import (  # noqa: F401  (primitives with NumPy's own signatures)
    negative, positive, abs, sign, exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt,
    square, reciprocal, sin, cos, tan, arcsin, arccos, arctan, sinh, cosh, tanh, arcsinh,
    arccosh, arctanh, floor, ceil, rint, trunc, isnan, isinf, isfinite, logical_not, real, imag,
    conj, add, subtract, multiply, divide, floor_divide, remainder, fmod, power, maximum, minimum,
    fmax, fmin, arctan2, hypot, logaddexp, logaddexp2, copysign, equal, not_equal, less,
    less_equal, greater, greater_equal, logical_and, logical_or, logical_xor)
from ._elementwise import (  # noqa: F401
    float_power, clip, where, round, around, astype, true_divide, mod, absolute, conjugate,
    angle)
from ._reductions import (  # noqa: F401
    sum, prod, max, min, amax, amin, argmax, argmin, all, any, cumsum, cumprod, mean, var, std,
    sort, argsort)
from ._shape import (  # noqa: F401
    reshape, ravel, transpose, moveaxis, swapaxes, expand_dims, squeeze, broadcast_to,
    broadcast_shapes, broadcast_arrays)
from ._joining import (  # noqa: F401
    concatenate, stack, hstack, vstack, split, array_split, atleast_1d, atleast_2d, unstack)
from ._rearranging import (  # noqa: F401
    flip, roll, tile, repeat, pad, diagonal, trace, tril, triu)
from ._indexing import (  # noqa: F401
    getitem, at, take, take_along_axis, put_along_axis, add_along_axis, nonzero, argwhere)
from ._products import matmul, dot, vdot, inner, outer, tensordot, einsum  # noqa: F401
from ._creation import (  # noqa: F401
    zeros, ones, empty, full, zeros_like, ones_like, empty_like, full_like, arange, linspace, eye,
    asarray, array, copy)
from ._util import shape, ndim, size  # noqa: F401
from ._statistics import (  # noqa: F401
    average, ptp, median, quantile, percentile, nansum, nanmean, nanmax, nanmin)
from ._matrices import diag, diagflat, kron, cross, diff  # noqa: F401
from ._searching import (  # noqa: F401
    searchsorted, interp, argpartition, partition, unique)
from ._selection import select, piecewise, heaviside, isclose, allclose  # noqa: F401
from ._signal import convolve, correlate  # noqa: F401
from ._covariance import cov, corrcoef  # noqa: F401
from ._grids import meshgrid  # noqa: F401
from ._numerical import (  # noqa: F401
    trapezoid, gradient, polyval, vander, nan_to_num, ediff1d, sinc, block, apply_along_axis,
    unwrap)
from ..ops.bessel import i0  # noqa: F401
from . import linalg, fft  # noqa: F401
from . import lib  # noqa: F401
from . import _ufunc_methods
from . import _protocols
from .. import tensor as _tensor
from numpy import pi, e, inf, nan, newaxis, float16, float32, float64, complex64, complex128, \
    int8, int16, int32, int64, uint8, bool_, dtype, finfo, iinfo  # noqa: F401

_NAMESPACES = ["linalg", "fft", "lib"]
_FROM_NUMPY = ["pi", "e", "inf", "nan", "newaxis", "float16", "float32", "float64", "complex64",
               "complex128", "int8", "int16", "int32", "int64", "uint8", "bool_", "dtype", "finfo",
               "iinfo"]     # NumPy's own constants, scalar types and dtype tools
__all__ = [n for n in dir() if not n.startswith("_") and n not in {
    *_NAMESPACES, *_FROM_NUMPY, "getitem", "at", "add_along_axis"}]


def __dir__():      # dir() and tab completion: the functions, the namespaces, NumPy's constants
    return __all__ + _NAMESPACES + _FROM_NUMPY


_ufunc_methods.install()
_protocols.install(_sys.modules[__name__])
_tensor.install_numpy(_sys.modules[__name__], _protocols.array_ufunc, _protocols.array_function)
