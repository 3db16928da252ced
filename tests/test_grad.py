"""Reverse-mode API semantics: grad / grad_and_value / value_and_grad / vjp / jacrev / hessian /
custom_vjp, nesting, levels, escaped wrappers, the tape's lifetime, errors, conventions."""
import functools
import gc
import weakref
from typing import NamedTuple

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing.grad_checks import check_grad_transpose, gradcheck


# -- levels: no perturbation confusion ---------------------------------------------------------

def test_perturbation_confusion():
    assert ft.grad(lambda x: x * ft.grad(lambda y: x + y)(1.0))(2.0) == 1.0
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x
    assert ft.grad(lambda x: x * ft.grad(lambda y: x * y)(3.0))(2.0) == 4.0
    # the inner derivative closes over x and y: d/dx (d/dy (x*y*y) at y=x) = d/dx 2x^2 = 4x
    inner = ft.grad(lambda x: ft.grad(lambda y: x * y * y)(x))(1.5)
    assert inner == pytest.approx(6.0)


def test_nested_grad_three_levels_on_polynomials():
    def p(x):
        return 3 * x ** 5 - 2 * x ** 3 + x

    for x in (0.5, -1.25, 2.0):
        assert ft.grad(p)(x) == pytest.approx(15 * x ** 4 - 6 * x ** 2 + 1)
        assert ft.grad(ft.grad(p))(x) == pytest.approx(60 * x ** 3 - 12 * x)
        assert ft.grad(ft.grad(ft.grad(p)))(x) == pytest.approx(180 * x ** 2 - 12)


def test_escaped_wrapper_raises():
    leaked = []

    def f(x):
        leaked.append(x * 2)
        return x.sum()
    ft.grad(f)(np.ones(3))
    with pytest.raises(ft.EscapedWrapperError, match="escaped"):
        leaked[0] + 1.0
    # a later transform at the same depth does not adopt it either
    with pytest.raises(ft.EscapedWrapperError):
        ft.grad(lambda y: (y * leaked[0]).sum())(np.ones(3))


# -- the tape ---------------------------------------------------------------------------------

def test_tape_is_freed_after_backward():
    refs = []

    def f(x):
        y = fnp.sin(x) * 3.0
        refs.append(weakref.ref(y.value))
        return y.sum()
    gc.disable()
    try:
        g = ft.grad(f)(np.ones(1000))
        assert refs[0]() is None, "an intermediate array outlived grad (reference cycle?)"
    finally:
        gc.enable()
    np.testing.assert_allclose(g, 3 * np.cos(np.ones(1000)))


def test_escaped_wrapper_does_not_keep_the_tape_alive():
    leaked, refs = [], []

    def f(x):
        y = fnp.exp(x)
        leaked.append(y)
        refs.append(weakref.ref(fnp.exp(x).value))
        return y.sum()
    ft.grad(f)(np.ones(10))
    gc.collect()
    assert refs[0]() is None


def test_long_chain_has_no_recursion_error():
    def f(x):
        for _ in range(20_000):
            x = x * 1.0001
        return x
    g = ft.grad(f)(1.0)
    assert g == pytest.approx(1.0001 ** 20_000)


def test_vjp_fn_is_reusable_and_inputs_not_mutated():
    x = np.array([1.0, 2.0, 3.0])
    x_copy = x.copy()
    out, vjp_fn = ft.vjp(lambda x: x ** 2, x)
    np.testing.assert_allclose(vjp_fn(np.ones(3))[0], 2 * x)
    np.testing.assert_allclose(vjp_fn(np.arange(3.0))[0], 2 * x * np.arange(3.0))
    np.testing.assert_array_equal(x, x_copy)
    np.testing.assert_allclose(out, x ** 2)


# -- eager semantics --------------------------------------------------------------------------

def test_python_control_flow_and_float_concretize():
    def f(x):
        if x > 0:              # allowed: the tape is eager
            return x ** 2
        return -x
    assert ft.grad(f)(3.0) == 6.0
    assert ft.grad(f)(-3.0) == -1.0

    def g(x):
        scale = float(x)       # a constant: no derivative flows through it
        return x * scale
    assert ft.grad(g)(3.0) == 3.0


def test_non_differentiable_ops_contribute_nothing():
    def f(x):
        return (fnp.floor(x) * x + fnp.sign(x) + (x > 0) * x).sum()
    x = np.array([1.5, -2.5])
    np.testing.assert_allclose(ft.grad(f)(x), np.floor(x) + (x > 0))


# -- structure and dtypes ---------------------------------------------------------------------

class Params(NamedTuple):
    w: np.ndarray
    b: np.ndarray


def test_pytree_gradients_have_input_structure():
    params = {"layer": Params(np.ones((2, 3)), np.zeros(3)), "scale": [np.array(2.0)]}
    x = np.arange(2.0)

    def f(p, x):
        return (p["scale"][0] * (x @ p["layer"].w + p["layer"].b)).sum()
    g = ft.grad(f)(params, x)
    assert isinstance(g["layer"], Params)
    np.testing.assert_allclose(g["layer"].w, 2 * np.outer(x, np.ones(3)))
    np.testing.assert_allclose(g["layer"].b, 2 * np.ones(3))
    np.testing.assert_allclose(g["scale"][0], (x @ np.ones((2, 3))).sum())


def test_dtype_is_preserved_and_python_float_gives_0d_array():
    x32 = np.arange(3, dtype=np.float32)
    g = ft.grad(lambda x: (x * np.float64(2.0)).sum())(x32)
    assert g.dtype == np.float32
    g0 = ft.grad(lambda x: x * x)(3.0)
    assert isinstance(g0, np.ndarray) and g0.shape == () and g0.dtype == np.float64
    assert g0 == 6.0


def test_unused_input_gets_zeros():
    gx, gy = ft.grad(lambda x, y: (x * 2).sum(), argnums=(0, 1))(np.ones(2),
                                                                  np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(gy, np.zeros((3, 2), np.float32))
    assert gy.dtype == np.float32
    np.testing.assert_array_equal(gx, [2.0, 2.0])
    # an output that does not depend on the input at all
    np.testing.assert_array_equal(ft.grad(lambda x: 3.0)(np.ones(2)), np.zeros(2))


def test_argnums_tuple_negative_and_has_aux():
    def f(a, b, c):
        return (a * b * c).sum(), {"prod": a * b}
    a, b, c = np.array(2.0), np.array(3.0), np.array(5.0)
    (ga, gc_), aux = ft.grad(f, argnums=(0, -1), has_aux=True)(a, b, c)
    assert (ga, gc_) == (15.0, 6.0)
    assert aux["prod"] == 6.0 and isinstance(aux["prod"], np.ndarray)


def test_grad_and_value_orders():
    f = lambda x: (x ** 3).sum()  # noqa: E731
    x = np.array([1.0, 2.0])
    g, v = ft.grad_and_value(f)(x)
    v2, g2 = ft.value_and_grad(f)(x)
    np.testing.assert_allclose(g, 3 * x ** 2)
    np.testing.assert_allclose(g2, g)
    assert v == v2 == 9.0
    (v3, aux), g3 = ft.value_and_grad(lambda x: (f(x), "aux"), has_aux=True)(x)
    g4, (v4, aux4) = ft.grad_and_value(lambda x: (f(x), "aux"), has_aux=True)(x)
    assert aux == aux4 == "aux" and v3 == v4 == 9.0
    np.testing.assert_allclose(g3, g4)


def test_vjp_pytree_output_and_aux():
    def f(x, y):
        return {"a": x * y, "b": (fnp.sin(x), y.sum())}, "aux"
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    out, vjp_fn, aux = ft.vjp(f, x, y, has_aux=True)
    assert aux == "aux"
    ct = {"a": np.array([1.0, 1.0]), "b": (np.array([2.0, 0.0]), np.array(1.0))}
    gx, gy = vjp_fn(ct)
    np.testing.assert_allclose(gx, y + 2 * np.cos(x) * [1, 0])
    np.testing.assert_allclose(gy, x + 1)
    with pytest.raises(ValueError, match="structure"):
        vjp_fn({"a": np.ones(2)})
    with pytest.raises(ValueError, match="shape"):
        vjp_fn({"a": np.ones(3), "b": (np.ones(2), np.array(1.0))})


# -- errors -----------------------------------------------------------------------------------

def test_error_non_scalar_output():
    with pytest.raises(ValueError, match=r"shape \(3,\).*reduce it"):
        ft.grad(lambda x: x * 2)(np.ones(3))
    with pytest.raises(ValueError, match=r"index it.*sum it"):
        ft.grad(lambda x: x.sum(keepdims=True))(np.ones(3))
    with pytest.raises(TypeError, match="single scalar"):
        ft.grad(lambda x: (x.sum(), x.sum()))(np.ones(3))


def test_error_integer_input():
    with pytest.raises(TypeError, match="argument 0 has dtype int64"):
        ft.grad(lambda x: x.sum())(np.arange(3))
    with pytest.raises(TypeError, match="Python int"):
        ft.grad(lambda x: x * 1.0)(3)
    with pytest.raises(TypeError, match=r"argument 1\['k'\] has dtype int64"):
        ft.grad(lambda x, d: x, argnums=1)(1.0, {"k": np.arange(2)})


def test_error_argnums_out_of_range():
    with pytest.raises(ValueError, match="argnums 2 is out of range"):
        ft.grad(lambda x, y: x, argnums=2)(1.0, 2.0)
    with pytest.raises(ValueError, match="argnums -3 is out of range"):
        ft.grad(lambda x, y: x, argnums=(0, -3))(1.0, 2.0)


def test_error_has_aux_not_a_pair():
    with pytest.raises(TypeError, match="return a pair"):
        ft.grad(lambda x: x, has_aux=True)(1.0)
    with pytest.raises(TypeError, match="length 3"):
        ft.grad(lambda x: (x, 1, 2), has_aux=True)(1.0)


def test_error_integer_output():
    with pytest.raises(TypeError, match="floating-point output"):
        ft.grad(lambda x: fnp.argmax(x))(np.ones(3))


# -- compositions -----------------------------------------------------------------------------

def _mlp_loss(params, x, y):
    h = fnp.tanh(x @ params["w1"] + params["b1"])
    return ft.nn.cross_entropy(h @ params["w2"], y)


def _params(rng, d=5, h=4, k=3, dtype=np.float64):
    return {"w1": rng.standard_normal((d, h)).astype(dtype), "b1": np.zeros(h, dtype),
            "w2": rng.standard_normal((h, k)).astype(dtype)}


def test_vmap_grad_matches_loop_of_grad():
    rng = np.random.default_rng(0)
    params = _params(rng)
    X, Y = rng.standard_normal((6, 5)), rng.integers(0, 3, 6)
    got = ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0))(params, X, Y)
    for b in range(6):
        want = ft.grad(_mlp_loss)(params, X[b], Y[b])
        for k in params:
            np.testing.assert_allclose(got[k][b], want[k], rtol=1e-10, atol=1e-12)


def test_grad_of_vmap_matches_loop():
    rng = np.random.default_rng(1)
    params = _params(rng)
    X, Y = rng.standard_normal((4, 5)), rng.integers(0, 3, 4)

    def batch_loss(p):
        return ft.vmap(_mlp_loss, in_dims=(None, 0, 0))(p, X, Y).sum()
    got = ft.grad(batch_loss)(params)
    for k in params:
        want = sum(ft.grad(_mlp_loss)(params, X[b], Y[b])[k] for b in range(4))
        np.testing.assert_allclose(got[k], want, rtol=1e-10, atol=1e-12)


def test_gradcheck_and_transpose_on_mlp():
    rng = np.random.default_rng(2)
    params = _params(rng)
    x, y = rng.standard_normal(5), np.array(1)
    gradcheck(lambda p: _mlp_loss(p, x, y), (params,))
    check_grad_transpose(lambda p, x: _mlp_loss(p, x, y), (params, x))


def test_jacrev_pytrees_and_hessian():
    def f(d):
        return {"s": fnp.sin(d["a"]) * d["b"], "t": (d["a"] ** 2).sum()}
    d = {"a": np.array([0.3, -0.7, 1.1]), "b": np.array(2.0)}
    jac = ft.jacrev(f)(d)
    assert jac["s"]["a"].shape == (3, 3) and jac["s"]["b"].shape == (3,)
    assert jac["t"]["a"].shape == (3,) and jac["t"]["b"].shape == ()
    np.testing.assert_allclose(jac["s"]["a"], np.diag(np.cos(d["a"]) * 2.0))
    np.testing.assert_allclose(jac["s"]["b"], np.sin(d["a"]))
    np.testing.assert_allclose(jac["t"]["a"], 2 * d["a"])
    chunked = ft.jacrev(f, chunk_size=2)(d)
    np.testing.assert_allclose(chunked["s"]["a"], jac["s"]["a"])
    # argnums tuple: output structure outside, then the tuple of arguments
    ja, jb = ft.jacrev(lambda a, b: a * b, argnums=(0, 1))(np.ones(2), np.array(3.0))
    np.testing.assert_allclose(ja, 3 * np.eye(2))
    np.testing.assert_allclose(jb, np.ones(2))
    x = np.array([0.5, -1.0, 2.0])
    h = ft.hessian(lambda x: (x[0] * x[1] ** 2 + fnp.exp(x[2])))(x)
    want = np.array([[0, 2 * x[1], 0], [2 * x[1], 2 * x[0], 0], [0, 0, np.exp(x[2])]])
    np.testing.assert_allclose(h, want)


# -- conventions and stability ----------------------------------------------------------------

def test_subgradient_conventions():
    assert ft.grad(fnp.abs)(0.0) == 0.0
    np.testing.assert_allclose(ft.grad(lambda x: fnp.max(x))(np.array([1.0, 3.0, 3.0])),
                               [0, 0.5, 0.5])
    assert ft.grad(lambda x: fnp.maximum(x, 1.0))(1.0) == 0.5
    assert ft.grad(lambda x: fnp.minimum(x, 1.0))(1.0) == 0.5
    assert ft.grad(fnp.sqrt)(0.0) == np.inf
    np.testing.assert_array_equal(ft.grad(lambda x: fnp.linalg.norm(x))(np.zeros(3)),
                                  np.zeros(3))
    np.testing.assert_allclose(ft.grad(lambda x: fnp.clip(x, 0.0, 1.0).sum())(
        np.array([-1.0, 0.5, 2.0])), [0, 1, 0])


def test_where_and_the_double_where_idiom():
    x = np.array([0.0, 4.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        naive = ft.grad(lambda x: fnp.where(x > 0, fnp.sqrt(x), 0.0).sum())(x)
    assert np.isnan(naive[0])             # 0 * inf from the unused branch
    safe = ft.grad(lambda x: fnp.where(x > 0, fnp.sqrt(fnp.where(x > 0, x, 1.0)), 0.0).sum())(x)
    np.testing.assert_allclose(safe, [0.0, 0.25])


def test_stable_gradients_at_large_inputs():
    x = np.array([1e4, 0.0, -1e4])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_allclose(ft.grad(lambda x: ft.nn.logsumexp(x))(x), [1, 0, 0])
        np.testing.assert_allclose(ft.grad(lambda x: ft.nn.log_softmax(x)[1])(x), [-1, 1, 0])
        np.testing.assert_allclose(ft.grad(lambda x: ft.nn.softmax(x)[0])(x), [0, 0, 0])
        np.testing.assert_allclose(ft.grad(lambda x: ft.nn.cross_entropy(x, np.array(1)))(x),
                                   [1, -1, 0])
    np.testing.assert_allclose(ft.grad(lambda x: ft.nn.sigmoid(x).sum())(x), [0, 0.25, 0])
    np.testing.assert_allclose(ft.grad(lambda x: ft.nn.softplus(x).sum())(x), [1, 0.5, 0])


# -- custom_vjp -------------------------------------------------------------------------------

@ft.custom_vjp
def clip_gradient(x, bound):
    return x


def _clip_fwd(x, bound):
    return x, bound


def _clip_bwd(bound, ct):
    return fnp.clip(ct, -bound, bound), None


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_basic_and_plain_call():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(clip_gradient(x, 1.0), x)
    g = ft.grad(lambda x: (clip_gradient(x, np.array(0.5)) * 3.0).sum())(x)
    np.testing.assert_allclose(g, [0.5, 0.5])


def test_custom_vjp_under_vmap_and_nested_grad():
    @ft.custom_vjp
    def cube(x):
        return x ** 3

    def fwd(x):
        return x ** 3, x

    def bwd(x, ct):
        return (3.0 * x * x * ct,)
    cube.defvjp(fwd, bwd)
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(ft.vmap(ft.grad(cube))(xs), 3 * xs ** 2)
    np.testing.assert_allclose(ft.grad(ft.grad(cube))(2.0), 12.0)   # bwd is differentiable
    np.testing.assert_allclose(ft.grad(lambda x: ft.vmap(cube)(x).sum())(xs), 3 * xs ** 2)


def test_custom_vjp_nondiff_argnums_and_pytrees():
    @functools.partial(ft.custom_vjp, nondiff_argnums=(0,))
    def apply(fn, d):
        return fn(d["a"]) + d["b"]

    def fwd(fn, d):
        return apply(fn, d), d["a"]

    def bwd(fn, a, ct):
        return ({"a": ct * 100.0, "b": ct},)   # a deliberately wrong rule: it must be used
    apply.defvjp(fwd, bwd)
    d = {"a": np.array(1.0), "b": np.array(2.0)}
    g = ft.grad(lambda d: apply(fnp.sin, d))(d)
    assert g["a"] == 100.0 and g["b"] == 1.0


def test_custom_vjp_under_forward_mode_is_a_clear_error():
    # as JAX: forward mode cannot see through a reverse-only rule; the error names the function
    # and the way out (it used to be "op has no jvp rule; add one with op.def_rule")
    x = np.array([1.0, 2.0])
    for run in (lambda: ft.jvp(lambda x: clip_gradient(x, 0.5), (x,), (x,)),
                lambda: ft.jacfwd(lambda x: clip_gradient(x, 0.5))(x),
                lambda: ft.linearize(lambda x: clip_gradient(x, 0.5), x)):
        with pytest.raises(TypeError, match="custom_vjp function 'clip_gradient'.*custom_jvp"):
            run()
    # reverse-over-reverse still works
    np.testing.assert_allclose(ft.jacrev(ft.jacrev(lambda x: (clip_gradient(x, 9.0) ** 2).sum()))(x),
                               2 * np.eye(2))


def test_raw_array_conversion_is_refused_but_integer_results_concretize():
    with pytest.raises(TypeError, match="derivative would be lost"):
        ft.grad(lambda x: np.asarray(x).sum())(np.ones(3))
    # nonzero's integer result carries no derivative: it reads the value below the grad level
    def picked(x):
        (idx,) = ft.numpy.nonzero(x * (x > 0.5))  # nonzero of a value under grad
        return x[idx].sum()
    x = np.array([0.1, 0.9, 0.7])
    np.testing.assert_allclose(ft.grad(picked)(x), [0.0, 1.0, 1.0])


def test_augmented_assignment_under_vmap_of_grad():
    def loss(w, x):
        h = x @ w
        h += x.sum()          # NumPy's spelling: rebinding under transforms, no mutation
        h *= 2.0
        return (h ** 2).sum()
    w, X = np.ones((3, 2)), np.arange(12.0).reshape(4, 3)
    got = ft.vmap(ft.grad(loss), in_dims=(None, 0))(w, X)
    for i, x in enumerate(X):                 # d/dw sum((2(xw + s))^2) = 8 x^T (xw + s)
        expected = 8.0 * np.outer(x, x @ w + x.sum())
        np.testing.assert_allclose(got[i], expected)
    np.testing.assert_array_equal(w, np.ones((3, 2)))
