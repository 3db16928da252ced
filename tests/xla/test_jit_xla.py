"""ft.jit's XLA backend: choosing it, JAX as an optional dependency, NumPy arrays in and out
(fresh, writable, float64 kept), 64-bit types scoped to the compiled function, errors the NumPy
backend raises, and ops that run on the host."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.compiler import xla
from xla_checks import assert_backends_agree

HAS_JAX = True
try:
    import jax  # noqa: F401
except ImportError:
    HAS_JAX = False
needs_jax = pytest.mark.skipif(not HAS_JAX, reason="the XLA backend needs JAX "
                                                   "(pip install -e '.[xla]')")


@pytest.fixture
def no_default(monkeypatch):
    monkeypatch.delenv(xla.ENV_VAR, raising=False)
    monkeypatch.setattr(xla, "_default", None)


def test_without_jax_the_xla_backend_names_the_extra(monkeypatch, no_default):
    monkeypatch.setitem(sys.modules, "jax", None)   # import jax now raises ImportError
    with pytest.raises(ImportError, match=r"pip install -e '\.\[xla\]'"):
        ft.jit(lambda x: x + 1, backend="xla")
    with pytest.raises(ImportError, match=r"pip install -e '\.\[xla\]'"):
        ft.set_jit_backend("xla")
    monkeypatch.setenv(xla.ENV_VAR, "xla")
    with pytest.raises(ImportError, match=r"pip install -e '\.\[xla\]'"):
        ft.jit(lambda x: x + 1)
    # the NumPy backend never needs JAX
    np.testing.assert_array_equal(ft.jit(lambda x: x + 1, backend="numpy")(np.ones(2)), 2.0)


def test_unknown_backend_is_refused(no_default, monkeypatch):
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        ft.jit(lambda x: x, backend="tpu")
    with pytest.raises(ValueError, match="unknown backend"):
        ft.set_jit_backend("numba")
    monkeypatch.setenv(xla.ENV_VAR, "nope")
    with pytest.raises(ValueError, match="FUNCTORCH_LITE_JIT_BACKEND"):
        ft.jit(lambda x: x)


@needs_jax
def test_default_backend_comes_from_set_jit_backend_then_the_environment(no_default,
                                                                        monkeypatch):
    assert ft.jit(lambda x: x).backend == "numpy"
    monkeypatch.setenv(xla.ENV_VAR, "xla")
    assert ft.jit(lambda x: x).backend == "xla"
    ft.set_jit_backend("numpy")
    assert ft.jit(lambda x: x).backend == "numpy"   # the call wins over the environment
    assert ft.jit(lambda x: x, backend="xla").backend == "xla"
    ft.set_jit_backend(None)
    assert ft.jit(lambda x: x).backend == "xla"
    f = ft.jit(lambda x: np.sin(x) * 2)
    x = np.linspace(0, 1, 5)
    f(x)
    assert type(f.lower(x).fn).__name__ == "XlaFunction"
    np.testing.assert_allclose(f(x), np.sin(x) * 2, rtol=1e-15)


@needs_jax
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.complex128])
def test_dtypes_are_kept_and_outputs_are_fresh_writable_numpy_arrays(dtype):
    x = (np.arange(6).reshape(2, 3) + 1).astype(dtype)
    f = ft.jit(lambda x: (x * 3 + x, x.sum(), x), backend="xla")
    f(x)
    a, s, same = f(x)
    want = (x * 3 + x, x.sum(), x)
    for got, exp in zip((a, s, same), want):
        assert type(got) is type(exp) or isinstance(got, np.ndarray)
        assert np.asarray(got).dtype == np.asarray(exp).dtype
        np.testing.assert_array_equal(got, exp)
    assert a.flags.writeable and same.flags.writeable
    assert not np.shares_memory(same, x)
    a[...] = 0
    same[...] = 0
    np.testing.assert_array_equal(f(x)[0], want[0])   # a caller's writes change no later call
    np.testing.assert_array_equal(x, (np.arange(6).reshape(2, 3) + 1).astype(dtype))


@needs_jax
def test_float64_keeps_float64_precision():
    x = np.array([1.0 + 2.0 ** -40, 3.0])
    f = ft.jit(lambda x: (x - 1.0) * 2.0 ** 40, backend="xla")
    f(x)
    np.testing.assert_array_equal(f(x), [1.0, 2.0 ** 41])


@needs_jax
def test_x64_is_enabled_for_the_compiled_function_only():
    """In a fresh process with JAX's default (32-bit) setting: after the XLA backend compiled
    and ran float64 programs, the user's own JAX code still defaults to float32."""
    code = textwrap.dedent("""
        import numpy as np, jax, jax.numpy as jnp, functorch_lite as ft
        assert jnp.ones(1).dtype == jnp.float32
        f = ft.jit(ft.grad(lambda x: (np.tanh(x) ** 2).sum()), backend="xla")
        x = np.linspace(0, 1, 7)
        for _ in range(3):
            g = f(x)
        assert g.dtype == np.float64, g.dtype
        assert jnp.ones(1).dtype == jnp.float32, jnp.ones(1).dtype
        assert jax.jit(lambda a: a * 2)(np.ones(2)).dtype == jnp.float32
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}, cwd=".")
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


@needs_jax
def test_an_out_of_range_label_raises_the_numpy_backends_error():
    """XLA clamps indices; a checked index (cross_entropy's labels) raises as on NumPy."""
    logits = np.random.default_rng(0).standard_normal((4, 3))
    f = ft.jit(lambda z, y: ft.nn.cross_entropy(z, y), backend="xla")
    good = np.array([0, 2, 1, 0])
    f(logits, good)
    np.testing.assert_allclose(f(logits, good),
                               ft.jit(lambda z, y: ft.nn.cross_entropy(z, y),
                                      backend="numpy")(logits, good), rtol=1e-12)
    with pytest.raises(IndexError, match="out of range"):
        f(logits, np.array([0, 3, 1, 0]))


@needs_jax
def test_an_out_of_range_index_array_raises_as_numpy_does():
    x = np.arange(5.0)
    f = ft.jit(lambda x, i: x[i] * 2, backend="xla")
    f(x, np.array([0, 4]))
    np.testing.assert_array_equal(f(x, np.array([-5, 4])), [0.0, 8.0])
    with pytest.raises(IndexError):
        np.arange(5.0)[np.array([1, 5])]   # NumPy's own behaviour, which the backend keeps
    with pytest.raises(IndexError):
        f(x, np.array([1, 5]))


@needs_jax
def test_host_only_and_foreign_ops_run_their_numpy_kernel_inside_the_program():
    from functorch_lite.compiler.xla_lowerings import HOST_ONLY
    assert "argpartition" in HOST_ONLY
    rng = np.random.default_rng(2)
    double = ft.defop("xla_test_double_plus_one", lambda xp, x: 2 * x + 1,
                      differentiable=False)
    try:
        fn = lambda x: double(fnp.argpartition(x, 2).astype(float) + np.sin(x))  # noqa: E731
        f = ft.jit(fn, backend="xla")
        x = rng.standard_normal(7)
        f(x)
        for _ in range(2):
            x = rng.standard_normal(7)
            assert_backends_agree(f(x), fn(x), "argpartition and a user op on the host")
    finally:
        ft.OPS.pop("xla_test_double_plus_one", None)


@needs_jax
def test_a_boolean_mask_the_program_computes_runs_on_the_host():
    fn = lambda x: fnp.where(x > 0, x, 0.0).sum() + x[x > 0.5].shape[0]  # noqa: E731
    x = np.array([0.2, 0.7, -1.0, 0.9])
    try:
        ft.jit(fn, backend="numpy")(x)
    except ft.TracerConversionError:
        pytest.skip("the trace refuses a value-dependent shape")
    f = ft.jit(fn, backend="xla")
    f(x)
    assert_backends_agree(f(x), ft.jit(fn, backend="numpy")(x), "boolean mask")


@needs_jax
def test_a_scatter_through_a_computed_mask_matches_numpy():
    """x.at[mask].set(v) with a mask the program computes: the mask's True count is data, so
    XLA cannot express the update; it runs on the host."""
    fn = lambda x, v: fnp.at(x)[x > 0].set(v) * 2  # noqa: E731
    f = ft.jit(fn, backend="xla")
    x = np.array([0.2, -0.7, 1.0])
    f(x, 5.0)
    for x in (np.array([0.2, -0.7, 1.0]), np.array([-0.2, 0.7, -1.0])):
        assert_backends_agree(f(x, 5.0), ft.jit(fn, backend="numpy")(x, 5.0), "masked set")
        np.testing.assert_array_equal(f(x, 5.0), np.where(x > 0, 5.0, x) * 2)


@needs_jax
def test_make_graph_and_lower_show_the_compiled_program():
    f = ft.jit(lambda x: np.exp(x) + 1.0, backend="xla")
    x = np.ones(3)
    f(x)
    text = f.lower(x).fn.source
    assert "exponential" in text and "f64" in text


@needs_jax
def test_big_closure_constants_are_arguments_and_small_ones_are_compiled_in():
    rng = np.random.default_rng(3)
    w, b = rng.standard_normal((40, 30)), rng.standard_normal(30)
    fn = lambda x: np.tanh(x @ w + b)  # noqa: E731
    f = ft.jit(fn, backend="xla")
    x = rng.standard_normal((5, 40))
    f(x)
    assert len(f.lower(x).fn.consts) == 1       # w (1200 elements); b is compiled in
    assert_backends_agree(f(x), ft.jit(fn)(x), "closure constants")


@needs_jax
def test_uniform_constant_arrays_are_compiled_as_broadcast_scalars():
    """A mean's 1/n seed is compiled in as a broadcast scalar (no argument, no memory read);
    a constant that differs from its first element in any bit, -0.0 against 0.0 included,
    is kept as it is."""
    mean_square = ft.jit(ft.grad(lambda x: np.mean(x ** 2)), backend="xla")
    x = np.linspace(-1, 1, 600)
    mean_square(x)
    assert mean_square.lower(x).fn.consts == []
    np.testing.assert_allclose(mean_square(x), 2 * x / x.size, rtol=1e-15)
    signed = np.zeros(600)
    signed[1::2] = -0.0
    f = ft.jit(lambda x: 1.0 / (x * 0.0 + signed), backend="xla")
    f(x)
    assert len(f.lower(x).fn.consts) == 1
    np.testing.assert_array_equal(f(x), 1.0 / (x * 0.0 + signed))   # +-inf, signs as NumPy


@needs_jax
def test_small_inputs_are_packed_per_dtype_and_read_on_every_call():
    """Small array arguments of one dtype reach XLA as one flat array (a transfer each costs
    more than the copy); big arrays and Python scalars go alone. Every call reads the
    arguments' current values, whatever their strides."""
    rng = np.random.default_rng(5)

    def fn(a, b, i, big, s, c):
        return (a @ b + s * i[:, None], big.sum() + c.sum(), (i * 2).astype(np.int32))
    f = ft.jit(fn, backend="xla")
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    i, c = np.arange(3), np.asarray(rng.standard_normal(3), np.float32)
    big = rng.standard_normal(10_000)
    f(a, b, i, big, 0.5, c)
    xf = f.lower(a, b, i, big, 0.5, c).fn
    assert [[xf.program.inputs[k].dtype for k in ks] for ks in xf._packs] == [[np.float64] * 2]
    for _ in range(2):
        a[...] = rng.standard_normal((3, 4))
        b = np.asfortranarray(rng.standard_normal((4, 2)))
        got, want = f(a, b, i, big, 0.25, c), fn(a, b, i, big, 0.25, c)
        assert_backends_agree(got, want, "packed inputs")


@needs_jax
def test_threads_share_one_xla_function():
    import threading
    f = ft.jit(ft.vmap(ft.grad(lambda w, x: np.sum(np.tanh(x @ w) ** 2)), in_dims=(None, 0)),
               backend="xla")
    rng = np.random.default_rng(4)
    w, xs = rng.standard_normal((3, 2)), rng.standard_normal((8, 5, 3))
    want = ft.vmap(ft.grad(lambda w, x: np.sum(np.tanh(x @ w) ** 2)), in_dims=(None, 0))(w, xs)
    f(w, xs)   # compiled once; the threads then share the XLA executable
    errors = []

    def work():
        try:
            for _ in range(5):
                np.testing.assert_allclose(f(w, xs), want, rtol=1e-12)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert f.traces == 1


def test_value_dependent_shapes_and_python_scalars_as_on_numpy():
    """The jit contract's rules hold on XLA too: a boolean mask whose count changes traces
    again (never a stale shape), Python scalar arithmetic stays a Python scalar."""
    mean_positive = ft.jit(lambda x: np.mean(x[x > 0]), backend="xla")
    for x in ([1.0, 2.0, 3.0], [1.0, -1.0, 5.0], [4.0, -1.0, 5.0]):
        assert mean_positive(np.array(x)) == np.mean(np.array(x)[np.array(x) > 0])
    assert mean_positive.traces == 2
    step = ft.jit(lambda p, lr, count: (p - (lr * 0.5) * p, count + 1), backend="xla")
    for count in range(3):
        p, nxt = step(np.ones(2, np.float32), 0.1, count)
        assert p.dtype == np.float32 and type(nxt) is int and nxt == count + 1
    assert step.traces == 1


@needs_jax
def test_a_product_with_a_bool_mask_keeps_nan_inf_and_signed_zero():
    """XLA rewrites v * convert(mask) into select(mask, v, 0); the lowering keeps NumPy's
    product (NaN * False is NaN, -2.0 * False is -0.0), as a jvp's mask times the NaN tangent
    of a branch `where` did not choose, or max's derivative 0 / 0 at a NaN."""
    v = np.array([np.nan, np.inf, -2.0, 3.0, -np.inf, -0.0])
    mask = np.array([False, False, False, True, True, True])
    for f in (lambda v, m: v * m, lambda v, m: m * v, lambda v, m: v.astype(np.float32) * m,
              lambda v, m: v[:, None] * m, lambda v, m: (v * 1j - 0.0) * m):
        with np.errstate(invalid="ignore"):
            want = f(v, mask)
        on_xla = ft.jit(f, backend="xla")
        for call in range(2):   # the tracing call, then the compiled program
            got = on_xla(v, mask)
            assert got.dtype == want.dtype
            for part in (np.real, np.imag):
                np.testing.assert_array_equal(part(got), part(want))
                np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)))
    # the derivative that met it: grad through where, then jvp of that, at a NaN input
    h = lambda x, y: ft.grad(lambda y: np.sum(np.arctan(np.where(np.abs(x) > y, x, 0.5 * y))))(y)
    g = lambda x, y: ft.jvp(lambda x: h(x, y), (x,), (np.ones_like(x),))[1]   # noqa: E731
    x, y = np.array([np.nan, 2.0]), np.array([0.5, 0.5])
    want = g(x, y)
    on_xla = ft.jit(g, backend="xla")
    for call in range(2):
        np.testing.assert_array_equal(on_xla(x, y), want)
    grad_max = ft.grad(lambda x: np.sum(np.max(x, axis=0) * 0.7))
    x = np.array([[1.0, np.nan], [2.0, 0.5]])
    with np.errstate(invalid="ignore"):
        want = grad_max(x)                          # [[0, nan], [0.7, nan]]
    on_xla = ft.jit(grad_max, backend="xla")
    for call in range(2):
        np.testing.assert_array_equal(on_xla(x), want)
