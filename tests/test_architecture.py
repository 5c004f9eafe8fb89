"""The import contract: the package's layers import downward only, and no module grows too big.

The contract is written once, in ``docs/design.md`` ("The layers"): this file reads the layers, in
order, and the third-party libraries each may import from that page's table. A module of one layer
imports the standard library, the libraries its layer is allowed, and modules of its own layer or
of layers before it. The top-level modules (``custody_lab/*.py``: the public re-export paths,
``cli``, ``bootstrap``, ``delivery``) sit above every layer; nothing but ``__main__`` imports
``cli``. Imports inside functions count too: they are read from the source.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "custody_lab"
DESIGN = ROOT / "docs" / "design.md"
#: A row of the layer table: | `custody_lab/<layer>/` | holds | `lib`, `lib` (or —) |
LAYER_ROW = re.compile(r"^\| `custody_lab/(?P<layer>\w+)/` \|(?P<holds>[^|]*)\|(?P<libraries>[^|]*)\|$")


def layer_table(text: str) -> dict[str, frozenset[str]]:
    """The layers of a design page's "## The layers" table, in order, each with its libraries.

    The libraries are the backticked names of the last column; ``—`` (or no name) means the
    standard library only.
    """
    section = re.search(r"^## The layers\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert section, "docs/design.md has no '## The layers' section"
    table: dict[str, frozenset[str]] = {}
    for line in section.group(1).splitlines():
        row = LAYER_ROW.match(line.strip())
        if row:
            assert row["layer"] not in table, f"docs/design.md lists the layer {row['layer']!r} twice"
            table[row["layer"]] = frozenset(re.findall(r"`([\w.]+)`", row["libraries"]))
    return table


#: Third-party libraries each layer may import (beyond the standard library), in layer order.
THIRD_PARTY: dict[str, frozenset[str]] = layer_table(DESIGN.read_text(encoding="utf-8"))
LAYERS = tuple(THIRD_PARTY)
MAX_LINES = 600
#: Modules allowed over MAX_LINES: none (split a module along its seams before it gets there).
LONG_ALLOWED: set[str] = set()


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str  # dotted module name (absolute)
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return parts[1]
    return "top"


def module_exists(dotted: str) -> bool:
    if not dotted.startswith("custody_lab"):
        return False
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(path: Path) -> list[Import]:
    """Every import in a file (top level and inside functions), with relative ones resolved."""
    name = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(name, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append(Import(name, target, node.lineno))
            # ``from . import x`` / ``from .pkg import mod``: the names may be modules themselves.
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if module_exists(sub):
                    found.append(Import(name, sub, node.lineno))
    return found


def package_files() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 30, f"expected the whole package, found {len(files)} files"
    return files


def all_imports() -> list[Import]:
    found = [imp for f in package_files() for imp in imports_of(f)]
    assert len(found) > 200, f"the checker found only {len(found)} imports: it is not reading the package"
    return found


def downward_violations(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        if not imp.target.startswith("custody_lab"):
            continue
        here, there = layer_of(imp.importer), layer_of(imp.target)
        if here == "top":
            continue
        if there == "top":
            bad.append(f"{imp.importer}:{imp.line} imports the top-level {imp.target} (layers import layers)")
        elif LAYERS.index(there) > LAYERS.index(here):
            bad.append(f"{imp.importer}:{imp.line} ({here}) imports {imp.target} ({there}), a later layer")
    return bad


def library_violations(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        top = imp.target.split(".")[0]
        if top in ("custody_lab", "__future__") or top in sys.stdlib_module_names:
            continue
        layer = layer_of(imp.importer)
        if layer != "top" and top not in THIRD_PARTY[layer]:
            bad.append(f"{imp.importer}:{imp.line} ({layer}) imports {imp.target}")
    return bad


def test_the_design_page_names_six_layers_in_order_each_with_its_libraries():
    assert LAYERS == ("core", "protocol", "whatif", "views", "live", "teaching"), LAYERS
    assert THIRD_PARTY["core"] == THIRD_PARTY["protocol"] == frozenset(), THIRD_PARTY
    assert {"pandas", "pyarrow"} <= THIRD_PARTY["whatif"] and "mcp" in THIRD_PARTY["live"], THIRD_PARTY
    assert "ipywidgets" in THIRD_PARTY["views"] and "ipywidgets" in THIRD_PARTY["teaching"], THIRD_PARTY


def test_the_layer_table_parser_reads_order_and_libraries_and_refuses_a_page_without_the_table():
    page = (
        "# x\n\n## The layers\n\n| layer | holds | may import |\n| --- | --- | --- |\n"
        "| `custody_lab/b/` | b things | — |\n| `custody_lab/a/` | a things | `numpy`, `IPython` |\n\n"
        "## Next\n\n| `custody_lab/c/` | not a layer | `mcp` |\n"
    )
    assert layer_table(page) == {"b": frozenset(), "a": frozenset({"numpy", "IPython"})}
    assert list(layer_table(page)) == ["b", "a"]
    with pytest.raises(AssertionError, match="no '## The layers' section"):
        layer_table("# x\n\n## Layers\n")


def test_every_layer_exists_and_holds_modules():
    for layer in LAYERS:
        modules = list((PACKAGE / layer).rglob("*.py"))
        assert (PACKAGE / layer / "__init__.py").is_file() and len(modules) >= 2, layer


def test_layers_import_only_their_own_layer_and_the_layers_before_it():
    bad = downward_violations(all_imports())
    assert not bad, "\n".join(bad)


def test_layers_import_only_the_standard_library_and_their_own_libraries():
    bad = library_violations(all_imports())
    assert not bad, "\n".join(bad)


def test_the_checker_catches_an_upward_import_and_a_heavy_import_in_the_core():
    upward = [Import("custody_lab.core.router", "custody_lab.views.chart", 1)]
    facade = [Import("custody_lab.protocol.catalog", "custody_lab.sweep", 2)]
    heavy = [Import("custody_lab.protocol.blobs", "numpy", 3), Import("custody_lab.live.lab_server", "pandas", 4)]
    assert len(downward_violations(upward)) == 1 and len(downward_violations(facade)) == 1
    assert len(library_violations(heavy)) == 2
    # ...and reads function-level imports: receipts imports the router inside fixture_payload().
    found = imports_of(PACKAGE / "core" / "receipts.py")
    assert any(i.target == "custody_lab.core.router" for i in found), found


def test_top_level_modules_import_no_third_party_library_at_import_time():
    # `import custody_lab`, the CLI and the re-export paths stay light: heavy libraries load only
    # inside a layer, when a name is used.
    bad = []
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                names = []
            for n in names:
                top = n.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("__future__", "custody_lab"):
                    bad.append(f"{path.name}:{node.lineno} imports {n}")
    assert not bad, "\n".join(bad)


def test_nothing_imports_the_cli():
    users = [
        f"{i.importer}:{i.line}"
        for i in all_imports()
        if i.target == "custody_lab.cli" and i.importer != "custody_lab.__main__"
    ]
    assert not users, f"only __main__ may import custody_lab.cli; it is also imported by {users}"


@pytest.mark.parametrize("path", package_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_600_lines(path):
    rel = path.relative_to(ROOT).as_posix()
    n = len(path.read_text(encoding="utf-8").splitlines())
    if rel not in LONG_ALLOWED:
        assert n <= MAX_LINES, f"{rel} has {n} lines (more than {MAX_LINES}): split it along its seams"
