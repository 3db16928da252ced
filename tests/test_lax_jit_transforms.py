"""Loops under the transforms inside ft.jit (Note [loops under the transforms]): jit(grad(f)),
jit(vmap(f)), jit(jvp(f)) and their compositions over scan, fori_loop and while_loop compile
to loop equations (the program's length does not grow with the trip count) and agree with the
eager transforms, which run the loops in Python."""
import numpy as np
import optree
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp

RNG = np.random.default_rng(7)
W = RNG.standard_normal((3, 3)) * 0.5


def rnn(w, h0, xs, reverse=False):
    def step(carry, x):
        h, acc = carry
        h = np.tanh(h @ w + x)
        return (h, acc + (h ** 2).sum()), h[0] * x
    (h, acc), ys = ft.scan(step, (h0, 0.0), xs, reverse=reverse)
    return acc + (ys ** 3).sum() + h.sum()


def euler(w, h0, n):
    return ft.fori_loop(0, n, lambda i, h: h + 0.1 * np.tanh(h @ w) * np.cos(i), h0).sum()


def newton_sqrt(a):
    def body(c):
        _, x = c
        return x, 0.5 * (x + a / x)
    return ft.while_loop(lambda c: fnp.abs(c[0] - c[1]) > 1e-10, body, (a, 0.5 * (a + 1.0)))[1]


def loop_eqns(jitted, *args):
    """The loop equations of the optimized program, and its length."""
    eqns = jitted.lower(*args).optimized.eqns
    return [e.op.name.split("[")[0] for e in eqns if "[" in e.op.name], len(eqns)


def assert_close(got, want, rtol=1e-12):
    for g, w in zip(optree.tree_leaves(got), optree.tree_leaves(want)):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-14)


TRANSFORMS = {
    "grad": lambda f: ft.grad(f, argnums=(0, 1)),
    "vmap": lambda f: ft.vmap(f, in_dims=(None, 0, None)),
    "vmap_xs_at_1": lambda f: ft.vmap(f, in_dims=(None, None, 1)),
    "jvp": lambda f: (lambda w, h, xs: ft.jvp(lambda w, h: f(w, h, xs), (w, h),
                                              (np.ones_like(w), np.ones_like(h)))),
    "vmap_grad": lambda f: ft.vmap(ft.grad(f), in_dims=(None, 0, None)),
    "grad_of_vmap": lambda f: ft.grad(lambda w, h, xs: ft.vmap(f, in_dims=(None, 0, None))(
        w, h, xs).sum()),
    "hessian": lambda f: (lambda w, h, xs: ft.hessian(lambda h: f(w, h, xs))(h)),
    "jacrev": lambda f: (lambda w, h, xs: ft.jacrev(lambda w: f(w, h, xs))(w)),
}


def _args(name, n):
    h0 = RNG.standard_normal((4, 3)) if name in ("vmap", "vmap_grad", "grad_of_vmap") else \
        RNG.standard_normal(3)
    xs = RNG.standard_normal((3, n, 3) if name == "vmap_xs_at_1" else (n, 3))
    return W, h0, xs


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_under_transforms_is_a_loop_equation(name, reverse):
    f = TRANSFORMS[name](lambda w, h, xs: rnn(w, h, xs, reverse))
    jitted = ft.jit(f)
    lengths = []
    for n in (4, 40):
        args = _args(name, n)
        for _ in range(2):
            assert_close(jitted(*args), f(*args))
        loops, length = loop_eqns(jitted, *args)
        assert loops and set(loops) == {"scan"}, loops
        lengths.append(length)
    assert lengths[0] == lengths[1]   # the trip count is a parameter, not unrolled code


FORI = {
    "grad": (lambda f: ft.grad(f), (3,)),
    "vmap_grad": (lambda f: ft.vmap(ft.grad(f), in_dims=(None, 0)), (5, 3)),
    "grad_grad": (lambda f: ft.grad(ft.grad(lambda s, h: f(s * W, h)), argnums=1), (3,)),
    "jacfwd": (lambda f: ft.jacfwd(f, argnums=1), (3,)),
}


@pytest.mark.parametrize("name", sorted(FORI))
def test_fori_loop_under_transforms(name):
    transform, h_shape = FORI[name]
    w = np.array(0.7) if name == "grad_grad" else W
    args = (w, RNG.standard_normal(h_shape))
    lengths = []
    for n in (6, 60):
        f = transform(lambda w, h: euler(w, h, n))
        jitted = ft.jit(f)
        assert_close(jitted(*args), f(*args))
        loops, length = loop_eqns(jitted, *args)
        assert "scan" in loops
        lengths.append(length)
    assert lengths[0] == lengths[1]


def test_while_loop_under_vmap_and_forward_mode():
    a = np.array([2.0, 3.0, 9.0, 100.0, 0.25])
    for f, args in [(ft.vmap(newton_sqrt), (a,)), (ft.jacfwd(newton_sqrt), (np.array(7.0),)),
                    (ft.vmap(ft.jacfwd(newton_sqrt)), (a,))]:
        jitted = ft.jit(f)
        for x in (args, tuple(np.asarray(v * 1.7) for v in args)):   # new trip counts
            assert_close(jitted(*x), f(*x))
        assert jitted.traces == 1
        assert loop_eqns(jitted, *args)[0] == ["while_loop"]
    # every lane frozen when its own predicate fails (JAX's rule): a counter per example
    count = ft.jit(ft.vmap(lambda x: ft.while_loop(lambda c: c[1] < 10,
                                                   lambda c: (c[0] + 1, c[1] * 2), (0, x))))
    i, v = count(np.array([1.0, 3.0, 20.0]))
    np.testing.assert_array_equal(i, [4, 2, 0])
    np.testing.assert_array_equal(v, [16.0, 12.0, 20.0])


def test_vmapped_newton_sqrt_matches_numpy():
    a = RNG.uniform(0.1, 50.0, 16)
    np.testing.assert_allclose(ft.jit(ft.vmap(newton_sqrt))(a), np.sqrt(a), rtol=1e-12)
    np.testing.assert_allclose(ft.jit(ft.vmap(ft.jacfwd(newton_sqrt)))(a), 0.5 / np.sqrt(a),
                               rtol=1e-8)


def test_while_loop_in_reverse_mode_under_jit():
    # the trip count decided by the values: a bounded loop of steps (test_lax_jit_while_grad)
    assert_close(ft.jit(ft.grad(newton_sqrt))(np.array(2.0)), 0.5 / np.sqrt(2.0))

    def power(x):   # the trip count is known while tracing: recorded step by step
        return ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
    np.testing.assert_allclose(ft.jit(ft.grad(power))(np.array(1.5)), 4 * 1.5 ** 3)


def test_custom_vjp_and_checkpoint_inside_a_body_keep_their_meaning():
    @ft.custom_vjp
    def clip_gradient(x):
        return x
    clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (np.clip(g, -0.01, 0.01),))

    def loss(w, h0):
        step = ft.checkpoint(lambda h, _: (h + np.tanh(clip_gradient(h) @ w), None))
        return ft.scan(step, h0, None, length=5)[0].sum()
    args = (W, RNG.standard_normal(3))
    for f in (ft.grad(loss), ft.grad(loss, argnums=1)):
        jitted = ft.jit(f)
        assert_close(jitted(*args), f(*args), rtol=1e-13)
        assert loop_eqns(jitted, *args)[0] == ["scan", "scan"]
    unclipped = ft.grad(lambda w, h: ft.scan(lambda h, _: (h + np.tanh(h @ w), None), h,
                                             None, length=5)[0].sum(), argnums=1)
    assert not np.allclose(ft.jit(ft.grad(loss, argnums=1))(*args), unclipped(*args))


def test_nested_loops_under_grad_and_hessian():
    def f(w, h0):
        def outer(h, _):
            h = ft.fori_loop(0, 3, lambda i, g: np.sin(g @ w), h)
            return h, h.sum()
        return ft.scan(outer, h0, None, length=4)[1].sum()
    args = (W, RNG.standard_normal(3))
    for g, x in [(ft.grad(f), args), (ft.hessian(f, argnums=1), args),
                 (ft.vmap(ft.grad(f), in_dims=(None, 0)), (W, RNG.standard_normal((2, 3))))]:
        assert_close(ft.jit(g)(*x), g(*x))


def test_python_scalar_and_float32_carries():
    # a Python float carried unchanged (it once reached the compiled body as a float)
    f = ft.jit(lambda x: ft.fori_loop(0, 3, lambda i, c: (c[0], c[1] + x), (1.0, x)))
    c0, c1 = f(np.ones(2))
    assert float(c0) == 1.0 and np.array_equal(c1, 4 * np.ones(2))
    # float32 values and a Python index promote differently from int64 ones: step by step
    g = ft.grad(lambda w: ft.fori_loop(0, 4, lambda i, h: h * w + i, w).sum())
    w32 = np.float32(0.5) * np.ones(3, np.float32)
    got = ft.jit(g)(w32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, g(w32))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 6), reverse=st.booleans(), name=st.sampled_from(sorted(TRANSFORMS)),
       seed=st.integers(0, 2 ** 16))
def test_random_scans_under_transforms_equal_eager(n, reverse, name, seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((3, 3)) * 0.5
    _, h0, xs = _args(name, n)
    f = TRANSFORMS[name](lambda w, h, xs: rnn(w, h, xs, reverse))
    assert_close(ft.jit(f)(w, h0, xs), f(w, h0, xs))


KERNEL_CALLS = {"n": 0}


def _counted_exp_kernel(xp, x):
    KERNEL_CALLS["n"] += 1
    return xp.exp(x)


counted_exp = ft.defop("test_lax_jit_counted_exp", _counted_exp_kernel)
counted_exp.def_vjp(lambda ct, primals, out: (ct * out,))   # reads the op's output
counted_exp.def_jvp(lambda primals, tangents: (counted_exp(primals[0]),
                                               counted_exp(primals[0]) * tangents[0]))


@pytest.mark.parametrize("remat", [False, True])
def test_reverse_scan_reads_saved_residuals_unless_the_body_is_checkpointed(remat):
    def body(h, x):
        return counted_exp(0.1 * (h @ W + x)), None
    step = ft.checkpoint(body) if remat else body
    g = ft.grad(lambda h0, xs: ft.scan(step, h0, xs)[0].sum(), argnums=(0, 1))
    h0, xs = RNG.standard_normal(3), RNG.standard_normal((6, 3))
    jitted = ft.jit(g)
    jitted(h0, xs)
    KERNEL_CALLS["n"] = 0
    got = jitted(h0, xs)
    # the forward scan calls the body once a step; the backward scan reads its residuals, or
    # (checkpointed) runs each step's forward again
    assert KERNEL_CALLS["n"] == (12 if remat else 6)
    assert loop_eqns(jitted, h0, xs)[0] == ["scan", "scan"]
    assert_close(got, g(h0, xs), rtol=1e-13)


def test_unroll_is_checked_as_in_jax():
    for bad in (0, -2, 1.5, "2"):
        with pytest.raises(ValueError, match="unroll"):
            ft.scan(lambda c, x: (c + x, None), 0.0, np.ones(3), unroll=bad)
        with pytest.raises(ValueError, match="unroll"):
            ft.fori_loop(0, 3, lambda i, c: c + i, 0, unroll=bad)
    for good in (1, 3, True, False):
        f = ft.jit(lambda xs: ft.scan(lambda c, x: (c + x, c), 0.0, xs, unroll=good))
        assert_close(f(np.arange(5.0)), (np.array(10.0), np.array([0.0, 0, 1, 3, 6])))


@pytest.mark.parametrize("name", ["grad", "vmap_grad", "hessian", "jvp"])
def test_loops_under_transforms_are_xla_loops(name):
    pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
    f = TRANSFORMS[name](rnn)
    args = _args(name, 5)
    jitted = ft.jit(f, backend="xla")
    assert_close(jitted(*args), f(*args), rtol=1e-11)
    hlo = jitted.lower(*args).fn.source
    assert "stablehlo.while" in hlo and "callback" not in hlo


def test_python_numbers_in_a_compiled_carry_stay_python_numbers():
    x32 = np.ones(2, np.float32)
    for f in [lambda x: ft.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x)),
              lambda x: ft.fori_loop(0, 4, lambda i, c: c + i, 0),
              lambda x: ft.scan(lambda c, y: (c + 1, c), 0, x),
              # a count read after the loop: x * count is float32 eagerly (a Python int)
              lambda x: x * ft.while_loop(lambda c: c[0] < 3,
                                          lambda c: (c[0] + 1, c[1] * 2), (0, x))[0],
              # a float32 carry meeting the Python index: float32 as eagerly, compiled
              lambda x: ft.fori_loop(0, 4, lambda i, c: c * 0.5 + i, x)]:
        want = f(x32)
        for backend in ("numpy", "xla") if _has_jax() else ("numpy",):
            got = ft.jit(f, backend=backend)(x32)
            for g, w in zip(optree.tree_leaves(got), optree.tree_leaves(want)):
                assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
                np.testing.assert_array_equal(g, w)
    m = ft.jit(lambda x: ft.fori_loop(0, 4, lambda i, c: c * 0.5 + i, x))
    assert loop_eqns(m, x32)[0] == ["fori_loop"]


# A jitted function's Python-float argument as the loop's carry: each loop kind under plain jit,
# jit(grad) and jit(vmap), on both backends (issue 30 item 3: an AttributeError on
# `_carry_operands`, which took a weak traced scalar for an array).
WEAK_CARRY_LOOPS = {
    "while_loop": lambda a, x: ft.while_loop(lambda c: c < 10, lambda c: c + a * x, a),
    # the carry becomes a NumPy float after the first step (a float64 slice meets it)
    "scan": lambda a, x: ft.scan(lambda c, t: (c * a + x * t, c), a, np.arange(3.0))[0],
    # the carry stays a Python float; the ys are stacked
    "scan_length": lambda a, x: fnp.sum(ft.scan(lambda c, _: (c + a, c * x), a, None,
                                                length=3)[1]),
    "fori_loop": lambda a, x: ft.fori_loop(0, 4, lambda i, c: c * a + i * x, a),
    "nested": lambda a, x: ft.fori_loop(0, 3, lambda i, c: ft.while_loop(
        lambda d: d < 5 * (i + 1), lambda d: d + a * x, c), a),
}
WEAK_CARRY_TRANSFORMS = {
    "jit": (lambda f: f, 1.5),
    "jit_grad": (ft.grad, 1.5),
    "jit_vmap": (lambda f: ft.vmap(f, in_dims=(None, 0)), np.array([0.5, 1.5, 2.0])),
}


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("transform", sorted(WEAK_CARRY_TRANSFORMS))
@pytest.mark.parametrize("loop", sorted(WEAK_CARRY_LOOPS))
def test_a_python_float_argument_as_the_carry(loop, transform, backend):
    if backend == "xla" and not _has_jax():
        pytest.skip("the XLA backend needs JAX (pip install -e '.[xla]')")
    wrap, x = WEAK_CARRY_TRANSFORMS[transform]
    f = wrap(WEAK_CARRY_LOOPS[loop])
    jitted = ft.jit(f, backend=backend)
    for a in (0.7, 2.5):   # another trip count for the while loops: the argument is read per call
        got, want = jitted(a, x), f(a, x)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        if type(want) is float:   # a Python float out of the loop, as eagerly
            assert type(got) is float
        else:   # (a 0-d array or a NumPy scalar: jit's rule for 0-d results, not the loop's)
            assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == want.dtype
    assert jitted.traces == 1
    assert loop_eqns(jitted, 0.7, x)[0]   # compiled as a loop, not recorded step by step


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_python_float_argument_carry_is_weakly_typed(backend):
    """A float32 value meeting the carry makes it float32, as it does to a Python float eagerly
    (the loop's carry check took the traced argument for a float64 array: a TypeError)."""
    if backend == "xla" and not _has_jax():
        pytest.skip("the XLA backend needs JAX (pip install -e '.[xla]')")
    x32 = np.array([1.5, 0.25], np.float32)
    loops = [lambda a, x: ft.fori_loop(0, 3, lambda i, c: c * x + i, a),
             lambda a, x: ft.scan(lambda c, t: (c * x + t, c), a, np.ones(2, np.float32))]
    for loop in loops:
        for f, x in ((loop, x32[0]), (ft.vmap(loop, in_dims=(None, 0)), x32)):
            want = f(0.5, x)
            got = ft.jit(f, backend=backend)(0.5, x)
            for g, w in zip(optree.tree_leaves(got), optree.tree_leaves(want)):
                assert np.asarray(g).dtype == np.asarray(w).dtype
                np.testing.assert_array_equal(g, w)


def _has_jax():
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def test_loop_equations_keep_only_what_is_read():
    """The forward scan of a gradient stacks only the residuals the backward scan reads, and
    the backward scan makes no cotangent that nobody wants (not the data's)."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((50, 8)), rng.standard_normal(50)

    def val_loss(log_lam, w0, x, y):
        def sgd(i, w):
            g = ft.grad(lambda w: fnp.mean((x @ w - y) ** 2) + fnp.exp(log_lam) * fnp.sum(w ** 2))
            return w - 0.05 * g(w)
        return fnp.mean((x @ ft.fori_loop(0, 10, sgd, w0) - y) ** 2)
    hyper = ft.grad(val_loss)
    args = (np.array(-2.0), np.zeros(8), x, y)
    jitted = ft.jit(hyper)
    assert_close(jitted(*args), hyper(*args))
    scans = [e for e in jitted.lower(*args).optimized.eqns if e.op.name.startswith("scan")]
    assert len(scans) == 2
    forward, backward = scans
    assert len(forward.outs) <= 3   # the weights, and what the backward step reads of a step
    assert all(v.shape != x.shape for v in backward.outs)   # no cotangent for the data
    body = backward.op.loop.body.optimized()
    assert all(v.shape != x.shape for e in body.eqns for v in e.outs)


def _edge_cases():
    x, xs = RNG.standard_normal(3), RNG.standard_normal((4, 3))
    keys = ft.random.split(ft.random.key(0), 4)

    def counted(w):   # an integer carry beside the differentiated one
        step = lambda c, _: ((c[0] + 1, np.tanh(c[1] @ w) * c[0]), None)   # noqa: E731
        return ft.scan(step, (0, x), None, length=4)[0][1].sum()

    def branchy(w):   # a predicate on the slice: both branches and a select in the program
        body = lambda c, xi: (ft.cond(xi.sum() > 0, lambda v: np.sin(v @ w),  # noqa: E731
                                      lambda v: v * 2, c), None)
        return ft.scan(body, x, xs)[0].sum()

    def draws(k):     # keys split in the carry, one per example
        def step(c, _):
            key, acc = c
            new, sub = ft.random.split(key)
            return (new, acc + ft.random.normal(sub, (3,))), None
        return ft.scan(step, (k, np.zeros(3)), None, length=3)[0][1]

    def tanh_scan(w):
        return ft.scan(lambda c, _: (np.tanh(c @ w), None), x, None, length=3)[0]
    return [
        ("int carry", ft.grad(counted), (W,)),
        ("lax.map", ft.grad(lambda w: ft.lax.map(lambda r: np.sin(r @ w).sum(), xs).sum()), (W,)),
        ("cond in body", ft.grad(branchy), (W,)),
        ("random keys", ft.vmap(draws), (keys,)),
        ("vjp", lambda w: ft.vjp(tanh_scan, w)[1](np.ones(3)), (W,)),
        ("linearize", lambda w: ft.linearize(tanh_scan, w)[1](np.ones_like(w)), (W,)),
        ("jvp of grad", lambda w: ft.jvp(ft.grad(lambda w: tanh_scan(w).sum()), (w,),
                                         (np.ones_like(w),)), (W,)),
        ("batched bounds", ft.vmap(lambda n, v: ft.fori_loop(0, n, lambda i, c: c * 1.5, v)),
         (np.array([1, 3, 2]), np.ones(3))),
    ]


@pytest.mark.parametrize("name, f, args", _edge_cases(), ids=[c[0] for c in _edge_cases()])
def test_loop_compositions_under_jit(name, f, args):
    jitted = ft.jit(f)
    for _ in range(2):
        assert_close(jitted(*args), f(*args))
    assert loop_eqns(jitted, *args)[0]


@pytest.mark.parametrize("remat", [False, True])
def test_jitted_gradient_through_a_scan_peaks_no_higher_than_eager(remat):
    import tracemalloc
    rng = np.random.default_rng(0)
    w, h0, xs = rng.standard_normal((200, 200)) / 15, rng.standard_normal(200), \
        rng.standard_normal((50, 200))
    body = lambda h, x: (np.tanh(np.tanh(h @ w + x) @ w), None)   # noqa: E731
    step = ft.checkpoint(body) if remat else body
    g = ft.grad(lambda h0, xs: ft.scan(step, h0, xs)[0].sum(), argnums=(0, 1))
    jitted = ft.jit(g)
    peaks = []
    for fn in (g, jitted):
        fn(h0, xs)
        tracemalloc.start()
        fn(h0, xs)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] <= peaks[0], peaks
