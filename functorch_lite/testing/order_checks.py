"""`check_grads`: JAX's one-call derivative check, to every order and in both modes.

At each order it checks forward mode (jvp against central finite differences along a random
tangent) and reverse mode (the dot-product identity `<J^T u, v> == d/de <u, f(x + e v)>`), then
recurses on the derivative functions themselves: `x -> jvp(f, x, t)[1]` and
`x -> vjp(f, x)[1](u)` for fixed random t and u. So order 2 checks forward-over-forward,
reverse-over-forward, forward-over-reverse and reverse-over-reverse, each against finite
differences of the order below.
"""
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np
import optree

from .grad_checks import _cotangents, check_grad_transpose
from .jvp_checks import check_jvp, random_tangents

# JAX's default gradient tolerances by dtype (looser than the op checks': finite differences
# of derivatives lose more digits)
_TOLERANCE = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 2e-3,
              np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 2e-3,
              np.dtype(np.complex128): 1e-5}
_MODES = {"fwd": "forward mode (jvp)", "rev": "reverse mode (vjp)"}


def _as_array(x):
    return np.asarray(x) if isinstance(x, (int, float, complex)) else x


def _float_leaf(x):
    return x is not None and hasattr(x, "dtype") and np.dtype(x.dtype).kind in "fc"


def _jvp_function(f, tangents):
    from ..transforms.forward import jvp
    return lambda *args: jvp(f, args, tangents)[1]


def _vjp_function(f, u_tree):
    """x -> J(x)^T u over the floating leaves of x (None for the others)."""
    from ..transforms.reverse import vjp

    def f_vjp(*args):
        leaves, spec = optree.tree_flatten(args)
        diff = [k for k, x in enumerate(leaves) if _float_leaf(x)]

        def f_of_floats(*floats):
            new = list(leaves)
            for k, x in zip(diff, floats):
                new[k] = x
            return f(*spec.unflatten(new))
        cts = vjp(f_of_floats, *(leaves[k] for k in diff))[1](u_tree)
        return tuple(cts)
    return f_vjp


def check_grads(f: Callable, args: Sequence[Any], order: int,
                modes: Union[str, Sequence[str]] = ("fwd", "rev"), atol: Optional[float] = None,
                rtol: Optional[float] = None, eps: Optional[float] = None,
                rng: Optional[np.random.Generator] = None) -> None:
    """Check f's derivatives up to `order` against finite differences, as jax.test_util's
    check_grads: forward mode, reverse mode, and at order n every mix of the two below it.

    Each order checks jvp along a random tangent against central differences, and vjp through
    the identity `<J^T u, v> == d/de <u, f(x + e v)>` for random u and v; order n + 1 repeats
    the checks on the functions x -> jvp(f, x, t) and x -> vjp(f, x)(u).

    Args:
        f: the function, called as f(*args); outputs are pytrees of arrays.
        args: a tuple of pytrees of arrays (Python numbers become 0-d arrays).
        order: the highest derivative order checked (1: first derivatives).
        modes: "fwd", "rev" or both.
        atol: absolute tolerance (by default JAX's per dtype: 1e-5 for float64, 2e-3 for
            float32, the loosest among the inputs).
        rtol: relative tolerance (the same default).
        eps: the finite-difference step (by default suited to the lowest precision).
        rng: numpy.random.Generator for the tangents and cotangents (default_rng(0)).

    Raises:
        AssertionError: a derivative differs from finite differences; the message names the
            order, the chain of modes and the output leaf, with the largest error.
        ValueError: an unknown mode or an order below 1.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import check_grads
        >>> check_grads(lambda x: np.sin(x) * x, (np.array([0.5, 2.0]),), order=2)
        >>> try:
        ...     check_grads(lambda x: np.sin(x) * x, (np.array([0.5, 2.0]),), order=1,
        ...                 modes=["rev"], eps=1e-2, rtol=1e-9, atol=1e-9)
        ... except AssertionError as err:
        ...     print(str(err)[:56])
        check_grads: order 1, reverse mode (vjp) differs from fi
    """
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    unknown = [m for m in modes if m not in _MODES]
    if unknown or not modes:
        raise ValueError(f"check_grads: modes must be among 'fwd' and 'rev', got {modes!r}")
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"check_grads: order must be an int >= 1, got {order!r}")
    args = tuple(optree.tree_map(_as_array, tuple(args)))
    floats = [np.dtype(x.dtype) for x in optree.tree_leaves(args) if _float_leaf(x)]
    default = max((_TOLERANCE.get(d, 1e-5) for d in floats), default=1e-5)
    tol = (default if rtol is None else rtol, default if atol is None else atol)
    _check(f, args, order, modes, tol, eps, rng or np.random.default_rng(0), 1, ())


def _check(f, args, order, modes, tol, eps, rng, level, chain):
    rtol, atol = tol
    for mode in modes:
        where = " of ".join([_MODES[mode]] + [_MODES[m] for m in reversed(chain)])
        try:
            if mode == "fwd":
                check_jvp(f, args, rng=rng, rtol=rtol, atol=atol, eps=eps)
            else:
                check_grad_transpose(f, args, rng=rng, rtol=rtol, atol=atol, eps=eps)
        except AssertionError as err:
            raise AssertionError(f"check_grads: order {level}, {where} differs from finite "
                                 f"differences: {err}") from None
        if level < order:
            if mode == "fwd":
                derivative = _jvp_function(f, random_tangents(args, rng))
            else:
                derivative = _vjp_function(f, _cotangents(f, args, rng)[2])
            _check(derivative, args, order, modes, tol, eps, rng, level + 1, chain + (mode,))
