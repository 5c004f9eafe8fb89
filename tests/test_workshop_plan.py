"""The README's 90-minute plan and the notebooks agree: contiguous times, one row per lesson in the
session, and each notebook's own **Time** line equal to its row (or saying it is take-home)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
#: Rows of the plan that are no lesson: the time a room needs around the notebooks.
AROUND = ("start-up", "questions")
ROW = re.compile(r"^\| (\d+):(\d\d)–(\d+):(\d\d) \| (`[^|]*`|[a-z -]+) \|", re.MULTILINE)


def plan() -> list[tuple[int, int, str]]:
    section = README[README.index("### The 90-minute plan") :]
    section = section[: section.index("\n### ", 5)]
    rows = [(int(a) * 60 + int(b), int(c) * 60 + int(d), what.strip("`")) for a, b, c, d, what in ROW.findall(section)]
    assert len(rows) >= 8, f"the plan table has only {len(rows)} rows"
    return rows


def first_cell(path: Path) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])


def test_the_plan_runs_from_0_00_to_1_30_without_gaps_or_overlaps():
    rows = plan()
    assert rows[0][0] == 0 and rows[-1][1] == 90, rows
    for (_, end, what), (start, _, nxt) in zip(rows, rows[1:]):
        assert end == start, f"{what} ends at {end} min but {nxt} starts at {start} min"


def test_every_row_names_a_notebook_that_exists_or_a_break_or_the_recap():
    names = {p.stem for p in NOTEBOOKS}
    for _, _, what in plan():
        assert what in names or what in ("break", "recap", *AROUND), f"plan row {what!r} is not a notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebook_states_the_time_its_plan_row_gives_or_says_it_is_take_home(path):
    rows = {what: end - start for start, end, what in plan()}
    found = re.search(r"\*\*Time\*\* · (?:about (\d+) minutes|after the session)", first_cell(path))
    assert found, f"{path.name}: the first cell has no '**Time** · about N minutes' (or 'after the session') line"
    if path.stem in rows:
        assert found.group(1) and int(found.group(1)) == rows[path.stem], (
            f"{path.name}: says {found.group(0)!r}; the README plan gives {rows[path.stem]} minutes"
        )
    else:
        assert found.group(1) is None, f"{path.name} has no plan row, so its Time line must say 'after the session'"
        assert f"`{path.stem}`" in README, f"{path.name} is not mentioned in the README at all"


# --------------------------------------------------------------------------------------------
# Issue 22 §6: time to start and to ask, and a workshop path without holes
# --------------------------------------------------------------------------------------------

#: A Markdown cell that opens a part for after the session (its first line, a heading or an italic note).
ON_YOUR_OWN = re.compile(
    r"^(?:#+ |\*)[^\n]*(?:OPTIONAL|on your own|after the session|beyond the workshop)", re.IGNORECASE
)
_ASKS = re.compile(r"""\b(?:check|ExercisePanel|PredictPanel|PredictThenSee)\(\s*["']([a-z][a-z0-9]*-\d{2})["']""")
_RANGE = re.compile(r"`([a-z]+)-(\d\d)`\s*(?:…|\.\.\.|to)\s*`\1-(\d\d)`")


def test_the_plan_leaves_ten_minutes_for_start_up_kernel_start_and_questions():
    around = sum(end - start for start, end, what in plan() if what in AROUND)
    assert around >= 10, f"the plan gives {around} minutes to {' and '.join(AROUND)}; at least 10 are needed"
    first = plan()[0]
    assert first[2] == "start-up", f"the plan starts with {first[2]!r}, not the start-up (Binder, kernels)"


def plan_rows() -> dict[str, str]:
    section = README[README.index("### The 90-minute plan") :]
    section = section[: section.index("\n### ", 5)]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[1].startswith("`"):
            rows[cells[1].strip("`")] = cells[3]
    return rows


def workshop_ids(row_text: str) -> list[str]:
    """The exercise ids a plan row gives the room, ``route-01``…``route-04`` ranges included; a
    sentence or clause that leaves them for later ("after the session", "on your own",
    OPTIONAL, take-home) gives none."""
    ids: set[str] = set()
    for clause in re.split(r"(?<=[.;])\s+", row_text):
        if re.search(r"after the session|on your own|OPTIONAL|take-home", clause):
            continue
        ids |= set(re.findall(r"`([a-z]+-\d\d)`", clause))
        for topic, low, high in _RANGE.findall(clause):
            ids |= {f"{topic}-{n:02d}" for n in range(int(low), int(high) + 1)}
    return sorted(ids)


def asked(path: Path) -> tuple[list[dict], dict[str, int]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first: dict[str, int] = {}
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            for exercise_id in _ASKS.findall("".join(cell["source"])):
                first.setdefault(exercise_id, index)
    return cells, first


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebooks_workshop_path_is_contiguous(path):
    row = plan_rows().get(path.stem)
    if row is None:
        pytest.skip(f"{path.stem} is take-home work")
    cells, first = asked(path)
    wanted = workshop_ids(row)
    missing = [i for i in wanted if i not in first]
    assert not missing, f"{path.name}: the plan's row names {missing}, which the notebook does not ask"
    if len(wanted) < 2:
        return
    start, end = min(first[i] for i in wanted), max(first[i] for i in wanted)
    holes = [
        index
        for index in range(start, end)
        if cells[index]["cell_type"] == "markdown" and ON_YOUR_OWN.match("".join(cells[index]["source"]).lstrip())
    ]
    assert not holes, (
        f"{path.name}: an on-your-own part (cells {holes}) sits between the workshop's exercises "
        f"(cells {start}–{end}); move it after the last one"
    )
    later = sorted(i for i, at in first.items() if i not in wanted and start < at < end)
    assert not later, f"{path.name}: exercises outside the plan's row ({later}) sit inside the workshop path"


def test_the_workshop_path_check_finds_ranges_and_a_hole():
    assert workshop_ids("then `route-01`…`route-03` and `link-02`; `uri-05` is for after the session.") == [
        "link-02",
        "route-01",
        "route-02",
        "route-03",
    ]
    assert workshop_ids("`link-01`. The exercises `link-04` … `link-08` are for after the session.") == ["link-01"]
    assert ON_YOUR_OWN.match("## OPTIONAL · Levels 3 and 4") and ON_YOUR_OWN.match("*Beyond the workshop's time*")
    assert not ON_YOUR_OWN.match("The optional section below") and not ON_YOUR_OWN.match("## Read a blob")
