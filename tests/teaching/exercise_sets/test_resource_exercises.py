"""The revision, kind, transform and blob exercises of notebooks 03 and 04: references, inputs, and
the hints of their typical mistakes.

The two-way gate over every registered exercise lives in ``tests/teaching/test_exercises.py``;
this file checks what is specific to these sets: the scenarios the notebooks were rewritten
around (issue 22 §1) and hints that name the learner's slip, never the reference.
"""

from __future__ import annotations

import pytest

from custody_lab.catalog import Catalog
from custody_lab.exercises import all_exercises, check, get, input_for, reset_progress, reveal
from custody_lab.revisions import classify

IDS = [e.id for topic in ("revision", "kind", "transform", "blob") for e in all_exercises(topic)]


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


# Written out by hand: if a scenario or the package drifts, this says so.
REFERENCES = {
    "revision-01": ["kb://handbook/v3", "invoices://2026-07"],
    "revision-02": "versioned-uri-changed",
    "kind-02": ["logs://api/2026-09-03"],
    "kind-03": "logs://api/2026-09-04",
    "transform-03": "rest",
    "blob-01": 105,
    "blob-02": "application/pdf",
}


@pytest.mark.parametrize("exercise_id", list(REFERENCES))
def test_each_reference_answer_is_the_one_worked_out_by_hand(exercise_id):
    assert reveal(exercise_id) == REFERENCES[exercise_id], (
        f"{exercise_id}: expected {REFERENCES[exercise_id]!r}, got {reveal(exercise_id)!r}"
    )


def test_revision_01s_uris_cover_every_kind_of_the_policy_and_none_the_lesson_prints():
    uris = list(input_for("revision-01"))  # type: ignore[call-overload]
    kinds = {classify(u).kind for u in uris}
    assert kinds == {"versioned", "moving", "undeclared"}, kinds
    listed = {e.uri for e in Catalog.load().resources}
    assert "kb://returns-policy" in listed and "kb://returns-policy" in uris, "one listed, undeclared URI"
    assert not {"kb://handbook/v4", "invoices://2026-09"} & set(uris), "the lesson's own examples are not asked"


def test_kind_02_holds_a_dated_log_whose_day_is_not_over():
    from custody_lab.catalog import describe

    report = describe(Catalog.load(), "logs://billing/2026-09-04")
    assert report.kind.name == "log" and not report.reusable, report


# (exercise, wrong answer, mistake, words in the hint). Not the mistakes' own examples: each
# detector must recognise a family.
HINTS = [
    ("revision-01", ["invoices://2026-07", "logs://billing/today"], "a-moving-uri", "ttlMs"),
    ("revision-01", ("kb://returns-policy",), "a-listed-resource", "Being listed"),
    ("revision-01", {"kb://handbook/v3", "invoices://latest"}, "an-undeclared-uri", "name a month"),
    ("revision-01", ["kb://handbook/v3"], "missed-one", "one more"),
    ("revision-01", "nothing", "nothing-is-cacheable", "host policy"),
    ("kind-02", ("logs://billing/2026-09-04",), "kept-a-dated-open-log", "not over"),
    ("kind-02", ["kb://shipping"], "kept-an-unpinned-file", "sha256"),
    ("kind-02", ["orders://A-1003"], "kept-a-record", "re-read"),
    ("kind-02", ["status://service/current", "logs://api/2026-09-03"], "kept-the-live-document", "subscribes"),
    ("kind-02", "none", "nothing-is-reusable", "day that is over"),
    ("kind-03", " logs://api/today ", "cited-the-moving-uri", "moves"),
    ("kind-03", "logs://api/2026-09-03", "the-day-before", "day before"),
    ("kind-03", "logs://api/2026-09-04?level=warn", "kept-a-level", "undefined"),
    ("kind-03", "2026-09-04", "gave-only-the-day", "not a date alone"),
    ("kind-03", "logs://{service}/2026-09-04", "kept-the-braces", "braces"),
    ("transform-03", "truncated", "blamed-the-flag", "honest"),
    ("transform-03", " fullMaterialReachable ", "blamed-the-promise", "no way to reach"),
    ("transform-03", "source.bytes", "blamed-the-size", "what the record links"),
]


@pytest.mark.parametrize(
    ("exercise_id", "answer", "mistake", "words"), HINTS, ids=[f"{i}:{m}:{n}" for n, (i, _, m, _) in enumerate(HINTS)]
)
def test_a_typical_mistake_gets_its_specific_hint_and_never_the_reference(exercise_id, answer, mistake, words):
    result = check(exercise_id, answer)
    assert not result.passed and result.status == "wrong", f"{exercise_id} {answer!r}: {result}"
    assert result.mistake == mistake, f"{exercise_id}: {answer!r} expected {mistake!r}, got {result.mistake!r}"
    assert words in (result.hint or ""), f"{words!r} missing from the hint {result.hint!r}"
    expected = reveal(exercise_id)
    for part in expected if isinstance(expected, list) else [expected]:
        if str(part) not in str(answer):
            assert str(part) not in str(result), f"{exercise_id}: the feedback to {answer!r} names {part!r}"


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("revision-01", ("invoices://2026-07", " kb://handbook/v3")),
        ("kind-02", {"logs://api/2026-09-03"}),
        ("kind-03", "LOGS://api/2026-09-04"),  # RFC 3986 §3.1: the scheme is case-insensitive
        ("transform-03", " rest "),
    ],
)
def test_harmless_variations_of_a_right_answer_pass(exercise_id, answer):
    assert check(exercise_id, answer).passed, f"{exercise_id}: {answer!r} should pass"


def test_every_exercise_of_these_sets_has_at_least_two_specific_mistakes_with_examples():
    thin = {i: len(get(i).mistakes) for i in IDS if len(get(i).mistakes) < 2}
    assert not thin, f"exercises with fewer than two specific mistakes: {thin}"


@pytest.mark.parametrize(
    ("exercise_id", "typed_right", "typed_wrong", "mistake"),
    [
        ("revision-01", "['invoices://2026-07', 'kb://handbook/v3']", "['kb://handbook/v3']", "missed-one"),
        ("blob-01", "105", "140", "counted-base64-characters"),
    ],
)
def test_the_predict_then_see_panels_of_03_and_04_judge_a_typed_prediction_before_showing(
    exercise_id, typed_right, typed_wrong, mistake
):
    from custody_lab.widgets import PredictThenSee

    shown: list[int] = []
    panel = PredictThenSee(exercise_id, lambda: shown.append(1) or "the demonstration")
    panel.show_button.click()
    assert (panel.result.status, panel.shown, shown) == ("not-answered", False, []), panel.result
    panel.prediction.value = typed_wrong
    panel.show_button.click()
    assert panel.result.mistake == mistake and panel.shown and shown == [1], panel.result
    panel.prediction.value = typed_right
    panel.show_button.click()
    assert panel.result.passed, panel.result
