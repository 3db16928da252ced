"""vjp_fn and linearize's jvp_fn keep giving the derivative at the point they were made, however
the caller writes into the arrays it passed in or got back (Note [residual snapshots] in
reverse.py). Each check compares against the derivative computed afresh at the original point."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

RNG = np.random.default_rng(0)


def _f(w):
    """Rules of every kind of residual: primals (multiply, sin), the output (exp), views of the
    input (transpose, getitem) and a matmul with the input on both sides."""
    v = w.T[0]
    return fnp.sum(fnp.exp(w) * fnp.sin(w)) + fnp.sum(v * v) + fnp.sum(w @ w.T)


def _expected(w0, ct=1.0):
    return ft.grad(_f)(w0.copy()) * ct


def test_vjp_fn_after_writing_into_the_input():
    w = RNG.standard_normal((3, 3))
    w0 = w.copy()
    out, vjp_fn = ft.vjp(_f, w)
    w -= 0.5                      # in place, as an optimizer step would
    w[0, 0] = 7.0
    np.testing.assert_allclose(vjp_fn(np.asarray(2.0))[0], _expected(w0, 2.0), rtol=1e-12)
    np.testing.assert_allclose(out, _f(w0), rtol=1e-12)


def test_vjp_fn_after_writing_into_the_output_and_aux():
    w = RNG.standard_normal(4)
    w0 = w.copy()

    def f(w):
        e = fnp.exp(w)            # exp's rule reads its output: returned and kept as aux too
        return e, {"e": e, "sin": fnp.sin(w)}
    out, vjp_fn, aux = ft.vjp(f, w, has_aux=True)
    ct = RNG.standard_normal(4)
    out *= 3.0
    aux["e"][:] = -1.0
    aux["sin"] += 1.0
    w += 1.0
    np.testing.assert_allclose(vjp_fn(ct)[0], ct * np.exp(w0), rtol=1e-12)
    np.testing.assert_allclose(vjp_fn(ct)[0], ct * np.exp(w0), rtol=1e-12)  # and again


def test_vjp_fn_pytree_inputs_and_several_outputs():
    params = {"a": RNG.standard_normal((2, 3)), "b": RNG.standard_normal(3)}
    p0 = {k: v.copy() for k, v in params.items()}

    def f(p):
        h = fnp.tanh(p["a"] * p["b"])
        return h, fnp.sum(h * p["b"])
    out, vjp_fn = ft.vjp(f, params)
    cts = (RNG.standard_normal((2, 3)), np.asarray(1.5))
    expected = ft.vjp(f, p0)[1](cts)
    for v in params.values():
        v *= -2.0
    out[0][...] = 0.0
    got = vjp_fn(cts)
    for k in params:
        np.testing.assert_allclose(got[0][k], expected[0][k], rtol=1e-12)


def test_vjp_does_not_touch_or_keep_the_callers_arrays():
    w = RNG.standard_normal(5)
    w0 = w.copy()
    out, vjp_fn = ft.vjp(lambda x: x * 2.0, w)
    assert not np.shares_memory(out, w)
    np.testing.assert_array_equal(w, w0)
    g, = vjp_fn(np.ones(5))
    g += 1.0                       # writing into a returned cotangent changes nothing kept
    np.testing.assert_allclose(vjp_fn(np.ones(5))[0], 2.0 * np.ones(5))


def test_linearize_after_writing_into_input_output_and_aux():
    w = RNG.standard_normal((3, 3))
    w0 = w.copy()
    t = RNG.standard_normal((3, 3))
    expected = ft.jvp(_f, (w0,), (t,))[1]
    out, jvp_fn = ft.linearize(_f, w)
    w -= 0.25
    np.testing.assert_allclose(jvp_fn(t), expected, rtol=1e-12)

    def g(x):
        e = fnp.exp(x)
        return e * x, e
    out, jvp_fn, aux = ft.linearize(g, w, has_aux=True)
    w1 = w.copy()
    expected = ft.jvp(lambda x: g(x)[0], (w1,), (t,))[1]
    out += 5.0
    aux[...] = 0.0
    w[...] = 1.0
    np.testing.assert_allclose(jvp_fn(t), expected, rtol=1e-12)


@pytest.mark.parametrize("transform", ["vjp", "linearize"])
def test_snapshots_under_an_outer_transform(transform):
    # inside vmap the inputs are wrappers (never written in place): the snapshot is for raw
    # arrays only, and the results still match a loop
    xs = RNG.standard_normal((4, 3))

    def per_example(x):
        if transform == "vjp":
            return ft.vjp(lambda y: fnp.sin(y) * y, x)[1](fnp.ones_like(x))[0]
        return ft.linearize(lambda y: fnp.sin(y) * y, x)[1](fnp.ones_like(x))
    np.testing.assert_allclose(ft.vmap(per_example)(xs), np.cos(xs) * xs + np.sin(xs),
                               rtol=1e-12)
