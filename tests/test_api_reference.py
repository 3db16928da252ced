"""Every public name has a docstring and an entry in the API reference (docs/reference/*.md).

An entry is a mkdocstrings block `::: module.name` (or `::: defining_module.name`); the NumPy
mirrors (functorch_lite.numpy, .linalg, .fft) may instead be rows of the generated table of
supported functions (docs/functions.md). The examples (`>>>`) in the docstrings run as doctests. The built site (when MkDocs is installed:
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
           "functorch_lite.numpy.fft", "functorch_lite.nn", "functorch_lite.nn.init",
           "functorch_lite.random",
           "functorch_lite.optim", "functorch_lite.tree", "functorch_lite.scipy.special",
           "functorch_lite.scipy.linalg", "functorch_lite.scipy.stats",
           "functorch_lite.scipy.sparse.linalg", "functorch_lite.testing",
           "functorch_lite.dask", "functorch_lite.lax", "functorch_lite.dp"]
# functorch_lite.dask needs its extra (the test extra installs it): checked where Dask is
INSTALLED = [m for m in MODULES if m != "functorch_lite.dask" or importlib.util.find_spec("dask")]
NAMESPACES = {"numpy", "nn", "tree", "random", "optim", "dp", "special", "linalg", "stats", "lax"}
REFERENCE = "\n".join(p.read_text() for p in sorted((ROOT / "docs" / "reference").glob("*.md")))
FUNCTIONS = (ROOT / "docs" / "functions.md").read_text()
TABLE_PREFIX = {"functorch_lite.numpy": "", "functorch_lite.numpy.linalg": "linalg.",
                "functorch_lite.numpy.fft": "fft."}



def public_names():
    for module in INSTALLED:
        mod = importlib.import_module(module)
        for name in mod.__all__:
            if name not in NAMESPACES:
                yield module, name, getattr(mod, name)


NAMES = list(public_names())


def entry_paths(module, name, obj):
    """The paths a reference entry may name the object by: its public one, or where it is
    defined."""
    paths = [f"{module}.{name}"]
    if getattr(obj, "__module__", None) and getattr(obj, "__qualname__", None) == name:
        paths.append(f"{obj.__module__}.{name}")
    return paths


def _each_name(module, names, check):
    """check(name, obj) for each public name of `module` in `names`; every failure listed at
    once (one item per module: per-name items cost pytest-xdist more than these checks)."""
    failures = []
    for m, name, obj in names:
        if m == module:
            try:
                check(name, obj)
            except AssertionError as e:
                failures.append(str(e))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("module", INSTALLED)
def test_public_names_are_documented(module):
    def check(name, obj):
        if inspect.isfunction(obj) or inspect.isclass(obj) or callable(obj):
            assert inspect.getdoc(obj), f"{module}.{name} has no docstring"
        in_reference = any(f"::: {path}\n" in REFERENCE + "\n"
                           for path in entry_paths(module, name, obj))
        prefix = TABLE_PREFIX.get(module)
        in_table = prefix is not None and f"| `{prefix}{name}` |" in FUNCTIONS
        assert in_reference or in_table, (
            f"{module}.{name} has no entry in docs/reference/*.md (add '::: {module}.{name}')")
    _each_name(module, NAMES, check)


WITH_EXAMPLES = [v for v in NAMES if ">>>" in (inspect.getdoc(v[2]) or "")]


@pytest.mark.parametrize("module", INSTALLED)
def test_docstring_examples_run(module):
    if module.startswith("functorch_lite.scipy."):    # most run SciPy's kernels
        pytest.importorskip("scipy", reason="the scipy extra is not installed")

    def check(name, obj):
        finder = doctest.DocTestFinder(recurse=False)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in finder.find(obj, f"{module}.{name}", globs={}):
            runner.run(test)
        assert runner.failures == 0, f"the example in {module}.{name}'s docstring fails"
    _each_name(module, WITH_EXAMPLES, check)


def test_every_module_has_a_reference_page():
    for module in MODULES:
        assert f"::: {module}" in REFERENCE, module


# -- what dir() and tab completion show ----------------------------------------------------------

NAMESPACE_MODULES = set(MODULES) | {"functorch_lite.numpy.lib"}
@pytest.mark.parametrize("module", INSTALLED)
def test_dir_shows_only_the_public_api(module):
    """dir() of a public module lists its __all__, its public namespaces (functorch_lite.numpy's
    linalg) and, in functorch_lite.numpy, NumPy's own constants and types (fnp.float32 is
    np.float32); never what the module imports for itself (np, optree, fnp) or a helper."""
    import numpy
    mod = importlib.import_module(module)
    shown = {n for n in dir(mod) if not n.startswith("_")}
    assert set(mod.__all__) <= shown, set(mod.__all__) - shown
    others = shown - set(mod.__all__)
    namespaces = {n for n in others if f"{module}.{n}" in NAMESPACE_MODULES
                  and getattr(mod, n).__name__ == f"{module}.{n}"}
    numpy_own = {n for n in others if module == "functorch_lite.numpy"
                 and getattr(numpy, n, None) is getattr(mod, n)}
    assert others - namespaces - numpy_own == set(), f"dir({module}) shows non-public names"


# Every public function and class carries a runnable example; the named tuples that linalg
# functions return are documented by those functions.
OWN_API = [v for v in NAMES if callable(v[2]) and not (
    inspect.isclass(v[2]) and issubclass(v[2], tuple) and v[1].endswith("Result"))]


@pytest.mark.parametrize("module", INSTALLED)
def test_public_docstrings_have_an_example(module):
    def check(name, obj):
        assert ">>>" in inspect.getdoc(obj), f"{module}.{name}'s docstring has no example"
    _each_name(module, OWN_API, check)


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


def test_every_public_name_has_its_public_anchor(site):
    """reference/...#functorch_lite.jit lands on ft.jit: every public name has the anchor of its
    public path, wherever it is defined."""
    ids = set()
    for page in (site / "reference").rglob("*.html"):
        ids |= set(re.findall(r'id="([\w.]+)"', page.read_text()))
    missing = [f"{m}.{n}" for m, n, _ in NAMES if m not in TABLE_PREFIX and f"{m}.{n}" not in ids]
    assert not missing, missing


def test_built_reference_shows_no_source(site):
    assert _load_hooks().rendering_problems(site) == []


def test_built_site_has_no_warnings(site):
    """Link validation (mkdocs.yml `validation:`) warns on a link MkDocs cannot resolve, such as
    `funclist[i](x)` read as a link; --strict makes every warning fatal."""
    assert "WARNING" not in (site / "build.log").read_text()


# what makes a browser fetch from another host: a stylesheet, script, image or frame (a web
# font included) whose address names a host; a page's canonical address is no request
_FETCHED = re.compile(r'<(?:link|script|img|iframe|source)\b[^>]*?\b(?:href|src)="(?:https?:)?//[^"]*"'
                      r'[^>]*>|@import|url\(["\']?(?:https?:)?//')


def test_built_site_requests_nothing_from_other_hosts(site):
    """The site works offline: system fonts (mkdocs.yml theme.font: false), no CDN."""
    fetched = []
    for page in sorted(site.rglob("*")):
        if page.suffix in (".html", ".css"):
            fetched += [f"{page.relative_to(site)}: {m.group(0)[:120]}"
                        for m in _FETCHED.finditer(page.read_text())
                        if 'rel="canonical"' not in m.group(0)]
    assert not fetched, "\n".join(fetched[:20])


def test_dp_is_found_by_the_site_search(site):
    import json
    index = json.loads((site / "search" / "search_index.json").read_text())
    pages = {doc["location"].split("#")[0] for doc in index["docs"]
             if "clipped_grad_sum" in doc["title"] + doc["text"]
             and "per_example_grad_norms" in doc["title"] + doc["text"]}
    assert "reference/dp/" in pages, sorted(pages)


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
