"""Errors of the op layer: each names what was wrong in the user's terms, nothing is mutated."""
import sys
import types

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import PassThroughInterpreter, passthrough


@pytest.mark.parametrize("call, name", [
    (lambda t: np.fft.hfft(t), "fft.hfft"), (lambda t: np.bincount(t), "bincount"),
    (lambda t: np.histogram(t), "histogram"), (lambda t: np.gcd(t, t), "gcd"),
    (lambda t: np.add.outer(t, t), "add.outer")])
def test_unsupported_numpy_function_names_it_and_the_extension_api(call, name):
    with pytest.raises(TypeError, match=name) as info:
        passthrough(call)(np.arange(4.0))
    assert "defop" in str(info.value)


def test_item_assignment_points_to_at():
    x = np.arange(3.0)

    def f(t):
        t[0] = 1.0
    with pytest.raises(TypeError, match=r"\.at\["):
        passthrough(f)(x)
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "**", "%", "@"])
def test_augmented_assignment_rebinds_and_never_writes_in_place(op):
    # as for JAX arrays: `u op= t` makes u a new value; t (and the caller's array) keep theirs
    x = np.eye(2) + 1.0
    namespace = {}
    exec(f"def f(t):\n    u = t\n    u {op}= t\n    return t, u", namespace)
    t, u = passthrough(namespace["f"])(x)
    np.testing.assert_array_equal(t, np.eye(2) + 1.0)
    np.testing.assert_allclose(u, eval(f"x {op} x"))
    np.testing.assert_array_equal(x, np.eye(2) + 1.0)


def test_ufunc_out_argument_is_refused():
    x, out = np.arange(3.0), np.zeros(3)
    with pytest.raises(TypeError, match="out="):
        passthrough(lambda t: np.add(t, t, out=out))(x)
    with pytest.raises(TypeError, match="out="):
        passthrough(lambda t: np.sum(t, out=out[:1].reshape(())))(x)
    np.testing.assert_array_equal(out, np.zeros(3))


def test_ufunc_at_is_refused_with_a_pointer_to_at():
    x = np.arange(3.0)
    with pytest.raises(TypeError, match=r"at\[idx\]\.add"):
        passthrough(lambda t: np.add.at(t, [0], 1.0))(x)
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


@pytest.fixture
def fake_cupy(monkeypatch):
    """A stand-in `cupy` module: enough for the backend to tell the two array kinds apart."""
    module = types.ModuleType("cupy")

    class ndarray:  # noqa: N801  (cupy's spelling)
        shape, dtype, ndim = (3,), np.dtype(np.float64), 1

    module.ndarray = ndarray
    monkeypatch.setitem(sys.modules, "cupy", module)
    return module


def test_mixing_numpy_and_cupy_arrays_is_refused(fake_cupy):
    with pytest.raises(ft.DeviceMismatchError, match=r"numpy.*cupy") as info:
        fnp.add(np.ones(3), fake_cupy.ndarray())
    assert "add" in str(info.value)
    with pytest.raises(ft.DeviceMismatchError, match="matmul"):
        fnp.matmul(fake_cupy.ndarray(), np.ones(3))
    assert issubclass(ft.DeviceMismatchError, TypeError)


def test_mixing_under_a_transform_is_refused_too(fake_cupy):
    with pytest.raises(ft.DeviceMismatchError):
        passthrough(lambda t: fnp.multiply(t, fake_cupy.ndarray()))(np.ones(3))


@pytest.fixture
def sim():
    """device_sim, the strict CPU stand-in for CuPy, registered as a device backend."""
    from functorch_lite.testing import device_sim
    device_sim.register()
    return device_sim


def test_mixing_numpy_and_device_sim_arrays_is_refused(sim):
    with pytest.raises(ft.DeviceMismatchError, match=r"numpy.*device_sim") as info:
        fnp.add(np.ones(3), sim.ones(3))
    assert "add" in str(info.value)
    with pytest.raises(ft.DeviceMismatchError, match="matmul"):
        fnp.matmul(sim.ones(3), np.ones(3))
    assert issubclass(ft.DeviceMismatchError, TypeError)


def test_mixing_under_a_transform_is_refused_too_on_device_sim(sim):
    with pytest.raises(ft.DeviceMismatchError):
        passthrough(lambda t: fnp.multiply(t, sim.ones(3)))(np.ones(3))


W_GLOBAL = np.ones((3, 2))


@pytest.mark.parametrize("transform", [ft.grad, ft.vmap, ft.jit], ids=["grad", "vmap", "jit"])
def test_device_mismatch_names_the_numpy_constant_and_where_it_lives(sim, transform):
    """The rule stays (a NumPy data array meeting device data is refused); the message gives
    the NumPy operand's shape and dtype, and the closure constant (or global) holding it."""
    def make():
        bias = np.ones(3, np.float32)

        def shifted(x):
            return fnp.sum(x + bias)

        def projected(x):
            return fnp.sum(fnp.matmul(x, W_GLOBAL))
        return shifted, projected
    shifted, projected = make()
    x = sim.asarray(np.ones((2, 3) if transform is ft.vmap else 3))
    with pytest.raises(ft.DeviceMismatchError) as info:
        transform(shifted)(x)
    message = str(info.value)
    assert "add got a numpy array" in message and "shape (3,), dtype float32" in message
    assert "`bias`, a constant that `shifted`" in message and "closes over" in message
    with pytest.raises(ft.DeviceMismatchError,
                       match=r"shape \(3, 2\), dtype float64, is the global `W_GLOBAL` read by "
                             r"`projected`"):
        transform(projected)(x)


def test_escaped_wrapper_error_names_the_transform():
    with PassThroughInterpreter() as interp:
        w = interp.wrap(np.ones(2))
    with pytest.raises(ft.EscapedWrapperError, match="pass-through") as info:
        fnp.exp(w)
    assert "level 1" in str(info.value)


def test_bitwise_operators_on_non_boolean_wrappers_are_refused():
    with pytest.raises(TypeError, match="boolean"):
        passthrough(lambda t: t & t)(np.arange(3))


@pytest.mark.parametrize("fn, message", [
    (lambda t: fnp.sum(t, out=np.zeros(())), "out="), (lambda t: fnp.clip(t), "max or min"),
    (lambda t: fnp.put_along_axis(t, np.array([0]), 1.0, 0, inplace=True), "mutate"),
    (lambda t: t[fnp.sum(t).astype(np.int64):], "slice bounds")])
def test_unsupported_arguments_say_so(fn, message):
    with pytest.raises((TypeError, ValueError), match=message):
        passthrough(fn)(np.arange(3.0))


def test_full_of_a_transformed_fill_value_is_its_broadcast():
    """It was refused ('full() needs a concrete fill_value'); as jnp.full, it broadcasts."""
    out = passthrough(lambda t: fnp.full((2, 3), t[1:]))(np.arange(3.0).reshape(3, 1))
    np.testing.assert_array_equal(out, np.full((2, 3), np.arange(3.0)[1:].reshape(2, 1)))


@pytest.mark.parametrize("full", [
    lambda v: fnp.full((2, 3), v), lambda v: np.full((2, 3), v, like=v),
    lambda v: np.full((2, 3), v, dtype=np.float64, like=v)],
    ids=["fnp.full", "np.full like", "np.full like dtype"])
def test_full_with_a_traced_fill_value_under_vmap_grad_and_jit(full):
    """jnp.full takes a traced fill value (issue 33): the result is its broadcast, batched per
    example, differentiable in it and traced by jit (against NumPy and a loop)."""
    def f(v):
        return fnp.sum(full(v) * np.arange(6.0).reshape(2, 3))
    vs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(ft.vmap(f)(vs), [np.sum(np.full((2, 3), v) * np.arange(6.0)
                                                       .reshape(2, 3)) for v in vs])
    np.testing.assert_allclose(ft.grad(f)(1.5), 15.0)                # d/dv sum(v * arange)
    np.testing.assert_allclose(ft.jit(f)(np.asarray(1.5)), 1.5 * 15.0)
    np.testing.assert_allclose(ft.jit(f)(np.asarray(-2.0)), -2.0 * 15.0)  # read per call
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(vs), np.full(3, 15.0))


def test_np_full_without_like_names_what_to_write():
    """NumPy's full converts the fill value with np.asarray before dispatching anything: the
    error names fnp.full and like= (the exception type is the transform's own)."""
    for transform, error in [(ft.grad, TypeError), (ft.vmap, TypeError),
                             (ft.jit, ft.TracerConversionError)]:
        with pytest.raises(error, match=r"write fnp.full\(shape, v\) \(as jnp.full\) or "
                                        r"np.full\(shape, v, like=v\)"):
            transform(lambda v: np.sum(np.full((3,), v)))(np.asarray(1.5) if transform is not
                                                           ft.vmap else np.ones(2))
