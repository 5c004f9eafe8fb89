"""The official SDK ``Client`` drives what flows the other way through ``custody-lab serve --flows``.

Over stdio and Streamable HTTP (MCP 2026-07-28): a read and a destructive call answered
``input_required`` first, the client's elicitation callback answering (accept, decline), a form that
asks for an API key, and a task. The SDK 2.3 client drives the input-required rounds itself; it has
no tasks extension, so the lab's :class:`~custody_lab.live.lab_tasks.TaskPoller` is passed to it as
a client extension. The server's receipt log must show each leg.
"""

from __future__ import annotations

import json
import os
import sys

import httpx2
import mcp.types as mt
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from custody_lab.live.lab_tasks import TaskPoller
from custody_lab.live.meta_keys import STATE_URI
from custody_lab.live.serve_log import read_receipt_log

from ..timing import scaled
from .serving import AUTH, serve_http

pytestmark = pytest.mark.slow
TIMEOUT = scaled(120)


async def answer(context, params):
    """What a person answers in this test: yes to note 7 and to markdown, no to anything else."""
    message = params.message
    if "Delete note 7" in message:
        return mt.ElicitResult(action="accept", content={"confirm": True})
    if "markdown or plain" in message:
        return mt.ElicitResult(action="accept", content={"format": "markdown"})
    return mt.ElicitResult(action="decline")


async def drive(target):
    poller = TaskPoller()
    async with Client(
        target, mode="auto", read_timeout_seconds=TIMEOUT, elicitation_callback=answer, extensions=[poller]
    ) as c:
        note = await c.read_resource("notes://note/8")
        deleted = await c.call_tool("delete_note", {"note_id": "7"})
        kept = await c.call_tool("delete_note", {"note_id": "8"})
        calendar = await c.call_tool("link_calendar", {})
        export = await c.call_tool("export_notes", {})
        ledger = json.loads((await c.read_resource(STATE_URI)).contents[0].text)
        return c.protocol_version, note, deleted, kept, calendar, export, ledger, poller.log


def check(seen, log) -> None:
    version, note, deleted, kept, calendar, export, ledger, tasks = seen
    assert version == "2026-07-28", version
    assert note.contents[0].text.startswith("# Note 8"), note.contents[0].text
    texts = [r.content[0].text for r in (deleted, kept, calendar)]
    assert texts == ["Note 7 deleted.", "Note 8 was not deleted: the user answered 'decline'.", "Calendar not linked."]
    assert ledger.get("deletedNotes") == ["7"], ledger
    assert tasks and tasks[0]["polls"][-1] == "completed", tasks
    assert "producedAt" in json.loads(export.content[0].text), export
    entries = read_receipt_log(log)
    asked = [(e["method"], e["target"]) for e in entries if e.get("outcome") == "input_required"]
    assert asked == [
        ("resources/read", "notes://note/8"),
        ("tools/call", "delete_note"),
        ("tools/call", "delete_note"),
        ("tools/call", "link_calendar"),
    ], asked
    first_legs = [e for e in entries if e.get("outcome") == "input_required"]
    secret = [e["inputRequired"]["requests"][0]["secret"] for e in first_legs if e["target"] == "link_calendar"]
    assert secret[0] and "api key" in secret[0], secret
    assert all(e["inputRequired"]["cacheable"] is False and e["receipt"] is None for e in first_legs), first_legs
    retried = {
        (e["target"], e["outcome"]): e["receipt"]["inputRequired"]["retryCarried"]
        for e in entries
        if e.get("receipt") and "inputRequired" in e["receipt"]
    }
    assert retried[("delete_note", "consent-not-given")]["inputResponses"]["confirm_delete"]["action"] == "decline"
    assert retried[("delete_note", "structured-tool-result")]["inputResponses"]["confirm_delete"] == {
        "action": "accept",
        "fields": ["confirm"],
    }, retried
    created = [e for e in entries if e.get("outcome") == "task"]
    finished = [e for e in entries if e["method"] == "tasks/get" and e.get("receipt")]
    assert len(created) == 1 and len(finished) == 1, (created, finished)
    assert finished[0]["receipt"]["task"]["producedAt"] and finished[0]["receipt"]["target"] == "export_notes"


@pytest.mark.anyio
async def test_the_sdk_client_over_stdio_answers_elicitations_and_polls_a_task_and_serve_logs_each_leg(tmp_path):
    log = tmp_path / "receipts.jsonl"
    argv = [sys.executable, "-m", "custody_lab.cli", "serve", "--flows", "--log", str(log)]
    check(await drive(StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))), log)


@pytest.mark.anyio
async def test_the_sdk_client_over_http_answers_elicitations_and_polls_a_task_and_serve_logs_each_leg(tmp_path):
    log = tmp_path / "receipts.jsonl"
    with serve_http(log, extra=("--flows",)) as (url, _):
        async with httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(TIMEOUT)) as http:
            seen = await drive(streamable_http_client(url, http_client=http))
    check(seen, log)
