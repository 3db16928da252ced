"""Helpers shared by the derivative transforms: argnums selection, flattening differentiable
inputs and outputs with optree, and checking what may be differentiated.

Inputs of a transformed function are pytrees whose leaves are backend arrays, lower-level
wrappers (values of an enclosing transform) or Python scalars. A Python float becomes a 0-d
float64 array, so its gradient comes back as a 0-d array (as torch.func; JAX gives the same).
"""
import numbers

import numpy as np
import optree

from ..backend import is_array
from ..tensor import Tensor, TransformTensor


def normalize_argnums(argnums, nargs, transform):
    """argnums (int or tuple of ints, negative allowed) -> tuple of non-negative ints.

    Returns (indices, is_tuple): `is_tuple` says whether results come back as a tuple."""
    if type(argnums) is int and 0 <= argnums < nargs:
        return (argnums,), False  # the usual case
    is_tuple = isinstance(argnums, (tuple, list))
    nums = tuple(argnums) if is_tuple else (argnums,)
    if is_tuple and not nums:
        raise ValueError(f"{transform}: argnums must name at least one argument")
    out = []
    for n in nums:
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"{transform}: argnums must be ints or a tuple of ints, got {n!r}")
        if not -nargs <= n < nargs:
            raise ValueError(f"{transform}: argnums {n} is out of range for a function called "
                             f"with {nargs} positional argument(s)")
        out.append(n % nargs)
    if len(set(out)) != len(out):
        raise ValueError(f"{transform}: argnums {argnums!r} names an argument twice")
    return tuple(out), is_tuple


def dtype_of(x):
    dt = getattr(x, "dtype", None)
    return np.dtype(dt) if dt is not None else np.asarray(x).dtype


_OTHER_MEANINGS = (np.ma.MaskedArray, np.matrix)


def refuse_array_subclass(x, transform):
    """Masked arrays and np.matrix give NumPy's operators other meanings (a mask that drops
    elements, `*` as a matrix product) that the library's ops, which compute on the data, would
    silently drop: refused, with the conversion to write instead."""
    if isinstance(x, _OTHER_MEANINGS):
        kind = "a masked array" if isinstance(x, np.ma.MaskedArray) else "an np.matrix"
        fix = ("np.ma.filled(x, fill) or x.data with the mask as an explicit operand "
               "(fnp.where(mask, ...))" if isinstance(x, np.ma.MaskedArray)
               else "np.asarray(x), with @ for matrix products")
        raise TypeError(f"{transform} got {kind}, whose operators mean something else than an "
                        f"array's; the transforms compute on plain arrays. Pass {fix}")


def as_differentiable_leaf(x, where, transform):
    """A leaf to differentiate: arrays and wrappers pass, Python floats become NumPy float64
    (complex128) scalars, which mix with device arrays as CuPy allows (a 0-d NumPy array
    would not); integer, bool and non-numeric leaves are refused with the position named."""
    if isinstance(x, Tensor) or is_array(x):
        refuse_array_subclass(x, transform)
        dt = dtype_of(x)
        if dt.kind not in "fc":
            raise TypeError(f"{transform} needs floating-point inputs to differentiate; {where} "
                            f"has dtype {dt}. Convert it (x.astype(float)) or leave it out of "
                            "argnums")
        return x
    if isinstance(x, (float, complex)) and not isinstance(x, bool):
        return np.asarray(x)[()]
    if isinstance(x, numbers.Number):
        raise TypeError(f"{transform} needs floating-point inputs to differentiate; {where} is "
                        f"the Python {type(x).__name__} {x!r}. Pass a float (e.g. {float(x)!r}) "
                        "or leave it out of argnums")
    raise TypeError(f"{transform} cannot differentiate {where}: a {type(x).__name__} is not "
                    f"an array{conversion_hint(x)}")


def check_function(f, transform):
    """A transform of something that is not callable is refused when it is made (ft.jit(5)),
    not at its first call."""
    if not callable(f):
        raise TypeError(f"{transform} needs a function, got {f!r:.60} (of type "
                        f"{type(f).__name__})")


def conversion_hint(x):
    """How to convert an array of another library (a jax.Array, a torch.Tensor), which
    transforms do not take as it is; "" for other objects."""
    if any(hasattr(x, a) for a in ("__array__", "__array_interface__", "__dlpack__")):
        return (f" (convert the {type(x).__name__} with np.asarray(x), or cupy.asarray(x) for "
                "device data: transforms take NumPy and CuPy arrays)")
    return ""


def flatten_diff_args(args, argnums, transform):
    """Flatten the selected arguments: (list of leaves, treespec of the selected tuple).

    Leaves are made differentiable (see `as_differentiable_leaf`)."""
    selected = [args[i] for i in argnums]
    for a in selected:  # the usual case: every selected argument is itself a floating array
        if not ((type(a) is np.ndarray or isinstance(a, TransformTensor))
                and a.dtype.kind in "fc"):
            break
    else:
        return selected, tuple_spec(len(selected))
    selected = tuple(selected)
    leaves, spec = optree.tree_flatten(selected)
    for leaf in leaves:  # the common case, checked without naming positions
        if not ((isinstance(leaf, Tensor) or is_array(leaf)) and dtype_of(leaf).kind in "fc"
                and not isinstance(leaf, _OTHER_MEANINGS)):
            break
    else:
        return leaves, spec
    leaves = []
    paths, leaves_raw, spec = optree.tree_flatten_with_path(selected)
    for path, leaf in zip(paths, leaves_raw):
        where = f"argument {argnums[path[0]]}" + "".join(f"[{p!r}]" for p in path[1:])
        leaves.append(as_differentiable_leaf(leaf, where, transform))
    return leaves, spec


_TUPLE_SPECS = {}


def tuple_spec(n):
    """The treespec of a tuple of `n` leaves (cached: building one costs a flatten)."""
    spec = _TUPLE_SPECS.get(n)
    if spec is None:
        spec = _TUPLE_SPECS[n] = optree.tree_structure((0,) * n)
    return spec


def check_output_leaf(x, transform):
    """x, if it can be an output of a transformed function (an array, a wrapper, a number);
    a string or any other object is refused, naming it (JAX and torch.func refuse them too)."""
    if isinstance(x, (Tensor, numbers.Number, np.generic)) or is_array(x):
        return x
    raise TypeError(f"{transform}: the function returned a {type(x).__name__} ({x!r:.40}) as "
                    "an output; transformed functions return arrays, Python numbers and "
                    "pytrees (tuples, lists, dicts) of them")


def unflatten_selected(spec, leaves):
    """The selected arguments rebuilt from `leaves` (a plain tuple when the spec came from the
    fast path of `flatten_diff_args`)."""
    if spec is _TUPLE_SPECS.get(len(leaves)):
        return tuple(leaves)
    return optree.tree_unflatten(spec, leaves)


def replace_args(args, argnums, new_selected):
    """args with args[argnums[k]] replaced by new_selected[k]."""
    if len(args) == len(new_selected) == 1:
        return tuple(new_selected)
    args = list(args)
    for i, v in zip(argnums, new_selected):
        args[i] = v
    return tuple(args)


def split_aux(out, has_aux, transform):
    """(out, aux) when has_aux, checking that f returned a pair; (out, None) otherwise."""
    if not has_aux:
        return out, None
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{transform}(..., has_aux=True) needs the function to return a pair "
                        f"(output, aux); it returned {type(out).__name__}"
                        + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else ""))
    return out[0], out[1]


def as_plain(x):
    """NumPy scalars (what NumPy returns for 0-d results) become 0-d arrays, so transforms
    return arrays consistently, ft.jit's tracer of one (`replays_layout`) likewise a tracer of
    the 0-d array, so a jitted transform returns what the eager one does (Note [output types]
    in compiler/trace.py); everything else is unchanged."""
    if isinstance(x, np.generic):
        return np.asarray(x)
    if isinstance(x, TransformTensor) and x.replays_layout:
        return x.as_array()
    return x


def _root(x):
    """The object that owns x's memory (x itself when it owns it)."""
    base = getattr(x, "base", None)
    while base is not None:
        x = base
        base = getattr(x, "base", None)
    return x


def _unsafe(x):
    """Whether the user could not write into x safely: read-only, or a broadcast (zero-stride)
    view, which CuPy lets one write into and NumPy does not."""
    if not getattr(getattr(x, "flags", None), "writeable", True):
        return True
    return any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape))


def fresh_outputs(out, inputs):
    """`out` (a pytree) with each raw array that is read-only, a broadcast view, or that shares
    its memory owner with an array in `inputs` (a list of leaves) or with an earlier output
    replaced by a copy. See Note [fresh outputs].

    Note [fresh outputs]
    --------------------
    Every array a transform returns to the user is writable and owns its memory, or is a
    view of an array that nothing else holds: `g = grad(f)(x); g *= 0.1` must work and change
    neither x nor another output. Rules pass values through unchanged where the math says so
    (the cotangent of a sum is a broadcast view of the seed; the tangent of the identity is the
    user's tangent; vmap returns an unbatched output as a broadcast), so each transform runs
    its outputs through this check once, where they reach the user; outputs that are wrappers
    (the transform runs inside another one) are not the user's yet and pass as they are,
    except ft.jit's tracer (`replays_layout`): it stands for the raw array eager code has
    here, so the check runs on that array and its copy is recorded (a sum over the copy adds
    in another order than over the broadcast view). Arrays a function closes over and
    returns are part of the function, not copied."""
    if type(out) is np.ndarray:     # the common case, without flattening a tree
        if out.base is None and out.flags.writeable and all(
                a is not out and getattr(a, "base", None) is not out for a in inputs):
            return out              # owns its memory, and no input is it or a view of it
        owner = _root(out)
        if _unsafe(out) or any(_root(a) is owner for a in inputs if is_array(a)):
            return out.copy()
        return out
    leaves, spec = optree.tree_flatten(out)
    owners, changed = None, False
    for k, x in enumerate(leaves):
        raw = _raw(x)
        if isinstance(raw, (np.generic, Tensor)) or not is_array(raw):
            continue
        if owners is None:
            owners = {id(_root(a)) for a in map(_raw, inputs) if is_array(a)}
        owner = _root(raw)
        if id(owner) in owners or _unsafe(raw):
            leaves[k] = x.copy()
            owner = _raw(leaves[k])
            changed = True
        owners.add(id(owner))
    return spec.unflatten(leaves) if changed else out


def _raw(x):
    """x, or the raw array ft.jit's tracer (`replays_layout`) stands for."""
    return x.value if isinstance(x, TransformTensor) and x.replays_layout else x


def private_copy(x):
    """A copy of a raw array, which its owner may write into later; wrappers (never written in
    place) and Python scalars as they are, except a wrapper that stands for a raw array in a
    replayed program (`replays_layout`, ft.jit's): its copy is recorded, so the program reads
    the layout eager code reads. See Note [residual snapshots] in reverse.py."""
    return x.copy() if is_array(x) or getattr(x, "replays_layout", False) else x
