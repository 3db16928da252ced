"""benchmarks/xla_models.py runs every row (tiny batches, one repeat) and its ft.jit xla
columns agree with jax.jit: the rows import the JAX models of other benchmarks (dp_clipping's
DP step), which can change under them."""
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("jax", reason="the xla columns need JAX (pip install -e '.[xla]')")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_row_runs_and_agrees_with_jax():
    run = subprocess.run([sys.executable, "xla_models.py", "--batches", "2", "--repeats", "1"],
                         cwd=ROOT / "benchmarks", capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = dict(re.findall(r"^(\S+)\s+B=2 .*max rel diff ([\d.e+-]+)$", run.stdout, re.M))
    assert set(rows) == {"mlp", "cnn-pool", "cnn", "attention", "dp"}, run.stdout
    assert all(float(d) < 1e-4 for d in rows.values()), rows
