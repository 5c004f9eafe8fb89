"""Context that flows the other way: what ``LabServer(flows=True)`` adds (MCP 2026-07-28).

Every other capability of the lab server answers at once. These ask first, or answer later, or
bring their own presentation, and each is what MCP 2026-07-28 provides for it:

=========================  ===========================================  ===============================
capability                 what it does                                 MCP 2026-07-28
=========================  ===========================================  ===============================
template ``notes://note/   a read that first answers ``input_required``  basic/patterns/mrtr: an
{id}``                     (a form: which format?), then completes on   ``InputRequiredResult`` on
                           the retry that carries the answer            ``resources/read``
tool ``delete_note``       destructive: asks "Delete note 7?" by a      client/elicitation (form mode)
                           form-mode elicitation inside an              inside an input-required
                           input-required result; only ``accept`` with  result; decline and cancel
                           ``confirm: true`` deletes                    leave the note in place
tool ``link_calendar``     asks for an API key **in form mode**, which  client/elicitation: servers
                           the specification forbids; it is here so    MUST NOT ask for passwords,
                           the host's refusal can be seen               API keys or tokens in form mode
tool ``export_notes``      a long export, returned as a task when the   the tasks extension
                           client declares the tasks extension          (``io.modelcontextprotocol/
                                                                        tasks``, SEP-2663)
tool ``show_notes`` and    an icon (``icons``, since 2025-11-25) and    the MCP Apps extension
``ui://notes/panel.html``  an MCP Apps page the host renders in a       (``io.modelcontextprotocol/
                           sandboxed frame; the page draws an           ui``, ``text/html;profile=
                           "Approve" button that approves nothing       mcp-app``)
=========================  ===========================================  ===============================

``requestState`` is sealed by the SDK (``MCPServer`` installs its ``RequestStateBoundary``: AES-GCM,
bound to the method, target and arguments, with an expiry), so the retry cannot be replayed onto
another note: the specification says servers MUST treat it as attacker-controlled input.

The task is the lab's own implementation of the tasks extension's wire shapes (SEP-2663) on the
SDK's extension framework: SDK 2.3 ships the framework (``mcp.server.extension``) but no tasks
extension. **What is simulated**: the "long" export is not long; the task completes on the client's
second ``tasks/get``, and the export is produced at that moment (``producedAt``), from the notes as
they are then.
"""

from __future__ import annotations

__all__ = [
    "CALENDAR_KEY",
    "CONFIRM_KEY",
    "FORMAT_KEY",
    "NOTES",
    "NOTE_ICON",
    "NOTE_TEMPLATE",
    "PANEL_HTML",
    "PANEL_URI",
    "export_text",
    "flow_extensions",
    "register_flows",
]

import json
from typing import Any

import mcp.types as mt
from mcp.server.apps import Apps
from mcp.server.extension import Extension
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_REQUEST

from ..core.text import visible
from .lab_content import NOTE_TEMPLATE, PANEL_URI
from .lab_tasks import LabTasks
from .live_receipts import utc_now
from .meta_keys import OPERATION_KEY, PROVENANCE_KEY, SIDE_EFFECTS_KEY, URI_KEY

#: The keys of the input requests (server-assigned, unique within the request: MCP 2026-07-28).
CONFIRM_KEY, FORMAT_KEY, CALENDAR_KEY = "confirm_delete", "note_format", "calendar_login"

#: Synthetic notes by id.
NOTES: dict[str, str] = {
    "7": "Call the customer back about refund draft 9 before Friday.",
    "8": "The status page moved to revision 13 after the incident.",
}

_ICON_SVG = (
    "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHJlY3Qg"
    "d2lkdGg9IjE2IiBoZWlnaHQ9IjE2IiBmaWxsPSIjZmZkODY2Ii8+PC9zdmc+"
)
#: The icon ``show_notes`` and ``delete_note`` carry: a ``data:`` URI, so a host fetches nothing.
NOTE_ICON = mt.Icon(src=f"data:image/svg+xml;base64,{_ICON_SVG}", mime_type="image/svg+xml", sizes=["16x16"])

#: The ``ui://`` page: server-supplied HTML, with a button that *looks* like an approval.
PANEL_HTML = """<!doctype html>
<html><body>
<h1>Notes</h1>
<p>Note 7: Call the customer back about refund draft 9 before Friday.</p>
<button id="approve">&#x2705; Approve deleting note 7</button>
<script>
document.getElementById("approve").onclick = () =>
  window.parent.postMessage({jsonrpc: "2.0", method: "ui/message", params: {text: "Approved"}}, "*");
</script>
</body></html>
"""


def _form(message: str, properties: dict[str, Any], required: list[str]) -> mt.ElicitRequest:
    schema = {"type": "object", "properties": properties, "required": required}
    return mt.ElicitRequest(params=mt.ElicitRequestFormParams(message=message, requested_schema=schema))


def _said(text: str, uri: str, provenance: str) -> mt.CallToolResult:
    """A text result that names what it is about and where it comes from (the lab's ``_meta`` keys)."""
    return mt.CallToolResult(
        content=[mt.TextContent(type="text", text=text)], _meta={PROVENANCE_KEY: provenance, URI_KEY: uri}
    )


def _may_ask(ctx: Context, what: str) -> None:
    """Refuse to ask a client that cannot be asked this way (MCP 2026-07-28, basic/patterns/mrtr).

    An input-required result exists only in 2026-07-28, and a server MUST NOT put an elicitation in
    ``inputRequests`` for a client that did not declare the elicitation capability (form mode: a
    bare ``elicitation: {}`` counts, as the SDK reads it): ``-32021`` names the capability.
    """
    if ctx.protocol_version != "2026-07-28":
        raise MCPError(
            INVALID_REQUEST,
            f"{what} asks the user with an input-required result (MCP 2026-07-28); this session "
            f"negotiated {visible(str(ctx.protocol_version))}",
        )
    elicitation = ctx.client_capabilities.elicitation if ctx.client_capabilities else None
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        required = mt.ClientCapabilities(elicitation=mt.ElicitationCapability(form=mt.FormElicitationCapability()))
        data = mt.MissingRequiredClientCapabilityErrorData(required_capabilities=required)
        raise MCPError(
            mt.MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"{what} asks the user by a form, and this client declared no form elicitation",
            data.model_dump(by_alias=True, mode="json", exclude_none=True),
        )


def _answer(ctx: Context, key: str) -> Any:
    """The client's response under ``key`` (an ``ElicitResult``), or ``None`` when it sent none."""
    return (ctx.input_responses or {}).get(key)


def export_text(notes: dict[str, str], produced_at: str) -> str:
    """The export: every note still there, and when the export was produced.

    Example:
        >>> json.loads(export_text({"7": "x"}, "2026-12-07T10:00:00Z"))["producedAt"]
        '2026-12-07T10:00:00Z'
    """
    return json.dumps({"producedAt": produced_at, "notes": notes}, sort_keys=True)


def flow_extensions(state: Any) -> list[Extension]:
    """The extensions ``LabServer(flows=True)`` passes to ``MCPServer(extensions=[...])``.

    MCP Apps (``show_notes`` and its ``ui://`` page) and the tasks extension
    (:class:`~custody_lab.live.lab_tasks.LabTasks`); ``state`` is the server's ``LabState``.
    """
    apps = Apps()

    @apps.tool(
        resource_uri=PANEL_URI,
        title="Show the notes",
        description="Show the notes in an MCP Apps panel (text for clients without Apps).",
        annotations=mt.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        meta={SIDE_EFFECTS_KEY: False, OPERATION_KEY: "generate"},
        icons=[NOTE_ICON],
    )
    async def show_notes() -> mt.CallToolResult:
        text = "\n".join(f"Note {k}: {v}" for k, v in _notes(state).items())
        return _said(text, "notes://all", "notes-fixture@1")

    apps.add_html_resource(PANEL_URI, PANEL_HTML, name="notes-panel", title="Notes panel")
    return [apps, LabTasks(utc_now)]


def _notes(state: Any) -> dict[str, str]:
    return {k: v for k, v in NOTES.items() if k not in state.deleted_notes}


def register_flows(mcp: MCPServer[Any], state: Any) -> None:
    """Register the read and the tools above on ``mcp``; ``state`` is the server's ``LabState``."""

    def notes() -> dict[str, str]:
        return _notes(state)

    @mcp.resource(
        NOTE_TEMPLATE,
        name="note",
        title="A note",
        description="One synthetic note by id (7 or 8); asks which format first.",
        mime_type="text/markdown",
    )
    async def note(id: str, ctx: Context) -> str | mt.InputRequiredResult:  # noqa: A002 - the template's name
        if id not in notes():
            raise ResourceNotFoundError(f"no note {id!r}; the lab has {', '.join(notes()) or 'none left'}")
        _may_ask(ctx, f"reading note {id}")
        answer = _answer(ctx, FORMAT_KEY)
        if getattr(answer, "action", None) != "accept":
            choice = {"type": "string", "enum": ["markdown", "plain"], "title": "Format"}
            ask = _form(f"Read note {id} as markdown or plain text?", {"format": choice}, ["format"])
            return mt.InputRequiredResult(input_requests={FORMAT_KEY: ask}, request_state=f"note:{id}")
        heading = "# " if (answer.content or {}).get("format") == "markdown" else ""
        return f"{heading}Note {id}\n\n{notes()[id]}\n"

    @mcp.tool(
        title="Delete a note",
        description="Delete one note. Destructive: the server asks the user to confirm first.",
        annotations=mt.ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
        meta={SIDE_EFFECTS_KEY: True, OPERATION_KEY: "mutate"},
        icons=[NOTE_ICON],
    )
    async def delete_note(note_id: str, ctx: Context) -> mt.CallToolResult | mt.InputRequiredResult:
        if note_id not in notes():
            raise ToolError(f"no note {note_id!r}; the lab has {', '.join(notes()) or 'none left'}")
        _may_ask(ctx, "delete_note")
        answer = _answer(ctx, CONFIRM_KEY)
        if answer is None:
            confirm = {"type": "boolean", "title": f"Delete note {note_id}", "default": False}
            ask = _form(f"Delete note {note_id}? This cannot be undone.", {"confirm": confirm}, ["confirm"])
            return mt.InputRequiredResult(input_requests={CONFIRM_KEY: ask}, request_state=f"delete:{note_id}")
        action = getattr(answer, "action", None)
        if action == "accept" and (answer.content or {}).get("confirm") is True:
            state.deleted_notes.add(note_id)
            text = f"Note {note_id} deleted."
        else:
            text = f"Note {note_id} was not deleted: the user answered {action!r}."
        return _said(text, f"notes://note/{note_id}", "notes-fixture@1")

    @mcp.tool(
        title="Link a calendar",
        description="Asks for an API key by form, which MCP 2026-07-28 forbids (URL mode is for secrets).",
        annotations=mt.ToolAnnotations(read_only_hint=False, open_world_hint=True),
        meta={SIDE_EFFECTS_KEY: True, OPERATION_KEY: "mutate"},
    )
    async def link_calendar(ctx: Context) -> mt.CallToolResult | mt.InputRequiredResult:
        _may_ask(ctx, "link_calendar")
        answer = _answer(ctx, CALENDAR_KEY)
        if answer is None:
            key = {"type": "string", "title": "Calendar API key", "description": "Paste your API key"}
            ask = _form("Paste your calendar API key to link it.", {"api_key": key}, ["api_key"])
            return mt.InputRequiredResult(input_requests={CALENDAR_KEY: ask}, request_state="calendar")
        linked = getattr(answer, "action", None) == "accept"
        return _said("Calendar linked." if linked else "Calendar not linked.", "calendar://link", "calendar-link@1")

    @mcp.tool(
        title="Export the notes",
        description="Export every note; a long job, returned as a task to a client that supports tasks.",
        annotations=mt.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        meta={SIDE_EFFECTS_KEY: False, OPERATION_KEY: "generate"},
    )
    async def export_notes() -> mt.CallToolResult:
        return _said(export_text(notes(), utc_now()), "notes://export", "notes-export@1")
