"""Differential test of loops under the transforms inside ft.jit: random loop bodies (the
composition fuzzer's random programs) in scan, fori_loop and while_loop, under random transform
stacks, jitted (loop equations built by the loops' rules, Note [loops under the transforms])
against the eager transforms (Python loops), over several calls with new values. Derivatives
through the loops agree to rounding (the rules sum per iteration), not bit for bit."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import assert_close
from fuzz_programs import HypothesisDraw, draw_program, draw_shape


def _loop(kind, program, n):
    """f(x, y): the carry has x's shape; each step mixes the program's output back in."""
    def mix(c, out):
        return 0.5 * c + 0.25 * fnp.tanh(fnp.sum(out)) + 0.1 * fnp.sin(c)

    if kind == "scan":
        def f(x, y):
            ys = fnp.stack([y * (0.5 + 0.25 * k) for k in range(n)])
            c, outs = ft.scan(lambda c, yi: (mix(c, program(c, yi)), program(c, y * yi)), x, ys)
            return fnp.sum(c) + fnp.sum(outs * 0.5)
    elif kind == "fori_loop":
        def f(x, y):
            return fnp.sum(ft.fori_loop(0, n, lambda i, c: mix(c, program(c, y) * (i + 1)), x))
    else:   # a trip count known only from the values (reverse mode: a bounded scan)
        def f(x, y):
            def body(s):
                k, c = s
                return k + 1.0, mix(c, program(c, y))
            return fnp.sum(ft.while_loop(lambda s: s[0] + fnp.abs(fnp.sum(s[1])) * 0 < n,
                                         body, (fnp.sum(x) * 0.0, x))[1])
    return f


STACKS = {
    "grad": (lambda f: ft.grad(f), False),
    "grad_y": (lambda f: ft.grad(f, argnums=1), False),
    "vmap": (lambda f: ft.vmap(f, in_dims=(0, None)), True),
    "vmap_grad": (lambda f: ft.vmap(ft.grad(f), in_dims=(0, None)), True),
    "grad_vmap": (lambda f: ft.grad(lambda x, y: fnp.sum(ft.vmap(f, in_dims=(0, None))(x, y))),
                  True),
    "jvp": (lambda f: (lambda x, y: ft.jvp(f, (x, y), (fnp.ones_like(x), fnp.ones_like(y)))),
            False),
    "jacfwd_grad": (lambda f: ft.jacfwd(ft.grad(f)), False),
    "vmap_jvp": (lambda f: ft.vmap(lambda x, y: ft.jvp(lambda x: f(x, y), (x,),
                                                       (fnp.ones_like(x),))[1],
                                   in_dims=(0, None)), True),
}
@pytest.mark.parametrize("kind", ["scan", "fori_loop", "while_loop"])
@settings(max_examples=30, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2 ** 16))
def test_loops_under_transforms_jitted_equal_eager(kind, data, seed):
    draw = HypothesisDraw(data)
    rng = np.random.default_rng(seed)
    name = draw.choice(sorted(STACKS))
    shape = draw_shape(draw)
    desc, program = draw_program(draw, shape, rng)
    transform, batched = STACKS[name]
    f = transform(_loop(kind, program, draw.integers(1, 4)))
    jitted = ft.jit(f)
    for call in range(3):
        x = rng.uniform(-1.0, 1.0, ((3,) if batched else ()) + shape)
        y = rng.uniform(-1.0, 1.0, shape)
        want = f(x, y)
        got = jitted(x, y)
        assert_close(got, want, rtol=1e-9, atol=1e-12,
                     path=f"{kind} of {desc} under {name}, call {call}")
    assert jitted.traces == 1
    eqns = jitted.lower(x, y).optimized.eqns
    # (a derivative the loop does not reach is a constant: no equation at all)
    assert not eqns or any("[" in e.op.name for e in eqns), f"{kind} under {name} was unrolled"


@pytest.mark.parametrize("kind", ["scan", "fori_loop", "while_loop"])
def test_loops_under_transforms_on_xla(kind):
    pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
    rng = np.random.default_rng(3)
    program = lambda c, y: fnp.tanh(c * y) @ fnp.ones((3, 3)) + fnp.exp(c * 0.1)   # noqa: E731
    for name in ("grad", "vmap_grad", "jacfwd_grad"):
        transform, batched = STACKS[name]
        f = transform(_loop(kind, program, 4))
        x = rng.uniform(-1.0, 1.0, ((2, 3) if batched else (3,)))
        y = rng.uniform(-1.0, 1.0, 3)
        assert_close(ft.jit(f, backend="xla")(x, y), f(x, y), rtol=1e-11, atol=1e-13)
