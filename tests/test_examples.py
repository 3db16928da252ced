"""The end-to-end example programs run and reach their goal."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_dp_sgd_mlp_trains_to_high_accuracy():
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "dp_sgd_mlp.py"),
                          "--epochs", "5"],
                         capture_output=True, text=True, timeout=300, check=True)
    accuracy = float(re.search(r"final test accuracy: ([0-9.]+)", run.stdout).group(1))
    assert accuracy > 0.8, run.stdout
    assert "vmap(grad)" in run.stdout


def test_dp_sgd_cnn_learns_the_digits_privately(tmp_path):
    """A reduced run of the demo (3 epochs): above 85% test accuracy on real digits, the privacy
    parameters reported, and the figure written."""
    pytest.importorskip("sklearn", reason="the examples extra is not installed")
    pytest.importorskip("matplotlib", reason="the examples extra is not installed")
    figure = tmp_path / "dp.png"
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "dp_sgd_cnn.py"),
                          "--epochs", "3", "--figure", str(figure)],
                         capture_output=True, text=True, timeout=300, check=True)
    accuracy = float(re.search(r"final test accuracy: ([0-9.]+)", run.stdout).group(1))
    assert accuracy > 0.85, run.stdout
    eps = float(re.search(r"privacy spent: \(([0-9.]+), 1e-05\)-DP", run.stdout).group(1))
    assert 0 < eps < 10, run.stdout
    for needle in ("noise multiplier sigma = 1.0", "clipping norm C = 1.0",
                   "sampling rate q = 64/1437"):
        assert needle in run.stdout
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_privacy_accounting():
    """Without subsampling (q = 1) the Gaussian mechanism's RDP is a / (2 sigma^2) in closed
    form; with sigma 1.1, batch 256 of 60000, 60 epochs, delta 1e-5 the bound is about 3, as
    TensorFlow Privacy's MNIST tutorial reports."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import dp_sgd_cnn
    finally:
        sys.path.pop(0)
    eps, order = dp_sgd_cnn.epsilon(1.0, 2.0, 10, 1e-5)
    closed = min(10 * a / 8 + np.log(1e5) / (a - 1) for a in range(2, 128))
    np.testing.assert_allclose(eps, closed, rtol=1e-9)
    eps, _ = dp_sgd_cnn.epsilon(256 / 60000, 1.1, 60 * 60000 // 256, 1e-5)
    assert 2.8 < eps < 3.2
