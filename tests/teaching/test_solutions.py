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


def test_the_solutions_command_prints_each_answer_on_one_line_and_its_reason_on_the_next(capsys):
    assert cli.main(["solutions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = solutions_table()
    assert lines[0].startswith("# Reference answers and their reasons, for facilitators"), lines[:1]
    assert len(lines) == 1 + 2 * len(rows), f"expected {1 + 2 * len(rows)} lines, got {len(lines)}"
    for answer, why, row in zip(lines[1::2], lines[2::2], rows, strict=True):
        assert answer.startswith(row.id) and answer.rstrip().endswith(row.answer_text()), (answer, row)
        assert why.strip() == f"why: {row.why}", (why, row.why)


def test_the_solutions_command_filters_by_prefix_and_prints_json(capsys):
    topic = solutions_table()[0].id.rsplit("-", 1)[0]
    assert cli.main(["solutions", topic, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["id"].startswith(topic) for r in rows), rows
    assert set(rows[0]) == {"id", "notebook", "title", "answer", "why"}
    assert all(r["why"] == exercises.get(r["id"]).why for r in rows), rows


def test_an_unknown_prefix_is_an_error_not_an_empty_table(capsys):
    assert cli.main(["solutions", "no-such-topic"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no exercise id starts with 'no-such-topic'; the topics are: "), err
    assert "blob" in err.split("the topics are: ")[1].strip().split(", "), err


def test_a_topic_is_found_in_any_letter_case(capsys):
    assert cli.main(["solutions", "BLOB"]) == 0
    ids = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:] if not line.startswith(" ")]
    assert ids and ids == [r.id for r in solutions_table("blob")], ids
    assert [r.id for r in solutions_table(" Blob-01 ")] == ["blob-01"]


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


def _words(value: object) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", str(value).lower()) if len(w) > 2}


@pytest.mark.parametrize("exercise", exercises.all_exercises(), ids=lambda e: e.id)
def test_every_exercise_has_a_one_line_reason_that_does_not_merely_restate_its_answer(exercise):
    why, answer = exercise.why, exercise.reference()
    assert why.strip() and "\n" not in why, f"{exercise.id}: its reason {why!r} must be one non-empty line"
    beyond = _words(why) - _words(answer) - _words(exercise.id)
    assert len(beyond) >= 6, (
        f"{exercise.id}: the reason {why!r} says little beyond the answer {answer!r} (only {sorted(beyond)})"
    )


def test_the_restatement_check_catches_a_reason_that_is_the_answer_again():
    answer = {"rule": "embed-over-budget", "change": "shape"}
    assert len(_words("the rule is embed-over-budget and the change is the shape") - _words(answer)) < 6


def test_the_table_is_terminal_safe_in_text_and_in_json(capsys, monkeypatch):
    hostile = Solution("x-01", "t\x1b]0;title\x07", "a\x1b[2J\u202e", "why\x9b\u2028next")
    text = format_solutions([hostile])
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u202e]", text), repr(text)
    assert "\\x1b" in text and "\\u2028" in text, text
    monkeypatch.setattr("custody_lab.teaching.solutions.solutions_table", lambda prefix=None: [hostile])
    assert cli.main(["solutions", "--json"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u202e]", out), repr(out)
    assert json.loads(out)[0]["why"] == hostile.why


def test_each_solution_names_the_notebook_that_asks_it_in_text_and_json(capsys):
    from custody_lab.teaching.placement import exercise_notebooks

    where = exercise_notebooks()
    rows = solutions_table()
    assert rows and all(r.notebook == where[r.id][0] for r in rows), [(r.id, r.notebook) for r in rows[:5]]
    assert cli.main(["solutions", "blob"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines()[1:] if not line.startswith(" ")]
    assert lines and all(line.split()[1:3] == ["nb", "04"] for line in lines), lines
    assert cli.main(["solutions", "route-01", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["notebook"] == "01-route-a-custody-case.ipynb", row
    assert Solution("x-01", "t", 1).notebook_text() == "nb ?", "an exercise no notebook asks"
