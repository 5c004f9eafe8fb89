"""The recorder: the gate first, the bounded request between two state digests, a link's second read."""

from __future__ import annotations

import json
from typing import Any

import mcp.types as mt
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from custody_lab.live.gate import Gate
from custody_lab.live.hostile_server import HostileServer
from custody_lab.live.lab_server import HANDBOOK_URI, REPORT_URI, LabServer
from custody_lab.live.meta_keys import STATE_URI
from custody_lab.live.recorder import Recorder

from ..timing import scaled

CLOCK = "2026-01-01T00:00:00Z"


def undeclared_server() -> tuple[MCPServer, dict[str, int]]:
    """A server with one tool that says nothing about its side effects, and no state resource."""
    state = {"runs": 0}
    server: MCPServer = MCPServer("undeclared", version="0.1", log_level="WARNING")

    @server.tool()
    async def touch() -> str:
        state["runs"] += 1
        return json.dumps(state)

    return server, state


@pytest.mark.anyio
async def test_a_read_is_recorded_from_what_came_back_at_the_clocks_time():
    async with Client(LabServer().mcp) as client:
        recorder = Recorder(client, state_uri=STATE_URI, clock=lambda: CLOCK, timeout=scaled(5))
        await recorder.load_listing()
        read = await recorder.read(HANDBOOK_URI)
    custody = read.receipt["custody"]
    got = (read.outcome, custody["bytes"], custody["mime"], custody["retrievedAt"], custody["provenance"])
    expected = ("listed-resource", 1800, "text/markdown", CLOCK, "docs-server@v4")
    assert got == expected, f"read {HANDBOOK_URI}: expected {expected}, got {got}"
    assert read.receipt["sideEffectsEvidence"]["observed"] is False, read.receipt["sideEffectsEvidence"]
    assert read.receipt["cache"]["fromCache"] is None, "without a cache store nobody can say it came from a cache"
    assert recorder.receipts == [read], f"expected the one receipt kept, got {recorder.receipts}"


@pytest.mark.anyio
async def test_a_read_the_gate_refuses_is_recorded_and_never_sent():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        recorder = Recorder(client, gate=Gate(deny=("kb://",)), state_uri=STATE_URI, timeout=scaled(5))
        await recorder.load_listing()
        refused = await recorder.read(HANDBOOK_URI)
    facts = (refused.outcome, refused.receipt["performed"], lab.state.reads[HANDBOOK_URI])
    assert facts == ("permission-denied", False, 0), f"expected (permission-denied, False, 0 reads), got {facts}"


@pytest.mark.anyio
async def test_a_call_that_changes_the_servers_state_is_observed_between_the_two_digests():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        recorder = Recorder(client, state_uri=STATE_URI, timeout=scaled(5))
        await recorder.load_listing()
        approved = await recorder.call("approve_draft", {"draft_id": "9"})
        risk = await recorder.call("calculate_risk", {"customer_id": "fixture-17"})
    assert approved.receipt["sideEffectsEvidence"]["observed"] is True, approved.receipt["sideEffectsEvidence"]
    assert risk.receipt["sideEffectsEvidence"]["observed"] is False, risk.receipt["sideEffectsEvidence"]
    assert recorder.last_result is not None and recorder.last_result.structured_content, recorder.last_result


@pytest.mark.anyio
async def test_a_followed_link_is_a_second_read_kept_inside_the_calls_receipt():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        recorder = Recorder(client, state_uri=STATE_URI, timeout=scaled(5))
        await recorder.load_listing()
        followed = await recorder.call("generate_report", {"week": 7})
        kept = await recorder.call("generate_report", {"week": 7}, follow_links=False)
    follow_up = followed.receipt["followUp"]
    assert (follow_up["id"], follow_up["custody"]["uri"]) == ("generate_report:follow-up", REPORT_URI), follow_up
    assert followed.receipt["custody"]["bytes"] == 18000, followed.receipt["custody"]
    assert [r.case_id for r in recorder.receipts] == ["generate_report", "generate_report"], recorder.receipts
    assert kept.receipt.get("followUp") is None and lab.state.reads[REPORT_URI] == 1, (kept.receipt, lab.state.reads)


@pytest.mark.anyio
async def test_a_link_the_gate_refuses_is_kept_explained_and_never_fetched():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        recorder = Recorder(client, gate=Gate(deny=("report://",)), state_uri=STATE_URI, timeout=scaled(5))
        await recorder.load_listing()
        call = await recorder.call("generate_report", {"week": 7})
    assert call.outcome == "link-follow-up-denied", f"expected link-follow-up-denied, got {call.outcome}"
    assert lab.state.reads[REPORT_URI] == 0, f"the refused link was read {lab.state.reads[REPORT_URI]} time(s)"


@pytest.mark.anyio
async def test_a_tool_nobody_declared_side_effects_for_is_refused_before_it_runs_unless_allowed():
    server, state = undeclared_server()
    async with Client(server) as client:
        careful = Recorder(client, state_uri=STATE_URI, timeout=scaled(5))
        await careful.load_listing()
        refused = await careful.call("touch")
        runs_after_refusal = state["runs"]
        allowed = Recorder(client, timeout=scaled(5), allow_unknown_side_effects=True)
        await allowed.load_listing()
        ran = await allowed.call("touch")
    assert careful.state_uri is None, f"an unlisted state resource must be dropped, got {careful.state_uri!r}"
    assert (refused.outcome, runs_after_refusal) == ("side-effects-unknown", 0), (refused.outcome, runs_after_refusal)
    assert state["runs"] == 1 and ran.receipt["performed"], (state, ran.receipt["performed"])
    assert ran.receipt["sideEffectsEvidence"]["observed"] is None, "no state resource: nothing was observed"


@pytest.mark.anyio
async def test_a_server_that_never_answers_ends_in_server_timeout_naming_the_wait():
    timeout = scaled(0.5)
    async with Client(HostileServer().mcp) as client:
        recorder = Recorder(client, timeout=timeout)
        await recorder.load_listing()
        hung = await recorder.call("hang_forever")
    assert hung.outcome == "server-timeout", f"expected server-timeout, got {hung.outcome}"
    said = json.dumps(hung.receipt)
    assert f"tools/call 'hang_forever' got no answer within {timeout:g} s" in said, said[:2000]


def test_the_listing_properties_read_through_to_the_servers_listing():
    recorder = Recorder(client=None)  # type: ignore[arg-type]  # nothing is sent before load_listing
    recorder.listing.listed["kb://x"] = mt.Resource(uri="kb://x", name="x")
    recorder.listing.notes.append("cut")
    assert list(recorder.listed) == ["kb://x"] and recorder.listing_notes == ["cut"], (
        recorder.listed,
        recorder.listing_notes,
    )


# --------------------------------------------------------------------------------------------
# A readOnlyHint is shown, never decisive (issue 22 §4; MCP 2025-03-26 and later: clients MUST
# consider tool annotations untrusted unless they come from a trusted server)
# --------------------------------------------------------------------------------------------

_HINTS = {"hint-true": True, "hint-false": False, "no-hint": None}
_DECLARATIONS = {"declares-none": False, "declares-effects": True, "declares-nothing": None}


def _hinted_server() -> tuple[LabServer, list[str]]:
    """The lab server plus one tool per (hint, declaration, does it change state): 18 tools."""
    from custody_lab.live.meta_keys import PROVENANCE_KEY, SIDE_EFFECTS_KEY, URI_KEY

    lab = LabServer()
    names: list[str] = []
    for hint_name, hint in _HINTS.items():
        for decl_name, declared in _DECLARATIONS.items():
            for changes in (True, False):
                name = f"{hint_name}.{decl_name}.{'changes' if changes else 'keeps'}".replace("-", "_")
                annotations = None if hint is None else mt.ToolAnnotations(read_only_hint=hint)
                meta = None if declared is None else {SIDE_EFFECTS_KEY: declared}

                def make(changes: bool = changes) -> Any:
                    async def tool() -> mt.CallToolResult:
                        if changes:
                            lab.state.approvals += 1
                        named = {PROVENANCE_KEY: "hinted@1", URI_KEY: "urn:test:hinted"}
                        return mt.CallToolResult(content=[mt.TextContent(type="text", text="done")], _meta=named)

                    return tool

                lab.mcp.add_tool(make(), name=name.replace(".", "__"), annotations=annotations, meta=meta)
                names.append(name.replace(".", "__"))
    return lab, names


@pytest.mark.anyio
@pytest.mark.parametrize("consented", [False, True], ids=["no-consent", "consented-call"])
async def test_a_read_only_hint_changes_no_decision_true_false_or_absent(consented):
    lab, names = _hinted_server()
    outcomes: dict[tuple[str, str], dict[str, tuple[str, bool]]] = {}
    async with Client(lab.mcp) as client:
        rec = Recorder(client, state_uri=STATE_URI, clock=lambda: CLOCK, allow_unknown_side_effects=consented)
        await rec.load_listing()
        for name in names:
            hint_name, decl_name, effect = name.split("__")
            live = await rec.call(name)
            got = (live.outcome, bool(live.receipt["performed"]))
            outcomes.setdefault((decl_name, effect), {})[hint_name] = got
            shown = live.receipt["sideEffectsEvidence"]["readOnlyHint"]
            assert shown == _HINTS[hint_name.replace("_", "-")], f"{name}: the hint is shown as {shown}"
    for (decl_name, effect), by_hint in outcomes.items():
        assert len(set(by_hint.values())) == 1, (
            f"{decl_name}, {effect}: the readOnlyHint changed the decision: {by_hint}"
        )
    # and the declaration still decides (the invariance above is not because nothing decides)
    nothing = outcomes[("declares_nothing", "keeps")]["no_hint"]
    assert nothing == (("structured-tool-result", True) if consented else ("side-effects-unknown", False)), nothing
    assert outcomes[("declares_none", "changes")]["no_hint"][0] == "read-only-hint-violated"


# --------------------------------------------------------------------------------------------
# The order live mode checks in (notebook 07, "The order live mode checks in")
# --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_refused_read_is_refused_for_permission_not_for_the_custody_it_never_got():
    import custody_lab as cl

    async with Client(LabServer().mcp) as client:
        rec = Recorder(client, gate=Gate(deny=("kb://",)), state_uri=STATE_URI, clock=lambda: CLOCK)
        await rec.load_listing()
        live = await rec.read(HANDBOOK_URI)
    trace = [(s["code"], s["status"]) for s in live.receipt["trace"]]
    assert trace[0] == ("permission-denied", "failed"), trace
    assert live.outcome == "permission-denied" and live.receipt["performed"] is False, live.outcome
    custody = live.receipt["custody"]
    assert custody["provenance"] is None and custody["bytes"] == 0, custody  # nothing ever arrived
    facts = {k: custody[k] for k in ("uri", "mime", "bytes", "provenance", "sideEffects")}
    simulated = cl.route(cl.Case.from_dict({**facts, **_case_keys(live.receipt)}))
    assert simulated.rejection == "custody-incomplete", (
        f"in the simulator's order the same facts would blame {simulated.rejection!r}"
    )


def _case_keys(receipt: dict) -> dict:
    """The Case fields a receipt's custody block does not hold, for routing it in the simulator."""
    c = receipt["custody"]
    return {
        "id": receipt["id"],
        "initiator": c["actor"],
        "operation": "read",
        "shape": "listed-resource",
        "current": True,
        "allowed": False,
    }


def test_on_complete_custody_with_stated_side_effects_both_orders_give_the_same_outcome():
    from hypothesis import given, settings

    import custody_lab as cl

    from ..strategies import seed_domain_case

    @settings(max_examples=150, deadline=None)
    @given(seed_domain_case())
    def same(case: dict) -> None:
        simulated = cl.route(case)
        live = cl.route(case, exchange={})
        assert simulated.outcome == live.outcome, (case, simulated.outcome, live.outcome)

    same()
