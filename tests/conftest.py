"""Shared fixtures: the array backends the generic kernel tests run on, and hypothesis profiles."""
import os

import pytest
from hypothesis import settings

from functorch_lite import backend as _backend_module

# XLA's CPU code generation at its cheapest: the legacy emitters and no LLVM optimization compile
# 3-10x faster (XLA compiles were half the suite's time). XLA's simplification passes, whose
# algebraic rewrites decide results (docs/jit.md), run as by default; what differs is how the
# optimized program is fused and turned into machine code. xla/test_jit_xla_ops.py also compiles
# one sample of every op with the default code generation; `XLA_FLAGS= pytest` runs the whole
# suite with it.
if "XLA_FLAGS" not in os.environ:
    os.environ["XLA_FLAGS"] = "--xla_cpu_use_fusion_emitters=false " \
        "--xla_backend_optimization_level=0"

# `python3 tasks.py test` (the README's command, which CI runs) and any run with CI set replay a
# fixed set of hypothesis examples (reproducible verdicts); a plain `pytest` explores new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

CUPY_REASON = "cupy and a CUDA GPU are required"


@pytest.fixture(autouse=True)
def device_backends_as_found():
    """Tests and the doc examples they run register device_sim (functorch_lite.testing); each
    test leaves the registry as it found it, since a registered device backend sends every
    level-0 op through the device check instead of the plain NumPy path later tests may watch."""
    saved = list(_backend_module._REGISTERED)
    yield
    _backend_module._REGISTERED[:] = saved


def _cupy_with_gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # not installed, no driver, no device
        return False


HAS_CUPY_GPU = _cupy_with_gpu()

# Without a GPU the "cupy" parameters are not generated at all (not collected and skipped one
# by one: about 12,000 of them, a tenth of the suite's time); the report header says so.
_CUPY = [pytest.param("cupy", id="cupy")] if HAS_CUPY_GPU else []


def pytest_report_header(config):
    return None if HAS_CUPY_GPU else f"cupy: not tested ({CUPY_REASON}; the cupy parameters " \
        "of the generic tests are not generated, device_sim stands in)"


BACKENDS = [pytest.param("numpy", id="numpy"), *_CUPY]


@pytest.fixture(params=BACKENDS)
def backend(request):
    """The array module name a test runs on: "numpy", or "cupy" when cupy imports and a CUDA
    GPU is present (not generated otherwise, see _CUPY)."""
    return request.param


@pytest.fixture
def xp(backend):
    """The array module of `backend`."""
    if backend == "cupy":
        import cupy
        return cupy
    import numpy
    return numpy


# The device backends of tests/test_device_ops.py: CuPy where a GPU is, and device_sim (the strict
# CPU stand-in for CuPy) everywhere, so the device code paths run in CI too.
DEVICE_BACKENDS = [*_CUPY, pytest.param("sim", id="sim")]


@pytest.fixture(params=DEVICE_BACKENDS)
def dxp(request):
    """The device array module of a DEVICE_BACKENDS test: cupy (with a GPU) or device_sim,
    registered (conftest restores the registry after the test)."""
    if request.param == "cupy":
        import cupy
        return cupy
    from functorch_lite.testing import device_sim
    device_sim.register()
    return device_sim
