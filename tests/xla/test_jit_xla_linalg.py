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


def _no_host_warning(fn, *args):
    """fn jitted on XLA, called twice; it must compile with no host callback."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.PerformanceWarning)
        f = ft.jit(fn, backend="xla")
        f(*args)
        out = f(*args)
    graph = ft.make_graph(fn, backend="xla")(*args)
    assert graph.host == [] and "callback" not in graph.source
    return out


@pytest.mark.parametrize("shape", [(4, 4), (3, 4, 4)])
def test_solve_and_its_derivatives_stay_in_xla(shape):
    """np.linalg.solve's factor-once path (solve_factors, solve_factored) and det's adjugate
    are XLA's own LU and SVD: no callback, the NumPy backend's results."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=shape) + 4 * np.eye(4)
    b = rng.normal(size=shape[:-1])

    def loss(a, b):
        x = fnp.linalg.solve(a, b[..., None])
        return (x ** 2).sum() + fnp.linalg.det(a).sum()
    fn = ft.grad(loss, argnums=(0, 1))
    got = _no_host_warning(fn, a, b)
    want = ft.jit(fn, backend="numpy")(a, b)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    hess = ft.jacfwd(ft.grad(lambda a: loss(a, b)))
    np.testing.assert_allclose(_no_host_warning(hess, a), ft.jit(hess, backend="numpy")(a),
                               rtol=1e-9, atol=1e-10)


def test_a_singular_matrix_det_gradient_and_solve_error_as_numpy():
    """det's gradient at singular matrices (rank n-1: adj is rank one; rank n-2: zero) takes
    the SVD form inside XLA, equal to NumPy's; solve of a singular matrix raises NumPy's
    LinAlgError (the flagged call re-runs on NumPy)."""
    rank2 = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    rank1 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0])
    stack = np.stack([rank2, rank1, np.eye(3) * 2.0])
    fn = ft.grad(lambda a: fnp.linalg.det(a).sum())
    np.testing.assert_allclose(_no_host_warning(fn, stack), ft.jit(fn, backend="numpy")(stack),
                               rtol=1e-12, atol=1e-12)
    adj2 = np.linalg.det(rank2 + 1e-7 * np.eye(3)) * np.linalg.inv(rank2 + 1e-7 * np.eye(3)).T
    np.testing.assert_allclose(_no_host_warning(fn, stack)[0], adj2, atol=1e-5)
    solve = ft.jit(lambda a, b: fnp.linalg.solve(a, b), backend="xla")
    solve(np.eye(3), np.ones(3))
    with pytest.raises(np.linalg.LinAlgError):
        solve(rank2 * np.array([1.0, 1.0, 0.0])[:, None], np.ones(3))


def test_a_host_callback_warns_and_make_graph_shows_it():
    """An op XLA cannot run (eig's LAPACK-chosen vector signs) or one defined outside the
    library runs on the host: compiling warns once, naming it and why, and make_graph lists
    the equation."""
    double = ft.defop("i31_double", lambda xp, x: 2 * x)
    a = np.array([[2.0, 1.0], [0.5, 3.0]])

    def fn(a):
        w, v = fnp.linalg.eig(a)
        return double(fnp.real(w)).sum() + a.sum()
    f = ft.jit(fn, backend="xla")
    with pytest.warns(ft.PerformanceWarning, match=r"eig.*i31_double|i31_double.*eig") as rec:
        out = f(a)
    assert len([w for w in rec if issubclass(w.category, ft.PerformanceWarning)]) == 1
    assert "LAPACK" in str(rec[0].message) and "outside the library" in str(rec[0].message)
    np.testing.assert_allclose(out, 2 * np.linalg.eigvals(a).real.sum() + a.sum())
    graph = ft.make_graph(fn, backend="xla")(a)
    assert [e.op.name for e, _ in graph.host] == ["eig", "i31_double"]
    text = str(graph)
    assert "on the host, outside XLA (2)" in text and "= eig v" in text
    assert ft.make_graph(fn)(a).host == []   # the NumPy backend has no callbacks to show
