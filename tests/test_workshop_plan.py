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
ROW = re.compile(r"^\| (\d+):(\d\d)–(\d+):(\d\d) \| (`[^|]*`|[a-z ]+) \|", re.MULTILINE)


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
        assert what in names or what in ("break", "recap"), f"plan row {what!r} is not a notebook"


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
