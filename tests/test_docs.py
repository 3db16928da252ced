"""Every ```python block of docs/*.md, docs/tutorials/*.md and README.md runs, in order, one
namespace per file (figures the tutorials save go to a temporary folder named by FIGURES)."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = (sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "tutorials").glob("*.md"))
         + [ROOT / "README.md"])
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_doc_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.setenv("FIGURES", str(tmp_path))
    blocks = BLOCK.findall(page.read_text())
    namespace = {"__name__": f"doc_{page.stem}"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"{page.name}, python block {i} failed:\n{code}") from exc


def test_tutorials_are_collected():
    assert (ROOT / "docs" / "tutorials" / "how_it_works.md") in PAGES
