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

and CuPy 14's own refusals and conventions, each read from CuPy's source:

- `where(cond, x, y)` needs an array (or NumPy scalar) condition: a Python bool or int is an
  AttributeError, as `condition.astype` is in cupy/_sorting/search.py;
- `logical_and`, `logical_or`, `logical_xor` and `logical_not` refuse complex operands
  (cupy/_logic/ops.py registers no complex loop): a TypeError;
- an N-dimensional FFT (`fft2`, `fftn`, their inverses and real forms) of an array with a
  zero-length axis, batch axes included, is "Invalid number of FFT data points (0)" (cuFFT's
  N-d plan, cupy/fft/_fft.py); NumPy returns an empty array;
- `linalg.solve(a, b)` takes b of shape (M,) or exactly (..., M, K) with a's stack dims: no
  broadcasting between a's and b's stacks (cupy/linalg/_solve.py);
- `inv`, `solve` and `cholesky` of a singular or non-positive-definite matrix return NaN rather
  than raising, unless inside `cupyx.errstate(linalg="raise")`, which raises LinAlgError
  (cuSOLVER's devInfo, cupy/linalg/_util.py);
- `eig`'s eigenvectors come with the solver's own sign (here: NumPy's, negated);
- the shape functions `reshape`, `ravel`, `transpose`, `swapaxes`, `moveaxis`, `rollaxis`,
  `expand_dims`, `squeeze`, `broadcast_to` and `repeat` take a device array, never a Python or
  NumPy scalar (cupy/_manipulation/dims.py types its argument `_ndarray_base`): a TypeError;
  so is any non-array among the operands of `stack` (expand_dims on each) and `concatenate`
  ("Only cupy arrays can be concatenated", cupy/_core/_routines_manipulation.pyx);
- `array` / `asarray` of a list or tuple holding device arrays joins them only when every leaf
  is a device array of one shape; anything else (a Python float beside them) goes through NumPy,
  which is the implicit-conversion TypeError (cupy/_core/core.pyx `_compute_concat_info_impl`);
- `cupyx.scatter_add` accumulates repeated indices in an unspecified order (atomics; here in
  reverse), so it matches `numpy.add.at` only up to rounding;
- transcendental ufuncs (exp, log, log1p, sin, cos, tanh, ...) round as CUDA's libm does, not as
  NumPy's: here an ulp up where the input's last bit is set, so a result that must be bitwise
  equal to NumPy's cannot come from them.
- `sort` and `argsort` are stable whatever `kind` says (CuPy sorts with thrust's stable
  radix sort, cupy/cuda/cupy_thrust.cu), where NumPy's default kind may reorder ties.

So a kernel that builds a constant with `numpy`, takes a host round trip, calls a function CuPy
does not have, or calls one as CuPy refuses, fails here as it would on a GPU. `register()`
makes the library treat it as a device backend (the test suite does; the `dxp` fixture's "sim"
parameter runs the device tests on it). It checks where data lives, which functions exist and
how they are called, not GPU speed; of GPU numerics only the rounding modelled above.

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
    functorch_lite.backend.DeviceMismatchError: add got a numpy array (CPU) and a device_sim array (GPU) together; move them to one device first (device_sim.asarray(x) or x.get()). The numpy array: shape (2,), dtype float64
"""
import contextlib
import functools
import sys
import threading
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
_LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not"})  # no complex
_LIBM = frozenset("exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan sinh "
                  "cosh tanh arcsinh arccosh arctanh".split())   # CUDA's libm rounds these
_ARRAY_ONLY = frozenset("reshape ravel transpose swapaxes moveaxis rollaxis expand_dims squeeze "
                        "broadcast_to repeat".split())   # CuPy's `_ndarray_base a` or a.method()
_JOIN = frozenset({"stack", "concatenate", "hstack", "vstack"})   # device arrays only
_FFT_ND = frozenset("fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn".split())


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
        return _call_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if _missing(func):
            raise AttributeError(f"device_sim has no {func.__module__}.{func.__name__}")
        return _counterpart(func)(*args, **kwargs)   # as CuPy: its function of that name

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


def _counterpart(func):
    """The device module's function standing for NumPy's `func` (device_sim.where for
    numpy.where, device_sim.linalg.solve for numpy.linalg.solve, ...)."""
    module = getattr(func, "__module__", "") or ""
    namespace = {"numpy.linalg": linalg, "numpy.fft": fft}.get(module.rsplit("._", 1)[0])
    if namespace is None and module in ("numpy", "numpy._core.multiarray", "numpy._core.numeric",
                                        "numpy._core.fromnumeric", "numpy.lib._function_base_impl"):
        namespace = sys.modules[__name__]
    found = getattr(namespace, func.__name__, None) if namespace is not None else None
    return found if callable(found) and not isinstance(found, _Ufunc) else _function(func)


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
    raw = _unwrap(args)
    if ufunc.__name__ in _LOGICAL and any(np.iscomplexobj(x) for x in raw):
        dtypes = ", ".join(repr(np.result_type(x)) for x in raw)
        raise TypeError(f"Wrong type (({dtypes},)) of arguments for cupy_{ufunc.__name__}")
    out = kwargs.get("out")
    result = getattr(ufunc, method)(*raw, **_unwrap(kwargs))
    if method == "__call__" and ufunc.__name__ in _LIBM:
        target = result if out is None else _unwrap(out[0] if isinstance(out, tuple) else out)
        result = _libm_rounding(raw[0], target)
    if out is not None:
        return out if not isinstance(out, tuple) else (out[0] if len(out) == 1 else out)
    return _wrap(result)


def _libm_rounding(x, result):
    """result one ulp up where x's last bit is set (finite, nonzero results of a float x of
    result's dtype): a deterministic stand-in for CUDA's libm, which differs from NumPy's by an
    ulp here and there. An `out` array is changed in place."""
    x = np.asarray(x)
    if not isinstance(result, (np.ndarray, np.generic)) or result.dtype.kind != "f" \
            or x.dtype != result.dtype:
        return result
    bits = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    bump = ((bits & 1) == 1) & np.isfinite(result) & (result != 0)
    if isinstance(result, np.ndarray) and result.ndim:
        result[bump] = np.nextafter(result[bump], np.inf)
        return result
    return np.nextafter(result, np.inf) if bump else result


def _function(fn):
    @functools.wraps(fn)
    def on_device(*args, **kwargs):
        return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))
    return on_device


def _array_only(fn):
    """A shape function that takes a device array only, as CuPy's typed ones."""
    @functools.wraps(fn)
    def on_device(a, *args, **kwargs):
        if type(a) is not ndarray:
            raise TypeError(f"Argument 'a' has incorrect type (expected device_sim.ndarray, "
                            f"got {type(a).__name__})")
        return _wrap(fn(a._a, *_unwrap(args), **_unwrap(kwargs)))
    return on_device


def _join_arrays_only(fn):
    """stack / concatenate: every operand a device array (CuPy's expand_dims or its check)."""
    @functools.wraps(fn)
    def on_device(tup, *args, **kwargs):
        for a in tup:
            if type(a) is not ndarray:
                raise TypeError(f"Argument 'a' has incorrect type (expected device_sim.ndarray, "
                                f"got {type(a).__name__}) (only device arrays can be joined)")
        return _wrap(fn(_unwrap(tup), *_unwrap(args), **_unwrap(kwargs)))
    return on_device


def where(condition, x=None, y=None):
    """cupy.where: the condition must be an array (it calls condition.astype)."""
    if x is None and y is None:
        return _wrap(np.nonzero(_unwrap(condition)))
    if x is None or y is None:
        raise ValueError("Must provide both 'x' and 'y' or neither.")
    if not hasattr(condition, "astype"):
        raise AttributeError(f"'{type(condition).__name__}' object has no attribute 'astype'")
    return _wrap(np.where(*_unwrap((condition, x, y))))


def argsort(a, axis=-1, kind=None):
    """cupy.argsort: stable, whatever the kind (ties keep their order)."""
    return _wrap(np.argsort(_unwrap(a), axis=axis, kind="stable"))


def sort(a, axis=-1, kind=None):
    """cupy.sort: stable, whatever the kind."""
    return _wrap(np.sort(_unwrap(a), axis=axis, kind="stable"))


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


def _joined_shape(obj):
    """(shape, type) of a nested list or tuple whose leaves are arrays of one type and shape,
    as CuPy's array() joins them; None otherwise."""
    if type(obj) is ndarray or isinstance(obj, np.ndarray):
        return obj.shape, type(obj)
    if not isinstance(obj, (list, tuple)) or not obj:
        return None
    first = _joined_shape(obj[0])
    if first is None or any(_joined_shape(v) != first for v in obj[1:]):
        return None
    return (len(obj),) + first[0], first[1]


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _leaves(v)
    else:
        yield obj


def _sequence_on_host(obj):
    """A list or tuple for array(): device arrays only where CuPy joins them (every leaf one
    device array of one shape); elsewhere NumPy would convert each, which CuPy refuses."""
    if isinstance(obj, (list, tuple)) and _joined_shape(obj) is None:
        for leaf in _leaves(obj):
            if type(leaf) is ndarray:
                leaf.__array__()        # the implicit-conversion TypeError
    return _on_host(obj)


def asarray(a, dtype=None, order=None):
    """a as a device array (a host-to-device copy for NumPy data, as cupy.asarray)."""
    if type(a) is ndarray and (dtype is None or a.dtype == dtype):
        return a
    return ndarray(np.asarray(_sequence_on_host(a), dtype=dtype, order=order))


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    """A new device array from obj (device arrays, NumPy data or nested lists of either)."""
    return ndarray(np.array(_sequence_on_host(obj), dtype=dtype, copy=copy, order=order,
                            ndmin=ndmin))


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


def _scatter_add_unordered(a, slices, value):
    """cupyx.scatter_add: atomics accumulate repeated indices in no set order (here: last first)."""
    raw = _unwrap(a)
    pos = np.arange(raw.size).reshape(raw.shape)[_index(slices)]
    values = np.broadcast_to(_on_host(value), pos.shape).reshape(-1)
    flat = raw.reshape(-1).copy()
    np.add.at(flat, pos.reshape(-1)[::-1], values[::-1])
    raw[...] = flat.reshape(raw.shape)


_CONFIG = threading.local()   # cupyx.errstate's linalg: "ignore" (CuPy's default) or "raise"


@contextlib.contextmanager
def _errstate(*, divide=None, over=None, under=None, invalid=None, linalg=None):
    saved = getattr(_CONFIG, "linalg", "ignore")
    if linalg is not None:
        _CONFIG.linalg = linalg
    try:
        yield
    finally:
        _CONFIG.linalg = saved


_cupyx = types.SimpleNamespace(scatter_add=_scatter_add_unordered,
                               scatter_max=_scatter("maximum"), scatter_min=_scatter("minimum"),
                               errstate=_errstate)


def _polygamma(n, x):
    """cupyx.scipy.special.polygamma: cupy.where(n == 0, ...), so n must be an array."""
    where(n == 0, x, x)
    import scipy.special
    return _wrap(scipy.special.polygamma(*_unwrap((n, x))))


_COMPANIONS = {"cupyx": _cupyx}


def companion(name):
    """The module standing in for a cupyx module: cupyx itself, or scipy.<...> on device arrays
    (with cupyx.scipy.special.polygamma's own refusal)."""
    if name not in _COMPANIONS and name.startswith("cupyx.scipy."):
        import importlib
        source = importlib.import_module(name[len("cupyx."):])
        _COMPANIONS[name] = _Namespace("device_sim." + name, source)
        if name == "cupyx.scipy.special":
            _COMPANIONS[name].polygamma = _polygamma
    if name not in _COMPANIONS:
        raise ImportError(f"device_sim has no counterpart of {name}")
    return _COMPANIONS[name]


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


def _unless_singular(fn, name):
    """A factorization that gives NaN for a singular (or non-positive-definite) matrix, as
    cuSOLVER with CuPy's default errstate; LinAlgError inside errstate(linalg="raise")."""
    def on_device(a, *rest):
        raw, rest = _unwrap(a), _unwrap(rest)
        try:
            return _wrap(fn(raw, *rest))
        except np.linalg.LinAlgError:
            if getattr(_CONFIG, "linalg", "ignore") == "raise":
                raise np.linalg.LinAlgError(f"Error reported by {name} in cuSOLVER. devInfo "
                                            "!= 0. Please refer to the cuSOLVER documentation.")
        eye = np.broadcast_to(np.eye(raw.shape[-1], dtype=raw.dtype), raw.shape)
        out = np.array(fn(eye, *rest))
        for i in np.ndindex(raw.shape[:-2]):
            part = tuple(r[i] if np.ndim(r) > 1 else r for r in rest)
            try:
                out[i] = fn(raw[i], *part)
            except np.linalg.LinAlgError:
                out[i] = np.nan
        if raw.ndim == 2:
            out[...] = np.nan
        return ndarray(out)
    on_device.__name__ = name
    return on_device


def _solve(a, b):
    """CuPy's solve: b is (M,), or (..., M, K) with exactly a's stack dims."""
    a_shape, b_shape = np.shape(_unwrap(a)), np.shape(_unwrap(b))
    if len(b_shape) == 0:
        raise ValueError("b must have at least one dimension")
    if len(b_shape) == 1 and a_shape[-1] != b_shape[0]:
        raise ValueError("a must have (..., M, M) shape and b must have (M,) "
                         "for one-dimensional b")
    if len(b_shape) > 1 and a_shape[:-1] != b_shape[:-1]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) "
                         "for multidimensional b")
    return _solve_or_nan(a, b)


def _eig(a):
    w, v = np.linalg.eig(_unwrap(a))
    return ndarray(w), ndarray(-v)


_solve_or_nan = _unless_singular(np.linalg.solve, "getrs")
linalg.inv = _unless_singular(np.linalg.inv, "getrf")
linalg.cholesky = _unless_singular(np.linalg.cholesky, "potrf")
linalg.solve = _solve
linalg.eig = _eig


def _fft_nd(name):
    """An N-d FFT: where CuPy plans it with cuFFT's N-d plan (more than one axis, contiguous,
    touching the first or last), any zero-length axis is refused."""
    fn = getattr(np.fft, name)

    @functools.wraps(fn)
    def on_device(a, s=None, axes=None, norm=None):
        raw = _unwrap(a)
        if axes is None:
            count = len(s) if s is not None else (2 if name.endswith("2") else raw.ndim)
            axes = tuple(range(-count, 0))
        ordered = sorted(ax % raw.ndim for ax in axes) if raw.ndim else []
        shape = list(raw.shape)
        for ax, n in zip(axes, s if s is not None else ()):
            shape[ax] = n
        nd_plan = (len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1))
                   and (ordered[0] == 0 or ordered[-1] == raw.ndim - 1))
        if nd_plan and 0 in shape:
            raise ValueError("Invalid number of FFT data points (0) specified.")
        return _wrap(fn(raw, s=s, axes=axes, norm=norm))
    return on_device


for _name in _FFT_ND:
    setattr(fft, _name, _fft_nd(_name))
random = _Namespace("device_sim.random", np.random)


_LOOKED_UP = {}   # kept apart from the globals, where `all`, `bool`, `sum` would shadow builtins


def __getattr__(name):
    """numpy.<name> over device arrays, for the names CuPy has."""
    value = _LOOKED_UP.get(name, _LOOKED_UP)
    if value is not _LOOKED_UP:
        return value
    if name.startswith("__") or name in _MISSING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    attr = getattr(np, name)
    value = _LOOKED_UP[name] = (_array_only(attr) if name in _ARRAY_ONLY else
                                _join_arrays_only(attr) if name in _JOIN else _device_attr(attr))
    return value
