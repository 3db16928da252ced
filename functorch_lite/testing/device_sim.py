"""A strict CPU stand-in for CuPy, so that the device paths of the library run without a GPU.

`device_sim` is an array module like `cupy`: its arrays (`device_sim.ndarray`) live "on the
device", computed by NumPy underneath, and it refuses what CuPy refuses:

- implicit conversion to NumPy (`numpy.asarray(x)`, SciPy on a device array) is a TypeError,
  as is any NumPy array (even 0-d) meeting a device array in a ufunc or function;
- NumPy and Python scalars mix freely, NumPy index arrays index device arrays, and
  `device_sim.asarray` / `.get()` / `device_sim.asnumpy` move data explicitly;
- reductions and scalar indexing return 0-d device arrays, not NumPy scalars;
- NumPy names CuPy lacks (`errstate`, `linalg.vector_norm`, ...) are missing, and `ufunc.at`,
  `.reduce` and `.accumulate` exist only for the ufuncs where CuPy has them.

So a kernel that builds a constant with `numpy`, takes a host round trip, or calls a function
CuPy does not have fails here as it would on a GPU. `register()` makes the library treat it as a
device backend (the test suite does; the `backend` fixture's "sim" parameter runs the generic
tests on it). It checks where data lives and which functions exist, not GPU speed or numerics.

Examples:
    >>> import numpy as np, functorch_lite as ft
    >>> from functorch_lite.testing import device_sim
    >>> device_sim.register()
    >>> x = device_sim.asarray([1.0, 2.0])
    >>> ft.grad(lambda v: (v ** 2).sum())(x)
    device_sim.array([2., 4.])
    >>> ft.numpy.add(x, np.ones(2))
    Traceback (most recent call last):
    ...
    functorch_lite.backend.DeviceMismatchError: add got a numpy array (CPU) and a device_sim array (GPU) together; move them to one device first (device_sim.asarray(x) or x.get())
"""
import functools
import sys
import types

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .. import backend

# NumPy names with no CuPy counterpart (CuPy 14's namespace compared with NumPy 2's).
_MISSING = frozenset("""
False_ ScalarType True_ asmatrix block bmat busday_count busday_offset busdaycalendar bytes_
char character clongdouble complex256 core ctypeslib datetime64 datetime_as_string
datetime_data dtypes einsum_path emath errstate f2py flexible float128 frompyfunc fromregex
geomspace get_include getbufsize geterr geterrcall histogram_bin_edges info insert is_busday
isnat little_endian longdouble ma matrix matvec memmap nanpercentile nanquantile ndenumerate
nditer nested_iters object_ polyder polydiv polyint rec recarray record sctypeDict setbufsize
seterr seterrcall show_runtime spacing str_ strings test timedelta64 typecodes typing unstack
vecdot vecmat void""".split())
_LINALG = frozenset("""LinAlgError cholesky cond cross det eig eigh eigvals eigvalsh inv lstsq
matmul matrix_power matrix_rank matrix_transpose norm pinv qr slogdet solve svd tensorinv
tensorsolve""".split())
_FFT = frozenset("""fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft
irfft2 irfftn rfft rfft2 rfftfreq rfftn""".split())
_AT = frozenset({"add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or",
                 "bitwise_xor"})        # CuPy's ufunc.at (the others raise NotImplementedError)
_REDUCE = frozenset({"add", "multiply"})  # CuPy's ufunc.reduce / .accumulate


_HANDLED = (np.ndarray, np.generic, int, float, complex)  # NumPy arrays refused in _unwrap


def _refuse(x):
    raise TypeError(f"Unsupported type {type(x)}: a numpy array met a device_sim array "
                    "(move it with device_sim.asarray first)")


def _unwrap(x):
    """Raw NumPy values of device arrays, through lists, tuples and dicts; NumPy arrays refused."""
    if type(x) is ndarray:
        return x._a
    if isinstance(x, np.ndarray):
        _refuse(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x):
    """Device arrays for the NumPy arrays and scalars a computation returned."""
    if isinstance(x, (np.ndarray, np.generic)):
        return ndarray(np.asarray(x))
    if type(x) is tuple or type(x) is list:
        return type(x)(_wrap(v) for v in x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):        # named tuples (linalg results)
        return type(x)(*(_wrap(v) for v in x))
    return x


def _index(key):
    """An index for a device array: device arrays unwrapped, NumPy index arrays accepted."""
    if type(key) is ndarray:
        return key._a
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, list):
        return [_index(k) for k in key]
    return key


def _on_host(x):
    """Any value as host data, for the explicit transfers."""
    if type(x) is ndarray:
        return x._a
    if isinstance(x, (list, tuple)):
        return type(x)(_on_host(v) for v in x)
    return x


class ndarray(NDArrayOperatorsMixin):
    """An array on the simulated device: NumPy data that refuses to meet NumPy arrays."""

    __slots__ = ("_a",)

    def __init__(self, raw):
        self._a = raw

    # -- conversion ------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    def get(self):
        """The data as a NumPy array (an explicit device-to-host copy)."""
        return self._a.copy()

    def __repr__(self):
        return "device_sim." + repr(self._a)

    __str__ = __repr__

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __index__(self):
        return self._a.__index__()

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (ndarray(np.asarray(v)) for v in self._a)

    def item(self, *args):
        return self._a.item(*args)

    def tolist(self):
        return self._a.tolist()

    # -- NumPy protocols -------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if not all(type(x) is ndarray or isinstance(x, _HANDLED) for x in inputs):
            return NotImplemented   # as CuPy: another operand's __array_ufunc__ gets its turn
        if method in ("at", "reduce", "accumulate", "reduceat"):
            allowed = _AT if method == "at" else _REDUCE
            if ufunc.__name__ not in allowed:
                raise NotImplementedError(f"`{ufunc.__name__}.{method}` is not supported yet")
        if method == "at":
            a, idx, *rest = inputs
            getattr(ufunc, method)(_unwrap(a), _index(idx), *_unwrap(rest))
            return None
        out = kwargs.get("out")
        result = getattr(ufunc, method)(*_unwrap(inputs), **_unwrap(kwargs))
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        if _missing(func):
            raise AttributeError(f"device_sim has no {func.__module__}.{func.__name__}")
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    # -- indexing --------------------------------------------------------------------------
    def __getitem__(self, key):
        return _wrap(self._a[_index(key)])

    def __setitem__(self, key, value):
        self._a[_index(key)] = _on_host(value)

    # -- attributes: properties and methods of the NumPy array, results on the device ------
    def __getattr__(self, name):
        attr = getattr(self._a, name)
        if callable(attr):
            return functools.wraps(attr)(lambda *a, **k: _wrap(attr(*_unwrap(a), **_unwrap(k))))
        return _wrap(attr)

    @property
    def shape(self):
        return self._a.shape

    @shape.setter
    def shape(self, value):
        self._a.shape = value

    @property
    def dtype(self):
        return self._a.dtype

    @property
    def ndim(self):
        return self._a.ndim

    @property
    def size(self):
        return self._a.size

    @property
    def strides(self):
        return self._a.strides

    @property
    def T(self):
        return ndarray(self._a.T)

    @property
    def real(self):
        return ndarray(self._a.real)

    @property
    def imag(self):
        return ndarray(self._a.imag)

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())

    def __reduce__(self):
        return (ndarray, (self._a,))


def _missing(func):
    module = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", "")
    if module.startswith("numpy.linalg"):
        return name not in _LINALG
    if module.startswith("numpy.fft"):
        return name not in _FFT
    return name in _MISSING


class _Ufunc:
    """A NumPy ufunc on device arrays, with CuPy's subset of the ufunc methods."""

    def __init__(self, ufunc):
        self._u = ufunc
        self.__name__ = ufunc.__name__
        self.nin, self.nout, self.nargs = ufunc.nin, ufunc.nout, ufunc.nargs
        self.identity, self.types = ufunc.identity, ufunc.types

    def __call__(self, *args, **kwargs):
        return _call_ufunc(self._u, "__call__", args, kwargs)

    def outer(self, a, b, **kwargs):
        return _call_ufunc(self._u, "outer", (a, b), kwargs)

    def at(self, a, indices, b=None):
        if self.__name__ not in _AT:
            raise NotImplementedError(f"`{self.__name__}.at` is not supported yet")
        args = (_unwrap(a), _index(indices)) + (() if b is None else (_unwrap(b),))
        self._u.at(*args)

    def reduce(self, array, *args, **kwargs):
        return self._method("reduce", array, args, kwargs)

    def accumulate(self, array, *args, **kwargs):
        return self._method("accumulate", array, args, kwargs)

    def _method(self, method, array, args, kwargs):
        if self.__name__ not in _REDUCE:
            raise NotImplementedError(f"`{self.__name__}.{method}` is not supported yet")
        return _call_ufunc(self._u, method, (array,) + args, kwargs)

    def __repr__(self):
        return f"<device_sim ufunc {self.__name__}>"


def _call_ufunc(ufunc, method, args, kwargs):
    out = kwargs.get("out")
    result = getattr(ufunc, method)(*_unwrap(args), **_unwrap(kwargs))
    if out is not None:
        return out if not isinstance(out, tuple) else (out[0] if len(out) == 1 else out)
    return _wrap(result)


def _function(fn):
    @functools.wraps(fn)
    def on_device(*args, **kwargs):
        return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))
    return on_device


def _device_attr(attr):
    """A NumPy attribute as the device module offers it: ufuncs and functions over device
    arrays; dtypes, classes and constants (pi, newaxis) as they are."""
    if isinstance(attr, np.ufunc):
        return _Ufunc(attr)
    if isinstance(attr, type) or not callable(attr):
        return attr
    return _function(attr)


class _Namespace(types.ModuleType):
    """A NumPy namespace (numpy.linalg, numpy.fft, scipy.special, ...) over device arrays."""

    def __init__(self, name, source, allowed=None):
        super().__init__(name)
        self._source, self._allowed = source, allowed

    def __getattr__(self, name):
        if name.startswith("__") or name in _MISSING or (
                self._allowed is not None and name not in self._allowed):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = _device_attr(getattr(self._source, name))
        setattr(self, name, value)
        return value


def asarray(a, dtype=None, order=None):
    """a as a device array (a host-to-device copy for NumPy data, as cupy.asarray)."""
    if type(a) is ndarray and (dtype is None or a.dtype == dtype):
        return a
    return ndarray(np.asarray(_on_host(a), dtype=dtype, order=order))


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    """A new device array from obj (device arrays, NumPy data or nested lists of either)."""
    return ndarray(np.array(_on_host(obj), dtype=dtype, copy=copy, order=order, ndmin=ndmin))


def asnumpy(a):
    """a as a NumPy array (a device-to-host copy, as cupy.asnumpy)."""
    return a.get() if type(a) is ndarray else np.asarray(a)


def fuse(*args, **kwargs):
    """cupy.fuse's stand-in: the function runs as it is, one device op at a time."""
    if args and callable(args[0]):
        return args[0]
    return lambda fn: fn


def _scatter(name):
    def scatter(a, slices, value):
        getattr(np, name).at(_unwrap(a), _index(slices), _on_host(value))
    scatter.__name__ = "scatter_" + name
    return scatter


_cupyx = types.SimpleNamespace(scatter_add=_scatter("add"), scatter_max=_scatter("maximum"),
                               scatter_min=_scatter("minimum"))


def companion(name):
    """The module standing in for a cupyx module: cupyx itself, or scipy.<...> on device arrays."""
    if name == "cupyx":
        return _cupyx
    if name.startswith("cupyx.scipy."):
        import importlib
        source = importlib.import_module(name[len("cupyx."):])
        return _Namespace("device_sim." + name, source)
    raise ImportError(f"device_sim has no counterpart of {name}")


def register():
    """Make the library treat device_sim arrays as arrays of a device backend (idempotent)."""
    backend.register_array_module(sys.modules[__name__])


_stride_tricks = types.SimpleNamespace(
    as_strided=lambda x, shape=None, strides=None: ndarray(
        np.lib.stride_tricks.as_strided(_unwrap(x), shape, strides)),
    sliding_window_view=_function(np.lib.stride_tricks.sliding_window_view))
lib = types.SimpleNamespace(stride_tricks=_stride_tricks)
linalg = _Namespace("device_sim.linalg", np.linalg, _LINALG)
fft = _Namespace("device_sim.fft", np.fft, _FFT)
random = _Namespace("device_sim.random", np.random)


_LOOKED_UP = {}   # kept apart from the globals, where `all`, `bool`, `sum` would shadow builtins


def __getattr__(name):
    """numpy.<name> over device arrays, for the names CuPy has."""
    value = _LOOKED_UP.get(name, _LOOKED_UP)
    if value is not _LOOKED_UP:
        return value
    if name.startswith("__") or name in _MISSING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = _LOOKED_UP[name] = _device_attr(getattr(np, name))
    return value
