"""Array-module selection: NumPy on the CPU, CuPy on NVIDIA GPUs.

The backend is read off the raw arrays an op receives, never set globally, so one program can
hold CPU and GPU values side by side; mixing the two inside one op is refused.
"""
import sys

import numpy


class DeviceMismatchError(TypeError):
    """An op received NumPy (CPU) and CuPy (GPU) arrays together.

    Move every operand to one device first (cupy.asarray, or .get() back to NumPy). A
    subclass of TypeError; the message names the op. It needs CuPy to occur, so there is no
    runnable example here: `fnp.add(numpy_array, cupy_array)` raises it.
    """


def _cupy():
    """The cupy module if the program has imported it; we never import it ourselves."""
    return sys.modules.get("cupy")


def array_module(args, op_name="op"):
    """numpy or cupy, from the raw arrays among `args` (Python scalars are neutral)."""
    cupy = _cupy()
    if cupy is None:
        return numpy
    found = None
    for a in args:
        if isinstance(a, cupy.ndarray):
            mod = cupy
        elif isinstance(a, (numpy.ndarray, numpy.generic)):
            mod = numpy
        else:
            continue
        if found is None:
            found = mod
        elif found is not mod:
            raise DeviceMismatchError(
                f"{op_name} got a numpy array (CPU) and a cupy array (GPU) together; "
                "move them to one device first (cupy.asarray(x) or x.get())")
    return found or numpy


def module_of(x):
    """numpy or cupy for one raw value."""
    cupy = _cupy()
    if cupy is not None and isinstance(x, cupy.ndarray):
        return cupy
    return numpy


def is_array(x):
    """True for a raw backend array or NumPy scalar."""
    if isinstance(x, (numpy.ndarray, numpy.generic)):
        return True
    cupy = _cupy()
    return cupy is not None and isinstance(x, cupy.ndarray)
