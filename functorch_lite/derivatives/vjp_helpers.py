"""Family helpers for vjp rules (see reverse.py, Note [the reverse-mode tape]).

`defvjp(op, *per_operand)` registers a rule from one small function per operand, in the style of
HIPS autograd: `defvjp(sin, lambda g, out, x: g * cos(x))` reads as "the cotangent of sin is g
times cos x". Each function gets (g, out, *primals, **params); None marks an operand with no
derivative. Operands nobody differentiates are skipped (the rule takes `needed`).

Rules compute only with library ops, so they are themselves transformable. They may return a
cotangent of the broadcast shape or another dtype: reverse mode fits it to the operand.
"""
from ..ops import reductions as red, shape as sh


def defvjp(op, *per_operand):
    """Register op's vjp rule from one function per operand (None: not differentiable)."""
    def rule(ct, primals, out, needed=None, **params):
        cts = []
        for i, fn in enumerate(per_operand[:len(primals)]):
            if fn is None or (needed is not None and not needed[i]):
                cts.append(None)
            else:
                cts.append(fn(ct, out, *primals, **params))
        return tuple(cts)
    rule.takes_needed = True
    rule.__name__ = f"{op.name}_vjp"
    op.def_vjp(rule)
    return rule


def shape_of(x):
    return tuple(getattr(x, "shape", ()))


def unbroadcast(ct, shape):
    """Sum `ct` over the dimensions that broadcasting added to an operand of `shape`."""
    ct_shape = shape_of(ct)
    if ct_shape == tuple(shape):
        return ct
    lead = len(ct_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and ct_shape[lead + i] != 1)
    if axes:
        ct = red.sum(ct, axis=axes)
    if shape_of(ct) != tuple(shape):
        ct = sh.reshape(ct, shape=tuple(shape))
    return ct


def reduced_axes(axis, ndim):
    """The non-negative axes a reduction with `axis` (None, int or tuple) removes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(a % ndim for a in axis))
    return (axis % ndim,)


def keepdims_shape(shape, axis):
    """The shape of a reduction's output over `shape` with keepdims=True."""
    axes = reduced_axes(axis, len(shape))
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def expand_reduced(g, shape, axis, keepdims):
    """A reduction's cotangent (or output) broadcast back to the input `shape`."""
    if not keepdims and shape_of(g) != ():  # a 0-d g broadcasts as it is
        g = sh.reshape(g, shape=keepdims_shape(shape, axis))
    return sh.broadcast_to(g, shape=tuple(shape))

