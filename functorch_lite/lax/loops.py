"""The loops with JAX's names and semantics: while_loop, fori_loop, scan and map; and what all
of lax does under the transforms.

Note [control flow under the transforms]
----------------------------------------
Each function runs the user's functions in a Python loop on whatever values it is given. The
transforms see every op of every iteration through ordinary dispatch, so closures over values
being transformed (a weight matrix under grad, a batched input under vmap) work unchanged, and:

- grad, vjp and jvp record or push through the iterations as they run. Reverse mode keeps the
  residuals of every iteration on its tape and walks them backwards (a reverse scan); an
  `ft.checkpoint` inside the body compacts each iteration's segment as usual. A while_loop is
  differentiable in reverse mode too (JAX refuses): its trip count is decided on the primal
  values, and the derivative is that of the iterations that ran, which is the derivative of the
  loop wherever the trip count is locally constant.
- The only decisions made on values are the predicates of cond, switch and while_loop (and
  fori_loop's bounds). `_inspect` looks through the wrappers of the predicate, down the level
  stack, to the raw array below. A value that is the same for every example (a raw array, a
  grad or jvp primal, an unbatched vmap value) decides in Python. A value batched by a running
  vmap holds one predicate per example: cond and switch then run every branch and select per
  example (`where` on each output leaf); while_loop runs while any example's predicate holds and
  freezes the finished ones (`where(pred, body(x), x)`), JAX's batching rule. So
  `vmap(grad(newton_sqrt))` over a data-dependent fixed point works.
- Under ft.jit, scan, fori_loop and while_loop become one loop equation around their traced
  body (Note [compiled loops] in lowering.py), also with transforms between the trace and
  the loop (`jit(grad(f))`, `jit(vmap(f))`): then the loop is an op whose rules build the loop
  of the transformed body (Note [loops under the transforms] in rules.py).
  A body that cannot be traced on its own is recorded step by step, as Python loops are; a
  while_loop whose predicate depends on traced values then has no recording and is refused,
  naming fori_loop/scan (so is reverse mode through a compiled while_loop, as in JAX). A
  predicate computed from traced values is not known while tracing:
  cond and switch record every branch and a select (the same values).

Each iteration's carry is checked against the initial one (pytree structure, shapes, dtypes),
and so are the outputs of the branches that run together; a mismatch is a TypeError naming the
leaf, as JAX's. A Python scalar in a carry is weakly typed: any dtype of its kind matches it
(so is a jitted function's Python-number argument, a Python scalar in its eager call).
"""
import numbers

import numpy as np
import optree

from .. import numpy as fnp
from ..compiler import bodies
from ..compiler.trace import TracerConversionError
from ..tensor import TransformTensor
from ..transforms.vmap import vmap
from . import lowering
from .lowering import NotReversible
from .checks import _arrays, _check_carry, _check_predicate, _dtype, _inspect, _scalar_shape, _type_name
from .branches import _guarded, _select


def while_loop(cond_fun, body_fun, init_val):
    """Repeat `val = body_fun(val)` while `cond_fun(val)` holds (jax.lax.while_loop).

    Under vmap with a predicate that differs between examples the loop runs until every
    example's predicate is false; an example whose predicate is false keeps its value (JAX's
    rule). Unlike JAX, reverse mode works: grad differentiates the iterations that ran. Under
    ft.jit the loop compiles to one loop equation that decides its trip count on each call,
    under vmap and jvp too (refused when the body cannot be traced on its own, and in reverse
    mode under ft.jit). See Note [control flow under the transforms].

    Args:
        cond_fun: `cond_fun(val)` -> a scalar bool.
        body_fun: `body_fun(val)` -> the next val, of the same structure, shapes and dtypes.
        init_val: the initial value (a pytree).

    Returns:
        The value for which cond_fun first fails.

    Raises:
        TypeError: cond_fun does not return a scalar bool, body_fun changes the structure,
            shape or dtype of the value (the message names the leaf), or (TracerConversionError)
            the predicate depends on traced values under ft.jit and the loop cannot compile.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.while_loop(lambda x: x < 10, lambda x: 2 * x, np.array(1))
        array(16)
        >>> ft.vmap(lambda x: ft.while_loop(lambda v: v < 10, lambda v: 2 * v, x))(
        ...     np.array([1, 3, 20]))
        array([16, 12, 20])
    """
    def checked_cond(val):
        pred = cond_fun(val)
        _check_predicate(pred, "while_loop", "the output of cond_fun", "b")
        return pred

    def checked_body(val):
        new = body_fun(val)
        _check_carry("while_loop", init_val, new)
        return new

    reversed_above = False
    if bodies.tracing():  # Note [compiled loops] in lowering.py
        try:
            out = lowering.while_loop(cond_fun, body_fun, init_val, checked_cond, checked_body)
        except NotReversible:
            out, reversed_above = None, True   # recorded step by step where that is possible
        if out is not None:
            return _arrays(out)
    val, guarded_body = init_val, None
    while True:
        pred = checked_cond(val)
        kind, bottom = _inspect(pred)
        if kind == "traced":
            raise TracerConversionError(
                "while_loop: under ft.jit the loop's predicate depends on traced values, and "
                + ("reverse mode (grad, vjp, jacrev) runs between ft.jit and the loop, and a "
                   "trip count decided when the program runs leaves no iterations to walk "
                   "back (JAX refuses it too)" if reversed_above else
                   "its body could not be compiled as a loop (Python control flow or a "
                   "conversion on a value that changes between iterations, or a carry whose "
                   "shape or dtype changes)")
                + ". Use fori_loop or scan with a static trip count, mark the values that "
                "decide the trip count static (static_argnums), or call the transform without "
                "ft.jit")
        if not bool(bottom if kind == "value" else fnp.any(bottom)):
            return _arrays(val)
        if kind == "value":
            val = checked_body(val)
            continue
        if guarded_body is None:   # Note [branches and their derivatives]
            guarded_body = _guarded(checked_body, (val,))
        val = _select(pred, guarded_body(pred, (val,)), val)


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`val = body_fun(i, val)` for i in range(lower, upper) (jax.lax.fori_loop).

    With bounds that are the same for every example, `i` is a Python int (also when ft.jit
    compiles the loop; a 0-d int64 array when a transform runs between ft.jit and the loop,
    Note [compiled loops]). Bounds batched under vmap make it a while_loop over (i, val) with
    per-example trip counts (i then an array).

    Args:
        lower: the first index (an integer scalar).
        upper: one past the last index.
        body_fun: `body_fun(i, val)` -> the next val, of val's structure, shapes and dtypes.
        init_val: the initial value (a pytree).
        unroll: steps per iteration of the loop XLA compiles (a positive int, or True for
            all of them), as in JAX; eagerly and on ft.jit's NumPy backend one step runs at a
            time either way.

    Returns:
        The final value.

    Raises:
        TypeError: a bound that is not an integer scalar, or body_fun changes the structure,
            shape or dtype of the value (the message names the leaf).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.fori_loop(0, 4, lambda i, x: x + i, np.array(0.0))
        array(6.)
        >>> ft.grad(lambda x: ft.fori_loop(0, 3, lambda i, y: y * x, 1.0))(2.0)
        array(12.)
    """
    for role, bound in (("lower", lower), ("upper", upper)):
        _check_predicate(bound, "fori_loop", role, "iu")
    unroll = _unroll(unroll, "fori_loop")
    (kind_lo, lo), (kind_hi, hi) = _inspect(lower), _inspect(upper)
    if kind_lo == kind_hi == "value":
        def checked_body(i, val):
            new = body_fun(i, val)
            _check_carry("fori_loop", init_val, new)
            return new

        if bodies.tracing():  # Note [compiled loops] in lowering.py
            build = lowering.fori_loop if bodies.tracing_at_top() else lowering.fori_scan
            out = build(int(lo), int(hi), body_fun, init_val, checked_body, unroll)
            if out is not None:
                return _arrays(out)
        val = init_val
        for i in range(int(lo), int(hi)):
            val = checked_body(i, val)
        return _arrays(val)
    _, val = while_loop(lambda c: c[0] < upper, lambda c: (c[0] + 1, body_fun(*c)),
                        (lower, init_val))
    return val


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Scan f over the leading axis of xs with a carry (jax.lax.scan).

    Runs `carry, y = f(carry, x)` for each slice x of xs (pytrees; None when there is nothing
    to scan, then give length) and returns the final carry and the ys stacked along a new
    leading axis. reverse=True runs from the last slice to the first (ys stay in xs's order).
    Under ft.jit it compiles to one loop around the traced body (Note [compiled loops]).

    Args:
        f: `f(carry, x)` -> (carry, y); the carry keeps its structure, shapes and dtypes.
        init: the initial carry (a pytree).
        xs: a pytree of arrays with one leading axis length, or None.
        length: the number of steps (needed when xs is None; checked otherwise).
        reverse: scan from the end.
        unroll: steps per iteration of the loop XLA compiles (a positive int, or True for
            all of them), as in JAX; eagerly and on ft.jit's NumPy backend one step runs at a
            time either way.

    Returns:
        (final carry, stacked ys).

    Raises:
        ValueError: xs leaves with different leading axis lengths, a length that disagrees with
            them, or neither xs nor length.
        TypeError: f does not return a pair, or changes the carry's structure, shape or dtype
            (the message names the leaf).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.scan(lambda c, x: (c + x, c * x), 0.0, np.array([1.0, 2.0, 3.0]))
        (array(6.), array([0., 2., 9.]))
    """
    xs_leaves, xs_spec = optree.tree_flatten(xs)
    n = _scan_length(xs_leaves, length)
    unroll = _unroll(unroll, "scan")
    if bodies.tracing():  # Note [compiled loops] in lowering.py
        out = lowering.scan(lambda c, x: _scan_step(f, init, c, x), init, xs_leaves, xs_spec, n,
                         reverse, f, unroll)
        if out is not None:
            return _arrays(out)
    carry, ys = init, []
    # one op slices each leaf (reverse mode then stacks the slices' cotangents once)
    slices = [fnp.unstack(x) if n and isinstance(x, TransformTensor) else x for x in xs_leaves]
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        carry, y = _scan_step(f, init, carry, xs_spec.unflatten([x[i] for x in slices]))
        ys.append(y)
    if n == 0:  # no step ran: one call on zero slices gives the ys' structure and types
        zeros = [fnp.zeros(_scalar_shape(x)[1:], dtype=_dtype(x), like=x) for x in xs_leaves]
        _, y = _scan_step(f, init, init, xs_spec.unflatten(zeros))
        return _arrays(init), optree.tree_map(
            lambda v: fnp.zeros((0,) + _scalar_shape(v), dtype=_dtype(v),
                                like=v if hasattr(v, "shape") else None), y)
    if reverse:
        ys.reverse()
    return _arrays(carry), optree.tree_map(lambda *v: fnp.stack(v), *ys)


def _unroll(unroll, what):
    """JAX's `unroll`: a positive int (steps per iteration of the compiled loop) or a bool
    (True: every step). Only the XLA backend uses it; the NumPy one runs one step at a time."""
    if unroll is None:
        return 1
    if isinstance(unroll, (bool, np.bool_)):
        return bool(unroll)
    if isinstance(unroll, numbers.Integral) and unroll >= 1:
        return int(unroll)
    raise ValueError(f"{what}: unroll must be a positive int or a bool, got {unroll!r}")


def _count(value, what, name, minimum):
    """`value` as a Python int of at least `minimum`: any integral, a NumPy integer included (as
    JAX), but not a bool (a flag passed in a count's place)."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)
            or value < minimum):
        kind = "a positive int" if minimum == 1 else "a non-negative int"
        raise ValueError(f"{what}: {name} must be {kind}, got {value!r}")
    return int(value)


def _scan_length(xs_leaves, length):
    if length is not None:
        length = _count(length, "scan", "length", 0)
    lengths = []
    for x in xs_leaves:
        shape = _scalar_shape(x)
        if not shape:
            raise ValueError(f"scan: every leaf of xs needs a leading axis to scan over; got "
                             f"a {_type_name(x)}")
        lengths.append(shape[0])
    if len(set(lengths)) > 1:
        raise ValueError(f"scan: the leaves of xs have different leading axis sizes: "
                         f"{', '.join(str(k) for k in lengths)}")
    if length is not None:
        if lengths and lengths[0] != length:
            raise ValueError(f"scan: length={length} disagrees with the leading axis size "
                             f"{lengths[0]} of xs")
        return length
    if not lengths:
        raise ValueError("scan: there is nothing to scan over (xs has no arrays) and length "
                         "is not given")
    return lengths[0]


def _scan_step(f, init, carry, x):
    out = f(carry, x)
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"scan: the body function must return a pair (carry, y); it returned "
                        f"a {type(out).__name__}"
                        + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else ""))
    _check_carry("scan", init, out[0])
    return out[0], out[1]


def map(f, xs, *, batch_size=None):
    """`f` applied to each slice of xs along its leading axis, the results stacked
    (jax.lax.map).

    With batch_size, as JAX: a scan over the first `n // batch_size * batch_size` slices in
    groups of batch_size, f vmapped over each group, then f vmapped over the remaining slices
    (under ft.jit one loop equation, whatever n). An empty xs gives empty results shaped from
    one call of f, as scan.

    Args:
        f: a function of one slice (a pytree).
        xs: a pytree of arrays with one leading axis length.
        batch_size: run f under vmap on this many slices at a time (None: one at a time); any
            integral, a NumPy integer too.

    Returns:
        The stacked outputs of f.

    Raises:
        ValueError: as scan, for xs; batch_size not a positive int (a bool included).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.lax.map(lambda x: x.sum(), np.arange(6.0).reshape(3, 2))
        array([1., 5., 9.])
        >>> ft.lax.map(lambda x: 2 * x, np.arange(5.0), batch_size=2)
        array([0., 2., 4., 6., 8.])
    """
    if batch_size is None:
        return scan(lambda carry, x: (carry, f(x)), (), xs)[1]
    batch_size = _count(batch_size, "map", "batch_size", 1)
    leaves, spec = optree.tree_flatten(xs)
    groups, rest = divmod(_scan_length(leaves, None), batch_size)
    head = groups * batch_size
    grouped = [fnp.reshape(x[:head], (groups, batch_size) + _scalar_shape(x)[1:])
               for x in leaves]
    ys = scan(lambda carry, x: (carry, vmap(f)(x)), (), spec.unflatten(grouped))[1]
    ys = optree.tree_map(lambda y: fnp.reshape(y, (head,) + _scalar_shape(y)[2:]), ys)
    if not rest:
        return ys
    tail = vmap(f)(spec.unflatten([x[head:] for x in leaves]))
    return optree.tree_map(lambda a, b: fnp.concatenate([a, b]), ys, tail)
