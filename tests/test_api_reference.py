"""Every public name has a docstring and an entry in the API reference (docs/reference/*.md).

An entry is a mkdocstrings block `::: module.name` (or `::: defining_module.name` for a name
that a subpackage shadows, as ft.jit); the NumPy mirrors (functorch_lite.numpy, .linalg, .fft)
may instead be rows of the generated table of supported functions (docs/functions.md). The
examples (`>>>`) in the docstrings run as doctests. The built site (when MkDocs is installed:
the docs extra) shows each entry's signature and summary, and no line of source.
"""
import doctest
import importlib
import importlib.util
import inspect
import os
import pathlib
import re
import subprocess
import sys
from types import SimpleNamespace

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


EXTRAS = {"functorch_lite.dask"}   # modules of an optional extra: checked where it is installed


def public_names():
    for module in MODULES:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            if module in EXTRAS:
                continue
            raise
        for name in mod.__all__:
            if name not in NAMESPACES:
                yield module, name, getattr(mod, name)


NAMES = list(public_names())


def entry_paths(module, name, obj):
    """The paths a reference entry may name the object by: its public one, or where it is
    defined (ft.jit is documented as functorch_lite.jit.api.jit: the jit subpackage shadows it)."""
    paths = [f"{module}.{name}"]
    if getattr(obj, "__module__", None) and getattr(obj, "__qualname__", None) == name:
        paths.append(f"{obj.__module__}.{name}")
    return paths


@pytest.mark.parametrize("module,name,obj", NAMES, ids=[f"{m}.{n}" for m, n, _ in NAMES])
def test_public_name_is_documented(module, name, obj):
    if inspect.isfunction(obj) or inspect.isclass(obj) or callable(obj):
        assert inspect.getdoc(obj), f"{module}.{name} has no docstring"
    in_reference = any(f"::: {path}\n" in REFERENCE + "\n" for path in entry_paths(module, name, obj))
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


# -- the built site --------------------------------------------------------------------------

def _load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The documentation site, built once (not --strict: the tests below say what is wrong)."""
    for package in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(package, reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-d", str(out)],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    (out / "build.log").write_text(run.stdout + run.stderr)
    return out


def _summary(obj):
    """The docstring's first paragraph, as the page shows it (one line, no markup)."""
    first = inspect.getdoc(obj).split("\n\n")[0]
    return " ".join(re.sub(r"`", "", first).split())


def test_built_reference_shows_every_signature_and_summary(site):
    hooks = _load_hooks()
    entries = {}
    for page in (site / "reference").rglob("*.html"):
        for name, kind, signature, summary in hooks.reference_entries(page.read_text()):
            entries.setdefault(name, (kind, signature, summary))
    wrong = []
    for module, name, obj in NAMES:
        found = [entries[p] for p in entry_paths(module, name, obj)[::-1] if p in entries]
        if not found:
            assert module in TABLE_PREFIX, f"{module}.{name} is not in the built reference"
            continue
        kind, signature, summary = found[0]
        if (inspect.isfunction(obj) or not inspect.isclass(obj) and callable(obj)) and not (
                signature and signature.startswith(f"{name}(")):
            wrong.append(f"{module}.{name}: signature {signature!r}")
        if not summary or callable(obj) and not isinstance(obj, SimpleNamespace) and (
                " ".join(summary.split()) != _summary(obj)):
            wrong.append(f"{module}.{name}: summary {summary!r}, docstring {_summary(obj)!r}")
    assert not wrong, "\n".join(wrong)


def test_built_reference_shows_no_source(site):
    assert _load_hooks().rendering_problems(site) == []


def test_built_site_has_no_warnings(site):
    """Link validation (mkdocs.yml `validation:`) warns on a link MkDocs cannot resolve, such as
    `funclist[i](x)` read as a link; --strict makes every warning fatal."""
    assert "WARNING" not in (site / "build.log").read_text()


def test_built_site_names_the_version(site):
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert f"functorch_lite {version.group(1)}" in (site / "index.html").read_text()


def test_rendering_check_flags_an_op_shown_as_its_assignment(tmp_path):
    """What the reference showed for scipy.special.erf before it was read at run time."""
    page = tmp_path / "reference" / "scipy" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(
        '<div class="doc doc-object doc-attribute">\n'
        '<h3 id="functorch_lite.scipy.special.erf" class="doc doc-heading">erf</h3>\n'
        '<div class="doc-signature highlight"><pre><code>erf = _special_op(&#39;erf&#39;, '
        '&quot;The error function\\n\\n&quot;)</code></pre></div>\n'
        '<div class="doc doc-contents first">\n</div></div>\n'
        '<div class="doc doc-object doc-function">\n'
        '<h2 id="functorch_lite.vmap" class="doc doc-heading">vmap</h2>\n'
        '<div class="doc-signature highlight"><pre><code>vmap(func, in_dims=_MISSING)</code>'
        '</pre></div>\n<div class="doc doc-contents first"><p>Vectorize.</p></div></div>\n')
    problems = _load_hooks().rendering_problems(tmp_path)
    assert any("erf shows no summary" in p for p in problems), problems
    assert any("erf shows source" in p for p in problems), problems
    assert any("vmap shows source" in p for p in problems), problems
