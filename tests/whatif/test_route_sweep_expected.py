"""The lab's rules against answers written out by hand: route and sweep must both meet them.

The parity tests (tests/whatif/test_sweep.py) compare the router with the sweep, which evaluate the same
rule lambdas: a wrong lambda is wrong on both sides and passes them. The seed's own Node router
(tests/reference/seed_router.mjs, tests/core/test_differential_node.py) is the oracle for the seed's
domain; this table is the oracle for the rest — the lab's rules (custody-incomplete,
side-effects-unknown), their place in the order, requiresCurrent and non-default policies — with
each expected outcome typed here, never computed by the package.
"""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.core.model import SHAPES
from custody_lab.core.rules import rule_codes
from custody_lab.sweep import sweep, to_frame

#: Accepted as a resource link under the seed's policy.
BASE = {
    "id": "base",
    "initiator": "model",
    "operation": "generate",
    "shape": "resource-link",
    "uri": "report://r",
    "mime": "text/html",
    "bytes": 4096,
    "current": True,
    "allowed": True,
    "sideEffects": False,
    "provenance": "p@1",
}
STRICT = {"embedLimitBytes": 2048, "requireCurrent": True}
EMBED = {"shape": "embedded-resource"}
APP = {"initiator": "application", "operation": "read", "shape": "listed-resource"}

#: (name, changes to BASE, policy, expected outcome): the outcome is the selected shape or the
#: rejection code, as a person reading the rule table decides it.
EXPECTED: list[tuple[str, dict, dict | None, str]] = [
    ("the base case", {}, None, "resource-link"),
    ("no uri", {"uri": None}, None, "custody-incomplete"),
    ("an empty mime", {"mime": ""}, None, "custody-incomplete"),
    ("a provenance of spaces", {"provenance": "   "}, None, "custody-incomplete"),
    ("an ideographic-space uri", {"uri": "\u3000"}, None, "custody-incomplete"),
    ("a zero-width-space uri names something", {"uri": "\u200b"}, None, "resource-link"),
    ("a uri with a space inside", {"uri": " r "}, None, "resource-link"),
    ("nobody said the side effects", {"sideEffects": None}, None, "side-effects-unknown"),
    (
        "incomplete custody comes before unknown side effects",
        {"uri": None, "sideEffects": None},
        None,
        "custody-incomplete",
    ),
    (
        "unknown side effects come before a denial",
        {"sideEffects": None, "allowed": False},
        None,
        "side-effects-unknown",
    ),
    ("incomplete custody comes before a denial", {"mime": None, "allowed": False}, None, "custody-incomplete"),
    ("denied", {"allowed": False}, None, "permission-denied"),
    ("stale, nobody requires current", {"current": False}, None, "resource-link"),
    ("stale and the case requires current", {"current": False, "requiresCurrent": True}, None, "stale-content"),
    ("stale under a policy that requires current", {"current": False}, STRICT, "stale-content"),
    (
        "stale, requiresCurrent false, policy requires current",
        {"current": False, "requiresCurrent": False},
        STRICT,
        "stale-content",
    ),
    (
        "a denial comes before staleness",
        {"current": False, "requiresCurrent": True, "allowed": False},
        None,
        "permission-denied",
    ),
    ("an application read that changes state", {**APP, "sideEffects": True}, None, "resource-mislabeled-side-effect"),
    ("a model tool that changes state is fine", {"sideEffects": True}, None, "resource-link"),
    ("an embed at the seed limit", {**EMBED, "bytes": 4096}, None, "embedded-resource"),
    ("an embed one byte over the seed limit", {**EMBED, "bytes": 4097}, None, "embed-over-budget"),
    ("an embed over a stricter limit", {**EMBED, "bytes": 2049}, STRICT, "embed-over-budget"),
    ("an embed at a stricter limit", {**EMBED, "bytes": 2048}, STRICT, "embedded-resource"),
    ("an embed under a zero limit", {**EMBED, "bytes": 1}, {"embedLimitBytes": 0}, "embed-over-budget"),
    ("an empty embed under a zero limit", {**EMBED, "bytes": 0}, {"embedLimitBytes": 0}, "embedded-resource"),
    ("a large link is fine", {"bytes": 1 << 30}, {"embedLimitBytes": 0}, "resource-link"),
    ("the application with a tool shape", {**APP, "shape": "resource-link"}, None, "control-shape-mismatch"),
    ("the model with a resource shape", {"shape": "templated-resource"}, None, "control-shape-mismatch"),
    (
        "over budget comes before a shape mismatch",
        {"initiator": "application", **EMBED, "bytes": 5000},
        None,
        "embed-over-budget",
    ),
    (
        "mislabeled comes before over budget",
        {"initiator": "application", **EMBED, "bytes": 5000, "sideEffects": True},
        None,
        "resource-mislabeled-side-effect",
    ),
    ("an application listed read", APP, None, "listed-resource"),
    ("an application templated read", {**APP, "shape": "templated-resource"}, None, "templated-resource"),
    ("structured tool output", {"shape": "structured-tool-result", "uri": "tool://t"}, None, "structured-tool-result"),
]
IDS = [name for name, *_ in EXPECTED]


def case(i: int, changes: dict) -> dict:
    return {**BASE, "id": f"e{i}", **changes}


@pytest.mark.parametrize(("name", "changes", "policy", "want"), EXPECTED, ids=IDS)
def test_route_decides_each_case_as_written_out_by_hand(name, changes, policy, want):
    got = cl.route(case(0, changes), cl.Policy.from_dict(policy) if policy else None)
    assert got.outcome == want, f"{name}: {changes} under {policy}: expected {want}, got {got.outcome}"
    assert got.accepted == (want in SHAPES), f"{name}: accepted {got.accepted} for {want}"


@pytest.mark.parametrize("layout", ["as loaded", "object", "category"])
def test_sweep_decides_each_case_as_written_out_by_hand(layout):
    by_policy: dict[str, list[tuple[int, str, str]]] = {}
    for i, (name, _, policy, want) in enumerate(EXPECTED):
        by_policy.setdefault(repr(policy), []).append((i, name, want))
    policies = {repr(p): p for _, _, p, _ in EXPECTED}
    for key, rows in by_policy.items():
        frame = to_frame([case(i, EXPECTED[i][1]) for i, _, _ in rows])
        if layout == "object":
            frame = frame.astype(object)
        elif layout == "category":
            frame = frame.astype({c: "category" for c in ("uri", "mime", "provenance")})
        got = sweep(frame, policies[key])["outcome"].astype(str).tolist()
        wrong = [(name, want, g) for (_, name, want), g in zip(rows, got) if g != want]
        assert not wrong, f"{layout}, policy {key}: (case, expected, got) {wrong}"


def test_every_rule_and_shape_is_expected_somewhere_in_the_hand_written_cases():
    wanted = {want for *_, want in EXPECTED}
    missing = (set(rule_codes()) | set(SHAPES)) - wanted
    assert not missing, f"no hand-written expected case for {sorted(missing)}"
