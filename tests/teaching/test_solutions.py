"""Facilitators' solutions: every exercise's reference answer, and never in a learner's notebook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from custody_lab import cli, exercises
from custody_lab.teaching.solutions import Solution, format_solutions, solutions_table

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_lists_every_exercise_once_in_order_with_its_title():
    rows = solutions_table()
    known = exercises.all_exercises()
    assert known, "no exercises are registered"
    assert [r.id for r in rows] == [e.id for e in known], "the table and the registry disagree"
    assert [r.title for r in rows] == [e.title for e in known]


@pytest.mark.parametrize("row", solutions_table(), ids=lambda r: r.id)
def test_every_reference_answer_in_the_table_passes_its_own_check(row):
    result = exercises.check(row.id, row.answer)
    assert result.passed, f"{row.id}: reference answer {row.answer!r} fails its check: {result}"


def test_the_solutions_command_prints_one_line_per_exercise(capsys):
    assert cli.main(["solutions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = solutions_table()
    assert lines[0].startswith("# Reference answers, for facilitators"), lines[:1]
    assert len(lines) == 1 + len(rows), lines
    for line, row in zip(lines[1:], rows):
        assert line.startswith(row.id) and line.rstrip().endswith(row.answer_text()), (line, row)


def test_the_solutions_command_filters_by_prefix_and_prints_json(capsys):
    topic = solutions_table()[0].id.rsplit("-", 1)[0]
    assert cli.main(["solutions", topic, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["id"].startswith(topic) for r in rows), rows
    assert set(rows[0]) == {"id", "title", "answer"}


def test_an_unknown_prefix_is_an_error_not_an_empty_table(capsys):
    assert cli.main(["solutions", "no-such-topic"]) == 2
    assert "no exercise id starts with 'no-such-topic'" in capsys.readouterr().out


def test_an_answer_json_cannot_hold_is_given_as_its_repr():
    assert Solution("x-01", "t", b"\x89PNG").to_dict()["answer"] == "b'\\x89PNG'"
    assert format_solutions([]) == ""


def test_no_learner_notebook_shows_the_solutions():
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks, "no notebooks found"
    leaks = []
    for path in notebooks:
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "code" and re.search(
                r"custody_lab\.solutions|solutions_table|custody-lab solutions", cell.source
            ):
                leaks.append(f"{path.name} cell {i}")
    assert not leaks, f"learner notebooks that print the solutions: {leaks}"
