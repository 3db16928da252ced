"""Public checks of reverse mode against central finite differences.

`gradcheck(f, args)` draws a random cotangent u for f's outputs, computes J^T u with `vjp`, and
compares it with the finite-difference gradient of the scalar `<u, f(x)>`: element by element
for small inputs, and along random directions v (the dot-product identity
`<J^T u, v> == d/de <u, f(x + e v)>`) for large ones. `check_grad_transpose` is that identity
alone. Only floating-point and complex leaves are perturbed; integer leaves are left as they
are. The pairing is <a, b> = Re sum(a * b) (bilinear, no conjugation), so for a complex leaf
the expected J^T u is d/dx - i d/dy of <u, f> (JAX's convention, docs/autodiff.md).
On failure they raise AssertionError naming the leaf and element.
"""
import numpy as np
import optree

from .jvp_checks import _EPS, random_like as _random_like, real_pairing, wide


def _is_float(x):
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc"


def _pairing(u_leaves, out):
    """<u, out> = Re sum(u * out) in double precision over the floating output leaves."""
    total = 0.0
    for u, o in zip(u_leaves, optree.tree_leaves(out)):
        if u is not None:
            total += real_pairing(u, o)
    return total


def _cotangents(f, args, rng):
    """(out, random u leaves (None for non-float outputs), u as a pytree like out)."""
    out = f(*args)
    leaves, spec = optree.tree_flatten(out)
    u = [_random_like(o, rng) if np.asarray(o).dtype.kind in "fc" else None for o in leaves]
    u_tree = spec.unflatten([np.zeros(np.shape(o), np.asarray(o).dtype) if v is None else v
                             for v, o in zip(u, leaves)])
    return out, u, u_tree


def _vjp_leaves(f, args, u_tree):
    """J^T u for the floating leaves of args (None for the others), by vjp."""
    from ..transforms.reverse import vjp
    leaves, spec = optree.tree_flatten(args)
    diff = [k for k, x in enumerate(leaves) if _is_float(x)]

    def f_of_floats(*floats):
        new = list(leaves)
        for k, x in zip(diff, floats):
            new[k] = x
        return f(*spec.unflatten(new))
    _, vjp_fn = vjp(f_of_floats, *(leaves[k] for k in diff))
    got = [None] * len(leaves)
    for k, g in zip(diff, vjp_fn(u_tree)):
        got[k] = g
    return got


def _eps_for_call(leaves, out):
    """A step suited to the lowest precision among the float inputs and outputs."""
    dts = [x.dtype for x in leaves if _is_float(x)]
    dts += [np.asarray(o).dtype for o in optree.tree_leaves(out)
            if np.asarray(o).dtype.kind in "fc"]
    return max((_EPS.get(np.dtype(d), 1e-6) for d in dts), default=1e-6)


def gradcheck(f, args, *, rtol=1e-5, atol=1e-7, eps=None, rng=None, max_elements=64,
              directions=4):
    """Check vjp(f, *args) against central finite differences; returns the J^T u leaves.

    A random cotangent u is drawn for f's outputs and J^T u (by vjp) is compared with the
    finite-difference gradient of `<u, f(x)>`. Leaves with at most `max_elements` elements are
    checked element by element; larger ones along `directions` random directions. Integer
    leaves are left as they are.

    Args:
        f: the function, called as f(*args).
        args: a tuple of pytrees of arrays.
        rtol: relative tolerance.
        atol: absolute tolerance.
        eps: the finite-difference step (by default suited to the lowest precision).
        rng: numpy.random.Generator for u and the directions (default_rng(0) if None).
        max_elements: the largest leaf checked element by element.
        directions: how many random directions check a larger leaf.

    Returns:
        J^T u as a list over the leaves of args (None for non-float leaves).

    Raises:
        AssertionError: the vjp differs from the finite differences, or has the wrong shape or
            dtype (naming the leaf).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import gradcheck
        >>> _ = gradcheck(lambda x: np.sum(np.tanh(x) ** 2), (np.linspace(-1, 1, 5),))
    """
    rng = rng or np.random.default_rng(0)
    args = tuple(args)
    leaves, spec = optree.tree_flatten(args)
    out, u, u_tree = _cotangents(f, args, rng)
    eps = eps or _eps_for_call(leaves, out)
    got = _vjp_leaves(f, args, u_tree)

    def phi(new_leaves):
        return _pairing(u, f(*spec.unflatten(new_leaves)))

    def shifted(k, delta):
        new = list(leaves)
        new[k] = (wide(leaves[k]) + delta).astype(leaves[k].dtype)
        return new

    for k, x in enumerate(leaves):
        if not _is_float(x):
            continue
        g = wide(got[k])
        if g.shape != x.shape:
            raise AssertionError(f"gradcheck: cotangent of leaf {k} has shape {g.shape}, the "
                                 f"input has {x.shape}")
        if np.asarray(got[k]).dtype != x.dtype:
            raise AssertionError(f"gradcheck: cotangent of leaf {k} has dtype "
                                 f"{np.asarray(got[k]).dtype}, the input has {x.dtype}")
        steps = (1.0, 1j) if x.dtype.kind == "c" else (1.0,)
        if x.size <= max_elements:
            num = np.zeros(x.shape, g.dtype)
            for i in np.ndindex(x.shape):
                for step in steps:  # d/dx - i d/dy: the real and the imaginary direction
                    e = np.zeros(x.shape, g.dtype)
                    e[i] = eps * step
                    d = (phi(shifted(k, e)) - phi(shifted(k, -e))) / (2 * eps)
                    num[i] += d if step == 1.0 else -1j * d
            _assert_close(g, num, rtol, atol, f"gradcheck leaf {k}")
        else:
            for _ in range(directions):
                v = _random_like(wide(x), rng)
                num = (phi(shifted(k, eps * v)) - phi(shifted(k, -eps * v))) / (2 * eps)
                _assert_close(real_pairing(g, v), num, rtol, atol,
                              f"gradcheck leaf {k} along a random direction")
    return got


def check_grad_transpose(f, args, *, rtol=1e-5, atol=1e-7, eps=None, rng=None):
    """Check `<J^T u, v>` (vjp) == `d/de <u, f(x + e v)>` (central differences).

    The dot-product identity for random u and v over all floating leaves at once: one vjp and
    two calls of f, however large the inputs.

    Args:
        f: the function, called as f(*args).
        args: a tuple of pytrees of arrays.
        rtol: relative tolerance.
        atol: absolute tolerance.
        eps: the finite-difference step (by default suited to the lowest precision).
        rng: numpy.random.Generator for u and v (default_rng(0) if None).

    Returns:
        The two numbers (by vjp, by finite differences).

    Raises:
        AssertionError: the two numbers differ by more than the tolerance.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import check_grad_transpose
        >>> lhs, rhs = check_grad_transpose(np.sin, (np.array([0.5, 1.0]),))
        >>> bool(np.isclose(lhs, rhs))
        True
    """
    rng = rng or np.random.default_rng(0)
    args = tuple(args)
    leaves, spec = optree.tree_flatten(args)
    out, u, u_tree = _cotangents(f, args, rng)
    eps = eps or _eps_for_call(leaves, out)
    got = _vjp_leaves(f, args, u_tree)
    vs = [_random_like(wide(x), rng) if _is_float(x) else None for x in leaves]
    lhs = sum(real_pairing(g, v) for g, v in zip(got, vs) if v is not None and g is not None)

    def moved(sign):
        return spec.unflatten([x if v is None else
                               (wide(x) + sign * eps * v).astype(x.dtype)
                               for x, v in zip(leaves, vs)])
    rhs = (_pairing(u, f(*moved(1))) - _pairing(u, f(*moved(-1)))) / (2 * eps)
    _assert_close(lhs, rhs, rtol, atol, "<J^T u, v> vs finite differences")
    return lhs, rhs


def numerical_jacobian(f, args, *, eps=None):
    """The Jacobian of f at args by central differences, block by block.

    One pair of calls of f per input element: for small inputs, as a reference for jacrev
    and jacfwd. Real leaves only (compare complex functions with gradcheck or
    check_transpose); blocks of integer inputs are zeros.

    Args:
        f: the function, called as f(*args).
        args: a tuple of pytrees of arrays.
        eps: the step (by default suited to the lowest precision among inputs and outputs).

    Returns:
        A list over f's output leaves of lists over the argument leaves; each block has shape
        out.shape + in.shape and dtype float64.

    Raises:
        TypeError: a float input leaf or an output is complex.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import numerical_jacobian
        >>> [[block]] = numerical_jacobian(lambda x: x ** 2, (np.array([1.0, 2.0]),))
        >>> bool(np.allclose(block, np.diag([2.0, 4.0])))
        True
    """
    args = tuple(args)
    leaves, spec = optree.tree_flatten(args)
    outs = [np.asarray(o) for o in optree.tree_leaves(f(*args))]
    eps = eps or _eps_for_call(leaves, outs)
    blocks = [[np.zeros(o.shape + x.shape) for x in leaves] for o in outs]
    for k, x in enumerate(leaves):
        if not _is_float(x):
            continue
        if x.dtype.kind == "c" or any(o.dtype.kind == "c" for o in outs):
            raise TypeError("numerical_jacobian: complex inputs and outputs are not supported; "
                            "check complex functions with gradcheck or check_transpose")
        for i in np.ndindex(x.shape):
            new_p, new_m = list(leaves), list(leaves)
            xp = x.astype(np.float64).copy()
            xm = xp.copy()
            xp[i] += eps
            xm[i] -= eps
            new_p[k], new_m[k] = xp.astype(x.dtype), xm.astype(x.dtype)
            op = optree.tree_leaves(f(*spec.unflatten(new_p)))
            om = optree.tree_leaves(f(*spec.unflatten(new_m)))
            for j, (a, b) in enumerate(zip(op, om)):
                blocks[j][k][(Ellipsis,) + i] = (np.asarray(a, np.float64)
                                                  - np.asarray(b, np.float64)) / (2 * eps)
    return blocks


def _assert_close(actual, expected, rtol, atol, what):
    actual, expected = wide(actual), wide(expected)
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        err = np.abs(actual - expected)
        i = np.unravel_index(np.nanargmax(err), err.shape) if err.ndim else ()
        raise AssertionError(f"{what}: max abs error {np.nanmax(err):.3g} at {i} "
                             f"(vjp {actual[i]!r}, finite differences {expected[i]!r}; "
                             f"rtol={rtol}, atol={atol})")
