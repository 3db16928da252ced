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


def _per_example_grads():
    def loss(p, x):
        return np.sum(np.tanh(x @ p["w"] + p["b"]) ** 2)
    return ft.vmap(ft.grad(loss), in_dims=(None, 0)), ft.vmap(ft.grad(loss), in_dims=(None, 0))


def test_a_compiled_call_on_jax_arrays_converts_nothing_to_numpy(monkeypatch):
    """After the tracing call, a call with JAX arrays hands them to XLA and returns XLA's
    arrays: nothing in the call converts to NumPy or waits for a result (np.asarray,
    np.array, jax.device_get, block_until_ready and reading any JAX array's value all fail
    inside it)."""
    grads, eager = _per_example_grads()
    f = ft.jit(grads, backend="xla")
    g = ft.jit(lambda v: ft.vmap(ft.grad(lambda u: np.sum(np.sin(u) * u)))(v), backend="xla")
    rng = np.random.default_rng(2)
    p = {"w": rng.standard_normal((3, 4)).astype(np.float32),
         "b": rng.standard_normal(4).astype(np.float32)}
    xs = [rng.standard_normal((n, 3)).astype(np.float32) for n in (5, 7)]
    v = rng.standard_normal((8, 2)).astype(np.float32)
    jp, jxs, jv = jax.device_put(p), [jax.device_put(x) for x in xs], jax.device_put(v)
    for jx in jxs:
        f(jp, jx)   # trace and compile each signature
    g(jv)

    def refuse(*args, **kwargs):
        raise AssertionError("a call with JAX arrays converted or waited")
    for module, name in ((np, "asarray"), (np, "array"), (np, "ascontiguousarray"),
                         (jax, "device_get"), (jax, "block_until_ready")):
        monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr(type(jv), "_value", property(refuse))   # every read of a JAX array
    results = []
    for k in (0, 1, 0, 0, 1):   # alternating signatures: each finds its own program
        results.append((k, f(jp, jxs[k])))
    results.append((None, g(jv)))
    monkeypatch.undo()
    for k, got in results:
        want = eager(p, xs[k]) if k is not None else np.sin(v) + v * np.cos(v)
        for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            assert isinstance(a, jax.Array) and a.dtype == np.float32
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-5, atol=1e-6)
    assert f.traces == 2 and g.traces == 1


def test_numpy_arguments_after_jax_ones_still_get_numpy_results():
    """The call path that skips the signature key for JAX arrays (Note [direct calls on JAX
    arrays]) leaves NumPy arguments, other shapes and other trees to the keyed one."""
    grads, eager = _per_example_grads()
    f = ft.jit(grads, backend="xla")
    rng = np.random.default_rng(3)
    p = {"w": rng.standard_normal((3, 4)), "b": rng.standard_normal(4)}
    x = rng.standard_normal((5, 3))
    jp, jx = jax.tree_util.tree_map(_f64, (p, x))
    for _ in range(2):
        assert isinstance(f(jp, jx)["w"], jax.Array)
    out = f(p, x)
    assert type(out["w"]) is np.ndarray and out["w"].flags.writeable
    np.testing.assert_allclose(out["w"], eager(p, x)["w"], rtol=1e-12, atol=1e-15)
    wide = _f64(rng.standard_normal((5, 6)))
    pw = jax.tree_util.tree_map(_f64, {"w": rng.standard_normal((6, 4)), "b": p["b"]})
    np.testing.assert_allclose(np.asarray(f(pw, wide)["w"]),
                               eager({k: np.asarray(v) for k, v in pw.items()},
                                     np.asarray(wide))["w"], rtol=1e-12, atol=1e-15)
    with pytest.raises(KeyError):   # another tree: traced anew, where the function fails
        f({"w": jp["w"]}, jx)
    np.testing.assert_allclose(np.asarray(f(jp, jx)["b"]), eager(p, x)["b"], rtol=1e-12,
                               atol=1e-15)   # 1e-12 of the result's scale (xla_checks.RTOL)
