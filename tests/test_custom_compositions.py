"""custom_vjp and custom_jvp under every pair and triple of vmap, grad, jvp, vjp, jacrev, jacfwd.

Both functions compute x**3 but their rules give twice the true derivative, so a composition
that differentiated the body instead of the user's rule is off by a factor of 2. The reference
is the same composition over `2 x**3 - stop_gradient(x**3)`: the value of x**3 with, at every
order, the derivatives of 2 x**3 (no custom machinery involved); a few compositions are also
checked against the analytic derivatives in NumPy. Forward mode through a custom_vjp function
is an error, as in JAX; forward over the reverse mode of one (jvp(grad(f))) differentiates its
fwd and bwd.
"""
import itertools

import numpy as np
import optree
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

X = np.array([[[0.5, -1.25], [1.5, 0.75]], [[-0.5, 2.0], [1.0, -1.5]]])
CALLS = {"bwd": 0, "jvp_rule": 0}


@ft.custom_vjp
def cube_vjp(x):
    return x ** 3


def _cube_fwd(x):
    # the output through cube_vjp itself (JAX's idiom), so a transform outside the one that
    # runs fwd differentiates it with bwd too; a body written out here would be differentiated
    # as it is (as in JAX, see test_fwd_body_is_differentiated_by_outer_transforms)
    return cube_vjp(x), x


def _cube_bwd(x, ct):
    CALLS["bwd"] += 1
    return (6.0 * x * x * ct,)      # twice the true 3 x^2


cube_vjp.defvjp(_cube_fwd, _cube_bwd)


@ft.custom_jvp
def cube_jvp(x):
    return x ** 3


@cube_jvp.defjvp
def _cube_jvp_rule(primals, tangents):
    CALLS["jvp_rule"] += 1
    (x,), (t,) = primals, tangents
    return cube_jvp(x), 6.0 * x * x * t


@ft.custom_vjp
def cube_vjp_plain_fwd(x):
    return x ** 3


cube_vjp_plain_fwd.defvjp(lambda x: (x ** 3, x), _cube_bwd)


def reference(x):
    return 2.0 * x ** 3 - ft.stop_gradient(x ** 3)


def _grad(F):
    return ft.grad(lambda x: fnp.sum(F(x)))


def _jvp(F):
    def run(x):
        out, t = ft.jvp(F, (x,), (0.5 * fnp.ones_like(x),))
        return out + t
    return run


def _vjp(F, pullback_only=False):
    def run(x):
        out, pullback = ft.vjp(F, x)
        ct = pullback(0.5 * fnp.ones_like(out))[0]
        return ct if pullback_only else ct + 0.1 * fnp.sum(out)
    return run


TRANSFORMS = {"vmap": ft.vmap, "grad": _grad, "jvp": _jvp, "vjp": _vjp, "jacrev": ft.jacrev,
              "jacfwd": ft.jacfwd}
REVERSE, FORWARD = {"grad", "vjp", "jacrev"}, {"jvp", "jacfwd"}
COMPOSITIONS = [c for n in (2, 3) for c in itertools.product(TRANSFORMS, repeat=n)]


def compose(names, f, pullback_only=False):
    """names[0](names[1](...(f))): the first name is the outermost transform."""
    for name in reversed(names):
        f = _vjp(f, pullback_only) if name == "vjp" else TRANSFORMS[name](f)
    return f


def innermost_derivative(names):
    return next((n for n in reversed(names) if n != "vmap"), None)


@pytest.mark.parametrize("names", COMPOSITIONS, ids="-".join)
def test_custom_vjp_uses_bwd_in_every_composition(names):
    # fwd computes its output through cube_vjp, so every reverse transform, including those
    # outside the one running fwd, uses bwd; forward mode anywhere meets the function: an error
    CALLS["bwd"] = 0
    if FORWARD.intersection(names):
        with pytest.raises(TypeError, match="forward-mode.*custom_vjp function 'cube_vjp'"):
            compose(names, cube_vjp)(X)
        return
    got = compose(names, cube_vjp)(X)
    np.testing.assert_allclose(got, compose(names, reference)(X), rtol=1e-12, atol=1e-12)
    assert (CALLS["bwd"] > 0) == (innermost_derivative(names) in REVERSE)


@pytest.mark.parametrize("names", COMPOSITIONS, ids="-".join)
def test_custom_vjp_with_plain_fwd_under_forward_over_reverse(names):
    # fwd computes its output with library ops: forward mode outside the reverse transform
    # that runs fwd differentiates fwd and bwd (jvp(grad(f)), hessian); forward mode as the
    # innermost derivative is an error. (vjp contributes its pullback only: its primal output
    # would carry fwd's own derivative, see test_fwd_body_is_differentiated_by_outer_transforms)
    CALLS["bwd"] = 0
    inner = innermost_derivative(names)
    run = compose(names, cube_vjp_plain_fwd, pullback_only=True)
    if inner in FORWARD:
        with pytest.raises(TypeError, match="forward-mode.*custom_vjp function 'cube_vjp"):
            run(X)
        return
    np.testing.assert_allclose(run(X), compose(names, reference, pullback_only=True)(X),
                               rtol=1e-12, atol=1e-12)
    assert (CALLS["bwd"] > 0) == (inner in REVERSE)


@pytest.mark.parametrize("names", COMPOSITIONS, ids="-".join)
def test_custom_jvp_uses_its_rule_in_every_composition(names):
    CALLS["jvp_rule"] = 0
    got = compose(names, cube_jvp)(X)
    np.testing.assert_allclose(got, compose(names, reference)(X), rtol=1e-12, atol=1e-12)
    assert (CALLS["jvp_rule"] > 0) == (innermost_derivative(names) is not None)


@pytest.mark.parametrize("f", [cube_vjp, cube_vjp_plain_fwd, cube_jvp],
                         ids=["custom_vjp", "custom_vjp_plain_fwd", "custom_jvp"])
def test_analytic_values_of_some_compositions(f):
    # with the rules' factor 2: first derivative 6 x^2, second 12 x, third 12
    x = X[0]
    d1, d2 = 6 * x ** 2, 12 * x
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(ft.vmap(f)(x)))(x), d1)
    np.testing.assert_allclose(ft.vmap(ft.vmap(ft.grad(f)))(x), d1)
    np.testing.assert_allclose(ft.vmap(_grad(ft.vmap(_grad(f))))(x), d2)
    np.testing.assert_allclose(ft.jacrev(ft.vmap(f))(x[0]), np.diag(d1[0]))
    if f is not cube_vjp:   # forward over reverse needs fwd in library ops (see above)
        np.testing.assert_allclose(ft.jacfwd(ft.jacrev(f))(x[0]),
                                   np.einsum("ij,jk->ijk", np.eye(2), np.diag(d2[0])))
        np.testing.assert_allclose(ft.hessian(lambda x: fnp.sum(f(x)))(x[0]), np.diag(d2[0]))
    third = ft.grad(lambda x: fnp.sum(ft.vmap(ft.grad(ft.grad(f)))(x)))(x[0])
    np.testing.assert_allclose(third, np.full(2, 12.0))


def test_reference_matches_finite_differences():
    # the oracle itself: its derivative is that of 2 x^3 (checked against central differences)
    x, eps = X[0, 0], 1e-6
    fd = (2 * (x + eps) ** 3 - 2 * (x - eps) ** 3) / (2 * eps)
    np.testing.assert_allclose(ft.vmap(ft.grad(reference))(x), fd, rtol=1e-7)
    np.testing.assert_allclose(reference(x), x ** 3)


def test_fwd_body_is_differentiated_by_outer_transforms():
    # as JAX: the transform running fwd keeps bwd for itself; an outer transform sees fwd's
    # own computation of the output
    @ft.custom_vjp
    def f(x):
        return x ** 3

    f.defvjp(lambda x: (x ** 3, x), lambda x, ct: (6.0 * x * x * ct,))
    x = X[0, 0]
    value_grad = ft.grad(lambda x: fnp.sum(ft.vjp(f, x)[0]))(x)
    np.testing.assert_allclose(value_grad, 3 * x ** 2)
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(f(x)))(x), 6 * x ** 2)


# -- batching details: unbatched arguments, batch dims not at 0, pytrees, odd residuals --------

@ft.custom_vjp
def sin_product(x, w, idx):
    return {"y": fnp.sin(x * w), "c": fnp.sum(w) * 1.0}


def _sin_product_fwd(x, w, idx):
    return sin_product(x, w, idx), (x, w, "tag", 2.0)   # residuals with non-array leaves


def _sin_product_bwd(res, ct):
    x, w, tag, k = res
    assert tag == "tag" and k == 2.0
    CALLS["bwd"] += 1
    g = ct["y"] * fnp.cos(x * w) * k                  # twice the true derivative of y
    return g * w, g * x + ct["c"] * fnp.ones_like(w), None


sin_product.defvjp(_sin_product_fwd, _sin_product_bwd)


@ft.custom_jvp
def sin_product_jvp(x, w, idx):
    return {"y": fnp.sin(x * w), "c": fnp.sum(w) * 1.0}


@sin_product_jvp.defjvp
def _(primals, tangents):
    (x, w, idx), (tx, tw, _) = primals, tangents
    CALLS["jvp_rule"] += 1
    dy = 2.0 * fnp.cos(x * w) * (tx * w + x * tw)
    return sin_product_jvp(x, w, idx), {"y": dy, "c": fnp.sum(tw) * 1.0}


def sin_product_reference(x, w, idx):
    y = fnp.sin(x * w)
    return {"y": 2.0 * y - ft.stop_gradient(y), "c": fnp.sum(w) * 1.0}


XB, WB, IDX = np.random.default_rng(1).standard_normal((5, 3)), np.array([0.3, -0.7, 1.1]), \
    np.arange(3)


def _loss(g):
    def loss(x, w):
        out = g(x, w, IDX)
        return fnp.sum(out["y"] ** 2) + out["c"]
    return loss


BATCHING_CASES = {
    "grad_wrt_unbatched": lambda g: ft.grad(
        lambda w: fnp.sum(ft.vmap(_loss(g), in_dims=(0, None))(XB, w)))(WB),
    "grad_bdim_1": lambda g: ft.grad(
        lambda xt: fnp.sum(ft.vmap(_loss(g), in_dims=(1, None))(xt, WB)))(XB.T),
    "vmap_grad_unbatched_w": lambda g: ft.vmap(
        ft.grad(_loss(g), argnums=(0, 1)), in_dims=(0, None))(XB, WB),
    "vmap_grad_unbatched_x": lambda g: ft.vmap(
        ft.grad(_loss(g), argnums=(0, 1)), in_dims=(None, 0))(XB[0], XB),
    "grad_vmap_vmap": lambda g: ft.grad(lambda w: fnp.sum(ft.vmap(ft.vmap(
        _loss(g), in_dims=(0, None)), in_dims=(0, None))(XB.reshape(5, 1, 3), w)))(WB),
    "jacrev_vmap": lambda g: ft.jacrev(lambda w: ft.vmap(lambda x: g(x, w, IDX)["y"])(XB))(WB),
    "vmap_out_dims_1": lambda g: ft.vmap(lambda x: g(x, WB, IDX), out_dims={"y": 1, "c": 0})(XB),
}


@pytest.mark.parametrize("case", BATCHING_CASES, ids=str)
@pytest.mark.parametrize("f", [sin_product, sin_product_jvp], ids=["custom_vjp", "custom_jvp"])
def test_batching_details(f, case):
    CALLS["bwd"] = CALLS["jvp_rule"] = 0
    got = BATCHING_CASES[case](f)
    expected = BATCHING_CASES[case](sin_product_reference)
    for g, e in zip(optree.tree_leaves(got), optree.tree_leaves(expected)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
    used = CALLS["bwd"] if f is sin_product else CALLS["jvp_rule"]
    assert used > 0 or case == "vmap_out_dims_1"
