"""Tensor: the base of every wrapper, giving it the array interface users write against.

A wrapper behaves like an array: Python operators, the common methods, indexing, `.at[]`
updates, and NumPy's own functions through `__array_ufunc__` / `__array_function__`. Every one
of those routes to an op of `functorch_lite.numpy`, and the op dispatches on the wrappers among
its operands (see dispatch.py).

A subclass provides `shape`, `dtype`, `xp` (the array module of the data it holds),
`__tensor_function__` and `_concretize`. Transform wrappers derive from TransformTensor, which
defers both to the interpreter that made the wrapper.
"""
import dis as _dis
import sys as _sys
from _thread import get_ident

import numpy as _np

from .backend import module_of


class Tensor:
    """Base class of wrapper tensors (transform wrappers and user-defined ones).

    `level` orders dispatch: an op offers itself to the highest-level wrapper type first. A
    user-defined subclass has level 0 by default, so it sees an op after every running transform
    has unwrapped its own level; set a larger class attribute to see ops earlier.

    A subclass provides `shape`, `dtype` and the classmethod
    `__tensor_function__(cls, op, types, args, params)`, which handles `op(*args, **params)` or
    returns NotImplemented to pass it on; the array interface (operators, methods, indexing,
    np.* functions) then routes through it.

    Raises:
        TypeError: converting an instance to a Python value or raw array (bool(t),
            np.asarray(t)) unless the subclass defines `_concretize`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> class Logged(ft.Tensor):
        ...     log = []
        ...     def __init__(self, value):
        ...         self.value = value
        ...     shape = property(lambda self: self.value.shape)
        ...     dtype = property(lambda self: self.value.dtype)
        ...     @classmethod
        ...     def __tensor_function__(cls, op, types, args, params):
        ...         cls.log.append(op.name)
        ...         raw = [a.value if isinstance(a, Logged) else a for a in args]
        ...         return Logged(op(*raw, **params))
        >>> out = np.sin(Logged(np.zeros(2))) + 1.0
        >>> out.value, Logged.log
        (array([1., 1.]), ['sin', 'add'])
    """

    __slots__ = ()
    level = 0
    __array_priority__ = 1000
    __hash__ = None  # unhashable, like numpy arrays

    @classmethod
    def __tensor_function__(cls, op, types, args, params):
        """Handle `op(*args, **params)` or return NotImplemented to pass it on."""
        return NotImplemented

    def _concretize(self, kind):
        raise TypeError(f"{type(self).__name__} cannot be converted to a concrete value")

    @property
    def xp(self):
        return _np

    # -- shape facts (logical: the per-example view under vmap) --
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d value")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d value")
        return (self[i] for i in range(self.shape[0]))

    # -- conversions: the interpreter decides (vmap refuses, reverse mode concretizes) --
    def __bool__(self):
        return self._concretize("bool")

    def __float__(self):
        _refuse_store_into_array(self)
        return self._concretize("float")

    def __int__(self):
        _refuse_store_into_array(self)
        return self._concretize("int")

    def __complex__(self):
        _refuse_store_into_array(self)
        return self._concretize("complex")

    def __index__(self):
        return self._concretize("index")

    def __array__(self, dtype=None, copy=None):
        _refuse_store_into_array(self)
        try:
            out = self._concretize("array")
        except TypeError as e:
            hint = _numpy_full_hint(_sys._getframe(1)) or "".join(
                h() for h in _CONVERSION_HINTS)
            if hint:
                raise type(e)(hint + str(e)) from None
            raise
        return out if dtype is None else out.astype(dtype)

    def item(self):
        return self._concretize("float" if self.dtype.kind == "f" else
                                "complex" if self.dtype.kind == "c" else
                                "bool" if self.dtype.kind == "b" else "int")

    def tolist(self):
        return _np.asarray(self._concretize("array")).tolist()

    # -- item assignment is refused: transforms are functional --
    def __setitem__(self, idx, value):
        raise TypeError(
            f"{type(self).__name__} does not support in-place item assignment (x[idx] = v, or a "
            "NumPy function that writes into its argument, such as np.random.shuffle); use the "
            "functional form x = x.at[idx].set(v) (or fnp.at(x)[idx].set(v), which also works "
            "on plain arrays)")

    # No __iadd__ & co.: `x += y` rebinds x to x + y (as for JAX arrays), so the familiar NumPy
    # spelling works under transforms and never writes into a value another name still holds.
    # (ft.jit's tracer refuses it on arrays, which eager NumPy writes into: Note [augmented
    # assignment under ft.jit] in compiler/trace.py.)

    # -- NumPy protocols --
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _protocols["array_ufunc"](ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _protocols["array_function"](func, args, kwargs)

    def __repr__(self):
        return f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype})"


_STORE_SUBSCR = _dis.opmap["STORE_SUBSCR"]


def _numpy_full_hint(frame):
    """np.full(shape, v) converts v with np.asarray before NumPy dispatches anything (its only
    dispatch is on like=), so a wrapper fill value reaches __array__ from numpy's `full`: name
    the two spellings that work."""
    if frame.f_code.co_name == "full" and frame.f_globals.get("__name__", "").startswith(
            "numpy"):
        return ("np.full(shape, v) converts its fill value v with np.asarray first, which a "
                "transform cannot follow: write fnp.full(shape, v) (as jnp.full) or "
                "np.full(shape, v, like=v). ")
    return ""


def _refuse_store_into_array(value):
    """`y[i] = v` with y a NumPy array and v a wrapper: NumPy converts v (float() for one slot,
    __array__ for a slice), which would silently drop v's batch and derivatives (grad would
    even return a wrong gradient). The caller's frame is then at a STORE_SUBSCR: refuse, and
    point to the functional update."""
    frame = _sys._getframe(2)
    if frame is not None and frame.f_code.co_code[frame.f_lasti] == _STORE_SUBSCR:
        raise TypeError(
            f"writing a {type(value).__name__} into a NumPy array (y[idx] = v) would convert it "
            "to a plain number and lose what the transform tracks (its derivative or batch); "
            "build the array functionally: y = fnp.at(y)[idx].set(v) (x.at[idx].set(v) on "
            "functorch_lite values), or collect the pieces and fnp.stack them")


class TransformTensor(Tensor):
    """A wrapper made by a transform's interpreter; dispatch and conversions defer to it.

    A subclass stores the value one level down (a raw array or a lower-level wrapper) in
    `value`; shape, dtype and array module are read off it (BatchedTensor refines `shape` to
    the per-example view). See Note [levels and escaped wrappers] in interpreter.py.
    Users meet subclasses of it (BatchedTensor, GradTensor, DualTensor) as the arguments a
    transformed function receives; they behave like arrays while the transform runs.

    Raises:
        EscapedWrapperError: the wrapper is used after its transform returned, or in another
            thread.
        TypeError: a conversion to a Python value or raw array that the transform cannot give
            (bool(x) on a batched value; any conversion under jit is TracerConversionError).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> seen = []
        >>> _ = ft.grad(lambda x: seen.append(isinstance(x, ft.TransformTensor)) or x.sum())(
        ...     np.ones(2))
        >>> seen
        [True]
    """

    __slots__ = ("_interpreter",)
    replays_layout = False
    """True for a wrapper that stands for a raw array in a program replayed later (ft.jit's
    tracer): a copy that only changes the memory layout is made on it as on a raw array,
    since the layout decides the last bits of a reduction or a product downstream, and
    `as_array()` gives the wrapper of the 0-d array where it stands for a NumPy scalar (the
    conversion transforms make of their 0-d results)."""

    @property
    def shape(self):
        return tuple(self.value.shape)

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def xp(self):
        v = self.value
        return v.xp if isinstance(v, Tensor) else module_of(v)

    @property
    def level(self):
        return self._interpreter.level

    @classmethod
    def __tensor_function__(cls, op, types, args, params):
        return top_interpreter(args).process(op, args, params)

    def _concretize(self, kind):
        self._interpreter.check_alive(self)
        return self._interpreter.concretize(self, kind)

    def __repr__(self):
        return (f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, "
                f"level={self._interpreter.level})")


def top_interpreter(args):
    """The interpreter of highest level among the transform wrappers in `args`; a wrapper whose
    transform has returned, or runs in another thread, raises EscapedWrapperError (Note [levels
    and escaped wrappers] in interpreter.py)."""
    top = None
    me = get_ident()
    for a in args:
        if isinstance(a, TransformTensor):
            interp = a._interpreter
            if interp.thread != me:
                interp.check_alive(a)
            if top is None or interp.level > top.level:
                top = interp
    return top


def check_usable(leaves):
    """Raise EscapedWrapperError for any wrapper among `leaves` whose transform has returned or
    runs in another thread. Transforms call it on what they take in and give back, so such a
    wrapper is refused wherever it shows up, not only when an op meets it."""
    me = None
    for x in leaves:
        if isinstance(x, TransformTensor):
            if me is None:
                me = get_ident()
            if x._interpreter.thread != me:
                x._interpreter.check_alive(x)


# What the NumPy namespace (functorch_lite.numpy, a floor above) installs at import
# (install_numpy): the ufunc and array-function protocols; and sentences that name a
# replacement when converting a wrapper to an array fails (functorch_lite.scipy adds its own).
_protocols = {}
_CONVERSION_HINTS = []


def add_conversion_hint(hint):
    """Register `hint()`: a sentence prefixed to the TypeError of a failed conversion to an array
    (np.asarray(wrapper)), or '' when it has nothing to say about the current call."""
    _CONVERSION_HINTS.append(hint)


def install_numpy(fnp, array_ufunc, array_function):
    """Give Tensor its array interface: Python operators and ndarray-style methods, each a call
    into the NumPy namespace `fnp`, and NumPy's protocols (`array_ufunc(ufunc, method, inputs,
    kwargs)`, `array_function(func, args, kwargs)`). functorch_lite.numpy calls it at import."""
    _protocols.update(array_ufunc=array_ufunc, array_function=array_function)

    def binary(fn):
        return (lambda self, other: fn(self, other)), (lambda self, other: fn(other, self))

    for dunder, fn in [("add", fnp.add), ("sub", fnp.subtract), ("mul", fnp.multiply),
                       ("truediv", fnp.true_divide), ("floordiv", fnp.floor_divide),
                       ("mod", fnp.remainder), ("pow", fnp.power), ("matmul", fnp.matmul)]:
        forward, reflected = binary(fn)
        setattr(Tensor, f"__{dunder}__", forward)
        setattr(Tensor, f"__r{dunder}__", reflected)

    def logical(fn, symbol):
        def forward(self, other):
            _require_bool(self, other, symbol)
            return fn(self, other)

        def reflected(self, other):
            _require_bool(self, other, symbol)
            return fn(other, self)
        return forward, reflected

    for dunder, fn, symbol in [("and", fnp.logical_and, "&"), ("or", fnp.logical_or, "|"),
                               ("xor", fnp.logical_xor, "^")]:
        forward, reflected = logical(fn, symbol)
        setattr(Tensor, f"__{dunder}__", forward)
        setattr(Tensor, f"__r{dunder}__", reflected)

    def invert(self):
        _require_bool(self, True, "~")
        return fnp.logical_not(self)

    for dunder, fn in [("lt", fnp.less), ("le", fnp.less_equal), ("gt", fnp.greater),
                       ("ge", fnp.greater_equal), ("eq", fnp.equal), ("ne", fnp.not_equal)]:
        setattr(Tensor, f"__{dunder}__", binary(fn)[0])
    Tensor.__neg__ = lambda self: fnp.negative(self)
    Tensor.__pos__ = lambda self: fnp.positive(self)
    Tensor.__abs__ = lambda self: fnp.abs(self)
    Tensor.__invert__ = invert
    Tensor.__getitem__ = lambda self, idx: fnp.getitem(self, idx)
    Tensor.at = property(lambda self: fnp.at(self), doc="Functional updates: x.at[idx].set(v)")

    def shape_args(args):
        return args[0] if len(args) == 1 and not isinstance(args[0], int) else args

    Tensor.reshape = lambda self, *shape, order="C": fnp.reshape(self, shape_args(shape), order)
    Tensor.transpose = lambda self, *axes: fnp.transpose(self, shape_args(axes) if axes else None)
    Tensor.T = property(lambda self: fnp.transpose(self))
    Tensor.mT = property(lambda self: fnp.swapaxes(self, -1, -2))
    Tensor.real = property(lambda self: fnp.real(self))
    Tensor.imag = property(lambda self: fnp.imag(self))
    for name in ["sum", "mean", "max", "min", "prod", "argmax", "argmin", "swapaxes", "squeeze",
                 "clip", "cumsum", "cumprod", "all", "any", "var", "std", "ravel",
                 "round", "repeat", "take", "diagonal", "trace", "dot", "flatten", "copy",
                 "nonzero"]:
        if hasattr(fnp, name):
            setattr(Tensor, name, getattr(fnp, name))
    Tensor.conj = Tensor.conjugate = lambda self: fnp.conj(self)   # an Op is no method
    Tensor.flatten = lambda self, order="C": fnp.ravel(self, order)  # not a numpy function
    Tensor.astype = lambda self, dtype, copy=True: fnp.astype(self, dtype)
    Tensor.copy = lambda self, order="C": fnp.copy(self, order)   # ndarray.copy's default


def _require_bool(a, b, symbol):
    for v in (a, b):
        dt = getattr(v, "dtype", None)
        if dt is not None and dt != _np.bool_:
            raise TypeError(f"the operator {symbol} is supported on boolean values only "
                            f"(got {dt}); bitwise integer operations are not implemented")
