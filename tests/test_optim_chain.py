"""ft.optim's gradient transformations and schedules (issue 33) against their formulas written
out here, and against optax where it is installed (never a dependency); the torch-style
optimizers are checked step by step in test_optim.py, and here equal their chains."""
import math

import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite import optim

RNG = np.random.default_rng(7)
STEPS = 5


def _params():
    return {"w": RNG.standard_normal((3, 2)), "b": RNG.standard_normal(2)}


def _grads(params, steps=STEPS):
    return [{k: 3 * RNG.standard_normal(v.shape) for k, v in params.items()} for _ in range(steps)]


def _updates(opt, params, grads_seq):
    """The updates of each step, params moving as in training."""
    state, out = opt.init(params), []
    for g in grads_seq:
        u, state = opt.update(g, state, params)
        params = optim.apply_updates(params, u)
        out.append(u)
    return out


def _assert_same(a, b, rtol=1e-12):
    for x, y in zip(ft.tree.leaves(a), ft.tree.leaves(b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=1e-14)


def test_chain_threads_updates_and_keeps_a_tuple_of_states():
    params = _params()
    grads = _grads(params)
    lr, b1, b2, eps, wd, max_norm = 0.03, 0.8, 0.95, 1e-7, 0.1, 2.0
    opt = optim.chain(optim.clip_by_global_norm(max_norm), optim.scale_by_adam(b1, b2, eps),
                      optim.add_decayed_weights(wd), optim.scale_by_learning_rate(lr))
    state = opt.init(params)
    assert isinstance(state, tuple) and len(state) == 4 and state[1]["count"] == 0
    p, m, v = dict(params), {k: 0 * x for k, x in params.items()}, {k: 0 * x for k, x in
                                                                     params.items()}
    got_p = params
    for t, g in enumerate(grads, start=1):
        u, state = opt.update(g, state, got_p)
        got_p = optim.apply_updates(got_p, u)
        norm = math.sqrt(sum(np.sum(x ** 2) for x in g.values()))
        for k in p:                                          # the formulas, by hand
            gk = g[k] * min(1.0, max_norm / norm)
            m[k] = b1 * m[k] + (1 - b1) * gk
            v[k] = b2 * v[k] + (1 - b2) * gk ** 2
            step = (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + eps)
            p[k] = p[k] - lr * (step + wd * p[k])
        _assert_same(got_p, p)
    assert state[1]["count"] == STEPS


def test_the_named_optimizers_are_their_chains():
    params = _params()
    grads = _grads(params)
    pairs = [
        (optim.sgd(0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
         optim.chain(optim.add_decayed_weights(0.01), optim.trace(0.9, nesterov=True),
                     optim.scale(-0.1))),
        (optim.adam(0.01, weight_decay=0.1),
         optim.chain(optim.add_decayed_weights(0.1), optim.scale_by_adam(),
                     optim.scale_by_learning_rate(0.01))),
        (optim.adamw(0.01, weight_decay=0.05),
         optim.chain(optim.scale_by_adam(), optim.add_decayed_weights(0.05),
                     optim.scale_by_learning_rate(0.01))),
    ]
    for named, chained in pairs:
        for a, b in zip(_updates(named, params, grads), _updates(chained, params, grads)):
            _assert_same(a, b, rtol=0)


def test_scale_by_adam_eps_root_and_a_schedule_as_learning_rate():
    g = {"w": np.array([0.5, -2.0])}
    t = optim.scale_by_adam(b1=0.5, b2=0.5, eps=0.0, eps_root=1.0)
    u, _ = t.update(g, t.init(g))
    np.testing.assert_allclose(u["w"], g["w"] / np.sqrt(g["w"] ** 2 + 1.0))
    lr = optim.exponential_decay(0.1, transition_steps=1, decay_rate=0.5)
    opt = optim.sgd(lr)
    state = opt.init(g)
    for step in range(3):
        u, state = opt.update(g, state)
        np.testing.assert_allclose(u["w"], -0.1 * 0.5 ** step * g["w"])


def _schedule_cases():
    return {
        "constant": (optim.constant_schedule(0.3), lambda s: 0.3),
        "linear": (optim.linear_schedule(1.0, 0.1, 10, transition_begin=3),
                   lambda s: 1.0 + (0.1 - 1.0) * min(max(s - 3, 0), 10) / 10),
        "exponential": (optim.exponential_decay(2.0, 4, 0.5, transition_begin=2),
                        lambda s: 2.0 if s <= 2 else 2.0 * 0.5 ** ((s - 2) / 4)),
        "exponential staircase end": (
            optim.exponential_decay(2.0, 4, 0.5, staircase=True, end_value=0.3),
            lambda s: max(2.0 * 0.5 ** (s // 4), 0.3)),
        "cosine": (optim.cosine_decay_schedule(1.5, 20, alpha=0.1, exponent=2.0),
                   lambda s: 1.5 * (0.9 * (0.5 * (1 + math.cos(math.pi * min(s, 20) / 20))) ** 2
                                    + 0.1)),
        "warmup cosine": (
            optim.warmup_cosine_decay_schedule(0.0, 1.0, 5, 25, end_value=0.2),
            lambda s: s / 5 if s < 5 else 0.2 + 0.8 * 0.5 * (
                1 + math.cos(math.pi * min(s - 5, 20) / 20))),
        "piecewise": (optim.piecewise_constant_schedule(1.0, {10: 0.5, 3: 0.1}),
                      lambda s: 1.0 * (0.1 if s >= 3 else 1) * (0.5 if s >= 10 else 1)),
    }


@pytest.mark.parametrize("name", list(_schedule_cases()))
def test_schedules_match_their_formulas_eagerly_and_under_jit(name):
    schedule, formula = _schedule_cases()[name]
    jitted = ft.jit(lambda s: schedule(s) * np.ones(()))
    for step in range(32):
        assert float(schedule(step)) == pytest.approx(formula(step), rel=1e-12, abs=1e-15), step
        assert float(jitted(np.asarray(step))) == pytest.approx(formula(step), rel=1e-12,
                                                                abs=1e-15), step


def test_clip_by_global_norm_as_a_transformation_and_at_once_agree():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]], np.float32)}
    clip = optim.clip_by_global_norm(1.0)
    u, state = clip.update(g, clip.init(g))
    _assert_same(u, optim.clip_by_global_norm(g, 1.0), rtol=0)
    np.testing.assert_allclose(u["a"], [0.6, 0.0])
    assert u["b"].dtype == np.float32 and state == {}
    by_keyword = optim.clip_by_global_norm(max_norm=1.0)           # optax's keyword spelling
    _assert_same(by_keyword.update(g, by_keyword.init(g))[0], u, rtol=0)
    with pytest.raises(TypeError, match="needs max_norm"):
        optim.clip_by_global_norm()


def test_a_chained_training_step_jits_and_vmaps():
    params = {"w": np.zeros(3)}
    target = np.array([1.0, -2.0, 0.5])
    opt = optim.chain(optim.clip_by_global_norm(10.0), optim.scale_by_adam(),
                      optim.scale_by_learning_rate(optim.cosine_decay_schedule(0.1, 200)))

    def step(params, state):
        g = ft.grad(lambda p: np.sum((p["w"] - target) ** 2))(params)
        u, state = opt.update(g, state, params)
        return optim.apply_updates(params, u), state
    jitted = ft.jit(step)
    state, eager_p, eager_s = opt.init(params), params, opt.init(params)
    for _ in range(150):
        params, state = jitted(params, state)
        eager_p, eager_s = step(eager_p, eager_s)
    np.testing.assert_allclose(params["w"], eager_p["w"], rtol=1e-12)
    np.testing.assert_allclose(params["w"], target, atol=1e-2)
    starts = {"w": RNG.standard_normal((4, 3))}              # an ensemble of 4 starts
    ensemble = ft.vmap(lambda p: step(p, opt.init(p))[0])(starts)
    for i in range(4):
        one = {"w": starts["w"][i]}
        np.testing.assert_allclose(ensemble["w"][i], step(one, opt.init(one))[0]["w"],
                                   rtol=1e-12)


# -- against optax, where installed ----------------------------------------------------------

def _optax_pairs(optax):
    lr = 0.02
    return [
        ("sgd momentum", optim.sgd(lr, momentum=0.9), optax.sgd(lr, momentum=0.9)),
        ("sgd nesterov", optim.sgd(lr, momentum=0.8, nesterov=True),
         optax.sgd(lr, momentum=0.8, nesterov=True)),
        ("adam", optim.adam(lr, b1=0.8, b2=0.9, eps=1e-6), optax.adam(lr, b1=0.8, b2=0.9,
                                                                      eps=1e-6)),
        ("adamw", optim.adamw(lr, weight_decay=0.1), optax.adamw(lr, weight_decay=0.1)),
        ("chain", optim.chain(optim.clip_by_global_norm(1.0), optim.scale_by_adam(eps_root=1e-8),
                              optim.add_decayed_weights(1e-3),
                              optim.scale_by_learning_rate(
                                  optim.warmup_cosine_decay_schedule(0.0, lr, 2, 6))),
         optax.chain(optax.clip_by_global_norm(1.0), optax.scale_by_adam(eps_root=1e-8),
                     optax.add_decayed_weights(1e-3),
                     optax.scale_by_learning_rate(
                         optax.warmup_cosine_decay_schedule(0.0, lr, 2, 6)))),
    ]


def test_updates_match_optax():
    optax = pytest.importorskip("optax")
    import jax
    params = _params()
    grads = _grads(params, steps=6)
    with jax.enable_x64(True):                         # float64, for this test only
        for name, ours, theirs in _optax_pairs(optax):
            theirs_state, theirs_update = theirs.init(params), jax.jit(theirs.update)
            ours_state, p = ours.init(params), params
            for step, g in enumerate(grads):
                u, ours_state = ours.update(g, ours_state, p)
                v, theirs_state = theirs_update(g, theirs_state, p)
                for k in p:
                    # optax evaluates its schedules in float32: the chain's rate agrees to 1e-7
                    rtol = 1e-6 if name == "chain" else 1e-10
                    np.testing.assert_allclose(u[k], np.asarray(v[k]), rtol=rtol, atol=1e-14,
                                               err_msg=f"{name}, step {step}, {k}")
                p = optim.apply_updates(p, u)


@pytest.mark.parametrize("name", ["linear", "exponential", "exponential staircase end",
                                  "cosine", "warmup cosine", "piecewise"])
def test_schedules_match_optax(name):
    optax = pytest.importorskip("optax")
    theirs = {
        "linear": optax.linear_schedule(1.0, 0.1, 10, transition_begin=3),
        "exponential": optax.exponential_decay(2.0, 4, 0.5, transition_begin=2),
        "exponential staircase end": optax.exponential_decay(2.0, 4, 0.5, staircase=True,
                                                             end_value=0.3),
        "cosine": optax.cosine_decay_schedule(1.5, 20, alpha=0.1, exponent=2.0),
        "warmup cosine": optax.warmup_cosine_decay_schedule(0.0, 1.0, 5, 25, end_value=0.2),
        "piecewise": optax.piecewise_constant_schedule(1.0, {10: 0.5, 3: 0.1}),
    }[name]
    ours = _schedule_cases()[name][0]
    for step in range(32):
        assert float(ours(step)) == pytest.approx(float(theirs(step)), rel=1e-6), step
