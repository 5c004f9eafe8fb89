"""The lab's host policy: a hint may order and label what the host holds, never stand in for consent."""

from __future__ import annotations

import pytest

from custody_lab.live.hint_policy import ALONE, HOST_ACTIONS, HostAction, may_act_alone, unasked

BY_HAND = {
    "call-read-only": False,
    "order-by-priority": True,
    "call-not-destructive": False,
    "repeat-idempotent": False,
    "show-last-modified": True,
    "include-for-assistant": False,
    "fresh-by-last-modified": False,
    "gated-read": True,
}


def test_a_host_may_act_alone_only_on_what_orders_labels_or_passes_the_gate():
    decided = {a.code: may_act_alone(a) for a in HOST_ACTIONS}
    assert decided == BY_HAND, f"expected {BY_HAND}, got {decided}"
    assert ALONE == {"order", "label", "gated-read"}, ALONE


@pytest.mark.parametrize("effect", ["call-tool", "repeat-call", "skip-gate", "count-as-current"])
def test_no_hint_makes_a_call_a_gate_skip_or_a_freshness_claim_consent_free(effect):
    action = HostAction("x", "x", "readOnlyHint: true", "2025-03-26", effect)
    assert not may_act_alone(action), f"{effect}: expected 'ask first', got 'may act alone'"


def test_every_action_names_the_hint_it_relies_on_and_the_revision_that_defines_it():
    for a in HOST_ACTIONS:
        if a.effect == "gated-read":
            assert a.hint is None and a.since is None, a
        else:
            # tool annotations since 2025-03-26; audience and priority since 2024-11-05; lastModified 2025-06-18
            since = {"priority": "2024-11-05", "audience": "2024-11-05", "lastModified": "2025-06-18"}
            assert a.hint and a.since == since.get(a.hint, "2025-03-26"), a
    assert unasked() == [code for code, alone in BY_HAND.items() if alone], unasked()
