"""The public API: the paths of docs/design.md, typed names that mypy sees, and private by name.

``docs/design.md`` ("Public surface") lists the public import paths; every other module may move.
The names of the lazy paths (``custody_lab.sweep``, ``.widgets``, ``.live``) are typed through
``if TYPE_CHECKING:`` imports, which are also their lazy tables: these tests hold them to ``__all__``
and to the objects each name loads, and check them with mypy itself. The private-marking rule (docs/design.md, "Private by name") is checked on every module.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import pytest

import custody_lab as cl

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "custody_lab"
DESIGN = ROOT / "docs" / "design.md"
#: Top-level modules that deliver the lab, wire the command line or stop an old Python: above the
#: layers, not public.
NOT_PUBLIC = {"__main__", "cli", "bootstrap", "delivery", "python_check"}
#: Public paths whose names load on first use, typed through ``if TYPE_CHECKING:`` imports.
LAZY_PATHS = ("custody_lab.sweep", "custody_lab.widgets", "custody_lab.live")


def public_paths(text: str | None = None) -> dict[str, str]:
    """The "## Public surface" table of the design page: public path -> what it holds."""
    text = DESIGN.read_text(encoding="utf-8") if text is None else text
    section = re.search(r"^## Public surface\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert section, "docs/design.md has no '## Public surface' section"
    rows = re.findall(r"^\| `(custody_lab(?:\.\w+)*)` \| (.+?) \|$", section.group(1), flags=re.M)
    found = dict(rows)
    assert len(found) == len(rows), f"a public path is listed twice: {[p for p, _ in rows]}"
    return found


def module_path(dotted: str) -> Path:
    base = ROOT.joinpath(*dotted.split("."))
    return base / "__init__.py" if (base / "__init__.py").is_file() else base.with_suffix(".py")


def dotted_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 100, f"expected the whole package, found {len(files)} modules"
    return files


# ---------------------------------------------------------------------------------------------
# the public paths
# ---------------------------------------------------------------------------------------------


def test_the_design_page_lists_every_public_path_and_nothing_else():
    listed = set(public_paths())
    top = {p.stem for p in PACKAGE.glob("*.py")} | {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    layers = {"core", "protocol", "whatif", "views", "live", "teaching"} - {"live"}  # live is a public path too
    expected = {"custody_lab"} | {f"custody_lab.{m}" for m in top - NOT_PUBLIC - layers - {"__init__"}}
    assert listed == expected, (
        f"docs/design.md lists {sorted(listed)}; the package's public paths are {sorted(expected)}"
    )
    for required in ("custody_lab", "custody_lab.sweep", "custody_lab.widgets", "custody_lab.live"):
        assert required in listed, required


def test_the_public_path_table_parser_reads_each_row_and_refuses_a_page_without_the_section():
    page = "## Public surface\n\n| public path | holds |\n| --- | --- |\n| `custody_lab` | core |\n| `custody_lab.x` | x |\n"
    assert public_paths(page) == {"custody_lab": "core", "custody_lab.x": "x"}
    with pytest.raises(AssertionError, match="no '## Public surface'"):
        public_paths("## The layers\n")


@pytest.mark.parametrize("path", sorted(public_paths()))
def test_every_name_a_public_path_promises_resolves(path):
    module = import_module(path)
    names = list(module.__all__)
    assert names, f"{path} promises no names"
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing, f"{path}.__all__ lists names it does not have: {missing}"


def test_cl_sweep_is_one_callable_module_and_import_as_binds_the_module_in_a_fresh_interpreter():
    # The order that broke before: the submodule imported first, with ``as``.
    code = (
        "import sys\n"
        "import custody_lab.sweep as sw\n"
        "import custody_lab as cl\n"
        "from custody_lab.sweep import grid, sweep\n"
        "assert sw is cl.sweep is sys.modules['custody_lab.sweep'], (sw, cl.sweep)\n"
        "axes = dict(current=True, allowed=True, sideEffects=False, requiresCurrent=False)\n"
        "frame = sw.grid(initiator='model', shape='embedded-resource', bytes=[100, 9000], **axes)\n"
        "a, b = cl.sweep(frame), sweep(frame, policy=None)\n"
        "assert a.equals(b) and a.equals(sw.sweep(frame)), (a, b)\n"
        "print(list(a['outcome'].astype(str)), sw.grid is grid)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['embedded-resource', 'embed-over-budget'] True", out.stdout


@pytest.mark.slow
def test_the_paths_a_lesson_without_tables_imports_load_no_table_library_in_a_fresh_interpreter():
    # Notebooks 07 and 08 import these; pandas and pyarrow would add about 90 MB to each kernel.
    code = (
        "import sys\n"
        "from custody_lab.catalog import Catalog, rows_html\n"
        "from custody_lab.exercises import check, input_for\n"
        "from custody_lab.live import Gate, LabSession, assemble_context\n"
        "from custody_lab.widgets import ExercisePanel, PredictThenSee, ProgressPanel\n"
        "html = rows_html([{'uri': e.uri} for e in Catalog.load().resources])\n"
        "panel = ProgressPanel()\n"
        "print('<td>' in html and len(panel.children) > 0, sorted(m for m in ('pandas', 'pyarrow') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True []", f"expected a table built and no table library loaded, got {out.stdout!r}"


#: The notebooks whose tables are the lab's own (``cl.Table``): their kernels need no table library.
#: 06 (what-if sweeps on frames) and 11 (``flips`` on the capstone's inventory) do need pandas.
NOTEBOOKS_WITHOUT_PANDAS = ("00", "01", "02", "03", "04", "05", "07", "08", "09", "10")


def notebook_imports(prefix: str) -> list[str]:
    """Every import statement in a notebook's code cells (magics left out), in order."""
    import nbformat

    path = next((ROOT / "notebooks").glob(f"{prefix}-*.ipynb"))
    found: list[str] = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(ln for ln in cell.source.splitlines() if not ln.lstrip().startswith(("%", "!")))
        tree = ast.parse(source)
        found += [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    return found


@pytest.mark.slow
def test_the_notebooks_without_tables_of_frames_import_and_show_their_tables_without_pandas():
    # Issue 42 §1: a kernel that shows a dozen rows need not carry pandas and pyarrow (about 90 MB).
    imports = sorted({line for nb in NOTEBOOKS_WITHOUT_PANDAS for line in notebook_imports(nb)})
    assert any("custody_lab.chart" in line for line in imports) and len(imports) > 20, imports
    shows = (
        "import custody_lab as cl\n"
        "from custody_lab import chart\n"
        "from custody_lab.catalog import Catalog, resources_table, templates_table\n"
        "from custody_lab.link_or_embed import compare_shapes, worked_example\n"
        "cases = cl.load_fixture().all_cases\n"
        "shown = [cl.Table({'code': r.code} for r in cl.RULES)._repr_html_(),\n"
        "         chart.matrix_table(cases, cl.Policy(embed_limit_bytes=2048))._repr_html_(),\n"
        "         chart.cumulative(compare_shapes(18000, 5)).html(),\n"
        "         resources_table(Catalog.load())._repr_html_(), templates_table(Catalog.load()).text(),\n"
        "         cl.Table(cl.size_reuse_table())._repr_html_(),\n"
        "         cl.Table(vars(e) for e in worked_example().entries).to_html()]\n"
        "fig = chart.matrix_figure(cases)\n"
        "print(all('<td>' in s or 'orders://' in s for s in shown), fig is not None)\n"
        "print(sorted(m for m in ('pandas', 'pyarrow') if m in sys.modules))\n"
    )
    code = "import sys\nimport matplotlib\nmatplotlib.use('Agg')\n" + "\n".join(imports) + "\n" + shows
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT / "notebooks")
    assert out.returncode == 0, out.stderr[-2000:]
    built, loaded = out.stdout.strip().splitlines()[-2:]
    assert built == "True True", f"expected every table and the matrix built, got {built!r}"
    assert loaded == "[]", f"the notebooks' imports and tables loaded {loaded}; expected no table library"


def test_cl_sweep_is_the_module_in_this_process_too_and_its_names_stay_lazy():
    import custody_lab.sweep as sw

    assert cl.sweep is sw and callable(sw) and sw.sweep.__module__ == "custody_lab.whatif.sweep"
    assert "sweep" in dir(sw) and "grid" in dir(sw), dir(sw)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        sw.no_such_name  # noqa: B018


# ---------------------------------------------------------------------------------------------
# typed names: the TYPE_CHECKING imports (the lazy tables), and mypy itself
# ---------------------------------------------------------------------------------------------


def type_checking_imports(dotted: str) -> dict[str, str]:
    """Name -> defining module, for every ``from X import name`` under ``if TYPE_CHECKING:``."""
    path = module_path(dotted)
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom):
                    target = _absolute(dotted, path.name == "__init__.py", imp)
                    found.update({a.asname or a.name: target for a in imp.names})
    return found


@pytest.mark.parametrize("path", LAZY_PATHS)
def test_a_lazy_path_imports_every_name_it_exports_for_type_checkers_from_the_module_it_loads(path):
    module = import_module(path)
    typed = type_checking_imports(path)
    assert set(typed) == set(module.__all__), (
        f"{path}: names without a TYPE_CHECKING import {sorted(set(module.__all__) - set(typed))}; "
        f"imported but not exported {sorted(set(typed) - set(module.__all__))}"
    )
    for name, target in typed.items():
        defining = import_module(target)
        assert getattr(module, name) is getattr(defining, name), (
            f"{path}.{name}: loading it gives another object than the TYPE_CHECKING import from {target}"
        )
        assert name in defining.__all__, f"{target} defines {name} but does not list it in __all__"


def test_the_package_types_cl_sweep_as_the_function_the_callable_module_runs():
    typed = type_checking_imports("custody_lab")
    assert typed == {"sweep": "custody_lab.whatif.sweep"}, typed
    assert cl.sweep.sweep is import_module("custody_lab.whatif.sweep").sweep


@dataclass(frozen=True)
class Probe:
    """A line of a file mypy checks, and what mypy must say about it."""

    line: str
    revealed: str = ""  # a fragment of the revealed type ("" when the line is a deliberate error)
    error: str = ""  # a fragment of the error mypy must report on that line


PROBES = (
    Probe("reveal_type(cl.sweep)", revealed="def (frame: pandas.core.frame.DataFrame"),
    Probe("reveal_type(sw.grid)", revealed="-> pandas.core.frame.DataFrame"),
    Probe("reveal_type(sw.load_inventory)", revealed="-> pandas.core.frame.DataFrame"),
    Probe("reveal_type(compare)", revealed="custody_lab.whatif.compare.Comparison"),
    Probe("reveal_type(CaseExplorer('handbook').decision)", revealed="custody_lab.core.model.Decision"),
    Probe("reveal_type(ProgressPanel)", revealed="custody_lab.teaching.panels.ProgressPanel"),
    Probe("reveal_type(budget_panel)", revealed="def (tool_bytes: builtins.int"),
    Probe("reveal_type(matrix_figure)", revealed="def ("),
    Probe("reveal_type(Catalog.load())", revealed="custody_lab.protocol.catalog.Catalog"),
    Probe("cl.sweep(3)", error='incompatible type "int"'),
    Probe("CaseExplorer(1, 2, 3)", error="Too many positional arguments"),
)
LIVE_PROBES = (
    Probe("reveal_type(LabSession)", revealed="custody_lab.live.session.LabSession"),
    Probe("reveal_type(assemble_context)", revealed="def ("),
    Probe("LabSession(mode=3)", error="incompatible type"),
    Probe("Gate(allow=3)", error="incompatible type"),
)
PROBE_HEADER = """\
import custody_lab as cl
import custody_lab.sweep as sw
from custody_lab.catalog import Catalog
from custody_lab.chart import matrix_figure
from custody_lab.live import Gate, LabSession, assemble_context
from custody_lab.sweep import compare
from custody_lab.widgets import CaseExplorer, ProgressPanel, budget_panel
"""


def mypy_says(probes: tuple[Probe, ...], tmp_path: Path) -> list[str]:
    """Run mypy on the probes (after the imports); the problems with what it said."""
    source = PROBE_HEADER + "".join(f"{p.line}\n" for p in probes)
    probe = tmp_path / "probe_public_api.py"
    probe.write_text(source, encoding="utf-8")
    # From the repository root, so mypy finds this checkout's package and its settings; the
    # cache is the one `mypy custody_lab` (tests/test_habits.py) keeps warm.
    out = subprocess.run([sys.executable, "-m", "mypy", str(probe)], capture_output=True, text=True, cwd=ROOT)
    said: dict[int, list[str]] = {}
    for line in out.stdout.splitlines():
        m = re.match(r".*probe_public_api\.py:(\d+): (?:note|error): (.*)$", line)
        if m:
            said.setdefault(int(m[1]), []).append(m[2])
    first = PROBE_HEADER.count("\n") + 1
    problems = []
    for n, p in enumerate(probes, start=first):
        words = " | ".join(said.get(n, [])) or "(nothing)"
        if p.revealed and not (words.startswith("Revealed type is") and p.revealed in words and '"Any"' not in words):
            problems.append(f"line {n} {p.line}: expected a revealed type with {p.revealed!r}, mypy said {words}")
        if p.error and p.error not in words:
            problems.append(f"line {n} {p.line}: expected the error {p.error!r}, mypy said {words}")
    unexpected = [s for n, says in said.items() if n < first for s in says]
    if unexpected or (not said and out.returncode not in (0, 1)):
        problems.append(f"mypy on the imports: {unexpected or out.stdout + out.stderr}")
    return problems


@pytest.mark.slow
def test_mypy_sees_the_real_types_of_the_public_names(tmp_path):
    problems = mypy_says(PROBES, tmp_path)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_mypy_sees_the_real_types_of_the_live_names(tmp_path):
    problems = mypy_says(LIVE_PROBES, tmp_path)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# private by name
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModuleNames:
    """What one module's source says about its names."""

    exported: tuple[str, ...] | None  # its __all__, or None when it has no literal one
    bound: frozenset[str]  # every name bound at module level (definitions and imports)
    defined: tuple[str, ...]  # functions, classes and assigned names, in order
    private_imports: tuple[str, ...]  # "line N: from X import _y" for each private name imported


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a module body, those inside top-level ``if`` and ``try`` blocks too."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += _top_level(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            found += _top_level(node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body])
    return found


def _targets(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return [n for elt in node.elts for n in _targets(elt)]
    return []


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def read_names(source: str, module: str, is_package: bool, all_of=None) -> ModuleNames:
    """The names of one module, from its source alone.

    ``all_of(dotted)`` gives another module's ``__all__`` (for ``from X import *`` and
    ``from X import __all__ as __all__``). Importing a private *module* of one's own package
    (``from . import _answers``) is allowed: a file whose name starts with ``_`` serves its package.
    """
    all_of = all_of or (lambda dotted: names_of(dotted).exported or ())
    exported: tuple[str, ...] | None = None
    bound: set[str] = set()
    defined: list[str] = []
    private: list[str] = []
    for node in _top_level(ast.parse(source).body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n for t in targets for n in _targets(t)]
            if names == ["__all__"]:
                value = node.value
                if isinstance(value, ast.List | ast.Tuple) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
                ):
                    exported = tuple(e.value for e in value.elts)  # type: ignore[union-attr]
            else:
                defined += names
        elif isinstance(node, ast.Import):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node)
            for alias in node.names:
                if alias.name == "*":
                    bound |= set(all_of(target))
                elif alias.name == "__all__" and alias.asname == "__all__":
                    exported = tuple(all_of(target))
                else:
                    bound.add(alias.asname or alias.name)
                own_package = target.rsplit(".", 1)[0] if not is_package else target
                sibling_module = (PACKAGE.parent / Path(*f"{target}.{alias.name}".split("."))).with_suffix(".py")
                allowed_module = sibling_module.is_file() and module.startswith(own_package)
                if target.startswith("custody_lab") and _is_private(alias.name) and not allowed_module:
                    private.append(f"line {node.lineno}: from {target} import {alias.name}")
                if target.startswith("custody_lab") and _is_private(target.rsplit(".", 1)[-1]):
                    owner = target.rsplit(".", 1)[0]
                    if not module.startswith(owner):
                        private.append(f"line {node.lineno}: from {target} (a private module of {owner})")
    return ModuleNames(exported, frozenset(bound | set(defined)), tuple(defined), tuple(private))


def names_of(dotted: str) -> ModuleNames:
    path = module_path(dotted)
    return read_names(path.read_text(encoding="utf-8"), dotted, path.name == "__init__.py")


def private_marking_problems(names: ModuleNames) -> list[str]:
    if names.exported is None:
        return ["has no literal __all__ (a list of the names it promises)"]
    problems = [f"__all__ lists {n!r}, which the module never binds" for n in names.exported if n not in names.bound]
    problems += [
        f"{n!r} is neither in __all__ nor marked private with a leading '_'"
        for n in dict.fromkeys(names.defined)
        if not n.startswith("_") and n not in names.exported
    ]
    problems += [f"imports a private name: {p}" for p in names.private_imports]
    return problems


def test_the_private_marking_check_finds_each_kind_of_problem():
    def check(source: str, module: str = "custody_lab.core.demo") -> list[str]:
        return private_marking_problems(read_names(source, module, False, all_of=lambda _: ("star",)))

    assert check("__all__ = ['a']\ndef a(): ...\ndef _b(): ...\n_C = 1\n__version__ = '1'\n") == []
    assert check("def a(): ...\n") == ["has no literal __all__ (a list of the names it promises)"]
    assert check("__all__ = sorted(['a'])\na = 1\n") == ["has no literal __all__ (a list of the names it promises)"]
    assert check("__all__ = ['a', 'gone']\na = 1\n") == ["__all__ lists 'gone', which the module never binds"]
    assert check("__all__ = []\nclass Helper: ...\n") == [
        "'Helper' is neither in __all__ nor marked private with a leading '_'"
    ]
    assert check("__all__ = []\nif True:\n    LIMIT = 3\n") == [
        "'LIMIT' is neither in __all__ nor marked private with a leading '_'"
    ]
    assert check("__all__ = ['x']\nfrom .model import _check as x\n") == [
        "imports a private name: line 2: from custody_lab.core.model import _check"
    ]
    assert check("__all__ = ['star']\nfrom .model import *\n") == []
    assert check("from .model import __all__ as __all__\nfrom .model import *\n") == []
    private_module = "__all__ = []\nfrom custody_lab.teaching.exercise_sets._answers import the_one\n"
    assert check(private_module, "custody_lab.core.demo") == [
        "imports a private name: line 2: from custody_lab.teaching.exercise_sets._answers "
        "(a private module of custody_lab.teaching.exercise_sets)"
    ]
    own_package = "__all__ = []\nfrom . import _answers\nfrom ._answers import the_one\n"
    assert check(own_package, "custody_lab.teaching.exercise_sets.route") == []


@pytest.mark.parametrize("dotted", [pytest.param(dotted_name(p), id=dotted_name(p)) for p in package_modules()])
def test_every_module_promises_its_names_in_all_and_marks_the_rest_private(dotted):
    problems = private_marking_problems(names_of(dotted))
    assert not problems, f"{dotted}:\n" + "\n".join(problems)
