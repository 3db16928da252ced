"""numpy.fft beyond the sample database: hypothesis over shapes, axes, lengths and norms (the
kernel against NumPy, jvp against finite differences, the transpose identity, vmap against a
loop), and properties of the transforms that the derivatives must respect."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import check_jvp, check_transpose
from functorch_lite.testing.jvp_checks import random_like

NORMS = [None, "backward", "ortho", "forward"]
ONE_DIM = ["fft", "ifft", "rfft", "irfft"]


@st.composite
def one_dim_calls(draw):
    name = draw(st.sampled_from(ONE_DIM))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = draw(st.one_of(st.none(), st.integers(1, 7)))
    if name == "irfft" and n is None and shape[axis] == 1:
        n = 2          # the default 2 (m - 1) would be 0
    norm = draw(st.sampled_from(NORMS))
    seed = draw(st.integers(0, 2**16))
    return name, shape, dict(n=n, axis=axis, norm=norm), seed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(one_dim_calls())
def test_one_dim_transforms(call):
    name, shape, kw, seed = call
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if name != "rfft":
        x = x + 1j * rng.standard_normal(shape)
    ours, theirs = getattr(fnp.fft, name), getattr(np.fft, name)
    np.testing.assert_allclose(ours(x, **kw), theirs(x, **kw), rtol=1e-10, atol=1e-12)

    def f(x):
        return ours(x, **kw)
    check_jvp(f, (x,), rng=rng, rtol=1e-6, atol=1e-8)
    check_transpose(f, (x,), rng=rng, rtol=1e-9, atol=1e-11)
    batch = np.stack([x, 2 * x, x[::-1]])
    got = ft.vmap(lambda b: theirs(b, **kw))(batch)      # np.fft.* reaches our functions
    np.testing.assert_allclose(got, np.stack([theirs(b, **kw) for b in batch]), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
def test_vjp_of_each_transform_is_its_transpose_in_closed_form(norm):
    rng = np.random.default_rng(0)
    z = rng.standard_normal((3, 6)) + 1j * rng.standard_normal((3, 6))
    u = random_like(z, rng)
    _, fft_vjp = ft.vjp(lambda z: fnp.fft.fft(z, norm=norm), z)
    np.testing.assert_allclose(fft_vjp(u)[0], np.fft.fft(u, norm=norm))   # F is symmetric
    _, ifft_vjp = ft.vjp(lambda z: fnp.fft.ifft(z, norm=norm), z)
    np.testing.assert_allclose(ifft_vjp(u)[0], np.fft.ifft(u, norm=norm))


def test_parseval_gradient():
    """|fft(z, norm="ortho")|^2 sums to |z|^2, so both have the gradient 2 conj(z)."""
    rng = np.random.default_rng(1)
    z = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    g = ft.grad(lambda z: fnp.sum(fnp.abs(fnp.fft.fft2(z, norm="ortho")) ** 2))(z)
    np.testing.assert_allclose(g, 2 * np.conj(z), atol=1e-12)
    x = rng.standard_normal(8)
    # irfft(rfft(x)) is the identity: its derivative too, in both modes
    round_trip = lambda x: fnp.fft.irfft(fnp.fft.rfft(x, norm="forward"), n=8, norm="forward")
    np.testing.assert_allclose(ft.jacrev(round_trip)(x), np.eye(8), atol=1e-12)
    np.testing.assert_allclose(ft.jacfwd(round_trip)(x), np.eye(8), atol=1e-12)


def test_errors_name_the_function():
    with pytest.raises(TypeError, match="rfft: the input must be real"):
        fnp.fft.rfft(np.ones(4, complex))
    with pytest.raises(ValueError, match="invalid number of FFT data points"):
        fnp.fft.fft(np.ones(4), n=0)
    with pytest.raises(ValueError, match="s and axes have different lengths"):
        fnp.fft.fftn(np.ones((2, 3)), s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="invalid norm"):
        ft.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.fft(x, norm="unitary"))))(np.ones(3))
