"""Every public name has a docstring and an entry in the API reference (docs/reference/*.md).

An entry is a mkdocstrings block `::: module.name`; the NumPy mirrors (functorch_lite.numpy,
.linalg, .fft) may instead be rows of the generated table of supported functions
(docs/functions.md). The examples (`>>>`) in the docstrings run as doctests.
"""
import doctest
import importlib
import inspect
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = ["functorch_lite", "functorch_lite.numpy", "functorch_lite.numpy.linalg",
           "functorch_lite.numpy.fft", "functorch_lite.nn", "functorch_lite.random",
           "functorch_lite.optim", "functorch_lite.tree", "functorch_lite.scipy.special",
           "functorch_lite.scipy.linalg", "functorch_lite.scipy.stats",
           "functorch_lite.scipy.sparse.linalg", "functorch_lite.testing",
           "functorch_lite.dask", "functorch_lite.lax"]
NAMESPACES = {"numpy", "nn", "tree", "random", "optim", "special", "linalg", "stats", "lax"}
REFERENCE = "\n".join(p.read_text() for p in sorted((ROOT / "docs" / "reference").glob("*.md")))
FUNCTIONS = (ROOT / "docs" / "functions.md").read_text()
TABLE_PREFIX = {"functorch_lite.numpy": "", "functorch_lite.numpy.linalg": "linalg.",
                "functorch_lite.numpy.fft": "fft."}


def public_names():
    for module in MODULES:
        mod = importlib.import_module(module)
        for name in mod.__all__:
            if name not in NAMESPACES:
                yield module, name, getattr(mod, name)


NAMES = list(public_names())


@pytest.mark.parametrize("module,name,obj", NAMES, ids=[f"{m}.{n}" for m, n, _ in NAMES])
def test_public_name_is_documented(module, name, obj):
    if inspect.isfunction(obj) or inspect.isclass(obj) or callable(obj):
        assert inspect.getdoc(obj), f"{module}.{name} has no docstring"
    in_reference = f"::: {module}.{name}\n" in REFERENCE + "\n"
    prefix = TABLE_PREFIX.get(module)
    in_table = prefix is not None and f"| `{prefix}{name}` |" in FUNCTIONS
    assert in_reference or in_table, (
        f"{module}.{name} has no entry in docs/reference/*.md (add '::: {module}.{name}')")


WITH_EXAMPLES = [v for v in NAMES if ">>>" in (inspect.getdoc(v[2]) or "")]


@pytest.mark.parametrize("module,name,obj", WITH_EXAMPLES,
                         ids=[f"{m}.{n}" for m, n, _ in WITH_EXAMPLES])
def test_docstring_examples_run(module, name, obj):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(obj, f"{module}.{name}", globs={}):
        runner.run(test)
    assert runner.failures == 0, f"the example in {module}.{name}'s docstring fails"


def test_every_module_has_a_reference_page():
    for module in MODULES:
        assert f"::: {module}" in REFERENCE, module


# Every public function and class carries a runnable example; the named tuples that linalg
# functions return are documented by those functions.
OWN_API = [v for v in NAMES if callable(v[2]) and not (
    inspect.isclass(v[2]) and issubclass(v[2], tuple) and v[1].endswith("Result"))]


@pytest.mark.parametrize("module,name,obj", OWN_API, ids=[f"{m}.{n}" for m, n, _ in OWN_API])
def test_public_docstrings_have_an_example(module, name, obj):
    assert ">>>" in inspect.getdoc(obj), f"{module}.{name}'s docstring has no example"
