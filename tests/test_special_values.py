"""Special values (NaN, inf) come out the same in forward and reverse mode, at every order
(Note [special values in derivatives]): a literal zero partial multiplies the tangent like any
other number (0 * inf = NaN, as JAX), and where/maximum/minimum/max weigh tangents and
cotangents by multiplication, never by selection."""
import warnings

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _first_order(f, x):
    """Every first-order route to the gradient of a scalar f."""
    basis = np.eye(x.size).reshape((x.size,) + x.shape)
    _, jvp_fn = ft.linearize(f, x)
    return {
        "grad": ft.grad(f)(x),
        "vjp": ft.vjp(f, x)[1](np.ones(()))[0],
        "jacrev": ft.jacrev(f)(x),
        "jacfwd": ft.jacfwd(f)(x),
        "jvp": np.array([ft.jvp(f, (x,), (e,))[1] for e in basis]).reshape(x.shape),
        "linearize": np.array([jvp_fn(e) for e in basis]).reshape(x.shape),
    }


def _second_order(f, x):
    """Every second-order route to the Hessian of a scalar f."""
    basis = np.eye(x.size).reshape((x.size,) + x.shape)

    def jvp_jvp(e1, e2):
        return ft.jvp(lambda y: ft.jvp(f, (y,), (e1,))[1], (x,), (e2,))[1]

    return {
        "hessian": ft.hessian(f)(x),
        "jacfwd_jacfwd": ft.jacfwd(ft.jacfwd(f))(x),
        "jacrev_jacrev": ft.jacrev(ft.jacrev(f))(x),
        "jacrev_jacfwd": ft.jacrev(ft.jacfwd(f))(x),
        "jacfwd_grad": ft.jacfwd(ft.grad(f))(x),
        "jvp_jvp": np.array([[jvp_jvp(a, b) for a in basis] for b in basis]),
        "jvp_grad": np.array([ft.jvp(ft.grad(f), (x,), (e,))[1] for e in basis]),
        "grad_grad": np.array([ft.grad(lambda y: ft.grad(f)(y)[i])(x) for i in range(x.size)]),
        "jacfwd_vjp": ft.jacfwd(lambda y: ft.vjp(f, y)[1](np.ones(()))[0])(x),
    }


# functions whose every derivative is NaN at the point (as JAX): an infinite partial (sqrt'(0))
# meets a zero that is a computed value, not a structural zero
ALL_NAN = {
    "sqrt_times_literal_zero": (lambda x: fnp.sum(fnp.sqrt(x * 0.0)), np.array([1.0, 2.0])),
    "sqrt_of_zero_times": (lambda x: fnp.sum(fnp.sqrt(0.0 * x)), np.array([1.0, 2.0])),
    "log_zero_times_zero": (lambda x: fnp.sum(fnp.log(x * 0.0) * 0.0), np.array([1.0, 2.0])),
    "std_zero_spread": (fnp.std, np.array([1.0, 1.0, 1.0])),
    "sqrt_var_zero_spread": (lambda x: fnp.sqrt(fnp.var(x)), np.array([2.0, 2.0])),
    "std_of_maximum_ties": (lambda x: fnp.std(fnp.maximum(x, 1.0)), np.array([1.0, 0.5, 1.0])),
    "std_of_minimum_ties": (lambda x: fnp.std(fnp.minimum(x, 1.0)), np.array([1.0, 2.0, 1.0])),
    "std_of_max_reduction": (lambda x: fnp.std(fnp.max(fnp.stack([x, 2.0 - x]), axis=0)),
                             np.array([1.0, 1.0, 1.0])),
    "sqrt_where_zero": (lambda x: fnp.sqrt(fnp.sum(fnp.where(x > 5.0, x, 0.0))),
                        np.array([1.0, 2.0])),
}


@pytest.mark.parametrize("name", sorted(ALL_NAN))
def test_first_order_all_nan(name):
    f, x = ALL_NAN[name]
    for route, g in _first_order(f, x).items():
        assert np.all(np.isnan(g)), f"{name}: {route} gave {g}, expected NaN everywhere (JAX)"


@pytest.mark.parametrize("name", sorted(ALL_NAN))
def test_second_order_all_nan(name):
    f, x = ALL_NAN[name]
    for route, h in _second_order(f, x).items():
        assert np.all(np.isnan(h)), f"{name}: {route} gave {h}, expected NaN everywhere"


def test_jvp_of_sqrt_times_zero_is_nan_as_grad():
    x = np.array([1.0, 2.0])
    _, t = ft.jvp(lambda x: fnp.sqrt(x * 0.0), (x,), (np.ones(2),))
    assert np.all(np.isnan(t))
    assert np.all(np.isnan(ft.grad(lambda x: fnp.sum(fnp.sqrt(x * 0.0)))(x)))


def test_structural_zeros_stay_zero():
    """An input the output does not depend on, or x ** 0, has derivative exactly 0 (a symbolic
    zero), whatever the other partials are."""
    x = np.array([0.0, 4.0])
    f = lambda x, y: fnp.sum(fnp.sqrt(x)) + fnp.sum(y ** 0)  # noqa: E731
    for g in (ft.grad(f, argnums=1)(x, x), ft.jacfwd(f, argnums=1)(x, x)):
        np.testing.assert_array_equal(g, [0.0, 0.0])
    assert ft.jvp(lambda y: y ** 0, (2.0,), (np.inf,))[1] == 0.0


def test_nan_cotangent_reaches_the_losing_operand():
    """maximum's derivative in its losing operand is 0 * g: NaN for a NaN g in both modes."""
    x, y = np.array([1.0, 3.0]), np.array([2.0, 2.0])
    _, vjp_fn = ft.vjp(fnp.maximum, x, y)
    ct_x, ct_y = vjp_fn(np.array([np.nan, 1.0]))
    assert np.isnan(ct_x[0]) and np.isnan(ct_y[0])
    _, t = ft.jvp(fnp.maximum, (x, y), (np.array([np.inf, 0.0]), np.zeros(2)))
    assert np.isnan(t[0])


def test_where_weighs_both_modes_alike():
    """where(x > 0, sqrt(x), 0) at x = 0: the unchosen branch's inf derivative times 0 is NaN in
    both modes; the double-where idiom is finite in both."""
    x = np.array([0.0, 4.0])
    naive = lambda x: fnp.where(x > 0, fnp.sqrt(x), 0.0)  # noqa: E731
    assert np.isnan(ft.jvp(naive, (x,), (np.ones(2),))[1][0])
    assert np.isnan(ft.vjp(naive, x)[1](np.ones(2))[0][0])

    def safe(x):
        ok = x > 0
        return fnp.where(ok, fnp.sqrt(fnp.where(ok, x, 1.0)), 0.0)

    expected = np.diag([0.0, 0.25])
    np.testing.assert_allclose(ft.jacfwd(safe)(x), expected)
    np.testing.assert_allclose(ft.jacrev(safe)(x), expected)
    np.testing.assert_allclose(ft.hessian(lambda x: fnp.sum(safe(x)))(x),
                               np.diag([0.0, -1 / 32]))


# at a finite point every route gives the same finite values (ties, kinks, zeros)
FINITE = {
    "std_of_spread": (lambda x: fnp.std(fnp.maximum(x, 1.0)), np.array([1.0, 0.5, 3.0])),
    "abs_at_zero": (lambda x: fnp.sum(fnp.abs(x) * x), np.array([0.0, 2.0])),
    "norm_of_zero": (fnp.linalg.norm, np.zeros(3)),
    "max_reduction_tie": (lambda x: fnp.max(x) * fnp.sum(x), np.array([1.0, 1.0, 0.0])),
    "where_finite_branches": (lambda x: fnp.sum(fnp.where(x > 1.0, x ** 3, x * 2.0)),
                              np.array([0.5, 1.0, 2.0])),
    "power_zero_base": (lambda x: fnp.sum(fnp.power(x * x, np.array([2.0, 3.0]))),
                        np.array([0.0, 1.0])),
}


@pytest.mark.parametrize("name", sorted(FINITE))
def test_every_route_agrees_at_finite_points(name):
    f, x = FINITE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for routes in (_first_order(f, x), _second_order(f, x)):
            values = list(routes.values())
            for route, v in routes.items():
                assert np.all(np.isfinite(v)), f"{name}: {route} gave {v}"
                np.testing.assert_allclose(v, values[0], rtol=1e-10, atol=1e-12,
                                           err_msg=f"{name}: {route}")
