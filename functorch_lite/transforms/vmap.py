"""vmap: run a per-example function over a batch, as one batched computation.

Each vmap call pushes a VmapInterpreter (one level, see Note [levels and escaped wrappers] in
interpreter.py) and wraps every array input leaf in a BatchedTensor(value, bdim): `value` is
the next level down (a raw array or a lower-level wrapper) and `bdim` the position of the batch
dim in it. The wrapper reports the *logical* shape (value.shape without bdim), so the user's code
sees one example. An op reaching the interpreter is answered by the op's batching rule
(`op.rules["batch"]`), which calls library ops on the unwrapped values, or, when the op has
none, by the loop fallback (batching_rules/fallback.py).

Note [unbatched values of the level]
------------------------------------
An argument with in_dim None (and an array keyword argument) is wrapped too, with bdim None, as
every argument of a JAX vmap is a JAX array: NumPy's own ndarray.__getitem__ or np.take would
otherwise meet a batched index and fail, and a raw array has no `.at`. An op whose operands of
this level are all unbatched runs one level down and its result is wrapped again with bdim None,
so values computed from unbatched arguments stay values of the level; batching rules only ever
see operands with at least one batched. An unbatched value holds one value for every example,
so it may be concretized (Python control flow on it works). Python scalars are never wrapped.
"""
import functools
import sys

import numpy as np
import optree

from .. import batching_rules  # noqa: F401  (registers the batching rules)
from .. import numpy as fnp
from ..backend import is_array, module_of
from ..batching_rules.fallback import loop_batch_rule
from ..dispatch import OPS, Op
from ..interpreter import Interpreter
from ..tensor import Tensor, TransformTensor, check_usable
from ._pytree import (check_function, check_output_leaf, conversion_hint, fresh_outputs,
                      refuse_array_subclass)

class _Unset:
    """The default of in_dims/out_dims and their JAX spellings: 0, told apart from an explicit
    argument so that two spellings in one call are refused."""

    def __repr__(self):
        return "0"      # what the signature shows (help(), the API reference)


_MISSING = _Unset()


class BatchedTensor(TransformTensor):
    """A batch of values seen as one example: `value` holds the batch along axis `bdim`.

    What a function under vmap receives for a batched argument: its `shape` is the
    per-example shape. Made by vmap only.

    Args:
        value: the whole batch (a raw array or a lower-level wrapper).
        bdim: the batch axis of `value`.
        interpreter: the vmap interpreter that owns it.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> seen = []
        >>> def f(x):
        ...     seen.append((type(x).__name__, x.shape, x.bdim, x.value.shape))
        ...     return x
        >>> _ = ft.vmap(f, in_dims=1)(np.zeros((3, 4)))
        >>> seen
        [('BatchedTensor', (3,), 1, (3, 4))]
    """

    __slots__ = ("value", "bdim")

    def __init__(self, value, bdim, interpreter):
        self.value = value
        self.bdim = bdim
        self._interpreter = interpreter

    @property
    def shape(self):
        s = tuple(self.value.shape)
        b = self.bdim
        return s if b is None else s[:b] + s[b + 1:]

    @property
    def ndim(self):
        return len(self.value.shape) - (self.bdim is not None)

    def __repr__(self):
        return (f"BatchedTensor(shape={self.shape}, dtype={self.dtype}, bdim={self.bdim}, "
                f"batch_size={self._interpreter.batch_size}, level={self._interpreter.level})")


class VmapShapeError(ValueError):
    """A shape error inside a vmapped function, reported with the logical shapes."""


class VmapIndexError(IndexError):
    """An index error inside a vmapped function, reported with the logical shapes."""


_BOTH = {}


def _both(kind, vmap_kind):
    """An exception class that is both the kernel's `kind` and `vmap_kind`, so the restated
    error is caught by either name (`except np.linalg.LinAlgError` works in a loop and under
    vmap alike); it keeps kind's name. Cached: one class per pair."""
    if issubclass(kind, vmap_kind):
        return kind
    if issubclass(vmap_kind, kind):
        return vmap_kind
    cls = _BOTH.get((kind, vmap_kind))
    if cls is None:
        try:
            cls = type(kind.__name__, (kind, vmap_kind),
                       {"__module__": kind.__module__, "__qualname__": kind.__qualname__,
                        "__reduce__": _reduce_both})
        except TypeError:  # a layout conflict (a C class with its own fields): vmap's own
            return vmap_kind
        _BOTH[(kind, vmap_kind)] = cls
    return cls


def _reduce_both(err):
    """Pickling (a Dask cluster sends errors back): rebuilt through _both, as the class is
    made at run time."""
    kind, vmap_kind = type(err).__bases__
    return _rebuild_both, (kind, vmap_kind, err.args), err.__dict__


def _rebuild_both(kind, vmap_kind, args):
    return _both(kind, vmap_kind)(*args)


class VmapInterpreter(Interpreter):
    """Applies batching rules. Arguments of other levels are constants (bdim None)."""

    name = "vmap"

    def __init__(self, batch_size):
        super().__init__()
        self.batch_size = batch_size

    def process(self, op, args, params):
        values, bdims, batched = [], [], False
        for a in args:
            if type(a) is BatchedTensor and a._interpreter is self:
                values.append(a.value)
                bdim = a.bdim
                bdims.append(bdim)
                if bdim is not None:
                    batched = True
            else:
                values.append(a)
                bdims.append(None)
        if not batched:  # Note [unbatched values of the level]
            out = op(*values, **params)
            if op.multiple_results:
                return tuple(self.unbatched(o) for o in out)
            return self.unbatched(out)
        rule = op.rules.get("batch")
        try:
            if rule is None:
                out, out_bdim = loop_batch_rule(op, values, tuple(bdims), self.batch_size,
                                                params)
            else:
                out, out_bdim = rule(values, tuple(bdims), **params)
            if not op.multiple_results:
                if out_bdim is None:
                    return self.unbatched(out)
                return BatchedTensor(out, out_bdim, self)
        except (VmapShapeError, VmapIndexError) as err:
            raise self._shape_error(type(err), op, args, err.kernel_message) from err
        except ValueError as err:
            if getattr(err, "vmap_user_error", False):
                raise
            raise self._shape_error(_both(type(err), VmapShapeError), op, args,
                                    str(err)) from err
        except IndexError as err:
            raise self._shape_error(_both(type(err), VmapIndexError), op, args,
                                    str(err)) from err
        return tuple(self._wrap(o, b) for o, b in zip(out, out_bdim))

    def _wrap(self, value, bdim):
        if bdim is None:
            return self.unbatched(value)
        return BatchedTensor(value, bdim, self)

    def unbatched(self, value):
        """`value` as a value of this level with no batch dim (Note [unbatched values of the
        level]); Python scalars and other non-arrays are returned as they are."""
        if isinstance(value, Tensor) or is_array(value):
            return BatchedTensor(value, None, self)
        return value

    def _shape_error(self, cls, op, args, kernel_message):
        """The error a kernel raised, restated with the per-example (logical) shapes."""
        shapes = []
        for a in args:
            if hasattr(a, "shape"):
                shapes.append(str(tuple(a.shape)))
            else:
                shapes.append(type(a).__name__)
        message = (f"{op.name} failed under vmap (level {self.level}, batch size "
                   f"{self.batch_size}) on per-example shapes {', '.join(shapes)}: "
                   f"{kernel_message}")
        try:
            err = cls(message)
        except TypeError:  # a kind whose constructor takes other arguments
            err = (VmapIndexError if issubclass(cls, IndexError) else VmapShapeError)(message)
        err.kernel_message = kernel_message
        return err

    def concretize(self, tensor, kind):
        if tensor.bdim is None:  # one value for every example: Note [unbatched values ...]
            value = tensor.value
            if isinstance(value, Tensor):
                return value._concretize(kind)
            if kind == "array":
                return value
            if kind == "index":
                return value.__index__()
            return {"bool": bool, "int": int, "float": float, "complex": complex}[kind](value)
        what = {"bool": "bool()", "int": "int()", "float": "float()", "complex": "complex()",
                "index": "an index", "array": "a raw array (np.asarray)"}[kind]
        raise TypeError(
            f"cannot convert a batched value under vmap (level {self.level}) to {what}: it "
            "holds a different value for each example. Python control flow on it ('if x > "
            "0:') cannot be batched; write it with fnp.where(cond, a, b) (or fnp.maximum, "
            "fnp.clip, ...) and branches and loops with ft.cond, ft.lax.switch and "
            "ft.while_loop; keep conversions outside the vmapped function."
            + (" Indexing a plain NumPy array with a batched index (table[i]) converts the "
               "index: write fnp.take(table, i, axis=0) instead."
               if kind in ("array", "index") else ""))


def register_batch_rule(op, rule):
    """Attach (or replace) the batching rule of a primitive op.

    Every later vmap over the op calls the rule instead of the per-example fallback loop. The
    rule sees the unwrapped arguments and their batch dims (None for unbatched ones) and
    returns the output with its batch dim; it computes with library ops, so it is itself
    transformable.

    Args:
        op: an Op, an op name, or a public function of functorch_lite.numpy named after a
            primitive (fnp.sort).
        rule: `rule(args, bdims, **params) -> (out, out_bdim)`.

    Returns:
        The rule, unchanged (so it can be used as a decorator body).

    Raises:
        TypeError: op is neither a primitive Op nor the name of one (a composite function).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> twice = ft.defop("doc_twice_batch", lambda xp, x: 2 * x)
        >>> calls = []
        >>> def twice_batch(args, bdims):
        ...     calls.append(bdims)
        ...     return twice(args[0]), bdims[0]
        >>> _ = ft.register_batch_rule(twice, twice_batch)
        >>> ft.vmap(twice)(np.array([1.0, 2.0]))
        array([2., 4.])
        >>> calls
        [(0,)]
    """
    return _resolve_op(op).def_rule("batch", rule)


def _resolve_op(op):
    if isinstance(op, Op):
        return op
    if isinstance(op, str) and op in OPS:
        return OPS[op]
    name = getattr(op, "__name__", None)
    if callable(op) and name in OPS and getattr(op, "__module__", "").startswith(
            "functorch_lite"):
        return OPS[name]
    raise TypeError(f"register_batch_rule needs a primitive Op (made by functorch_lite.defop) "
                    f"or its name; {op!r} is neither. Composite functions are batched through "
                    "the primitives they call.")


# -- the public transform --------------------------------------------------------------------

def _user_error(cls, message):
    err = cls(message)
    err.vmap_user_error = True
    return err


def vmap(func, in_dims=_MISSING, out_dims=_MISSING, *, axis_size=None, chunk_size=None,
         in_axes=_MISSING, out_axes=_MISSING, randomness=None, axis_name=None):
    """Vectorize `func` over a batch dim of its inputs (torch.func.vmap; JAX's in_axes/out_axes
    spellings accepted, one spelling per call).

    in_dims (default 0): int, None, or a pytree prefix of the positional arguments (a tuple with
    one entry per argument); negative dims count from the end. Keyword arguments are never
    batched. Array arguments with in_dim None and array keyword arguments are values of the
    vmap level too (indexing, `.at` and np.* work on them as on batched ones); Python scalars
    stay Python scalars.
    out_dims (default 0): int, None (for outputs that are not batched) or a pytree prefix of the
    outputs. axis_size: the batch size when no input is batched. chunk_size: run the batch in
    chunks of this many examples and concatenate (saves memory; same result).

    Args:
        func: the function to vectorize; it sees one example at a time.
        in_dims: batch dim of each positional argument (int, None or a pytree prefix).
        out_dims: where the batch dim goes in each output (int, None or a pytree prefix).
        axis_size: the batch size, needed only when no input is batched.
        chunk_size: run at most this many examples at a time (None: all at once).
        in_axes: JAX's name for in_dims (give one or the other).
        out_axes: JAX's name for out_dims (give one or the other).
        randomness: torch.func's option; refused (random numbers take explicit keys here).
        axis_name: JAX's name for collectives; refused (there are no collectives).

    Returns:
        A function with func's arguments whose outputs carry the batch dim at out_dims.

    Raises:
        ValueError: in_dims/out_dims that do not match the arguments or outputs, a batch dim out
            of range, inconsistent batch sizes, no batched input without axis_size, or a result
            whose shape would depend on the values; chunk_size or axis_size not a valid int.
            An op that fails on the per-example shapes raises a ValueError (IndexError for
            indexing) naming those shapes.
        TypeError: randomness= or axis_name= given (the message says what to write instead),
            both spellings of an argument (in_dims and in_axes) given, or Python
            control flow / conversion (bool(x), int(x)) on a batched value inside func.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> W, X = np.ones((3, 2)), np.arange(12.0).reshape(4, 3)
        >>> ft.vmap(lambda x, w: x @ w, in_dims=(0, None))(X, W).shape
        (4, 2)
    """
    check_function(func, "vmap")
    _refuse_peer_options(randomness, axis_name)
    in_dims = _one_spelling(in_dims, in_axes, "in_dims", "in_axes")
    out_dims = _one_spelling(out_dims, out_axes, "out_dims", "out_axes")
    _check_dims_spec(in_dims, "in_dims")
    _check_dims_spec(out_dims, "out_dims")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int or None, got {chunk_size!r}")
    if axis_size is not None and (not isinstance(axis_size, int) or axis_size < 0):
        raise ValueError(f"vmap: axis_size must be a non-negative int, got {axis_size!r}")

    @functools.wraps(func)
    def batched_func(*args, **kwargs):
        leaves, dims, rebuild = _flatten_inputs(args, in_dims)
        check_usable(leaves)
        size = _batch_size(args, in_dims, leaves, dims, axis_size)
        for module, claims, run in _HANDOVERS:
            if module in sys.modules and claims(leaves, dims):
                return run(func, in_dims, out_dims, args, kwargs, leaves, dims)
        if chunk_size is not None and chunk_size < size:
            out = _run_chunked(func, args, kwargs, leaves, dims, rebuild, size, out_dims,
                               chunk_size)
        else:
            out = _run(func, kwargs, leaves, dims, rebuild, size, out_dims)
        return fresh_outputs(out, leaves)   # Note [fresh outputs]

    return batched_func


# Array types vmap hands over whole, each (the module that defines them, claims(leaves, dims),
# run(func, in_dims, out_dims, args, kwargs, leaves, dims)): functorch_lite.dask registers
# Dask arrays at import. Until the module is imported no such array exists, and nothing is called.
_HANDOVERS = []


def register_handover(module, claims, run):
    """Send a vmapped call whose argument leaves `claims` to `run` instead (a Dask graph)."""
    _HANDOVERS.append((module, claims, run))


def _refuse_peer_options(randomness, axis_name):
    """torch.func's randomness= and JAX's axis_name= have no meaning here: say what does."""
    if randomness is not None:
        raise TypeError(
            f"vmap: randomness={randomness!r} is not supported: functorch_lite draws random "
            "numbers from explicit keys (functorch_lite.random), never from a global state. For "
            "different draws per example pass a batch of keys (random.split(key, batch_size)) "
            "as a batched argument; for the same draws ('same') pass one key with in_dims None "
            "or close over it")
    if axis_name is not None:
        raise TypeError(
            f"vmap: axis_name={axis_name!r} is not supported: there are no collectives "
            "(psum, pmean, all_gather) over a named axis. Return the per-example values "
            "(out_dims=0) and reduce over axis 0 outside vmap, e.g. fnp.mean(out, axis=0)")


def _one_spelling(torch_value, jax_value, torch_name, jax_name):
    """The dims given under either spelling (default 0); both given is a TypeError."""
    if torch_value is not _MISSING and jax_value is not _MISSING:
        raise TypeError(f"vmap: got both {torch_name}={torch_value!r} and "
                        f"{jax_name}={jax_value!r}; they are two spellings of one argument: "
                        "give one, not both")
    if torch_value is not _MISSING:
        return torch_value
    return 0 if jax_value is _MISSING else jax_value


def _check_dims_spec(spec, what):
    for leaf in optree.tree_leaves(spec, none_is_leaf=True):
        if leaf is not None and (not isinstance(leaf, int) or isinstance(leaf, bool)):
            raise _user_error(ValueError, f"vmap: {what} entries must be ints or None, got "
                                          f"{leaf!r} in {what}={spec!r}")


def _flatten_inputs(args, in_dims):
    """(leaves, dims, rebuild): the argument leaves, the in_dim of each, and a function that
    rebuilds the argument tuple from new leaves."""
    if in_dims is None or isinstance(in_dims, int):
        for a in args:  # the usual case: every argument is itself an array (a leaf)
            if not (type(a) is np.ndarray or isinstance(a, TransformTensor)):
                break
        else:
            return list(args), [in_dims] * len(args), tuple
        leaves, spec = optree.tree_flatten(args)
        return leaves, [in_dims] * len(leaves), spec.unflatten
    if isinstance(in_dims, list):
        in_dims = tuple(in_dims)
    if not isinstance(in_dims, tuple):
        raise _user_error(ValueError, f"vmap: in_dims must be an int, None or a tuple with one "
                                      f"entry per positional argument, got {in_dims!r}")
    if len(in_dims) != len(args):
        raise _user_error(ValueError, f"vmap: in_dims={in_dims!r} has {len(in_dims)} entries but "
                                      f"the function was called with {len(args)} positional "
                                      f"arguments (structure {optree.tree_structure(args)})")
    prefix = optree.tree_structure(in_dims, none_is_leaf=True)
    try:
        subtrees = prefix.flatten_up_to(args)
    except (ValueError, TypeError) as err:
        raise _user_error(ValueError, f"vmap: in_dims={in_dims!r} (structure {prefix}) is not a "
                                      f"prefix of the arguments' structure "
                                      f"{optree.tree_structure(args)}: {err}") from None
    leaves, dims, specs = [], [], []
    for dim, sub in zip(optree.tree_leaves(in_dims, none_is_leaf=True), subtrees):
        sub_leaves, sub_spec = optree.tree_flatten(sub)
        leaves.extend(sub_leaves)
        dims.extend([dim] * len(sub_leaves))
        specs.append((sub_spec, len(sub_leaves)))

    def rebuild(new_leaves):
        it, out = 0, []
        for sub_spec, n in specs:
            out.append(sub_spec.unflatten(new_leaves[it:it + n]))
            it += n
        return prefix.unflatten(out)
    return leaves, dims, rebuild


def _leaf_names(args):
    """A readable name for each argument leaf ('argument 1['w']'), in flattening order."""
    paths = []
    for i, a in enumerate(args):
        for path in optree.tree_paths(a):
            paths.append(f"argument {i}" + "".join(f"[{p!r}]" for p in path))
    return paths


def _batch_size(args, in_dims, leaves, dims, axis_size):
    sizes = []
    for k, (leaf, dim) in enumerate(zip(leaves, dims)):
        if dim is None:
            continue
        shape = getattr(leaf, "shape", None)
        if shape is None:
            name = _leaf_names(args)[k]
            raise _user_error(ValueError, f"vmap: {name} is a {type(leaf).__name__}, which has no "
                                          f"axes, but in_dim {dim} asks to map over it; give it "
                                          f"in_dims None{conversion_hint(leaf)}")
        nd = len(shape)
        if not -nd <= dim < nd:
            name = _leaf_names(args)[k]
            valid = (f"valid dims are {-nd}..{nd - 1}" if nd else
                     "a 0-d value has no axes to map over: give it in_dims None")
            raise _user_error(ValueError, f"vmap: in_dim {dim} is out of range for {name} of "
                                          f"shape {tuple(shape)} (rank {nd}); {valid}")
        sizes.append((k, shape[dim]))
    if not sizes:
        if axis_size is None:
            raise _user_error(ValueError, "vmap: no input is batched (every in_dim is None or "
                                          "there are no array inputs) and axis_size is not "
                                          "given, so the batch size is unknown; pass "
                                          "axis_size=n")
        return axis_size
    distinct = {s for _, s in sizes}
    if axis_size is not None:
        distinct.add(axis_size)
    if len(distinct) > 1:
        names = _leaf_names(args)
        listing = ", ".join(f"{names[k]} (in_dim {dims[k]}, shape "
                            f"{tuple(leaves[k].shape)}) has size {s}" for k, s in sizes)
        extra = f"; axis_size={axis_size}" if axis_size is not None else ""
        raise _user_error(ValueError, f"vmap: inconsistent batch sizes: {listing}{extra}")
    return sizes[0][1]


def _run(func, kwargs, leaves, dims, rebuild, size, out_dims):
    for leaf in leaves:
        refuse_array_subclass(leaf, "vmap")
    with VmapInterpreter(size) as interp:
        wrapped = [interp.unbatched(leaf) if dim is None else
                   BatchedTensor(leaf, dim % len(leaf.shape), interp)
                   for leaf, dim in zip(leaves, dims)]
        if kwargs:  # never batched, but values of the level as well
            kwargs = optree.tree_map(interp.unbatched, kwargs)
        out = func(*rebuild(wrapped), **kwargs)
    return _unwrap_outputs(out, out_dims, interp, size, (leaves, dims))


def _mapped_module(leaves, dims):
    """The array module of the first mapped input: a scalar output is broadcast with it, so a
    device program's outputs stay on the device (looked up only for such an output)."""
    for leaf, dim in zip(leaves, dims):
        if dim is not None:
            return leaf.xp if isinstance(leaf, Tensor) else module_of(leaf)
    return np


def _unwrap_outputs(out, out_dims, interp, size, mapped):
    if out_dims is None or isinstance(out_dims, int):
        if type(out) is BatchedTensor or type(out) is np.ndarray:  # one leaf
            return _unwrap_leaf(out, out_dims, interp, size, mapped)
        out_leaves, spec = optree.tree_flatten(out)
        return spec.unflatten([_unwrap_leaf(x, out_dims, interp, size, mapped)
                               for x in out_leaves])
    if isinstance(out_dims, list) and not isinstance(out, list):
        out_dims = tuple(out_dims)
    prefix = optree.tree_structure(out_dims, none_is_leaf=True)
    try:
        subtrees = prefix.flatten_up_to(out)
    except (ValueError, TypeError) as err:
        raise _user_error(ValueError, f"vmap: out_dims={out_dims!r} (structure {prefix}) is not "
                                      f"a prefix of the outputs' structure "
                                      f"{optree.tree_structure(out)}: {err}") from None
    new = [optree.tree_map(lambda x, d=d: _unwrap_leaf(x, d, interp, size, mapped), sub)
           for d, sub in zip(optree.tree_leaves(out_dims, none_is_leaf=True), subtrees)]
    return prefix.unflatten(new)


def _unwrap_leaf(x, out_dim, interp, size, mapped):
    if type(x) is BatchedTensor and x._interpreter is interp and x.bdim is None:
        x = x.value
    if type(x) is BatchedTensor and x._interpreter is interp:
        if out_dim is None:
            raise _user_error(ValueError, f"vmap: an output of shape {x.shape} is batched but "
                                          "its out_dim is None; out_dims None is only for "
                                          "outputs that do not depend on a batched input")
        value, bdim = x.value, x.bdim
        nd = len(value.shape)
        if not -nd <= out_dim < nd:
            raise _user_error(ValueError, f"vmap: out_dim {out_dim} is out of range for an "
                                          f"output of per-example shape {x.shape}")
        out_dim %= nd
        if out_dim == bdim:
            return value
        return fnp.moveaxis(value, bdim, out_dim)
    if isinstance(x, TransformTensor):
        check_usable((x,))  # Note [levels and escaped wrappers], 3
    check_output_leaf(x, "vmap")
    if out_dim is None:
        return x
    if not hasattr(x, "shape"):  # a Python scalar
        x = _mapped_module(*mapped).asarray(x)
    nd = len(x.shape) + 1
    if not -nd <= out_dim < nd:
        raise _user_error(ValueError, f"vmap: out_dim {out_dim} is out of range for an output "
                                      f"of per-example shape {tuple(x.shape)}")
    out_dim %= nd
    shape = tuple(x.shape)
    target = shape[:out_dim] + (size,) + shape[out_dim:]
    expanded = fnp.reshape(x, shape[:out_dim] + (1,) + shape[out_dim:])
    return fnp.broadcast_to(expanded, target)   # a raw one is copied: Note [fresh outputs]


def _run_chunked(func, args, kwargs, leaves, dims, rebuild, size, out_dims, chunk_size):
    pieces = []
    for start in range(0, size, chunk_size):
        stop = min(start + chunk_size, size)
        chunk = []
        for leaf, dim in zip(leaves, dims):
            if dim is None:
                chunk.append(leaf)
                continue
            index = (slice(None),) * (dim % len(leaf.shape)) + (slice(start, stop),)
            chunk.append(fnp.getitem(leaf, index) if isinstance(leaf, Tensor) else leaf[index])
        pieces.append(_run(func, kwargs, chunk, dims, rebuild, stop - start, out_dims))
    first_leaves, spec = optree.tree_flatten(pieces[0])
    per_leaf_dims = _out_dims_per_leaf(pieces[0], out_dims)
    all_leaves = [optree.tree_leaves(p) for p in pieces]
    joined = []
    for k, dim in enumerate(per_leaf_dims):
        if dim is None:
            joined.append(first_leaves[k])
        else:
            parts = [leaves_k[k] for leaves_k in all_leaves]
            joined.append(fnp.concatenate(parts, axis=dim))
    return spec.unflatten(joined)


def _out_dims_per_leaf(out, out_dims):
    leaves = optree.tree_leaves(out)
    if out_dims is None or isinstance(out_dims, int):
        return [out_dims] * len(leaves)
    if isinstance(out_dims, list) and not isinstance(out, list):
        out_dims = tuple(out_dims)
    prefix = optree.tree_structure(out_dims, none_is_leaf=True)
    dims = []
    for d, sub in zip(optree.tree_leaves(out_dims, none_is_leaf=True),
                      prefix.flatten_up_to(out)):
        dims.extend([d] * len(optree.tree_leaves(sub)))
    return dims


def batch_subcall(func, args, bdims, size):
    """Run `func(*args)` under one new vmap level with the batch of each arg at `bdims` (None:
    unbatched) and return (out_leaves, out_bdims, out_spec), each leaf keeping the batch dim the
    computation left it at (None: the same for every example). For the batching rules of
    higher-order primitives (custom_vjp), which must not broadcast what is not
    batched."""
    with VmapInterpreter(size) as interp:
        out = func(*[a if d is None else BatchedTensor(a, d, interp)
                     for a, d in zip(args, bdims)])
    leaves, spec = optree.tree_flatten(out)
    values, out_bdims = [], []
    for x in leaves:
        if type(x) is BatchedTensor and x._interpreter is interp:
            values.append(x.value)
            out_bdims.append(x.bdim)
        else:
            values.append(x)
            out_bdims.append(None)
    return values, out_bdims, spec
