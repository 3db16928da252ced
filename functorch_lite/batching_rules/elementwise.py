"""Batching rules of the elementwise ops: one line per op (see helpers.py)."""
from ..ops import elementwise as ew
from .helpers import broadcasting, elementwise

for _op in [ew.negative, ew.positive, ew.abs, ew.exp, ew.exp2, ew.expm1, ew.log, ew.log2,
            ew.log10, ew.log1p, ew.sqrt, ew.cbrt, ew.square, ew.reciprocal, ew.sin, ew.cos,
            ew.tan, ew.arcsin, ew.arccos, ew.arctan, ew.sinh, ew.cosh, ew.tanh, ew.arcsinh,
            ew.arccosh, ew.arctanh, ew.real, ew.imag, ew.conj, ew.sign, ew.floor, ew.ceil,
            ew.rint, ew.trunc, ew.isnan, ew.isinf, ew.isfinite, ew.logical_not, ew.round,
            ew.astype, ew.stop_gradient]:
    elementwise(_op)

for _op in [ew.add, ew.subtract, ew.multiply, ew.divide, ew.power, ew.remainder, ew.fmod,
            ew.maximum, ew.minimum, ew.fmax, ew.fmin, ew.arctan2, ew.hypot, ew.logaddexp,
            ew.logaddexp2, ew.copysign, ew.floor_divide, ew.equal, ew.not_equal, ew.less, ew.less_equal,
            ew.greater, ew.greater_equal, ew.logical_and, ew.logical_or, ew.logical_xor,
            ew.where, ew.select]:
    broadcasting(_op)
