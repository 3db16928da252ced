"""ft.jet's API and semantics: against jax.experimental.jet where JAX has the rule, against
closed-form derivatives, and composed with vmap, grad and jit (per-op coverage is in
test_jet_ops.py)."""
import math

import numpy as np
import pytest

import functorch_lite as ft

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = pytest.importorskip("jax.numpy")
from jax.experimental import jet as jax_jet  # noqa: E402


def mlp(np_):
    def f(x, w1, w2):
        h = np_.tanh(x @ w1)
        return np_.sum(np_.exp(-np_.square(h @ w2)) / (1.0 + np_.sin(x).sum() ** 2))
    return f


JAX_CASES = {
    "sin": lambda m: m.sin, "cos": lambda m: m.cos, "exp": lambda m: m.exp,
    "log": lambda m: (lambda x: m.log(1.5 + x)), "tanh": lambda m: m.tanh,
    "sqrt": lambda m: (lambda x: m.sqrt(2.0 + x)), "square": lambda m: m.square,
    "reciprocal": lambda m: (lambda x: 1.0 / (2.0 + x)),
    "power": lambda m: (lambda x: (2.0 + x) ** 2.5), "expm1": lambda m: m.expm1,
    "log1p": lambda m: (lambda x: m.log1p(1.0 + x)), "sinh": lambda m: m.sinh,
    "cosh": lambda m: m.cosh, "max": lambda m: (lambda x: m.max(x, axis=0)),
    "cumsum": lambda m: (lambda x: m.cumsum(x)), "maximum": lambda m: (lambda x: m.maximum(x, 0.1)),
    "where": lambda m: (lambda x: m.where(x > 0, m.sin(x), x ** 2)),
    "divide": lambda m: (lambda x: m.sin(x) / (2.0 + m.cos(x))),
    "matmul": lambda m: (lambda x: m.reshape(x, (2, 3)) @ m.reshape(m.exp(x), (3, 2))),
    "reshape_transpose": lambda m: (lambda x: m.transpose(m.reshape(x * x, (3, 2)))),
    "sum_mean": lambda m: (lambda x: m.sum(m.sin(x)) * m.mean(x)),
    "logsumexp": lambda m: (lambda x: m.log(m.sum(m.exp(x)))),
}


@pytest.mark.parametrize("name", sorted(JAX_CASES))
@pytest.mark.parametrize("order", [1, 3, 5])
def test_jet_matches_jax(name, order):
    rng = np.random.default_rng(order)
    x = rng.standard_normal(6)
    series = [rng.standard_normal(6) for _ in range(order)]
    out, terms = ft.jet(JAX_CASES[name](np), (x,), (series,))
    jout, jterms = jax_jet.jet(JAX_CASES[name](jnp), (x,), (series,))
    np.testing.assert_allclose(out, jout, rtol=1e-13, atol=1e-13)
    assert len(terms) == order
    for t, jt in zip(terms, jterms):
        np.testing.assert_allclose(t, jt, rtol=1e-10, atol=1e-10)


def test_jet_mlp_matches_jax_several_arguments():
    rng = np.random.default_rng(0)
    args = (rng.standard_normal(4), rng.standard_normal((4, 8)), rng.standard_normal((8, 2)))
    series = tuple([rng.standard_normal(a.shape) for _ in range(4)] for a in args)
    out, terms = ft.jet(mlp(np), args, series)
    jout, jterms = jax_jet.jet(mlp(jnp), args, series)
    np.testing.assert_allclose(out, jout, rtol=1e-12)
    for t, jt in zip(terms, jterms):
        np.testing.assert_allclose(t, jt, rtol=1e-9, atol=1e-12)


def test_directional_derivatives_of_sin():
    """x1 = 1, higher terms 0: the k-th term is the k-th derivative (factorial scaling)."""
    x = np.array([0.2, 1.3])
    _, terms = ft.jet(np.sin, (x,), ([np.ones(2), np.zeros(2), np.zeros(2), np.zeros(2)],))
    expected = [np.cos(x), -np.sin(x), -np.cos(x), np.sin(x)]
    for t, e in zip(terms, expected):
        np.testing.assert_allclose(t, e, rtol=1e-14)


def test_factorial_scaled_false_gives_polynomial_coefficients():
    """exp(x0 + t) = exp(x0) sum t^k / k!: coefficients exp(x0) / k!."""
    x = np.array(0.4)
    _, terms = ft.jet(np.exp, (x,), ([np.array(1.0), np.array(0.0), np.array(0.0)],),
                      factorial_scaled=False)
    np.testing.assert_allclose(terms, [np.exp(0.4) / math.factorial(k) for k in (1, 2, 3)])
    _, scaled = ft.jet(np.exp, (x,), ([np.array(1.0), np.array(0.0), np.array(0.0)],))
    np.testing.assert_allclose(scaled, [np.exp(0.4)] * 3)


def test_pytree_in_and_out_structure():
    x = {"a": np.array([1.0, 2.0]), "b": np.array(0.5)}
    series = ([{"a": np.ones(2), "b": np.array(1.0)}, {"a": np.zeros(2), "b": np.array(0.0)}],)

    def f(p):
        return {"s": np.sin(p["a"]) * p["b"], "c": p["a"] * 2.0}
    out, terms = ft.jet(f, (x,), series)
    assert set(terms) == {"s", "c"} and len(terms["s"]) == 2
    # d/dt sin(a + t) (b + t) = cos(a)(b) + sin(a); second: -sin(a) b + 2 cos(a)
    a, b = x["a"], 0.5
    np.testing.assert_allclose(terms["s"][0], np.cos(a) * b + np.sin(a))
    np.testing.assert_allclose(terms["s"][1], -np.sin(a) * b + 2 * np.cos(a))
    np.testing.assert_allclose(terms["c"][0], 2 * np.ones(2))
    np.testing.assert_allclose(terms["c"][1], np.zeros(2))


def test_constant_argument_and_integer_output():
    out, terms = ft.jet(lambda x, n: (x * n, np.argmax(x)), (np.array([1.0, 3.0]), 2),
                        ([np.ones(2)], None))
    np.testing.assert_allclose(terms[0][0], [2.0, 2.0])
    assert terms[1][0].dtype == ft.float0


def test_float32_stays_float32():
    x = np.array([0.3, 0.5], dtype=np.float32)
    out, terms = ft.jet(lambda x: np.tanh(x) * np.exp(x), (x,), ([np.ones(2, np.float32)] * 3,))
    assert out.dtype == np.float32 and all(t.dtype == np.float32 for t in terms)
    _, ref = ft.jet(lambda x: np.tanh(x) * np.exp(x), (x.astype(np.float64),),
                    ([np.ones(2)] * 3,))
    np.testing.assert_allclose(terms, ref, rtol=1e-5)


def test_vmap_of_jet_is_the_loop():
    rng = np.random.default_rng(1)
    xs, vs = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))

    def third(x, v):
        return ft.jet(lambda y: np.sum(np.tanh(y) ** 3), (x,), ([v, 0 * v, 0 * v],))[1][2]
    np.testing.assert_allclose(ft.vmap(third)(xs, vs),
                               [third(x, v) for x, v in zip(xs, vs)], rtol=1e-13)


def test_grad_of_jet_matches_nested_reverse():
    """d/dx of the second directional derivative v^T H(x) v, against grad of the explicit
    Hessian form."""
    rng = np.random.default_rng(2)
    x, v = rng.standard_normal(4), rng.standard_normal(4)

    def f(y):
        return np.sum(np.sin(y) * np.exp(y[0]))

    def second(y):
        return ft.jet(f, (y,), ([v, np.zeros(4)],))[1][1]

    def second_ref(y):
        return v @ ft.hessian(f)(y) @ v
    np.testing.assert_allclose(second(x), second_ref(x), rtol=1e-12)
    np.testing.assert_allclose(ft.grad(second)(x), ft.grad(second_ref)(x), rtol=1e-10)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_jit_of_jet(backend):
    rng = np.random.default_rng(3)
    x, v = rng.standard_normal(4), rng.standard_normal(4)

    def terms(x, v):
        return ft.jet(lambda y: np.sum(np.log1p(np.exp(y)) ** 2), (x,), ([v, v, v],))[1]
    jitted = ft.jit(terms, backend=backend)
    for _ in range(2):
        np.testing.assert_allclose(jitted(x, v), terms(x, v), rtol=1e-12)


def test_op_without_rule_is_refused_by_name():
    op = ft.defop("jet_test_cube", lambda xp, x: x ** 3)
    with pytest.raises(ft.JetRuleError, match="jet_test_cube") as e:
        ft.jet(lambda x: op(x) + 1.0, (np.array(1.0),), ([np.array(1.0)],))
    assert e.value.op_name == "jet_test_cube"
    assert isinstance(e.value, NotImplementedError)


def test_custom_vjp_is_refused_by_name():
    @ft.custom_vjp
    def f(x):
        return np.sin(x)
    f.defvjp(lambda x: (np.sin(x), x), lambda x, g: (g * np.cos(x),))
    with pytest.raises(ft.JetRuleError, match="custom_vjp"):
        ft.jet(f, (np.array(1.0),), ([np.array(1.0), np.array(0.0)],))


def test_control_flow_against_nested_jvp():
    """scan, fori_loop, while_loop and cond get Taylor rules from their jvp rules."""
    x = np.array([0.3, 0.7])
    series = [np.array([1.0, 0.5]), np.array([0.2, -0.1]), np.array([0.3, 0.1])]

    def scan_f(x):
        c, ys = ft.scan(lambda c, xi: (c * np.sin(xi) + xi, c ** 2), 1.0, x)
        return c + ys.sum()

    def loop_f(x):
        return ft.fori_loop(0, 3, lambda i, c: np.tanh(c) * x, x).sum()

    def while_f(x):
        return ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, np.sin(c[1]) * x),
                             (0, x))[1].sum()

    def cond_f(x):
        return ft.cond(x.sum() > 0, lambda x: np.exp(x).sum(), lambda x: np.cos(x).sum(), x)

    for f in (scan_f, loop_f, while_f, cond_f):
        _, terms = ft.jet(f, (x,), (series,))

        def g(t, f=f):
            return f(x + series[0] * t + series[1] * t ** 2 / 2 + series[2] * t ** 3 / 6)

        def d(h):
            return lambda t: ft.jvp(h, (t,), (np.ones_like(t),))[1]
        t0 = np.array(0.0)
        ref = [d(g)(t0), d(d(g))(t0), d(d(d(g)))(t0)]
        np.testing.assert_allclose(terms, ref, rtol=1e-12, atol=1e-12, err_msg=f.__name__)


@pytest.mark.parametrize("primals, series, error", [
    (np.ones(2), ([np.ones(2)],), TypeError),
    ((np.ones(2),), ([np.ones(3)],), ValueError),
    ((np.ones(2), np.ones(2)), ([np.ones(2)], [np.ones(2), np.ones(2)]), ValueError),
    ((np.ones(2),), (np.ones(2),), TypeError),
    ((np.ones(2),), ([np.ones(2, np.float32)],), TypeError),
])
def test_bad_arguments(primals, series, error):
    with pytest.raises(error):
        ft.jet(np.sin, primals, series)
