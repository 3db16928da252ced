"""Op objects, the op registry, and `__tensor_function__` resolution.

An Op is a primitive: a name, a kernel written against the array module `xp` (numpy or cupy),
and a table of rules keyed by transform ("batch", "jvp", "vjp", or any name a transform picks).
The calling convention is that of a JAX primitive: positional arguments are the operands
(arrays, wrappers or Python scalars) and keyword arguments are static parameters (axes, shapes,
flags) that no transform touches.

Rule signatures (each transform documents its own in detail):
  batch: rule(args, bdims, **params) -> (out, out_bdim)     [tuples for multiple results]
  jvp:   rule(primals, tangents, **params) -> (out, tangent_out)
  vjp:   rule(ct, primals, out, **params) -> tuple of cotangents, one per primal (None = zero)
"""
import functools
import inspect
import sys
from _thread import get_ident

import numpy

from . import backend
from .backend import array_module
from .rule_checks import checked
from .tensor import Tensor, TransformTensor

_MODULES = sys.modules

OPS = {}
"""Every registered Op, by name (`defop` adds to it).

Examples:
    >>> import functorch_lite as ft
    >>> ft.OPS["sin"] is ft.numpy.sin
    True
"""


def _operand_signature(kernel):
    """The signature an op is called with: its kernel's, less the leading array module `xp`
    (what help() and the API reference show)."""
    try:
        sig = inspect.signature(kernel)
    except (TypeError, ValueError):
        return None
    return sig.replace(parameters=list(sig.parameters.values())[1:])


class Op:
    """A primitive operation: a name, a kernel and a table of rules keyed by transform.

    Calling it with no wrapper among the operands runs the kernel; with a wrapper it is
    dispatched to the transform owning the innermost one. Make ops with `defop` (which also
    registers them in OPS) rather than constructing Op directly.

    Args:
        name: the op's name.
        kernel: `kernel(xp, *operands, **params)` on raw arrays.
        differentiable: False for ops with no derivative.
        multiple_results: the kernel returns a tuple.
        doc: the op's docstring.
        numpy_impl: optional NumPy function equal to the kernel with xp=numpy.

    An op whose output shape depends on operand values (not only on their shapes) says so
    with `op.value_dependent_shape = predicate(*operands, **params)`; a tracer then checks
    that shape on every replay. An op whose kernel is itself a function of library ops (a
    custom_vjp's f) offers it as `op.inline(*operands)`, which a tracer may record in its place.

    Raises:
        NotImplementedError: from `op.rule(kind)` (so from a transform) when the op has no rule
            for that transform.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.OPS["sin"].name, isinstance(ft.OPS["sin"], ft.Op)
        ('sin', True)
        >>> ft.OPS["sin"](np.array([0.0]))
        array([0.])
    """


    def __init__(self, name, kernel, *, differentiable=True, multiple_results=False, doc=None,
                 numpy_impl=None):
        self.name = name
        self.kernel = kernel
        # The kernel with xp=numpy bound (or NumPy's own function when it has the op's exact
        # signature): the level-0 CPU path calls it directly, saving a call layer.
        self.numpy_impl = numpy_impl or functools.partial(kernel, numpy)
        self.rules = {}
        self.differentiable = differentiable
        self.multiple_results = multiple_results
        self.__doc__ = doc
        self.value_dependent_shape = None
        self.inline = None
        self.__signature__ = _operand_signature(kernel)

    def __call__(self, *args, **params):
        for a in args:
            if isinstance(a, Tensor):
                return dispatch(self, args, params)
        try:
            if "cupy" in _MODULES or backend._REGISTERED:
                xp = array_module(args, self.name)
                if xp is not numpy:
                    return self.kernel(xp, *args, **params)
            return self.numpy_impl(*args, **params)
        except (TypeError, ValueError) as e:
            _refuse_result_tuple(self, args, e)
            raise

    def impl(self, *args, **params):
        """Run the kernel on raw arrays, bypassing dispatch."""
        return self.kernel(array_module(args, self.name), *args, **params)

    def def_rule(self, kind, rule=None):
        """Attach the rule of transform `kind`; usable as a decorator. A rule defined outside the
        library is stored with a check of its results (rule_checks.py)."""
        if rule is None:
            return lambda r: self.def_rule(kind, r)
        self.rules[kind] = checked(self, kind, rule)
        return rule

    def def_batch_rule(self, rule):
        """Decorator: the batching rule used by vmap."""
        return self.def_rule("batch", rule)

    def def_jvp(self, rule):
        """Decorator: the forward-mode rule used by jvp, jacfwd."""
        return self.def_rule("jvp", rule)

    def def_vjp(self, rule):
        """Decorator: the reverse-mode rule used by grad, vjp, jacrev."""
        return self.def_rule("vjp", rule)

    def rule(self, kind):
        """The rule of transform `kind`, or NotImplementedError naming the op and transform."""
        try:
            return self.rules[kind]
        except KeyError:
            raise NotImplementedError(
                f"op {self.name!r} has no {kind} rule; add one with "
                f"op.def_rule({kind!r}, rule)") from None

    def __repr__(self):
        return f"<Op {self.name}>"


def _refuse_result_tuple(op, args, error):
    """A tuple or list of arrays of several shapes (or of wrappers) that NumPy could not turn
    into one array is most often a function's result tuple passed on whole (batch_norm's
    (out, running_mean, running_var)): say so instead of NumPy's "inhomogeneous shape"."""
    for k, a in enumerate(args):
        if not isinstance(a, (tuple, list)):
            continue
        shapes = [tuple(x.shape) for x in a if hasattr(x, "shape")]
        if shapes and (len(set(shapes)) > 1 or any(isinstance(x, Tensor) for x in a)):
            raise TypeError(
                f"op {op.name!r}: operand {k} is a {type(a).__name__} of {len(a)} values "
                f"(shapes {', '.join(map(str, shapes))}), not an array. A function that returns "
                "several results (ft.nn.batch_norm returns (out, running_mean, running_var)) "
                "was probably passed on whole: unpack it first, e.g. out, mean, var = "
                "ft.nn.batch_norm(...); to combine arrays use fnp.stack or fnp.concatenate"
            ) from error


def defop(name, kernel, *, differentiable=True, multiple_results=False, doc=None,
          numpy_impl=None):
    """Create and register a primitive op.

    The op runs its kernel on raw arrays and is offered to the transforms when an operand is a
    wrapper; attach its rules with `op.def_batch_rule`, `op.def_jvp`, `op.def_vjp` (a transform
    without a rule raises NotImplementedError naming the op; vmap falls back to a loop).
    Positional arguments are operands, keyword arguments static parameters.

    Args:
        name: the op's unique name (the key in OPS).
        kernel: `kernel(xp, *operands, **params)`, computed with the array module `xp` (numpy
            or cupy).
        differentiable: False for ops whose outputs have no derivative (comparisons).
        multiple_results: the kernel returns a tuple of arrays.
        doc: the op's docstring.
        numpy_impl: optional NumPy function equal to `kernel` with xp=numpy (a faster CPU path).

    Returns:
        The registered Op.

    Raises:
        ValueError: an op with this name is already registered.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> cube = ft.defop("doc_cube", lambda xp, x: x ** 3)
        >>> @cube.def_jvp
        ... def cube_jvp(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     return cube(x), 3 * x ** 2 * t
        >>> cube(np.array([2.0]))
        array([8.])
        >>> ft.jvp(cube, (np.array([2.0]),), (np.array([1.0]),))
        (array([8.]), array([12.]))
    """
    if name in OPS:
        raise ValueError(f"an op named {name!r} is already registered")
    op = Op(name, kernel, differentiable=differentiable,
            multiple_results=multiple_results, doc=doc, numpy_impl=numpy_impl)
    op.__module__ = sys._getframe(1).f_globals.get("__name__")  # where help() and the docs find it
    OPS[name] = op
    return op


_PLAIN_TRANSFORM_TYPES = {}


def _is_plain_transform_type(cls):
    """Whether `cls` is a TransformTensor that keeps TransformTensor's __tensor_function__."""
    plain = _PLAIN_TRANSFORM_TYPES.get(cls)
    if plain is None:
        plain = _PLAIN_TRANSFORM_TYPES[cls] = (
            issubclass(cls, TransformTensor) and
            cls.__tensor_function__.__func__ is TransformTensor.__tensor_function__.__func__)
    return plain


def dispatch(op, args, params):
    """Offer the op to each Tensor type among `args`, highest level first, until one handles it.

    See Note [levels and escaped wrappers] in interpreter.py. Fast path: when every Tensor
    among `args` is a plain transform wrapper, the first type offered would be TransformTensor,
    which hands the op to the interpreter of highest level; that is done here directly.
    """
    top = unusable = None
    me = get_ident()
    for a in args:  # top_interpreter(args), in the same pass
        if isinstance(a, Tensor):
            if not (_PLAIN_TRANSFORM_TYPES.get(type(a)) or _is_plain_transform_type(type(a))):
                return _dispatch_by_level(op, args, params)
            interp = a._interpreter
            if interp.thread != me and unusable is None:
                unusable = a
            if top is None or interp.level > top.level:
                top = interp
    if unusable is not None:
        unusable._interpreter.check_alive(unusable)  # raises EscapedWrapperError
    return top.process(op, args, params)


def _dispatch_by_level(op, args, params):
    levels = {}
    for a in args:
        if isinstance(a, Tensor):
            cls = type(a)
            lvl = a.level
            if levels.get(cls, -1) < lvl:
                levels[cls] = lvl
    types = tuple(sorted(levels, key=levels.__getitem__, reverse=True))
    for cls in types:
        out = cls.__tensor_function__(op, types, args, params)
        if out is not NotImplemented:
            return out
    raise TypeError(f"no Tensor type among {[t.__name__ for t in types]} implements op "
                    f"{op.name!r}")
