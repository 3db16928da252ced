"""The end-to-end example programs run and reach their goal."""
import pathlib
import re
import subprocess
import sys

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
