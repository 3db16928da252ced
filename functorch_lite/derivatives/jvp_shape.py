"""jvp rules of the shape ops: all linear, so the tangent is the op applied to the tangent."""
from ..ops import shape as sh
from .jvp_helpers import def_linear, def_variadic_linear

for _op in (sh.reshape, sh.transpose, sh.broadcast_to, sh.diagonal, sh.roll, sh.copy):
    def_linear(_op)
def_variadic_linear(sh.concatenate)


@sh.split.def_jvp
def split_jvp(primals, tangents, points, axis=0):
    """Linear: the pieces of the tangent."""
    t, = tangents
    out = sh.split(primals[0], points=points, axis=axis)
    return out, None if t is None else sh.split(t, points=points, axis=axis)


@sh.unstack.def_jvp
def unstack_jvp(primals, tangents, axis=0):
    """Linear: the slices of the tangent."""
    out = sh.unstack(primals[0], axis=axis)
    t, = tangents
    return out, None if t is None else sh.unstack(t, axis=axis)


@sh.pad.def_jvp
def pad_jvp(primals, tangents, pad_width, constant_values=0):
    """The padding is a constant: the tangent is padded with zeros."""
    x, = primals
    t, = tangents
    out = sh.pad(x, pad_width=pad_width, constant_values=constant_values)
    return out, None if t is None else sh.pad(t, pad_width=pad_width, constant_values=0)
