"""ft.lax.dynamic_slice, dynamic_update_slice and associative_scan: against NumPy references
(slicing with JAX's clamping rule, sequential prefix combinations), under vmap, grad and ft.jit,
and against jax.lax where JAX is installed."""
import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite.testing import gradcheck


def clamp(start, n, size):
    start = start + n if start < 0 else start
    return min(max(start, 0), n - size)


def reference_slice(x, starts, sizes):
    s = [clamp(st, n, k) for st, n, k in zip(starts, x.shape, sizes)]
    return x[tuple(slice(a, a + k) for a, k in zip(s, sizes))], s


STARTS = [(0, 0), (2, 3), (3, 4), (-1, 1), (-9, 7), (1, -2)]


@pytest.mark.parametrize("starts", STARTS)
def test_dynamic_slice_clamps_as_jax_does(starts):
    x = np.arange(20.0).reshape(4, 5)
    want, _ = reference_slice(x, starts, (2, 3))
    np.testing.assert_array_equal(ft.lax.dynamic_slice(x, starts, (2, 3)), want)
    traced = ft.jit(lambda x, i, j: ft.lax.dynamic_slice(x, (i, j), (2, 3)))
    np.testing.assert_array_equal(traced(x, np.int64(starts[0]), np.int64(starts[1])), want)


@pytest.mark.parametrize("starts", STARTS)
def test_dynamic_update_slice_clamps_as_jax_does(starts):
    x = np.arange(20.0).reshape(4, 5)
    update = -np.arange(6.0).reshape(2, 3)
    _, s = reference_slice(x, starts, (2, 3))
    want = x.copy()
    want[s[0]:s[0] + 2, s[1]:s[1] + 3] = update
    np.testing.assert_array_equal(ft.lax.dynamic_update_slice(x, update, starts), want)
    traced = ft.jit(lambda x, u, i, j: ft.lax.dynamic_update_slice(x, u, (i, j)))
    np.testing.assert_array_equal(traced(x, update, np.int64(starts[0]), np.int64(starts[1])),
                                  want)
    assert x[0, 0] == 0.0   # the operand is unchanged


def test_dynamic_slice_per_example_starts_under_vmap_and_its_gradient():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 4))
    starts = np.array([0, 3, 5, -1])

    def window_sum(x, i):
        return np.sum(ft.lax.dynamic_slice(x, (i, 1), (2, 3)) ** 2)
    got = ft.vmap(window_sum, in_dims=(None, 0))(x, starts)
    want = [np.sum(reference_slice(x, (int(i), 1), (2, 3))[0] ** 2) for i in starts]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for i in starts:
        g = ft.grad(window_sum)(x, i)
        _, (r, c) = reference_slice(x, (int(i), 1), (2, 3))
        expected = np.zeros_like(x)
        expected[r:r + 2, c:c + 3] = 2 * x[r:r + 2, c:c + 3]
        np.testing.assert_allclose(g, expected, rtol=1e-12)
        np.testing.assert_allclose(ft.jit(ft.grad(window_sum))(x, i), expected, rtol=1e-12)


def test_dynamic_update_slice_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    x, u = rng.standard_normal((5, 3)), rng.standard_normal((2, 3))
    gradcheck(lambda x, u: np.sum(np.sin(ft.lax.dynamic_update_slice(x, u * u, (2, 0)))),
              (x, u))


def sequential(fn, xs, reverse=False):
    """The prefix combinations one by one (the definition), along axis 0."""
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    out, acc = [None] * len(xs), None
    for i in order:
        acc = xs[i] if acc is None else fn(acc, xs[i])
        out[i] = acc
    return np.stack(out)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_of_a_non_commutative_product(n, reverse):
    A = np.random.default_rng(n).standard_normal((n, 2, 2))
    got = ft.lax.associative_scan(lambda a, b: a @ b, A, reverse=reverse)
    np.testing.assert_allclose(got, sequential(np.matmul, A, reverse), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_of_a_pytree_along_another_axis(reverse):
    """A linear recurrence h_t = a_t h_{t-1} + b_t as the composition of affine maps."""
    rng = np.random.default_rng(2)
    a, b = rng.uniform(0.5, 1.0, (3, 7)), rng.standard_normal((3, 7))

    def compose(p, q):
        return p[0] * q[0], p[1] * q[0] + q[1]
    got_a, got_b = ft.lax.associative_scan(compose, (a, b), reverse=reverse, axis=1)
    pairs = [(a[:, t], b[:, t]) for t in range(7)]
    order = range(6, -1, -1) if reverse else range(7)
    acc = None
    for t in order:
        acc = pairs[t] if acc is None else compose(acc, pairs[t])
        np.testing.assert_allclose(got_a[:, t], acc[0], rtol=1e-12)
        np.testing.assert_allclose(got_b[:, t], acc[1], rtol=1e-12)


def test_associative_scan_under_grad_vmap_and_jit():
    x = np.random.default_rng(3).standard_normal((4, 9))

    def f(v):
        return np.sum(np.sin(ft.lax.associative_scan(np.add, v)))
    np.testing.assert_allclose(ft.vmap(f)(x), [np.sum(np.sin(np.cumsum(v))) for v in x],
                               rtol=1e-12)
    want = [ft.grad(lambda v: np.sum(np.sin(np.cumsum(v))))(v) for v in x]
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(x), want, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(ft.vmap(ft.grad(f)))(x), want, rtol=1e-12)


def test_associative_scan_refuses_leaves_of_different_lengths():
    with pytest.raises(ValueError, match="lengths"):
        ft.lax.associative_scan(lambda p, q: p, (np.ones(3), np.ones(4)))


def test_against_jax_lax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    with jax.enable_x64(True):
        x = np.arange(20.0).reshape(4, 5)
        for starts in STARTS:
            np.testing.assert_array_equal(
                ft.lax.dynamic_slice(x, starts, (2, 3)),
                np.asarray(jax.lax.dynamic_slice(jnp.asarray(x), starts, (2, 3))))
        A = np.random.default_rng(4).standard_normal((6, 2, 2))
        for reverse in (False, True):
            np.testing.assert_allclose(
                ft.lax.associative_scan(lambda a, b: a @ b, A, reverse=reverse),
                np.asarray(jax.lax.associative_scan(lambda a, b: a @ b, jnp.asarray(A),
                                                    reverse=reverse)), rtol=1e-12)
