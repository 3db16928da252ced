"""Taylor (jet) rules of the elementwise ops: the coefficient recurrences.

In normalized coefficients (x(t) = sum_k x_k t^k), an op whose derivative satisfies a simple
differential equation gets its k-th coefficient from the lower ones (Griewank and Walther,
"Evaluating Derivatives", ch. 13). Writing y' = u x' and matching the coefficients of t^(k-1):

    k y_k = sum_{j=1..k} j x_j u_(k-j)

with u = y (exp), u = cos / -sin (sin / cos), u = 1 - y^2 (tanh), and, for the inverse-type
ops, the division by x_0 or y_0 (log, sqrt, reciprocal, divide, power). Ops with no recurrence
here get theirs from their jvp rule (Note [Taylor rules from jvp rules] in
transforms/taylor.py); ops whose derivative is a constant of comparisons (abs, maximum, where)
are piecewise linear.
"""
import numpy as np

from ..ops import elementwise as ew
from .jvp_helpers import add_tangents, fit
from .taylor_helpers import (def_linear_jet, def_multilinear_jet, def_piecewise_linear_jet,
                             fit_series, order_of)

LN2, LN10 = float(np.log(2.0)), float(np.log(10.0))


def mul(a, b):
    return None if a is None or b is None else ew.multiply(a, b)


def times(a, c):
    """a * c for a Python number c (1 costs nothing)."""
    if a is None:
        return None
    return a if c == 1 else ew.multiply(a, float(c))


def coefficients(x0, s, order):
    """[x_0, x_1, ..., x_K] (None for zero terms)."""
    return [x0] + (list(s) if s is not None else [None] * order)


def weighted_sum(x, u, k):
    """(1/k) sum_{j=1..k} j x_j u_(k-j): the coefficient k of the integral of u x'."""
    return times(add_tangents(*(times(mul(x[j], u[k - j]), j) for j in range(1, k + 1))),
                 1.0 / k)


def cauchy(a, b, k, lo=0):
    """sum_{j=lo..k-lo} a_j b_(k-j)."""
    return add_tangents(*(mul(a[j], b[k - j]) for j in range(lo, k - lo + 1)))


def def_recurrence(op, series_of):
    """Elementwise unary op whose coefficients [y_0..y_K] are `series_of([x_0..x_K], y_0)`."""
    def recurrence_jet(primals, series, **params):
        x0, = primals
        out = op(x0, **params)
        x = coefficients(x0, series[0], order_of(series))
        return out, fit_series(series_of(x, out)[1:], out)
    op.def_rule("jet", recurrence_jet)
    return recurrence_jet


def exp_series(x, y0, scale=1.0):
    """y = exp(scale x), y' = scale y x'."""
    if scale != 1.0:
        x = [times(c, scale) for c in x]
    y = [y0]
    for k in range(1, len(x)):
        y.append(weighted_sum(x, y, k))
    return y


def log_series(x, y0, scale=1.0):
    """y = log(x) * scale: x y' = scale x'."""
    y = [y0]
    for k in range(1, len(x)):
        terms = [times(x[k], scale)] + [
            times(mul(y[j], x[k - j]), -j / k) for j in range(1, k)]
        total = add_tangents(*terms)
        y.append(None if total is None else ew.divide(total, x[0]))
    return y


def sin_cos_series(x, s0, c0, hyperbolic=False):
    """s' = c x', c' = -+ s x' (sin/cos, or sinh/cosh with hyperbolic)."""
    s, c = [s0], [c0]
    for k in range(1, len(x)):
        s_k = weighted_sum(x, c, k)
        c_k = weighted_sum(x, s, k)
        s.append(s_k)
        c.append(c_k if hyperbolic or c_k is None else ew.negative(c_k))
    return s, c


def tan_series(x, y0, sign):
    """y' = (1 + sign y^2) x': tan (sign 1) and tanh (sign -1)."""
    y = [y0]
    u = [ew.add(1.0, times(ew.square(y0), sign))]
    for k in range(1, len(x)):
        y.append(weighted_sum(x, u, k))
        sq = cauchy(y, y, k)
        u.append(times(sq, sign))
    return y


def sqrt_series(x, y0):
    """y^2 = x: y_k = (x_k - sum_{j=1..k-1} y_j y_(k-j)) / (2 y_0)."""
    y = [y0]
    two_y0 = ew.multiply(y0, 2.0)
    for k in range(1, len(x)):
        rest = cauchy(y, y, k, lo=1)
        total = add_tangents(x[k], None if rest is None else ew.negative(rest))
        y.append(None if total is None else ew.divide(total, two_y0))
    return y


def quotient_series(x, y, z0):
    """z = x / y: z_k = (x_k - sum_{j=1..k} y_j z_(k-j)) / y_0."""
    z = [z0]
    for k in range(1, len(y)):
        rest = add_tangents(*(mul(y[j], z[k - j]) for j in range(1, k + 1)))
        total = add_tangents(fit(x[k], z0), None if rest is None else fit(ew.negative(rest), z0))
        z.append(None if total is None else ew.divide(total, y[0]))
    return z


def power_series(x, p, y0):
    """y = x^p for a constant p: x y' = p y x', so
    y_k = sum_{j=1..k} (p j - (k - j)) x_j y_(k-j) / (k x_0)."""
    y = [y0]
    for k in range(1, len(x)):
        terms = []
        for j in range(1, k + 1):
            term = mul(x[j], y[k - j])
            if term is not None:
                weight = ew.subtract(ew.multiply(p, float(j) / k), float(k - j) / k)
                terms.append(ew.multiply(term, weight))
        total = add_tangents(*terms)
        y.append(None if total is None else ew.divide(total, x[0]))
    return y


def integer_power_series(x, n, y0):
    """x^n for a small integer n >= 1 by repeated Cauchy products (exact at x_0 = 0)."""
    acc = list(x)
    for _ in range(n - 1):
        acc = [cauchy(acc, x, k) for k in range(len(x))]
    acc[0] = y0
    return acc


# -- linear and piecewise linear --
for _op in (ew.negative, ew.positive, ew.real, ew.imag, ew.conj):
    def_linear_jet(_op)
for _op in (ew.abs, ew.maximum, ew.minimum, ew.fmax, ew.fmin, ew.copysign, ew.remainder,
            ew.fmod, ew.where, ew.select, ew.astype):
    def_piecewise_linear_jet(_op)
def_multilinear_jet(ew.multiply)


def _sum_jet(sign):
    def sum_jet(primals, series):
        x, y = primals
        out = ew.add(x, y) if sign == 1 else ew.subtract(x, y)
        sx, sy = series
        coeffs = []
        for k in range(order_of(series)):
            a = None if sx is None else fit(sx[k], out)
            b = None if sy is None else fit(sy[k], out)
            coeffs.append(add_tangents(a, b if sign == 1 or b is None else ew.negative(b)))
        return out, fit_series(coeffs, out)
    return sum_jet


ew.add.def_rule("jet", _sum_jet(1))
ew.subtract.def_rule("jet", _sum_jet(-1))


# -- unary recurrences --
def_recurrence(ew.exp, lambda x, out: exp_series(x, out))
def_recurrence(ew.exp2, lambda x, out: exp_series(x, out, LN2))
def_recurrence(ew.expm1, lambda x, out: exp_series(x, ew.add(out, 1.0)))
def_recurrence(ew.log, lambda x, out: log_series(x, out))
def_recurrence(ew.log2, lambda x, out: log_series(x, out, 1.0 / LN2))
def_recurrence(ew.log10, lambda x, out: log_series(x, out, 1.0 / LN10))
def_recurrence(ew.log1p, lambda x, out: log_series([ew.add(x[0], 1.0)] + x[1:], out))
def_recurrence(ew.sin, lambda x, out: sin_cos_series(x, out, ew.cos(x[0]))[0])
def_recurrence(ew.cos, lambda x, out: sin_cos_series(x, ew.sin(x[0]), out)[1])
def_recurrence(ew.sinh, lambda x, out: sin_cos_series(x, out, ew.cosh(x[0]), True)[0])
def_recurrence(ew.cosh, lambda x, out: sin_cos_series(x, ew.sinh(x[0]), out, True)[1])
def_recurrence(ew.tan, lambda x, out: tan_series(x, out, 1.0))
def_recurrence(ew.tanh, lambda x, out: tan_series(x, out, -1.0))
def_recurrence(ew.sqrt, lambda x, out: sqrt_series(x, out))
def_recurrence(ew.square, lambda x, out: integer_power_series(x, 2, out))
def_recurrence(ew.reciprocal, lambda x, out: quotient_series([1.0] + [None] * (len(x) - 1), x,
                                                             out))


@ew.divide.def_rule("jet")
def divide_jet(primals, series):
    x0, y0 = primals
    out = ew.divide(x0, y0)
    order = order_of(series)
    x = coefficients(x0, series[0], order)
    if series[1] is None:  # linear in x
        return out, fit_series((None if c is None else ew.divide(c, y0) for c in x[1:]), out)
    return out, fit_series(quotient_series(x, coefficients(y0, series[1], order), out)[1:], out)


@ew.power.def_rule("jet")
def power_jet(primals, series):
    """A constant exponent only (a series in the exponent: x^y = exp(y log x), derived from
    the jvp rule). Small non-negative integer exponents multiply out, exact at x_0 = 0."""
    x0, p = primals
    if series[1] is not None:
        return NotImplemented
    out = ew.power(x0, p)
    x = coefficients(x0, series[0], order_of(series))
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and 0 <= p <= 8:
        if p == 0:
            return out, None
        return out, fit_series(integer_power_series(x, int(p), out)[1:], out)
    return out, fit_series(power_series(x, p, out)[1:], out)
