"""MkDocs hooks (mkdocs.yml `hooks:`): draw the figures of the docs by running their code.

Every ```python block of docs/tutorials/*.md runs, in order, one namespace per page, with
matplotlib's Agg backend and the FIGURES environment variable naming where `savefig` writes; the
DP-SGD page's figure comes from running its demo (examples/dp_sgd_cnn.py). The PNGs are added to
the site's files before the build, so `mkdocs build --strict` checks the links to them, and they
are never committed.
"""
import contextlib
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from mkdocs.structure.files import File

BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
ROOT = pathlib.Path(__file__).resolve().parent.parent
_made = []  # the temporary folders of this build's figures, removed after the build


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


def on_files(files, config):
    import matplotlib
    matplotlib.use("Agg")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="functorch_lite_docs_"))
    _made.append(tmp)
    _run_tutorials(pathlib.Path(config["docs_dir"]), tmp / "tutorials")
    (tmp / "images").mkdir()
    subprocess.check_call([sys.executable, str(ROOT / "examples" / "dp_sgd_cnn.py"),
                           "--figure", str(tmp / "images" / "dp_sgd_cnn.png")],
                          stdout=subprocess.DEVNULL, cwd=ROOT)
    for png in sorted(tmp.rglob("*.png")):
        files.append(File.generated(config, png.relative_to(tmp).as_posix(),
                                    abs_src_path=str(png)))
    return files


def on_post_build(config, **kwargs):
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
