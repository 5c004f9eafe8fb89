"""Seed 003: static resources as prompt context with receipts, templates behind one tool."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from custody_lab.live import Gate, LabSession, LiveError  # noqa: E402
from custody_lab.live.agent_context import (  # noqa: E402
    READ_TOOL_NAME,
    assemble_context,
    estimate_tokens,
    resolve_read_tool_call,
)
from custody_lab.live.hostile import HostileServer  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("budget", [0, 500, 2380, 4096, 100_000])
async def test_the_budget_is_never_exceeded_and_truncation_is_always_visible(budget):
    async with LabSession() as s:
        ctx = await assemble_context(s, budget_bytes=budget)
    assert ctx.blocks, "no static resources were considered"
    assert ctx.used_bytes <= budget, f"used {ctx.used_bytes} of {budget}"
    for b in ctx.blocks:
        if b.kept_bytes < b.original_bytes:
            assert b.reason and b.uri in ctx.system_prompt, f"silent loss: {b}"
            assert b.reason in ctx.system_prompt, f"the reason for {b.uri} is not in the prompt"


@pytest.mark.anyio
async def test_static_resources_are_fetched_once_with_receipts_and_the_ledger_is_not_context():
    async with LabSession() as s:
        ctx = await assemble_context(s, budget_bytes=100_000)
        reads = dict(s.server.state.reads)
    uris = [b.uri for b in ctx.blocks]
    assert "state://lab/ledger" not in uris and "kb://handbook/v4" in uris, uris
    assert reads["kb://handbook/v4"] == 1, reads
    placed = [b for b in ctx.blocks if b.placed]
    assert placed and all(b.receipt and b.receipt["contentDigest"] for b in placed)
    assert 'provenance="docs-server@v4"' in ctx.system_prompt


@pytest.mark.anyio
async def test_a_binary_resource_is_listed_not_placed():
    async with LabSession() as s:
        ctx = await assemble_context(s, budget_bytes=100_000)
    logo = next(b for b in ctx.blocks if b.uri == "assets://logo.png")
    assert not logo.placed and "image/png" in logo.reason and "assets://logo.png" in ctx.system_prompt


@pytest.mark.anyio
async def test_a_denied_resource_is_named_and_not_placed():
    async with LabSession(gate=Gate(deny=("report://",))) as s:
        ctx = await assemble_context(s, budget_bytes=100_000)
    report = next(b for b in ctx.blocks if b.uri == "report://synthetic/weekly-7")
    assert not report.placed and "permission-denied" in report.reason, report


@pytest.mark.anyio
async def test_one_read_tool_lists_every_template_and_costs_fewer_tokens_than_one_tool_each():
    async with LabSession() as s:
        ctx = await assemble_context(s)
    schema = ctx.read_tool["inputSchema"]
    assert ctx.read_tool["name"] == READ_TOOL_NAME
    assert schema["properties"]["template"]["enum"] == ["crm://customer/{id}"]
    meta, each = ctx.costs
    assert meta.tool_slots == 1 and each.tool_slots == 5, (meta.tool_slots, each.tool_slots)
    assert meta.definition_tokens < each.definition_tokens, (meta, each)


@pytest.mark.anyio
async def test_the_read_tool_reads_through_the_gate_and_keeps_both_labels():
    async with LabSession() as s:
        live = await resolve_read_tool_call(s, {"template": "crm://customer/{id}", "uri": "crm://customer/fixture-17"})
        with pytest.raises(LiveError, match="does not match"):
            await resolve_read_tool_call(s, {"template": "crm://customer/{id}", "uri": "kb://x"})
        with pytest.raises(LiveError, match="not one the server lists"):
            await resolve_read_tool_call(s, {"template": "file:///{path}", "uri": "file:///etc"})
    assert live.outcome == "templated-resource"
    assert live.receipt["proposedBy"].startswith("model") and live.receipt["custody"]["actor"] == "application"


@pytest.mark.anyio
async def test_a_closing_fence_inside_hostile_content_cannot_end_the_block():
    async with LabSession(HostileServer(), timeout=1.0) as s:
        ctx = await assemble_context(s, budget_bytes=100_000, exclude=("state://lab/ledger", "counter://visits"))
    notes = next(b for b in ctx.blocks if b.uri == "notes://pinned")
    assert notes.placed and "</context>" in notes.text, "the hostile text should try to close the fence"
    assert ctx.system_prompt.count("</context>") == sum(b.placed for b in ctx.blocks)
    assert "<\\/context>" in ctx.system_prompt


def test_token_estimate_is_bytes_over_four():
    assert estimate_tokens("é" * 4) == 2
