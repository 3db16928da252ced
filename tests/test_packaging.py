"""What a packager or a type checker reads (issue 33): ft.__version__ is pyproject.toml's
version, the package ships py.typed, and the public API of tree, optim, nn.init,
testing.check_grads and the Jacobian transforms carries resolvable type hints."""
import inspect
import pathlib
import re
import typing

import pytest

import functorch_lite as ft
from functorch_lite import optim
from functorch_lite.nn import init
from functorch_lite.testing import check_grads

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text()


def test_version_is_pyprojects():
    version = re.search(r'^version = "([^"]+)"$', PYPROJECT, re.M).group(1)
    assert ft.__version__ == version


def test_py_typed_is_shipped_as_package_data():
    assert (ROOT / "functorch_lite" / "py.typed").is_file()
    data = re.search(r"^\[tool\.setuptools\.package-data\]\n(.*?)(^\[|\Z)", PYPROJECT,
                     re.M | re.S).group(1)
    assert re.search(r'^functorch_lite = \[.*"py\.typed".*\]$', data, re.M), data


ANNOTATED = ([getattr(ft.tree, n) for n in ft.tree.__all__]
             + [getattr(optim, n) for n in optim.__all__ if n != "Optimizer"]
             + [getattr(init, n) for n in init.__all__]
             + [check_grads, ft.jacfwd, ft.jacrev, ft.hessian, ft.nn.nll_loss,
                ft.nn.cross_entropy, ft.nn.mse_loss, ft.nn.stack_module_state])


@pytest.mark.parametrize("fn", ANNOTATED, ids=lambda f: f.__qualname__)
def test_public_functions_have_resolvable_type_hints(fn):
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [p.name for p in params if p.name not in hints]
    assert not missing and "return" in hints, (fn.__qualname__, missing)
