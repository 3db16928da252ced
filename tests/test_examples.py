"""The end-to-end example programs run and reach their goal."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_dp_sgd_trains_to_high_accuracy():
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "dp_sgd.py"), "--epochs", "5"],
                         capture_output=True, text=True, timeout=300, check=True)
    accuracy = float(re.search(r"final test accuracy: ([0-9.]+)", run.stdout).group(1))
    assert accuracy > 0.8, run.stdout
    assert "vmap(grad)" in run.stdout
