"""The suite mirrors the package: a module's tests are found by its path, and every module has some.

``custody_lab/<layer>/…`` is tested under ``tests/<layer>/…`` (the same sub-packages), the
top-level modules and the checks that span the whole project (architecture, habits, notebooks,
the browser, fresh environments) under ``tests/`` itself. Every module of the package is imported
by at least one test file of its own directory: a module no test imports is a module nobody proves.
"""

from __future__ import annotations

import ast
import types
from importlib import import_module
from pathlib import Path

import pytest

from .test_architecture import PACKAGE, ROOT, imports_of, module_name

pytestmark = pytest.mark.lint

TESTS = ROOT / "tests"
#: Folders of the suite that hold data or support code, not tests of a package directory.
SUPPORT = {"fixtures", "reference", "interop", "__pycache__"}


def suite_files() -> list[Path]:
    # hidden folders are not the suite's: tests/interop/.venv-time is the time server's own environment
    found = sorted(
        p for p in TESTS.rglob("test_*.py") if not any(d.startswith(".") for d in p.relative_to(TESTS).parts)
    )
    assert len(found) > 50, f"expected the whole suite, found {len(found)} test files"
    return found


def mirrored_dir(test_file: Path) -> Path:
    """The package directory a test file's directory mirrors (``tests/live`` → ``custody_lab/live``)."""
    return PACKAGE.joinpath(*test_file.parent.relative_to(TESTS).parts)


def package_modules() -> list[str]:
    names = [module_name(p) for p in sorted(PACKAGE.rglob("*.py")) if p.name not in ("__init__.py", "__main__.py")]
    assert len(names) > 100, f"expected the whole package, found {len(names)} modules"
    return names


def directory_of(module: str) -> Path:
    """Where a module's tests live: ``custody_lab.live.recorder`` → ``tests/live``."""
    return TESTS.joinpath(*module.split(".")[1:-1])


def untested_modules(imported_by_dir: dict[Path, set[str]], modules: list[str]) -> list[str]:
    """Modules no test file of their own test directory imports (a parent package's import does not count)."""
    return [m for m in modules if m not in imported_by_dir.get(directory_of(m), set())]


def test_every_test_directory_mirrors_a_package_directory():
    bad = []
    for f in suite_files():
        rel = f.parent.relative_to(TESTS)
        if rel.parts and rel.parts[0] in SUPPORT:
            bad.append(f"{f.relative_to(ROOT)} sits in a support folder")
        elif not (mirrored_dir(f) / "__init__.py").is_file():
            bad.append(f"{f.relative_to(ROOT)}: custody_lab/{rel.as_posix()}/ is not a package directory")
        elif not (f.parent / "__init__.py").is_file():
            bad.append(f"{f.parent.relative_to(ROOT)} has no __init__.py (test modules would collide by name)")
    assert not bad, "\n".join(bad)


def test_every_package_directory_with_modules_has_its_test_directory():
    missing = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        package = init.parent
        own = [p for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
        tests = TESTS.joinpath(*package.relative_to(PACKAGE).parts)
        if own and not list(tests.glob("test_*.py")):
            missing.append(f"custody_lab/{package.relative_to(PACKAGE).as_posix()} has no tests/… directory of tests")
    assert not missing, "\n".join(missing)


def defining_modules(test_file: Path) -> set[str]:
    """The custody_lab modules a test file imports: the modules it names, and for each name it
    takes from a custody_lab module (a public path re-exports most), the module that defines it."""
    found = {imp.target for imp in imports_of(test_file) if imp.target.startswith("custody_lab")}
    for node in ast.walk(ast.parse(test_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("custody_lab"):
            source = import_module(node.module or "")
            for alias in node.names:
                value = getattr(source, alias.name, None)
                if isinstance(value, types.ModuleType):
                    found.add(value.__name__)
                elif getattr(value, "__module__", "").startswith("custody_lab"):
                    found.add(value.__module__)
    return found


def test_every_module_is_imported_by_a_test_of_its_own_directory():
    imported: dict[Path, set[str]] = {}
    for f in suite_files():
        imported.setdefault(f.parent, set()).update(defining_modules(f))
    untested = untested_modules(imported, package_modules())
    assert not untested, "no test in the module's own tests/ directory imports:\n" + "\n".join(untested)


def test_the_coverage_check_names_a_module_that_only_a_test_elsewhere_imports():
    live = TESTS / "live"
    found = untested_modules(
        {live: {"custody_lab.live.audit"}, TESTS: {"custody_lab.live.recorder"}},
        ["custody_lab.live.audit", "custody_lab.live.recorder"],
    )
    assert found == ["custody_lab.live.recorder"], found


def hard_dependencies() -> set[str]:
    """The import names of the packages ``pyproject.toml`` requires (``[project] dependencies``)."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {
        re.split(r"[\s=<>!~;\[]", spec, maxsplit=1)[0].lower().replace("-", "_") for spec in project["dependencies"]
    }
    assert {"mcp", "pandas", "pyarrow"} <= names, f"expected the pinned dependencies, read {sorted(names)}"
    return names


def skips_on(tree: ast.AST, hard: set[str]) -> list[str]:
    """The ``pytest.importorskip("X")`` calls of a module whose ``X`` belongs to a hard dependency."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).split(".")[0] in hard
        ):
            found.append(f"line {node.lineno}: importorskip({node.args[0].value!r})")
    return found


def test_no_test_skips_when_a_hard_dependency_is_missing():
    # a required package that cannot be imported is a broken environment: under CI the test must
    # fail, never turn into a skip that passes (issue 39 §4)
    hard = hard_dependencies()
    found = {
        str(p.relative_to(ROOT)): s for p in suite_files() if (s := skips_on(ast.parse(p.read_text("utf-8")), hard))
    }
    assert found == {}, f"import these plainly instead: {found}"


def test_the_skip_check_finds_a_skip_on_a_hard_dependency_and_not_on_an_optional_one():
    code = 'import pytest\npytest.importorskip("mcp.shared.uri_template")\npytest.importorskip("jupyter_server")\n'
    found = skips_on(ast.parse(code), hard_dependencies())
    assert found == ["line 2: importorskip('mcp.shared.uri_template')"], found
