"""The recording client: receipts from the actual response, compared field by field."""

from __future__ import annotations

import asyncio

import pytest

import custody_lab as cl
from custody_lab.live import (
    FIXTURE_EXCHANGES,
    Gate,
    LabSession,
    LiveError,
    record_fixture,
    run_sync,
)
from custody_lab.live.lab_server import STATUS_URI, Freshness, LabServer
from custody_lab.live.receipt_diff import (
    COMPARED_FIELDS,
    compare_fixture,
    compare_receipts,
    comparison_html,
    comparison_table,
)

from ..timing import scaled

FIXED = "2026-09-04T12:00:00.000Z"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["modern", "legacy"])
async def test_all_six_live_receipts_agree_with_the_simulator(mode):
    receipts = await record_fixture(mode=mode)
    comparisons = compare_fixture(receipts)
    assert len(comparisons) == 6
    bad = {c.case_id: [d.explain() for d in c.differences] for c in comparisons if not c.agrees}
    assert not bad, f"{mode}: live differs from the simulator: {bad}"


@pytest.mark.anyio
async def test_with_the_simulators_clock_the_live_receipt_equals_the_seed_receipt():
    receipts = await record_fixture(clock=lambda: FIXED)
    fixture = cl.load_fixture()
    for live in receipts:
        seed = cl.route(fixture.case(live.case_id), fixture.policy).to_dict()
        seed_part = {k: live.receipt[k] for k in seed}
        assert seed_part == seed, f"{live.case_id}: expected {seed}, got {seed_part}"


@pytest.mark.anyio
async def test_the_receipt_is_built_from_the_actual_response():
    async with LabSession() as s:
        r = await s.read("kb://handbook/v4")
    rec = r.receipt
    assert rec["method"] == "resources/read" and rec["custody"]["actor"] == "application"
    assert rec["server"] == {"name": "custody-lab-server", "version": "1.0.0"}, rec["server"]
    assert rec["contentDigest"] == "sha256:" + cl.digest(r.content), rec["contentDigest"]
    assert rec["custody"]["bytes"] == len(r.content.encode("utf-8")) == 1800
    assert rec["delivery"] == "read" and rec["protocolVersion"] == "2026-07-28"


@pytest.mark.anyio
async def test_a_template_read_records_its_parameters():
    async with LabSession() as s:
        r = await s.read("crm://customer/fixture-17")
    assert r.outcome == "templated-resource", r.outcome
    assert r.receipt["templateParams"] == {"id": "fixture-17"}, r.receipt.get("templateParams")
    assert r.receipt["template"] == "crm://customer/{id}"


@pytest.mark.anyio
async def test_a_missing_template_instance_is_a_named_rejection():
    async with LabSession() as s:
        r = await s.read("crm://customer/nobody")
    assert r.rejection == "resource-not-found", r.receipt
    assert "-32602" in r.receipt["error"], r.receipt["error"]


@pytest.mark.anyio
async def test_a_resource_link_is_followed_as_a_second_read_through_the_gate():
    async with LabSession() as s:
        r = await s.call("generate_report", {"week": 7})
    follow = r.receipt["followUp"]
    assert r.outcome == "resource-link" and r.receipt["delivery"] == "linked"
    assert follow["method"] == "resources/read" and follow["custody"]["permissionChecked"] is True
    assert follow["custody"]["actor"] == "application", follow["custody"]


@pytest.mark.anyio
async def test_a_link_the_caller_may_not_read_is_kept_and_never_fetched():
    gate = Gate(deny=("report://",))
    async with LabSession(gate=gate) as s:
        r = await s.call("generate_report", {"week": 7})
        reads = dict(s.server.state.reads)
    assert r.rejection == "link-follow-up-denied", r.outcome
    assert r.receipt["custody"]["uri"] == "report://synthetic/weekly-7", "the link must be kept"
    assert r.receipt["followUp"]["fetched"] is False
    assert reads.get("report://synthetic/weekly-7", 0) == 0, f"the report was fetched: {reads}"


@pytest.mark.anyio
async def test_a_denied_read_is_refused_before_the_server_sees_it():
    async with LabSession(gate=Gate(deny=("kb://",))) as s:
        r = await s.read("kb://handbook/v4")
        reads = dict(s.server.state.reads)
    assert r.rejection == "permission-denied" and r.receipt["performed"] is False
    assert "kb://handbook/v4" not in reads, reads


@pytest.mark.anyio
async def test_an_embedded_resource_the_caller_may_not_read_is_refused_and_its_content_not_kept():
    # Consent to the call is not permission to read what the server embeds (seed 000: authorise
    # before embedding); the gate is asked for the embedded URI as for any read.
    async with LabSession(gate=Gate(deny=("draft://",))) as s:
        r = await s.call("approve_draft", {"draft_id": "9"})
    assert r.rejection == "permission-denied", r.outcome
    assert r.receipt["custody"]["uri"].startswith("draft://"), r.receipt["custody"]
    assert r.content is None, r.content
    assert "may not read" in " ".join(c["detail"] for c in r.receipt["liveChecks"]), r.receipt["liveChecks"]
    async with LabSession() as s:
        ok = await s.call("approve_draft", {"draft_id": "9"})
    assert ok.outcome == "embedded-resource" and ok.content, ok.outcome


@pytest.mark.anyio
async def test_an_embed_over_the_policy_limit_is_rejected_from_the_actual_bytes():
    async with LabSession(policy=cl.Policy(embed_limit_bytes=500)) as s:
        r = await s.call("approve_draft", {"draft_id": "9"})
    assert r.rejection == "embed-over-budget", r.outcome
    assert r.receipt["custody"]["bytes"] == 760


@pytest.mark.anyio
async def test_side_effects_are_declared_and_observed():
    async with LabSession() as s:
        approve = await s.call("approve_draft", {"draft_id": "9"})
        report = await s.call("generate_report", {"week": 7})
    assert approve.receipt["sideEffectsEvidence"] == {
        "declared": True,
        "observed": True,
        "source": "_meta org.custody-lab/sideEffects",
        "readOnlyHint": False,  # shown as the server sent it; it declares nothing
    }
    assert report.receipt["sideEffectsEvidence"]["observed"] is False


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["modern", "legacy"])
async def test_an_update_notice_leads_to_a_re_read_that_records_the_new_revision(mode):
    async with LabSession(mode=mode) as s:
        async with s.watch("status://service/current") as watch:
            first = await s.read("status://service/current", operation="read-subscribed")
            await s.server.advance_status()
            again = await s.reread_on_notice(watch, timeout=scaled(3))
    assert first.receipt["custody"]["provenance"] == "status-fixture@12"
    assert again.receipt["custody"]["provenance"] == "status-fixture@13", again.receipt["custody"]
    assert again.receipt["trigger"] == "notifications/resources/updated"
    assert again.receipt["cache"]["fromCache"] is False and again.accepted


@pytest.mark.anyio
async def test_a_cached_read_is_recorded_as_cached_and_not_current():
    # A server that claims its status fresh for a minute (the lab's own claims 0 ms: FRESHNESS)
    lab = LabServer(freshness={STATUS_URI: Freshness(60_000, "public", "a false claim, on purpose")})
    async with LabSession(lab) as s:
        await s.read("status://service/current")
        await s.server.advance_status()  # nobody listens: the cache cannot know
        cached = await s.read("status://service/current", requires_current=True)
        fresh = await s.read("status://service/current", requires_current=True, cache_mode="bypass")
    assert cached.receipt["cache"]["fromCache"] is True
    assert cached.rejection == "stale-content", cached.outcome
    assert cached.receipt["custody"]["provenance"] == "status-fixture@12"
    assert fresh.accepted and fresh.receipt["custody"]["provenance"] == "status-fixture@13"


@pytest.mark.anyio
async def test_the_honest_status_claim_sends_the_next_read_to_the_server_which_answers_the_new_revision():
    async with LabSession() as s:
        first = await s.read(STATUS_URI)
        await s.server.advance_status()  # nobody listens, and nobody needs to: ttlMs is 0
        again = await s.read(STATUS_URI, requires_current=True)
    assert first.receipt["cache"]["ttlMs"] == 0, first.receipt["cache"]
    got = (again.receipt["cache"]["fromCache"], again.accepted, again.receipt["custody"]["provenance"])
    assert got == (False, True, "status-fixture@13"), f"expected a current read of revision 13, got {got}"
    assert s.server.state.reads[STATUS_URI] == 2, s.server.state.reads


@pytest.mark.anyio
async def test_frames_are_recorded_for_both_protocols():
    for mode, version in (("legacy", "2025-11-25"), ("modern", "2026-07-28")):
        async with LabSession(mode=mode, frames=True) as s:
            r = await s.read("kb://handbook/v4")
        methods = [f.message.get("method") for f in r.frames]
        assert "resources/read" in methods, f"{mode}: {methods}"
        opening = [f.message.get("method") for f in s.frames[:1]]
        assert opening == (["initialize"] if mode == "legacy" else ["server/discover"]), opening
        assert r.receipt["sideEffectsEvidence"]["observed"] is False, "the state ledger was not read"
        assert r.receipt["protocolVersion"] == version
        assert all(f.message.get("jsonrpc") == "2.0" for f in r.frames)


def test_run_sync_runs_outside_a_loop_and_refuses_inside_one():
    receipts = run_sync(record_fixture)
    assert [r.case_id for r in receipts] == [x.case_id for x in FIXTURE_EXCHANGES]

    async def inside() -> None:
        with pytest.raises(LiveError, match="await"):
            run_sync(record_fixture)

    asyncio.run(inside())


@pytest.mark.parametrize("field", COMPARED_FIELDS)
def test_every_compared_field_is_named_when_it_differs(field):
    sim = {
        "id": "x",
        "accepted": True,
        "selected": "listed-resource",
        "custody": {
            "actor": "application",
            "permissionChecked": True,
            "uri": "a://b",
            "mime": "text/plain",
            "provenance": "p@1",
            "bytes": 1,
            "sideEffects": False,
        },
    }
    live = {
        "id": "x",
        "accepted": False,
        "rejection": "r",
        "custody": {
            "actor": "model",
            "permissionChecked": False,
            "uri": "a://c",
            "mime": "text/html",
            "provenance": None,
            "bytes": 2,
            "sideEffects": True,
        },
    }
    diffs = {d.field: d for d in compare_receipts(sim, live)}
    assert not diffs[field].agrees and field in diffs[field].explain(), diffs[field]


def test_a_missing_live_receipt_names_every_field_as_missing():
    comparisons = compare_fixture([])
    assert len(comparisons) == 6 and not any(c.agrees for c in comparisons)
    assert len(comparisons[0].differences) == len(COMPARED_FIELDS)


def test_server_text_is_escaped_in_the_html_table():
    live = {"id": "handbook", "accepted": True, "selected": "<script>alert(1)</script>"}
    comparisons = compare_fixture([live])
    page = comparison_html(comparisons)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "handbook" in comparison_table(comparisons)


@pytest.mark.anyio
async def test_legacy_subscribers_are_tracked_and_released():
    async with LabSession(mode="legacy") as s:
        assert s.server.subscriber_count("status://service/current") == 0
        async with s.watch("status://service/current"):
            assert s.server.subscriber_count("status://service/current") == 1
        assert s.server.subscriber_count("status://service/current") == 0


@pytest.mark.anyio
async def test_no_notice_within_the_limit_is_a_clear_timeout():
    from custody_lab.live import LiveTimeout

    async with LabSession() as s:
        async with s.watch("status://service/current") as watch:
            with pytest.raises(LiveTimeout, match="no update notice"):
                await watch.next_notice(timeout=scaled(0.2))


@pytest.mark.anyio
async def test_a_legacy_client_that_did_not_subscribe_gets_no_notice():
    from custody_lab.live.lab_server import LabServer

    lab = LabServer()
    async with LabSession(lab, mode="legacy") as watcher, LabSession(lab, mode="legacy", frames=True) as bystander:
        async with watcher.watch("status://service/current") as watch:
            await lab.advance_status()
            assert await watch.next_notice(timeout=scaled(2)) == "status://service/current"
        notices = [f for f in bystander.frames if f.message.get("method") == "notifications/resources/updated"]
    assert bystander.frames and not notices, notices


def one_failed_step(live):
    """The failed steps of a live receipt's trace (the decision's and the receipt's must agree)."""
    decision_steps = [(s.code, s.status) for s in live.decision.trace]
    receipt_steps = [(s["code"], s["status"]) for s in live.receipt["trace"]]
    assert decision_steps == receipt_steps, f"decision {decision_steps} != receipt {receipt_steps}"
    return [code for code, status in receipt_steps if status == "failed"]


@pytest.mark.anyio
async def test_a_gate_denied_tool_call_fails_one_step_the_first_and_never_runs():
    async with LabSession(gate=Gate(deny_tools=("approve_draft",))) as s:
        r = await s.call("approve_draft", {"draft_id": "9"})
        calls = dict(s.server.state.calls)
    assert r.rejection == "permission-denied", r.receipt
    assert one_failed_step(r) == ["permission-denied"], r.receipt["trace"]
    statuses = [step["status"] for step in r.receipt["trace"]]
    assert statuses[0] == "failed" and set(statuses[1:]) == {"not-reached"}, statuses
    assert r.receipt["performed"] is False and calls.get("approve_draft", 0) == 0, calls


@pytest.mark.anyio
async def test_contents_for_another_uri_are_a_uri_mismatch_with_one_failed_step():
    from custody_lab.live.lab_server import LabServer
    from custody_lab.live.meta_keys import PROVENANCE_KEY

    lab = LabServer()

    async def answer_for_v3(ctx, call_next):
        result = await call_next(ctx)
        if ctx.method == "resources/read" and isinstance(result, dict):
            for item in result.get("contents", ()):
                if item.get("uri") == "kb://handbook/v4":
                    item["uri"] = "kb://handbook/v3"
                    item["_meta"] = {**(item.get("_meta") or {}), PROVENANCE_KEY: "docs-server@v3"}
        return result

    lab.mcp.middleware.append(answer_for_v3)
    async with LabSession(lab) as s:
        r = await s.read("kb://handbook/v4", cache_mode="bypass")
    assert r.rejection == "uri-mismatch", f"expected uri-mismatch, got {r.outcome}: {r.receipt}"
    assert one_failed_step(r) == ["uri-mismatch"], r.receipt["trace"]
    assert r.receipt["custody"]["uri"] == "kb://handbook/v3", "the receipt keeps what actually came back"
    assert r.receipt["exchange"]["requestedUri"] == "kb://handbook/v4", r.receipt["exchange"]
    check = r.receipt["liveChecks"]
    assert check == [
        {
            "code": "uri-mismatch",
            "status": "failed",
            "detail": "asked for 'kb://handbook/v4', the contents item says 'kb://handbook/v3'",
        }
    ], check


#: A fresh interpreter: a session's start, a read and a structured result (the SDK checks it against
#: the tool's output schema with ``jsonschema``), then the learner's own format check.
_AFTER_A_LIVE_EXCHANGE = """
import json, sys
import anyio
from custody_lab.live.session import LabSession
seen = {}
async def go():
    async with LabSession() as s:
        seen["jsonschema after the session's start"] = "jsonschema" in sys.modules
        await s.read("kb://handbook/v4")
        seen["jsonschema after a read"] = "jsonschema" in sys.modules
        r = await s.call("calculate_risk", {"customer": "crm://customer/fixture-17"})
        seen["jsonschema after a structured result"] = "jsonschema" in sys.modules
        seen["structured result accepted"] = r.accepted
anyio.run(go)
import jsonschema
checker = jsonschema.FormatChecker()
seen["not-a-date is a date-time"] = checker.conforms("not-a-date", "date-time")
seen["2026-09-04T12:00:00Z is a date-time"] = checker.conforms("2026-09-04T12:00:00Z", "date-time")
seen["formats"] = sorted(checker.checkers)
print(json.dumps(seen))
"""

#: The formats a ``FormatChecker`` knows when nothing but ``jsonschema`` was imported.
_PLAIN_FORMATS = "import json, jsonschema; print(json.dumps(sorted(jsonschema.FormatChecker().checkers)))"


@pytest.mark.slow  # two fresh interpreters that import mcp and jsonschema
def test_a_live_exchange_leaves_jsonschema_as_the_learner_would_find_it():
    import json
    import subprocess
    import sys

    plain = subprocess.run([sys.executable, "-c", _PLAIN_FORMATS], capture_output=True, text=True, timeout=scaled(120))
    assert plain.returncode == 0, plain.stderr[-2000:]
    out = subprocess.run(
        [sys.executable, "-c", _AFTER_A_LIVE_EXCHANGE], capture_output=True, text=True, timeout=scaled(120)
    )
    expected = {
        "jsonschema after the session's start": False,  # the SDK imports it only to check a result
        "jsonschema after a read": False,
        "jsonschema after a structured result": True,
        "structured result accepted": True,
        "not-a-date is a date-time": False,
        "2026-09-04T12:00:00Z is a date-time": True,
        "formats": json.loads(plain.stdout),
    }
    actual = json.loads(out.stdout) if out.returncode == 0 else out.stderr[-2000:]
    assert actual == expected, f"expected {expected}, got {actual}"
