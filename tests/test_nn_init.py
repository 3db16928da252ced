"""ft.nn.init: torch.nn.init's formulas with explicit keys, checked for shape and dtype, bounds,
and the first two moments against the formulas (within 5 standard errors of the estimate);
ft.nn.stack_module_state against ft.tree.stack and torch.func's (params, buffers) shape."""
import math

import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite.nn import init

KEY = ft.random.key(0)
N = 200_000          # draws for the moment checks


def _assert_moments(w, mean, var):
    w = np.asarray(w, np.float64).ravel()
    se_mean = math.sqrt(var / w.size)
    se_var = var * math.sqrt(2.0 / w.size) * 2      # loose enough for the uniform's kurtosis
    assert abs(w.mean() - mean) < 5 * se_mean, (w.mean(), mean)
    assert abs(w.var() - var) < 5 * se_var, (w.var(), var)


def test_fans_follow_torch_layouts():
    assert init.fans((5, 3)) == (3, 5)
    assert init.fans((16, 3, 5, 5)) == (75, 400)
    assert init.fans((8, 2, 7)) == (14, 56)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        init.fans((4,))


def test_calculate_gain_is_torchs_table():
    assert init.calculate_gain("linear") == init.calculate_gain("sigmoid") == 1.0
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="unknown nonlinearity"):
        init.calculate_gain("swish")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_family_bounds_and_moments(dtype):
    shape = (400, 500)                         # fan_in 500, fan_out 400
    cases = {
        "xavier_uniform": (init.xavier_uniform(KEY, shape, gain=2.0, dtype=dtype),
                           2.0 * math.sqrt(6 / 900)),
        "kaiming_uniform": (init.kaiming_uniform(KEY, shape, dtype=dtype),
                            math.sqrt(2 / (1 + 0.0)) * math.sqrt(3 / 500)),
        "kaiming_uniform fan_out relu": (
            init.kaiming_uniform(KEY, shape, mode="fan_out", nonlinearity="relu", dtype=dtype),
            math.sqrt(2) * math.sqrt(3 / 400)),
        "torch Linear (a=sqrt 5)": (init.kaiming_uniform(KEY, shape, a=math.sqrt(5), dtype=dtype),
                                    1 / math.sqrt(500)),
    }
    for name, (w, bound) in cases.items():
        assert w.shape == shape and w.dtype == dtype, name
        assert np.abs(w).max() <= bound * (1 + 1e-6), name
        assert np.abs(w).max() > 0.99 * bound, name          # the whole interval is used
        _assert_moments(w, 0.0, bound ** 2 / 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_family_moments(dtype):
    shape = (400, 500)
    cases = {
        "xavier_normal": (init.xavier_normal(KEY, shape, gain=0.5, dtype=dtype),
                          0.5 * math.sqrt(2 / 900)),
        "kaiming_normal": (init.kaiming_normal(KEY, shape, nonlinearity="relu", dtype=dtype),
                           math.sqrt(2) / math.sqrt(500)),
        "kaiming_normal fan_out": (init.kaiming_normal(KEY, shape, a=0.2, mode="fan_out",
                                                       dtype=dtype),
                                   math.sqrt(2 / 1.04) / math.sqrt(400)),
        "normal": (init.normal(KEY, shape, mean=0.0, std=0.02, dtype=dtype), 0.02),
    }
    for name, (w, std) in cases.items():
        assert w.shape == shape and w.dtype == dtype, name
        _assert_moments(w, 0.0, std ** 2)
    w = init.normal(KEY, (N,), mean=3.0, std=2.0)
    _assert_moments(w, 3.0, 4.0)


def test_zeros_ones_uniform():
    assert init.zeros(KEY, (2, 3), np.float32).dtype == np.float32
    np.testing.assert_array_equal(init.zeros(KEY, 4), np.zeros(4))
    np.testing.assert_array_equal(init.ones(KEY, (2,)), np.ones(2))
    u = init.uniform(KEY, (N,), -3.0, 1.0)
    assert u.min() >= -3.0 and u.max() < 1.0
    _assert_moments(u, -1.0, 16 / 12)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3), (6, 6)])
def test_orthogonal_rows_or_columns_are_orthonormal(shape):
    q = init.orthogonal(KEY, shape, gain=1.5)
    assert q.shape == shape
    m = q.reshape(shape[0], -1)
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, 1.5 ** 2 * np.eye(small.shape[0]), atol=1e-12)
    # Haar: the sign fix makes the first entry's mean 0 over many draws
    firsts = ft.vmap(lambda k: init.orthogonal(k, (3, 3))[0, 0])(ft.random.split(KEY, 2000))
    assert abs(firsts.mean()) < 5 * math.sqrt(1 / 3 / 2000)


def test_linear_and_conv_use_torchs_default_bounds():
    p = init.linear(KEY, 300, 200)
    assert p["weight"].shape == (200, 300) and p["bias"].shape == (200,)
    bound = 1 / math.sqrt(300)
    for leaf in (p["weight"], p["bias"]):
        assert np.abs(leaf).max() <= bound
    _assert_moments(p["weight"], 0.0, bound ** 2 / 3)
    assert not np.allclose(p["weight"][0, :200], p["bias"])   # independent draws
    assert "bias" not in init.linear(KEY, 3, 2, bias=False)
    c = init.conv(KEY, 4, 8, (3, 3), groups=2, dtype=np.float32)
    assert c["weight"].shape == (8, 2, 3, 3) and c["weight"].dtype == np.float32
    assert np.abs(c["weight"]).max() <= 1 / math.sqrt(2 * 9) and c["bias"].shape == (8,)
    assert init.conv(KEY, 2, 4, 5)["weight"].shape == (4, 2, 5)
    with pytest.raises(ValueError, match="divisible by groups"):
        init.conv(KEY, 3, 8, 3, groups=2)


def test_an_ensemble_initializes_under_vmap_over_split_keys():
    keys = ft.random.split(KEY, 5)
    stacked = ft.vmap(lambda k: init.linear(k, 4, 3))(keys)
    assert stacked["weight"].shape == (5, 3, 4)
    for i in range(5):
        one = init.linear(keys[i], 4, 3)
        np.testing.assert_allclose(stacked["weight"][i], one["weight"])
        np.testing.assert_allclose(stacked["bias"][i], one["bias"])
    assert not np.allclose(stacked["weight"][0], stacked["weight"][1])


def test_stack_module_state_returns_params_and_buffers():
    models = [init.linear(k, 3, 2) for k in ft.random.split(KEY, 4)]
    stats = [{"running_mean": np.full(2, float(i))} for i in range(4)]
    params, buffers = ft.nn.stack_module_state(models)
    assert buffers == {}
    for name in ("weight", "bias"):
        np.testing.assert_array_equal(params[name], np.stack([m[name] for m in models]))
    params, buffers = ft.nn.stack_module_state(models, stats)
    np.testing.assert_array_equal(buffers["running_mean"][:, 0], [0, 1, 2, 3])
    x = np.ones((6, 3))
    out = ft.vmap(lambda p: ft.nn.linear(x, p["weight"], p["bias"]))(params)
    np.testing.assert_allclose(out[2], ft.nn.linear(x, models[2]["weight"], models[2]["bias"]))
    with pytest.raises(ValueError, match="4 models but 3 buffer trees"):
        ft.nn.stack_module_state(models, stats[:3])
