"""The lab server: six seed capabilities plus the logo blob, with the fixture's sizes."""

from __future__ import annotations

import base64
import json

import mcp.types as mt
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

import custody_lab as cl
import custody_lab.live as cl_live
from custody_lab.core.paths import data_path
from custody_lab.live.lab_prompts import PROMPT_NAMES
from custody_lab.live.lab_server import (
    ASSET_URI,
    CUSTOMER_TEMPLATE,
    DAY_MS,
    FRESHNESS,
    HANDBOOK_URI,
    LISTING_FRESHNESS,
    REPORT_URI,
    STATUS_URI,
    LabServer,
    LabState,
)
from custody_lab.live.meta_keys import PROVENANCE_KEY, STATE_URI, URI_KEY


def _fixture_case(case_id: str) -> cl.Case:
    return cl.load_fixture().case(case_id)


@pytest.mark.parametrize(
    ("case_id", "name"),
    [
        ("handbook", "resources/handbook-v4.md"),
        ("customer-record", "live/customer-fixture-17.json"),
        ("generated-report", "resources/weekly-report-7.html"),
        ("live-status", "live/status-12.json"),
        ("approve-draft", "live/draft-9.json"),
    ],
)
def test_each_data_file_has_exactly_the_fixture_byte_size(case_id, name):
    size = len(data_path(*name.split("/")).read_bytes())
    want = _fixture_case(case_id).bytes
    assert size == want, f"data/{name}: expected {want} bytes (fixture {case_id}), got {size}"


@pytest.mark.parametrize("uri", ["kb://handbook/v4", "report://synthetic/weekly-7"])
def test_the_live_server_and_the_catalog_serve_the_same_bytes_for_the_same_uri(uri):
    from custody_lab.live import LabSession, run_sync
    from custody_lab.protocol.catalog import Catalog

    async def read():
        async with LabSession() as s:
            return await s.read(uri)

    live = run_sync(read)
    catalog = Catalog.load().read(uri)
    assert live.receipt["contentDigest"] == "sha256:" + catalog.sha256, (live.receipt, catalog.sha256)


def test_the_risk_score_is_340_bytes_of_canonical_json():
    score = json.loads(data_path("live", "risk-42.json").read_text(encoding="utf-8"))
    size = len(cl.canonical_json(score).encode("utf-8"))
    assert size == _fixture_case("risk-score").bytes, f"canonical risk JSON is {size} bytes"


@pytest.mark.anyio
async def test_the_server_lists_the_seed_resources_template_and_tools():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        listed = {r.uri for r in (await client.list_resources()).resources}
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        tools = {t.name: t for t in (await client.list_tools()).tools}
    want = {HANDBOOK_URI, REPORT_URI, STATUS_URI, ASSET_URI, STATE_URI}
    assert want <= listed, f"missing listed resources: {want - listed}"
    assert templates == ["crm://customer/{id}"], templates
    assert set(tools) == {"generate_report", "calculate_risk", "approve_draft"}, set(tools)
    assert tools["calculate_risk"].output_schema, "calculate_risk must publish an output schema"
    assert tools["approve_draft"].annotations.read_only_hint is False
    assert tools["generate_report"].annotations.read_only_hint is True


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("uri", "mime", "size", "provenance"),
    [
        ("kb://handbook/v4", "text/markdown", 1800, "docs-server@v4"),
        ("crm://customer/fixture-17", "application/json", 920, "crm-fixture@17"),
        ("report://synthetic/weekly-7", "text/html", 18000, "report-tool@2"),
        ("status://service/current", "application/json", 580, "status-fixture@12"),
    ],
)
async def test_a_read_returns_the_fixture_size_mime_and_provenance(uri, mime, size, provenance):
    async with Client(LabServer().mcp) as client:
        item = (await client.read_resource(uri)).contents[0]
    got = (item.mime_type, len(item.text.encode("utf-8")), (item.meta or {}).get(PROVENANCE_KEY))
    assert got == (mime, size, provenance), f"{uri}: expected {(mime, size, provenance)}, got {got}"


@pytest.mark.anyio
async def test_the_logo_is_a_base64_blob_with_its_mime_type():
    async with Client(LabServer().mcp) as client:
        item = (await client.read_resource(ASSET_URI)).contents[0]
    assert isinstance(item, mt.BlobResourceContents), type(item)
    assert item.mime_type == "image/png"
    assert base64.b64decode(item.blob) == data_path("resources", "logo.png").read_bytes()


#: (client mode, the revision it negotiates, the code a missing resource must get under it)
NOT_FOUND_BY_MODE = [("auto", "2026-07-28", -32602), ("legacy", "2025-11-25", -32002)]


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "revision", "code"), NOT_FOUND_BY_MODE)
@pytest.mark.parametrize("uri", ["crm://customer/nobody", "kb://handbook/v99"], ids=["template", "no-template"])
async def test_a_missing_resource_answers_the_code_of_the_negotiated_revision(mode, revision, code, uri):
    async with Client(LabServer().mcp, mode=mode) as client:
        assert client.protocol_version == revision, f"{mode}: negotiated {client.protocol_version}"
        with pytest.raises(MCPError) as info:
            await client.read_resource(uri)
    got = (info.value.code, (info.value.error.data or {}).get("uri"))
    assert got == (code, uri), f"{mode} ({revision}) read {uri}: expected {(code, uri)}, got {got}"


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "code"), [("modern", -32602), ("legacy", -32002)])
async def test_the_lab_client_classifies_both_codes_as_resource_not_found(mode, code):
    async with cl_live.LabSession(mode=mode) as s:
        r = await s.read("crm://customer/nobody")
    got = (r.rejection, r.receipt["exchange"].get("errorCode"), r.receipt["protocolVersion"])
    assert got[:2] == ("resource-not-found", code), f"{mode}: expected ('resource-not-found', {code}), got {got}"
    assert str(code) in r.receipt["error"], r.receipt["error"]


@pytest.mark.anyio
async def test_generate_report_returns_a_readable_resource_link_not_the_report():
    async with Client(LabServer().mcp) as client:
        result = await client.call_tool("generate_report", {"week": 7})
        links = [b for b in result.content if isinstance(b, mt.ResourceLink)]
        assert len(links) == 1 and links[0].uri == REPORT_URI, result.content
        assert not any(isinstance(b, mt.EmbeddedResource) for b in result.content)
        again = await client.read_resource(links[0].uri)
    assert len(again.contents[0].text.encode("utf-8")) == 18000


@pytest.mark.anyio
async def test_calculate_risk_returns_structured_content_named_by_meta():
    async with Client(LabServer().mcp) as client:
        result = await client.call_tool("calculate_risk", {})
    assert result.structured_content["score"] == 42, result.structured_content
    assert (result.meta or {}).get(URI_KEY) == "urn:fixture:risk:42", result.meta


@pytest.mark.anyio
async def test_approve_draft_changes_state_and_embeds_the_draft():
    lab = LabServer()
    async with Client(lab.mcp) as client:
        result = await client.call_tool("approve_draft", {"draft_id": "9"})
    embedded = [b for b in result.content if isinstance(b, mt.EmbeddedResource)]
    assert embedded and embedded[0].resource.uri == "draft://fixture/9", result.content
    assert lab.state.approvals == 1, lab.state.ledger()


@pytest.mark.anyio
async def test_reads_never_change_the_ledger():
    lab = LabServer()
    before = lab.state.ledger()
    async with Client(lab.mcp) as client:
        for uri in (HANDBOOK_URI, STATUS_URI, STATE_URI, REPORT_URI):
            await client.read_resource(uri)
    assert lab.state.ledger() == before, f"{before} -> {lab.state.ledger()}"
    assert sum(lab.state.reads.values()) >= 4, lab.state.reads


def test_status_provenance_follows_the_revision():
    state = LabState()
    state.status_revision = 13
    assert state.provenance(STATUS_URI) == "status-fixture@13"
    assert json.loads(state.status_text())["revision"] == 13


@pytest.mark.anyio
async def test_any_other_exception_in_a_template_answers_internal_error_32603():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("broken", log_level="CRITICAL")

    @server.resource("broken://{id}", mime_type="text/plain")
    async def broken(id: str) -> str:
        raise ValueError("a bug, not a missing record")

    async with Client(server) as client:
        with pytest.raises(MCPError) as info:
            await client.read_resource("broken://1")
    assert info.value.code == -32603, f"expected -32603, got {info.value.code}"


# -- freshness: each resource's claim is true of it (SEP-2549, 2026-07-28) --------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("uri", "ttl_ms", "scope"),
    [
        (STATUS_URI, 0, "public"),
        (STATE_URI, 0, "public"),
        (HANDBOOK_URI, DAY_MS, "public"),
        (REPORT_URI, DAY_MS, "public"),
        (ASSET_URI, DAY_MS, "public"),
        ("crm://customer/fixture-17", DAY_MS, "private"),
    ],
)
async def test_each_read_carries_the_freshness_that_is_true_of_its_resource(uri, ttl_ms, scope):
    async with Client(LabServer().mcp, mode="auto") as client:
        result = await client.read_resource(uri)
    assert (result.ttl_ms, result.cache_scope) == (ttl_ms, scope), f"{uri}: expected {ttl_ms}/{scope}, got {result}"


@pytest.mark.anyio
async def test_the_listings_are_claimed_stable_and_a_legacy_session_gets_no_caching_hints_at_all():
    lab = LabServer()
    async with Client(lab.mcp, mode="auto") as client:
        listings = [
            await client.list_resources(),
            await client.list_resource_templates(),
            await client.list_tools(),
            await client.list_prompts(),
        ]
    got = {(r.ttl_ms, r.cache_scope) for r in listings}
    assert got == {(LISTING_FRESHNESS.ttl_ms, "public")}, got
    async with Client(lab.mcp, mode="legacy") as client:
        ledger = await client.read_resource(STATE_URI)
        tools = await client.list_tools()
    # the wire carried no ttlMs/cacheScope: the SDK's model reports no field as set
    assert not ({"ttl_ms", "cache_scope"} & (ledger.model_fields_set | tools.model_fields_set)), ledger


def test_the_freshness_table_claims_nothing_long_for_a_resource_that_moves():
    lab = LabServer()
    moving = {STATUS_URI, STATE_URI}
    assert all(lab.freshness(u).ttl_ms == 0 for u in moving), {u: lab.freshness(u) for u in moving}
    listed = {r.uri for r in lab.listing()[0]}
    assert moving <= listed and listed <= set(FRESHNESS), f"every listed URI needs a claim: {listed - set(FRESHNESS)}"
    assert lab.freshness("crm://customer/anyone") is FRESHNESS[CUSTOMER_TEMPLATE]
    assert lab.freshness("kb://not-listed").ttl_ms == 0, "an unknown URI must be claimed stale, never fresh"


# -- prompts and completions ------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("prompt", "arguments", "uri"),
    [
        ("handbook_answer", {"question": "How do refunds work?"}, HANDBOOK_URI),
        ("customer_follow_up", {"customer_id": "fixture-17"}, "crm://customer/fixture-17"),
    ],
)
async def test_a_prompt_embeds_the_resource_with_the_bytes_mime_and_provenance_a_read_returns(prompt, arguments, uri):
    async with Client(LabServer().mcp) as client:
        got = await client.get_prompt(prompt, arguments)
        read = (await client.read_resource(uri)).contents[0]
    embedded = [m.content for m in got.messages if isinstance(m.content, mt.EmbeddedResource)]
    assert len(embedded) == 1, got.messages
    item = embedded[0].resource
    assert (item.uri, item.mime_type, item.text) == (read.uri, read.mime_type, read.text), (item.uri, item.mime_type)
    assert item.meta[PROVENANCE_KEY] == read.meta[PROVENANCE_KEY], (item.meta, read.meta)


@pytest.mark.anyio
async def test_the_plain_prompt_takes_its_argument_and_embeds_nothing():
    async with Client(LabServer().mcp) as client:
        listed = {
            p.name: [(a.name, a.required) for a in p.arguments or ()] for p in (await client.list_prompts()).prompts
        }
        got = await client.get_prompt("draft_reply", {"tone": "formal"})
    assert list(listed) == list(PROMPT_NAMES) and listed["draft_reply"] == [("tone", True)], listed
    assert [m.content.type for m in got.messages] == ["text"] and "formal" in got.messages[0].content.text, got


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("no-such-prompt", {}, "Unknown prompt"),
        ("customer_follow_up", {}, "missing required argument"),
        ("customer_follow_up", {"customer_id": "nobody"}, "no customer record"),
        ("draft_reply", {"tone": "rude"}, "no tone"),
    ],
)
async def test_a_bad_prompt_request_is_invalid_params(mode, name, arguments, says):
    async with Client(LabServer().mcp, mode=mode) as client:
        with pytest.raises(MCPError) as info:
            await client.get_prompt(name, arguments)
    assert (info.value.code, says in info.value.error.message) == (-32602, True), info.value.error


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("ref", "argument", "value", "want"),
    [
        (mt.ResourceTemplateReference(type="ref/resource", uri=CUSTOMER_TEMPLATE), "id", "", ["fixture-17"]),
        (mt.ResourceTemplateReference(type="ref/resource", uri=CUSTOMER_TEMPLATE), "id", "fix", ["fixture-17"]),
        (mt.ResourceTemplateReference(type="ref/resource", uri=CUSTOMER_TEMPLATE), "id", "x", []),
        (mt.PromptReference(type="ref/prompt", name="customer_follow_up"), "customer_id", "", ["fixture-17"]),
        (mt.PromptReference(type="ref/prompt", name="draft_reply"), "tone", "f", ["formal", "friendly"]),
        (mt.PromptReference(type="ref/prompt", name="handbook_answer"), "question", "", []),
    ],
)
async def test_completion_offers_the_values_the_lab_knows(ref, argument, value, want):
    async with Client(LabServer().mcp) as client:
        assert client.server_capabilities.completions is not None, client.server_capabilities
        got = (await client.complete(ref, {"name": argument, "value": value})).completion
    assert (got.values, got.total, got.has_more) == (want, len(want), False), got


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("ref", "argument", "says"),
    [
        (mt.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), "arg1", "Unknown prompt"),
        (mt.PromptReference(type="ref/prompt", name="draft_reply"), "mood", "has no argument 'mood'"),
        (mt.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"), "id", "no template"),
        (mt.ResourceTemplateReference(type="ref/resource", uri=CUSTOMER_TEMPLATE), "name", "no template variable"),
    ],
)
async def test_completion_of_something_the_lab_does_not_have_is_invalid_params(ref, argument, says):
    # MCP "Completion", Error Handling (2025-03-26 and later): an invalid prompt name or argument is
    # -32602; an empty list would tell a client the reference exists and has no values
    async with Client(LabServer().mcp) as client:
        with pytest.raises(MCPError) as info:
            await client.complete(ref, {"name": argument, "value": ""})
    assert (info.value.code, says in info.value.error.message) == (-32602, True), info.value.error


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_call_of_a_tool_the_lab_does_not_have_is_invalid_params_not_a_tool_error(mode):
    # MCP tools page, Error Handling (2025-06-18 and later): unknown tools are protocol errors; SDK 2.3
    # would answer {"isError": true, "content": [{"text": "Unknown tool: ..."}]}
    lab = LabServer()
    async with Client(lab.mcp, mode=mode) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("test_simple_text", {})
    assert (info.value.code, "Unknown tool" in info.value.error.message) == (-32602, True), info.value.error
    assert sum(lab.state.calls.values()) == 0, lab.state.calls
