"""ft.jit's XLA backend on compiled loops (scan, fori_loop, while_loop): each is one XLA while loop
around its lowered body, never unrolled and never a host callback, with results equal to the
NumPy backend's (xla_checks.py: 1e-12 of the result's scale in float64) and to eager code; host
ops, nested loops and captured arguments inside bodies; and the errors and retraces that checks
and guards inside a body cause (Note [XLA loops] in lax/xla.py)."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from xla_checks import assert_backends_agree

pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")

RNG = np.random.default_rng(0)


def agree(fn, *args, calls=2, new_args=None, **jit_kw):
    """fn jitted on XLA equals the NumPy backend and eager fn, on the tracing call and on
    compiled calls with new arguments; returns the XLA-jitted function."""
    on_xla = ft.jit(fn, backend="xla", **jit_kw)
    on_numpy = ft.jit(fn, backend="numpy", **jit_kw)
    for k in range(calls):
        if k and new_args is not None:
            args = new_args()
        got = on_xla(*args)
        assert_backends_agree(got, on_numpy(*args), f"call {k}")
        assert_backends_agree(got, fn(*args), f"call {k} against eager")
    return on_xla


def loop_names(jitted, *args):
    """The loop equations of the compiled program, in order."""
    return [e.op.loop.kind for e in jitted.lower(*args).optimized.eqns
            if getattr(e.op, "loop", None) is not None]


def rnn_step(carry, x):
    """A pytree carry with float32 and int64 leaves, a pytree of xs and ys."""
    h = np.tanh(carry["h"] @ carry["w"] + x[0] * x[1])
    return ({"h": h, "w": carry["w"], "n": carry["n"] + 1, "h32": carry["h32"] * 0.5},
            (h.sum(), 2 * h))


def rnn_inputs(n, d):
    carry = {"h": RNG.standard_normal(d), "w": RNG.standard_normal((d, d)) * 0.5,
             "n": np.array(0), "h32": RNG.standard_normal(d).astype(np.float32)}
    return carry, (RNG.standard_normal((n, d)), RNG.standard_normal((n, 1)))


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 6), d=st.integers(1, 3), reverse=st.booleans())
def test_scan_with_xs_pytree_carry_and_stacked_ys(n, d, reverse):
    fn = lambda carry, xs: ft.scan(rnn_step, carry, xs, reverse=reverse)  # noqa: E731
    jitted = agree(fn, *rnn_inputs(n, d), calls=3, new_args=lambda: rnn_inputs(n, d))
    assert loop_names(jitted, *rnn_inputs(n, d)) == ["scan"]
    carry, _ = jitted(*rnn_inputs(n, d))
    assert carry["h32"].dtype == np.float32 and carry["n"] == n


def test_scan_without_xs_and_reverse_order_of_ys():
    def fn(x):
        up = ft.scan(lambda c, _: (c * 0.9 + 1.0, c.sum()), x, None, length=6)
        down = ft.scan(lambda c, y: (c + y, c * y), x, np.arange(6.0)[:, None] * x,
                       reverse=True)
        return up, down
    jitted = agree(fn, RNG.standard_normal(3), new_args=lambda: (RNG.standard_normal(3),))
    assert loop_names(jitted, np.ones(3)) == ["scan", "scan"]


@pytest.mark.parametrize("lower, upper", [(0, 5), (-3, 4), (2, 3)])
def test_fori_loop_passes_the_index(lower, upper):
    fn = lambda x, b: ft.fori_loop(lower, upper, lambda i, v: np.sin(v) * i + b, x)  # noqa: E731
    new = lambda: (RNG.standard_normal(4), RNG.standard_normal(4))  # noqa: E731
    jitted = agree(fn, *new(), calls=3, new_args=new)
    assert loop_names(jitted, *new()) == ["fori_loop"]


def test_fori_loop_with_a_python_number_carry():
    fn = lambda x: ft.fori_loop(0, 4, lambda i, c: c * 0.5 + x.sum() * i, 0.0)  # noqa: E731
    agree(fn, RNG.standard_normal(3), calls=3, new_args=lambda: (RNG.standard_normal(3),))


def newton_sqrt(a):
    def cond_fun(c):
        return fnp.abs(c[0] - c[1]) > 1e-12 * c[1]

    def body_fun(c):
        return c[1], 0.5 * (c[1] + a / c[1])
    return ft.while_loop(cond_fun, body_fun, (a, 0.5 * (a + 1.0)))[1]


def test_while_loop_trip_count_is_decided_on_each_call():
    jitted = ft.jit(newton_sqrt, backend="xla")
    on_numpy = ft.jit(newton_sqrt)
    for a in (2.0, 9.0, 1e6, 0.01, 2.0):   # different trip counts, one trace
        got = jitted(np.array(a))
        assert_backends_agree(got, on_numpy(np.array(a)), f"sqrt({a})")
        assert_backends_agree(got, newton_sqrt(np.array(a)), f"sqrt({a}) against eager")
    assert jitted.traces == 1
    assert loop_names(jitted, np.array(2.0)) == ["while_loop"]


def test_while_loop_with_a_pytree_carry_and_a_counter():
    def fn(x, limit):
        return ft.while_loop(lambda c: c["v"].sum() < limit,
                             lambda c: {"v": c["v"] * 1.5 + 0.1, "k": c["k"] + 1},
                             {"v": x, "k": np.array(0)})
    for limit in (1.0, 50.0, 1e4):
        agree(fn, np.abs(RNG.standard_normal(3)), limit)


def test_nested_loops_and_a_body_closing_over_a_jitted_argument():
    def fn(x, w):
        def outer(i, v):
            inner, ys = ft.scan(lambda c, y: (np.tanh(c @ w + y), c.sum()), v, x)
            k, _ = ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * w.sum()),
                                 (0, ys.sum()))
            return inner * k + i
        return ft.fori_loop(0, 4, outer, x[0])
    new = lambda: (RNG.standard_normal((5, 2)), RNG.standard_normal((2, 2)) * 0.5)  # noqa: E731
    jitted = agree(fn, *new(), calls=3, new_args=new)
    assert loop_names(jitted, *new()) == ["fori_loop"]
    assert ft.jit(fn, backend="numpy").traces == 0   # (a fresh function: nothing cached)
    text = jitted.lower(*new()).fn.source
    assert text.count("stablehlo.while") == 3 and "callback" not in text


def test_a_host_only_op_inside_a_body_runs_on_the_host_each_iteration():
    def fn(x):
        return ft.fori_loop(0, 3, lambda i, v: np.sin(v) + fnp.argpartition(v, 2) * 0.1, x)
    jitted = agree(fn, RNG.standard_normal(6), calls=3,
                   new_args=lambda: (RNG.standard_normal(6),))
    text = jitted.lower(np.ones(6)).fn.source
    assert "stablehlo.while" in text and "callback" in text


def test_loops_are_xla_while_loops_whose_program_does_not_grow_with_the_trip_count():
    def programs(n):
        def fn(h0, xs, x):
            h, ys = ft.scan(lambda h, x: (np.tanh(h * 0.5 + x), h.sum()), h0, xs)
            v = ft.fori_loop(0, n, lambda i, v: np.cos(v) + i, x)
            return h, ys, v, newton_sqrt(x[0] ** 2 + 1.0)
        jitted = ft.jit(fn, backend="xla")
        args = (RNG.standard_normal(3), RNG.standard_normal((n, 3)), RNG.standard_normal(3))
        assert_backends_agree(jitted(*args), ft.jit(fn)(*args), f"{n} steps")
        return jitted.lower(*args).fn.source
    short, long = programs(10), programs(1000)
    for text in (short, long):
        assert text.count("stablehlo.while") == 3, "a loop was unrolled"
        assert "callback" not in text, "a loop runs on the host"
    # the same program but for the trip counts and the xs' length written in it
    assert re.sub(r"\d+", "0", short) == re.sub(r"\d+", "0", long)


def test_an_out_of_range_index_inside_a_body_raises_as_numpy_does():
    """A check flagged inside the loop (the index moves with the loop's) is carried out of it;
    the call is re-run on NumPy."""
    def fn(table, idx, x):
        return ft.fori_loop(0, 3, lambda i, v: v * 0.5 + table[idx + i], x)
    table = np.arange(5.0)
    jitted = agree(fn, table, np.array([0, 2]), np.ones(2))
    for f in (fn, ft.jit(fn), jitted):
        with pytest.raises(IndexError):
            f(table, np.array([1, 3]), np.ones(2))
    assert_backends_agree(jitted(table, np.array([-5, 1]), np.ones(2)),
                          fn(table, np.array([-5, 1]), np.ones(2)), "in range again")


def test_a_while_loop_whose_body_goes_out_of_range_stops_and_raises():
    """The flag also ends the XLA loop, whose predicate could otherwise run on forever."""
    def fn(table, n):
        return ft.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + table[c[0]]),
                             (np.array(0), np.array(0.0)))
    table = np.arange(5.0)
    jitted = agree(fn, table, np.array(5))
    with pytest.raises(IndexError):
        fn(table, np.array(7))
    with pytest.raises(IndexError):
        jitted(table, np.array(7))
    assert_backends_agree(jitted(table, np.array(3)), fn(table, np.array(3)), "3 steps")


def test_a_value_dependent_shape_inside_a_body_traces_again():
    """A guard inside the loop (a boolean mask whose count changed) is carried out of it."""
    def fn(x):
        return ft.fori_loop(0, 3, lambda i, v: v + (x * v)[x > 0].sum(), x)
    on_numpy = ft.jit(fn)
    try:
        on_numpy(np.array([1.0, -2.0, 3.0]))
    except ft.TracerConversionError:
        pytest.skip("the trace refuses a value-dependent shape")
    jitted = ft.jit(fn, backend="xla")
    for x in ([1.0, -2.0, 3.0], [1.5, -2.0, 0.5], [1.0, 2.0, 3.0]):
        x = np.array(x)
        assert_backends_agree(jitted(x), on_numpy(x), f"{x}")
        assert_backends_agree(jitted(x), fn(x), f"{x} against eager")
    assert loop_names(jitted, x) == ["fori_loop"]
    assert jitted.traces == on_numpy.traces == 2


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int64, np.float32])
def test_host_values_keep_their_64_bits_when_xla_runs_off_the_calling_thread(dtype):
    """XLA runs a large program (most calls) on threads of its own, where the caller's
    enable_x64 does not reach; a host kernel's operands and results still cross at full
    width, in a loop body and outside one."""
    affine = ft.defop("xla_loop_test_affine", lambda xp, x, y: (x * 3 + y).astype(x.dtype),
                      differentiable=False)
    try:
        def make():
            x = RNG.standard_normal(50000) * 1e3
            return (x + 1j * x[::-1] if np.dtype(dtype).kind == "c" else x).astype(dtype)
        y = make()
        for fn in (lambda x: ft.fori_loop(0, 3, lambda i, v: affine(v, y), x),
                   lambda x: affine(x, y)):
            jitted = ft.jit(fn, backend="xla")
            for _ in range(8):
                x = make()
                got = jitted(x)
                assert got.dtype == np.dtype(dtype)
                np.testing.assert_array_equal(got, fn(x))   # NumPy's arithmetic, every bit
    finally:
        ft.OPS.pop("xla_loop_test_affine", None)
