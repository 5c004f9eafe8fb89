"""The capstone's judgement of text, URIs and fixes: what says nothing, and what is no design change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import custody_lab as cl
from custody_lab.teaching.capstone.archive import archive_lines
from custody_lab.teaching.capstone.design_review import review_design
from custody_lab.teaching.capstone.judgement import (
    FRESHNESS_RULE,
    case_findings,
    fix_findings,
    says_nothing,
    sound_fix_exists,
    sound_fix_inputs,
    uri_says_nothing,
)
from custody_lab.teaching.capstone.rubric import check_lines
from custody_lab.teaching.exercise_sets import fixes

from .archives import BY_ID, CASES, report_of

ROOT = Path(__file__).resolve().parents[3]
EXERCISE_BY_ID = {e.id: e for e in fixes.EXERCISES}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (None, "is missing"),
        ("", "is empty"),
        ("   ", "is empty"),
        ("x", "is a placeholder"),
        ("ok", "is a placeholder"),
        ("OK.", "is a placeholder"),
        ("TODO", "is a placeholder"),
        ("todo: write why this stays refused", "is a placeholder"),
        ("n/a", "is a placeholder"),
        ("administrators", "is only 1 word"),
        ("admins only", "is only 2 words"),
        ("no no no no", "repeats one word"),
        ("\u200b", "holds characters a reader cannot see (\\u200b)"),
        ("the host\u200b has no admin role", "holds characters a reader cannot see (\\u200b)"),
        ("the host has no admin\u202e role", "holds characters a reader cannot see (\\u202e)"),
        (42, "is not text"),
    ],
)
def test_a_reason_that_says_nothing_is_named_as_such(text, why):
    assert says_nothing(text) == why, f"{text!r}: expected {why!r}, got {says_nothing(text)!r}"


@pytest.mark.parametrize(
    "text",
    [
        "administrators only: this host has no admin role",
        "the export is read through a link\nwhen the user asks for it",
        "Die Protokolle sind nur für Administratoren",
    ],
)
def test_a_reason_in_a_sentence_says_something(text):
    assert says_nothing(text) is None, f"{text!r}: {says_nothing(text)}"


def test_an_actors_name_is_one_word_but_still_no_placeholder():
    assert says_nothing("learner", words=1) is None
    assert says_nothing("x", words=1) == "is a placeholder"
    assert says_nothing("le\u200barner", words=1) is not None


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("x", "has no scheme (RFC 3986 §3.1)"),
        ("ok", "has no scheme (RFC 3986 §3.1)"),
        ("TODO", "has no scheme (RFC 3986 §3.1)"),
        ("urn:x", "names nothing after its scheme"),
        ("urn:notes", "names nothing after its scheme"),
        ("x:y", "has a placeholder scheme"),
        ("notes://todo", "names nothing after its scheme"),
        ("urn:notes:\u200bword-count", "holds characters a reader cannot see (\\u200b)"),
        ("urn:notes: word count", "holds white space (RFC 3986 §2: a URI has none)"),
        ("", "is missing"),
    ],
)
def test_a_uri_that_names_nothing_is_named_as_such(uri, why):
    assert uri_says_nothing(uri) == why, f"{uri!r}: expected {why!r}, got {uri_says_nothing(uri)!r}"


@pytest.mark.parametrize(
    "uri", ["urn:notes:word-count:7", "notes://7", "export://notes/all.md", "https://example.org/a"]
)
def test_a_uri_with_a_scheme_and_a_name_is_sound(uri):
    assert uri_says_nothing(uri) is None, f"{uri!r}: {uri_says_nothing(uri)}"


def _changed(cid: str, **change: object) -> cl.Case:
    return cl.Case.from_dict({**BY_ID[cid].to_dict(), **change})


@pytest.mark.parametrize(
    ("cid", "field", "value", "says"),
    [
        ("audit-log", "allowed", True, "grants a permission"),
        ("export-notes", "bytes", 4000, "just under the host's embed limit of 4096 B"),
        ("word-count", "current", True, "claims the copy is current"),
        ("note", "requiresCurrent", False, "drops the requirement for current data"),
        ("note", "sideEffects", False, "declares the capability free of side effects"),
    ],
)
def test_a_fix_that_is_no_design_change_is_named_without_the_fix(cid, field, value, says):
    designed = BY_ID[cid]
    if field in ("current", "requiresCurrent"):
        designed = _changed(cid, current=False, requiresCurrent=True)
    if field == "sideEffects":
        designed = _changed(cid, sideEffects=True)
    (finding,) = fix_findings(designed, _changed(cid, **{field: value}), field, cl.Policy())
    assert says in finding and repr(cid) in finding, finding
    assert "resource-link" not in finding and "reason" not in finding, f"the finding gives a fix: {finding}"


def test_a_relabelled_export_and_a_side_effect_free_mutation_are_findings_whatever_changed_them():
    policy = cl.Policy()
    (relabelled,) = case_findings(_changed("export-notes", shape="structured-tool-result"), policy, accepted=True)
    assert "inline" in relabelled and "52000 bytes" in relabelled and "resource-link" not in relabelled, relabelled
    (mutation,) = case_findings(_changed("delete-note", sideEffects=False), policy, accepted=True)
    assert "mutate" in mutation and "sideEffects True" not in mutation, mutation
    assert case_findings(_changed("delete-note", sideEffects=True), policy, accepted=True) == []


@pytest.mark.parametrize(
    ("cid", "expected"),
    [("word-count", True), ("export-notes", True), ("delete-note", True), ("audit-log", False)],
)
def test_a_sound_one_input_fix_exists_for_every_refusal_but_the_permission(cid, expected):
    assert sound_fix_exists(BY_ID[cid], cl.Policy()) is expected, cid


def test_a_fresh_read_is_an_honest_fix_only_where_the_host_can_read_again():
    stale = {"current": False, "requiresCurrent": True}
    # the note is a side-effect-free resource the application reads: reading again is honest
    assert sound_fix_inputs(_changed("note", **stale), cl.Policy()) == ("current",)
    # a tool the model calls is not the host's to re-read: no honest one-input fix
    assert sound_fix_inputs(_changed("word-count", uri="urn:notes:count:7", **stale), cl.Policy()) == ()
    # a read declared to change state is not free to repeat: claiming freshness is a finding
    designed = _changed("note", sideEffects=True, **stale)
    assert fix_findings(designed, designed.with_changes(current=True), "current", cl.Policy())
    # a fact the situation states cannot be changed, whatever the rule table would accept
    assert sound_fix_inputs(_changed("note", **stale), cl.Policy(), facts=("current",)) == ()


# --------------------------------------------------------------------------------------------
# One rule: notebook 01's refuse-and-fix exercises and the capstone's rubric give one answer
# --------------------------------------------------------------------------------------------


def _design_sound_problems(designed: cl.Case, change: dict) -> tuple[str, ...]:
    """The rubric's design-sound findings for an archive whose one capability got ``change``."""
    rows = review_design([designed], fixes={designed.id: change})
    lines = archive_lines(rows, report_of([]))
    rubric = check_lines(lines, inventory=[designed], audit=report_of([]))
    return next(s.problems for s in rubric.steps if s.step == "design-sound")


def _one_input_changes(case: cl.Case) -> list[tuple[str, object]]:
    values = {**fixes.CHANGEABLE, "bytes": (512, 4096)}
    return [(k, v) for k, vs in values.items() for v in vs if v != case.to_dict().get(k)]


@pytest.mark.parametrize("scenario", fixes.SCENARIOS, ids=lambda s: s.id)
def test_every_fix_scenario_gets_the_same_answer_from_notebook_01_and_the_rubric(scenario):
    case = scenario.as_case()
    answer = EXERCISE_BY_ID[scenario.id].reference()["change"]
    accepted = [(k, v) for k, v in _one_input_changes(case) if cl.route(case.with_changes(**{k: v})).accepted]
    assert accepted, f"{scenario.id}: no one-input change gets the case accepted; the walk tests nothing"
    sound = {key for key, value in accepted if not _design_sound_problems(case, {key: value})}
    assert sound == ({answer} - {"none"}), (
        f"{scenario.id}: notebook 01's answer is {answer!r}; the rubric finds {sorted(sound) or 'no'} change sound"
    )


def test_the_scenarios_cover_a_fix_and_no_fix_and_both_freshness_inputs():
    answers = {s.id: EXERCISE_BY_ID[s.id].reference()["change"] for s in fixes.SCENARIOS}
    assert answers == {"fix-01": "shape", "fix-02": "none", "fix-03": "current"}, answers
    assert fixes.dishonest_fixes(fixes.SCENARIOS[1]) == ("sideEffects",)
    assert fixes.dishonest_fixes(fixes.SCENARIOS[2]) == ("requiresCurrent",)


@pytest.mark.parametrize("cid", [c.id for c in CASES if not cl.route(c).accepted])
def test_every_refused_capstone_row_gets_the_rubrics_answer_from_the_one_rule(cid):
    designed = BY_ID[cid]
    honest = sound_fix_inputs(designed, cl.Policy())
    candidates = [(k, v) for k, v in _one_input_changes(designed) if cl.route(designed.with_changes(**{k: v})).accepted]
    if cid == "word-count":  # a blank URI: the fix gives it one
        candidates.append(("uri", "urn:notes:count:7"))
    sound = {key for key, value in candidates if not _design_sound_problems(designed, {key: value})}
    assert sound == set(honest), f"{cid}: the rubric finds {sorted(sound)} sound; the one rule gives {honest}"


def test_notebooks_01_and_09_print_the_same_sentence_about_freshness():
    for name in ("01-route-a-custody-case", "11-design-your-servers-custody"):
        cells = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert FRESHNESS_RULE in " ".join(text.split()), f"{name} does not say the freshness rule word for word"
