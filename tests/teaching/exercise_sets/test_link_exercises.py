"""The link-or-embed exercises of notebook 05 (link-01 … link-08, budget-02): both answers occur,
each reference is the advisor's answer for facts that really decide it, and a learner who always
answers "link" fails half of them."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

import custody_lab as cl
from custody_lab.exercises import check, get, input_for, reveal
from custody_lab.link_or_embed import compare_shapes
from custody_lab.teaching.exercise_sets import link_choice
from custody_lab.teaching.exercise_sets._answers import shape_of
from custody_lab.teaching.exercise_sets.budget import TICKET, crowded_example
from custody_lab.teaching.exercise_sets.link_choice import NEEDS, TURN, advice_for

from ...page_scan import asked_cells

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK_05 = ROOT / "notebooks" / "05-choose-link-or-embed.ipynb"
SHAPES = {"resource-link", "embedded-resource", "structured-tool-result"}


def _link_or_embed_ids() -> list[str]:
    """Notebook 05's exercises whose answer is a shape, or a mapping of shapes."""
    asked = asked_cells(nbformat.read(NOTEBOOK_05, as_version=4).cells)
    found = []
    for exercise_id in sorted(asked):
        reference = get(exercise_id).reference()
        values = list(reference.values()) if isinstance(reference, dict) else [reference]
        if all(isinstance(v, str) and v in SHAPES for v in values):
            found.append(exercise_id)
    return found


def _always_link(exercise_id: str) -> object:
    reference = reveal(exercise_id)
    return dict.fromkeys(reference, "link") if isinstance(reference, dict) else "link"


def test_a_learner_who_always_answers_link_fails_at_least_half_of_notebook_05s_link_or_embed_exercises():
    ids = _link_or_embed_ids()
    assert len(ids) >= 5, f"notebook 05 asks too few link-or-embed exercises: {ids}"
    failed = [i for i in ids if not check(i, _always_link(i)).passed]
    assert 2 * len(failed) >= len(ids), f"always 'link' passes {sorted(set(ids) - set(failed))} of {ids}"


def test_both_answers_occur_and_one_exercise_wants_several_shapes():
    answers = {i: reveal(i) for i in _link_or_embed_ids()}
    flat = [s for a in answers.values() for s in (a.values() if isinstance(a, dict) else [a])]
    assert {"resource-link", "embedded-resource", "structured-tool-result"} <= set(flat), answers


@pytest.mark.parametrize("exercise_id", sorted(NEEDS))
def test_each_scenarios_reference_is_the_advisors_answer_for_its_own_facts(exercise_id):
    facts = input_for(exercise_id)
    assert facts == NEEDS[exercise_id], facts
    expected = cl.advise(
        "model",
        "generate",
        payload_bytes=facts["payload_bytes"],
        reuse=facts["reuse"],
        separate_permission=facts["separate_permission"],
        changes_often=facts["changes_often"],
    ).shape
    assert reveal(exercise_id) == expected, (exercise_id, reveal(exercise_id), expected)


@pytest.mark.parametrize(
    ("exercise_id", "deciding"), [("link-05", "separate_permission"), ("link-06", "changes_often")]
)
def test_the_permission_and_the_change_scenarios_are_decided_by_that_input_not_by_size(exercise_id, deciding):
    facts = dict(NEEDS[exercise_id])
    assert facts["payload_bytes"] <= facts["inline_budget"] and facts["reuse"] == 1, facts
    assert reveal(exercise_id) == "resource-link"
    assert advice_for({**facts, deciding: False}).shape == "embedded-resource", f"{exercise_id} without {deciding}"
    reasons = " ".join(advice_for(facts).reasons)
    said = {"separate_permission": "permission of its own", "changes_often": "likely to change"}[deciding]
    assert said in reasons and "exceed" not in reasons and "reused" not in reasons, reasons


@pytest.mark.parametrize("exercise_id", ["link-04", "link-07"])
def test_the_embed_scenarios_say_no_to_all_four_questions_and_any_yes_would_link(exercise_id):
    facts = NEEDS[exercise_id]
    assert reveal(exercise_id) == "embedded-resource"
    reasons = advice_for(facts).reasons[-1]
    for part in ("fit the 4096-byte budget", "used once", "need no permission", "will not change"):
        assert part in reasons, (part, reasons)
    for change in (
        {"payload_bytes": facts["inline_budget"] + 1},
        {"reuse": 2},
        {"separate_permission": True},
        {"changes_often": True},
    ):
        assert advice_for({**facts, **change}).shape == "resource-link", change


def test_link_03_is_the_first_call_after_which_the_links_running_total_is_smaller():
    costs = compare_shapes(18000, 5)
    first = next(i for i, row in enumerate(costs.rows(), 1) if row["link_bytes"] < row["embed_bytes"])
    assert reveal("link-03") == first == 2, (reveal("link-03"), first, costs.rows()[:2])
    assert costs.rows()[0]["link_bytes"] > costs.rows()[0]["embed_bytes"], "the link is behind after one call"


def test_link_08_is_each_results_advice_and_each_result_is_decided_by_another_question():
    expected = {item: advice_for(facts).shape for item, facts in TURN.items()}
    assert reveal("link-08") == expected
    assert expected == {
        "help-article": "resource-link",
        "refund-receipt": "embedded-resource",
        "audit-excerpt": "resource-link",
        "queue-length": "structured-tool-result",
    }, expected
    assert all(f["payload_bytes"] <= 4096 for f in TURN.values()), "size decides none of the four"


def test_link_08_reads_fair_variants_of_the_shape_names():
    answer = {
        "help-article": "link",
        "refund-receipt": "Embed",
        "audit-excerpt": "resource_link",
        "queue-length": "structured",
    }
    assert check("link-08", answer).passed


@pytest.mark.parametrize(
    ("exercise_id", "answer", "mistake"),
    [
        ("link-04", "link", "a-uri-makes-it-a-link"),
        ("link-05", "embed", "small-so-embed"),
        ("link-06", "embedded-resource", "small-so-embed"),
        ("link-07", "resource-link", "sensitive-so-link"),
        ("link-03", 1, "the-link-wins-at-once"),
        ("link-08", "resource-link", "one-shape-for-all"),
    ],
)
def test_the_typical_wrong_answer_gets_its_own_hint(exercise_id, answer, mistake):
    result = check(exercise_id, answer)
    assert not result.passed and result.mistake == mistake, (exercise_id, answer, result.mistake)


@pytest.mark.parametrize("exercise_id", ["link-01", *sorted(NEEDS), "link-08"])
def test_no_hint_of_a_shape_exercise_names_the_expected_shape(exercise_id):
    exercise = get(exercise_id)
    reference = reveal(exercise_id)
    wanted = set(reference.values()) if isinstance(reference, dict) else {reference}
    texts = [*exercise.hints, *(m.hint for m in exercise.mistakes)]
    leaked = [(shape, t) for shape in wanted for t in texts if shape in t]
    assert not leaked, leaked


def test_shape_names_are_read_in_their_fair_forms():
    assert [shape_of(a) for a in ("link", " Resource_Link ", "embed", "resource", 5)] == [
        "resource-link",
        "resource-link",
        "embedded-resource",
        "embedded-resource",
        None,
    ]


def test_budget_02_asks_about_a_document_whose_size_the_notebook_does_not_print_before_it():
    last = crowded_example(selected=TICKET).entries[-1]
    assert last.item == TICKET and reveal("budget-02") == (0, last.bytes), (last, reveal("budget-02"))
    assert "1,800" not in get("budget-02").prompt and TICKET in get("budget-02").prompt


def test_the_set_module_lists_its_exercises_in_id_order():
    ids = [e.id for e in link_choice.EXERCISES]
    assert ids == sorted(ids) == [f"link-0{n}" for n in range(3, 9)], ids
