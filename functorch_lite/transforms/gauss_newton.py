"""Gauss-Newton-vector products (autograd's make_ggnvp): for a model f and a loss g of its
output, J^T H_g J v, the curvature second-order optimizers use in place of the Hessian (it is
positive semi-definite whenever g is convex)."""
from .forward import linearize
from .reverse import grad, vjp


def _half_sum_of_squares(y):
    return 0.5 * (y * y).sum()


def make_ggnvp(f, g=None, f_argnum=0):
    """The Gauss-Newton-vector product of g(f(x)) at x, as autograd.make_ggnvp.

    make_ggnvp(f, g, f_argnum)(*args) returns v -> J^T H J v, with J the Jacobian of f in its
    argument `f_argnum` and H the Hessian of g at f(*args) (g defaults to half the sum of
    squares, H = I: J^T J v).

    One jvp of f, one Hessian-vector product of g and one vjp of f per product; f is linearized
    once per point.

    Args:
        f: the model, a function of arrays returning an array.
        g: a scalar function of f's output (default 0.5 * sum(y ** 2)).
        f_argnum: the positional argument of f the products are taken in.

    Returns:
        A function of f's arguments returning the function v -> J^T H J v (v of that
        argument's shape).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> W = np.array([[1.0, 2.0], [0.0, 1.0], [3.0, 1.0]])
        >>> ggnvp = ft.make_ggnvp(lambda x: W @ x)(np.zeros(2))
        >>> bool(np.allclose(ggnvp(np.array([1.0, 0.0])), W.T @ W @ [1.0, 0.0]))
        True
    """
    g = _half_sum_of_squares if g is None else g

    def at(*args):
        def f_of(x):
            return f(*args[:f_argnum], x, *args[f_argnum + 1:])
        y, push = linearize(f_of, args[f_argnum])
        _, pull = vjp(f_of, args[f_argnum])
        _, hvp = linearize(grad(g), y)

        def ggnvp(v):
            return pull(hvp(push(v)))[0]
        return ggnvp
    return at
