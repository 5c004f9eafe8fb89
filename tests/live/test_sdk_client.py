"""The official SDK ``Client`` (software the lab did not write) drives ``custody-lab serve`` and sees side effects.

Issue 23, §1 and §4: over stdio and Streamable HTTP, in both modes (``"auto"``: 2026-07-28;
``"legacy"``: the 2025-11-25 handshake), with the client's DEFAULT response cache (SEP-2549), a read
of the state ledger, ``approve_draft``, and a second read must show ``approvals: 1``, and the server's
receipt log must show that the second read reached the server. With the lab's old server-wide
``ttlMs: 60000`` on every read, the auto-mode client answered the second read from its cache and
the server never saw it (the in-process test at the bottom shows that wrong claim being served).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from custody_lab.live.lab_server import FRESHNESS, Freshness, LabServer
from custody_lab.live.meta_keys import STATE_URI
from custody_lab.live.serve_log import read_receipt_log

from ..timing import scaled
from .serving import AUTH, serve_http

EXCHANGE_TIMEOUT = scaled(120)


def _serve_argv(log) -> list[str]:
    return [sys.executable, "-m", "custody_lab.cli", "serve", "--log", str(log)]


@pytest.fixture
def http_serve(tmp_path) -> Iterator[tuple[str, object]]:
    """``custody-lab serve --http`` on a free port (with the tests' token): its URL and its receipt log."""
    log = tmp_path / "receipts.jsonl"
    with serve_http(log) as (url, _):
        yield url, log


def _ledger(result) -> dict:
    return json.loads(result.contents[0].text)


async def _read_approve_read(target, mode: str):
    """What the SDK client sees: the ledger before and after approve_draft, and its negotiated version.

    A URL is reached with the tests' token in an ``Authorization: Bearer`` header, as the SDK's docs
    say headers are set: an ``httpx2`` client passed to ``streamable_http_client``.
    """
    if not isinstance(target, str):
        return await _exchange(target, mode)
    async with httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(EXCHANGE_TIMEOUT)) as http:
        return await _exchange(streamable_http_client(target, http_client=http), mode)


async def _exchange(target, mode: str):
    async with Client(target, mode=mode, read_timeout_seconds=EXCHANGE_TIMEOUT) as client:  # the default cache
        first = await client.read_resource(STATE_URI)
        await client.call_tool("approve_draft", {"draft_id": "9"})
        second = await client.read_resource(STATE_URI)
        return client.protocol_version, first, second


def _assert_seen(mode: str, version: str, first, second, log) -> None:
    want_version = "2026-07-28" if mode == "auto" else "2025-11-25"
    assert version == want_version, f"mode {mode}: expected protocol {want_version}, got {version}"
    got = (_ledger(first)["approvals"], _ledger(second)["approvals"])
    assert got == (0, 1), (
        f"mode {mode}: the ledger's approvals before and after approve_draft: expected (0, 1), got {got}"
    )
    if mode == "auto":
        assert (first.ttl_ms, first.cache_scope) == (0, "public"), (first.ttl_ms, first.cache_scope)
    entries = read_receipt_log(log)
    refused = [(e["method"], e["error"]) for e in entries if e.get("refused")]
    assert refused == [], f"mode {mode}: requests the server answered were logged as refused: {refused}"
    calls = [e["target"] for e in entries if e["method"] == "tools/call"]
    assert calls == ["approve_draft"], f"mode {mode}: expected one logged approve_draft call, got {calls}"
    reads = [e for e in entries if e["method"] == "resources/read" and e["target"] == STATE_URI]
    assert len(reads) == 2, f"mode {mode}: the server logged {len(reads)} ledger read(s), expected 2: {reads}"
    digests = [e["receipt"]["contentDigest"] for e in reads]
    assert digests[0] != digests[1], f"both logged ledger reads carry the same digest {digests}"
    assert {e["protocolVersion"] for e in reads} == {want_version}, [e["protocolVersion"] for e in reads]


pytestmark = pytest.mark.slow


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_over_stdio_sees_approve_draft_in_the_ledger_and_the_server_sees_both_reads(
    tmp_path, mode
):
    log = tmp_path / "receipts.jsonl"
    argv = _serve_argv(log)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    version, first, second = await _read_approve_read(params, mode)
    _assert_seen(mode, version, first, second, log)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_over_http_sees_approve_draft_in_the_ledger_and_the_server_sees_both_reads(
    http_serve, mode
):
    url, log = http_serve
    version, first, second = await _read_approve_read(url, mode)
    _assert_seen(mode, version, first, second, log)


@pytest.mark.anyio
async def test_a_server_that_claims_a_minute_for_its_ledger_has_the_sdk_client_show_the_old_value():
    """The failure the honest table prevents: the same exchange against a false ``ttlMs: 60000``."""
    wrong = Freshness(60_000, "public", "a false claim: the ledger changes with every side effect")
    lab = LabServer(freshness={STATE_URI: wrong})
    async with Client(lab.mcp, mode="auto") as client:
        first = await client.read_resource(STATE_URI)
        await client.call_tool("approve_draft", {"draft_id": "9"})
        second = await client.read_resource(STATE_URI)
    got = (_ledger(first)["approvals"], _ledger(second)["approvals"], lab.state.reads[STATE_URI], lab.state.approvals)
    assert got == (0, 0, 1, 1), f"expected the cache to answer the second read (0, 0, 1 read, 1 approval), got {got}"
    assert FRESHNESS[STATE_URI].ttl_ms == 0, FRESHNESS[STATE_URI]
