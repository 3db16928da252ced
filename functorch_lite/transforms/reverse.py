"""Reverse mode: GradTensor, the tape, and grad / grad_and_value / value_and_grad / vjp.

Note [the reverse-mode tape]
----------------------------
A grad or vjp call enters a ReverseInterpreter. Each input leaf becomes a GradTensor holding its
value and a *slot*: an integer naming the cotangent that will flow into it. Every differentiable
op applied to a GradTensor of this interpreter runs one level down on the unwrapped values and
appends a `_Node` to the interpreter's tape (a plain list, in execution order, so the list order
is a topological order). The node keeps the op, its static params, the unwrapped operands and
outputs, and the slot of each operand (None for constants: raw arrays, Python scalars and
wrappers of lower levels, see Note [levels and escaped wrappers]). Nodes never reference
GradTensors, so the tape holds no reference cycles and is freed as soon as the transform drops
it.

The backward pass walks the tape once, from the end, in a loop (no recursion: a chain of 20,000
ops is fine). A list indexed by slot holds the cotangents; None is the symbolic zero, so inputs
the output does not depend on cost nothing. Each node with a cotangent calls its op's vjp rule;
the rule computes with library ops, so the backward pass is itself transformable
(grad(grad(f)), vmap(grad(f)), grad(vmap(f))). The interpreter is off the stack by then, so
these ops run at the levels below it. Cotangents are fitted to their operand (summed over
broadcast dimensions, cast to its dtype) in one place, so rules may return broadcast shapes.

The tape is eager: Python control flow on values works, and `float(x)` or `bool(x > 0)` read the
primal value (the result is a constant: no derivative flows through a concretized value).

An op with a "vjp_fwd" rule (custom_vjp) runs it instead of the op: it returns (out,
residuals), and the vjp rule then receives the residuals in place of `out`.

Note [residual snapshots]
-------------------------
grad finishes its backward pass before returning, so its tape may hold the user's own arrays.
vjp (and linearize in forward.py) return a function that reads the tape later, when the user
may have written into those arrays in place (`w -= lr * g`). So vjp copies the raw input arrays
before running f (every residual derived from an input is then derived from the private copy,
views included), and returns copies of the output and aux arrays (the tape may keep the output
itself as a residual). Arrays f closes over are not copied: they are part of the function.
Internal callers that use vjp_fn at once (jacrev) skip the copies. ft.jit's traced values stand
for raw arrays (`replays_layout`), so their copies are recorded: the copy is C-contiguous, and
a transposed input's reductions downstream sum in the copy's order in the program too.

A vjp rule may declare `rule.takes_needed = True`; it then receives `needed`, a tuple of bools
saying which operands want a cotangent, and may skip the others (matmul skips the data operand
of a layer, for instance).
"""
import numpy as np
import optree

from .. import numpy as fnp
from ..derivatives import vjp_elementwise, vjp_reductions, vjp_shape, vjp_indexing, \
    vjp_linalg, vjp_conv, vjp_pool, vjp_fft, vjp_special, vjp_scipy_linalg, \
    vjp_eig  # noqa: F401  (registers the vjp rules)
from ..derivatives.vjp_helpers import unbroadcast
from ..interpreter import Interpreter
from ..ops import elementwise as ew
from ..tensor import Tensor, TransformTensor, check_usable
from ._grad_options import (check_holomorphic_inputs, check_holomorphic_output, float0_gradient,
                            flatten_allowing_ints, is_integer_leaf)
from ._pytree import (as_plain, check_function, check_output_leaf, dtype_of, flatten_diff_args,
                      fresh_outputs, normalize_argnums, private_copy, replace_args, split_aux,
                      unflatten_selected)


class GradTensor(TransformTensor):
    """A value under grad/vjp: the value one level down and the slot of its cotangent.

    What a function under reverse mode receives for a differentiated argument; every op on it
    is recorded on the tape of its interpreter. Made by grad, vjp and their relatives only.

    Args:
        value: the value one level down (a raw array or a lower-level wrapper).
        slot: the index of its cotangent in the backward pass.
        interpreter: the reverse-mode interpreter that owns it.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> seen = []
        >>> def f(x):
        ...     seen.append((type(x).__name__, x.value))
        ...     return x.sum()
        >>> _ = ft.grad(f)(np.array([1.0, 2.0]))
        >>> seen
        [('GradTensor', array([1., 2.]))]
    """

    __slots__ = ("value", "slot")

    def __init__(self, value, slot, interpreter):
        self.value = value
        self.slot = slot
        self._interpreter = interpreter


class _Node:
    """One recorded op application. See Note [the reverse-mode tape]."""

    __slots__ = ("op", "params", "primals", "out", "in_slots", "out_slot")

    def __init__(self, op, params, primals, out, in_slots, out_slot):
        self.op = op
        self.params = params
        self.primals = primals
        self.out = out
        self.in_slots = in_slots
        self.out_slot = out_slot


class ReverseInterpreter(Interpreter):
    """Records a tape of the ops applied to its GradTensors. See Note [the reverse-mode tape]."""

    name = "grad"

    def __init__(self, transform="grad"):
        super().__init__()
        self.name = transform
        self.tape = []
        self.nslots = 0

    def new_leaf(self, value):
        slot = self.nslots
        self.nslots = slot + 1
        return GradTensor(value, slot, self)

    def unwrap(self, x):
        """The value below this level; anything else is returned as it is."""
        if type(x) is GradTensor and x._interpreter is self:
            return x.value
        return x

    def process(self, op, args, params):
        primals = []
        in_slots = []
        for a in args:
            if type(a) is GradTensor and a._interpreter is self:
                primals.append(a.value)
                in_slots.append(a.slot)
            else:
                primals.append(a)
                in_slots.append(None)
        rules = op.rules
        fwd = rules.get("vjp_fwd")
        if fwd is not None:  # an op that keeps residuals for its vjp (custom_vjp)
            out, residuals = fwd(*primals, **params)
        else:
            out = residuals = op(*primals, **params)
        if not op.differentiable:
            return out  # a constant: no cotangent flows through it
        if "vjp" not in rules:
            op.rule("vjp")  # raises NotImplementedError naming the op
        slot = self.nslots
        if op.multiple_results:
            out_slot = tuple(range(slot, slot + len(out)))
            self.nslots = slot + len(out)
            wrapped = tuple(GradTensor(o, s, self) for o, s in zip(out, out_slot))
        else:
            dt = getattr(out, "dtype", None)
            if dt is None or dt.kind not in "fc":
                return out  # integer or boolean result (or no array): no derivative
            out_slot = slot
            self.nslots = slot + 1
            wrapped = GradTensor(out, slot, self)
        self.tape.append(_Node(op, params, tuple(primals), residuals, tuple(in_slots), out_slot))
        return wrapped

    def concretize(self, tensor, kind):
        if kind == "array":
            raise TypeError(
                f"cannot convert a value under {self.name} (level {self.level}) to a raw array: "
                "its derivative would be lost silently. Use functorch_lite.numpy functions on "
                "it, float(x) for a Python number, or ft.stop_gradient(x) for a constant")
        value = tensor.value
        if isinstance(value, Tensor):
            return value._concretize(kind)
        if kind == "index":
            return value.__index__()
        return {"bool": bool, "int": int, "float": float, "complex": complex}[kind](value)


def fit_cotangent(ct, primal):
    """`ct` summed down to the shape of `primal` and cast to its dtype (real part for a real
    primal)."""
    try:
        if ct.shape == primal.shape and ct.dtype == primal.dtype:
            return ct  # the common case: nothing to fit
    except AttributeError:
        pass
    pshape = tuple(getattr(primal, "shape", ()))
    if tuple(getattr(ct, "shape", ())) != pshape:
        ct = unbroadcast(ct, pshape)
    pdtype = getattr(primal, "dtype", None)
    cdtype = getattr(ct, "dtype", None)
    if pdtype is not None and cdtype != pdtype:
        if cdtype is not None and cdtype.kind == "c" and pdtype.kind != "c":
            ct = ew.real(ct)
        if ct.dtype != pdtype:
            ct = ew.astype(ct, dtype=pdtype)
    return ct


def backward(tape, nslots, seeds):
    """Cotangents of every slot, given `seeds` [(slot, ct)]. See Note [the reverse-mode tape]."""
    cts = [None] * nslots
    add = ew.add
    for slot, ct in seeds:
        cts[slot] = ct if cts[slot] is None else add(cts[slot], ct)
    for node in reversed(tape):
        out_slot = node.out_slot
        if type(out_slot) is tuple:
            ct = tuple(cts[s] for s in out_slot)
            if all(c is None for c in ct):
                continue
            for s in out_slot:
                cts[s] = None
        else:
            ct = cts[out_slot]
            if ct is None:
                continue
            cts[out_slot] = None
        rule = node.op.rules["vjp"]
        in_slots = node.in_slots
        if getattr(rule, "takes_needed", False):
            in_cts = rule(ct, node.primals, node.out,
                          needed=tuple([s is not None for s in in_slots]), **node.params)
        else:
            in_cts = rule(ct, node.primals, node.out, **node.params)
        for slot, primal, g in zip(in_slots, node.primals, in_cts):
            if slot is None or g is None:
                continue
            g = fit_cotangent(g, primal)
            prev = cts[slot]
            cts[slot] = g if prev is None else add(prev, g)
    return cts


def _leaf_gradients(cts, leaves, slots):
    """The cotangent of each input leaf; zeros of its shape and dtype where none flowed."""
    out = []
    for leaf, slot in zip(leaves, slots):
        ct = cts[slot]
        out.append(fnp.zeros_like(leaf) if ct is None else as_plain(fit_cotangent(ct, leaf)))
    return out


def _output_value(out, interp):
    """f's output with this level's wrappers unwrapped (plain arrays at the top level); a
    wrapper of a finished transform (or another thread's) among them is refused."""
    leaves, spec = optree.tree_flatten(out)
    leaves = [as_plain(interp.unwrap(x)) for x in leaves]
    check_usable(leaves)
    return spec.unflatten(leaves)


def _check_scalar_output(out, transform):
    if isinstance(out, (TransformTensor, np.ndarray, np.generic)):
        if out.shape == () and out.dtype.kind == "f":
            return  # the usual case
    if isinstance(out, (tuple, list, dict)) or not (
            isinstance(out, (Tensor, float, int, np.ndarray, np.generic)) or hasattr(out, "shape")):
        raise TypeError(f"{transform} needs the function to return a single scalar array; it "
                        f"returned a {type(out).__name__}. Use vjp or jacrev for several "
                        "outputs, or has_aux=True to return extra values")
    shape = tuple(getattr(out, "shape", ()))
    if shape != ():
        size = int(np.prod(shape))
        hint = ("index it (out[0]) or sum it (out.sum())" if size == 1 else
                "reduce it (out.sum(), out.mean()) or use vjp / jacrev")
        raise ValueError(f"{transform} needs the function to return a scalar (a 0-d value); it "
                         f"returned shape {shape}: {hint}")
    dt = getattr(out, "dtype", None)
    dt = np.dtype(dt) if dt is not None else np.asarray(out).dtype
    if dt.kind != "f":
        raise TypeError(f"{transform} needs a real floating-point output; the function returned "
                        f"dtype {dt}" + (" (use vjp for complex outputs)" if dt.kind == "c"
                                         else ""))


def _seed(value):
    """The cotangent 1 of a 0-d output (np.ones_like costs about a microsecond more)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return np.array(1, dtype=value.dtype)
    return fnp.ones_like(value)


def _grad_and_value_impl(f, argnums, has_aux, transform, args, kwargs, holomorphic=False,
                         allow_int=False):
    """(gradients, value, aux) of f at args. See Note [the reverse-mode tape]; the JAX options
    holomorphic= and allow_int= are explained in _grad_options.py."""
    nums, is_tuple = normalize_argnums(argnums, len(args), transform)
    if allow_int:
        leaves, spec = flatten_allowing_ints(args, nums, transform)
    else:
        leaves, spec = flatten_diff_args(args, nums, transform)
    check_usable(leaves)
    if holomorphic:
        check_holomorphic_inputs(leaves, transform)
    constant = [allow_int and is_integer_leaf(x) for x in leaves]
    with ReverseInterpreter(transform) as interp:
        wrapped = [x if c else interp.new_leaf(x) for x, c in zip(leaves, constant)]
        out = f(*replace_args(args, nums, unflatten_selected(spec, wrapped)), **kwargs)
        del wrapped
        out, aux = split_aux(out, has_aux, transform)
        if holomorphic:
            check_holomorphic_output(out, transform)
        else:
            _check_scalar_output(out, transform)
    tape, nslots = interp.tape, interp.nslots
    interp.tape = None  # an escaped wrapper must not keep the tape alive
    value = interp.unwrap(out)
    if type(out) is GradTensor and out._interpreter is interp:
        cts = backward(tape, nslots, [(out.slot, _seed(value))])
    else:
        cts = [None] * nslots
    del tape
    if any(constant):
        diff = [x for x, c in zip(leaves, constant) if not c]
        grads = iter(_leaf_gradients(cts, diff, range(len(diff))))
        grads = [float0_gradient(x) if c else next(grads) for x, c in zip(leaves, constant)]
    else:
        grads = _leaf_gradients(cts, leaves, range(len(leaves)))
    check_usable(grads)
    grads = unflatten_selected(spec, grads)
    if not is_tuple:
        grads = grads[0]
    value = np.asarray(value, dtype=float) if isinstance(value, (float, int)) else as_plain(value)
    check_usable((value,))  # a wrapper of a finished transform returned as f's value
    aux = _output_value(aux, interp) if has_aux else None
    return fresh_outputs((grads, value, aux), optree.tree_leaves((args, kwargs)))


def grad_and_value(f, argnums=0, has_aux=False, *, holomorphic=False, allow_int=False):
    """The gradient and the value of a scalar-valued f in one pass, gradient first.

    The order is torch.func's; with has_aux=True the result is (gradient, (value, aux)), as
    torch.func.grad_and_value. The gradient follows `grad`'s conventions.

    Args:
        f: the function; it must return a 0-d floating value (or (value, aux) with has_aux).
        argnums: int or tuple of ints, the positional argument(s) to differentiate.
        has_aux: f returns a pair (output, aux); aux is returned alongside, not differentiated.
        holomorphic: f is holomorphic with complex inputs and a complex output: the result is
            f'(z) (as jax.grad).
        allow_int: integer and bool inputs get float0 zero gradients instead of a TypeError
            (as jax.grad).

    Returns:
        A function with f's arguments returning (gradient, value), or (gradient, (value, aux))
        with has_aux=True.

    Raises:
        TypeError: a differentiated input that is not floating point, an output that is not a
            real floating scalar, or has_aux=True and f does not return a pair.
        ValueError: f returns a non-scalar, or argnums is out of range or repeated.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.grad_and_value(lambda x: x ** 3)(2.0)
        (array(12.), array(8.))
    """
    check_function(f, "grad_and_value")
    def grad_and_value_f(*args, **kwargs):
        g, v, aux = _grad_and_value_impl(f, argnums, has_aux, "grad_and_value", args, kwargs,
                                        holomorphic, allow_int)
        return (g, (v, aux)) if has_aux else (g, v)
    return _named(grad_and_value_f, f, "grad_and_value")


def value_and_grad(f, argnums=0, has_aux=False, *, holomorphic=False, allow_int=False):
    """The value and the gradient of a scalar-valued f in one pass, value first.

    The order is JAX's; with has_aux=True the result is ((value, aux), gradient), as
    jax.value_and_grad. The gradient follows `grad`'s conventions.

    Args:
        f: the function; it must return a 0-d floating value (or (value, aux) with has_aux).
        argnums: int or tuple of ints, the positional argument(s) to differentiate.
        has_aux: f returns a pair (output, aux); aux is returned alongside, not differentiated.
        holomorphic: f is holomorphic with complex inputs and a complex output: the result is
            f'(z) (as jax.grad).
        allow_int: integer and bool inputs get float0 zero gradients instead of a TypeError
            (as jax.grad).

    Returns:
        A function with f's arguments returning (value, gradient), or ((value, aux), gradient)
        with has_aux=True.

    Raises:
        TypeError: a differentiated input that is not floating point, an output that is not a
            real floating scalar, or has_aux=True and f does not return a pair.
        ValueError: f returns a non-scalar, or argnums is out of range or repeated.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.value_and_grad(lambda x: x ** 3)(2.0)
        (array(8.), array(12.))
    """
    check_function(f, "value_and_grad")
    def value_and_grad_f(*args, **kwargs):
        g, v, aux = _grad_and_value_impl(f, argnums, has_aux, "value_and_grad", args, kwargs,
                                        holomorphic, allow_int)
        return ((v, aux), g) if has_aux else (v, g)
    return _named(value_and_grad_f, f, "value_and_grad")


def grad(f, argnums=0, has_aux=False, *, holomorphic=False, allow_int=False):
    """The gradient of a scalar-valued f with respect to argument(s) `argnums`.

    argnums is an int (one gradient) or a tuple of ints (a tuple of gradients). Each gradient
    has its input's pytree structure, shape and dtype; an input the output does not depend on
    gets zeros. A Python float input gets a 0-d float64 array. f must return a 0-d floating
    value (index or sum a size-1 array first). With has_aux=True f returns (output, aux) and
    the result is (gradient, aux).

    Args:
        f: the function to differentiate; it must return a 0-d floating value, or a pair
            (output, aux) with has_aux=True.
        argnums: int or tuple of ints, the positional argument(s) to differentiate (default 0).
        has_aux: f returns (output, aux); aux is passed through, not differentiated.
        holomorphic: f is holomorphic with complex inputs and a complex output: the result is
            f'(z) (as jax.grad).
        allow_int: integer and bool inputs get float0 zero gradients instead of a TypeError
            (as jax.grad).

    Returns:
        A function with f's arguments returning the gradient (a tuple of gradients when
        argnums is a tuple), or (gradient, aux) with has_aux=True.

    Raises:
        TypeError: a differentiated input that is not floating point (an integer, a bool), an
            output that is not a real floating scalar (a tuple, a complex or integer value), or
            has_aux=True and f does not return a pair.
        ValueError: f returns a non-scalar, or argnums is out of range or names an argument
            twice.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.grad(lambda x: np.sum(x ** 2))(np.array([1.0, 2.0]))
        array([2., 4.])
        >>> ft.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 5.0)
        (array(5.), array(2.))
    """
    check_function(f, "grad")
    def grad_f(*args, **kwargs):
        g, _, aux = _grad_and_value_impl(f, argnums, has_aux, "grad", args, kwargs,
                                        holomorphic, allow_int)
        return (g, aux) if has_aux else g
    return _named(grad_f, f, "grad")


def vjp(f, *primals, has_aux=False):
    """Reverse mode: f's output and a function pulling output cotangents back to the inputs.

    vjp_fn(cotangents) maps a cotangent with the output's pytree structure to a tuple with one
    cotangent per primal (each with that primal's structure). vjp_fn may be called several
    times and under vmap.

    vjp_fn keeps giving the gradient at `primals`: the tape keeps its own copies of the input
    arrays, and the returned output and aux arrays are copies, so writing into any of them in
    place later changes nothing (Note [residual snapshots]).

    Args:
        f: the function, called as f(*primals); its output is any pytree of arrays.
        *primals: the point to differentiate at, one pytree per positional argument of f.
        has_aux: f returns (output, aux); aux is returned as the third element.

    Returns:
        (output, vjp_fn), or (output, vjp_fn, aux) with has_aux=True.

    Raises:
        TypeError: a primal that is not floating point, has_aux=True and f does not return a
            pair; from vjp_fn, a cotangent whose dtype does not fit the output.
        ValueError: from vjp_fn, a cotangent whose structure or shape differs from the output's.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> out, vjp_fn = ft.vjp(np.sin, np.array([0.0, np.pi]))
        >>> vjp_fn(np.array([1.0, 2.0]))
        (array([ 1., -2.]),)
    """
    check_function(f, "vjp")
    return _vjp(f, primals, has_aux, snapshot=True)


def _vjp(f, primals, has_aux, snapshot):
    """vjp; `snapshot=False` skips the copies for callers that use vjp_fn at once and never
    return the output (jacrev)."""
    nums = tuple(range(len(primals)))
    leaves, spec = flatten_diff_args(primals, nums, "vjp") if primals else ([], None)
    check_usable(leaves)
    if snapshot:
        leaves = [private_copy(leaf) for leaf in leaves]
    with ReverseInterpreter("vjp") as interp:
        wrapped = [interp.new_leaf(leaf) for leaf in leaves]
        args = unflatten_selected(spec, wrapped) if primals else ()
        out = f(*args)
        del wrapped, args
        out, aux = split_aux(out, has_aux, "vjp")
    tape, nslots = interp.tape, interp.nslots
    interp.tape = None
    out_leaves, out_spec = optree.tree_flatten(out)
    out_slots = [o.slot if type(o) is GradTensor and o._interpreter is interp else None
                 for o in out_leaves]
    for o, slot in zip(out_leaves, out_slots):
        if slot is None:
            check_output_leaf(o, "vjp")
    out_values = [as_plain(interp.unwrap(o)) for o in out_leaves]
    check_usable(out_values)
    del out_leaves, out
    primal_out = optree.tree_unflatten(
        out_spec, [private_copy(v) for v in out_values] if snapshot else out_values)

    def vjp_fn(cotangents):
        ct_leaves, ct_spec = optree.tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise ValueError(f"vjp_fn: the cotangent's structure {ct_spec} does not match the "
                             f"output's {out_spec}")
        check_usable(ct_leaves)
        seeds = []
        for i, (slot, value, ct) in enumerate(zip(out_slots, out_values, ct_leaves)):
            want = tuple(getattr(value, "shape", ()))
            got = tuple(getattr(ct, "shape", ()))
            if got != want:
                raise ValueError(f"vjp_fn: cotangent {i} has shape {got} but the output it "
                                 f"pairs with has shape {want}")
            if dtype_of(ct).kind not in "fc" and dtype_of(value).kind in "fc":
                raise TypeError(f"vjp_fn: cotangent {i} has dtype {dtype_of(ct)} but the output "
                                f"it pairs with has dtype {dtype_of(value)}: give a "
                                "floating-point cotangent")
            if slot is not None:
                seeds.append((slot, fit_cotangent(ct, value)))
        cts = backward(tape, nslots, seeds) if seeds else [None] * nslots
        grads = _leaf_gradients(cts, leaves, range(len(leaves)))
        check_usable(grads)
        grads = fresh_outputs(grads, ct_leaves + leaves)   # Note [fresh outputs]
        return tuple(unflatten_selected(spec, grads)) if primals else ()

    if has_aux:
        aux = _output_value(aux, interp)
        return primal_out, vjp_fn, optree.tree_map(private_copy, aux) if snapshot else aux
    return primal_out, vjp_fn


def _named(wrapper, f, transform):
    name = getattr(f, "__name__", type(f).__name__)
    wrapper.__name__ = f"{transform}({name})"
    wrapper.__qualname__ = wrapper.__name__
    wrapper.__doc__ = getattr(f, "__doc__", None)
    wrapper.__wrapped__ = f
    return wrapper
