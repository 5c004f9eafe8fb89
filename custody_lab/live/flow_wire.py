"""Context that flows the other way, on the wire: each flow's frames, receipt and sequence diagram.

:func:`record_flows` opens one :class:`~custody_lab.live.session.LabSession` with ``frames=True``
on ``LabServer(flows=True)`` in this process (no network, MCP 2026-07-28) and runs the flows of
notebook 09, each as the lab's client really performs it:

=================  ===============================================================================
flow               what crosses
=================  ===============================================================================
read-asks          ``resources/read notes://note/8`` → ``input_required`` (a form: which format?);
                   the person answers; the retry (new id, ``inputResponses``, ``requestState``) →
                   the contents
delete-accepted    ``tools/call delete_note`` (note 7) → ``input_required`` ("Delete note 7?");
                   the person accepts; the retry → the note is deleted
delete-declined    the same for note 8; nobody answered that request, so the host declines and
                   the note stays (``consent-not-given``)
secret-form        ``tools/call link_calendar`` → a form asking for an API key; the host declines
                   it unshown (``secret-asked-in-form``)
task               ``tools/call export_notes`` → ``resultType: "task"``; ``tasks/get`` until
                   ``completed`` (the tasks extension)
app-tool           ``tools/call show_notes`` (a tool with an icon and ``_meta.ui.resourceUri``)
app-page           ``resources/read ui://notes/panel.html`` (``text/html;profile=mcp-app``)
=================  ===============================================================================

The client's ``state://lab/ledger`` reads around each exchange (how side effects are observed) are
left out of the frames shown. Everything the server wrote is data: escaped in HTML, made visible in
text (as :mod:`~custody_lab.live.wire` does for the seed cases).
"""

from __future__ import annotations

__all__ = ["DEFAULT_ANSWERS", "FLOWS", "FlowRecording", "FlowWire", "record_flows"]

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core.text import shorten, terminal_json, visible
from ..views.html import box, code, escape, pre, untrusted_block
from ..views.sequence import Sequence as Diagram
from ..views.sequence import Step, picker, sequence_html, sequence_text
from .elicitation import Answer
from .lab_server import LabServer
from .live_errors import LiveError
from .live_receipts import LiveReceipt
from .meta_keys import STATE_URI
from .session import LabSession
from .transport import Frame

#: The flows :func:`record_flows` runs, in order: name -> (kind, target, arguments).
FLOWS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "read-asks": ("read", "notes://note/8", {}),
    "delete-accepted": ("call", "delete_note", {"note_id": "7"}),
    "delete-declined": ("call", "delete_note", {"note_id": "8"}),
    "secret-form": ("call", "link_calendar", {}),
    "task": ("call", "export_notes", {}),
    "app-tool": ("call", "show_notes", {}),
    "app-page": ("read", "ui://notes/panel.html", {}),
}
_DANA = {"person": "Dana Ruiz"}
#: What the person answered in the recording (note 8's deletion was never answered).
DEFAULT_ANSWERS: tuple[Answer, ...] = (
    Answer("notes://note/8", "accept", _DANA, {"format": "markdown"}),
    Answer("delete_note", "accept", _DANA, {"confirm": True}, {"note_id": "7"}),
)


def _label(m: dict[str, Any]) -> str:
    """One made-visible line for a frame."""
    p = m.get("params") or {}
    ident = f"#{m['id']} " if "id" in m else ""
    if "method" in m:
        extra = " + inputResponses, requestState" if "inputResponses" in p or "requestState" in p else ""
        target = p.get("uri") or p.get("name") or p.get("taskId") or ""
        return visible(f"{ident}{m['method']} {target}{extra}".rstrip())
    if "error" in m:
        return visible(f"{ident}error {(m['error'] or {}).get('code')}")
    r = m.get("result") or {}
    kind = r.get("resultType")
    if kind == "input_required":
        return visible(f"{ident}input_required: " + ", ".join(r.get("inputRequests") or {}))
    if kind == "task" or "taskId" in r:
        return visible(f"{ident}task {r.get('taskId')}: {r.get('status')}")
    if "contents" in r:
        return visible(f"{ident}contents (" + ", ".join(str(c.get("mimeType")) for c in r["contents"]) + ")")
    if "content" in r:
        return visible(f"{ident}content: " + ", ".join(str(b.get("type")) for b in r["content"]))
    return visible(f"{ident}result: {', '.join(sorted(r)) or 'empty'}")


def _diagram(name: str, frames: Sequence[Frame], receipt: LiveReceipt) -> Diagram:
    """The flow's steps: the frames, with the host showing a request and the person answering between."""
    steps: list[Step] = []
    asked = list((receipt.receipt.get("inputRequired") or {}).get("requests") or ())
    answered = (receipt.receipt.get("inputRequired") or {}).get("retryCarried", {}).get("inputResponses", {})
    who = (receipt.receipt.get("inputRequired") or {}).get("answeredBy")
    for i, f in enumerate(frames):
        m = f.message
        sender, receiver = ("client", "server") if f.direction == "client→server" else ("server", "client")
        kind = ("request" if "id" in m else "notification") if "method" in m else "response"
        steps.append(Step(sender, receiver, kind, _label(m), i))  # type: ignore[arg-type]
        if (m.get("result") or {}).get("resultType") == "input_required" and asked:
            request = asked.pop(0)
            shown = request["shown"]
            if request.get("secret"):
                steps.append(Step("client", "user / host", "gate", visible(f"host refuses: {request['secret']}")))
            else:
                asker = request.get("server") or "the server"
                steps.append(
                    Step("client", "user / host", "local", visible(f"host shows: {asker} asks {shown['message']}"))
                )
            action = (answered.get(str(request.get("key"))) or {}).get("action", "?")
            by = visible(who.get("person", "?")) if who and not request.get("secret") else "no person answered; host"
            steps.append(Step("user / host", "user / host", "approval", visible(f"{by} → {action}")))
    verdict = f"→ {receipt.outcome}" if receipt.accepted else f"✕ refused: {receipt.outcome}"
    steps.append(Step("client", "user / host", "local", visible(f"receipt {verdict}")))
    caption = (
        "MCP 2026-07-28 · the host shows each request and sends only what a person answered (the lab's host policy)"
    )
    return Diagram(visible(name), tuple(steps), caption, (("user / host", "shows · answers"), ("server", "asks")))


@dataclass(frozen=True)
class FlowWire:
    """One flow on the wire: its frames (ledger reads left out), its receipt, its diagram."""

    name: str
    frames: tuple[Frame, ...]
    receipt: LiveReceipt
    sequence: Diagram

    def text(self) -> str:
        """The diagram's text equivalent."""
        return sequence_text(self.sequence)

    def frames_html(self, limit: int = 240) -> str:
        """Every frame as pretty JSON under its label, in a box marked untrusted."""
        parts = [
            f"<details open><summary>{n}. {escape(f.direction)} {code(_label(f.message))}</summary>"
            f"{pre(json.dumps(shorten(f.message, limit), indent=2, ensure_ascii=False))}</details>"
            for n, f in enumerate(self.frames, 1)
        ]
        label = f"<b>⚠ UNTRUSTED DATA</b> — {len(self.frames)} JSON-RPC frames (MCP 2026-07-28) as they crossed"
        return untrusted_block("".join(parts), label=label, cls="custody-wire-frames")

    def html(self, theme: str | None = None) -> str:
        """The frames, then the diagram with its text equivalent."""
        head = box(f"<b>{escape(self.name)}</b> on the wire: outcome {code(self.receipt.outcome)}", "info")
        return head + self.frames_html() + sequence_html(self.sequence, theme=theme)

    def _repr_html_(self) -> str:
        return self.html()

    def terminal(self, limit: int = 240) -> str:
        """The frames as safe-to-print JSON, then the text equivalent."""
        frames = "\n".join(f"{f.direction}\n{terminal_json(shorten(f.message, limit))}" for f in self.frames)
        return f"{frames}\n\n{visible(self.text())}"


@dataclass(frozen=True)
class FlowRecording:
    """The flows of one session, in order."""

    flows: tuple[FlowWire, ...]

    def __getitem__(self, name: str) -> FlowWire:
        for f in self.flows:
            if f.name == name:
                return f
        raise LiveError(f"no flow {name!r} was recorded; the flows are {', '.join(f.name for f in self.flows)}")

    def __iter__(self) -> Iterator[FlowWire]:
        return iter(self.flows)

    def picker(self, theme: str | None = None) -> Any:
        """A drop-down of the flows; the chosen one's frames, diagram and text below it."""
        return picker({f.name: partial(f.html, theme) for f in self.flows}, description="flow")


def _own(frames: Sequence[Frame]) -> tuple[Frame, ...]:
    """The frames of one flow without the client's ledger reads (and their answers)."""
    ledger = {
        f.message.get("id")
        for f in frames
        if f.message.get("method") == "resources/read" and (f.message.get("params") or {}).get("uri") == STATE_URI
    }
    return tuple(f for f in frames if f.message.get("id") not in ledger or "id" not in f.message)


async def record_flows(answers: Sequence[Answer] = DEFAULT_ANSWERS) -> FlowRecording:
    """Run :data:`FLOWS` against ``LabServer(flows=True)`` in this process and keep every frame.

    In a notebook cell: ``flows = await record_flows()``. ``answers`` are what the person said
    (by default: yes to note 8's format and to deleting note 7; nothing about note 8's deletion).
    """
    out: list[FlowWire] = []
    async with LabSession(LabServer(flows=True), frames=True, answers=answers) as s:
        for name, (kind, target, arguments) in FLOWS.items():
            start = len(s.frames)
            if kind == "read":
                receipt = await s.read(target, case_id=name)
            else:
                receipt = await s.call(target, arguments, case_id=name)
            frames = _own(s.frames[start:])
            out.append(FlowWire(name, frames, receipt, _diagram(name, frames, receipt)))
    return FlowRecording(tuple(out))
