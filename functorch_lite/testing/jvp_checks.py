"""Public checks of forward mode: jvp against central finite differences, and the transpose
identity `<u, J v> == <J^T u, v>` between jvp and vjp (autograd's `check_grads` oracle).

Both take `f` and a tuple of primals (pytrees of arrays); only the floating-point and complex
leaves are perturbed (complex ones along random complex directions, so both the real and the
imaginary part move). The pairing is bilinear and takes the real part, `<a, b> = Re sum(a * b)`
with no conjugation: with it, vjp is the transpose of jvp also for non-holomorphic functions
(the convention of docs/autodiff.md, "Complex numbers"). Random directions come from `rng` (a numpy Generator) unless given. On failure they
raise AssertionError with the largest error and where it is.
"""
import numpy as np
import optree

_EPS = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-3, np.dtype(np.float16): 1e-2,
        np.dtype(np.complex128): 1e-6, np.dtype(np.complex64): 1e-3}
_LOOSEST = {np.dtype(np.float32): (1e-3, 1e-4), np.dtype(np.float16): (1e-2, 1e-2),
            np.dtype(np.complex64): (1e-3, 1e-4)}
"""Tolerances never tighter than these for a value of low precision (the finite differences
themselves are no better)."""


def _float_leaf(x):
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc"


def random_like(x, rng):
    """A standard normal array of x's shape and dtype (complex: normal real and imaginary
    parts)."""
    x = np.asarray(x)
    r = rng.standard_normal(x.shape)
    if x.dtype.kind == "c":
        r = r + 1j * rng.standard_normal(x.shape)
    return np.asarray(r).astype(x.dtype)


def wide(x):
    """x in float64, or complex128 for a complex x: the precision finite differences use."""
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def real_pairing(a, b):
    """Re sum(a * b) in double precision: the bilinear pairing of the transpose identity."""
    return float(np.real(np.sum(wide(a) * wide(b))))


def random_tangents(primals, rng):
    """Random tangents shaped like primals: standard normal for float and complex leaves.

    Integer and boolean leaves get None (they have no tangent). Complex leaves get normal real
    and imaginary parts, so both move.

    Args:
        primals: a sequence of pytrees of arrays.
        rng: a numpy.random.Generator.

    Returns:
        A tuple of pytrees like primals: arrays of each float leaf's shape and dtype, None for
        the other leaves.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import random_tangents
        >>> t = random_tangents((np.ones(2), np.arange(3)), np.random.default_rng(0))
        >>> t[0].shape, t[1]
        ((2,), None)
    """
    return optree.tree_map(lambda x: random_like(x, rng) if _float_leaf(x) else None,
                           tuple(primals))


def _axpy(primals, tangents, eps):
    def step(p, t):
        if t is None or not _float_leaf(p):
            return p
        return (wide(p) + eps * wide(t)).astype(p.dtype)
    return optree.tree_map(step, tuple(primals), tuple(tangents), none_is_leaf=True)


def _float_out_leaves(out):
    return [np.asarray(o) for o in optree.tree_leaves(out)]


def _low_precision(dtypes, rtol, atol):
    for d in dtypes:
        lo_r, lo_a = _LOOSEST.get(np.dtype(d), (0.0, 0.0))
        rtol, atol = max(rtol, lo_r), max(atol, lo_a)
    return rtol, atol


def _dtypes(tree):
    return [np.asarray(x).dtype for x in optree.tree_leaves(tree)
            if np.asarray(x).dtype.kind in "fc"]


def numerical_jvp(f, primals, tangents, eps=None):
    """Central finite difference (f(p + eps t) - f(p - eps t)) / 2 eps, leaf by leaf.

    The reference check_jvp compares jvp's tangent output with. Differences are taken in
    float64 (complex128) arithmetic on the outputs; only float and complex primals move.

    Args:
        f: the function, called as f(*primals).
        primals: a sequence of pytrees of arrays.
        tangents: pytrees like primals (None for leaves that do not move).
        eps: the step; by default one suited to the lowest precision among the inputs and
            outputs (1e-6 for float64, 1e-3 for float32).

    Returns:
        A list over f's output leaves: the float64 (or complex128) difference quotient, None
        for integer and boolean outputs.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import numerical_jvp
        >>> x = np.array([0.0, 1.0])
        >>> bool(np.allclose(numerical_jvp(np.sin, (x,), (np.ones(2),))[0], np.cos(x)))
        True
    """
    if eps is None:
        dts = _dtypes(tuple(primals)) + _dtypes(f(*primals))
        eps = max((_EPS.get(np.dtype(d), 1e-6) for d in dts), default=1e-6)
    plus = _float_out_leaves(f(*_axpy(primals, tangents, eps)))
    minus = _float_out_leaves(f(*_axpy(primals, tangents, -eps)))
    return [(wide(a) - wide(b)) / (2 * eps) if a.dtype.kind in "fc" else None
            for a, b in zip(plus, minus)]


def _assert_close(actual, expected, rtol, atol, what):
    actual = np.asarray(actual, dtype=np.result_type(np.asarray(actual).dtype, np.float64))
    expected = np.asarray(expected, dtype=actual.dtype)
    if actual.shape != expected.shape:
        raise AssertionError(f"{what}: shape {actual.shape} != expected {expected.shape}")
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        err = np.abs(actual - expected)
        i = np.unravel_index(np.nanargmax(err), err.shape) if err.ndim else ()
        raise AssertionError(f"{what}: max abs error {np.nanmax(err):.3g} at {i} "
                             f"(got {actual[i]!r}, expected {expected[i]!r}; "
                             f"rtol={rtol}, atol={atol})")


def check_jvp(f, primals, tangents=None, *, rng=None, rtol=1e-5, atol=1e-7, eps=None):
    """jvp(f, primals, tangents) against f itself (primal out) and central finite differences
    (tangent out); random tangents when `tangents` is None.

    Tolerances are never tighter than finite differences allow at the inputs' precision.

    Args:
        f: the function, called as f(*primals).
        primals: a sequence of pytrees of arrays.
        tangents: pytrees like primals, or None for random ones.
        rng: numpy.random.Generator for the random tangents (default_rng(0) if None).
        rtol: relative tolerance.
        atol: absolute tolerance.
        eps: the finite-difference step (see numerical_jvp).

    Returns:
        (out, tangent_out), as jvp returns them.

    Raises:
        AssertionError: the primal or tangent output differs from its reference.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import check_jvp
        >>> out, tangent = check_jvp(np.sin, (np.array([0.0, 1.0]),), (np.array([1.0, 1.0]),))
        >>> bool(np.allclose(tangent, np.cos([0.0, 1.0])))
        True
    """
    from ..transforms.forward import jvp
    primals = tuple(primals)
    if tangents is None:
        tangents = random_tangents(primals, rng or np.random.default_rng(0))
    out, t_out = jvp(f, primals, tuple(tangents))
    expected_out = f(*primals)
    rtol, atol = _low_precision(_dtypes(primals) + _dtypes(expected_out), rtol, atol)
    for k, (a, b) in enumerate(zip(optree.tree_leaves(out), optree.tree_leaves(expected_out))):
        _assert_close(a, b, rtol, atol, f"jvp primal output leaf {k}")
    fd = numerical_jvp(f, primals, tangents, eps)
    for k, (a, b) in enumerate(zip(optree.tree_leaves(t_out), fd)):
        if b is not None:
            _assert_close(a, b, rtol, atol, f"jvp tangent output leaf {k} vs finite differences")
    return out, t_out


def check_transpose(f, primals, *, rng=None, rtol=1e-6, atol=1e-9):
    """Check `<u, J v>` (by jvp) == `<J^T u, v>` (by vjp) for random u, v.

    The pairing is `<a, b> = Re sum(a * b)`, bilinear with no conjugation, so the identity holds
    for non-holomorphic complex functions too. It checks jvp and vjp against each other
    without finite differences, so it is exact up to rounding.

    Args:
        f: the function, called as f(*primals).
        primals: a sequence of pytrees of arrays.
        rng: numpy.random.Generator for u and v (default_rng(0) if None).
        rtol: relative tolerance (relative to the larger of 1 and the two numbers).
        atol: absolute tolerance.

    Returns:
        The two numbers (`<u, J v>`, `<J^T u, v>`) as floats.

    Raises:
        AssertionError: the two numbers differ by more than the tolerance.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import check_transpose
        >>> lhs, rhs = check_transpose(lambda x: np.sin(x) * x, (np.array([0.5, 1.0]),))
        >>> bool(np.isclose(lhs, rhs))
        True
    """
    from ..transforms.forward import jvp
    from ..transforms.reverse import vjp
    rng = rng or np.random.default_rng(0)
    primals = tuple(primals)
    v = random_tangents(primals, rng)
    out, jv = jvp(f, primals, v)
    out_leaves, out_def = optree.tree_flatten(out)
    u_leaves = [random_like(o, rng) if np.asarray(o).dtype.kind in "fc" else None
                for o in out_leaves]
    _, vjp_fn = vjp(f, *primals)
    u = out_def.unflatten([np.zeros(np.shape(o), np.asarray(o).dtype) if uu is None else uu
                           for uu, o in zip(u_leaves, out_leaves)])
    jtu = vjp_fn(u)
    lhs = sum(real_pairing(uu, j) for uu, j in zip(u_leaves, optree.tree_leaves(jv)) if uu is not None)
    pairs = zip(optree.tree_leaves(tuple(jtu), none_is_leaf=True),
                optree.tree_leaves(v, none_is_leaf=True))
    rhs = sum(real_pairing(g, vv) for g, vv in pairs if vv is not None and g is not None)
    rtol, atol = _low_precision(_dtypes(primals) + _dtypes(out), rtol, atol)
    scale = max(1.0, abs(lhs), abs(rhs))
    if not abs(lhs - rhs) <= atol + rtol * scale:
        raise AssertionError(f"transpose identity fails: <u, J v> = {lhs!r} by jvp but "
                             f"<J^T u, v> = {rhs!r} by vjp (rtol={rtol}, atol={atol})")
    return lhs, rhs


def float_outputs(f):
    """f with only its floating-point output leaves, as a tuple.

    Integer outputs carry float0 tangents and no cotangents, so derivative comparisons leave
    them out.

    Args:
        f: a function returning a pytree of arrays.

    Returns:
        A function of the same arguments returning a tuple of f's float and complex leaves.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import float_outputs
        >>> float_outputs(lambda x: (x, np.argmax(x)))(np.array([1.0, 3.0]))
        (array([1., 3.]),)
    """
    def g(*xs):
        return tuple(o for o in optree.tree_leaves(f(*xs)) if np.dtype(o.dtype).kind in "fc")
    return g


def real_outputs(f):
    """f with each complex output leaf replaced by its real and imaginary parts, as a tuple.

    A real function of the same inputs, for checks that need real outputs (jacrev, hessian).
    Real leaves pass through unchanged.

    Args:
        f: a function returning a pytree of arrays.

    Returns:
        A function of the same arguments returning a tuple of real arrays.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import real_outputs
        >>> real_outputs(lambda z: z * 1j)(np.array([1.0 + 0j]))
        (array([0.]), array([1.]))
    """
    from ..ops.elementwise import imag, real

    def g(*xs):
        out = []
        for o in optree.tree_leaves(f(*xs)):
            out += [real(o), imag(o)] if np.dtype(o.dtype).kind == "c" else [o]
        return tuple(out)
    return g


def float_leaf_function(fn, sample):
    """(f, float_leaves): `fn` on `sample` as a function of its floating-point leaves only.

    f(*float_leaves) calls `fn` on the sample with its floating-point leaves replaced by f's
    arguments and the other leaves (integer indices, masks) fixed, which is the form the
    derivative checks need.

    Args:
        fn: the op under test.
        sample: a Sample of that op.

    Returns:
        The pair (f, float_leaves): the function and the sample's float and complex leaves.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import float_leaf_function, op_info
        >>> info = op_info("sin")
        >>> sample = info.samples(np.random.default_rng(0))[0]
        >>> f, leaves = float_leaf_function(info.fn, sample)
        >>> bool(np.allclose(f(*leaves), sample.call(np.sin)))
        True
    """
    leaves = sample.leaves()
    is_float = [x.dtype.kind in "fc" for x in leaves]

    def f(*floats):
        it = iter(floats)
        return sample.call(fn, [next(it) if fl else x for x, fl in zip(leaves, is_float)])
    return f, [x for x, fl in zip(leaves, is_float) if fl]
