"""Every ```python block of docs/*.md and README.md runs, in order, one namespace per file."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_doc_examples_run(page):
    blocks = BLOCK.findall(page.read_text())
    namespace = {"__name__": f"doc_{page.stem}"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"{page.name}, python block {i} failed:\n{code}") from exc
