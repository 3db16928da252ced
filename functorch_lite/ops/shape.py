"""Shape primitives. Other shape functions (squeeze, stack, split, tile, ...) are composites of
these in functorch_lite.numpy."""
import numpy as np

from ..dispatch import defop


def _numpy_broadcast_to(x, shape):
    """np.broadcast_to as a direct read-only strided view (NumPy's Python wrapper costs about
    3 us, this under 1 us). Anything but a C-contiguous ndarray or a NumPy scalar, and every
    error (incompatible or negative shapes), goes to np.broadcast_to itself, so its semantics
    and messages hold."""
    if isinstance(x, np.generic):  # a NumPy scalar (a reduction's result): its 0-d array
        x = np.asarray(x)
    if type(x) is np.ndarray:
        xshape = x.shape
        lead = len(shape) - len(xshape)
        if lead >= 0:
            if shape[lead:] == xshape:  # the usual case: new leading axes only
                strides = (0,) * lead + x.strides
            else:
                strides = _broadcast_strides(xshape, shape, lead, x.strides)
            if strides is not None:
                try:  # the buffer of a non-contiguous or object array is refused: fall back
                    out = np.ndarray(shape, x.dtype, x, 0, strides)
                except (ValueError, TypeError, BufferError):
                    pass
                else:
                    out.setflags(write=False)
                    return out
    return np.broadcast_to(x, shape)


def _broadcast_strides(xshape, shape, lead, xstrides):
    """The strides of `xshape` broadcast to `shape` (0 on stretched and size-1 axes), or None
    when the shapes are incompatible."""
    strides = [0] * lead
    for n, d, st in zip(xshape, shape[lead:], xstrides):
        if n == 1:
            strides.append(0)
        elif n == d:
            strides.append(st)
        else:
            return None
    return strides


def _numpy_reshape(x, shape, order="C"):
    """np.reshape without its Python wrapper (the method it ends in) for an ndarray."""
    if type(x) is np.ndarray:
        return x.reshape(shape, order=order)
    return np.reshape(x, shape, order=order)


reshape = defop("reshape", lambda xp, x, shape, order="C": xp.reshape(x, shape, order=order),
                numpy_impl=_numpy_reshape)
transpose = defop("transpose", lambda xp, x, axes=None: xp.transpose(x, axes))
broadcast_to = defop("broadcast_to", lambda xp, x, shape: xp.broadcast_to(x, shape),
                     numpy_impl=_numpy_broadcast_to)
concatenate = defop("concatenate", lambda xp, *xs, axis=0: xp.concatenate(xs, axis=axis),
                    doc="Join operands along an existing axis (axis=None flattens them first).")
pad = defop("pad", lambda xp, x, pad_width, constant_values=0:
            xp.pad(x, pad_width, mode="constant", constant_values=constant_values),
            doc="Constant padding; pad_width is a tuple of (before, after) pairs, one per axis.")
diagonal = defop("diagonal", lambda xp, x, offset=0, axis1=0, axis2=1:
                 xp.diagonal(x, offset, axis1, axis2))
copy = defop("copy", lambda xp, x, order="K": xp.array(x, copy=True, order=order),
             doc="""A copy of x in the memory layout `order` ("K", "C", "F" or "A"), as numpy.copy.

    The identity to every derivative. An op, not a no-op on traced values, because a layout
    decides the last bits of what reads it (a reduction's summation order, a BLAS kernel's
    choice): ft.jit's program makes the copy eager code makes (a transposed argument that
    `x.copy()` makes C-contiguous is summed row by row there too).""")
roll = defop("roll", lambda xp, x, shift, axis=None: xp.roll(x, shift, axis))
split = defop("split", lambda xp, x, points, axis=0: tuple(
                  x[(slice(None),) * axis + (slice(lo, hi),)]
                  for lo, hi in zip(points[:-1], points[1:])),
              multiple_results=True,
              doc="The pieces of x between consecutive `points` (0 first, the axis' length "
                  "last) along `axis` (non-negative), views. One op for all the pieces, so "
                  "their cotangents join by one concatenation, not a scatter-add per piece.")
unstack = defop("unstack", lambda xp, x, axis=0: tuple(xp.moveaxis(x, axis, 0)),
                multiple_results=True, numpy_impl=getattr(np, "unstack", None),  # NumPy >= 2.1
                doc="The slices of x along `axis` (non-negative), a tuple of views.")
