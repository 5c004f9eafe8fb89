"""The what-if exercises of notebook 06 (whatif-01 … whatif-03): answers, the hints of typical mistakes.

The two-way gate over every registered exercise lives in ``tests/teaching/test_exercises.py``; this file
checks that each reference is the answer worked out independently (one case at a time with
``route``, not with the sweep the references use), and that each mistake detector recognises a
family of wrong answers, not only its own example.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import custody_lab as cl
from custody_lab.exercises import all_exercises, reset_progress, reveal

from ...exercise_assertions import assert_mistake, assert_passes, assert_reference

ROOT = Path(__file__).resolve().parents[3]
INVENTORY = ROOT / "data" / "inventories" / "support-desk.csv"
STRICT = json.loads((ROOT / "data" / "policies" / "strict.json").read_text(encoding="utf-8"))
STRICT_POLICY = cl.Policy(embed_limit_bytes=STRICT["embedLimitBytes"], require_current=STRICT["requireCurrent"])


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


def _cases() -> dict[str, cl.Case]:
    return {case.id: case for case in cl.load_cases(INVENTORY)}


def _changed_one_by_one(policy: cl.Policy) -> list[str]:
    return sorted(i for i, case in _cases().items() if cl.route(case).outcome != cl.route(case, policy).outcome)


def test_there_are_three_whatif_exercises_registered():
    ids = [e.id for e in all_exercises("whatif")]
    assert ids == ["whatif-01", "whatif-02", "whatif-03"], ids


# The reference answers, written out by hand: if the inventory or an exercise drifts, this says so.
REFERENCES = {
    "whatif-01": ["bytes", "shape"],
    "whatif-02": ["kb-shipping-times", "summarize-ticket"],
    "whatif-03": "summarize-ticket",
}


@pytest.mark.parametrize("exercise_id", list(REFERENCES))
def test_each_reference_answer_is_the_one_worked_out_by_hand(exercise_id):
    assert_reference(exercise_id, REFERENCES[exercise_id])


@pytest.mark.parametrize(
    ("field", "value", "accepted"),
    [
        ("bytes", 4096, True),
        ("shape", "resource-link", True),
        ("shape", "structured-tool-result", True),
        ("initiator", "application", False),
        ("allowed", False, False),
        ("provenance", None, False),
        ("sideEffects", None, False),
    ],
)
def test_the_attachment_is_accepted_after_changing_bytes_or_shape_alone_and_nothing_else(field, value, accepted):
    row = _cases()["fetch-attachment"].to_dict()
    assert not cl.route(row).accepted, f"fetch-attachment must start refused; got {cl.route(row).outcome}"
    row[field] = value
    decision = cl.route(row)
    assert decision.accepted is accepted, (
        f"fetch-attachment with {field}={value!r}: expected accepted={accepted}, got {decision.outcome}"
    )
    listed = field in reveal("whatif-01")
    assert listed == accepted, f"{field!r} in the whatif-01 reference: expected {accepted}, got {listed}"


def test_the_strict_host_changes_the_rows_that_routing_each_case_alone_says_it_does():
    expected = _changed_one_by_one(STRICT_POLICY)
    assert reveal("whatif-02") == expected, f"route one by one: {expected}; whatif-02 reference: {reveal('whatif-02')}"


def test_a_2048_byte_budget_changes_only_the_ticket_summary_when_each_case_is_routed_alone():
    expected = _changed_one_by_one(cl.Policy(embed_limit_bytes=2048))
    assert [reveal("whatif-03")] == expected, f"route one by one: {expected}; whatif-03: {reveal('whatif-03')!r}"


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("whatif-01", ("shape", "bytes")),
        ("whatif-01", {" bytes ", "shape"}),
        ("whatif-02", ("summarize-ticket", "kb-shipping-times")),
        ("whatif-03", " summarize-ticket\n"),
    ],
)
def test_order_and_surrounding_whitespace_do_not_matter(exercise_id, answer):
    assert_passes(exercise_id, answer)


# (exercise, wrong answer, mistake). The answers are NOT the mistakes' own examples.
HINTS = [
    ("whatif-01", ["shape"], "named-one-of-them"),
    ("whatif-01", ["bytes", "shape", "provenance"], "counted-other-refusals"),
    ("whatif-01", ["sideEffects"], "counted-other-refusals"),
    ("whatif-01", ["shape", "embed_limit_bytes"], "named-the-policy"),
    ("whatif-01", ["initiator", "bytes", "shape"], "handed-it-to-the-application"),
    ("whatif-02", 2, "gave-a-count"),
    ("whatif-02", ["kb-shipping-times", "SLA dashboard"], "not-inventory-ids"),
    ("whatif-02", ["kb-shipping-times", "summarize-ticket", "agent-macros"], "listed-refusals-that-were-there-already"),
    ("whatif-02", ["kb-shipping-times"], "applied-one-setting"),
    ("whatif-02", ["summarize-ticket", "kb-shipping-times", "search-articles"], "listed-rows-that-keep-their-outcome"),
    ("whatif-03", "agent-macros", "picked-one-already-refused"),
    ("whatif-03", "search-articles", "budget-on-a-shape-that-is-not-inline"),
    ("whatif-03", "export-transcript", "budget-on-a-shape-that-is-not-inline"),
    ("whatif-03", "summarize", "not-an-id"),
]


@pytest.mark.parametrize(("exercise_id", "answer", "mistake"), HINTS, ids=[f"{i}:{m}:{a}" for i, a, m in HINTS])
def test_a_family_of_wrong_answers_gets_the_mistakes_hint(exercise_id, answer, mistake):
    assert_mistake(exercise_id, answer, mistake)


def test_notebook_06_checks_every_whatif_exercise_and_ends_with_their_progress():
    notebook = json.loads((ROOT / "notebooks" / "06-ask-what-if.ipynb").read_text(encoding="utf-8"))
    code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    for exercise_id in REFERENCES:
        assert any(f'"{exercise_id}"' in cell for cell in code), f"notebook 06 never checks {exercise_id}"
    assert 'ProgressPanel(("whatif",))' in code[-1], f"the last code cell of 06 is {code[-1]!r}"
