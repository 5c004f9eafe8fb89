"""Context that flows back (notebook 09): each reference worked out by hand, and what the notebook claims.

The two-way gate over every registered exercise is in ``tests/teaching/test_exercises.py``.
"""

from __future__ import annotations

import pytest

from custody_lab.exercises import reset_progress
from custody_lab.teaching.exercise_sets import flows

from ...exercise_assertions import assert_mistake, assert_passes, assert_reference


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


@pytest.mark.parametrize(
    ("exercise_id", "expected"),
    [
        ("flows-01", "consent-not-given"),
        ("flows-02", "decline"),
        ("flows-03", ["B", "D"]),
        ("flows-04", "neither"),
        ("flows-05", "produced"),
        ("flows-06", "elicitation-answer"),
    ],
)
def test_each_reference_is_what_the_lesson_works_out(exercise_id, expected):
    assert_reference(exercise_id, expected)


@pytest.mark.parametrize("action", ["decline", "cancel", None])
def test_a_deletion_runs_only_after_an_accept(action):
    outcome, sent, gone = flows.delete_outcome(action)
    assert (outcome, sent or "decline", gone) == ("consent-not-given", action or "decline", False), (outcome, sent)
    assert flows.delete_outcome("accept")[2] is True


def test_letters_are_read_in_any_case_and_order():
    assert_passes("flows-03", ["d", " b"])
    assert_mistake("flows-03", ["B", "D", "E"], "personal-is-secret")
    assert_mistake("flows-03", ["B"], "missed-the-pin")
