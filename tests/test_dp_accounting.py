"""The DP-SGD demo's privacy accounting (dp-accounting's Renyi-DP accountant, the `examples`
extra) against independent formulas: the closed form without subsampling, the classic RDP
bound of the sampled Gaussian mechanism (Mironov et al. 2019) it must not exceed, and the value
TensorFlow Privacy's MNIST tutorial reports."""
import math
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo():
    # here, not at the module's top: dp-accounting's import (SciPy's) costs each test process
    # 3 s of collection
    pytest.importorskip("dp_accounting", reason="the examples extra is not installed")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import dp_sgd_cnn
    finally:
        sys.path.pop(0)
    return dp_sgd_cnn


def classic_rdp_epsilon(q, sigma, steps, delta, orders=range(2, 128)):
    """min_a steps RDP(a) + log(1/delta) / (a - 1), RDP(a) of the sampled Gaussian at integer
    orders a by its binomial expansion."""
    best = math.inf
    for a in orders:
        terms = [math.lgamma(a + 1) - math.lgamma(k + 1) - math.lgamma(a - k + 1)
                 + ((a - k) * math.log1p(-q) if k < a else 0.0) + k * math.log(q)
                 + (k * k - k) / (2 * sigma ** 2) for k in range(a + 1) if q < 1 or k == a]
        top = max(terms)
        rdp = (top + math.log(sum(math.exp(t - top) for t in terms))) / (a - 1)
        best = min(best, steps * rdp + math.log(1 / delta) / (a - 1))
    return best


def test_no_subsampling_matches_the_closed_form(demo):
    """q = 1: RDP(a) = a / (2 sigma^2); the accountant converts with the bound of Canonne,
    Kamath and Steinke (2020): eps = RDP + log(1 - 1/a) - (log delta + log a) / (a - 1)."""
    eps, order = demo.epsilon(1.0, 2.0, 10, 1e-5)
    closed = [10 * a / 8 + math.log1p(-1 / a) - (math.log(1e-5) + math.log(a)) / (a - 1)
              for a in range(2, 128)]
    np.testing.assert_allclose(eps, min(closed), rtol=1e-9)
    assert order == 2 + int(np.argmin(closed))


def test_demo_settings_are_tighter_than_the_classic_bound(demo):
    q, steps = 64 / 1437, 15 * (1437 // 64)
    eps, _ = demo.epsilon(q, 1.0, steps, 1e-5)
    classic = classic_rdp_epsilon(q, 1.0, steps, 1e-5)
    assert 0.8 * classic < eps <= classic


def test_mnist_tutorial_value(demo):
    """sigma 1.1, batch 256 of 60000, 60 epochs, delta 1e-5: TensorFlow Privacy reports about
    3 by the classic conversion; the tighter conversion gives a little less."""
    eps, _ = demo.epsilon(256 / 60000, 1.1, 60 * 60000 // 256, 1e-5)
    assert 2.4 < eps < 3.2
    assert eps <= classic_rdp_epsilon(256 / 60000, 1.1, 60 * 60000 // 256, 1e-5)


def test_readme_states_the_demos_epsilon(demo):
    """The README's privacy claim is what the demo prints with its defaults (15 epochs of
    Poisson-sampled batches of 64 of the 1437 training digits, sigma 1.0)."""
    eps, _ = demo.epsilon(64 / 1437, 1.0, 15 * (1437 // 64), 1e-5)
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"({eps:.2f}, 1e-5)-differential privacy" in readme, eps
