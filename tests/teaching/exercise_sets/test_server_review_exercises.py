"""The capstone's exercises (notebook 11): references computed by the package, mistakes told apart.

The two-way gate over every registered exercise is in ``tests/teaching/test_exercises.py``; the
rubric itself in ``tests/teaching/capstone/``. This file checks what the exercises claim: the
capstone-03 archive fails exactly one step, and only because of the missing consent; capstone-04's
permission refusal has no honest fix while the notes server's other refusals each have one; fair
variants read alike.
"""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.exercises import check, input_for, reset_progress
from custody_lab.teaching.capstone import GIVEN_INVENTORY, RUBRIC_STEPS
from custody_lab.teaching.capstone.judgement import sound_fix_inputs
from custody_lab.teaching.capstone.rubric import check_lines
from custody_lab.teaching.exercise_sets import server_review

from ...exercise_assertions import assert_mistake, assert_passes, assert_reference

CASES = cl.load_cases(GIVEN_INVENTORY)


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


def _rubric(lines):
    return check_lines(lines, inventory=server_review._hr_cases(), audit=server_review._audit_of_the_hr_server())


def test_the_capstone_03_archive_fails_only_for_the_call_nobody_approved():
    lines = [dict(x) for x in input_for("capstone-03")]
    failed = [s.step for s in _rubric(lines).steps if not s.passed]
    assert failed == ["calls-consented"], _rubric(lines).text()
    consent = {"kind": "consent", "tool": "open_positions", "approvedBy": {"person": "Sam Okafor"}, "arguments": {}}
    consented = [*lines[:6], consent, *lines[6:]]
    assert _rubric(consented).passed, _rubric(consented).text()
    assert_reference("capstone-03", "calls-consented")


@pytest.mark.parametrize("step", [s for s in RUBRIC_STEPS if s != "calls-consented"])
def test_every_other_rubric_step_is_wrong_for_capstone_03(step):
    assert not check("capstone-03", step).passed, step


def test_a_permission_refusal_has_no_honest_one_input_fix_and_the_other_refusals_have_one_each():
    refused = {c.id: sound_fix_inputs(c, cl.Policy()) for c in CASES if not cl.route(c).accepted}
    assert refused == {
        "audit-log": (),
        "word-count": ("uri",),
        "export-notes": ("shape",),
        "delete-note": ("sideEffects",),
    }
    salaries = cl.Case.from_dict(input_for("capstone-04"))
    assert cl.route(salaries).rejection == "permission-denied" and sound_fix_inputs(salaries, cl.Policy()) == ()
    assert_reference("capstone-04", {"rule": "permission-denied", "change": None})


@pytest.mark.parametrize(
    "answer",
    [
        {"rule": "permission-denied", "change": None},
        {"rule": " `Permission-Denied` ", "change": "none"},
        {"rule": "permission_denied", "change": ""},
    ],
)
def test_fair_variants_of_the_capstone_04_answer_pass(answer):
    assert_passes("capstone-04", answer)


@pytest.mark.parametrize(
    ("answer", "mistake"),
    [
        ({"rule": "permission-denied", "change": "allowed"}, "granted-the-permission"),
        ({"rule": "permission-denied", "change": "bytes"}, "changed-a-measurement"),
        ({"rule": "permission-denied", "change": "current"}, "changed-the-freshness"),
        ({"rule": "side-effects-unknown", "change": None}, "wrong-rule"),
        (["permission-denied", None], "not-both-parts"),
    ],
)
def test_each_typical_capstone_04_mistake_gets_its_own_hint(answer, mistake):
    assert_mistake("capstone-04", answer, mistake)
    assert "None" not in (check("capstone-04", answer).hint or ""), "a hint must not hold the expected value"


def test_an_honest_fix_of_another_row_is_still_wrong_for_the_audit_log():
    result = check("capstone-04", {"rule": "permission-denied", "change": "shape"})
    assert not result.passed and result.mistake is None, result


def test_capstone_02_is_a_transfer_not_fix_01_again():
    """Issue 37 §4: capstone-02 used to repeat fix-01 (an export over the inline budget, fixed by its
    shape). Its row is refused by another rule and fixed by another input, the one the capstone's
    judgement finds."""
    from custody_lab.exercises import reveal

    row = cl.Case.from_dict(input_for("capstone-02"))
    fix_01 = cl.Case.from_dict(input_for("fix-01"))
    assert cl.route(row).rejection != cl.route(fix_01).rejection, (cl.route(row).outcome, cl.route(fix_01).outcome)
    assert reveal("capstone-02") != reveal("fix-01")["change"], (reveal("capstone-02"), reveal("fix-01"))
    assert (reveal("capstone-02"),) == sound_fix_inputs(row, cl.Policy()), reveal("capstone-02")
    assert check("capstone-02", reveal("capstone-02")).passed
    for other in ("shape", "provenance", "bytes", "none"):
        result = check("capstone-02", other)
        assert not result.passed and result.mistake, (other, result)
