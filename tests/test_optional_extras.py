"""The test suite without its optional extras: every file is collected (a file that needs an
extra skips, it does not error), as on a machine with the core install and pytest only.

The collection runs in a subprocess whose import system finds none of the extras' packages,
as if they were not installed (issue 32: test_dask.py and test_api_reference.py errored at
collection where Dask was missing)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXTRAS = ["scipy", "dask", "distributed", "cloudpickle", "jax", "jaxlib", "mkdocs",
          "matplotlib", "sklearn", "dp_accounting", "optax", "torch", "cupy"]

_WITHOUT_EXTRAS = """
import sys
hidden = set(sys.argv[1].split(","))

class Hidden:
    # a meta-path finder that finds nothing of `hidden`: as if it were not installed
    def __init__(self, finder):
        self.finder = finder
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in hidden:
            return None
        find = getattr(self.finder, "find_spec", None)
        return find(name, path, target) if find else None
    def __getattr__(self, name):
        return getattr(self.finder, name)

sys.meta_path[:] = [Hidden(f) for f in sys.meta_path]
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


def test_every_test_file_is_collected_without_the_optional_extras():
    run = subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTRAS, ",".join(EXTRAS), "--collect-only", "-q",
         "-p", "no:cacheprovider", "-p", "no:xdist", "tests"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    errors = [line for line in run.stdout.splitlines() if line.startswith("ERROR ")]
    assert run.returncode == 0 and not errors, "\n".join(errors) or run.stdout[-3000:]
