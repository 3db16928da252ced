"""Taylor-mode fuzz: random small programs (fuzz_programs.draw_program: elementwise,
broadcasting, reductions, shape ops, products, cond and switch) under jet and laplacian, against
nested jvp and trace(hessian), eagerly and under vmap and ft.jit (FT_FUZZ_EXAMPLES examples,
default 30)."""
import os
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import functorch_lite as ft
from fuzz_programs import HypothesisDraw, draw_program, draw_shape

EXAMPLES = int(os.environ.get("FT_FUZZ_EXAMPLES", "30"))
ORDER = 3


def nested(g, t, order):
    """[g'(t), ..., g^(order)(t)] by nested jvp."""
    out, h = [], g
    for _ in range(order):
        h = (lambda h: lambda t: ft.jvp(h, (t,), (np.ones_like(t),))[1])(h)
        out.append(h(t))
    return out


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), seed=st.integers(0, 2 ** 31))
def test_random_program_under_jet_and_laplacian(data, seed):
    draw = HypothesisDraw(data)
    rng = np.random.default_rng(seed)
    shape = draw_shape(draw)
    desc, program = draw_program(draw, shape, rng)
    x, y = rng.uniform(-1.5, 1.5, size=shape), rng.uniform(-1.5, 1.5, size=shape)
    series = [rng.standard_normal(shape) for _ in range(ORDER)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out, terms = ft.jet(lambda a: program(a, y), (x,), (series,))
        if not np.all(np.isfinite(out)):
            return  # a NaN or inf at a random point: nothing smooth to compare
        curve = lambda t: x + sum(c * t ** (k + 1) / [1, 2, 6][k]  # noqa: E731
                                  for k, c in enumerate(series))
        ref = nested(lambda t: program(curve(t), y), np.array(0.0), ORDER)
        for k in range(ORDER):
            scale = 1.0 + np.max(np.abs(ref[k]), initial=0.0)
            np.testing.assert_allclose(terms[k], ref[k], rtol=1e-7, atol=1e-9 * scale,
                                       err_msg=f"{desc}: term {k + 1}")

        probe = rng.standard_normal(np.shape(out))

        def scalar(a):
            return np.sum(program(a, y) * probe)
        lap = ft.laplacian(scalar)(x)
        hess = np.asarray(ft.hessian(scalar)(x)).reshape(x.size, x.size)
        np.testing.assert_allclose(lap, np.trace(hess), rtol=1e-8,
                                   atol=1e-9 * (1 + np.abs(hess).max()), err_msg=desc)
        xs = np.stack([x, rng.uniform(-1.5, 1.5, size=shape)])
        eager = ft.vmap(ft.laplacian(scalar))(xs)
        np.testing.assert_allclose(eager[0], lap, rtol=1e-12, atol=1e-12, err_msg=desc)
        jitted = ft.jit(ft.vmap(ft.laplacian(scalar)))(xs)
        np.testing.assert_allclose(jitted, eager, rtol=1e-12, atol=1e-12, err_msg=desc)
