"""Family helpers for jvp rules, so most ops register in one line.

A jvp rule has the signature `rule(primals, tangents, **params) -> (primal_out, tangent_out)`;
a tangent of None is a symbolic zero (that input is not being differentiated) and a rule may
return None for a zero output tangent. Every helper computes with library ops only, so the
rules are themselves transformable (jvp of grad, vmap of jvp, ...).

Families:
  linear      tangent_out = op(tangent) with the same static params (reshape, sum, getitem, ...)
  variadic    linear in each operand separately (concatenate, add): zeros fill missing tangents
  unary       elementwise, given the derivative as a function of (x, out)
  binary      elementwise with broadcasting, given both partial derivatives of (x, y, out)
  multilinear each operand's tangent replaces it in turn (multiply, matmul, einsum)
"""

from .. import numpy as fnp
from ..numpy._util import dtype_of, shape


def zeros_like(x):
    """A constant zero with x's logical shape and dtype (a plain array, never a wrapper)."""
    return fnp.zeros_like(x)


def instantiate(t, x):
    """The tangent t, or an explicit zero shaped like the primal x when t is symbolic."""
    return zeros_like(x) if t is None else t


def fit(t, out):
    """Broadcast t to out's shape and cast it to out's (inexact) dtype: tangents always have
    their primal's shape and dtype."""
    if t is None:
        return None
    if shape(t) != shape(out):
        t = fnp.broadcast_to(t, shape(out))
    dt = dtype_of(out)
    if dtype_of(t) != dt and dt.kind in "fc":
        t = fnp.astype(t, dt)
    return t


def add_tangents(*ts):
    """Sum of the non-None tangents, or None when all are symbolic zeros."""
    total = None
    for t in ts:
        if t is not None:
            total = t if total is None else fnp.add(total, t)
    return total


def scale(t, d):
    """t * d, skipping the product when d is a Python number 1 or -1 (add and subtract give
    such partials: no kernel runs for them). A partial of None is a structural zero (x ** 0
    is constant): no tangent. A literal 0 is multiplied like any number, so an inf or NaN
    tangent gives NaN, as reverse mode does (Note [special values in derivatives])."""
    if d is None:
        return None
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        if d == 1:
            return t
        if d == -1:
            return fnp.negative(t)
    return fnp.multiply(t, d)


def is_inexact(x):
    return dtype_of(x).kind in "fc"


def def_linear(op):
    """op is linear in its first operand (the others are static or integer operands such as
    indices): the tangent is op applied to the tangent."""
    def linear_jvp(primals, tangents, **params):
        out = op(*primals, **params)
        t = tangents[0]
        if t is None:
            return out, None
        return out, fit(op(t, *primals[1:], **params), out)
    op.def_jvp(linear_jvp)
    return linear_jvp


def def_variadic_linear(op):
    """op is linear in all its operands jointly (concatenate): zeros fill missing tangents."""
    def variadic_linear_jvp(primals, tangents, **params):
        out = op(*primals, **params)
        if all(t is None for t in tangents):
            return out, None
        ts = [instantiate(t, x) for t, x in zip(tangents, primals)]
        return out, fit(op(*ts, **params), out)
    op.def_jvp(variadic_linear_jvp)
    return variadic_linear_jvp


def def_unary(op, derivative):
    """Elementwise op with derivative `derivative(x, out)`: tangent_out = t * derivative."""
    def unary_jvp(primals, tangents, **params):
        x, = primals
        t, = tangents
        out = op(x, **params)
        if t is None:
            return out, None
        return out, fit(scale(t, derivative(x, out)), out)
    op.def_jvp(unary_jvp)
    return unary_jvp


def def_binary(op, dx, dy):
    """Broadcasting elementwise op with partials dx(x, y, out), dy(x, y, out); a partial of
    None means the op is constant in that operand."""
    def binary_jvp(primals, tangents, **params):
        x, y = primals
        tx, ty = tangents
        out = op(x, y, **params)
        parts = []
        if tx is not None and dx is not None:
            parts.append(fit(scale(tx, dx(x, y, out)), out))
        if ty is not None and dy is not None:
            parts.append(fit(scale(ty, dy(x, y, out)), out))
        return out, fit(add_tangents(*parts), out)
    op.def_jvp(binary_jvp)
    return binary_jvp


def def_multilinear(op):
    """op is linear in each operand separately (multiply, matmul, einsum): the product rule,
    one term per operand with a tangent."""
    def multilinear_jvp(primals, tangents, **params):
        out = op(*primals, **params)
        parts = []
        for i, t in enumerate(tangents):
            if t is not None:
                args = list(primals)
                args[i] = t
                parts.append(fit(op(*args, **params), out))
        return out, fit(add_tangents(*parts), out)
    op.def_jvp(multilinear_jvp)
    return multilinear_jvp

