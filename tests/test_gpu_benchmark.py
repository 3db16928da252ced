"""benchmarks/gpu.py: without a GPU it says so in one line and exits 0; its workloads and its
row code (checks against the hand-written version, synchronised interleaved timing) run on
NumPy and on device_sim, the CPU stand-in for CuPy, so the code of the GPU table runs in CI."""
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite.testing import device_sim

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import gpu
finally:
    sys.path.pop(0)


@pytest.fixture(autouse=True)
def registered():
    device_sim.register()


def test_without_a_gpu_it_says_so_and_exits_0():
    """CUDA_VISIBLE_DEVICES="" hides any GPU, so this is the no-GPU path on every machine."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu.py")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu.py: no GPU table: CuPy is "), run.stdout
    assert "functorch-lite[gpu]" in lines[0] and "functorch-lite[gpu-cuda13]" in lines[0]


def small_workloads():
    rng = np.random.default_rng(0)
    return [gpu.per_example_workload(rng, (6, 5, 3), 4),
            gpu.per_example_workload(rng, (6, 5, 4, 3), 3),
            gpu.hessian_workload(rng, 7), gpu.tiny_workload(rng, (8, 2))]


def leaves(tree, xp):
    return [leaf.get() if xp is device_sim else leaf for leaf in ft.tree.leaves(tree)]


@pytest.mark.parametrize("work", small_workloads(), ids=lambda w: w.title)
def test_hand_written_eager_and_jit_agree_on_numpy_and_device_sim(work):
    want = leaves(work.hand(np, *work.inputs), np)
    for xp in (np, device_sim):
        args = gpu.to_module(work.inputs, xp)
        for result in (work.hand(xp, *args), work.transform(*args), ft.jit(work.transform)(*args)):
            assert all(isinstance(leaf, xp.ndarray) for leaf in ft.tree.leaves(result))
            for got, w in zip(leaves(result, xp), want, strict=True):
                np.testing.assert_allclose(got.reshape(w.shape), w, rtol=1e-5, atol=1e-6)


def test_write_floor_counts_every_parameter():
    work = gpu.per_example_workload(np.random.default_rng(0), (6, 5, 3), 4)
    assert work.floor_bytes == 4 * (6 * 5 + 5 + 5 * 3 + 3) * 4


class SimCupy:
    """device_sim with the parts of CuPy's device API the table uses."""
    cuda = types.SimpleNamespace(Device=lambda: types.SimpleNamespace(synchronize=lambda: None))

    def get_default_memory_pool(self):
        return types.SimpleNamespace(free_all_blocks=lambda: None)

    def __getattr__(self, name):
        return getattr(device_sim, name)


@pytest.mark.parametrize("work", small_workloads()[::2], ids=lambda w: w.title)
def test_a_table_row_on_device_sim(work):
    line, notes = gpu.table_row(SimCupy(), None, None, work, repeats=2, bandwidth=3e12)
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[0] == work.title and notes == []
    assert all(float(c.split()[0]) > 0 for c in cells[1:4])        # hand, eager, ft.jit timed
    assert cells[4:6] == ["-", "-"]                                # no torch, no JAX
    assert (cells[6] == "-") == (work.floor_bytes is None)


def test_a_wrong_contender_is_reported_not_timed():
    work = small_workloads()[-1]._replace(transform=ft.vmap(ft.grad(lambda v: (v * v).sum())))
    line, notes = gpu.table_row(SimCupy(), None, None, work, repeats=1, bandwidth=3e12)
    assert line.split("|")[3:5] == [" - ", " - "] and len(notes) == 2
    assert "eager differs from hand-written CuPy" in notes[0]
