"""Questions before answers, and answers that vary (issue 22 §1 and §2).

The executed scan runs inside ``tests/test_notebooks.py`` (it needs every notebook's outputs); here
the same scan reads the committed sources, which is quick, and the scan itself is tested on small
notebooks with a known giveaway so that a scan which finds nothing cannot pass unnoticed.
"""

from __future__ import annotations

import collections
from pathlib import Path

import nbformat
import pytest

from custody_lab.exercises import all_exercises, get
from custody_lab.teaching.answers import normalise

from .page_scan import answers_shown_early, asked_cells

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def _notebook(*cells: tuple[str, str, str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for kind, source, printed in cells:
        if kind == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(source))
        else:
            cell = nbformat.v4.new_code_cell(source)
            if printed:
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
            nb.cells.append(cell)
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_source_cell_answers_a_question_before_it_is_asked(path):
    shown = answers_shown_early(nbformat.read(path, as_version=4))
    assert not shown, f"{path.name}: " + "; ".join(shown)


def test_every_exercise_is_asked_by_some_notebook():
    asked = set()
    for path in NOTEBOOKS:
        asked |= set(asked_cells(nbformat.read(path, as_version=4).cells))
    missing = sorted(e.id for e in all_exercises() if e.id not in asked)
    assert not missing, f"exercises no notebook asks: {missing}"


def _key(exercise_id: str) -> str:
    exercise = get(exercise_id)
    value, _ = normalise(exercise.reference(), exercise.wanted_kind())
    if isinstance(value, set | frozenset):
        value = sorted(map(repr, value))
    return repr(value)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_single_answer_is_the_reference_of_more_than_half_a_notebooks_exercises(path):
    ids = sorted(asked_cells(nbformat.read(path, as_version=4).cells))
    if len(ids) < 2:
        pytest.skip(f"{path.name} asks {len(ids)} exercise(s)")
    counts = collections.Counter(_key(i) for i in ids)
    answer, times = counts.most_common(1)[0]
    holders = [i for i in ids if _key(i) == answer]
    assert times * 2 <= len(ids), f"{path.name}: {times} of its {len(ids)} exercises share one answer ({holders})"


def test_every_exercise_has_at_least_two_specific_mistakes_and_its_own_two_general_hints():
    thin = {e.id: len(e.mistakes) for e in all_exercises() if len(e.mistakes) < 2}
    assert not thin, f"exercises with fewer than two specific mistake hints: {thin}"
    generic = [e.id for e in all_exercises() if len(e.hints) < 2]
    assert not generic, (
        f"exercises that fall back on the lab's generic hints (give each its own two `hints`): {generic}"
    )


# --------------------------------------------------------------------------------------------
# The scan finds what it is meant to find, and only that
# --------------------------------------------------------------------------------------------


def test_a_printed_number_before_its_question_is_found_in_any_thousands_form():
    for printed in ("decoded: 105 bytes", "105"):
        nb = _notebook(("code", "blob = decode()", printed), ("code", 'check("blob-01", answer)', ""))
        assert answers_shown_early(nb) == ["blob-01: '105' in the output of cell 0 (before the question in cell 1)"]
    later = _notebook(("code", 'check("blob-01", answer)', ""), ("code", "blob = decode()", "105 bytes"))
    assert answers_shown_early(later) == []
    near = _notebook(("code", "x", "1050 bytes, 2.105 s, 105.5"), ("code", 'check("blob-01", answer)', ""))
    assert answers_shown_early(near) == []


def test_a_label_pair_printed_before_its_question_is_found():
    nb = _notebook(
        ("code", "labels(case)", "{'initiator': 'model', 'executor': 'server'}"),
        ("code", 'ExercisePanel("actor-01")', ""),
    )
    assert answers_shown_early(nb) == [
        "actor-01: 'initiator: model, executor: server' in the output of cell 0 (before the question in cell 1)"
    ]
    one_pair = _notebook(("code", "x", "initiator: model"), ("code", 'ExercisePanel("actor-01")', ""))
    assert answers_shown_early(one_pair) == []


def test_a_worked_example_with_the_same_input_is_found_in_markdown():
    nb = _notebook(
        ("markdown", "Expanding gives `exports://Q3%20report%2Ffinal.csv`.", ""),
        ("code", 'check("uri-02", answer)', ""),
    )
    (problem,) = answers_shown_early(nb)
    assert problem.startswith("uri-02: 'exports://Q3%20report%2Ffinal.csv' in the source of cell 0")


def test_the_scenarios_code_printed_beside_its_input_is_found_but_the_code_alone_is_not():
    uri = "assets://scan-2026-08-31"
    beside = _notebook(("code", "sniff(blob)", f"{uri}: application/pdf"), ("code", 'check("blob-02", a)', ""))
    assert answers_shown_early(beside) == [
        "blob-02: the scenario's result 'application/pdf' in the output of cell 0 (before the question in cell 1)"
    ]
    alone = _notebook(("code", "x", "a PDF is application/pdf"), ("code", 'check("blob-02", a)', ""))
    assert answers_shown_early(alone) == []


def test_a_selection_worked_through_before_its_question_is_found():
    listing = "\n".join(f"{u}: ok" for u in get_input_uris("revision-01"))
    nb = _notebook(("code", "for u in uris: classify(u)", listing), ("code", 'check("revision-01", a)', ""))
    (problem,) = answers_shown_early(nb)
    assert "every URI of its input worked through" in problem


def get_input_uris(exercise_id: str) -> list[str]:
    from custody_lab.exercises import input_for

    return [str(u) for u in input_for(exercise_id)]  # type: ignore[union-attr]


def test_all_of_a_code_lists_answer_printed_together_is_found_but_a_table_of_candidates_is_not():
    codes = "['order-by-priority', 'show-last-modified', 'gated-read']"
    nb = _notebook(("code", "policy.hints()", f"chosen: {codes}"), ("code", 'check("hint-01", a)', ""))
    (problem,) = answers_shown_early(nb)
    assert "all of its answer's codes" in problem
    table = " ".join(f"row-{n} value-{n} other-{n}" for n in range(30)) + " " + codes
    candidates = _notebook(("code", "inventory", table), ("code", 'check("hint-01", a)', ""))
    assert answers_shown_early(candidates) == []


def test_at_least_six_notebooks_hide_their_main_demonstration_until_the_learner_predicts():
    import re

    panel = re.compile(r"\b(?:PredictPanel|PredictThenSee)\(\s*[\"'][a-z]+-\d\d[\"']")
    with_panel = [
        p.stem
        for p in NOTEBOOKS
        if any(c.cell_type == "code" and panel.search(c.source) for c in nbformat.read(p, as_version=4).cells)
    ]
    assert len(with_panel) >= 6, f"only {with_panel} ask for a prediction before their demonstration"


def test_a_table_that_leads_to_the_answers_label_is_found_but_a_glossary_of_the_values_is_not():
    """Issue 37 §4: notebook 02 gave actor-01 and actor-02 a table whose last column was the
    executor label of each method."""
    lookup = "| the method | the server | executor label |\n| --- | --- | --- |\n| `tools/call` | runs it | `server` |"
    nb = _notebook(("markdown", lookup, ""), ("code", 'PredictThenSee("actor-01", f)', ""))
    assert answers_shown_early(nb) == [
        "actor-01: a table leads to 'executor: server' in the source of cell 0 (before the question in cell 1)"
    ]
    glossary = "| `executor` | what it means |\n| --- | --- |\n| `server` | the party that runs a tool |"
    roles = "| the method | the server |\n| --- | --- |\n| `tools/call` | *runs* the operation |"
    for table in (glossary, roles):
        nb = _notebook(("markdown", table, ""), ("code", 'PredictThenSee("actor-01", f)', ""))
        assert answers_shown_early(nb) == [], table


def test_the_answer_said_in_the_prose_that_introduces_its_question_is_found_but_not_in_its_options():
    """Issue 37 §4: "Nobody approves it" stood above present-02, whose answer is ``nobody``."""
    question = "### `present-02` · Approved by?\n\n- `nobody`: no approval on record\n- `gate`: the gate"
    said = _notebook(("markdown", f"Nobody approves it.\n\n{question}", ""), ("code", 'check("present-02", a)', ""))
    assert answers_shown_early(said) == [
        "present-02: its answer 'nobody' in the Markdown that introduces it (cell 0, before the question in cell 1)"
    ]
    asked = _notebook(
        ("markdown", f"The consent log is empty.\n\n{question}", ""), ("code", 'check("present-02", a)', "")
    )
    listed = _notebook(
        ("markdown", "Options:\n\n- `nobody`: none\n- `gate`: the gate", ""), ("code", 'check("present-02", a)', "")
    )
    earlier = _notebook(
        ("markdown", "Nobody approves it.", ""), ("code", "x = 1", ""), ("code", 'check("present-02", a)', "")
    )
    for nb in (asked, listed, earlier):
        assert answers_shown_early(nb) == [], nb.cells[0].source
