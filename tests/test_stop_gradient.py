"""stop_gradient: the identity with zero derivative under every transform and its
compositions, and the nn functions that shift by it (values and derivatives unchanged)."""
import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp


def test_value_is_the_identity_at_every_level():
    x = np.array([[1.0, -2.0], [0.5, 3.0]])
    np.testing.assert_array_equal(ft.stop_gradient(x), x)
    np.testing.assert_array_equal(ft.vmap(ft.stop_gradient)(x), x)
    np.testing.assert_array_equal(ft.vmap(ft.stop_gradient, in_dims=1)(x), x.T)
    np.testing.assert_array_equal(ft.vmap(ft.vmap(ft.stop_gradient))(x), x)


def test_no_derivative_flows_through_it():
    x = np.array([0.3, -1.2, 2.0])

    def f(x):
        return fnp.sum(fnp.sin(x) * ft.stop_gradient(fnp.cos(x)))
    expected = np.cos(x) * np.cos(x)              # only the first factor is differentiated
    np.testing.assert_allclose(ft.grad(f)(x), expected)
    v = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(ft.jvp(f, (x,), (v,))[1], expected @ v)
    np.testing.assert_allclose(ft.jacrev(f)(x), expected)
    np.testing.assert_allclose(ft.jacfwd(f)(x), expected)
    # second order: d/dx (cos(x) * c) with c constant
    np.testing.assert_allclose(ft.hessian(f)(x), np.diag(-np.sin(x) * np.cos(x)))
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(ft.stop_gradient(x) ** 3))(x),
                               np.zeros(3))


def test_per_example_gradients_through_it():
    X = np.array([[0.3, -1.2], [2.0, 0.5], [1.0, 1.0]])

    def f(x):
        return fnp.sum(x ** 2 * ft.stop_gradient(x))
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(X), 2 * X * X)
    np.testing.assert_allclose(ft.grad(lambda X: fnp.sum(ft.vmap(f)(X)))(X), 2 * X * X)


def test_nn_functions_keep_their_derivatives():
    """The max shift is a stop_gradient constant; the derivatives match the analytic ones
    (the shift cancels), including the second derivative and under forward mode."""
    z = np.array([0.5, -1.0, 2.0, 0.0])
    p = np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(ft.grad(ft.nn.logsumexp)(z), p)
    np.testing.assert_allclose(ft.hessian(ft.nn.logsumexp)(z), np.diag(p) - np.outer(p, p),
                               atol=1e-12)
    np.testing.assert_allclose(ft.jacfwd(ft.nn.softmax)(z), np.diag(p) - np.outer(p, p),
                               atol=1e-12)
    np.testing.assert_allclose(ft.jacrev(ft.nn.log_softmax)(z), np.eye(4) - p, atol=1e-12)


def test_cross_entropy_integer_labels_matches_one_hot_form():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((5, 4)) * 3
    labels = rng.integers(0, 4, 5)
    onehot = np.eye(4)[labels]
    logp = logits - logits.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    np.testing.assert_allclose(ft.nn.cross_entropy(logits, labels), -(onehot * logp).sum(1).mean())
    np.testing.assert_allclose(ft.nn.cross_entropy(logits, labels, reduction="none"),
                               -(onehot * logp).sum(1))
    p = np.exp(logp)
    np.testing.assert_allclose(ft.grad(ft.nn.cross_entropy)(logits, labels), (p - onehot) / 5)
    # the class axis first (axis=0), and one example (1-d logits, 0-d label)
    np.testing.assert_allclose(ft.nn.cross_entropy(logits.T, labels, axis=0),
                               -(onehot * logp).sum(1).mean())
    np.testing.assert_allclose(ft.nn.cross_entropy(logits[2], labels[2]), -logp[2, labels[2]])
    # large logits stay finite and exact
    big = np.array([[1e4, 0.0, -1e4]])
    np.testing.assert_allclose(ft.nn.cross_entropy(big, np.array([1])), 1e4)
    np.testing.assert_allclose(ft.grad(ft.nn.cross_entropy)(big, np.array([0])), [[0, 0, 0]],
                               atol=1e-12)
