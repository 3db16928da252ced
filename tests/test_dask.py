"""The Dask bridge against in-memory vmap and grad, on Dask's threads and on a real
distributed.LocalCluster (two worker processes): chunkings, pytrees, errors, a killed worker."""
import importlib
import os
import pickle
import signal
import sys
import threading
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array")      # the dask extra: skipped, not an error, without it
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

import cloudpickle  # noqa: E402  (Dask's dependency)

import functorch_lite as ft  # noqa: E402
import functorch_lite.dask as fd  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/

WAIT = 60  # seconds: a bound on every wait for the cluster

CHUNKINGS = [(4, 4, 4, 4, 4, 4, 4, 2), (10,) * 3, (1,) * 30, (30,), (13, 1, 16)]


def mlp(params, x):
    h = np.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"]


def loss(params, x, y):
    return np.sum((mlp(params, x) - y) ** 2)


def make_data(n=30, seed=0):
    rng = np.random.default_rng(seed)
    params = {"w1": rng.standard_normal((5, 4)), "b1": rng.standard_normal(4),
              "w2": rng.standard_normal((4, 3))}
    return params, rng.standard_normal((n, 5)), rng.standard_normal((n, 3))


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit="2GB")
    client = distributed.Client(cluster, timeout=WAIT)
    client.wait_for_workers(2, timeout=WAIT)
    yield client
    client.close(timeout=WAIT)
    cluster.close(timeout=WAIT)


def assert_tree_close(a, b):
    import optree
    la, sa = optree.tree_flatten(a)
    lb, sb = optree.tree_flatten(b)
    assert sa == sb
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_vmap_of_grad_equals_in_memory(chunks):
    params, X, Y = make_data()
    per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))
    out = per_example(params, da.from_array(X, chunks=(chunks, 5)), Y)
    assert all(isinstance(v, da.Array) for v in out.values())
    assert out["w1"].chunks[0] == chunks  # one task per chunk of the batch
    assert_tree_close(dask.compute(out)[0], per_example(params, X, Y))


def test_vmap_pytree_outputs_out_dims_and_nonzero_in_dims():
    params, X, _ = make_data()
    f = ft.vmap(lambda p, x: (mlp(p, x).sum(), {"h": mlp(p, x), "c": p["b1"] * 2}),
                in_dims=(None, 1), out_dims=(0, {"h": 1, "c": None}))
    lazy = f(params, da.from_array(X.T, chunks=(5, 7)))
    assert_tree_close(dask.compute(lazy)[0], f(params, X.T))


def test_vmap_of_jacrev_per_chunk():
    params, X, _ = make_data(n=12)
    f = ft.vmap(ft.jacrev(lambda x, p: mlp(p, x)), in_dims=(0, None))
    lazy = f(da.from_array(X, chunks=5), params)
    np.testing.assert_allclose(lazy.compute(), f(X, params), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_grad_sum_equals_full_batch_gradient(chunks):
    params, X, Y = make_data()

    def full(p):
        return ft.vmap(loss, in_dims=(None, 0, 0))(p, X, Y).sum()
    value, grads = fd.value_and_grad_sum(loss, split_every=2)(
        params, da.from_array(X, chunks=(chunks, 5)), da.from_array(Y, chunks=(chunks, 3)))
    assert_tree_close(grads, ft.grad(full)(params))
    np.testing.assert_allclose(value, full(params), rtol=1e-12)
    assert all(isinstance(g, np.ndarray) for g in grads.values())


def test_grad_sum_argnums_tuple_and_mixed_inputs():
    params, X, Y = make_data()
    scale = np.array(1.5)

    def f(p, s, x, y):
        return s * loss(p, x, y)
    g = fd.grad_sum(f, argnums=(0, 1))(params, scale, da.from_array(X, chunks=7), Y)
    want = ft.grad(lambda p, s: ft.vmap(f, in_dims=(None, None, 0, 0))(p, s, X, Y).sum(),
                   argnums=(0, 1))(params, scale)
    assert_tree_close(g, want)


def test_unbatched_arguments_enter_the_graph_once():
    big = np.random.default_rng(0).standard_normal((400, 400))  # 1.28 MB
    X = da.from_array(np.ones((64, 400)), chunks=2)  # 32 tasks
    out = ft.vmap(lambda w, x: w @ x, in_dims=(None, 0))(big, X)
    size = len(cloudpickle.dumps(dict(out.__dask_graph__())))
    assert size < 3 * big.nbytes, size  # 32 copies would be over 40 MB


def test_chunk_over_memory_limit_is_a_clear_error():
    X = da.ones((100, 1000), chunks=(50, 100))
    with dask.config.set({"functorch_lite.chunk-limit": "100kB"}):
        with pytest.raises(MemoryError, match=r"rechunk\(\{0: n\}\)"):
            ft.vmap(np.sin)(X)


def test_without_dask_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.array", None)
    monkeypatch.delitem(sys.modules, "functorch_lite.dask")
    with pytest.raises(ImportError, match=r"pip install -e \"\.\[dask\]\""):
        importlib.import_module("functorch_lite.dask")
    monkeypatch.undo()
    importlib.import_module("functorch_lite.dask")


def test_grad_sum_needs_a_dask_batch():
    params, X, Y = make_data()
    with pytest.raises(TypeError, match="use ft.grad"):
        fd.grad_sum(loss)(params, X, Y)


def _message(call):
    """(type, message) of the error call() raises."""
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("fd_fn, ft_name", [(fd.grad_sum, "grad_sum"),
                                            (fd.value_and_grad_sum, "value_and_grad_sum")])
def test_grad_sum_refuses_what_grad_refuses_per_example(fd_fn, ft_name):
    """A non-scalar or integer per-example loss: ft.grad's error and message (naming the
    Dask transform), where the chunk's sum used to hide it (issue 20)."""
    params, X, Y = make_data()
    Xd = da.from_array(X, chunks=10)
    per_output = lambda p, x, y: mlp(p, x) - y                       # noqa: E731  shape (3,)
    kind, message = _message(lambda: fd_fn(per_output)(params, Xd, Y))
    ref_kind, ref_message = _message(lambda: ft.grad(per_output)(params, X[0], Y[0]))
    assert kind is ref_kind is ValueError
    assert message == ref_message.replace("grad", ft_name, 1)
    counts = lambda p, x, y: np.sum(x > 0)                            # noqa: E731  an integer
    kind, message = _message(lambda: fd_fn(counts)(params, Xd, Y))
    ref_kind, ref_message = _message(lambda: ft.grad(counts)(params, X[0], Y[0]))
    assert kind is ref_kind is TypeError
    assert message == ref_message.replace("grad", ft_name, 1)


def test_grad_sum_python_scalar_in_a_batched_position_gets_vmaps_error():
    params, X, Y = make_data()
    f = lambda p, x, y, s: loss(p, x, y) * s                          # noqa: E731
    Xd = da.from_array(X, chunks=10)
    kind, message = _message(lambda: fd.grad_sum(f)(params, Xd, Y, 0.5))
    ref = _message(lambda: ft.vmap(ft.grad(f), in_dims=(None, 0, 0, 0))(params, X, Y, 0.5))
    assert (kind, message) == ref
    assert kind is ValueError and "argument 3 is a float" in message
    # inconsistent batch sizes: vmap's message too
    assert _message(lambda: fd.grad_sum(loss)(params, Xd, Y[:-1]))[1] == _message(
        lambda: ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))(params, X, Y[:-1]))[1]
    # with in_dims None for the scalar it works, and equals the in-memory sum
    g = fd.grad_sum(f, in_dims=(None, 0, 0, None))(params, Xd, Y, 0.5)
    ref = ft.grad(lambda p: sum(f(p, X[i], Y[i], 0.5) for i in range(len(X))))(params)
    assert_tree_close(g, ref)


# -- on a real cluster ---------------------------------------------------------------------

@pytest.mark.parametrize("chunks", [(4, 4, 4, 4, 4, 4, 4, 2), (1,) * 30])
def test_cluster_results_equal_in_memory(client, chunks):
    params, X, Y = make_data()
    Xd = da.from_array(X, chunks=(chunks, 5))
    per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))
    got = client.compute(per_example(params, Xd, Y)).result(timeout=WAIT)
    assert_tree_close(got, per_example(params, X, Y))
    grads = fd.grad_sum(loss)(params, Xd, da.from_array(Y, chunks=(chunks, 3)))
    assert_tree_close(grads, ft.grad(
        lambda p: ft.vmap(loss, in_dims=(None, 0, 0))(p, X, Y).sum())(params))


def test_cluster_error_on_one_chunk_keeps_type_and_message(client):
    mats = np.stack([np.eye(3)] * 12)
    mats[7] = -np.eye(3)  # not positive definite: only its chunk fails
    with pytest.raises(Exception) as in_memory:
        ft.vmap(np.linalg.cholesky)(mats[4:8])
    lazy = ft.vmap(np.linalg.cholesky)(da.from_array(mats, chunks=4))
    with pytest.raises(type(in_memory.value)) as on_cluster:
        client.compute(lazy).result(timeout=WAIT)
    assert str(on_cluster.value) == str(in_memory.value)
    assert "positive definite" in str(on_cluster.value)


def slow_double(x):
    time.sleep(0.25)  # once per chunk: vmap runs the Python body once per batch
    return x * 2.0


def test_cluster_survives_a_killed_worker(client):
    X = np.arange(48.0).reshape(16, 3)
    future = client.compute(ft.vmap(slow_double)(da.from_array(X, chunks=1)))
    pids = client.run(os.getpid, wait=True)
    victim = sorted(pids.values())[0]
    time.sleep(0.6)  # some tasks are running or done on each worker
    os.kill(victim, signal.SIGKILL)
    np.testing.assert_array_equal(future.result(timeout=WAIT), X * 2.0)
    client.wait_for_workers(2, timeout=WAIT)  # the nanny restarted it
    assert victim not in client.run(os.getpid).values()


def test_graph_pickles_for_workers():
    params, X, Y = make_data()
    lazy = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))(params, da.from_array(X, chunks=7), Y)
    pickle.loads(cloudpickle.dumps(dict(lazy["w1"].__dask_graph__())))


def test_threads_default_scheduler_from_a_thread():
    params, X, Y = make_data()
    results = {}

    def run():
        results["g"] = fd.grad_sum(loss)(params, da.from_array(X, chunks=6), Y)
    t = threading.Thread(target=run)
    t.start()
    t.join(WAIT)
    assert_tree_close(results["g"], ft.grad(
        lambda p: ft.vmap(loss, in_dims=(None, 0, 0))(p, X, Y).sum())(params))


def test_gradient_norms_example_runs():
    import subprocess
    script = os.path.join(os.path.dirname(__file__), "..", "examples", "dask_gradient_norms.py")
    run = subprocess.run([sys.executable, script, "--examples", "1200", "--chunk", "300"],
                         capture_output=True, text=True, timeout=300, check=True)
    assert "2 worker(s): 1200 examples" in run.stdout, run.stdout
    assert "checked against in-memory grad" in run.stdout
