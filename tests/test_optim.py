"""functorch_lite.optim against the update formulas, step by step in float64 (written out here
as torch.optim documents them), plus the clipping helpers and pure-function behaviour."""
import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite import optim

RNG = np.random.default_rng(0)
STEPS = 4


def _params():
    return {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2)}


def _grads_sequence(params):
    return [{k: RNG.standard_normal(v.shape) for k, v in params.items()} for _ in range(STEPS)]


def _run(opt, params, grads_seq):
    state = opt.init(params)
    history = []
    for g in grads_seq:
        updates, state = opt.update(g, state, params)
        params = optim.apply_updates(params, updates)
        history.append(params)
    return history


def _sgd_reference(p, grads_seq, lr, momentum, nesterov, wd):
    p, buf, out = p.copy(), None, []
    for g in grads_seq:
        g = g + wd * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return out


def _adam_reference(p, grads_seq, lr, b1, b2, eps, wd, decoupled):
    p, m, v, out = p.copy(), np.zeros_like(p), np.zeros_like(p), []
    for t, g in enumerate(grads_seq, start=1):
        if decoupled:
            p = p - lr * wd * p
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(p)
    return out


def _check(history, reference_fn, params, grads_seq):
    for name in params:
        ref = reference_fn(params[name], [g[name] for g in grads_seq])
        for step, (got, want) in enumerate(zip(history, ref)):
            np.testing.assert_allclose(got[name], want, rtol=1e-12, atol=1e-14,
                                       err_msg=f"{name}, step {step}")


@pytest.mark.parametrize("momentum, nesterov, wd", [(0.0, False, 0.0), (0.9, False, 0.0),
                                                    (0.9, True, 0.1), (0.5, False, 0.01)])
def test_sgd_matches_the_formula(momentum, nesterov, wd):
    params = _params()
    grads_seq = _grads_sequence(params)
    opt = optim.sgd(0.1, momentum=momentum, nesterov=nesterov, weight_decay=wd)
    _check(_run(opt, params, grads_seq),
           lambda p, gs: _sgd_reference(p, gs, 0.1, momentum, nesterov, wd), params, grads_seq)


@pytest.mark.parametrize("name, wd", [("adam", 0.0), ("adam", 0.1), ("adamw", 0.01),
                                      ("adamw", 0.3)])
def test_adam_and_adamw_match_the_formulas(name, wd):
    params = _params()
    grads_seq = _grads_sequence(params)
    opt = getattr(optim, name)(0.05, b1=0.8, b2=0.99, eps=1e-6, weight_decay=wd)
    _check(_run(opt, params, grads_seq),
           lambda p, gs: _adam_reference(p, gs, 0.05, 0.8, 0.99, 1e-6, wd, name == "adamw"),
           params, grads_seq)


def test_updates_are_pure_and_keep_dtypes():
    params = {"w": np.ones(3, np.float32)}
    opt = optim.adam(0.1)
    state = opt.init(params)
    snapshot = {k: {"w": np.copy(v["w"])} for k, v in state.items() if k != "count"}
    grads = {"w": np.full(3, 2.0, np.float32)}
    updates, new_state = opt.update(grads, state, params)
    for k in snapshot:
        np.testing.assert_array_equal(state[k]["w"], snapshot[k]["w"])
    assert state["count"] == 0 and new_state["count"] == 1
    assert optim.apply_updates(params, updates)["w"].dtype == np.float32
    with pytest.raises(ValueError, match="weight_decay needs the params"):
        optim.sgd(0.1, weight_decay=0.1).update(grads, optim.sgd(0.1).init(params))


def test_training_a_least_squares_problem_converges():
    a, x_true = RNG.standard_normal((20, 3)), RNG.standard_normal(3)
    y = a @ x_true
    loss = lambda p: np.mean((a @ p["x"] - y) ** 2)  # noqa: E731
    for opt in [optim.sgd(0.1, momentum=0.9), optim.adam(0.1), optim.adamw(0.1, weight_decay=0)]:
        params = {"x": np.zeros(3)}
        state = opt.init(params)
        for _ in range(300):
            updates, state = opt.update(ft.grad(loss)(params), state, params)
            params = optim.apply_updates(params, updates)
        np.testing.assert_allclose(params["x"], x_true, atol=1e-3)


def test_clip_by_global_norm():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}   # global norm 5
    np.testing.assert_allclose(optim.global_norm(g), 5.0)
    clipped = optim.clip_by_global_norm(g, 1.0)
    np.testing.assert_allclose(clipped["a"], [0.6, 0.0])
    np.testing.assert_allclose(clipped["b"], [[0.8]])
    same = optim.clip_by_global_norm(g, 10.0)
    np.testing.assert_array_equal(same["a"], g["a"])
    zero = optim.clip_by_global_norm({"a": np.zeros(2)}, 1.0)
    np.testing.assert_array_equal(zero["a"], 0.0)


def test_clip_per_example():
    per_example = {"w": RNG.standard_normal((5, 3, 2)) * np.arange(1, 6)[:, None, None],
                   "b": RNG.standard_normal((5, 2)).astype(np.float32)}
    clipped = optim.clip_per_example(per_example, 1.5)
    assert clipped["b"].dtype == np.float32
    for i in range(5):
        norm = np.sqrt(np.sum(per_example["w"][i] ** 2) + np.sum(per_example["b"][i] ** 2.0))
        scale = min(1.0, 1.5 / norm)
        np.testing.assert_allclose(clipped["w"][i], per_example["w"][i] * scale, rtol=1e-12)
        np.testing.assert_allclose(clipped["b"][i], per_example["b"][i] * scale, rtol=1e-6)
        new_norm = np.sqrt(np.sum(clipped["w"][i] ** 2) + np.sum(clipped["b"][i] ** 2.0))
        assert new_norm <= 1.5 + 1e-6
