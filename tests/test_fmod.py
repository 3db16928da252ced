"""fmod is a primitive running the array module's own fmod (jax.numpy's on the XLA backend), so
it is exact, as C's fmod: a dividend far smaller than its divisor comes back unchanged under
every transform and jit, where `remainder(x1, x2) - x2` lost it. Derivatives: 1 in x1,
-trunc(x1 / x2) in x2."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

X1 = np.array([-1e-17, -1.0, -0.3, 0.3, -5.0, 7.5, -7.5, 1e300, -0.0, 0.0, 2.5, -3.0, 1e-310,
               np.inf, np.nan, 4.0])
X2 = np.array([1.0, 1e308, 1e8, -1e8, np.inf, 2.0, -2.0, 3e-5, 3.0, -3.0, -np.inf, 1.5, -1.0,
               2.0, 1.0, 0.0])


def _same_bits(got, want, what):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got, want)
    np.testing.assert_array_equal(got, want, err_msg=what)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=what + ": signs")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.uint16])
def test_fmod_is_exact_eagerly_under_vmap_and_jit(dtype):
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        x1 = np.array([7, -7, 7, -7, 0, info.min, info.max, 5], dtype=dtype) \
            if info.min < 0 else np.array([7, 0, 250, info.max, 5, 1], dtype=dtype)
        x2 = np.array([3, 3, -3, -3, 2, -1, 7, 0], dtype=dtype) \
            if info.min < 0 else np.array([3, 2, 7, 10, 0, 1], dtype=dtype)
    else:
        x1, x2 = X1.astype(dtype), X2.astype(dtype)
    with np.errstate(all="ignore"):
        want = np.fmod(x1, x2)
        _same_bits(fnp.fmod(x1, x2), want, "fnp")
        _same_bits(ft.vmap(np.fmod)(x1, x2), want, "vmap")
        _same_bits(ft.vmap(np.fmod, in_dims=(0, None))(x1[:, None], x2), np.fmod(x1[:, None], x2),
                   "vmap, one operand batched")
        for backend in ("numpy", "xla"):
            if backend == "xla":
                pytest.importorskip("jax")
            f = ft.jit(lambda a, b: np.fmod(a, b), backend=backend)
            for call in range(2):
                _same_bits(f(x1, x2), want, f"jit {backend} call {call}")
        if want.dtype.kind == "f":
            _same_bits(ft.vjp(lambda a: np.fmod(a, x2), x1)[0], want, "vjp primal")
            _same_bits(ft.jvp(lambda a: np.fmod(a, x2), (x1,), (np.ones_like(x1),))[0], want,
                       "jvp primal")


def test_derivatives_are_one_and_minus_trunc_against_finite_differences():
    rng = np.random.default_rng(0)
    x2 = rng.uniform(1.2, 2.5, 12) * rng.choice([-1.0, 1.0], 12)
    x1 = x2 * (rng.integers(-3, 3, 12) + rng.uniform(0.1, 0.9, 12))   # away from the jumps
    h = 1e-7
    gx1, gx2 = ft.grad(lambda a, b: fnp.sum(fnp.fmod(a, b)), argnums=(0, 1))(x1, x2)
    np.testing.assert_allclose(gx1, (np.fmod(x1 + h, x2) - np.fmod(x1 - h, x2)) / (2 * h),
                               rtol=1e-6)
    np.testing.assert_allclose(gx2, (np.fmod(x1, x2 + h) - np.fmod(x1, x2 - h)) / (2 * h),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(gx2, -np.trunc(x1 / x2))
    for backend in ("numpy", "xla"):
        if backend == "xla":
            pytest.importorskip("jax")
        _, t = ft.jit(lambda a, b: ft.jvp(np.fmod, (a, b), (np.ones_like(a), np.ones_like(b))),
                      backend=backend)(x1, x2)
        np.testing.assert_allclose(t, 1.0 - np.trunc(x1 / x2), rtol=1e-14)
    # a dividend far smaller than its divisor: fmod is the dividend, derivative 1 and 0
    g1, g2 = ft.grad(lambda a, b: fnp.sum(fnp.fmod(a, b)), argnums=(0, 1))(X1[:4], X2[:4])
    np.testing.assert_array_equal(g1, np.ones(4))
    np.testing.assert_array_equal(g2, np.zeros(4))
