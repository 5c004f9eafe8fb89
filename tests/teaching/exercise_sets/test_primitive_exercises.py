"""Resource or tool (primitive-NN) and refuse and fix (fix-NN): each asks the judgement it claims.

The two-way gate in ``tests/teaching/test_exercises.py`` proves every reference passes and every
listed mistake gets its hint. These tests prove the references are the advisor's and the router's
decisions (recomputed here, not read from the module), that the set covers every shape, that a
learner who always gives the same answer fails most of it, and that "none" is a real answer.
"""

from __future__ import annotations

from collections import Counter

import pytest

import custody_lab as cl
from custody_lab.core.model import APPLICATION_SHAPES, SHAPES
from custody_lab.exercises import all_exercises, check, input_for, reveal
from custody_lab.teaching.exercise_sets import fixes, primitives

PRIMITIVE_IDS = [e.id for e in all_exercises("primitive")]
FIX_IDS = [e.id for e in all_exercises("fix")]
BY_ID = {s.id: s for s in primitives.SCENARIOS}
FIX_BY_ID = {s.id: s for s in fixes.SCENARIOS}

#: What each scenario is meant to teach, written independently of the module's computation.
INTENDED = {
    "primitive-01": ("resource", "listed-resource", {"address_known"}),
    "primitive-02": ("resource", "templated-resource", {"address_known"}),
    "primitive-03": ("resource", "listed-resource", {"address_known"}),
    "primitive-04": ("tool", "structured-tool-result", {"validated_fields"}),
    "primitive-05": ("tool", "resource-link", {"separate_permission", "validated_fields"}),
    "primitive-06": (
        "tool",
        "embedded-resource",
        {"payload_bytes", "reuse", "separate_permission", "changes_often", "validated_fields"},
    ),
    "primitive-07": ("tool", "resource-link", {"payload_bytes", "validated_fields"}),
}
#: The fact each revealed reference names: the one the lesson is about, stated in the description.
TAUGHT = {
    "primitive-01": "address_known",
    "primitive-02": "address_known",
    "primitive-03": "address_known",
    "primitive-04": "validated_fields",
    "primitive-05": "separate_permission",
    "primitive-06": "payload_bytes",
    "primitive-07": "payload_bytes",
}


def test_there_are_at_least_five_primitive_exercises_and_two_fix_exercises():
    assert len(PRIMITIVE_IDS) >= 5 and len(FIX_IDS) >= 2, (PRIMITIVE_IDS, FIX_IDS)
    assert sorted(INTENDED) == PRIMITIVE_IDS, f"scenarios {PRIMITIVE_IDS}, intended {sorted(INTENDED)}"


@pytest.mark.parametrize("exercise_id", sorted(INTENDED))
def test_each_scenarios_reference_is_the_advisors_shape_and_the_intended_lesson(exercise_id):
    scenario = BY_ID[exercise_id]
    shape = cl.advise(**scenario.facts).shape
    primitive, intended_shape, deciders = INTENDED[exercise_id]
    reference = reveal(exercise_id)
    assert shape == intended_shape == reference["shape"], (exercise_id, shape, intended_shape, reference)
    assert reference["primitive"] == primitive == ("resource" if shape in APPLICATION_SHAPES else "tool")
    assert set(primitives.deciding_facts(scenario)) == deciders, (exercise_id, primitives.deciding_facts(scenario))
    assert reference["decided_by"] in deciders


def _flip(name, value):
    """The other side of one advisor fact, written here apart from the module's own flip."""
    if name == "payload_bytes":
        return 512 if value > cl.Policy().embed_limit_bytes else 4 * cl.Policy().embed_limit_bytes
    if name == "reuse":
        return 1 if value >= 2 else 5
    return not value


ADVISOR_DEFAULTS = {"address_known": True, "reuse": 1, "payload_bytes": 0}


@pytest.mark.parametrize("exercise_id", sorted(INTENDED))
def test_decided_by_accepts_exactly_the_facts_whose_flip_moves_the_advisors_shape(exercise_id):
    """Walk the advisor: flip each shape fact (stated in the description or not), keep the others,
    and the check must accept that fact as decided_by exactly when the advisor's shape moves."""
    scenario = BY_ID[exercise_id]
    base = cl.advise(**scenario.facts).shape
    reference = reveal(exercise_id)
    moved_by = set()
    for name in primitives.SHAPE_DECIDERS:
        facts = dict(scenario.facts)
        facts[name] = _flip(name, facts.get(name, ADVISOR_DEFAULTS.get(name, False)))
        flipped = cl.advise(**facts).shape
        result = check(exercise_id, {**reference, "decided_by": name})
        assert result.passed == (flipped != base), (exercise_id, name, base, flipped, result.message, result.hint)
        if flipped != base:
            moved_by.add(name)
    assert moved_by == INTENDED[exercise_id][2], (exercise_id, moved_by)
    assert reference["decided_by"] == TAUGHT[exercise_id] and TAUGHT[exercise_id] in scenario.stated


def test_the_primitive_answers_cover_all_five_shapes_and_both_primitives():
    shapes = {reveal(i)["shape"] for i in PRIMITIVE_IDS}
    assert shapes == set(SHAPES), f"shapes covered: {sorted(shapes)}"
    assert {reveal(i)["primitive"] for i in PRIMITIVE_IDS} == {"resource", "tool"}


def test_a_learner_who_always_gives_the_same_answer_fails_most_of_the_set():
    for answer in (reveal(i) for i in PRIMITIVE_IDS):
        passed = [i for i in PRIMITIVE_IDS if check(i, answer).passed]
        assert len(passed) <= len(PRIMITIVE_IDS) // 2, f"{answer} passes {passed}"
    common = Counter(str(reveal(i)) for i in PRIMITIVE_IDS).most_common(1)[0][1]
    assert common * 2 <= len(PRIMITIVE_IDS), f"one reference answers {common} of {len(PRIMITIVE_IDS)}"


def test_fair_variants_of_a_primitive_answer_pass():
    variant = {"Primitive": "Resource", "shape": "Templated resource", "decided by": "address-known"}
    assert check("primitive-02", variant).passed, check("primitive-02", variant)
    embed = reveal("primitive-06")
    for decider in ("payload_bytes", "reuse", "separate_permission", "changes_often", "changes often"):
        assert check("primitive-06", {**embed, "decided_by": decider}).passed, decider


@pytest.mark.parametrize(
    ("exercise_id", "answer", "mistake"),
    [
        (
            "primitive-01",
            {"primitive": "tool", "shape": "embedded-resource", "decided_by": "address_known"},
            "a-tool-for-what-the-app-reads",
        ),
        (
            "primitive-03",
            {"primitive": "tool", "shape": "structured-tool-result", "decided_by": "changes_often"},
            "a-tool-because-it-is-live",
        ),
        (
            "primitive-04",
            {"primitive": "resource", "shape": "listed-resource", "decided_by": "side_effects"},
            "a-resource-for-a-side-effect",
        ),
        (
            "primitive-02",
            {"primitive": "resource", "shape": "listed-resource", "decided_by": "address_known"},
            "listed-where-the-address-is-not-known",
        ),
        (
            "primitive-05",
            {"primitive": "tool", "shape": "embedded-resource", "decided_by": "payload_bytes"},
            "an-embed-that-skips-the-permission",
        ),
        (
            "primitive-07",
            {"primitive": "tool", "shape": "resource-link", "decided_by": "reuse"},
            "a-fact-that-would-not-change-it-reuse",
        ),
        (
            "primitive-04",
            {"primitive": "tool", "shape": "structured-tool-result", "decided_by": "initiator"},
            "a-primitive-fact-as-the-reason",
        ),
    ],
)
def test_the_typical_errors_of_the_issue_get_their_specific_hint(exercise_id, answer, mistake):
    result = check(exercise_id, answer)
    assert not result.passed and result.mistake == mistake, (exercise_id, answer, result.mistake, result.hint)
    assert str(reveal(exercise_id)) not in (result.hint or "") + result.message


@pytest.mark.parametrize("exercise_id", sorted(INTENDED))
def test_a_right_primitive_and_shape_with_a_wrong_fact_gets_a_hint_that_names_no_other_candidate(exercise_id):
    """The hint points at the fact the learner named (what to examine), never at the facts left to try."""
    reference = reveal(exercise_id)
    wrong = [f for f in primitives.SHAPE_DECIDERS if f not in INTENDED[exercise_id][2]]
    assert wrong, exercise_id
    for fact in wrong:
        result = check(exercise_id, {**reference, "decided_by": fact})
        hint = result.hint or ""
        named = {d for d in primitives.DECIDERS if d in hint.replace(" ", "_")}
        assert not result.passed and named == {fact}, (exercise_id, fact, named, hint)


def test_a_primitive_exercise_gives_the_description_not_the_advisors_facts():
    for exercise_id in PRIMITIVE_IDS:
        given = input_for(exercise_id)
        assert set(given) == {"capability", "decided_by is one of"}, given
        assert reveal(exercise_id)["shape"] not in given["capability"], exercise_id


# --------------------------------------------------------------------------------------------
# refuse and fix
# --------------------------------------------------------------------------------------------

#: What each fix scenario is meant to teach, written independently of the module.
FIX_INTENDED = {
    "fix-01": ("embed-over-budget", "shape", {"shape": "resource-link"}, "bytes"),
    "fix-02": ("resource-mislabeled-side-effect", "none", None, "sideEffects"),
    "fix-03": ("stale-content", "current", {"current": True}, "requiresCurrent"),
}


@pytest.mark.parametrize("exercise_id", sorted(FIX_INTENDED))
def test_a_fix_reference_is_the_routers_rejection_and_the_honest_change_gets_the_case_accepted(exercise_id):
    rule, change, accepted_with, dishonest = FIX_INTENDED[exercise_id]
    case = cl.Case.from_dict(input_for(exercise_id))
    assert cl.route(case).rejection == rule == reveal(exercise_id)["rule"], (exercise_id, cl.route(case).outcome)
    assert reveal(exercise_id)["change"] == change
    if accepted_with is not None:
        assert cl.route(case.with_changes(**accepted_with)).accepted, (exercise_id, accepted_with)
    # the fact the learner must not touch would "fix" it: that is what makes the honest answer a judgement
    assert dishonest in fixes.dishonest_fixes(FIX_BY_ID[exercise_id]), exercise_id
    result = check(exercise_id, {"rule": rule, "change": dishonest})
    assert not result.passed and result.mistake and result.mistake.startswith("changed-a-fact"), result


def test_the_none_scenario_really_has_no_one_input_fix_and_a_two_input_redesign_exists():
    case = cl.Case.from_dict(input_for("fix-02"))
    for key, values in fixes.CHANGEABLE.items():
        if key == "sideEffects":
            continue
        for value in values:
            assert not cl.route(case.with_changes(**{key: value})).accepted, (key, value)
    assert cl.route(case.with_changes(initiator="model", shape="embedded-resource")).accepted


def test_the_fix_references_differ_and_none_is_not_the_answer_of_every_fix():
    references = [reveal(i) for i in FIX_IDS]
    assert len({str(r) for r in references}) == len(references), references
    assert Counter(r["change"] for r in references)["none"] == 1, references


def test_a_fix_answer_written_as_one_text_gets_the_two_named_labels_hint():
    result = check("fix-01", "embed-over-budget, shape")
    assert not result.passed and "named labels" in (result.hint or ""), result
    assert check("fix-03", {"Rule": "Stale-Content", "change": "current"}).passed
    assert check("fix-02", {"rule": "resource-mislabeled-side-effect", "change": None}).passed
