"""Receipts: canonical JSON as JSON.stringify writes it, digests, and the seed fixture."""

from __future__ import annotations

import hashlib
import json

import pytest

import custody_lab as cl

from ..seed_facts import SEED_FIXTURE_SHA256


def test_the_fixture_payload_has_the_seeds_sha256():
    payload = cl.fixture_payload()
    assert payload["sha256"] == SEED_FIXTURE_SHA256
    body = {k: v for k, v in payload.items() if k != "sha256"}
    assert hashlib.sha256(cl.canonical_json(body).encode()).hexdigest() == SEED_FIXTURE_SHA256


def test_the_fixture_payload_has_the_seeds_keys_and_counts():
    payload = cl.fixture_payload()
    assert list(payload) == ["fixture", "remoteServerCalled", "policy", "accepted", "adversarial", "sha256"]
    assert payload["fixture"] == "mcp-context-custody-v1" and payload["remoteServerCalled"] is False
    assert [r["id"] for r in payload["accepted"]] == [
        "handbook",
        "customer-record",
        "generated-report",
        "risk-score",
        "live-status",
        "approve-draft",
    ]
    assert [r["rejection"] for r in payload["adversarial"]] == [
        "stale-content",
        "permission-denied",
        "embed-over-budget",
        "resource-mislabeled-side-effect",
    ]


def test_canonical_json_is_compact_keeps_key_order_and_non_ascii():
    value = {"z": 1, "a": [True, False, None], "é": '✅ "q" \n'}
    assert cl.canonical_json(value) == '{"z":1,"a":[true,false,null],"é":"✅ \\"q\\" \\n"}'
    assert json.loads(cl.canonical_json(value)) == value


def test_canonical_json_escapes_control_characters_like_javascript():
    # JSON.stringify("\u0001\b") === '"\\u0001\\b"'
    assert cl.canonical_json("\u0001\b\x7f") == '"\\u0001\\b\x7f"'


def test_extended_receipt_keeps_the_seed_receipt_byte_identical(fixture):
    d = cl.route(fixture.case("customer-record"))
    ext = cl.extended_receipt(d, template_params={"id": "fixture-17"})
    seed_part = {k: ext[k] for k in ("id", "accepted", "selected", "custody")}
    assert cl.canonical_json(seed_part) == cl.canonical_json(d.to_dict())
    assert ext["digest"] == cl.digest(d.to_dict())
    assert ext["templateParams"] == {"id": "fixture-17"}
    assert [s["status"] for s in ext["trace"]] == ["passed"] * 7


def test_digest_changes_when_one_custody_field_changes(fixture):
    a = cl.route(fixture.case("handbook")).to_dict()
    b = cl.route(fixture.case("handbook").with_changes(provenance="docs-server@v5")).to_dict()
    assert cl.digest(a) != cl.digest(b)


def test_the_receipt_carries_the_policy_clock_and_its_digest_follows_it(fixture):
    later = cl.Policy(now="2031-01-02T03:04:05.000Z")
    seed_time = cl.route(fixture.case("handbook")).to_dict()
    other_time = cl.route(fixture.case("handbook"), later).to_dict()
    got = other_time["custody"]["retrievedAt"]
    assert got == "2031-01-02T03:04:05.000Z", f"Policy(now=2031-01-02T03:04:05.000Z): got retrievedAt {got!r}"
    assert seed_time["custody"]["retrievedAt"] == cl.Policy().now
    assert cl.digest(other_time) != cl.digest(seed_time), "the digest must change with retrievedAt"
    assert cl.extended_receipt(cl.route(fixture.case("handbook"), later))["digest"] == cl.digest(other_time)


def test_the_extended_receipt_of_a_rejected_case_keeps_every_step_in_order(fixture):
    from custody_lab.core.rules import RULES

    d = cl.route(fixture.case("oversize-embed"))
    got = cl.extended_receipt(d)["trace"]
    expected = [{"code": r.code, "status": "passed"} for r in RULES[:5]] + [
        {"code": "embed-over-budget", "status": "failed"},
        {"code": "control-shape-mismatch", "status": "not-reached"},
    ]
    assert got == expected, f"oversize-embed: expected {expected}, got {got}"


# -- JSON.stringify's well-formed output (ECMAScript 2019): every receipt is valid UTF-8 (issue 39 §1) --------


@pytest.mark.parametrize(
    ("value", "javascript"),
    [
        # what node prints for JSON.stringify of the same JavaScript string
        ("kb://\ud800", '"kb://\\ud800"'),
        ("\udfff end", '"\\udfff end"'),
        ("\ud83d\ude00", '"\U0001f600"'),  # a pair written as two code points is one character
        ("\ude00\ud83d", '"\\ude00\\ud83d"'),  # the wrong order is two lone surrogates
        ({"k\ud800": ["é", "\u2028"]}, '{"k\\ud800":["é","\u2028"]}'),
    ],
)
def test_canonical_json_writes_lone_surrogates_as_escapes_as_javascript_does(value, javascript):
    text = cl.canonical_json(value)
    assert text == javascript, (text, javascript)
    text.encode("utf-8")  # strict: no surrogate is left to encode


# -- freshness: the deadline itself is already stale (issue 39 §4: `<` → `<=` survived tests/core) ------------


@pytest.mark.parametrize(
    ("ttl_ms", "now", "state"),
    [
        (1500, "2026-09-04T12:00:01.499Z", "fresh"),  # a millisecond before the deadline
        (1500, "2026-09-04T12:00:01.500Z", "stale"),  # at the deadline: no longer fresh
        (1500, "2026-09-04T12:00:01.501Z", "stale"),
        (0, "2026-09-04T12:00:00.000Z", "stale"),  # ttlMs 0: stale when read
        (None, "2026-09-04T12:00:00.000Z", None),  # no hint, no freshness
    ],
)
def test_a_read_is_fresh_strictly_before_its_deadline_and_stale_from_it(ttl_ms, now, state):
    from custody_lab.core.receipts import freshness

    got = freshness("2026-09-04T12:00:00.000Z", ttl_ms, now=now)
    assert (got and got["state"]) == state, got
    if got is not None:
        assert got["freshUntil"] == "2026-09-04T12:00:01.500Z" if ttl_ms else got["freshUntil"].endswith("00.000Z")
