"""Family helpers for Taylor (jet) rules, so most ops register in one line.

A jet rule has the signature `rule(primals, series, **params) -> (out, out_series)`. Each entry
of `series` is None (that operand is a constant) or a tuple of K *normalized* Taylor
coefficients x_1 .. x_K of x(t) = x_0 + x_1 t + ... + x_K t^K, x_0 being the primal; a
coefficient may itself be None (a structural zero). `out_series` is None (a constant result) or
such a tuple (a tuple of them for an op with several results). The user-facing `jet` scales by
factorials at the boundary; rules never do. A rule may return NotImplemented to let the
interpreter derive the coefficients from the op's jvp rule (Note [Taylor rules from jvp rules]
in transforms/taylor.py), e.g. for a case its recurrence does not cover.

Families:
  linear            y_k = op(x_k) (reshape, sum, getitem, fft, ...)
  variadic linear   linear in all operands jointly (concatenate, add): zeros fill in
  piecewise linear  y_k = the jvp rule's tangent map at x_0 applied to x_k: exact wherever the
                    op is locally linear (abs, maximum, where, select, sort, max, remainder)
  multilinear       y_k = sum over i_1 + ... + i_n = k of op(x1_i1, ..., xn_in) (the Cauchy
                    product: multiply, matmul, einsum, conv)
Every helper computes with library ops only, so jet rules are themselves transformable.
"""
import itertools

from .jvp_helpers import add_tangents, fit, instantiate


def order_of(series):
    """K, the truncation order, from the operand series (at least one is not None)."""
    for s in series:
        if s is not None:
            return len(s)
    raise ValueError("a jet rule was called without any series")


def coef(s, k, x0=None):
    """Coefficient k of the series s of primal x0 (k = 0 gives x0); None for a zero."""
    if k == 0:
        return x0
    return None if s is None else s[k - 1]


def none_if_zero(coeffs):
    """A series of all-None coefficients is no series at all (the result is a constant)."""
    coeffs = tuple(coeffs)
    return None if all(c is None for c in coeffs) else coeffs


def fit_series(coeffs, out):
    return none_if_zero(fit(c, out) for c in coeffs)


def def_linear_jet(op):
    """op is linear in its first operand (the others are static or integer operands)."""
    def linear_jet(primals, series, **params):
        out = op(*primals, **params)
        s = series[0]
        if s is None:
            return out, None
        return out, fit_series((None if c is None else op(c, *primals[1:], **params)
                                for c in s), out)
    op.def_rule("jet", linear_jet)
    return linear_jet


def def_variadic_linear_jet(op):
    """op is linear in all its operands jointly (concatenate): zeros fill missing terms."""
    def variadic_linear_jet(primals, series, **params):
        out = op(*primals, **params)
        coeffs = []
        for k in range(1, order_of(series) + 1):
            cs = [coef(s, k) for s in series]
            if all(c is None for c in cs):
                coeffs.append(None)
            else:
                coeffs.append(op(*(instantiate(c, x) for c, x in zip(cs, primals)), **params))
        return out, fit_series(coeffs, out)
    op.def_rule("jet", variadic_linear_jet)
    return variadic_linear_jet


def def_piecewise_linear_jet(op):
    """op is linear near x_0 in its differentiable operands (its derivative is a constant of
    comparisons: abs, maximum, where, sort, max, remainder, scatter-set ...): every
    coefficient goes through the jvp rule's tangent map at x_0."""
    rule = piecewise_linear_jet(op)
    op.def_rule("jet", rule)
    return rule


def piecewise_linear_jet(op):
    """The rule def_piecewise_linear_jet registers, unregistered (for rules that use it in
    some cases only)."""
    jvp = op.rule("jvp")

    def piecewise_linear_jet(primals, series, **params):
        out = None
        coeffs = []
        for k in range(1, order_of(series) + 1):
            ts = tuple(coef(s, k) for s in series)
            if all(t is None for t in ts):
                coeffs.append(None)
                continue
            out, t_out = jvp(primals, ts, **params)
            coeffs.append(t_out)
        if out is None:
            out = op(*primals, **params)
        if op.multiple_results:
            return out, tuple(none_if_zero(c[i] if c is not None else None for c in coeffs)
                              for i in range(len(out)))
        return out, none_if_zero(coeffs)
    return piecewise_linear_jet


def def_multilinear_jet(op):
    """op is linear in each operand separately: the Cauchy product of the operand series."""
    def multilinear_jet(primals, series, **params):
        out = op(*primals, **params)
        order = order_of(series)
        tops = [0 if s is None else order for s in series]
        coeffs = []
        for k in range(1, order + 1):
            parts = []
            for idx in itertools.product(*(range(min(t, k) + 1) for t in tops)):
                if sum(idx) != k:
                    continue
                args = [coef(s, i, x) for s, i, x in zip(series, idx, primals)]
                if any(a is None for a in args):
                    continue
                parts.append(fit(op(*args, **params), out))
            coeffs.append(add_tangents(*parts))
        return out, fit_series(coeffs, out)
    op.def_rule("jet", multilinear_jet)
    return multilinear_jet
