"""What CuPy 14 refuses, and the library's answer to each (issue 32: the failures an H200 showed).

The first half runs the refusals themselves on the device module: on device_sim they check that
the stand-in refuses as CuPy does (its docstring lists the rules and where in CuPy's source each
comes from); on a GPU the same lines check CuPy still does. The second half checks the library
on top: the same programs give NumPy's results on the device, and inv, solve and cholesky of a
singular or non-positive-definite matrix raise LinAlgError on every backend (docs/gpu.md).
"""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.backend import companion
from functorch_lite.scipy import special

X = np.random.default_rng(0).standard_normal((2, 3))
A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
INDEFINITE = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


# -- the device module's own refusals ------------------------------------------------------------

def _refusals(dxp):
    x = dxp.asarray(X)
    a = dxp.asarray(np.stack([A, 2 * A]))
    return {
        "where_python_bool": (AttributeError, lambda: dxp.where(True, x, 0.0)),
        "logical_not_complex": (TypeError, lambda: dxp.logical_not(dxp.asarray(X + 1j))),
        "logical_and_complex": (TypeError, lambda: dxp.logical_and(dxp.asarray(X + 1j), x)),
        "fft2_empty_batch": (ValueError, lambda: dxp.fft.fft2(dxp.zeros((0, 3, 4), complex))),
        "solve_unbatched_matrix_b": (ValueError, lambda: dxp.linalg.solve(a, dxp.ones((3, 2)))),
        "solve_unit_stack_b": (ValueError, lambda: dxp.linalg.solve(a, dxp.ones((1, 3, 2)))),
        "expand_dims_float": (TypeError, lambda: dxp.expand_dims(1.5, 0)),
        "broadcast_to_float": (TypeError, lambda: dxp.broadcast_to(1.5, (2,))),
        "stack_with_a_float": (TypeError, lambda: dxp.stack([x[0, 0], 1.5])),
        "array_of_arrays_and_a_float": (TypeError, lambda: dxp.array([x[0, 0], x[1, 1], 2.0])),
        "polygamma_python_int": (AttributeError, lambda: companion(
            dxp, "cupyx.scipy.special").polygamma(1, x)),
        "multiply_at": (NotImplementedError, lambda: dxp.multiply.at(x, [0, 0], 2.0)),
    }


@pytest.mark.parametrize("case", list(_refusals(np)))
def test_the_device_module_refuses_what_cupy_refuses(dxp, case):
    error, run = _refusals(dxp)[case]
    with pytest.raises(error):
        run()


def test_numpy_accepts_each_of_those():
    """The same calls on NumPy succeed: each refusal is a difference the library must bridge."""
    for case, (_, run) in _refusals(np).items():
        if case not in ("polygamma_python_int", "multiply_at"):
            run()


def test_the_device_module_joins_lists_of_device_arrays(dxp):
    x = dxp.asarray(X)
    np.testing.assert_array_equal(dxp.asnumpy(dxp.array([x[0, 0], x[1, 1]])), [X[0, 0], X[1, 1]])
    np.testing.assert_array_equal(dxp.asnumpy(dxp.stack([x[0], x[1]])), X)


def test_singular_factorizations_are_nan_by_default_and_raise_in_errstate(dxp):
    """CuPy's default: NaN (or inf), no error; cupyx.errstate(linalg="raise") reads cuSOLVER's
    status and raises LinAlgError. The library's kernels run in the second mode."""
    singular = dxp.asarray(SINGULAR)
    assert not np.isfinite(dxp.asnumpy(dxp.linalg.inv(singular))).all()
    with companion(dxp, "cupyx").errstate(linalg="raise"):
        with pytest.raises(np.linalg.LinAlgError):
            dxp.linalg.inv(singular)
        with pytest.raises(np.linalg.LinAlgError):
            dxp.linalg.cholesky(dxp.asarray(INDEFINITE))
        np.testing.assert_allclose(dxp.asnumpy(dxp.linalg.inv(dxp.asarray(A))), np.linalg.inv(A))


# -- the library over them -------------------------------------------------------------------------

def _same(dxp, got, want):
    assert isinstance(got, dxp.ndarray), f"a {type(got).__name__} came back"
    np.testing.assert_allclose(dxp.asnumpy(got), want, rtol=1e-12, atol=1e-14)


_SOLVE_CASES = {   # (in_dims, a, b): per-example b of shape (3,) and (3, 2), a batched or not
    "b_vectors": ((None, 0), A, np.arange(6.0).reshape(2, 3)),
    "b_matrices": ((None, 0), A, np.arange(12.0).reshape(2, 3, 2)),
    "a_batched_b_vector": ((0, None), np.stack([A, A + np.eye(3)]), np.arange(3.0)),
    "a_batched_b_matrix": ((0, None), np.stack([A, A + np.eye(3)]), np.ones((3, 2))),
    "both_batched": ((0, 0), np.stack([A, A + np.eye(3)]), np.arange(6.0).reshape(2, 3)),
}


@pytest.mark.parametrize("case", list(_SOLVE_CASES))
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_vmap_solve_over_per_example_right_hand_sides(dxp, case, jit):
    """The batching rule's shapes meet CuPy's solve rule (b is (M,) or has a's stack dims
    exactly): the kernel broadcasts the stacks first. Checked against a loop of NumPy solves,
    and its gradient (solve_factored's rule) against the NumPy run."""
    dims, a, b = _SOLVE_CASES[case]
    fn = ft.vmap(fnp.linalg.solve, in_dims=dims)
    grad = ft.vmap(ft.grad(lambda a, b: fnp.sum(fnp.linalg.solve(a, b) ** 2), argnums=(0, 1)),
                   in_dims=dims)
    if jit:
        fn, grad = ft.jit(fn), ft.jit(grad)
    want = np.stack([np.linalg.solve(a if dims[0] is None else a[i], b if dims[1] is None
                                     else b[i]) for i in range(2)])
    _same(dxp, fn(dxp.asarray(a), dxp.asarray(b)), want)
    for got, expected in zip(grad(dxp.asarray(a), dxp.asarray(b)), grad(a, b)):
        _same(dxp, got, expected)


_FACTORIZATIONS = {"inv": (fnp.linalg.inv, SINGULAR),
                   "solve": (lambda m: fnp.linalg.solve(m, fnp.ones(3, like=m)), SINGULAR),
                   "cholesky": (fnp.linalg.cholesky, INDEFINITE)}


@pytest.mark.parametrize("name", list(_FACTORIZATIONS))
@pytest.mark.parametrize("how", ["eager", "vmap", "jit", "grad"])
@pytest.mark.parametrize("where", ["numpy", "device"])
def test_singular_matrices_raise_linalg_error_on_every_backend(dxp, name, how, where):
    """One rule (docs/gpu.md): a singular or non-positive-definite matrix is a LinAlgError on
    NumPy and on the device alike, eagerly and under transforms; on a GPU the check costs one
    device sync per call."""
    fn, bad = _FACTORIZATIONS[name]
    m = np.stack([A, bad]) if how == "vmap" else bad
    run = {"eager": fn, "vmap": ft.vmap(fn), "jit": ft.jit(fn),
           "grad": ft.grad(lambda m: fnp.sum(fn(m)))}[how]
    with pytest.raises(np.linalg.LinAlgError):
        run(m if where == "numpy" else dxp.asarray(m))


@pytest.mark.parametrize("name", list(_FACTORIZATIONS))
def test_regular_matrices_agree_with_numpy_on_the_device(dxp, name):
    fn, _ = _FACTORIZATIONS[name]
    _same(dxp, fn(dxp.asarray(A)), fn(A))
    _same(dxp, ft.vmap(fn)(dxp.asarray(np.stack([A, 2 * A]))), ft.vmap(fn)(np.stack([A, 2 * A])))


def test_polygamma_of_every_order_on_the_device(dxp):
    """cupyx's polygamma wants n as an array; the kernel gives it one. gammaln's second
    derivative is polygamma(1, x), reached through grad(grad)."""
    x = np.array([0.5, 1.5, 4.0])
    for n in range(3):
        _same(dxp, special.polygamma(n, dxp.asarray(x)), special.polygamma(n, x))
    second = ft.vmap(ft.grad(ft.grad(special.gammaln)))
    _same(dxp, second(dxp.asarray(x)), second(x))
