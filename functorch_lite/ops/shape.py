"""Shape primitives. Other shape functions (squeeze, stack, split, tile, ...) are composites of
these in functorch_lite.numpy."""
from ..dispatch import defop

reshape = defop("reshape", lambda xp, x, shape, order="C": xp.reshape(x, shape, order=order))
transpose = defop("transpose", lambda xp, x, axes=None: xp.transpose(x, axes))
broadcast_to = defop("broadcast_to", lambda xp, x, shape: xp.broadcast_to(x, shape))
concatenate = defop("concatenate", lambda xp, *xs, axis=0: xp.concatenate(xs, axis=axis),
                    doc="Join operands along an existing axis (axis=None flattens them first).")
pad = defop("pad", lambda xp, x, pad_width, constant_values=0:
            xp.pad(x, pad_width, mode="constant", constant_values=constant_values),
            doc="Constant padding; pad_width is a tuple of (before, after) pairs, one per axis.")
diagonal = defop("diagonal", lambda xp, x, offset=0, axis1=0, axis2=1:
                 xp.diagonal(x, offset, axis1, axis2))
roll = defop("roll", lambda xp, x, shift, axis=None: xp.roll(x, shift, axis))
