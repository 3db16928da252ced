"""ft.jit's XLA backend called with JAX arrays: taken as they are, JAX arrays returned (no
conversion at either end), the same values as the NumPy-array calls of the same function, one
trace per signature, and the NumPy backend refusing them with a message that names the XLA one."""
import numpy as np
import pytest

import functorch_lite as ft

jax = pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
jnp = jax.numpy


def _f64(x):
    with jax.enable_x64(True):
        return jnp.asarray(x, dtype=jnp.float64)


def _mlp_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = np.tanh(x @ w1 + b1)
    return np.mean((h @ w2 + b2 - y) ** 2)


def _problem(rng):
    params = [(rng.standard_normal((3, 8)), rng.standard_normal(8)),
              (rng.standard_normal((8, 1)), rng.standard_normal(1))]
    return params, rng.standard_normal((16, 3)), rng.standard_normal((16, 1))


def test_jax_arrays_in_give_jax_arrays_out_equal_to_the_numpy_calls():
    params, x, y = _problem(np.random.default_rng(0))
    f = ft.jit(ft.value_and_grad(_mlp_loss), backend="xla")
    want_value, want_grads = ft.value_and_grad(_mlp_loss)(params, x, y)   # eager NumPy
    jparams, jx, jy = jax.tree_util.tree_map(_f64, (params, x, y))
    for _ in range(3):   # the tracing call, then the compiled program
        value, grads = f(jparams, jx, jy)
        for got, want in zip(jax.tree_util.tree_leaves((value, grads)),
                             jax.tree_util.tree_leaves((want_value, want_grads))):
            assert isinstance(got, jax.Array) and got.dtype == np.float64
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-15)
    assert f.traces == 1
    f(params, x, y)                       # NumPy arrays: a signature (and results) of their own
    assert f.traces == 2   # the value a 0-d array, as eagerly (Note [output types])
    assert type(f(params, x, y)[0]) is type(want_value) is np.ndarray
    assert isinstance(f(jparams, jx, jy)[0], jax.Array) and f.traces == 2


def test_float32_jax_arrays_stay_float32_and_mixed_arguments_give_jax_arrays():
    f = ft.jit(lambda a, b, s: np.sin(a) * b + s, backend="xla")
    a32 = jnp.linspace(0.0, 1.0, 5, dtype=jnp.float32)
    b = np.arange(5, dtype=np.float32)
    want = np.sin(np.asarray(a32)) * b + np.float32(2.0)
    for _ in range(3):
        out = f(a32, b, 2.0)
        assert isinstance(out, jax.Array) and out.dtype == np.float32
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
    assert f.traces == 1


def test_constant_outputs_and_several_results_are_jax_arrays():
    table = np.arange(4.0)
    f = ft.jit(lambda x: (x * 2.0, table, x.sum()), backend="xla")
    x = _f64([1.0, 2.0, 3.0])
    for _ in range(3):
        doubled, const, total = f(x)
        assert all(isinstance(o, jax.Array) for o in (doubled, const, total))
        np.testing.assert_array_equal(np.asarray(doubled), [2.0, 4.0, 6.0])
        np.testing.assert_array_equal(np.asarray(const), table)
        assert float(total) == 6.0


def test_a_failed_check_raises_numpys_error_on_jax_arrays_too():
    f = ft.jit(lambda x, i: x[i] * 2.0, backend="xla")
    x = _f64(np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(f(x, jnp.asarray([0, 4]))), [0.0, 8.0])
    np.testing.assert_array_equal(np.asarray(f(x, jnp.asarray([1, -1]))), [2.0, 8.0])
    with pytest.raises(IndexError):
        f(x, jnp.asarray([0, 5]))


def test_a_loop_program_takes_jax_arrays():
    def f(w, x):
        return ft.fori_loop(0, 50, lambda i, h: np.tanh(h @ w), x).sum()
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal((6, 6)) * 0.5, rng.standard_normal((4, 6))
    jitted = ft.jit(ft.grad(f), backend="xla")
    want = ft.grad(f)(w, x)
    for _ in range(2):
        got = jitted(_f64(w), _f64(x))
        assert isinstance(got, jax.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-15)


def test_the_numpy_backend_refuses_jax_arrays_naming_the_xla_one():
    with pytest.raises(TypeError, match="backend='xla'"):
        ft.jit(lambda x: x + 1, backend="numpy")(jnp.ones(3))
    with pytest.raises(TypeError, match="backend='xla'"):
        ft.jit(lambda d: d["a"] + 1, backend="numpy")({"a": jnp.ones(3)})
