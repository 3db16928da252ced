"""Forward mode: jvp / linearize / jacfwd semantics, errors, float0, symbolic zeros, and the
subgradient conventions at ties and zeros (hand-written; the per-op tests are generated in
test_forward_ops.py and test_compositions.py)."""
from typing import NamedTuple

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import check_jvp, numerical_jvp
jacfwd = ft.jacfwd

RNG = np.random.default_rng(1)


def test_jvp_matches_finite_differences_on_a_program():
    a = RNG.standard_normal((4, 3))
    x = RNG.standard_normal(3)

    def f(x):
        h = fnp.tanh(a @ x)
        return fnp.sum(h ** 2) + fnp.max(fnp.exp(h) * fnp.sin(x[0]))
    check_jvp(f, (x,), rng=RNG)


def test_jvp_pytrees_and_has_aux():
    class P(NamedTuple):
        w: np.ndarray
        b: np.ndarray
    p = P(RNG.standard_normal((2, 3)), RNG.standard_normal(2))
    x = RNG.standard_normal(3)
    tp = P(RNG.standard_normal((2, 3)), RNG.standard_normal(2))

    def f(p, x):
        y = p.w @ x + p.b
        return {"y": y, "s": fnp.sum(y)}, "aux-" + str(y.shape)
    out, t_out, aux = ft.jvp(f, (p, x), (tp, None), has_aux=True)
    assert aux == "aux-(2,)"
    np.testing.assert_allclose(out["y"], p.w @ x + p.b)
    np.testing.assert_allclose(t_out["y"], tp.w @ x + tp.b)
    np.testing.assert_allclose(t_out["s"], np.sum(tp.w @ x + tp.b))


def test_symbolic_zero_leaf_and_constant_output():
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    out, t = ft.jvp(lambda d: (d["x"] * d["y"], np.ones(2)), ({"x": x, "y": y},),
                    ({"x": np.ones(3), "y": None},))
    np.testing.assert_allclose(t[0], y)
    np.testing.assert_array_equal(t[1], np.zeros(2))


def test_integer_inputs_take_float0_or_none_and_integer_outputs_get_float0():
    x = RNG.standard_normal(4)
    idx = np.array([0, 2])

    def f(x, i):
        return x[i] * 2.0, i + 1
    out, t = ft.jvp(f, (x, idx), (np.ones(4), None))
    np.testing.assert_allclose(t[0], [2.0, 2.0])
    assert t[1].dtype == ft.float0 and t[1].shape == (2,)
    _, t2 = ft.jvp(f, (x, idx), (np.ones(4), np.zeros(2, dtype=ft.float0)))
    np.testing.assert_allclose(t2[0], t[0])
    with pytest.raises(TypeError, match=r"tangents\[1\].*int64.*float0"):
        ft.jvp(f, (x, idx), (np.ones(4), np.ones(2)))


def test_errors_name_the_position():
    x = np.ones(3)
    with pytest.raises(ValueError, match=r"tangents\[0\]\['a'\].*shape \(2,\).*\(3,\)"):
        ft.jvp(lambda d: d["a"], ({"a": x},), ({"a": np.ones(2)},))
    with pytest.raises(TypeError, match=r"tangents\[1\].*float32.*float64"):
        ft.jvp(lambda a, b: a + b, (x, x), (x, x.astype(np.float32)))
    with pytest.raises(ValueError, match=r"tangents\[0\] does not have the structure"):
        ft.jvp(lambda t: t[0], ((x, x),), ((x,),))
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        ft.jvp(lambda a, b: a, (x, x), (x,))
    with pytest.raises(TypeError, match="must be a tuple"):
        ft.jvp(lambda a: a, x, x)
    with pytest.raises(TypeError, match="has_aux"):
        ft.jvp(lambda a: a, (x,), (x,), has_aux=True)


def test_converting_a_dual_to_a_raw_array_is_refused_but_control_flow_works():
    def f(x):
        if fnp.sum(x) > 0:          # concrete control flow on the primal is fine (as JAX)
            return x * 2.0
        return x
    _, t = ft.jvp(f, (np.ones(2),), (np.ones(2),))
    np.testing.assert_allclose(t, [2.0, 2.0])
    with pytest.raises(TypeError, match="raw array"):
        ft.jvp(lambda x: np.asarray(x), (np.ones(2),), (np.ones(2),))


def test_non_differentiable_ops_give_zero_tangent():
    x = np.array([0.3, 1.7, -2.2])
    _, t = ft.jvp(lambda x: fnp.floor(x) + fnp.sign(x) + (x > 0), (x,), (np.ones(3),))
    np.testing.assert_array_equal(t, np.zeros(3))


def test_perturbation_confusion_is_avoided():
    # d/dx [x * d/dy (x + y)] at y = 1 is 1: the inner jvp must not see the outer tangent
    def inner(x):
        return ft.jvp(lambda y: x + y, (np.array(1.0),), (np.array(1.0),))[1]
    _, t = ft.jvp(lambda x: x * inner(x), (np.array(2.0),), (np.array(1.0),))
    assert float(t) == 1.0


def test_subgradient_conventions_at_ties_and_zeros():
    one = np.ones(3)
    _, t = ft.jvp(fnp.abs, (np.array([0.0, -1.0, 2.0]),), (one,))
    np.testing.assert_array_equal(t, [0.0, -1.0, 1.0])
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    for op, expect_x in [(fnp.maximum, [0.5, 1, 0]), (fnp.minimum, [0.5, 0, 1]),
                         (fnp.fmax, [0.5, 1, 0]), (fnp.fmin, [0.5, 0, 1])]:
        _, tx = ft.jvp(op, (x, y), (one, None))
        _, ty = ft.jvp(op, (x, y), (None, one))
        np.testing.assert_array_equal(tx, expect_x)
        np.testing.assert_array_equal(ty, 1 - np.array(expect_x))
    # max reduction: equal shares among tied elements
    _, t = ft.jvp(fnp.max, (np.array([3.0, 1.0, 3.0, 3.0]),), (np.array([3.0, 5.0, 0.0, 0.0]),))
    assert float(t) == pytest.approx(1.0)
    # sqrt at 0 gives inf, as JAX
    _, t = ft.jvp(fnp.sqrt, (np.array(0.0),), (np.array(1.0),))
    assert np.isinf(t)
    # where passes the tangent of the chosen branch only
    _, t = ft.jvp(lambda a, b: fnp.where(a > 0, a, b), (np.array([1.0, -1.0]), np.zeros(2)),
                  (np.array([1.0, 1.0]), np.array([7.0, 7.0])))
    np.testing.assert_array_equal(t, [1.0, 7.0])
    # clip = minimum(maximum(x, lo), hi): ties at the bounds split
    _, t = ft.jvp(lambda x: fnp.clip(x, 0.0, 1.0), (np.array([0.0, 0.5, 1.0, 2.0]),),
                  (np.ones(4),))
    np.testing.assert_array_equal(t, [0.5, 1.0, 0.5, 0.0])
    # power: 0 ** 0 and x ** 0 have zero derivatives in the base
    _, t = ft.jvp(lambda x: x ** 0.0, (np.array([0.0, 2.0]),), (np.ones(2),))
    np.testing.assert_array_equal(t, [0.0, 0.0])


def test_prod_and_cumprod_are_exact_with_zeros():
    x = np.array([2.0, 0.0, 3.0, 0.5])
    v = RNG.standard_normal(4)
    for f in (fnp.prod, fnp.cumprod, lambda x: fnp.prod(x.reshape(2, 2), axis=0)):
        _, t = ft.jvp(f, (x,), (v,))
        np.testing.assert_allclose(t, numerical_jvp(f, (x,), (v,))[0], atol=1e-8)


def test_linearize_matches_jvp_and_does_not_rerun_the_primal():
    a = RNG.standard_normal((5, 5))
    calls = []

    def f(x):
        calls.append(1)
        return fnp.sum(fnp.tanh(a @ x) ** 2), fnp.sin(x)
    x = RNG.standard_normal(5)
    out, jvp_fn = ft.linearize(f, x)
    assert len(calls) == 1
    vs = [RNG.standard_normal(5) for _ in range(3)]
    got = [jvp_fn(v) for v in vs]
    assert len(calls) == 1          # jvp_fn never calls f again
    for v, g in zip(vs, got):
        _, expected = ft.jvp(f, (x,), (v,))
        np.testing.assert_allclose(g[0], expected[0])
        np.testing.assert_allclose(g[1], expected[1])
    # the replay holds only tangent ops: tanh, sin, etc. are not among them
    names = {rec[0].name for rec in jvp_fn._records}
    assert "tanh" not in names and "sin" not in names and "cos" not in names
    np.testing.assert_allclose(out[1], np.sin(x))


def test_linearize_jvp_fn_under_vmap_gives_the_jacobian():
    a = RNG.standard_normal((3, 4))
    x = RNG.standard_normal(4)
    _, jvp_fn = ft.linearize(lambda x: fnp.tanh(a @ x), x)
    jac = ft.vmap(jvp_fn, out_dims=1)(np.eye(4))
    expected = (1 - np.tanh(a @ x) ** 2)[:, None] * a
    np.testing.assert_allclose(jac, expected)
    with pytest.raises(TypeError, match="takes 1 tangent"):
        jvp_fn(x, x)


def test_jacfwd_layout_and_pytrees():
    x = RNG.standard_normal((2, 3))
    w = RNG.standard_normal(3)

    def f(x, w):
        return {"m": fnp.sin(x) * w, "s": fnp.sum(x * w)}
    jac = jacfwd(f)(x, w)
    assert jac["m"].shape == (2, 3, 2, 3) and jac["s"].shape == (2, 3)
    expected = np.zeros((2, 3, 2, 3))
    for i in range(2):
        for j in range(3):
            expected[i, j, i, j] = np.cos(x[i, j]) * w[j]
    np.testing.assert_allclose(jac["m"], expected)
    np.testing.assert_allclose(jac["s"], np.broadcast_to(w, (2, 3)))
    jx, jw = jacfwd(f, argnums=(0, 1))(x, w)["s"]
    np.testing.assert_allclose(jw, x.sum(0))
    jac_aux, aux = jacfwd(lambda x: (fnp.sum(x ** 2), x.shape), has_aux=True)(x)
    np.testing.assert_allclose(jac_aux, 2 * x)
    assert aux == (2, 3)
    with pytest.raises(TypeError, match="jacfwd"):
        jacfwd(f)(np.ones((2, 3), dtype=int), w)


def test_every_builtin_differentiable_op_has_a_jvp_rule():
    builtin = list(ft.ops.BUILTIN_OPS.values())
    assert len(builtin) > 80
    missing = [op.name for op in builtin if op.differentiable and "jvp" not in op.rules]
    assert not missing, f"ops without a jvp rule: {missing}"


def test_linearize_with_integer_inputs_pytrees_and_aux():
    x = {"a": RNG.standard_normal(3), "i": np.array([2, 0])}

    def f(d):
        return d["a"][d["i"]] ** 2, "aux"
    out, jvp_fn, aux = ft.linearize(f, x, has_aux=True)
    assert aux == "aux"
    t = jvp_fn({"a": np.ones(3), "i": None})
    np.testing.assert_allclose(t, 2 * x["a"][[2, 0]])
    with pytest.raises(ValueError, match="shape"):
        jvp_fn({"a": np.ones(2), "i": None})


def test_escaped_dual_is_refused():
    leaked = []

    def f(x):
        y = x * 2.0
        leaked.append(y)
        return y
    ft.jvp(f, (np.ones(2),), (np.ones(2),))
    with pytest.raises(ft.EscapedWrapperError, match="jvp"):
        ft.jvp(lambda x: x + leaked[0], (np.ones(2),), (np.ones(2),))


def test_python_float_primals_and_outputs():
    out, t = ft.jvp(lambda a, b: a * b + 1.0, (2.0, np.array(3.0)), (1.0, np.array(0.0)))
    assert float(out) == 7.0 and float(t) == 3.0
    out, t = ft.jvp(lambda a: 5.0, (np.array(1.0),), (np.array(1.0),))
    assert out == 5.0 and float(t) == 0.0


def test_jacfwd_of_an_integer_output_is_zero_like_jacrev():
    x = np.array([1.0, 3.0, 2.0])

    def f(x):
        return x * 2.0, fnp.argmax(x)
    fwd, rev = ft.jacfwd(f)(x), ft.jacrev(f)(x)
    for a, b in zip(fwd, rev):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
