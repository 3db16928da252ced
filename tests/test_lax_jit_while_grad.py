"""Reverse mode through a while_loop under ft.jit (Note [reverse mode through while_loop] in
lax/rules.py): the compiled derivative equals the eager one (which differentiates the
iterations that ran) over calls whose trip counts differ, the program does not grow with the trip
count, a call needing more steps than the recorded bound traces again (bounds only grow), and it
composes with vmap, jvp and itself, on both backends."""
import numpy as np
import optree
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from test_lax_transforms import newton_sqrt   # the JAX tutorial's fixed point, by while_loop

BACKENDS = ["numpy"]
try:
    import jax  # noqa: F401
    BACKENDS.append("xla")
except ImportError:
    pass

RNG = np.random.default_rng(0)


def grow(x):
    """x times the first value of c -> 1.5 c + 1 (from 1) that reaches x: about log(x) steps,
    an integer step count in the carry."""
    c = ft.while_loop(lambda c: c[1] < x, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0),
                      (0, x * 0.0 + 1.0))
    return c[1] * x


def deq_layer(w, x):
    """The fixed point z = tanh(w z + x) (elementwise), reading w and x from outside the body."""
    def cond_fun(c):
        z_prev, z = c
        return fnp.max(fnp.abs(z - z_prev)) > 1e-12

    def body_fun(c):
        _, z = c
        return z, np.tanh(w * z + x)
    return ft.while_loop(cond_fun, body_fun, (x, np.tanh(w * x + x)))[1].sum()


def loop_names(jitted, *args):
    eqns = jitted.lower(*args).optimized.eqns
    return [e.op.name.split("[")[0] for e in eqns if "[" in e.op.name], len(eqns)


def close(got, want, rtol=1e-12):
    for g, w in zip(optree.tree_leaves(got), optree.tree_leaves(want)):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_of_newton_sqrt_is_compiled_once_for_every_trip_count_within_the_bound(backend):
    jitted = ft.jit(ft.grad(newton_sqrt), backend=backend)
    sizes = []
    for a in (9.0, 3.0, 50.0, 100.0, 2.5):   # 5-8 steps: within the first call's bound, 8
        g = jitted(np.array(a))
        close(g, ft.grad(newton_sqrt)(np.array(a)))
        close(g, 0.5 / np.sqrt(a), rtol=1e-10)
        sizes.append(loop_names(jitted, np.array(a)))
    assert jitted.traces == 1
    # the loop, a forward scan that stacks the residuals, the backward scan; never unrolled
    assert sizes[0][0] == ["while_loop", "scan", "scan"] and all(s == sizes[0] for s in sizes)


@pytest.mark.parametrize("backend", BACKENDS)
def test_more_steps_than_the_bound_trace_again_and_bounds_only_grow(backend):
    jitted = ft.jit(ft.grad(grow), backend=backend)
    traces = []
    for x in (2.0, 10.0, 1e3, 1e6, 5.0, 40.0, 1e5):
        close(jitted(np.array(x)), ft.grad(grow)(np.array(x)))
        traces.append(jitted.traces)
    # 2 steps (bound 2), 5 (8), 15 (16), 32 (32): a trace for each; then all fit
    assert traces == [1, 2, 3, 4, 4, 4, 4]


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_read_from_outside_the_body_and_integer_carries(backend):
    w, x = 0.7, RNG.standard_normal(5)
    jitted = ft.jit(ft.grad(deq_layer, argnums=(0, 1)), backend=backend)
    for k in range(3):
        xk = x * (1 + 0.3 * k)
        gw, gx = jitted(np.array(w), xk)
        close((gw, gx), ft.grad(deq_layer, argnums=(0, 1))(np.array(w), xk), rtol=1e-11)
        eps = 1e-6   # and against central differences of the loop itself
        fd = (deq_layer(w + eps, xk) - deq_layer(w - eps, xk)) / (2 * eps)
        np.testing.assert_allclose(gw, fd, rtol=1e-6)
    assert jitted.traces == 1
    g = ft.jit(ft.grad(lambda v: grow(v) * v), backend=backend)   # the int counter in the carry
    close(g(np.array(30.0)), ft.grad(lambda v: grow(v) * v)(np.array(30.0)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["vmap_grad", "vmap_grad_grad", "jacrev", "hessian",
                                  "grad_vmap", "vjp", "jvp_grad"])
def test_compositions_match_eager(backend, name):
    a = np.array([2.0, 9.0, 100.0])
    batched = ft.vmap(newton_sqrt)
    f = {"vmap_grad": ft.vmap(ft.grad(newton_sqrt)),
         "vmap_grad_grad": ft.vmap(ft.grad(ft.grad(newton_sqrt))),
         "jacrev": ft.jacrev(batched),
         "hessian": ft.hessian(lambda a: batched(a).sum()),
         "grad_vmap": ft.grad(lambda a: (batched(a) ** 2).sum()),
         "vjp": lambda a: ft.vjp(batched, a)[1](a * 0.5 + 1.0),
         "jvp_grad": lambda a: ft.jvp(ft.grad(lambda a: (batched(a) ** 3).sum()), (a,),
                                      (a * 0.1,))}[name]
    jitted = ft.jit(f, backend=backend)
    for scale in (1.0, 1.7, 0.4):
        close(jitted(a * scale), f(a * scale), rtol=1e-10)
    assert jitted.traces <= 2   # one more at most where a scale needs more steps
    expected = {"vmap_grad": 0.5 / np.sqrt(a), "vmap_grad_grad": -0.25 * a ** -1.5,
                "jacrev": np.diag(0.5 / np.sqrt(a)), "hessian": np.diag(-0.25 * a ** -1.5)}
    if name in expected:
        close(jitted(a), expected[name], rtol=1e-8)


def test_a_while_loop_inside_a_compiled_scan_body_is_recorded_step_by_step():
    def nested(x):
        return ft.scan(lambda c, _: (newton_sqrt(c) + 1.0, None), x, None, length=3)[0]
    jitted = ft.jit(ft.grad(nested))
    for x in (5.0, 50.0, 20.0):
        close(jitted(np.array(x)), ft.grad(nested)(np.array(x)))
    names, _ = loop_names(jitted, np.array(5.0))
    # the scan's three steps unrolled, each differentiating its own while_loop as a loop
    assert "scan" in names and names.count("while_loop") >= 3 and jitted.traces == 1
