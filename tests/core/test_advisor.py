"""The advisor: seed 001's size × reuse table and seed 000's link / embed / structured rules."""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.core.advisor import HIGH_REUSE, size_reuse_table


@pytest.mark.parametrize(
    ("size", "reuse", "shape"),
    [
        ("small", "low", "embedded-resource"),
        ("small", "high", "resource-link"),
        ("large", "low", "resource-link"),
        ("large", "high", "resource-link"),
    ],
)
def test_each_row_of_seed_001s_size_by_reuse_table(size, reuse, shape):
    nbytes = 512 if size == "small" else 18000
    times = 1 if reuse == "low" else 5
    advice = cl.advise("model", "generate", payload_bytes=nbytes, reuse=times)
    assert advice.shape == shape, f"{size}/{reuse}: expected {shape}, got {advice.shape} ({advice.reasons})"
    row = next(r for r in size_reuse_table() if r["size"] == size and r["reuse"] == reuse)
    assert row["shape"] == shape


@pytest.mark.parametrize(
    ("case_id", "shape"),
    [
        ("handbook", "listed-resource"),
        ("customer-record", "templated-resource"),
        ("generated-report", "resource-link"),
        ("risk-score", "structured-tool-result"),
        ("live-status", "listed-resource"),
        ("approve-draft", "embedded-resource"),
    ],
)
def test_the_advisor_recommends_each_seed_cases_declared_shape(fixture, case_id, shape):
    assert cl.advise_case(fixture.case(case_id)).shape == shape


def test_an_application_read_that_mutates_gets_no_shape_and_the_rejection_named():
    advice = cl.advise("application", "read", side_effects=True)
    assert advice.shape is None and advice.rejection == "resource-mislabeled-side-effect"


@pytest.mark.parametrize(
    "kwargs",
    [{"separate_permission": True}, {"changes_often": True}, {"payload_bytes": 5000}],
)
def test_a_link_is_chosen_when_content_is_separately_permissioned_changing_or_large(kwargs):
    assert cl.advise("model", "generate", **kwargs).shape == "resource-link"


def test_the_inline_budget_comes_from_the_policy():
    assert cl.advise("model", "generate", payload_bytes=3000).shape == "embedded-resource"
    strict = cl.Policy(embed_limit_bytes=2048)
    advice = cl.advise("model", "generate", payload_bytes=3000, policy=strict)
    assert advice.shape == "resource-link" and "2048-byte" in advice.reasons[-1]


@pytest.mark.parametrize(
    ("reuse", "shape"),
    [(HIGH_REUSE - 1, "embedded-resource"), (HIGH_REUSE, "resource-link"), (HIGH_REUSE + 1, "resource-link")],
)
def test_content_reused_high_reuse_times_or_more_is_linked_and_below_it_embedded(reuse, shape):
    # HIGH_REUSE is inclusive ("this many times or more"): exactly at it is already "high".
    advice = cl.advise("model", "generate", payload_bytes=512, reuse=reuse)
    reused = any(f"reused {reuse} times" in reason for reason in advice.reasons)
    actual = (advice.shape, reused)
    expected = (shape, shape == "resource-link")
    assert actual == expected, f"reuse={reuse} (HIGH_REUSE={HIGH_REUSE}): expected {expected}, got {actual}"


def test_the_high_reuse_threshold_is_two_uses_in_a_session():
    # Seed 001's "frequently reused": a second use already pays for a client cache.
    assert HIGH_REUSE == 2, f"expected HIGH_REUSE == 2, got {HIGH_REUSE}"


def test_validated_fields_win_over_size_for_a_tool():
    assert cl.advise("model", "calculate", payload_bytes=50000, validated_fields=True).shape == "structured-tool-result"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"initiator": "user"}, "initiator"),
        ({"initiator": "model", "operation": "drop"}, "operation"),
        ({"initiator": "model", "payload_bytes": -1}, "bytes"),
        ({"initiator": "model", "reuse": 0}, "reuse"),
    ],
)
def test_bad_advisor_input_names_the_field(kwargs, field):
    with pytest.raises(cl.CaseError) as info:
        cl.advise(**kwargs)
    assert info.value.field == field


def test_the_advisor_takes_its_refusal_from_the_rule_table_not_a_copy(monkeypatch):
    # Rename the rule's code in the table: the advisor must report the new name, because it asks
    # the router instead of keeping its own copy of the rule.
    import dataclasses

    from custody_lab.core import router, rules

    renamed = tuple(
        dataclasses.replace(r, code="renamed-mislabel") if r.code == "resource-mislabeled-side-effect" else r
        for r in rules.RULES
    )
    monkeypatch.setattr(router, "RULES", renamed)
    assert cl.advise("application", "read", side_effects=True).rejection == "renamed-mislabel"
    assert cl.advise("application", "read", side_effects=False).rejection is None


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"separate_permission": True}, "permission of its own"),
        ({"changes_often": True}, "likely to change"),
        ({"payload_bytes": 5000}, "exceed the 4096-byte inline budget"),
        ({"reuse": 3}, "reused 3 times"),
    ],
)
def test_each_reason_for_a_link_is_named_and_only_the_reasons_that_hold(kwargs, reason):
    advice = cl.advise("model", "generate", **{"payload_bytes": 900, **kwargs})
    said = advice.reasons[-1]
    others = {"permission of its own", "likely to change", "exceed", "reused"} - {reason.split()[0]}
    assert advice.shape == "resource-link" and reason in said, said
    assert not [o for o in others if o in said and o not in reason], said


def test_the_embed_reason_says_all_four_questions_were_answered_no():
    said = cl.advise("model", "generate", payload_bytes=900).reasons[-1]
    for part in ("fit the 4096-byte budget", "used once", "need no permission of their own", "will not change"):
        assert part in said, (part, said)
