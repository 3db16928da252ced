"""linspace with traced ends (under grad, vmap, jvp and jit on both backends) is NumPy's formula
in library ops: NumPy's values bit for bit, and differentiable and batchable in start and
stop, where np.linspace on a wrapper dispatched back to itself until RecursionError."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

try:
    import jax  # noqa: F401  (the XLA backend)
    BACKENDS = ("numpy", "xla")
except ImportError:
    BACKENDS = ("numpy",)
F32 = np.float32
CASES = [   # (start, stop, kwargs)
    (1.0, 2.0, {"num": 5}), (np.array(-1.0), np.array(1.0), {"num": 4, "endpoint": False}),
    (0.1, 0.7, {"num": 7}), (np.array(0.1), 0.3, {"num": 11}), (0.0, 1.0, {"num": 0}),
    (0.5, 3.0, {"num": 1}), (0.5, 3.0, {"num": 1, "endpoint": False}),
    (np.array(0.2, F32), np.array(1.7, F32), {"num": 6}), (np.array(0.2, F32), 1.7, {"num": 6}),
    (np.array(3, np.int64), np.array(10, np.int64), {"num": 4}),
    (np.array([0.0, 1.0, -2.0]), np.array([3.0, 5.0, 0.5]), {"num": 4, "axis": 1}),
    (np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([3.0, 5.0]), {"num": 3, "axis": -1}),
    (np.array([0.0, 1.0]), 2.0, {"num": 3, "axis": 0}),
    (0.0, 5e-324, {"num": 10}),                  # step 0: NumPy's (arange / div) * delta
    (np.array([0.0, 0.0]), np.array([5e-324, 1.0]), {"num": 4}),
    (0.0, 1e-310, {"num": 3}),                   # a subnormal step
    (-1.0, 2.0, {"num": 5, "retstep": True}),
    (np.array([0.0, 1.0]), np.array([1.0, 3.0]), {"num": 1, "retstep": True}),
    (0.3, 9.7, {"num": 5, "dtype": np.int64}), (0.3, 9.7, {"num": 5, "dtype": F32}),
    (0.0, 1.0 + 2.0j, {"num": 5}),
]
IDS = [f"case{k}" for k in range(len(CASES))]


def _close(got, want, what):
    """Equal dtype and shape, NaNs at the same places, values within 1e-12 of the scale."""
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g, w)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12 * np.max(np.abs(w), initial=1),
                                   err_msg=what)


def _same_bits(got, want, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            _same_bits(g, w, f"{what}[{k}]")
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got, want)
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_traced_ends_give_numpys_values_bit_for_bit(case):
    start, stop, kw = case
    want = np.linspace(start, stop, **kw)
    for which, arg in (("start", start), ("stop", stop)):
        def f(e):
            return np.linspace(e, stop, **kw) if which == "start" else \
                np.linspace(start, e, **kw)
        for backend in BACKENDS:
            jitted = ft.jit(f, backend=backend)
            for call in range(2):          # the tracing call, then the compiled replay
                if backend == "numpy":
                    _same_bits(jitted(arg), want, f"{which} traced, jit call {call}")
                else:                      # XLA: within 1e-12 (it contracts a * b + c to fma)
                    _close(jitted(arg), want, f"{which} traced, xla call {call}")
        if kw.get("retstep"):
            continue
        arg = np.asarray(arg)              # vmap and jvp take an array end (a Python float is
        values = f(arg)                    # then a float64 one): NumPy's result for that end
        _same_bits(ft.vmap(f)(np.stack([arg, arg])), np.stack([values, values]),
                   f"{which} traced, vmap")
        if arg.dtype.kind in "fc":          # the primal under forward mode
            _same_bits(ft.jvp(f, (arg,), (np.ones_like(arg),))[0], values,
                       f"{which} traced, jvp primal")


def test_grad_in_an_end_is_jaxs():
    """The issue's example: JAX gives 2.5 (the weights 1 - i/4 of start, summed)."""
    g = ft.grad(lambda a: np.sum(np.linspace(a, 2.0, 5)))(1.0)
    assert float(g) == 2.5
    assert float(ft.jit(ft.grad(lambda a: np.sum(np.linspace(a, 2.0, 5))))(np.array(1.0))) == 2.5


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_jacobians_in_start_and_stop_against_finite_differences(endpoint, axis):
    start, stop = np.array([0.0, 1.0, -2.0]), np.array([3.0, 5.0, 0.5])

    def f(a, b):
        return np.linspace(a, b, 5, endpoint=endpoint, axis=axis)
    ja, jb = ft.jacrev(f, argnums=(0, 1))(start, stop)
    fa, fb = ft.jacfwd(f, argnums=(0, 1))(start, stop)
    h = 1e-6
    for got, fwd, argnum in ((ja, fa, 0), (jb, fb, 1)):
        num = np.zeros_like(got)
        for i in range(3):
            e = np.zeros(3)
            e[i] = h
            args_p = [start, stop]
            args_m = [start, stop]
            args_p[argnum] = args_p[argnum] + e
            args_m[argnum] = args_m[argnum] - e
            num[..., i] = (np.linspace(*args_p, 5, endpoint=endpoint, axis=axis)
                           - np.linspace(*args_m, 5, endpoint=endpoint, axis=axis)) / (2 * h)
        np.testing.assert_allclose(got, num, atol=1e-8)
        np.testing.assert_allclose(got, fwd, rtol=1e-15, atol=1e-16)
    # the last value is stop itself when endpoint=True: derivative exactly 1 in stop, 0 in start
    if endpoint:
        last = np.take(jb, -1, axis=axis % 2)
        np.testing.assert_array_equal(last, np.eye(3))
        np.testing.assert_array_equal(np.take(ja, -1, axis=axis % 2), np.zeros((3, 3)))


def test_vmap_over_ends_matches_a_loop():
    rng = np.random.default_rng(0)
    starts, stops = rng.standard_normal((4, 3)), rng.standard_normal(4)
    for kw in ({"num": 5}, {"num": 4, "endpoint": False, "axis": 1}, {"num": 2, "axis": -1}):
        got = ft.vmap(lambda a, b: np.linspace(a, b, **kw))(starts, stops)
        want = np.stack([np.linspace(a, b, **kw) for a, b in zip(starts, stops)])
        _same_bits(got, want, f"vmap {kw}")
        got = ft.vmap(lambda b: fnp.linspace(starts[0], b, **kw))(stops)
        _same_bits(got, np.stack([np.linspace(starts[0], b, **kw) for b in stops]),
                   f"vmap of stop only {kw}")


def test_value_and_grad_against_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    start, stop = np.array([0.0, 1.0, -2.0]), np.array([3.0, 5.0, 0.5])
    u = np.random.default_rng(1).standard_normal((3, 6))

    def loss(xp, a, b):
        return xp.sum(xp.linspace(a, b, 6, axis=1) * u)
    with jax.enable_x64(True):
        jg = jax.grad(lambda a, b: loss(jnp, a, b), argnums=(0, 1))(jnp.asarray(start),
                                                                    jnp.asarray(stop))
    g = ft.grad(lambda a, b: loss(fnp, a, b), argnums=(0, 1))(start, stop)
    for ours, theirs in zip(g, jg):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-14, atol=1e-15)


def test_plain_ends_stay_numpys_own_call_and_bad_num_is_refused():
    _same_bits(fnp.linspace(0.1, 0.7, 7), np.linspace(0.1, 0.7, 7), "plain")
    with pytest.raises(ValueError, match="must be non-negative"):
        ft.grad(lambda a: np.sum(np.linspace(a, 2.0, -1)))(1.0)
