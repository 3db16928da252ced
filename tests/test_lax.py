"""functorch_lite.lax eagerly and under ft.jit: scan, fori_loop, while_loop, cond, switch and map
against plain Python loops, pytrees of carries, and the errors (JAX's messages, naming the
leaf). The transforms are in test_lax_transforms.py."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import lax

RNG = np.random.default_rng(0)


def rnn_step(carry, x):
    """A pytree carry (dict) and a pytree of xs and ys (tuples)."""
    h = np.tanh(carry["h"] @ carry["w"] + x[0] * x[1])
    return {"h": h, "w": carry["w"]}, (h.sum(), 2 * h)


def rnn_reference(carry, xs, reverse=False):
    ys0, ys1 = [], []
    order = range(len(xs[0]))
    for i in (reversed(order) if reverse else order):
        carry, (y0, y1) = rnn_step(carry, (xs[0][i], xs[1][i]))
        ys0.append(y0)
        ys1.append(y1)
    if reverse:
        ys0.reverse()
        ys1.reverse()
    return carry, (np.array(ys0), np.array(ys1))


def rnn_inputs(n, d):
    carry = {"h": RNG.standard_normal(d), "w": RNG.standard_normal((d, d)) * 0.5}
    return carry, (RNG.standard_normal((n, d)), RNG.standard_normal((n, 1)))


def assert_tree_close(a, b, **kw):
    import optree
    la, sa = optree.tree_flatten(a)
    lb, sb = optree.tree_flatten(b)
    assert sa == sb
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), **kw)


# -- eager semantics against Python loops -----------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 6), d=st.integers(1, 4), reverse=st.booleans())
def test_scan_matches_a_python_loop(n, d, reverse):
    carry, xs = rnn_inputs(n, d)
    got = ft.scan(rnn_step, carry, xs, reverse=reverse)
    expected = rnn_reference(carry, xs, reverse)
    if n == 0:  # the ys are empty, shaped from one call of the body
        assert got[1][0].shape == (0,) and got[1][1].shape == (0, d)
        assert_tree_close(got[0], carry)
        return
    assert_tree_close(got, expected, rtol=1e-13)


def test_scan_without_xs_uses_length():
    carry, ys = ft.scan(lambda c, _: (c * 2, c), np.array(1.0), None, length=4)
    assert carry == 16.0
    np.testing.assert_array_equal(ys, [1.0, 2.0, 4.0, 8.0])


def test_scan_with_no_ys_returns_none():
    carry, ys = ft.scan(lambda c, x: (c + x, None), 0.0, np.arange(4.0))
    assert ys is None and carry == 6.0


@settings(max_examples=25, deadline=None)
@given(lo=st.integers(-3, 3), hi=st.integers(-3, 6))
def test_fori_loop_matches_range(lo, hi):
    expected = np.array([1.0, -1.0])
    for i in range(lo, hi):
        expected = expected * 1.5 + i
    got = ft.fori_loop(lo, hi, lambda i, v: v * 1.5 + i, np.array([1.0, -1.0]))
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_fori_loop_index_is_a_python_int_for_concrete_bounds():
    seen = []
    ft.fori_loop(np.int64(1), 3, lambda i, v: seen.append(type(i)) or v, 0.0)
    assert seen == [int, int]


@settings(max_examples=25, deadline=None)
@given(start=st.floats(0.1, 50.0), limit=st.floats(1.0, 500.0))
def test_while_loop_matches_a_python_while(start, limit):
    x = start
    while x < limit:
        x = x * 1.7 + 0.3
    got = ft.while_loop(lambda v: v < limit, lambda v: v * 1.7 + 0.3, np.array(start))
    np.testing.assert_allclose(got, x, rtol=1e-14)
    assert isinstance(got, np.ndarray)


def test_while_loop_with_a_pytree_value():
    def body(state):
        i, (a, b) = state
        return i + 1, (b, a + b)
    i, (a, b) = ft.while_loop(lambda s: s[0] < 10, body, (0, (np.array(0), np.array(1))))
    assert (i, int(a), int(b)) == (10, 55, 89)


def test_cond_runs_only_the_chosen_branch():
    ran = []

    def branch(name, k):
        return lambda x: ran.append(name) or x * k
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(ft.cond(x.sum() > 0, branch("t", 2), branch("f", 3), x), 2 * x)
    np.testing.assert_array_equal(ft.cond(0, branch("t", 2), branch("f", 3), x), 3 * x)
    assert ran == ["t", "f"]


@pytest.mark.parametrize("index,expected", [(-5, 0), (0, 0), (1, 1), (2, 2), (9, 2)])
def test_switch_clamps_the_index(index, expected):
    branches = [lambda x, k=k: x + 10 * k for k in range(3)]
    assert lax.switch(index, branches, 1.0) == 1.0 + 10 * expected


def test_map_matches_a_list_comprehension():
    xs = {"a": RNG.standard_normal((7, 3)), "b": RNG.standard_normal(7)}

    def f(x):
        return {"s": (x["a"] * x["b"]).sum(), "v": np.sin(x["a"])}
    expected = [f({"a": xs["a"][i], "b": xs["b"][i]}) for i in range(7)]
    for batch_size in (None, 1, 3, 7, 10):
        got = lax.map(f, xs, batch_size=batch_size)
        np.testing.assert_allclose(got["s"], [e["s"] for e in expected], rtol=1e-13)
        np.testing.assert_allclose(got["v"], [e["v"] for e in expected], rtol=1e-13)


# -- edge lengths (issue 30 item 14) against jax.lax --------------------------------------------

def _jax():
    return pytest.importorskip("jax", reason="the reference needs JAX (pip install -e '.[xla]')")


def _assert_like_jax(got, want, rtol=1e-13):
    """The structure, shapes, dtypes and values of JAX's result (Python scalars as 0-d)."""
    import optree
    lg, sg = optree.tree_flatten(got)
    lw, sw = optree.tree_flatten(want)
    assert sg == sw, (sg, sw)
    for g, w in zip(lg, lw):
        w = np.asarray(w)
        assert np.shape(g) == w.shape and np.asarray(g).dtype == w.dtype, (np.shape(g), w)
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=0)


def _per_slice(xp):
    """A pytree in, a pytree out: a tuple of an elementwise result and a dict of a reduction."""
    return lambda d: (xp.sin(d["a"]) * d["b"], {"s": d["a"].sum() + d["b"]})


def _pytree_xs(n):
    return {"a": RNG.standard_normal((n, 3)), "b": np.arange(n, dtype=np.int32)}


@pytest.mark.parametrize("n", [0, 1, 5, 6])
@pytest.mark.parametrize("batch_size", [None, 1, np.int64(2), np.int32(4), 7])
def test_map_edge_lengths_and_batch_sizes_match_jax(n, batch_size):
    """Empty xs, a batch_size that does not divide n or exceeds it, a NumPy integer batch_size,
    pytrees in and out: eagerly, under ft.jit (both backends) and under vmap, as jax.lax.map."""
    jax = _jax()
    xs = _pytree_xs(n)
    stacked = {k: np.stack([v, v[::-1]]) for k, v in xs.items()}   # a batch of two for vmap
    with jax.enable_x64(True):
        jmap = lambda xs: jax.lax.map(_per_slice(jax.numpy), xs, batch_size=batch_size)  # noqa
        want = jmap(xs)
        want_batched = jax.vmap(jmap)(stacked)
    fmap = lambda xs: lax.map(_per_slice(np), xs, batch_size=batch_size)   # noqa: E731
    _assert_like_jax(fmap(xs), want)
    for backend in ("numpy", "xla"):
        _assert_like_jax(ft.jit(fmap, backend=backend)(xs), want)
    _assert_like_jax(ft.vmap(fmap)(stacked), want_batched)
    _assert_like_jax(ft.jit(ft.vmap(fmap))(stacked), want_batched)


def test_map_with_batch_size_is_one_loop_under_jit():
    """JAX's structure: a scan over the whole groups, the remainder vmapped once."""
    graph = ft.make_graph(lambda xs: lax.map(np.sin, xs, batch_size=2))(np.arange(7.0))
    names = [e.op.name.split("[")[0] for e in graph.optimized.eqns]
    assert names.count("scan") == 1 and names.count("sin") == 1   # the remainder's


@pytest.mark.parametrize("bad", [0, -1, True, np.True_, 2.0, "2", np.array([2])])
def test_map_refuses_a_batch_size_that_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match=r"map: batch_size must be a positive int, got"):
        lax.map(np.sin, np.zeros(4), batch_size=bad)


@pytest.mark.parametrize("bad", [-2, -1, True, 2.5, 3.0, "3"])
def test_scan_refuses_a_length_that_is_not_a_non_negative_int(bad):
    with pytest.raises(ValueError, match=r"scan: length must be a non-negative int, got"):
        ft.scan(lambda c, x: (c, c), 0.0, None, length=bad)


@pytest.mark.parametrize("length", [0, np.int64(0), np.int64(3), np.uint8(2)])
def test_scan_lengths_match_jax_eagerly_under_jit_and_vmap(length):
    """length=0 scans (with and without xs) and NumPy integer lengths: the carry as given, ys
    empty but shaped from the body, as jax.lax.scan; under ft.jit (both backends), vmap and
    jit(vmap)."""
    jax = _jax()
    xs = RNG.standard_normal((int(length), 2, 3))

    def run(xp):
        def f(a):
            without = xp_scan(lambda c, _: (c * 2.0 + a, (c, c.sum())), a, None, length=length)
            with_xs = xp_scan(lambda c, x: (c + x.sum(0), x * c), a, xs, length=length)
            return without, with_xs
        xp_scan = jax.lax.scan if xp is jax.numpy else ft.scan
        return f
    a, batch = RNG.standard_normal(3), RNG.standard_normal((4, 3))
    with jax.enable_x64(True):
        want = run(jax.numpy)(a)
        want_batched = jax.vmap(run(jax.numpy))(batch)
    f = run(np)
    _assert_like_jax(f(a), want)
    for backend in ("numpy", "xla"):
        _assert_like_jax(ft.jit(f, backend=backend)(a), want)
        _assert_like_jax(ft.jit(ft.vmap(f), backend=backend)(batch), want_batched)
    _assert_like_jax(ft.vmap(f)(batch), want_batched)


def test_lax_namespace_and_top_level_names():
    for name in ("scan", "fori_loop", "while_loop", "cond"):
        assert getattr(ft, name) is getattr(ft.lax, name)
    assert lax.stop_gradient is ft.stop_gradient


# -- errors -----------------------------------------------------------------------------------

def test_carry_shape_mismatch_names_the_leaf():
    init = {"a": np.zeros(2), "b": np.zeros(3)}
    with pytest.raises(TypeError, match=r"carry\['b'\] has type float64\[3\].*float64\[4\].*"
                                        r"shapes do not match"):
        ft.scan(lambda c, x: ({"a": c["a"], "b": np.zeros(4)}, x), init, np.zeros(2))


def test_carry_dtype_mismatch_names_the_leaf():
    with pytest.raises(TypeError, match=r"while_loop: the input carry component carry\[1\] has "
                                        r"type int64\[\].*float64\[\].*dtypes do not match"):
        ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 0.5),
                      (0, np.array(4)))


def test_carry_structure_mismatch():
    with pytest.raises(TypeError, match="fori_loop: the output carry must have the pytree "
                                        "structure of the input carry"):
        ft.fori_loop(0, 2, lambda i, c: (c, c), np.zeros(2))


def test_weakly_typed_python_scalar_carry():
    # a Python float matches a float array of any precision (JAX's weak types) ...
    out = ft.fori_loop(0, 2, lambda i, c: c + np.float32(1), 0.0)
    assert out == 2.0
    # ... but not an integer one
    with pytest.raises(TypeError, match=r"carry has type float \(a Python scalar\)"):
        ft.fori_loop(0, 2, lambda i, c: np.array(1), 0.0)


def test_scan_body_must_return_a_pair():
    with pytest.raises(TypeError, match="must return a pair"):
        ft.scan(lambda c, x: c, 0.0, np.zeros(3))


@pytest.mark.parametrize("xs,length,message", [
    ((np.zeros(3), np.zeros(4)), None, "different leading axis sizes: 3, 4"),
    (np.zeros(3), 4, "length=4 disagrees with the leading axis size 3"),
    (None, None, "nothing to scan over"),
    (np.float64(1.0), None, "needs a leading axis"),
])
def test_scan_length_errors(xs, length, message):
    with pytest.raises(ValueError, match=message):
        ft.scan(lambda c, x: (c, None), 0.0, xs, length=length)


def test_predicate_errors():
    with pytest.raises(TypeError, match=r"cond: pred must be a scalar, got a value of shape "
                                        r"\(2,\)"):
        ft.cond(np.array([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="cond_fun must be a scalar of kind boolean, got float64"):
        ft.while_loop(lambda v: v, lambda v: v, np.array(1.0))
    with pytest.raises(TypeError, match="switch: index must be a scalar of kind integer"):
        lax.switch(np.array(1.0), [lambda: 1])
    with pytest.raises(TypeError, match="non-empty"):
        lax.switch(0, [])
    with pytest.raises(TypeError, match="true_fun must be callable"):
        ft.cond(True, 1, lambda: 2)
    with pytest.raises(TypeError, match="fori_loop: upper must be a scalar of kind integer"):
        ft.fori_loop(0, 2.0, lambda i, v: v, 0.0)


def test_branches_with_different_outputs_under_a_batched_pred():
    with pytest.raises(TypeError, match=r"cond: the output of true_fun component output\[1\] "
                                        r"has type float64\[2\].*float64\[3\]"):
        ft.vmap(lambda p: ft.cond(p, lambda: (1.0, np.zeros(2)), lambda: (1.0, np.zeros(3))))(
            np.array([True, False]))


# -- ft.jit -----------------------------------------------------------------------------------

def test_jit_scan_fori_loop_and_map_equal_eager_on_new_values():
    def f(carry, xs, x):
        carry, ys = ft.scan(rnn_step, carry, xs)
        v = ft.fori_loop(0, 3, lambda i, v: np.sin(v) * i + carry["h"], x)
        return carry, ys, v, lax.map(lambda r: r * carry["h"].sum(), xs[0])
    jitted = ft.jit(f)
    for _ in range(3):
        carry, xs = rnn_inputs(5, 3)
        x = RNG.standard_normal(3)
        assert_tree_close(jitted(carry, xs, x), f(carry, xs, x), rtol=1e-12)


def test_jit_cond_and_switch_on_traced_predicates():
    def f(x):
        a = ft.cond(x.sum() > 0, lambda x: x * 2, lambda x: -x, x)
        b = lax.switch(fnp.argmax(x), [np.sin, np.cos, np.exp], x)
        return a, b
    jitted = ft.jit(f)
    for x in (np.array([1.0, -2.0, 0.5]), np.array([-1.0, 2.0, 0.5]),
              np.array([0.0, 1.0, 3.0])):
        assert_tree_close(jitted(x), f(x), rtol=1e-14)


def newton_sqrt(a):
    def cond_fun(c):
        return fnp.abs(c[0] - c[1]) > 1e-12 * c[1]

    def body_fun(c):
        return c[1], 0.5 * (c[1] + a / c[1])
    return ft.while_loop(cond_fun, body_fun, (a, 0.5 * (a + 1.0)))[1]


def test_jit_while_loop_on_a_traced_predicate_is_one_loop_equation():
    """Note [compiled loops]: the trip count is decided on each call, not at trace time."""
    jitted = ft.jit(newton_sqrt)
    for a in (2.0, 9.0, 1e6, 0.01):   # different trip counts, one trace
        got = jitted(np.array(a))
        assert got == newton_sqrt(np.array(a))
    assert jitted.traces == 1
    program = ft.make_graph(newton_sqrt)(np.array(2.0)).optimized
    assert [e.op.name for e in program.eqns].count("while_loop[body_fun]") == 1


def test_jit_scan_is_one_equation_whatever_the_trip_count():
    w = RNG.standard_normal((4, 4)) * 0.5

    def f(h0, xs):   # w is a closure constant, h0 and xs traced
        def step(h, x):
            h = np.tanh(h @ w + x)
            return h, {"s": h.sum(), "h": h}
        return ft.scan(step, h0, xs, reverse=True)
    sizes = []
    for n in (3, 300):
        h0, xs = RNG.standard_normal(4), RNG.standard_normal((n, 4))
        sizes.append(len(ft.make_graph(f)(h0, xs).traced))
        jitted = ft.jit(f)
        for _ in range(2):
            assert_tree_close(jitted(h0, xs), f(h0, xs), rtol=0, atol=0)
            h0 = h0 + 1.0
    assert sizes == [1, 1]


def test_jit_loops_reading_traced_arguments_from_closures():
    def f(w, b, h0, n_static):
        h = ft.fori_loop(0, n_static, lambda i, h: np.tanh(h @ w + b * i), h0)
        return ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * b.sum()), (0, h))
    jitted = ft.jit(f, static_argnums=3)
    for _ in range(2):
        w, b, h0 = RNG.standard_normal((3, 3)) * 0.5, RNG.standard_normal(3), RNG.standard_normal(3)
        assert_tree_close(jitted(w, b, h0, 5), f(w, b, h0, 5), rtol=1e-15)
    eqns = [e.op.name for e in jitted.lower(w, b, h0, 5).optimized.eqns]
    assert any(n.startswith("fori_loop[") for n in eqns)
    assert any(n.startswith("while_loop[") for n in eqns)


def test_jit_nested_loops():
    def f(x):
        def outer(i, v):
            inner, _ = ft.scan(lambda c, y: (c * 0.9 + y * x.sum(), None), v, x)
            return ft.cond(inner.sum() > 0, lambda u: u - 1.0, lambda u: u + 1.0, inner)
        return ft.fori_loop(0, 4, outer, x[0])
    jitted = ft.jit(f)
    for _ in range(3):
        x = RNG.standard_normal((5, 2))
        np.testing.assert_allclose(jitted(x), f(x), rtol=1e-14)


def test_jit_loop_outputs_are_fresh_arrays():
    f = ft.jit(lambda w, x: ft.fori_loop(0, 3, lambda i, c: (c[0], c[1] + c[0]), (w, x)))
    w, x = np.ones(2), np.zeros(2)
    out_w, out_x = f(w, x)
    assert out_w is not w and not np.shares_memory(out_w, w)
    out_w[:] = 7.0
    assert (w == 1.0).all() and (f(w, x)[1] == 3.0).all()
    twice = ft.jit(lambda x: ft.scan(lambda c, y: ((c[0] + y, c[0] + y), None), (x[0], x[0]), x))
    a, b = twice(np.ones((3, 2)))[0]
    assert not np.shares_memory(a, b)


def test_jit_loops_that_cannot_compile_are_recorded_step_by_step():
    table = np.arange(5.0)
    # the index reads a NumPy array (a conversion): the loop unrolls, as before
    g = ft.jit(lambda x: ft.fori_loop(0, 5, lambda i, v: v + table[i], x))
    np.testing.assert_allclose(g(np.zeros(2)), 10.0)
    # a Python float carry meeting float32 arrays: eager NumPy's weak typing is kept
    x32 = np.ones(3, np.float32)
    h = lambda x: ft.fori_loop(0, 3, lambda i, c: c + x.sum(), 0.0)
    assert ft.jit(h)(x32).dtype == h(x32).dtype == np.float32


def test_jit_while_loop_that_cannot_compile_is_refused_with_a_way_out():
    def branchy(v):   # Python control flow on the carry
        return v * 2 if float(v) < 5 else v * 3
    jitted = ft.jit(lambda x: ft.while_loop(lambda v: v < 10, branchy, x))
    with pytest.raises(ft.TracerConversionError, match="fori_loop or scan"):
        jitted(np.array(1.0))


def test_jit_while_loop_on_a_static_predicate():
    jitted = ft.jit(lambda x, n: ft.while_loop(lambda c: c[0] < n,
                                               lambda c: (c[0] + 1, c[1] * x), (0, x)),
                    static_argnums=1)
    np.testing.assert_allclose(jitted(np.array(1.5), 3)[1], 1.5 ** 4)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 6), d=st.integers(1, 3), reverse=st.booleans(), lo=st.integers(-2, 2))
def test_jit_compiled_loops_equal_eager_bitwise(n, d, reverse, lo):
    def f(carry, xs, x):
        carry, ys = ft.scan(rnn_step, carry, xs, reverse=reverse)
        v = ft.fori_loop(lo, lo + n, lambda i, v: np.sin(v) * i + carry["h"], x)
        return carry, ys, v
    jitted = ft.jit(f)
    for _ in range(2):
        carry, xs = rnn_inputs(n, d)
        x = RNG.standard_normal(d)
        assert_tree_close(jitted(carry, xs, x), f(carry, xs, x), rtol=0, atol=0)


def test_jit_unstack_of_an_empty_axis():
    """A multiple-results op with no results (simplify used to read its first output)."""
    f = ft.jit(lambda x: (fnp.unstack(x), x.sum()))
    slices, total = f(np.zeros((0, 3)))
    assert slices == () and total == 0.0
