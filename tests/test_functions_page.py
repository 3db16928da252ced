"""docs/functions.md is generated from the op sample database: it must match what the
generator writes now (run `python -m functorch_lite.testing.functions_page` after adding a
function), and it must list every entry of the database but the internal ones (ops with no
public name, such as the adjugate behind det's derivative)."""
from functorch_lite.testing import functions_page
from functorch_lite.testing.samples import OP_DB


def test_committed_page_matches_the_generated_one():
    assert functions_page.PAGE.read_text() == functions_page.generate(), (
        "docs/functions.md is out of date: run python -m functorch_lite.testing.functions_page")


def test_page_lists_every_entry_with_its_kind():
    text = functions_page.generate()
    for info in OP_DB:
        listed = f"`{info.name}`" in text
        assert listed != info.internal or info.name == "getitem" or info.name.startswith("at_")
    assert "| `sin` | primitive | yes | all |" in text
    assert "| `scipy.special.logsumexp` | composite | yes | all |" in text
    assert "| `unique` | composite | zero | concrete |" in text
