"""The decision exercises of notebooks 01 and 02 (route-NN, receipt-NN): each asks what it claims.

The two-way gate in ``tests/teaching/test_exercises.py`` proves every reference passes and every listed
mistake gets its hint. These tests prove the exercises are about the decision they name: the
references agree with the router and the advisor computed here independently, each "two problems"
case really has two problems, and the notebooks use the exercises.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import custody_lab as cl
from custody_lab.core.explain import diff
from custody_lab.exercises import all_exercises, check, input_for, reveal
from custody_lab.teaching.exercise_sets import CaseChange

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOKS = ROOT / "notebooks"
CODES = [r.code for r in cl.RULES]


def fixture_case(case_id: str, **changes: object) -> cl.Case:
    return cl.load_fixture().case(case_id).with_changes(**changes)


def cells(stem: str, cell_type: str | None = None) -> list[str]:
    nb = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if cell_type in (None, c["cell_type"])]


def notebook_source(stem: str, cell_type: str | None = None) -> str:
    return "\n".join(cells(stem, cell_type))


# --------------------------------------------------------------------------------------------
# The references are the router's and the advisor's decisions
# --------------------------------------------------------------------------------------------


def test_route_01_one_byte_over_the_embed_limit_is_refused_and_the_limit_itself_is_not():
    at_limit = cl.route(fixture_case("approve-draft", bytes=4096))
    over = cl.route(fixture_case("approve-draft", bytes=4097))
    assert at_limit.accepted, f"approve-draft at 4096 bytes: expected accepted, got {at_limit.outcome}"
    assert reveal("route-01") == over.outcome == "embed-over-budget", (
        f"route-01: expected embed-over-budget, reference {reveal('route-01')!r}, router {over.outcome!r}"
    )


def test_route_02_stale_alone_is_accepted_and_only_a_freshness_requirement_refuses_it():
    alone = cl.route(fixture_case("handbook", current=False))
    required = cl.route(fixture_case("handbook", current=False, requiresCurrent=True))
    assert reveal("route-02") == alone.outcome == "listed-resource", (
        f"route-02: reference {reveal('route-02')!r}, router {alone.outcome!r}, expected listed-resource"
    )
    assert required.rejection == "stale-content", f"with requiresCurrent: got {required.outcome}"


def test_an_accepted_prediction_may_be_written_as_accepted_but_a_refusal_may_not():
    assert check("route-02", "accepted").passed, "route-02 (accepted case): 'accepted' should pass"
    assert not check("route-01", "accepted").passed, "route-01 (refused case): 'accepted' must not pass"


@pytest.mark.parametrize(
    ("exercise_id", "case_id", "problems"),
    [
        ("route-03", "handbook", [{"allowed": False}, {"sideEffects": True}]),
        ("receipt-02", "customer-record", [{"provenance": None}, {"current": False, "requiresCurrent": True}]),
    ],
)
def test_a_two_problem_case_has_two_problems_and_the_reference_is_the_earlier_rule(exercise_id, case_id, problems):
    alone = [cl.route(fixture_case(case_id, **problem)).rejection for problem in problems]
    assert None not in alone and len(set(alone)) == 2, (
        f"{exercise_id}: each problem alone should refuse {case_id} with its own code; got {alone}"
    )
    both = {key: value for problem in problems for key, value in problem.items()}
    assert input_for(exercise_id).changes == both, (exercise_id, input_for(exercise_id).changes, both)
    earlier = min(alone, key=CODES.index)
    assert reveal(exercise_id) == earlier, f"{exercise_id}: expected {earlier!r}, reference {reveal(exercise_id)!r}"
    later = max(alone, key=CODES.index)
    assert check(exercise_id, later).hint, f"{exercise_id}: the later rule {later!r} gets no hint"


@pytest.mark.parametrize("exercise_id", ["route-03", "receipt-02"])
def test_a_two_problem_reference_is_the_same_in_live_modes_rule_order(exercise_id):
    """Live mode (``route(case, exchange=...)``, ``LIVE_RULES``) checks permission-denied and
    side-effects-unknown before the exchange, then the content rules; the router's table puts
    custody-incomplete first. The exercise's answer must not depend on which order applies."""
    case = input_for(exercise_id).case()
    table, live = cl.route(case).rejection, cl.route(case, exchange={}).rejection
    assert table == live == reveal(exercise_id), f"{exercise_id}: table {table}, live {live}"


def test_route_04_asks_a_rule_above_at_and_below_the_one_that_failed_and_their_statuses_are_the_traces():
    trace = cl.route(fixture_case("handbook", allowed=False)).trace
    failed = [s.code for s in trace if s.status == "failed"]
    assert failed == ["permission-denied"], f"denied handbook: failed steps {failed}"
    at = CODES.index("permission-denied")
    expected = {}
    for code in reveal("route-04"):
        place = CODES.index(code)
        expected[code] = "passed" if place < at else "failed" if place == at else "not-reached"
    assert reveal("route-04") == expected and set(expected.values()) == {"passed", "failed", "not-reached"}, (
        reveal("route-04"),
        expected,
    )
    assert check("route-04", {k.upper(): v.replace("-", " ") for k, v in expected.items()}).passed
    assert not check("route-04", {**expected, "stale-content": "passed"}).passed


def test_receipt_01_the_given_custody_block_has_exactly_one_gap_and_it_is_the_reference():
    custody = input_for("receipt-01")
    assert isinstance(custody, dict) and list(custody) == list(cl.route(fixture_case("handbook")).to_dict()["custody"])
    gaps = [key for key, value in custody.items() if value is None]
    assert gaps == [reveal("receipt-01")], f"receipt-01: gaps {gaps}, reference {reveal('receipt-01')!r}"
    assert custody["sideEffects"] is False, "the block must hold a false that is not a gap (the mistake it teaches)"
    assert check("receipt-01", " `Provenance` ").passed, "a code-formatted, capitalised key should pass"


def test_receipt_03_the_advisor_recommends_a_link_for_reuse_where_size_alone_would_embed():
    need = input_for("receipt-03")
    assert isinstance(need, dict)
    assert reveal("receipt-03") == cl.advise(**need).shape == "resource-link"
    assert check("receipt-03", "resource_link").passed, "MCP's wire name for the link shape should pass"
    once = cl.advise(**{**need, "reuse": 1}).shape
    assert once == "embedded-resource", f"the same need used once: expected embedded-resource, got {once}"


@pytest.mark.parametrize("exercise_id", ["route-01", "route-02"])
def test_a_prediction_exercise_gives_the_change_its_reference_is_computed_from(exercise_id):
    change = input_for(exercise_id)
    assert isinstance(change, CaseChange), f"{exercise_id}: input {change!r}"
    assert len(change.changes) == 1, f"{exercise_id}: a prediction changes one input, got {change.changes}"
    assert reveal(exercise_id) == cl.route(change.case()).outcome


# --------------------------------------------------------------------------------------------
# The notebooks use them
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stem", "topic"),
    [
        ("01-route-a-custody-case", "route"),
        ("01-route-a-custody-case", "fix"),
        ("02-read-the-custody-matrix", "receipt"),
        ("02-read-the-custody-matrix", "actor"),
        ("02-read-the-custody-matrix", "primitive"),
    ],
)
def test_each_decision_exercise_is_in_its_notebook_with_a_closing_progress_cell(stem, topic):
    code = notebook_source(stem, "code")
    ids = [e.id for e in all_exercises((topic,))]
    assert len(ids) >= 2, f"{topic}: expected at least two exercises, got {ids}"
    missing = [i for i in ids if f'"{i}"' not in code]
    assert not missing, f"{stem}: exercises {missing} are not used in any code cell"
    panels = re.findall(r"ProgressPanel\(\(([^)]*)\)\)", cells(stem, "code")[-1])
    assert any(f'"{topic}"' in panel for panel in panels), f"{stem}: the last cell shows no progress for {topic}"


def test_the_start_notebooks_map_names_exactly_the_exercises_each_notebook_uses():
    text = notebook_source("00-start-here", "markdown")
    rows = dict(re.findall(r"^\| `(\d\d-[a-z0-9-]+)` \|(.*)$", text, re.M))
    known = [e.id for e in all_exercises()]
    assert rows and known, f"map rows {sorted(rows)}, exercises {known}"
    for stem, row in rows.items():
        named = sorted(re.findall(r"`([a-z]+-\d\d)`", row))
        code = notebook_source(stem, "code")
        used = sorted(i for i in known if f'"{i}"' in code)
        assert named == used, f"00's map row for {stem}: names {named}, the notebook's code uses {used}"
    mapped = {i for row in rows.values() for i in re.findall(r"`([a-z]+-\d\d)`", row)}
    assert mapped == set(known), f"exercises in no row of 00's map: {sorted(set(known) - mapped)}"


@pytest.mark.parametrize("stem", ["01-route-a-custody-case", "02-read-the-custody-matrix", "00-start-here"])
def test_no_code_cell_of_notebooks_00_to_02_ends_by_echoing_a_raw_decision(stem):
    for cell in cells(stem, "code"):
        last = cell.strip().splitlines()[-1]
        assert not re.match(r"^(\w+\.)?(set|route)\(.*\)$", last) or last.endswith(";"), (
            f"{stem}: a cell ends with {last!r}, which shows a raw Decision(...) repr"
        )


def test_every_seed_case_without_its_uri_mime_or_provenance_is_refused_as_custody_incomplete():
    outcomes = {
        (case.id, gap): cl.route(case.with_changes(**{gap: None})).outcome
        for case in cl.load_fixture().cases
        for gap in ("uri", "mime", "provenance")
    }
    wrong = {key: outcome for key, outcome in outcomes.items() if outcome != "custody-incomplete"}
    assert len(outcomes) == 18 and not wrong, f"expected custody-incomplete for every gap; got {wrong}"


def test_after_run_all_notebook_01s_explorer_shows_the_case_its_text_names():
    """Every code cell of notebook 01, run in order in this process (no widget is clicked)."""
    markdown = cells("01-route-a-custody-case", "markdown")
    named = re.findall(r"the explorer on the \*\*([a-z-]+)\*\* case", "\n".join(markdown))
    assert named, "notebook 01 no longer says which case its explorer opens on"
    namespace: dict[str, object] = {}
    for cell in cells("01-route-a-custody-case", "code"):
        exec(compile(cell, "notebook-01", "exec"), namespace)
    explorer: Any = namespace["explorer"]
    case = cl.load_fixture().case(named[0])
    assert explorer.case == explorer.baseline == case, (
        f"after Run All the explorer shows {explorer.case.id!r}, the text names {named[0]!r}"
    )
    assert explorer.decision == cl.route(case), (
        f"explorer: {explorer.decision.outcome}, router: {cl.route(case).outcome}"
    )


def test_each_adversarial_variant_changes_one_input_of_its_seed_case_except_stale_status_which_changes_two():
    fixture = cl.load_fixture()
    base_of = {"stale-status": "live-status", "denied-handbook": "handbook", "oversize-embed": "approve-draft"}
    base_of["mislabeled-mutation"] = "handbook"
    changed = {
        v.id: [c.field for c in diff(fixture.case(base_of[v.id]), v.with_changes(id=base_of[v.id]))]
        for v in fixture.adversarial
    }
    expected = {
        "stale-status": ["current", "requiresCurrent"],
        "denied-handbook": ["allowed"],
        "oversize-embed": ["bytes"],
        "mislabeled-mutation": ["sideEffects"],
    }
    assert changed == expected, f"notebooks 00-02 say one input each (two for stale-status); got {changed}"


def test_the_structured_seed_case_carries_the_urn_notebook_02_names():
    case = cl.load_fixture().case("risk-score")
    assert (case.shape, case.uri) == ("structured-tool-result", "urn:fixture:risk:42"), (case.shape, case.uri)
    assert "urn:fixture:risk:42" in notebook_source("02-read-the-custody-matrix", "markdown")


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_a_notebook_with_exercises_closes_with_a_progress_panel_as_00_says(path):
    code = cells(path.stem, "code")
    used = [e.id for e in all_exercises() if any(f'"{e.id}"' in cell for cell in code)]
    if not used:
        return  # 00 (and any notebook without exercises) has nothing to check yourself on
    assert any("ProgressPanel(" in cell for cell in code[-2:]), (
        f"{path.name} uses {used} but its last code cells hold no ProgressPanel: {code[-2:]}"
    )
