"""One result, several hosts (notebook 10): each reference worked out by hand, mistakes told apart, and a
learner who always gives the same answer fails most of them.

The two-way gate over every registered exercise is in ``tests/teaching/test_exercises.py``.
"""

from __future__ import annotations

import pytest

from custody_lab.exercises import check, input_for, reset_progress
from custody_lab.teaching.exercise_sets import hosts

from ...exercise_assertions import assert_mistake, assert_passes, assert_reference


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


# hosts-01: 340 (text) + 1 (the line break) + 340 (structuredContent) under both-forms.
# hosts-02: only host B (eager-fetcher) reads links silently; A and C check and refuse, D never reads.
# hosts-03: structured-and-text; every other form misses a profile or breaks a rule (see the exercise's why).
# hosts-04: 9,000 bytes over 4,096, the custodian refuses: a line naming the export, none of its text.
# hosts-05: both-forms checks, reads, cuts and records the cut; only its one combined number breaks a rule.
@pytest.mark.parametrize(
    ("exercise_id", "expected"),
    [
        ("hosts-01", 681),
        ("hosts-02", ["B"]),
        ("hosts-03", "structured-and-text"),
        ("hosts-04", "a-line-naming-it"),
        ("hosts-05", ["budgets-not-separate"]),
    ],
)
def test_each_reference_is_the_hand_worked_answer(exercise_id, expected):
    assert_reference(exercise_id, expected)
    assert_passes(exercise_id, expected)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "mistake"),
    [
        ("hosts-01", 340, "one-form"),
        ("hosts-01", 680, "forgot-the-line"),
        ("hosts-02", ["D"], "named-is-not-read"),
        ("hosts-02", ["C"], "checked-and-refused"),
        ("hosts-03", "link", "link-everywhere"),
        ("hosts-03", "structured-only", "structured-alone"),
        ("hosts-04", "cut-silently", "cut-to-fit"),
        ("hosts-04", "nothing", "said-nothing"),
        ("hosts-05", ["cut-not-recorded", "budgets-not-separate"], "a-cut-is-not-silence"),
        ("hosts-05", ["link-dereferenced-silently"], "on-request-is-not-silent"),
    ],
)
def test_typical_mistakes_get_their_own_hint(exercise_id, answer, mistake):
    assert_mistake(exercise_id, answer, mistake)


def test_the_letters_of_hosts_02_show_a_host_whose_log_names_only_the_tool():
    shown = input_for("hosts-02")
    assert hosts.LAUNDER_LETTERS["B"] == "eager-fetcher"
    assert shown["B"]["host's log"] == {"tool": "lookup_customer", "bytes": len(shown["B"]["model sees"])}
    assert "Sam Okafor" in shown["B"]["model sees"]
    assert all("Sam Okafor" not in shown[k]["model sees"] for k in "ACD")


def test_a_learner_who_always_gives_the_same_answer_passes_at_most_one():
    answers = [681, ["B"], "structured-and-text", "a-line-naming-it", ["budgets-not-separate"], "both", 0]
    ids = [f"hosts-0{i}" for i in range(1, 6)]
    for answer in answers:
        passed = [i for i in ids if check(i, answer).passed]
        assert len(passed) <= 1, (answer, passed)
