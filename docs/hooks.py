"""MkDocs hooks (mkdocs.yml `hooks:`): draw the figures of the docs by running their code, and
check the built API reference.

Every ```python block of docs/tutorials/*.md runs, in order, one namespace per page, with
matplotlib's Agg backend and the FIGURES environment variable naming where `savefig` writes; the
DP-SGD page's figure comes from running its demo (examples/dp_sgd_cnn.py). The PNGs are added to
the site's files before the build, so `mkdocs build --strict` checks the links to them, and they
are never committed.

After the build, every entry of the API reference (site/reference/) must show what a reader
needs: a function or class its signature and a summary, no entry a line of source (an
assignment such as `erf = defop(...)`) or a default that is an object's address. Each miss is a
warning, so `mkdocs build --strict` fails (tests/test_api_reference.py runs the same check).
"""
import contextlib
import html
import io
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

log = logging.getLogger("mkdocs.hooks.api_reference")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
ROOT = pathlib.Path(__file__).resolve().parent.parent
_made = []  # the temporary folders of this build's figures, removed after the build


def on_config(config):
    """The footer names the version, read from pyproject.toml so that it cannot drift."""
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    config["copyright"] = f"functorch_lite {version.group(1)}"
    return config


def _run_tutorials(docs_dir, out):
    out.mkdir(parents=True, exist_ok=True)
    os.environ["FIGURES"] = str(out)
    try:
        for page in sorted((docs_dir / "tutorials").glob("*.md")):
            namespace = {"__name__": f"tutorial_{page.stem}"}
            with contextlib.redirect_stdout(io.StringIO()):    # the pages' prints: not the log
                for i, code in enumerate(BLOCK.findall(page.read_text())):
                    exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
    finally:
        del os.environ["FIGURES"]


def _with_this_checkout():
    """The environment for the demo: it imports the library of this checkout (a script's own
    folder, examples/, is what Python puts on the path, not the working folder)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path)


def on_files(files, config):
    import matplotlib
    matplotlib.use("Agg")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="functorch_lite_docs_"))
    _made.append(tmp)
    _run_tutorials(pathlib.Path(config["docs_dir"]), tmp / "tutorials")
    (tmp / "images").mkdir()
    subprocess.check_call([sys.executable, str(ROOT / "examples" / "dp_sgd_cnn.py"),
                           "--figure", str(tmp / "images" / "dp_sgd_cnn.png")],
                          stdout=subprocess.DEVNULL, cwd=ROOT, env=_with_this_checkout())
    for png in sorted(tmp.rglob("*.png")):
        from mkdocs.structure.files import File   # here: the checks below need no MkDocs
        files.append(File.generated(config, png.relative_to(tmp).as_posix(),
                                    abs_src_path=str(png)))
    return files


_OBJECT = re.compile(r'<div class="doc doc-object doc-(\w+)">')
_HEADING_ID = re.compile(r'<h\d id="([\w.]+)" class="doc doc-heading">')
_SIGNATURE = re.compile(r'\A\s*<div class="[^"]*doc-signature[^"]*">(.*?)</div>', re.S)
_SUMMARY = re.compile(r'<p>(.*?)</p>', re.S)     # the first plain paragraph (not "Bases: ...")
# what rendered source looks like: an op's construction, a lambda, an escaped newline, a
# default shown as an object's address or as a private name
_SOURCE = re.compile(r"defop\(|lambda |\\n|<object object at|=\s*_\w")


def _text(fragment):
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def reference_entries(page_html):
    """(id, kind, signature text or None, summary text or None) of each documented object."""
    parts = _OBJECT.split(page_html)
    for kind, body in zip(parts[1::2], parts[2::2]):
        head = _HEADING_ID.search(body)
        if head is None:        # a module rendered without its heading (the page's intro)
            continue
        own = body[body.index("</h", head.end()):]
        own = own[own.index(">") + 1:]
        signature = _SIGNATURE.match(own)
        contents = own[signature.end() if signature else 0:]
        contents = contents[:contents.find("<h") if "<h" in contents else None]
        summary = _SUMMARY.search(contents)
        yield (head.group(1), kind, signature and _text(signature.group(1)),
               summary and _text(summary.group(1)))


def rendering_problems(site_dir):
    """Each way an API reference entry under `site_dir`/reference misleads its reader."""
    problems = []
    for page in sorted(pathlib.Path(site_dir, "reference").rglob("*.html")):
        where = page.relative_to(site_dir).as_posix()
        for name, kind, signature, summary in reference_entries(page.read_text()):
            short = name.rpartition(".")[2]
            if kind == "function" and not signature:
                problems.append(f"{where}: {name} shows no signature")
            if not summary:
                problems.append(f"{where}: {name} shows no summary")
            after_name = signature[len(short):] if signature else ""
            if _SOURCE.search(after_name):
                problems.append(f"{where}: {name} shows source or a private default: "
                                f"{signature[:80]}")
    return problems


def on_post_build(config, **kwargs):
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
    for problem in rendering_problems(config["site_dir"]):
        log.warning(problem)
