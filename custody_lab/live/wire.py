"""MCP on the wire: the six seed cases as the JSON-RPC frames the lab's own server exchanges.

:func:`record_wire` opens one :class:`~custody_lab.live.session.LabSession` with ``frames=True``
on a lab server in this process (no network), runs the six seed exchanges and returns, per case,
the real frames, each request with its full response:

==================  ==========================================================================
case                frames
==================  ==========================================================================
handbook            ``resources/list`` (it is listed there), ``resources/read``
customer-record     ``resources/templates/list`` (its URI matches a template), ``resources/read``
generated-report    ``tools/list``, ``tools/call`` answered by a ``resource_link``, the follow-up
                    ``resources/read`` of the linked URI
risk-score          ``tools/list`` (the tool's ``outputSchema``), ``tools/call`` answered by
                    ``structuredContent`` and its TextContent fallback
live-status         ``subscriptions/listen`` (2026-07-28; ``resources/subscribe`` on 2025-11-25),
                    the server's change notice, the re-read, the cancellation
approve-draft       ``tools/list``, ``tools/call`` answered by an embedded ``resource``
==================  ==========================================================================

Which frames belong to which case is read from what was sent: a request belongs to a case when its
method and params name the case's URI or tool (or a URI the case's own result linked to), a
response when its id answers one of those requests, a notification when it names the URI or the
subscription; the listings are matched by what they list. The client's own ``state://lab/ledger``
reads around each exchange (how live mode observes side effects) are counted, not shown.

Each case also gets a :class:`~custody_lab.views.sequence.Sequence` built from those frames and
the seed case: who initiates (the seed's initiator), who approves (a tool call is approved by the
user through the host: the lab's host policy, after MCP 2026-07-28's "there SHOULD always be a
human in the loop with the ability to deny tool invocations"), where the lab's permission gate
sits (in the host, before every request), and who does the work: a read is issued by the host's
client through the gate and served by the server (which may compute what it serves), a tool call is
executed by the server. Its picture and text equivalent are drawn from the same steps.

Everything a server wrote is data: the HTML view escapes it (:mod:`custody_lab.views.html`), the
terminal view passes :func:`~custody_lab.core.text.visible` and
:func:`~custody_lab.core.text.terminal_json`. Long strings are shortened in both views only; the
frames returned are the real ones.
"""

from __future__ import annotations

__all__ = [
    "DISPLAY_CHARS",
    "CaseWire",
    "WireError",
    "WireRecording",
    "protocol_revision",
    "record_wire",
]

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core.loading import load_fixture
from ..core.model import Case
from ..core.text import shorten, terminal_json, visible
from ..protocol.uri_templates import UriTemplateError, match
from ..views.html import box, code, escape, pre, untrusted, untrusted_block
from ..views.sequence import Lifeline, SequenceFigure, Step, picker, sequence_figure, sequence_html, sequence_text
from ..views.sequence import Sequence as Diagram
from .fixture_exchanges import FIXTURE_EXCHANGES, Exchange
from .gate import Gate
from .live_errors import LiveError
from .live_receipts import LiveReceipt
from .meta_keys import STATE_URI
from .session import LabSession, Mode
from .transport import Frame

#: Strings longer than this are cut in the displayed copy of a frame (never in the frame).
DISPLAY_CHARS = 240
_LISTINGS = {"resources/list": "resources", "resources/templates/list": "resourceTemplates", "tools/list": "tools"}
_OPENING = ("server/discover", "initialize", "notifications/initialized")
_SUBSCRIBE = ("subscriptions/listen", "resources/subscribe", "resources/unsubscribe")


class WireError(LiveError):
    """The wire recording could not attribute or find what it needed (the message says which case)."""


def protocol_revision(frames: Sequence[Frame]) -> str:
    """The MCP revision a session's frames speak: the handshake's answer, else the request ``_meta``.

    Example:
        >>> f = Frame("client→server", {"id": 1, "method": "x", "params": {"_meta": {
        ...     "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
        >>> protocol_revision([f])
        '2026-07-28'
    """
    for f in frames:
        result = f.message.get("result")
        if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            return str(result["protocolVersion"])  # 2025-11-25 and earlier: initialize's answer
    for f in frames:
        meta = (f.message.get("params") or {}).get("_meta") or {}
        if isinstance(meta.get("io.modelcontextprotocol/protocolVersion"), str):
            return str(meta["io.modelcontextprotocol/protocolVersion"])
    raise WireError("no frame says which protocol revision the session speaks")


def _params(m: dict[str, Any]) -> dict[str, Any]:
    p = m.get("params")
    return p if isinstance(p, dict) else {}


def _is_request(f: Frame) -> bool:
    return f.direction == "client→server" and "method" in f.message and "id" in f.message


def _answers(frames: Iterable[Frame], ids: set[Any]) -> list[Frame]:
    return [
        f for f in frames if f.direction == "server→client" and "method" not in f.message and f.message.get("id") in ids
    ]


def _result(frames: Sequence[Frame], request: Frame) -> dict[str, Any]:
    for f in _answers(frames, {request.message["id"]}):
        r = f.message.get("result")
        return r if isinstance(r, dict) else {}
    return {}


def _listed(x: Exchange, method: str, result: dict[str, Any]) -> bool:
    """Whether a listing's result lists what the exchange uses (its tool, URI or template)."""
    entries = [e for e in result.get(_LISTINGS[method]) or () if isinstance(e, dict)]
    if x.kind == "call":
        return method == "tools/list" and any(e.get("name") == x.target for e in entries)
    if method == "resources/list":
        return any(e.get("uri") == x.target for e in entries)
    if method == "resources/templates/list":
        for e in entries:
            try:
                if match(str(e.get("uriTemplate", "")), x.target) is not None:
                    return True
            except UriTemplateError:
                continue  # a server's malformed template lists nothing we can match
    return False


def _discovery(x: Exchange, opening: Sequence[Frame]) -> list[Frame]:
    """The listing frames (request and response) that list what ``x`` uses."""
    requests = [f for f in opening if _is_request(f) and f.message["method"] in _LISTINGS]
    chosen = [f for f in requests if _listed(x, f.message["method"], _result(opening, f))]
    if x.kind != "call" and any(f.message["method"] == "resources/list" for f in chosen):
        chosen = [f for f in chosen if f.message["method"] == "resources/list"]  # listed: no template needed
    return chosen + _answers(opening, {f.message["id"] for f in chosen})


def _linked_uris(result: dict[str, Any]) -> set[str]:
    return {
        str(b.get("uri"))
        for b in result.get("content") or ()
        if isinstance(b, dict) and b.get("type") == "resource_link"
    }


def _belongs(x: Exchange, m: dict[str, Any], linked: set[str], listens: set[Any]) -> bool:
    """Whether a client request or a server notification (by method and params) is part of ``x``."""
    method, p = m.get("method"), _params(m)
    if x.kind == "call":
        if method == "tools/call":
            return p.get("name") == x.target
        return method == "resources/read" and p.get("uri") in linked
    if method == "resources/read":
        return p.get("uri") == x.target
    if x.kind != "subscribed-read":
        return False
    if method in ("resources/subscribe", "resources/unsubscribe", "notifications/resources/updated"):
        return p.get("uri") == x.target or (
            (p.get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId") in listens
        )
    if method in ("subscriptions/listen", "notifications/subscriptions/acknowledged"):
        return x.target in ((p.get("notifications") or {}).get("resourceSubscriptions") or ())
    return method == "notifications/cancelled" and p.get("requestId") in listens


def _case_frames(
    x: Exchange, opening: Sequence[Frame], window: Sequence[Frame], later: Sequence[Frame] = ()
) -> tuple[tuple[Frame, ...], int]:
    """The frames of exchange ``x`` in wire order, and how many ledger reads the window held.

    ``opening`` holds the session's first frames (its listings); ``window`` the frames recorded
    while ``x`` ran; ``later`` the rest of the session, searched only for the cancellation of the
    case's own subscription (the SDK sends it as the subscription closes, so it may cross during
    the next exchange). Nothing is picked by position: see the module docstring.
    """
    calls = [
        f
        for f in window
        if _is_request(f) and f.message["method"] == "tools/call" and _belongs(x, f.message, set(), set())
    ]
    linked = set().union(*(_linked_uris(_result(window, f)) for f in calls))
    listens = {f.message["id"] for f in window if _is_request(f) and f.message["method"] == "subscriptions/listen"}
    own = [f for f in window if "method" in f.message and _belongs(x, f.message, linked, listens)]
    own += [
        f
        for f in later
        if f.message.get("method") == "notifications/cancelled" and _belongs(x, f.message, linked, listens)
    ]
    own_ids = {f.message["id"] for f in own if "id" in f.message}
    picked = {id(f) for f in own} | {id(f) for f in _answers(window, own_ids)}
    ledger = [f for f in window if _is_request(f) and _params(f.message).get("uri") == STATE_URI]
    return tuple(_discovery(x, opening)) + tuple(f for f in (*window, *later) if id(f) in picked), len(ledger)


def _label(m: dict[str, Any]) -> str:
    """A short, made-visible label for one frame (what the diagram and its text say)."""
    p = _params(m)
    ident = f"#{m['id']} " if "id" in m else ""
    if "method" in m:
        subscribed = ", ".join((p.get("notifications") or {}).get("resourceSubscriptions") or ())
        ends = f"(ends #{p['requestId']})" if "requestId" in p else ""
        target = p.get("uri") or p.get("name") or subscribed or ends
        return visible(f"{ident}{m['method']} {target}".rstrip())
    if "error" in m:
        return visible(f"{ident}error {(m['error'] or {}).get('code')}")
    r = m.get("result") or {}
    if "contents" in r:
        mimes = ", ".join(str(c.get("mimeType")) for c in r["contents"] if isinstance(c, dict))
        what = f"contents ({mimes})"
    elif "content" in r:
        what = "content: " + ", ".join(str(b.get("type")) for b in r["content"] if isinstance(b, dict))
        what += " + structuredContent" if "structuredContent" in r else ""
    elif any(k in r for k in _LISTINGS.values()):
        key = next(k for k in _LISTINGS.values() if k in r)
        what = f"{len(r[key] or ())} {key}"
    else:
        what = ", ".join(sorted(r)) or "empty result"
    return visible(f"{ident}result: {what}")


def _kind(f: Frame) -> str:
    if f.direction == "client→server":
        return "request" if "id" in f.message else "notification"
    return "response" if "method" not in f.message else "notification"


def _diagram(case: Case, x: Exchange, frames: Sequence[Frame], receipt: LiveReceipt, revision: str) -> Diagram:
    """The case's sequence diagram: the frames in order, with the host's steps between them.

    Steps that are not frames: the initiator's choice (the user picks a resource in the host, or
    the model proposes a call), the user's approval of a tool call through the host, the lab's
    permission gate before every request the host has the client send, the server executing a
    tool, and the result entering the model's context.
    """
    steps: list[Step] = []
    model_led = case.initiator == "model"
    tool = x.target if x.kind == "call" else None
    if model_led:
        intent = [
            Step("user / host", "model", "local", visible(f"offers the tool {tool}")),
            Step("model", "user / host", "local", visible(f"proposes calling {tool}")),
            Step("user / host", "user / host", "approval", visible(f"user approves {tool}")),
        ]
    else:
        intent = [Step("user / host", "user / host", "action", visible(f"chooses {x.target}"))]
    offered = gated = False
    subscribed: set[Any] = set()
    for i, f in enumerate(frames):
        m = f.message
        method = m.get("method")
        if _is_request(f) and method not in _LISTINGS and not offered:
            offered = True
            steps += intent
        if _is_request(f) and method in ("tools/call", "resources/read"):
            check = "may_call" if method == "tools/call" else "may_read"
            target = _params(m).get("uri") or _params(m).get("name")
            steps.append(Step("user / host", "client", "gate", visible(f"{check}({target}) passed")))
            gated = True
        sender, receiver = ("client", "server") if f.direction == "client→server" else ("server", "client")
        steps.append(Step(sender, receiver, _kind(f), _label(m), i))  # type: ignore[arg-type]
        if method == "tools/call" and _is_request(f):
            steps.append(Step("server", "server", "action", visible(f"executes {tool}")))
        if method == "resources/subscribe":
            subscribed.add(m.get("id"))
        acknowledged = "method" not in m and m.get("id") in subscribed  # 2025-11-25: the empty answer
        if method == "notifications/subscriptions/acknowledged" or acknowledged:
            steps.append(
                Step("server", "server", "action", visible(f"{x.target} changes (the lab calls advance_status)"))
            )
    if not gated:  # the gate refused: the host sent nothing for it
        steps += [] if offered else intent
        check = "may_call" if x.kind == "call" else "may_read"
        steps.append(Step("user / host", "client", "gate", visible(f"{check}({x.target}) refused: nothing sent")))
        steps.append(Step("user / host", "user / host", "action", visible(f"records ✕ {receipt.outcome}")))
    else:
        verdict = f"→ {receipt.outcome}" if receipt.accepted else f"✕ refused: {receipt.outcome}"
        steps.append(Step("client", "user / host", "local", visible(f"result {verdict}")))
        if receipt.accepted:
            steps.append(Step("user / host", "model", "local", visible(f"{receipt.outcome} enters the context")))
    approved = "the user, through the host" if model_led else "the user / host's own choice (no separate approval)"
    if x.kind == "call":  # the server runs the tool the model chose
        work = "executed by the server (the tool)" if gated else "executed by no one: the gate refused it"
    else:  # the host's client issues the read; the server only serves it
        work = (
            "issued by the host's client through the gate · served by the server"
            if gated
            else "issued by no one: the gate refused it"
        )
    caption = (
        f"MCP {revision} · initiated by the {case.initiator} · approved by {approved} · {work} · "
        "the gate is the lab's host policy"
    )
    host = "approves · gates" if model_led else "initiates · gates"
    roles: list[tuple[Lifeline, str]] = [("model", "initiates")] if model_led else []
    roles.append(("user / host", host))
    if gated:
        roles.append(("server", "executes" if x.kind == "call" else "serves"))
    return Diagram(visible(f"{case.id}: {case.operation} → {case.shape}"), tuple(steps), caption, tuple(roles))


@dataclass(frozen=True)
class CaseWire:
    """One seed case on the wire.

    Attributes:
        case: the seed case (``data/cases.json``).
        exchange: what the client did for it.
        frames: its JSON-RPC frames in wire order (the real messages, not shortened).
        receipt: live mode's receipt for it.
        revision: the MCP revision the session negotiated.
        sequence: the diagram's steps (picture and text are both drawn from them).
        ledger_reads: the client's ``state://lab/ledger`` reads around the exchange (not shown).
    """

    case: Case
    exchange: Exchange
    frames: tuple[Frame, ...]
    receipt: LiveReceipt
    revision: str
    sequence: Diagram
    ledger_reads: int = 0

    def text(self) -> str:
        """The diagram's text equivalent (numbered steps)."""
        return sequence_text(self.sequence)

    def figure(self, theme: str | None = None) -> SequenceFigure:
        """The diagram (matplotlib, Agg) in the light or dark theme."""
        return sequence_figure(self.sequence, theme=theme)

    def frames_html(self, limit: int = DISPLAY_CHARS) -> str:
        """Every frame as pretty JSON under its one-line label; long ones start folded."""
        parts = []
        for n, f in enumerate(self.frames, 1):
            body = json.dumps(shorten(f.message, limit), indent=2, ensure_ascii=False)
            fold = "" if body.count("\n") > 24 else " open"
            parts.append(
                f"<details{fold}><summary>{n}. {escape(f.direction)} {code(_label(f.message))}</summary>"
                f"{pre(body)}</details>"
            )
        label = (
            f"<b>⚠ UNTRUSTED DATA</b> — {len(self.frames)} JSON-RPC frames (MCP {escape(self.revision)}) as they "
            "crossed; what the server wrote is shown as text and long strings are shortened here only"
        )
        return untrusted_block("".join(parts), label=label, cls="custody-wire-frames")

    def html(self, theme: str | None = None) -> str:
        """The frames, then the diagram with its text equivalent."""
        note = f" The client also read {code(STATE_URI)} {self.ledger_reads} times to observe side effects (not shown)."
        head = box(f"<b>{untrusted(self.case.id)}</b> on the wire.{note if self.ledger_reads else ''}", "info")
        return head + self.frames_html() + sequence_html(self.sequence, theme=theme)

    def _repr_html_(self) -> str:
        return self.html()

    def terminal(self, limit: int = DISPLAY_CHARS) -> str:
        """The frames as safe-to-print JSON, then the text equivalent."""
        frames = "\n".join(f"{f.direction}\n{terminal_json(shorten(f.message, limit))}" for f in self.frames)
        return f"{frames}\n\n{visible(self.text())}"


@dataclass(frozen=True)
class WireRecording:
    """The six cases of one session, in order, and the frames that opened it."""

    cases: tuple[CaseWire, ...]
    opening: tuple[Frame, ...]
    revision: str

    def __getitem__(self, case_id: str) -> CaseWire:
        for c in self.cases:
            if c.case.id == case_id:
                return c
        raise WireError(f"no case {case_id!r} was recorded; the cases are {', '.join(self.ids)}")

    def __iter__(self) -> Iterator[CaseWire]:
        return iter(self.cases)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.case.id for c in self.cases)

    def picker(self, theme: str | None = None) -> Any:
        """A drop-down of the cases; the chosen one's frames, diagram and text are shown below it."""
        return picker({c.case.id: partial(c.html, theme) for c in self.cases})


async def record_wire(
    server: Any = None,
    *,
    mode: Mode = "modern",
    gate: Gate | None = None,
    exchanges: Sequence[Exchange] = FIXTURE_EXCHANGES,
) -> WireRecording:
    """Run the seed exchanges against a lab server in this process and keep every frame.

    In a notebook cell: ``wire = await record_wire()``; from a script:
    ``run_sync(record_wire)``. The subscribed case subscribes, has the server change the resource
    (:meth:`~custody_lab.live.lab_server.LabServer.advance_status`), waits for the notice and re-reads.

    Args:
        server: a :class:`~custody_lab.live.lab_server.LabServer` (a fresh one when omitted).
        mode: ``"modern"`` (2026-07-28) or ``"legacy"`` (2025-11-25).
        gate: the host's permission gate (the session's default when omitted); a refused read or
            call sends no frame, and the diagram shows the gate refusing.
        exchanges: the exchanges to run (the six seed ones by default).

    Raises:
        WireError: when an exchange's case is not a seed case.
        LiveTimeout: when the server sends no change notice in time.
    """
    fixture = load_fixture()
    seeds = {c.id: c for c in fixture.cases}
    missing = [x.case_id for x in exchanges if x.case_id not in seeds]
    if missing:
        raise WireError(f"exchanges {missing} name no seed case; the seed cases are {', '.join(seeds)}")
    runs: list[tuple[Exchange, int, LiveReceipt]] = []
    async with LabSession(server, mode=mode, frames=True, gate=gate) as s:
        opening = tuple(s.frames)
        for x in exchanges:
            start = len(s.frames)
            if x.kind == "subscribed-read":
                async with s.watch(x.target) as watch:
                    await s.server.advance_status()
                    receipt = await s.reread_on_notice(watch, case_id=x.case_id)
            else:
                receipt = await s.run(x)
            runs.append((x, start, receipt))
    frames = tuple(s.frames)  # the session is closed: every frame has crossed
    revision = protocol_revision(opening)
    out: list[CaseWire] = []
    for k, (x, start, receipt) in enumerate(runs):
        end = runs[k + 1][1] if k + 1 < len(runs) else len(frames)
        own, ledger = _case_frames(x, opening, frames[start:end], frames[end:])
        seed = seeds[x.case_id]
        out.append(CaseWire(seed, x, own, receipt, revision, _diagram(seed, x, own, receipt, revision), ledger))
    ids = {f.message["id"] for f in opening if _is_request(f) and f.message["method"] in _OPENING}
    hello = tuple(f for f in opening if f.message.get("method") in _OPENING or f.message.get("id") in ids)
    return WireRecording(tuple(out), hello, revision)
