"""Array-module selection: NumPy on the CPU, CuPy on NVIDIA GPUs.

The backend is read off the raw arrays an op receives, never set globally, so one program can
hold CPU and GPU values side by side; mixing the two inside one op is refused. Besides CuPy,
another NumPy-compatible device module can be registered (`register_array_module`): the test
suite registers a strict CPU stand-in for CuPy (functorch_lite.testing.device_sim) so that the
device paths of every kernel and rule run in CI, where there is no GPU.
"""
import importlib
import os
import sys

import numpy

_REGISTERED = []   # device array modules registered besides cupy (each has an `ndarray` type)


class DeviceMismatchError(TypeError):
    """An op received NumPy (CPU) and CuPy (GPU) arrays together.

    Move every operand to one device first (cupy.asarray, or .get() back to NumPy). A
    subclass of TypeError; the message names the op and the NumPy operand's shape and dtype, and
    where the user's code holds it (a constant a transformed function closes over, a local or
    a global: the innermost frame outside the library naming that array). NumPy and Python
    scalars are not arrays
    here: they mix with CuPy arrays freely, as in CuPy itself. The example uses device_sim,
    the CPU stand-in for CuPy (functorch_lite.testing.device_sim); with CuPy,
    `fnp.add(np.ones(2), cupy.ones(2))` raises the same.

    Examples:
        >>> import numpy as np, functorch_lite as ft, functorch_lite.numpy as fnp
        >>> from functorch_lite.testing import device_sim
        >>> device_sim.register()
        >>> x = device_sim.asarray([1.0, 2.0])
        >>> try:
        ...     fnp.add(np.ones(2), x)
        ... except ft.DeviceMismatchError as e:
        ...     print(e)
        add got a numpy array (CPU) and a device_sim array (GPU) together; move them to one
        device first (device_sim.asarray(x) or x.get()). The numpy array: shape (2,), dtype
        float64
        >>> fnp.add(np.float32(1.0), x)
        device_sim.array([2., 3.])
    """


def register_array_module(module):
    """Treat `module` as a device backend beside CuPy: arrays of type `module.ndarray` select
    it as their array module. `module.companion(name)` must give its counterpart of a cupyx
    module (`"cupyx"`, `"cupyx.scipy.special"`, ...). Registering twice is harmless."""
    if module not in _REGISTERED:
        _REGISTERED.append(module)


def device_modules():
    """The non-NumPy array modules in use: cupy once the program imported it, and the
    registered ones. Empty on a CPU-only program, which keeps the NumPy path free of checks."""
    cupy = sys.modules.get("cupy")
    return ((cupy,) if cupy is not None else ()) + tuple(_REGISTERED)


def _device_module(x, modules):
    for mod in modules:
        if isinstance(x, mod.ndarray):
            return mod
    return None


def array_module(args, op_name="op"):
    """numpy or the device module (cupy), from the raw arrays among `args` (Python scalars and
    NumPy scalars are neutral, as CuPy takes them with its arrays)."""
    modules = device_modules()
    if not modules:
        return numpy
    found = None
    host = None
    for a in args:
        mod = _device_module(a, modules)
        if mod is None:
            if host is None and isinstance(a, numpy.ndarray):
                host = a
            continue
        if found is not None and found is not mod:
            raise DeviceMismatchError(f"{op_name} got arrays of {_short(found)} and "
                                      f"{_short(mod)} together")
        found = mod
    if found is not None and host is not None:
        raise DeviceMismatchError(
            f"{op_name} got a numpy array (CPU) and a {_short(found)} array (GPU) together; "
            f"move them to one device first ({_short(found)}.asarray(x) or x.get()). The "
            f"numpy array: shape {host.shape}, dtype {host.dtype}{_origin(host)}")
    return found or numpy


_LIBRARY = os.path.dirname(os.path.abspath(__file__))


def _origin(x):
    """Where the user's code holds the array x, read off the Python stack when the error is
    raised (it costs nothing otherwise): in the innermost frame outside the library that
    names x itself, a variable the function captures from an enclosing scope (a closure
    constant: the usual source, a NumPy array built beside device data), a local or a global."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not os.path.abspath(code.co_filename).startswith(_LIBRARY):
            where = f"`{code.co_name}` ({os.path.basename(code.co_filename)}:{frame.f_lineno})"
            for name, value in frame.f_locals.items():
                if value is x:
                    return (f", is `{name}`, a constant that {where} closes over"
                            if name in code.co_freevars else
                            f", is `{name}`, a local variable of {where}")
            for name, value in frame.f_globals.items():
                if value is x:
                    return f", is the global `{name}` read by {where}"
        frame = frame.f_back
    return ""


def _short(module):
    return module.__name__.rsplit(".", 1)[-1]


def module_of(x):
    """numpy or the device module for one raw value."""
    modules = device_modules()
    return (_device_module(x, modules) if modules else None) or numpy


def is_array(x):
    """True for a raw backend array or NumPy scalar."""
    if isinstance(x, (numpy.ndarray, numpy.generic)):
        return True
    modules = device_modules()
    return bool(modules) and _device_module(x, modules) is not None


def is_host(xp):
    """True when `xp` is NumPy: kernels that pick a different formulation on a GPU test this."""
    return xp is numpy


def companion(xp, name):
    """The device counterpart of a cupyx module (`name` such as "cupyx.scipy.special") for the
    array module `xp`: imported for cupy, asked of a registered module."""
    if xp in _REGISTERED:
        return xp.companion(name)
    return importlib.import_module(name)
