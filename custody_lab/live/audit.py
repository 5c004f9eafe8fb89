"""Audit your own MCP server: which custody fields can each capability supply?

``custody-lab audit -- COMMAND [ARG ...]`` starts the server over stdio, lists its resources,
templates and tools, and exercises only what is safe:

- every listed resource is read (the protocol makes reads read-only; if the server lists the lab's
  state resource ``state://lab/ledger`` the audit also *observes* whether a read changed state);
- templates are not read (they need arguments only a conversation supplies); their declared facts
  are reported;
- a tool is called only when ``--allow-calls NAME`` names it (once, with the arguments given
  there, none by default). Its annotations decide nothing: ``readOnlyHint`` is a hint from an
  untrusted server (MCP 2025-11-25 and the current 2026-07-28: clients MUST consider tool
  annotations untrusted unless they come from a trusted server; annotations exist since
  2025-03-26), and the lab's host policy is to call nothing the user did not name. A name the
  server does not list is an error.

Nothing the server does ends in a traceback: the server runs behind
:class:`~custody_lab.live.stdio_guard.StdioGuard`, every misbehaviour becomes one
:class:`AuditError` sentence, and ``--timeout`` bounds each exchange and (times
:data:`~custody_lab.live.audit_report.TOTAL_EXCHANGES`) the whole audit; reads and calls stop
one ``--timeout`` before that bound, and the report says what was done and where it stopped.

For each capability the report says, per custody field (seed 000, "Ship a context-custody
receipt": actor, authority, identity, size, freshness, side effects), whether the server supplied
it (✓), could not (✗, a *gap* — "the missing field is a design issue"), or was not exercised (?).
"""

from __future__ import annotations

__all__ = [
    "AUDIT_FIELDS",
    "AuditError",
    "AuditReport",
    "CapabilityAudit",
    "FieldSupport",
    "audit_client",
    "audit_command",
    "check_timeout",
    "format_report",
    "parse_allow_calls",
]

import json
import math
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..core.text import visible
from .audit_report import (
    AUDIT_FIELDS,
    STOP_EXCHANGES,
    TOTAL_EXCHANGES,
    AuditReport,
    CapabilityAudit,
    FieldSupport,
    format_report,
)
from .keys import PROVENANCE_KEY, SIDE_EFFECTS_KEY, STATE_URI, URI_KEY
from .recorder import Recorder, first_problem
from .stdio_guard import MAX_JSON_DEPTH, StdioGuard, json_depth_exceeds
from .values import Gate, LiveError, LiveReceipt, LiveTimeout, run_sync

#: What a tool that was not named is told, in the report.
NOT_CALLED = "not called (name it with --allow-calls)"


class AuditError(LiveError):
    """The audit could not run: the command did not start, or the server misbehaved.

    The message is the whole story (what the server did, in one or two lines); ``.stderr`` holds
    the server's captured stderr, made visible, for the caller to show under a heading.
    """

    def __init__(self, message: str, *, stderr: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.stderr = tuple(stderr)


def check_timeout(value: object) -> float:
    """A ``--timeout``: a finite number of seconds above zero.

    Example:
        >>> check_timeout("2.5")
        2.5
        >>> check_timeout("nan")
        Traceback (most recent call last):
        ...
        custody_lab.live.audit.AuditError: --timeout must be a finite number of seconds above 0; got 'nan'

    Raises:
        AuditError: not a number, not finite, zero or negative.
    """
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise AuditError(f"--timeout must be a number of seconds; got {visible(repr(value))}") from e
    if not math.isfinite(seconds) or seconds <= 0:
        raise AuditError(f"--timeout must be a finite number of seconds above 0; got {visible(repr(value))}")
    return seconds


def _server_field(server: dict[str, Any]) -> FieldSupport:
    if server.get("name") and server.get("version"):
        return FieldSupport("server", True, f"{server['name']} {server['version']}")
    return FieldSupport("server", False, "the server did not report a name and version")


def _fields_from_receipt(live: LiveReceipt, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    rec, custody = live.receipt, live.receipt["custody"]
    tool = rec["method"] == "tools/call"
    performed = rec.get("performed", True) and "error" not in rec
    arrived = rec.get("contentDigest") is not None
    uri_how = "the contents item / link / embed carries it"
    if tool and rec.get("delivery") in ("structured", "text"):
        uri_how = f"only through _meta {URI_KEY}: a structured result has no URI field"
    evidence = rec.get("sideEffectsEvidence") or {}
    fields = [
        FieldSupport("actor", True, f"{custody['actor']} (derived from {rec['method']})"),
        _server_field(server),
        FieldSupport(
            "uri", custody["uri"] is not None if performed else None, uri_how if custody["uri"] else "no URI came back"
        ),
        FieldSupport(
            "mime",
            bool(custody["mime"]) if performed else None,
            f"mimeType {custody['mime']}" if custody["mime"] else "no MIME type came back",
        ),
        FieldSupport(
            "bytes",
            arrived if performed else None,
            "counted from the content that arrived"
            if arrived
            else f"not counted: {rec['contentError']}"
            if rec.get("contentError")
            else "no content to count",
        ),
        FieldSupport(
            "digest",
            arrived if performed else None,
            "sha256 of the content that arrived" if arrived else "no content to digest",
        ),
        FieldSupport(
            "provenance",
            custody["provenance"] is not None if performed else None,
            f"_meta {PROVENANCE_KEY}"
            if custody["provenance"]
            else f"MCP has no provenance field; the server puts none in _meta {PROVENANCE_KEY}",
        ),
        FieldSupport(
            "sideEffects",
            evidence.get("declared") is not None,
            str(evidence.get("source", "not stated"))
            + ("; observed by state digest" if evidence.get("observed") is not None else ""),
        ),
    ]
    return tuple(fields)


def _declared_tool_fields(tool: Any, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    ann = tool.annotations
    declared = ann is not None and ann.read_only_hint is not None
    lab = isinstance((tool.meta or {}).get(SIDE_EFFECTS_KEY), bool)
    how = (
        "annotations.readOnlyHint"
        if declared
        else f"_meta {SIDE_EFFECTS_KEY}"
        if lab
        else "no readOnlyHint and no declaration (the lab's host policy calls it only when you name it)"
    )
    unknown = f"not exercised: {NOT_CALLED}"
    return (
        FieldSupport("actor", True, "model (derived from tools/call)"),
        _server_field(server),
        *(FieldSupport(f, None, unknown) for f in ("uri", "mime", "bytes", "digest", "provenance")),
        FieldSupport("sideEffects", declared or lab, how),
    )


def _declared_template_fields(template: Any, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    prov = (template.meta or {}).get(PROVENANCE_KEY)
    unknown = "not exercised (a template needs arguments)"
    return (
        FieldSupport("actor", True, "application (derived from resources/read)"),
        _server_field(server),
        FieldSupport("uri", True, f"expands {template.uri_template}"),
        FieldSupport(
            "mime",
            bool(template.mime_type),
            f"declared {template.mime_type}" if template.mime_type else "no declared MIME type",
        ),
        FieldSupport("bytes", None, unknown),
        FieldSupport("digest", None, unknown),
        FieldSupport("provenance", True if prov else None, f"declared in _meta: {prov}" if prov else unknown),
        FieldSupport("sideEffects", True, "read-only by protocol contract"),
    )


def parse_allow_calls(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``NAME`` or ``NAME={"json": "arguments"}`` -> {name: arguments}.

    Example:
        >>> parse_allow_calls(["a", 'b={"x": 1}'])
        {'a': {}, 'b': {'x': 1}}
    """
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        shown = _cut(visible(repr(item)))
        if not name.strip():
            raise AuditError(f"--allow-calls {shown}: give a tool name (NAME or NAME={{...}})")
        if not sep:
            out[name] = {}
            continue
        if json_depth_exceeds(raw):
            raise AuditError(f"--allow-calls {shown}: the arguments nest deeper than {MAX_JSON_DEPTH} levels")
        try:
            args = json.loads(raw)
        except ValueError as e:  # JSONDecodeError, or an integer over Python's digit limit
            raise AuditError(f"--allow-calls {shown}: the arguments after '=' are not JSON ({e})") from e
        if not isinstance(args, dict):
            raise AuditError(f"--allow-calls {shown}: the arguments must be a JSON object")
        out[name] = args
    return out


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_allowed(allowed: dict[str, dict[str, Any]], tools: Sequence[str]) -> None:
    unknown = [name for name in allowed if name not in tools]
    if unknown:
        listed = ", ".join(visible(repr(t)) for t in tools) or "none"
        raise AuditError(
            f"--allow-calls names {', '.join(visible(repr(n)) for n in unknown)}, which the server does "
            f"not list; its tools are: {listed}"
        )


def _timed_out(live: LiveReceipt) -> str | None:
    if live.receipt.get("exchange", {}).get("timedOut"):
        return visible(live.receipt.get("error", "an exchange timed out"))
    return None


async def audit_client(
    client: Client,
    *,
    allow_calls: Sequence[str] = (),
    timeout: float = 10.0,
    command: Sequence[str] = (),
    started: float | None = None,
) -> AuditReport:
    """Audit an entered ``mcp.Client`` (any transport).

    Args:
        allow_calls: the only tools called, as ``NAME`` (no arguments) or ``NAME={"arg": "value"}``.
        timeout: seconds each exchange may take.
        started: when the audit began, on anyio's clock (now, by default). Reads and calls stop
            ``STOP_EXCHANGES * timeout`` after it; the report then says where the audit stopped.

    Raises:
        AuditError: ``allow_calls`` names a tool the server does not list (the message lists its
            tools), or the listing is malformed.
    """
    allowed = parse_allow_calls(allow_calls)
    recorder = Recorder(client, gate=Gate(deny=()), state_uri=STATE_URI, timeout=timeout)
    try:
        await recorder.load_listing()
    except LiveError as e:
        raise AuditError(str(e)) from e
    _check_allowed(allowed, list(recorder.tools))
    began = anyio.current_time() if started is None else started
    deadline = began + STOP_EXCHANGES * timeout
    info = client.server_info
    server = {"name": info.name if info else None, "version": info.version if info else None}
    caps: list[CapabilityAudit] = []
    incomplete: list[str] = []

    total = len(recorder.listed) + len(allowed)
    done = 0

    async def exercise(kind: str, name: str, run: Callable[[], Awaitable[LiveReceipt]]) -> LiveReceipt | None:
        """Run one exchange within what is left of the budget; ``None`` when none is left."""
        nonlocal done
        if incomplete and incomplete[-1].startswith("stopped"):
            return None
        with anyio.move_on_after(deadline - anyio.current_time()) as scope:
            live = await run()
        if scope.cancelled_caught:
            incomplete.append(
                f"stopped at {kind} {visible(repr(name))}: reads and calls stop {STOP_EXCHANGES * timeout:g} s "
                f"after the audit began ({done} of {total} exercised)"
            )
            return None
        done += 1
        if (late := _timed_out(live)) is not None:
            incomplete.append(late)
        return live

    stopped = "not exercised: the audit's time bound ran out first"
    unread = _unexercised(server)  # one shared (frozen) value: a cut listing may have 100,000 rows
    for uri in recorder.listed:
        live = await exercise("resource", uri, partial(recorder.read, uri, case_id=uri, cache_mode="bypass"))
        if live is None:
            caps.append(CapabilityAudit("resource", uri, False, stopped, None, unread))
            continue
        why = "listed resource: reads are safe"
        caps.append(CapabilityAudit("resource", uri, True, why, live.outcome, _fields_from_receipt(live, server)))
    for template in recorder.templates:
        caps.append(
            CapabilityAudit(
                "template",
                template.uri_template,
                False,
                "template: needs arguments, not read",
                None,
                _declared_template_fields(template, server),
            )
        )
    for name, tool in recorder.tools.items():
        hint = tool.annotations.read_only_hint if tool.annotations is not None else None
        claim = f" (it claims readOnlyHint: {str(hint).lower()}, a hint that decides nothing)" if hint else ""
        if name not in allowed:
            caps.append(
                CapabilityAudit("tool", name, False, NOT_CALLED + claim, None, _declared_tool_fields(tool, server))
            )
            continue
        recorder.allow_unknown_side_effects = True
        try:
            live = await exercise("tool", name, partial(recorder.call, name, allowed[name], case_id=name))
        except LiveError as e:
            raise AuditError(str(e)) from e
        finally:
            recorder.allow_unknown_side_effects = False
        if live is None:
            caps.append(CapabilityAudit("tool", name, False, stopped, None, _declared_tool_fields(tool, server)))
            continue
        why = "allowed by --allow-calls" + claim
        caps.append(CapabilityAudit("tool", name, True, why, live.outcome, _fields_from_receipt(live, server)))
    return AuditReport(
        tuple(command),
        server,
        client.protocol_version,
        tuple(caps),
        notes=tuple(recorder.listing_notes),
        incomplete=tuple(incomplete),
    )


def _unexercised(server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    unknown = "not exercised: the audit's time bound ran out first"
    return (
        FieldSupport("actor", True, "application (derived from resources/read)"),
        _server_field(server),
        *(FieldSupport(f, None, unknown) for f in AUDIT_FIELDS[2:-1]),
        FieldSupport("sideEffects", True, "read-only by protocol contract"),
    )


#: What can go wrong while talking to a server, each turned into one AuditError sentence.
_KNOWN: tuple[type[BaseException], ...] = (
    OSError,
    MCPError,
    ValidationError,
    RuntimeError,
    TimeoutError,
    LiveError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)


def _known_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            found = _known_leaf(exc)
            if found is not None:
                return found
        elif isinstance(exc, _KNOWN):
            return exc
    return None


def _explain(e: BaseException, guard: StdioGuard, command: Sequence[str], limit: float) -> str:
    """One sentence for what went wrong; the guard's own finding first (it saw the wire)."""
    cmd = _cut(visible(" ".join(command)))
    asked = visible(guard.last_method or "the handshake")
    if guard.problem is not None:
        return f"{cmd!r}: the server {guard.problem}"
    if isinstance(e, AuditError):
        return str(e)
    if isinstance(e, LiveTimeout):
        return f"{cmd!r}: {visible(e)}"
    if isinstance(e, TimeoutError):  # before OSError: TimeoutError is one
        return f"{cmd!r} did not finish the audit within its bound of {limit:g} s (it stopped at {asked})"
    if isinstance(e, OSError) and not guard.started:
        return f"cannot start {visible(repr(command[0]))}: {visible(e.strerror or e)}"
    if isinstance(e, LiveError):
        return f"{cmd!r}: the server's {visible(e)}"
    if isinstance(e, MCPError):
        return f"{cmd!r}: the server answered {asked} with error {e.code}: {visible(e.error.message)}"
    if isinstance(e, ValidationError):
        return f"{cmd!r}: the server answered {asked} with a malformed result: {first_problem(e)}"
    return f"{cmd!r}: {visible(e)} (during {asked})"


async def _audit_stdio(command: Sequence[str], allow_calls: Sequence[str], timeout: float) -> AuditReport:
    guard = StdioGuard(command, timeout=timeout, env=dict(os.environ), cwd=os.getcwd())
    limit = TOTAL_EXCHANGES * timeout
    began = anyio.current_time()
    report: AuditReport | None = None
    try:
        with anyio.move_on_after(limit):  # a report made in time is kept even if stopping is slow
            async with Client(guard.connect(), mode="auto", read_timeout_seconds=timeout, cache=None) as client:
                report = await audit_client(
                    client, allow_calls=allow_calls, timeout=timeout, command=command, started=began
                )
    except BaseExceptionGroup as group:
        leaf = _known_leaf(group)
        if leaf is None:
            raise
        raise AuditError(_explain(leaf, guard, command, limit), stderr=guard.stderr_lines()) from leaf
    except _KNOWN as e:
        raise AuditError(_explain(e, guard, command, limit), stderr=guard.stderr_lines()) from e
    if report is None:
        raise AuditError(_explain(TimeoutError(), guard, command, limit), stderr=guard.stderr_lines())
    late = () if guard.problem is None else (f"the server {guard.problem}",)
    return replace(report, incomplete=report.incomplete + late, stderr=tuple(guard.stderr_lines()))


def audit_command(command: Sequence[str], *, allow_calls: Sequence[str] = (), timeout: float = 10.0) -> AuditReport:
    """Start ``command`` as an MCP server over stdio and audit it (synchronous; for the CLI).

    Raises:
        AuditError: the command did not start, the server misbehaved (the message says how), or
            ``timeout`` is not a finite number of seconds above zero.
    """
    if not command:
        raise AuditError("no server command given")
    seconds = check_timeout(timeout)
    parse_allow_calls(allow_calls)  # refuse bad arguments before starting anything

    async def go() -> AuditReport:
        return await _audit_stdio(list(command), allow_calls, seconds)

    return run_sync(go)


if __name__ == "__main__":  # pragma: no cover - convenience: python -m custody_lab.live.audit CMD…
    import argparse

    from .command import configure_audit, run_audit

    parser = argparse.ArgumentParser(prog="python -m custody_lab.live.audit")
    configure_audit(parser)
    sys.exit(run_audit(parser.parse_args(["--", *sys.argv[1:]])))
