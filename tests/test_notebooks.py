"""Every notebook: committed without outputs, one kernelspec, the lesson frame, and it runs."""

from __future__ import annotations

import ast
import os
import time
from pathlib import Path

import nbformat
import pytest

from .page_scan import answers_shown_early
from .timing import scaled

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks_and_the_listing_is_the_lesson_plan():
    assert NOTEBOOKS, "no notebooks found under notebooks/"
    names = [p.name for p in NOTEBOOKS]
    assert names[0] == "00-start-here.ipynb"
    for name in names:
        number, _, rest = name.partition("-")
        assert number.isdigit() and len(number) == 2 and rest.endswith(".ipynb"), name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs_and_with_the_python3_kernel(path):
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernelspec"
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_what_youll_do_learn_need_and_ends_with_a_recap(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    assert first.startswith("# "), f"{path.name}: the first cell must be '# Title'"
    for heading in ("What you'll do", "What you'll learn", "What you'll need"):
        assert heading in first, f"{path.name}: first cell lacks {heading!r}"
    last_md = [c for c in nb.cells if c.cell_type == "markdown"][-1].source
    assert "Recap" in last_md, f"{path.name}: the last markdown cell must be the recap"


def cell_tree(source: str) -> ast.Module:
    """One code cell as Python: IPython magics and shell lines blanked, a ``%%writefile`` cell
    (it holds a file's text, not lesson code) empty."""
    if source.startswith("%%writefile"):
        return ast.Module(body=[], type_ignores=[])
    return ast.parse("\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()))


def notebook_imports(source: str) -> list[tuple[int, str]]:
    """``(line, import path)`` for each ``custody_lab`` import in one code cell's source.

    ``import custody_lab.x as y`` gives ``custody_lab.x``; ``from custody_lab.x.y import z`` gives
    ``custody_lab.x.y``; ``from custody_lab import z`` gives ``custody_lab.z`` when ``z`` is not a
    name the package itself exports (read by :func:`cell_tree`).
    """
    found: list[tuple[int, str]] = []
    for node in ast.walk(cell_tree(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "custody_lab"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "custody_lab":
            assert node.module is not None
            if node.module == "custody_lab":
                import custody_lab

                found += [
                    (node.lineno, f"custody_lab.{a.name}") for a in node.names if a.name not in custody_lab.__all__
                ]
            else:
                found.append((node.lineno, node.module))
    return found


def private_imports(source: str) -> list[str]:
    """The imports of one cell that name a ``custody_lab`` path docs/design.md does not list."""
    from .test_public_api import public_paths

    public = set(public_paths())
    return [f"line {line}: {path}" for line, path in notebook_imports(source) if path not in public]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_imports_only_the_public_paths_of_the_design_page(path):
    nb = nbformat.read(path, as_version=4)
    code = [(i, c.source) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    imports = [imp for _, source in code for imp in notebook_imports(source)]
    assert imports, f"{path.name}: no custody_lab import found in {len(code)} code cells (is the reader broken?)"
    bad = [f"cell {i}, {problem}" for i, source in code for problem in private_imports(source)]
    assert not bad, f"{path.name} imports paths outside docs/design.md's public surface:\n" + "\n".join(bad)


def imported_names(source: str) -> list[tuple[str, str]]:
    """``(public path, name)`` for each ``from custody_lab… import name`` of one cell."""
    return [
        (node.module, alias.name)
        for node in ast.walk(cell_tree(source))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "custody_lab"
        for alias in node.names
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_name_a_notebook_imports_is_promised_by_its_public_path(path):
    from importlib import import_module

    from .test_public_api import public_paths

    public = set(public_paths())
    nb = nbformat.read(path, as_version=4)
    names = [pair for c in nb.cells if c.cell_type == "code" for pair in imported_names(c.source)]
    unpromised = [
        f"from {module} import {name}"
        for module, name in names
        if module in public and name not in import_module(module).__all__ and f"{module}.{name}" not in public
    ]
    assert not unpromised, f"{path.name} imports names its public paths do not list in __all__: {unpromised}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import custody_lab.cli as cli\ncli.main([])", ["line 1: custody_lab.cli"]),
        ("from custody_lab.core.model import Case", ["line 1: custody_lab.core.model"]),
        ("from custody_lab.live.hostile import HostileServer", ["line 1: custody_lab.live.hostile"]),
        ("from custody_lab import cli, route", ["line 1: custody_lab.cli"]),
        ("if True:\n    from custody_lab.views import figures", ["line 2: custody_lab.views"]),
        ("%matplotlib inline\nimport custody_lab.views.html", ["line 2: custody_lab.views.html"]),
        ("import custody_lab as cl\nimport custody_lab.sweep as sw\nfrom custody_lab import chart, route", []),
        ("from custody_lab.live import LabSession\n!custody-lab live", []),
        ("%%writefile server.py\nfrom custody_lab.cli import main", []),
    ],
)
def test_the_notebook_import_check_flags_every_path_outside_the_public_surface(source, expected):
    assert private_imports(source) == expected, source


class _Timings:
    """What a run saw of each cell: how long it took, and which wrote into an Output widget."""

    def __init__(self) -> None:
        self.began: dict[int, float] = {}
        self.seconds: dict[int, float] = {}
        self.captured: list[int] = []
        self.cell = -1


def run_notebook(nb: nbformat.NotebookNode, folder: Path, timeout: float) -> _Timings:
    """Execute ``nb`` in a ``python3`` kernel with nbclient, as CI and Voila run a notebook.

    Returns each code cell's duration and the cells during which the kernel captured output into
    an ``Output`` widget (nbclient then mimics the page: it answers each output with a
    ``comm_msg`` on the shell channel while it waits there for the cell's reply, a send that can
    swallow the reply's wake-up so the cell ends only at its timeout, without an error: issue 38's
    600 s stall of notebook 03's ``@interact`` cell).
    """
    from nbclient import NotebookClient

    seen = _Timings()

    class Recording(NotebookClient):
        def register_output_hook(self, msg_id: str, hook: object) -> None:
            seen.captured.append(seen.cell)
            super().register_output_hook(msg_id, hook)  # type: ignore[arg-type]

    def began(cell: object, cell_index: int) -> None:
        seen.cell, seen.began[cell_index] = cell_index, time.monotonic()

    def ended(cell: object, cell_index: int, execute_reply: object) -> None:
        seen.seconds[cell_index] = time.monotonic() - seen.began[cell_index]

    env_before = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    try:
        Recording(
            nb,
            timeout=int(timeout),
            kernel_name="python3",
            resources={"metadata": {"path": str(folder)}},
            on_cell_execute=began,
            on_cell_executed=ended,
        ).execute()
    finally:
        if env_before is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_before
    return seen


@pytest.mark.notebook
@pytest.mark.slow
def test_the_output_widget_check_flags_interact_and_passes_the_picker():
    cells = [
        "from ipywidgets import interact\ninteract(lambda uri: uri.upper(), uri=['kb://a', 'kb://b'])",
        "from custody_lab.widgets import Picker\nPicker(lambda uri: uri.upper(), uri=['kb://a', 'kb://b'])",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    seen = run_notebook(nb, ROOT, timeout=scaled(120))
    assert seen.captured == [0], f"expected only the interact cell (0) to be flagged; got {seen.captured}"


@pytest.mark.notebook
@pytest.mark.slow
def test_notebook_03_runs_three_times_with_no_cell_reaching_its_timeout():
    """Issue 38: 03 stalled for exactly its 600 s cell timeout in 2 of 4 runs, then went on without
    an error. A stalled cell ends *at* its timeout, so a run whose cells all end well before it,
    three times over with a timeout far below 600 s, is a run that did not stall."""
    path = ROOT / "notebooks" / "03-expand-and-match-uri-templates.ipynb"
    timeout = scaled(60)
    for run in range(3):
        seen = run_notebook(nbformat.read(path, as_version=4), path.parent, timeout=timeout)
        stalled = {i: round(s, 1) for i, s in seen.seconds.items() if s >= 0.9 * timeout}
        assert seen.seconds and not stalled, f"run {run + 1}: cells that reached the {timeout:g} s timeout: {stalled}"


@pytest.mark.notebook
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_top_to_bottom_without_an_error(path):
    nb = nbformat.read(path, as_version=4)
    began = time.time_ns()
    seen = run_notebook(nb, path.parent, timeout=scaled(600))
    out = path.parent / "out"
    stale = [f for f in WRITES.get(path.name, ()) if not (out / f).is_file() or (out / f).stat().st_mtime_ns < began]
    assert not stale, f"{path.name} did not write {stale} into notebooks/out/ (cl.work_folder), beside the notebook"
    assert not seen.captured, (
        f"{path.name}: cells {sorted(set(seen.captured))} write into an ipywidgets Output widget while they run "
        "(@interact, `with out:`); a runner then answers on the shell channel and can stall for its whole "
        "cell timeout: show the result in an HTML value (custody_lab.widgets.Picker) instead"
    )
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}"
    unworded = images_without_words(nb)
    assert not unworded, f"{path.name}: images without alternative text in cells {unworded}"
    shown_early = answers_shown_early(nb)
    assert not shown_early, f"{path.name}: answers on the page before their question: " + "; ".join(shown_early)


#: The files each notebook writes into its work folder (``cl.work_folder``): ``notebooks/out/`` in
#: JupyterLab, a temporary folder of the page's own when presented (issue 27 §3).
WRITES = {
    "02-read-the-custody-matrix.ipynb": ("matrix.png", "matrix.svg", "strict.png"),
    "06-ask-what-if.ipynb": ("support-desk-strict.csv", "policy-comparison.svg", "from-the-command-line.csv"),
    "11-design-your-servers-custody.ipynb": ("capstone/notes_server.py", "capstone/notes-server-receipts.jsonl"),
}


def folder_files(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` that git sees as changed, untracked or ignored
    (``git status --porcelain --ignored``, each file of an ignored folder listed), by its path in the
    repository, with its modification time in nanoseconds: a file written again changes its entry,
    a new one adds one."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout

    top = Path(git("rev-parse", "--show-toplevel").strip())
    listed = git("status", "--porcelain", "--ignored=traditional", "--untracked-files=all", "--no-renames", "--", ".")
    found = {}
    for line in listed.splitlines():
        path = top / line[3:].strip('"')
        if path.is_file():
            found[line[3:].strip('"')] = path.stat().st_mtime_ns
    return found


def test_the_file_listing_sees_a_new_ignored_file_and_one_written_again(tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("out/\n")
    (tmp_path / "notebooks" / "out").mkdir(parents=True)
    (tmp_path / "notebooks" / "out" / "a.png").write_text("a")
    before = folder_files(tmp_path / "notebooks")
    assert set(before) == {"notebooks/out/a.png"}, before
    os.utime(tmp_path / "notebooks" / "out" / "a.png", ns=(1, 1))
    (tmp_path / "notebooks" / "out" / "capstone").mkdir()
    (tmp_path / "notebooks" / "out" / "capstone" / "b.py").write_text("b")
    after = folder_files(tmp_path / "notebooks")
    assert {p for p in after if before.get(p) != after[p]} == {"notebooks/out/a.png", "notebooks/out/capstone/b.py"}


@pytest.mark.notebook
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_presented_notebook_writes_nothing_into_the_repository_folder(name, monkeypatch):
    """Run as ``custody-lab present`` runs its kernels (``voila_env``): the page's charts, CSV files
    and server go to a temporary folder of its own, and nothing under ``notebooks/`` is new or
    written again (issue 27 §3). The normal run (:func:`test_notebook_runs_top_to_bottom_without_an_error`)
    checks that the same files land in ``notebooks/out/`` in JupyterLab."""
    from custody_lab.delivery import voila_env

    path = ROOT / "notebooks" / name
    for key, value in voila_env("light").items():
        monkeypatch.setenv(key, value)
    before = folder_files(path.parent)
    nb = nbformat.read(path, as_version=4)
    run_notebook(nb, path.parent, timeout=scaled(600))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{name}: {errors[0].ename}: {errors[0].evalue}"
    after = folder_files(path.parent)
    written = sorted(p for p in after if before.get(p) != after[p])
    assert not written, f"{name}, presented, wrote into the repository folder: {written}"
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert any(f in printed for f in WRITES[name]), f"{name}: no output names the files it wrote"


def images_without_words(nb: nbformat.NotebookNode) -> list[int]:
    """Code cells whose output shows an image with no alternative text.

    A PNG/SVG output needs an ``alt`` in its metadata (``IPython.display.Image(..., alt=...)``);
    an ``<img>`` inside HTML needs a non-empty ``alt`` attribute (a described figure has both that
    and its table under "Text equivalent").
    """
    import re

    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data, meta = out.get("data", {}), out.get("metadata", {})
            for mime in ("image/png", "image/svg+xml", "image/jpeg"):
                if mime in data and not (meta.get(mime, {}) or {}).get("alt") and "text/html" not in data:
                    found.append(i)
            for img in re.findall(r"<img\b[^>]*>", str(data.get("text/html", ""))):
                if not re.search(r'\balt="[^"]+"', img):
                    found.append(i)
    return sorted(set(found))


def test_the_image_check_flags_a_bare_figure_and_accepts_alt_text():
    bare = nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("display_data", data={"image/png": "iVBOR"})])
    html = nbformat.v4.new_code_cell(
        outputs=[nbformat.v4.new_output("display_data", data={"text/html": '<img src="x.png">'})]
    )
    worded = nbformat.v4.new_code_cell(
        outputs=[
            nbformat.v4.new_output(
                "display_data", data={"image/png": "iVBOR"}, metadata={"image/png": {"alt": "a matrix"}}
            ),
            nbformat.v4.new_output("display_data", data={"text/html": '<img alt="two bars" src="x.png">'}),
        ]
    )
    assert images_without_words(nbformat.v4.new_notebook(cells=[bare, html, worded])) == [0, 1]


def test_the_start_notebooks_map_lists_exactly_the_notebooks_that_exist():
    nb = nbformat.read(ROOT / "notebooks" / "00-start-here.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    import re

    listed = set(re.findall(r"^\| `(\d\d-[a-z0-9-]+)` \|", text, re.M))
    existing = {p.stem for p in NOTEBOOKS}
    assert listed == existing, (
        f"map lists {sorted(listed - existing)} that do not exist; missing {sorted(existing - listed)}"
    )
