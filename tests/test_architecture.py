"""The floors of the house (docs/architecture.md): every module of functorch_lite imports only
from its own floor or below, function-level imports included, the first-level packages import
each other without a cycle, the floor table names every module and folder of the package, and
every module is importable by its dotted path."""
import ast
import functools
import importlib
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "functorch_lite"


@functools.cache
def floors():
    """{first-level name: floor} from the table in docs/architecture.md."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = re.findall(r"^\| (\d+) \| `([\w]+)` \|", text, flags=re.M)
    assert rows, "docs/architecture.md has no floor table"
    return {name: int(floor) for floor, name in rows}


def top_name(module):
    """The first-level name a dotted module belongs to (`__init__` for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        yield name, path, is_package


MODULES = list(modules())


def imported(name, path, is_package):
    """(line, dotted name) of every functorch_lite import in the module, at any depth."""
    package = name if is_package else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module
            targets = [f"{prefix}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            if target == "functorch_lite" or target.startswith("functorch_lite."):
                yield node.lineno, target


def test_the_floor_table_maps_the_package():
    on_disk = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert on_disk == set(floors()), (
        "docs/architecture.md's floor table and functorch_lite/ differ: missing from the table "
        f"{sorted(on_disk - set(floors()))}, not on disk {sorted(set(floors()) - on_disk)}")


@pytest.mark.parametrize("name,path,is_package", MODULES, ids=[m[0] for m in MODULES])
def test_imports_go_down(name, path, is_package):
    table = floors()
    mine = table[top_name(name)]
    up = [f"{path.relative_to(ROOT)}:{line} imports {target} (floor {table[top_name(target)]}, "
          f"this module's is {mine})"
          for line, target in imported(name, path, is_package)
          if table[top_name(target)] > mine]
    assert not up, "an import goes up a floor (docs/architecture.md, 'The floors'):\n" + \
        "\n".join(up)


def test_packages_import_each_other_without_a_cycle():
    edges = {}
    for name, path, is_package in MODULES:
        for _, target in imported(name, path, is_package):
            if top_name(target) != top_name(name):
                edges.setdefault(top_name(name), set()).add(top_name(target))
    done, active = set(), []

    def visit(node):
        if node in active:
            cycle = active[active.index(node):] + [node]
            pytest.fail("the packages import each other in a cycle: " + " -> ".join(cycle))
        if node in done:
            return
        active.append(node)
        for nxt in sorted(edges.get(node, ())):
            visit(nxt)
        active.pop()
        done.add(node)
    for node in sorted(edges):
        visit(node)


OPTIONAL = {"xla": "jax", "dask": "dask"}   # modules that need an extra, by a word of their name


@pytest.mark.parametrize("name", [m[0] for m in MODULES])
def test_every_module_is_importable_by_its_path(name):
    """`import functorch_lite.a.b as m` needs each attribute on the way to be the module, not a
    public name that shadows it (ft.jit once shadowed the compiler's package)."""
    for word, extra in OPTIONAL.items():
        if word in name.split(".")[-1]:
            pytest.importorskip(extra)
    module = importlib.import_module(name)
    reached = importlib.import_module("functorch_lite")
    for part in name.split(".")[1:]:
        reached = getattr(reached, part)
    assert reached is module, f"functorch_lite.{'.'.join(name.split('.')[1:])} is {reached!r}"
