"""Matrix-free iterative solvers (as jax.scipy.sparse.linalg): `cg`, the conjugate gradient
method for symmetric positive definite A, differentiated implicitly: the backward pass solves
A^T lambda = ct with cg again instead of differentiating the iterations, so memory does not
grow with the iteration count and the gradient is that of the exact solution."""
import functools

from ... import numpy as fnp
from ...numpy._util import as_operand, shape, size
from ...tensor import Tensor
from ...transforms.custom import custom_vjp

__all__ = ["cg"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__


def _dot(u, v):
    return fnp.sum(u * v)


def _iterate(matvec, b, x0, tol, atol, maxiter, precondition):
    """Conjugate gradients from x0 until |r| <= max(tol |b|, atol). A converged step changes
    nothing (its alpha and beta are 0), so under vmap, where convergence cannot be read per
    example, every example runs maxiter steps with the same result."""
    threshold = fnp.maximum(tol * tol * _dot(b, b), atol * atol)
    x = x0
    r = b - matvec(x)
    z = precondition(r)
    p, rz = z, _dot(r, z)
    for _ in range(maxiter):
        done = fnp.less_equal(_dot(r, r), threshold)
        if not isinstance(done, Tensor) and bool(done):
            break
        ap = matvec(p)
        pap = _dot(p, ap)
        alpha = fnp.where(done, 0.0, rz / fnp.where(pap == 0, 1.0, pap))
        x, r = x + alpha * p, r - alpha * ap
        z = precondition(r)
        rz_new = _dot(r, z)
        p = z + fnp.where(done, 0.0, rz_new / fnp.where(rz == 0, 1.0, rz)) * p
        rz = rz_new
    return x


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve A x = b for symmetric positive definite A by conjugate gradients, as
    jax.scipy.sparse.linalg.cg; derivatives by implicit differentiation in reverse mode only.

    Differentiable in reverse mode by implicit differentiation: the cotangent of b is the
    solution lambda of A lambda = ct (cg again) and, for an array A, that of A is
    -outer(lambda, x). A function A that closes over values being transformed (its parameters)
    is differentiated through the iterations instead (exact to the tolerance). Forward mode
    (jvp, jacfwd) refuses the implicit rule, as every custom_vjp function.

    Args:
        A: an (n, n) array, or a function computing A @ v for a vector v of b's shape.
        b: the right-hand side.
        x0: the starting guess (zeros by default); it gets no gradient.
        tol: stop when |b - A x| <= max(tol |b|, atol).
        atol: the absolute tolerance.
        maxiter: the most iterations (default 10 n, as SciPy).
        M: a function applying a preconditioner (an approximation of A^-1), or None.

    Returns:
        (x, info): the solution, and None (as JAX).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> from functorch_lite.scipy.sparse.linalg import cg
        >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
        >>> x, _ = cg(A, np.array([1.0, 2.0]), tol=1e-12)
        >>> bool(np.allclose(A @ x, [1.0, 2.0]))
        True
        >>> g = ft.grad(lambda b: cg(A, b, tol=1e-12)[0].sum())(np.array([1.0, 2.0]))
        >>> bool(np.allclose(g, np.linalg.solve(A.T, np.ones(2))))
        True
    """
    b = as_operand(b)
    x0 = fnp.zeros_like(b) if x0 is None else as_operand(x0)
    maxiter = 10 * size(b) if maxiter is None else maxiter
    precondition = (lambda r: r) if M is None else M
    iterate = functools.partial(_iterate, tol=tol, atol=atol, maxiter=maxiter,
                                precondition=precondition)
    if callable(A):
        if isinstance(A(fnp.zeros_like(b)), Tensor):   # A closes over transformed values
            return iterate(A, b, x0), None
        return _solve_with_function(A, iterate)(b, x0), None
    A = as_operand(A)
    if len(shape(A)) != 2 or shape(A)[0] != shape(A)[1] or shape(b) != shape(A)[:1]:
        raise ValueError(f"cg: A must be a square matrix and b a vector of its size; got shapes "
                         f"{shape(A)} and {shape(b)}")
    return _solve_with_matrix(iterate)(A, b, x0), None


def _solve_with_function(matvec, iterate):
    @custom_vjp
    def solve(b, x0):
        return iterate(matvec, b, x0)

    def fwd(b, x0):
        return solve(b, x0), x0

    def bwd(x0, ct):
        return iterate(matvec, ct, fnp.zeros_like(ct)), fnp.zeros_like(x0)
    solve.defvjp(fwd, bwd)
    return solve


def _solve_with_matrix(iterate):
    def solve_fn(A, b, x0):
        return iterate(lambda v: A @ v, b, x0)

    @custom_vjp
    def solve(A, b, x0):
        return solve_fn(A, b, x0)

    def fwd(A, b, x0):
        x = solve_fn(A, b, x0)
        return x, (A, x, x0)

    def bwd(residuals, ct):
        A, x, x0 = residuals
        lam = iterate(lambda v: fnp.swapaxes(A, 0, 1) @ v, ct, fnp.zeros_like(ct))
        return -fnp.outer(lam, x), lam, fnp.zeros_like(x0)
    solve.defvjp(fwd, bwd)
    return solve

