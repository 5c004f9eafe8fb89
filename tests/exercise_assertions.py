"""Assertions shared by the per-set exercise tests (one home for the message each prints)."""

from __future__ import annotations

from custody_lab.exercises import check, reveal


def assert_reference(exercise_id: str, expected: object) -> None:
    """The exercise's reference answer is ``expected`` (worked out by hand in the test)."""
    actual = reveal(exercise_id)
    assert actual == expected, f"{exercise_id}: expected {expected!r}, got {actual!r}"


def assert_mistake(exercise_id: str, answer: object, mistake: str) -> None:
    """``answer`` is wrong and gets the hint of the named mistake."""
    result = check(exercise_id, answer)
    assert not result.passed and result.mistake == mistake, (
        f"check({exercise_id!r}, {answer!r}): expected mistake {mistake!r}, got {result.mistake!r} ({result})"
    )


def assert_passes(exercise_id: str, answer: object) -> None:
    """``answer`` passes the exercise's check."""
    result = check(exercise_id, answer)
    assert result.passed, f"check({exercise_id!r}, {answer!r}): expected a pass, got {result}"
