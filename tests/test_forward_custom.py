"""custom_jvp: the user's rule is used by jvp/jacfwd, survives vmap in either order, and reverse
mode differentiates through it by transposing the rule (as JAX)."""
import functools

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

X = np.array([0.1, -1.0, 2.0])
V = np.array([1.0, 2.0, 3.0])
SIG = 1 / (1 + np.exp(-X))


@ft.custom_jvp
def softplus(x):
    return fnp.log1p(fnp.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    # deliberately twice the true derivative, so every test can tell the rule was used
    x, = primals
    t, = tangents
    return softplus(x), t * (2.0 / (1.0 + fnp.exp(-x)))


def test_primal_value_and_jvp_use_the_rule():
    np.testing.assert_allclose(softplus(X), np.log1p(np.exp(X)))
    out, t = ft.jvp(softplus, (X,), (V,))
    np.testing.assert_allclose(out, np.log1p(np.exp(X)))
    np.testing.assert_allclose(t, 2 * SIG * V)
    np.testing.assert_allclose(ft.jacfwd(softplus)(X), np.diag(2 * SIG))


def test_vmap_in_either_order_keeps_the_rule():
    xs, vs = np.stack([X, -X]), np.stack([V, 2 * V])
    expected = 2 / (1 + np.exp(-xs)) * vs
    np.testing.assert_allclose(ft.vmap(softplus)(xs), np.log1p(np.exp(xs)))
    np.testing.assert_allclose(ft.jvp(ft.vmap(softplus), (xs,), (vs,))[1], expected)
    np.testing.assert_allclose(
        ft.vmap(lambda x, v: ft.jvp(softplus, (x,), (v,))[1])(xs, vs), expected)


def test_reverse_mode_transposes_the_rule():
    f = lambda x: fnp.sum(softplus(x) * V)  # noqa: E731
    np.testing.assert_allclose(ft.grad(f)(X), 2 * SIG * V)
    xs = np.stack([X, -X])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(xs), 2 / (1 + np.exp(-xs)) * V)
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(ft.vmap(softplus)(x)))(xs),
                               2 / (1 + np.exp(-xs)))
    np.testing.assert_allclose(ft.jacrev(softplus)(X), np.diag(2 * SIG))
    # second order differentiates the rule: d/dx 2 sig(x) = 2 sig (1 - sig)
    h = ft.grad(lambda x: fnp.sum(ft.grad(lambda y: fnp.sum(softplus(y)))(x)))(X)
    np.testing.assert_allclose(h, 2 * SIG * (1 - SIG))


def test_pytrees_multiple_outputs_and_nondiff_argnums():
    @functools.partial(ft.custom_jvp, nondiff_argnums=(0,))
    def scaled_pair(k, d):
        return {"a": k * d["x"] * d["y"], "b": d["x"]}

    @scaled_pair.defjvp
    def _(k, primals, tangents):
        d, = primals
        t, = tangents
        out = scaled_pair(k, d)
        return out, {"a": k * (t["x"] * d["y"] + d["x"] * t["y"]), "b": t["x"]}

    d = {"x": X, "y": V}
    out, t = ft.jvp(lambda d: scaled_pair(3.0, d), (d,), ({"x": V, "y": None},))
    np.testing.assert_allclose(out["a"], 3 * X * V)
    np.testing.assert_allclose(t["a"], 3 * V * V)
    np.testing.assert_allclose(t["b"], V)
    g = ft.grad(lambda d: fnp.sum(scaled_pair(3.0, d)["a"]))(d)
    np.testing.assert_allclose(g["x"], 3 * V)
    np.testing.assert_allclose(g["y"], 3 * X)


def test_errors():
    @ft.custom_jvp
    def no_rule(x):
        return x
    with pytest.raises(AttributeError, match="no jvp rule"):
        no_rule(X)

    @ft.custom_jvp
    def bad(x):
        return x, x

    @bad.defjvp
    def _(primals, tangents):
        return bad(*primals), tangents[0]
    with pytest.raises(TypeError, match="structure"):
        ft.jvp(bad, (X,), (V,))
