"""Linear algebra on ft.jit's XLA backend: no factorization beyond the one the program asks
for (Cholesky's derivatives solve with the factor), and the batched Gaussian-process program
that once deadlocked jaxlib's CPU thread pool runs to the end, many times in a row."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.scipy import linalg as fsl

jax = pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")


GP_PROGRAM = textwrap.dedent('''
    import numpy as np
    import functorch_lite as ft
    import functorch_lite.numpy as fnp
    from functorch_lite.scipy import linalg as fsl

    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=24)

    def nll(theta):
        """A GP's negative log marginal likelihood (squared-exponential kernel)."""
        ls, sf, sn = fnp.exp(theta[0]), fnp.exp(theta[1]), fnp.exp(theta[2])
        d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        K = sf ** 2 * fnp.exp(-0.5 * d / ls ** 2) + (sn ** 2 + 1e-6) * fnp.eye(24)
        L = fnp.linalg.cholesky(K)
        alpha = fsl.cho_solve((L, True), y)
        return 0.5 * y @ alpha + fnp.log(fnp.diagonal(L)).sum()

    restarts = ft.vmap(ft.value_and_grad(nll))      # 8 restarts of the optimizer, batched
    thetas = rng.normal(size=(8, 3)) * 0.3
''')


def _gp():
    scope = {}
    exec(GP_PROGRAM, scope)
    return scope


def test_cholesky_derivatives_solve_with_the_factor_not_a_new_factorization():
    """The vjp and jvp of cholesky are triangular solves with L: no LU (solve, solve_factors,
    lu_factor, inv) appears in their programs."""
    a = np.array([[4.0, 2.0, 0.4], [2.0, 3.0, 0.5], [0.4, 0.5, 2.0]])
    programs = {
        "vjp": ft.make_graph(ft.grad(lambda m: (fnp.linalg.cholesky(m) ** 3).sum()))(a),
        "jvp": ft.make_graph(lambda m: ft.jvp(fnp.linalg.cholesky, (m,), (m * 0.1,))[1])(a),
    }
    for mode, graph in programs.items():
        ops = {e.op.name for e in graph.optimized.eqns}
        assert "solve_triangular" in ops, (mode, ops)
        assert not ops & {"solve", "solve_factors", "solve_factored", "lu_factor", "inv"}, \
            (mode, ops)


def test_the_batched_gp_agrees_with_jax_and_the_numpy_backend():
    import jax.numpy as jnp
    gp = _gp()
    X, y, thetas = gp["X"], gp["y"], gp["thetas"]

    def jax_nll(theta):
        ls, sf, sn = jnp.exp(theta[0]), jnp.exp(theta[1]), jnp.exp(theta[2])
        d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        K = sf ** 2 * jnp.exp(-0.5 * d / ls ** 2) + (sn ** 2 + 1e-6) * jnp.eye(24)
        L = jnp.linalg.cholesky(K)
        alpha = jax.scipy.linalg.cho_solve((L, True), y)
        return 0.5 * y @ alpha + jnp.log(jnp.diagonal(L)).sum()

    with jax.enable_x64(True):
        ref_v, ref_g = jax.jit(jax.vmap(jax.value_and_grad(jax_nll)))(thetas)
        ref_v, ref_g = np.asarray(ref_v), np.asarray(ref_g)
    for backend in ("numpy", "xla"):
        v, g = ft.jit(gp["restarts"], backend=backend)(thetas)
        np.testing.assert_allclose(v, ref_v, rtol=1e-10, err_msg=backend)
        np.testing.assert_allclose(g, ref_g, rtol=1e-8, atol=1e-10, err_msg=backend)
    eager_v, eager_g = gp["restarts"](thetas)
    np.testing.assert_allclose(eager_g, ref_g, rtol=1e-8, atol=1e-10)


RUNS = 50


def test_the_batched_gp_runs_fifty_times_on_xla_without_hanging():
    """The hang of issue 31 (jaxlib's batched getrf beside trsm, each waiting on the pool the
    other holds) left the process blocked at 0% CPU: the program runs in a subprocess, and a
    run that does not finish in time fails the test instead of hanging the suite."""
    script = GP_PROGRAM + textwrap.dedent(f'''
        f = ft.jit(restarts, backend="xla")
        first = None
        for i in range({RUNS}):
            v, g = f(thetas)
            first = (v, g) if first is None else first
            assert np.allclose(v, first[0], rtol=1e-12) and np.allclose(g, first[1], rtol=1e-9)
        print("runs", {RUNS})
    ''')
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=300)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the batched GP program on XLA did not finish {RUNS} runs in 300 s: "
                    "a deadlock (issue 31)")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"runs {RUNS}" in done.stdout
