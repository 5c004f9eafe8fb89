"""``custody_lab.live``'s public names: loaded on first use, yet typed for mypy and editors.

The package keeps its lazy ``__getattr__`` (``import custody_lab.live`` must not import ``mcp``)
and imports every exported name under ``TYPE_CHECKING`` from its defining module, as the MCP SDK's
``__init__`` does. The two tables must name the same module for each name.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import custody_lab.live as live

from ..timing import scaled

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "custody_lab" / "live" / "__init__.py"


def _type_checking_imports() -> dict[str, str]:
    """name -> defining module, from the ``if TYPE_CHECKING:`` block of ``custody_lab/live/__init__.py``."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING")
    return {
        alias.name: f"custody_lab.live.{node.module}"
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_every_public_live_name_is_imported_for_type_checkers_from_the_module_that_loads_it():
    typed = _type_checking_imports()
    lazy = dict(live._EXPORTS)
    assert sorted(typed) == sorted(lazy) == sorted(live.__all__), (
        f"TYPE_CHECKING names {sorted(typed)}, lazy names {sorted(lazy)}, __all__ {sorted(live.__all__)}"
    )
    differ = {name: (typed[name], lazy[name]) for name in typed if typed[name] != lazy[name]}
    assert not differ, f"name: (TYPE_CHECKING module, lazy module) disagree: {differ}"


@pytest.mark.parametrize("name", sorted(live.__all__))
def test_a_public_live_name_is_the_object_its_defining_module_holds(name):
    module = importlib.import_module(live._EXPORTS[name])
    assert getattr(live, name) is getattr(module, name), f"custody_lab.live.{name} is not {module.__name__}.{name}"
    assert name in module.__all__, f"{module.__name__} defines {name} but does not list it in __all__"


def test_importing_the_live_package_does_not_import_mcp():
    code = "import sys, custody_lab.live; custody_lab.live.__all__; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=scaled(60))
    assert out.stdout.strip() == "False", f"expected mcp not imported; got {out.stdout!r} {out.stderr[-1000:]!r}"


@pytest.mark.slow
def test_mypy_sees_the_real_types_of_the_public_live_names(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            from custody_lab.live import Gate, LabSession

            Gate(allow=3)
            LabSession(mode=42)
            """
        ),
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(probe)],
        capture_output=True,
        text=True,
        timeout=scaled(600),
        cwd=ROOT,
    )
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    lines = sorted({line.split(":")[1] for line in errors})
    assert lines == ["4", "5"], f"expected a type error on lines 4 (Gate) and 5 (LabSession); mypy said {out.stdout}"
