"""Every ```python block of docs/*.md, docs/tutorials/*.md and README.md runs, in order, one
namespace per file, as the file's blocks would run pasted into one script (`__name__` is
"__main__"; figures the tutorials save go to a temporary folder named by FIGURES)."""
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
    namespace = {"__name__": "__main__"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"{page.name}, python block {i} failed:\n{code}") from exc


def test_tutorials_are_collected():
    assert (ROOT / "docs" / "tutorials" / "how_it_works.md") in PAGES


# -- the docs' "as JAX" / "as torch" claims, checked against the peers when installed ----------

def _peer_values():
    """Each documented convention: (library value, {peer: its value}), the peer entries only
    for the peers installed."""
    import numpy as np
    import functorch_lite as ft
    import functorch_lite.numpy as fnp
    lib = {
        "abs at 0": ft.grad(fnp.abs)(0.0),
        "maximum tie": ft.grad(lambda x: fnp.maximum(x, 1.0))(1.0),
        "fmax tie": ft.grad(lambda x: fnp.fmax(x, 1.0))(1.0),
        "clip at bound": ft.grad(lambda x: fnp.clip(x, 0.0, 1.0))(1.0),
        "max ties": ft.grad(fnp.max)(np.array([1.0, 3.0, 3.0])),
        "norm at 0": ft.grad(fnp.linalg.norm)(np.zeros(3)),
        "prod with a zero": ft.grad(fnp.prod)(np.array([2.0, 0.0, 3.0])),
    }
    peers = {}
    try:
        import jax
        import jax.numpy as jnp
        peers["jax"] = {
            "abs at 0": jax.grad(jnp.abs)(0.0),
            "maximum tie": jax.grad(lambda x: jnp.maximum(x, 1.0))(1.0),
            "fmax tie": jax.grad(lambda x: jnp.fmax(x, 1.0))(1.0),
            "clip at bound": jax.grad(lambda x: jnp.clip(x, 0.0, 1.0))(1.0),
            "max ties": jax.grad(jnp.max)(jnp.array([1.0, 3.0, 3.0])),
            "norm at 0": jax.grad(jnp.linalg.norm)(jnp.zeros(3)),
            "prod with a zero": jax.grad(jnp.prod)(jnp.array([2.0, 0.0, 3.0])),
        }
    except ImportError:
        pass
    try:
        import torch
        from torch.func import grad as tgrad
        one = torch.tensor(1.0)
        peers["torch"] = {
            "abs at 0": tgrad(torch.abs)(torch.tensor(0.0)),
            "maximum tie": tgrad(lambda x: torch.maximum(x, one))(one),
            "fmax tie": tgrad(lambda x: torch.fmax(x, one))(one),
            "max ties": tgrad(torch.max)(torch.tensor([1.0, 3.0, 3.0])),
            "norm at 0": tgrad(torch.linalg.norm)(torch.zeros(3)),
        }
    except ImportError:
        pass
    return lib, peers


# What docs/autodiff.md's "Subgradient conventions" says: the peers that agree with the library.
AGREE = {"abs at 0": {"torch"}, "maximum tie": {"jax", "torch"}, "fmax tie": set(),
         "clip at bound": {"jax"}, "max ties": {"jax", "torch"}, "norm at 0": {"torch"},
         "prod with a zero": {"jax"}}


def test_documented_conventions_match_the_peers():
    import numpy as np
    lib, peers = _peer_values()
    if not peers:
        pytest.skip("neither jax nor torch is installed")
    for case, value in lib.items():
        for peer, values in peers.items():
            if case not in values:
                continue
            same = np.allclose(np.asarray(values[case], dtype=float), value, equal_nan=True)
            assert same == (peer in AGREE[case]), (
                f"{case}: functorch_lite gives {value}, {peer} {values[case]}; docs/autodiff.md "
                f"says they {'agree' if peer in AGREE[case] else 'differ'}")
    autodiff = (ROOT / "docs" / "autodiff.md").read_text()
    assert "as torch; JAX gives 1 at 0" in autodiff and "as torch; JAX gives NaN" in autodiff


def test_changelog_names_the_package_version():
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    changelog = (ROOT / "docs" / "changelog.md").read_text()
    assert re.search(r"^## (\S+)", changelog, re.M).group(1) == version.group(1)


def test_install_commands_work_from_a_clone():
    """The package is installed from a clone: no page says `pip install 'functorch-lite[...]'`
    (it is not on PyPI); `pip install -e ".[extra]"` is what works."""
    for page in PAGES:
        assert not re.search(r"pip install ['\"]?functorch-lite", page.read_text()), page.name
