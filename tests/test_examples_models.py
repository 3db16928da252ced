"""The ensemble-with-dropout and transformer example programs run and reach their goal (kept
apart from test_examples.py, which the CNN demo extends)."""
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _run(script, *args):
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args],
                         capture_output=True, text=True, timeout=300, check=True)
    return run.stdout


def test_ensemble_with_dropout_trains_every_member():
    pytest.importorskip("sklearn")
    out = _run("ensemble_dropout.py", "--epochs", "4", "--members", "4")
    members = [float(a) for a in re.search(r"member test accuracies: (.*)", out).group(1).split()]
    assert len(members) == 4 and min(members) > 0.85, out
    ensemble = float(re.search(r"final ensemble test accuracy: ([0-9.]+)", out).group(1))
    assert ensemble > 0.9, out


def test_transformer_per_example_dp_sgd_learns_the_task():
    out = _run("transformer_per_example.py", "--steps", "200")
    accuracy = float(re.search(r"final test accuracy: ([0-9.]+)", out).group(1))
    assert accuracy > 0.8, out
    assert "vmap(grad)" in out
