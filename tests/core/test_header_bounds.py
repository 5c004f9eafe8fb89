"""A CSV header of 40,000 unknown columns is read in one pass (issue 24 §1), by ``route``,
``sweep`` / ``load_inventory`` and ``csv_to_json`` alike: the first problems are explained one by
one, in column order, and the rest are counted in one more problem.

No timing: the cost is shown by how many close-name searches run (each is a difflib similarity
search over the case fields), and the answer by its problems.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from custody_lab.core import model
from custody_lab.core.csv_table import header_problems
from custody_lab.core.errors import CaseFileError
from custody_lab.core.loading import read_cases
from custody_lab.core.model import MAX_EXPLAINED_COLUMNS
from custody_lab.protocol.text_structure import MAX_LISTED_NAMES
from custody_lab.protocol.transforms import Source, TransformError, csv_to_json
from custody_lab.sweep import load_inventory

WIDE = 40_000


def wide_header_file(tmp_path: Path, *, repeated: int = 0) -> Path:
    """``id``, then 40,000 columns that are not case fields (``extra0`` ...), then ``repeated``
    more copies of ``id``; one data row. About 350 KB, as in the issue."""
    names = ["id", *(f"extra{i}" for i in range(WIDE)), *["id"] * repeated]
    path = tmp_path / "forty-thousand-unknown-columns.csv"
    path.write_text(",".join(names) + "\n" + ",".join(["x"] * len(names)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every close-name search the header check runs, by column name."""
    seen: list[str] = []
    search = difflib.get_close_matches

    def counted(word: str, *args: object, **kwargs: object) -> list[str]:
        seen.append(word)
        return search(word, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(model.difflib, "get_close_matches", counted)
    return seen


def test_a_header_of_40000_unknown_columns_explains_the_first_ten_and_counts_the_rest(searches):
    header = ["id", *(f"extra{i}" for i in range(WIDE))]
    problems = header_problems(header, "wide.csv line 1")
    assert len(problems) == MAX_EXPLAINED_COLUMNS + 1, len(problems)
    assert [p.field for p in problems[:-1]] == [f"extra{i}" for i in range(MAX_EXPLAINED_COLUMNS)], problems[:3]
    assert problems[-1].message.startswith(f"and {WIDE - MAX_EXPLAINED_COLUMNS:,} more unknown columns"), problems[-1]
    assert {p.location for p in problems} == {"wide.csv line 1"}
    assert searches == [f"extra{i}" for i in range(MAX_EXPLAINED_COLUMNS)], f"{len(searches):,} similarity searches"


def test_columns_named_twice_past_the_cap_are_counted_too_and_a_close_name_is_still_offered():
    header = ["id", "sideEfects", *(f"x{i}" for i in range(20)), *["id"] * 5]
    problems = header_problems(header, "g.csv line 1")
    assert "did you mean 'sideEffects'?" in problems[0].message, problems[0].message
    assert problems[-1].message.startswith("and 11 more unknown columns and 5 more columns named more than once")


def test_a_header_within_the_cap_is_explained_whole_with_no_summary_line():
    header = ["id", *(f"x{i}" for i in range(MAX_EXPLAINED_COLUMNS - 1)), "id"]
    problems = header_problems(header, "g.csv line 1")
    assert len(problems) == MAX_EXPLAINED_COLUMNS and "appears more than once" in problems[-1].message, problems[-1]


def test_route_reads_the_wide_file_in_one_pass_and_names_the_file_and_the_first_columns(tmp_path, searches):
    path = wide_header_file(tmp_path, repeated=3)
    result = read_cases(path)
    assert result.cases == [] and len(result.problems) == MAX_EXPLAINED_COLUMNS + 1, len(result.problems)
    assert result.problems[0].location == f"{path.name} line 1" and "'extra0'" in result.problems[0].message
    assert result.problems[-1].message.startswith("and 39,990 more unknown columns and 3 more columns named more than")
    assert len(searches) == MAX_EXPLAINED_COLUMNS, len(searches)


def test_load_inventory_refuses_the_wide_file_with_routes_problems(tmp_path, searches):
    path = wide_header_file(tmp_path)
    with pytest.raises(CaseFileError) as caught:
        load_inventory(path)
    problems = caught.value.problems
    assert [(p.location, p.field) for p in problems] == [(p.location, p.field) for p in read_cases(path).problems]
    assert str(path) in str(caught.value) and "39,990 more unknown columns" in str(caught.value)
    assert len(searches) == 2 * MAX_EXPLAINED_COLUMNS, "ten searches for load_inventory, ten for read_cases"


def test_csv_to_json_reads_the_wide_file_whole_and_lists_only_the_first_repeated_names(tmp_path):
    path = wide_header_file(tmp_path)
    done = csv_to_json(Source(path.as_uri(), "text/csv", path.read_bytes()))
    assert done.step.source_range.total == 1 and done.text.count('"x"') == WIDE + 1, done.step
    names = [f"n{i % 20_000}" for i in range(WIDE)]
    with pytest.raises(TransformError) as caught:
        csv_to_json(Source("file:///dup.csv", "text/csv", (",".join(names) + "\n").encode()))
    listed = [f"n{i}" for i in range(MAX_LISTED_NAMES)]
    assert f"these are not: {listed} and 19,990 more" in str(caught.value), str(caught.value)[:300]
