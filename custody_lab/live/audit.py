"""Audit your own MCP server: which custody fields can each capability supply?

``custody-lab audit -- COMMAND [ARG ...]`` starts the server over stdio (:func:`audit_command`);
``custody-lab audit URL`` connects to one over Streamable HTTP instead
(:func:`~custody_lab.live.audit_transport.audit_url`; the report is the same, only its first line
names the URL). Either way the audit lists its resources, templates, tools and prompts, and
exercises only what is safe:

- every listed resource is read (the protocol makes reads read-only; if the server lists the lab's
  state resource ``state://lab/ledger`` the audit also *observes* whether a read changed state),
  and read again after every other step, with ``resources/list`` listed again: a second read that
  differs, or an index that lost or gained a URI, is a change the report names, with what ran in
  between (:mod:`~custody_lab.live.audit_reread`; seed 004: reads are side-effect free and
  deterministic);
- each template is read once with a value per variable: the user's (``--template-values
  NAME=JSON``), else the server's completion (``completion/complete``), expanded with the lab's RFC
  6570 engine; with no value known it is "not read: no value known" and its declared facts are
  reported (:mod:`~custody_lab.live.audit_exercise`);
- a tool is called only when ``--allow-calls NAME`` names it, once per entry, with the arguments
  given there (none by default): naming it twice calls it twice, each call its own row. Its
  annotations decide nothing: they are hints from an untrusted server (MCP 2025-03-26 and later,
  the current 2026-07-28 included: clients MUST consider tool annotations untrusted unless they come
  from a trusted server), shown as such (read-only,
  destructive, idempotent, open-world), and the lab's host policy is to call nothing the user did
  not name. A name the server does not list is an error. Every content block of its result is
  counted (type, MIME type and where it is known from, bytes, sha256; totals per result),
  ``structuredContent`` is validated against the tool's ``outputSchema`` in a worker process
  killed at the exchange's ``--timeout`` (:mod:`~custody_lab.live.schema_check`; the SDK's own
  unbounded check is turned off; an ``isError`` result is a tool error, reported with the
  server's text, not schema-checked), and a ``resource_link``
  is an address until ``--follow-links`` reads it: a second read, through the same gate, recorded
  as its own ``link`` capability (seed 000); a refused follow-up is "blocked";
- each prompt is got once (``prompts/get``), with a value for each argument from
  ``--template-values`` (by argument name) or completion; a required argument with no value known
  leaves it "not got: no value known". Every block of its messages is counted as a tool's are,
  embedded resources included. Prompts are user-controlled (MCP's Prompts page, since 2024-11-05;
  still so in 2026-07-28), so their receipts name the user as the actor.

The server's ``instructions``, title, website and icons are kept as *presentation*: its own words,
untrusted, shown escaped, never fetched, deciding nothing.

Provenance: MCP has no provenance field. The host names what it asked (the lab's host policy):
serverInfo ``name@version``, the method, the URI and the retrieval time; a server's ``_meta``
provenance is the richer, optional source. Only a server that reports no name or version leaves a
provenance gap.

Nothing the server does ends in a traceback: the server runs behind
:class:`~custody_lab.live.stdio_guard.StdioGuard` (over HTTP,
:class:`~custody_lab.live.http_guard.HttpGuard`), and every misbehaviour becomes one
:class:`AuditError` sentence, except two breaches the audit carries on past: a malformed
notification (dropped) and a declared size that is not a non-negative integer (treated as
undeclared), each an :attr:`~custody_lab.live.audit_report.AuditReport.protocol` finding that makes
the audit exit 2 after its report (:mod:`~custody_lab.live.wire_checks`). ``--connect-timeout``
(default 60 s) bounds start-up, the command starting and the handshake, and a server too slow
there is told to raise it; ``--timeout`` bounds
each exchange after that, and :data:`~custody_lab.live.audit_report.TOTAL_EXCHANGES` times it the
rest of the audit, so the whole audit ends within ``--connect-timeout`` + ``TOTAL_EXCHANGES`` x
``--timeout`` (:mod:`~custody_lab.live.audit_transport` says how). Reads and calls stop one
``--timeout`` before that bound, and the report says what was done and where it stopped.

For each capability the report says, per custody field (seed 000, "Ship a context-custody
receipt": actor, authority, identity, size, freshness, side effects), whether the server supplied
it (✓; on a capability not exercised, declared and not observed), could not (✗, a *gap* — "the
missing field is a design issue"), or was not exercised or is not known (?); and it counts what was
exercised, only listed, and skipped, so an audit that exercised nothing never reads as "no gaps".
What it cannot know, it does not claim: who initiated an exchange is not on the wire (the receipt
derives it from the method), the side effects of a tool it did not call are only what the server
declares, and a server's ``_meta`` claims (provenance, side effects) are claims.
"""

from __future__ import annotations

__all__ = [
    "AuditError",
    "audit_client",
    "audit_command",
    "check_timeout",
    "parse_allow_calls",
    "parse_template_values",
    "timeout_hint",
]

import json
import math
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import anyio
from mcp import Client

from ..core.receipts import server_hints
from ..core.text import visible
from .audit_exercise import audit_prompt, audit_template, follow_link, structured_check
from .audit_fields import (
    NOT_CALLED,
    declared_tool_details,
    declared_tool_fields,
    fields_from_receipt,
    receipt_details,
    unexercised_fields,
)
from .audit_flows import flow_lines
from .audit_report import (
    STOP_EXCHANGES,
    AuditReport,
    CapabilityAudit,
)
from .audit_reread import reread_listed
from .elicitation import ElicitationDesk
from .gate import Gate
from .lab_tasks import TaskPoller
from .limits import DEFAULT_CONNECT_TIMEOUT, MAX_LINKS_FOLLOWED
from .live_errors import LiveError
from .live_receipts import LiveReceipt, utc_now, wire_fields
from .meta_keys import STATE_URI
from .recorder import Recorder, server_identity
from .schema_check import skip_sdk_result_check
from .session import run_sync
from .stdio_guard import MAX_JSON_DEPTH, StdioGuard, json_depth_exceeds

_R = TypeVar("_R")


class AuditError(LiveError):
    """The audit could not run: the command did not start, or the server misbehaved.

    The message is the whole story (what the server did, in one or two lines); ``.stderr`` holds
    the server's captured stderr, made visible, for the caller to show under a heading.
    """

    def __init__(self, message: str, *, stderr: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.stderr = tuple(stderr)


def timeout_hint(timeout: float) -> str:
    """What to do when an exchange ran out of time: the flag that gives it more.

    Example:
        >>> timeout_hint(10)
        '; if the server is only slow, raise --timeout (e.g. --timeout 20)'
    """
    return f"; if the server is only slow, raise --timeout (e.g. --timeout {2 * timeout:g})"


def check_timeout(value: object, flag: str = "--timeout") -> float:
    """A ``--timeout`` (or the ``flag`` named, e.g. ``--connect-timeout``): a finite number of seconds above zero.

    Example:
        >>> check_timeout("2.5")
        2.5
        >>> check_timeout("nan")
        Traceback (most recent call last):
        ...
        custody_lab.live.audit.AuditError: --timeout must be a finite number of seconds above 0; got 'nan'
        >>> check_timeout("0", "--connect-timeout")
        Traceback (most recent call last):
        ...
        custody_lab.live.audit.AuditError: --connect-timeout must be a finite number of seconds above 0; got '0'

    Raises:
        AuditError: not a number, not finite, zero or negative.
    """
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise AuditError(f"{flag} must be a number of seconds; got {visible(repr(value))}") from e
    if not math.isfinite(seconds) or seconds <= 0:
        raise AuditError(f"{flag} must be a finite number of seconds above 0; got {visible(repr(value))}")
    return seconds


def parse_allow_calls(items: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """``NAME`` or ``NAME={"json": "arguments"}`` -> [(name, arguments), ...], one per item.

    A name given twice is two calls, in the order given (each its own row in the report): the
    user asked for both, and neither is dropped.

    Example:
        >>> parse_allow_calls(["a", 'b={"x": 1}', 'b={"x": 2}'])
        [('a', {}), ('b', {'x': 1}), ('b', {'x': 2})]
    """
    out: list[tuple[str, dict[str, Any]]] = []
    for item in items:
        name, sep, raw = item.partition("=")
        shown = _cut(visible(repr(item)))
        if not name.strip():
            raise AuditError(f"--allow-calls {shown}: give a tool name (NAME or NAME={{...}})")
        if not sep:
            out.append((name, {}))
            continue
        if json_depth_exceeds(raw):
            raise AuditError(f"--allow-calls {shown}: the arguments nest deeper than {MAX_JSON_DEPTH} levels")
        try:
            args = json.loads(raw)
        except ValueError as e:  # JSONDecodeError, or an integer over Python's digit limit
            raise AuditError(f"--allow-calls {shown}: the arguments after '=' are not JSON ({e})") from e
        if not isinstance(args, dict):
            raise AuditError(f"--allow-calls {shown}: the arguments must be a JSON object")
        out.append((name, args))
    return out


def parse_template_values(items: Sequence[str]) -> dict[str, object]:
    """``NAME=JSON`` -> {name: value} for template variables (a string, number, list or object).

    Example:
        >>> parse_template_values(['resourceId=1', 'tag="a b"'])
        {'resourceId': 1, 'tag': 'a b'}
    """
    out: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        shown = _cut(visible(repr(item)))
        if not name.strip() or not sep:
            raise AuditError(f"--template-values {shown}: write NAME=JSON, e.g. resourceId=1")
        if json_depth_exceeds(raw):
            raise AuditError(f"--template-values {shown}: the value nests deeper than {MAX_JSON_DEPTH} levels")
        try:
            out[name] = json.loads(raw)
        except ValueError as e:
            raise AuditError(f"--template-values {shown}: the value after '=' is not JSON ({e})") from e
    return out


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_allowed(allowed: Sequence[tuple[str, dict[str, Any]]], tools: Sequence[str]) -> None:
    unknown = list(dict.fromkeys(name for name, _ in allowed if name not in tools))
    if unknown:
        listed = ", ".join(visible(repr(t)) for t in tools) or "none"
        raise AuditError(
            f"--allow-calls names {', '.join(visible(repr(n)) for n in unknown)}, which the server does "
            f"not list; its tools are: {listed}"
        )


def _timed_out(live: object, timeout: float) -> str | None:
    """Why an exchange (a receipt, or a prompt's receipt mapping) left the audit incomplete, if it did,
    and the flag that gives it more time."""
    rec = live if isinstance(live, dict) else getattr(live, "receipt", {})
    if rec.get("exchange", {}).get("timedOut"):
        return visible(rec.get("error", "an exchange timed out")) + timeout_hint(timeout)
    return None


def _refused(live: LiveReceipt) -> bool:
    """The exchange was never sent (the gate refused it): skipped, not exercised."""
    rec = live.receipt
    return not rec.get("performed", True) and not rec.get("exchange", {}).get("timedOut")


def _presentation(client: Client) -> dict[str, Any]:
    """What the server says about itself for people: untrusted text, kept as data."""
    info = client.server_info
    icons = wire_fields(info, ("icons",)) if info is not None else None
    shown = server_hints(retrieved_at=utc_now(), described=icons or {})["icons"]
    return {
        "instructions": client.instructions,
        "title": getattr(info, "title", None),
        "websiteUrl": getattr(info, "website_url", None),
        "icons": shown,
    }


async def audit_client(
    client: Client,
    *,
    allow_calls: Sequence[str] = (),
    timeout: float = 10.0,
    command: Sequence[str] = (),
    started: float | None = None,
    template_values: Sequence[str] = (),
    follow_links: bool = False,
    gate: Gate | None = None,
    desk: ElicitationDesk | None = None,
    tasks: TaskPoller | None = None,
) -> AuditReport:
    """Audit an entered ``mcp.Client`` (any transport).

    Args:
        allow_calls: the only tools called, as ``NAME`` (no arguments) or ``NAME={"arg": "value"}``.
        template_values: ``NAME=JSON`` values for template variables (before asking completion).
        follow_links: read each ``resource_link`` of a called tool as a second, recorded read.
        gate: the permission check every read, call and follow-up passes (all allowed by default).
        timeout: seconds each exchange may take.
        desk, tasks: the client's elicitation callback and task poller, when it was made with them
            (:mod:`~custody_lab.live.audit_flows`: every request shown, none answered for the user).
        started: when the audit began, on anyio's clock (now, by default). Reads and calls stop
            ``STOP_EXCHANGES * timeout`` after it; the report then says where the audit stopped.

    Raises:
        AuditError: ``allow_calls`` names a tool the server does not list (the message lists its
            tools), or the listing is malformed.
    """
    allowed = parse_allow_calls(allow_calls)
    given = parse_template_values(template_values)
    skip_sdk_result_check(client)  # the SDK's own outputSchema check has no bound; the audit's has one
    recorder = Recorder(
        client, gate=gate or Gate(deny=()), state_uri=STATE_URI, timeout=timeout, desk=desk, tasks=tasks
    )
    try:
        await recorder.load_listing()
    except LiveError as e:
        raise AuditError(str(e)) from e
    _check_allowed(allowed, list(recorder.tools))
    incomplete: list[str] = []
    try:
        await recorder.load_prompts()
    except LiveError as e:  # the rest of the audit stands; the report says the prompts were left out
        incomplete.append(f"{visible(e)}: the server's prompts were not audited")
    began = anyio.current_time() if started is None else started
    deadline = began + STOP_EXCHANGES * timeout
    server = server_identity(client)
    caps: list[CapabilityAudit] = []

    # every listed resource is read twice (the second time after everything else), then listed again
    total = 2 * len(recorder.listed) + 1 + len(recorder.templates) + len(allowed) + len(recorder.prompts)
    done = 0

    async def exercise(kind: str, name: str, run: Callable[[], Awaitable[_R]]) -> _R | None:
        """Run one exchange within what is left of the budget; ``None`` when none is left."""
        nonlocal done
        if incomplete and incomplete[-1].startswith("stopped"):
            return None
        with anyio.move_on_after(deadline - anyio.current_time()) as scope:
            live = await run()
        if scope.cancelled_caught:
            incomplete.append(
                f"stopped at {kind} {visible(repr(name))}: reads and calls stop {STOP_EXCHANGES * timeout:g} s "
                f"after the handshake ({done} of {total} exercised){timeout_hint(timeout)}"
            )
            return None
        done += 1
        if (late := _timed_out(live, timeout)) is not None:
            incomplete.append(late)
        return live

    stopped = "not exercised: the audit's time bound ran out first"
    unread = unexercised_fields(server)  # one shared (frozen) value: a cut listing may have 100,000 rows
    for uri, listed in recorder.listed.items():
        live = await exercise("resource", uri, partial(recorder.read, uri, case_id=uri, cache_mode="bypass"))
        if live is None:
            caps.append(CapabilityAudit("resource", uri, False, stopped, None, unread, skipped=True))
            continue
        refused = _refused(live)
        why = "listed resource: reads are safe" + ("; the gate refused it, nothing was fetched" if refused else "")
        fields = fields_from_receipt(live, server)
        details = receipt_details(live.receipt)
        if listed.mime_type:
            details["listedMime"] = listed.mime_type
        caps.append(CapabilityAudit("resource", uri, not refused, why, live.outcome, fields, details, refused))
    for template in recorder.templates:
        caps.append(await audit_template(recorder, template, given, server, exercise))
    for name, tool in recorder.tools.items():
        hint = tool.annotations.read_only_hint if tool.annotations is not None else None
        claim = f" (it claims readOnlyHint: {str(hint).lower()}, a hint that decides nothing)" if hint else ""
        calls = [args for n, args in allowed if n == name]
        if not calls:
            caps.append(
                CapabilityAudit(
                    "tool",
                    name,
                    False,
                    NOT_CALLED + claim,
                    None,
                    declared_tool_fields(tool, server),
                    declared_tool_details(tool),
                )
            )
            continue
        for n, args in enumerate(calls, start=1):
            caps += await _call_once(
                recorder, exercise, tool, args, (n, len(calls)), claim, server, follow_links, deadline
            )
    for prompt in recorder.prompts.values():
        caps.append(await audit_prompt(recorder, prompt, given, server, exercise))
    called = list(dict.fromkeys(c.name for c in caps if c.kind == "tool" and c.exercised))
    reread = await reread_listed(recorder, caps, exercise, called)
    for c in caps:  # a schema check cut at its bound leaves the audit incomplete, as a timed-out exchange does
        if (cut := (c.details.get("structured") or {}).get("stopped")) is not None:
            incomplete.append(str(cut))
    return AuditReport(
        tuple(command),
        server,
        client.protocol_version,
        tuple(caps),
        notes=tuple(recorder.listing_notes),
        incomplete=tuple(incomplete),
        presentation=_presentation(client),
        reread=reread,
        flows=flow_lines(desk.log if desk else (), tasks.log if tasks else (), client.server_capabilities.extensions),
    )


async def _call_once(
    recorder: Recorder,
    exercise: Callable[[str, str, Callable[[], Awaitable[LiveReceipt]]], Awaitable[LiveReceipt | None]],
    tool: Any,
    args: dict[str, Any],
    call: tuple[int, int],
    claim: str,
    server: dict[str, Any],
    follow_links: bool,
    deadline: float,
) -> list[CapabilityAudit]:
    """One ``--allow-calls`` entry: the tool's row (call ``n`` of ``of``) and its followed links."""
    name = tool.name
    numbered = {"call": {"n": call[0], "of": call[1], "arguments": args}} if call[1] > 1 else {}
    recorder.allow_unknown_side_effects = True
    try:
        run = partial(recorder.call, name, args, case_id=name, follow_links=False)
        live = await exercise("tool", name, run)
    except LiveError as e:
        raise AuditError(str(e)) from e
    finally:
        recorder.allow_unknown_side_effects = False
    if live is None:
        fields = declared_tool_fields(tool, server)
        details = {**declared_tool_details(tool), **numbered}
        why = "not exercised: the audit's time bound ran out first"
        return [CapabilityAudit("tool", name, False, why, None, fields, details, skipped=True)]
    refused = _refused(live)
    why = "allowed by --allow-calls" + claim + ("; the gate refused it, it did not run" if refused else "")
    details = {**declared_tool_details(tool), **receipt_details(live.receipt), **numbered}
    result, recorder.last_result = recorder.last_result, None
    if result is not None and live.receipt.get("performed"):
        # the check has the exchange's bound, and never runs past the audit's stop
        left = max(0.0, deadline - anyio.current_time())
        details["structured"] = await structured_check(
            result, tool.output_schema, timeout=recorder.timeout, tool=name, left=left
        )
    out = [
        CapabilityAudit(
            "tool", name, not refused, why, live.outcome, fields_from_receipt(live, server), details, refused
        )
    ]
    links = [b for b in details.get("blocks") or () if b["type"] == "resource_link"] if follow_links else []
    for block in links[:MAX_LINKS_FOLLOWED]:
        out.append(await follow_link(recorder, name, block, server, exercise))
    for block in links[MAX_LINKS_FOLLOWED:]:  # recorded as addresses, never fetched: the bound is the host's
        block["followed"] = {"notFollowed": f"over the bound of {MAX_LINKS_FOLLOWED} links followed per result"}
    return out


async def _audit_stdio(
    command: Sequence[str], timeout: float, options: dict[str, Any], connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
) -> AuditReport:
    from .audit_transport import audit_guarded  # here, not above: that module imports this one

    # the guard's own handshake watch has start-up's bound too: whichever sees it first, the
    # sentence is the same and names --connect-timeout
    guard = StdioGuard(command, timeout=connect_timeout, env=dict(os.environ), cwd=os.getcwd())
    return await audit_guarded(guard, command, timeout, connect_timeout, options)


def audit_command(
    command: Sequence[str],
    *,
    allow_calls: Sequence[str] = (),
    timeout: float = 10.0,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    template_values: Sequence[str] = (),
    follow_links: bool = False,
    answers: Sequence[str] = (),
) -> AuditReport:
    """Start ``command`` as an MCP server over stdio and audit it (synchronous; for the CLI).

    ``allow_calls``, ``template_values`` and ``follow_links`` are as for :func:`audit_client`;
    ``answers`` are ``--answer TARGET=JSON`` items (:func:`~custody_lab.live.audit_flows.parse_answers`):
    the only requests of the server's the audit answers as the person named.

    Args:
        timeout: seconds each exchange may take; the audit after start-up ends within
            ``TOTAL_EXCHANGES`` (8) times it.
        connect_timeout: seconds the server may take to start and answer the handshake (default
            :data:`~custody_lab.live.limits.DEFAULT_CONNECT_TIMEOUT`). The whole audit ends within
            ``connect_timeout + TOTAL_EXCHANGES * timeout``.

    Raises:
        AuditError: the command did not start, the server misbehaved or was too slow (the message
            says how, and names ``--connect-timeout`` when start-up was), or ``timeout`` or
            ``connect_timeout`` is not a finite number of seconds above zero.
    """
    from .audit_transport import check_options

    if not command:
        raise AuditError("no server command given")
    seconds, start_up = check_options(
        allow_calls=allow_calls,
        timeout=timeout,
        connect_timeout=connect_timeout,
        template_values=template_values,
        answers=answers,
    )
    options = {
        "allow_calls": allow_calls,
        "template_values": template_values,
        "follow_links": follow_links,
        "answers": answers,
    }

    async def go() -> AuditReport:
        return await _audit_stdio(list(command), seconds, options, start_up)

    return run_sync(go)


if __name__ == "__main__":  # pragma: no cover - convenience: python -m custody_lab.live.audit CMD…
    import argparse

    from .live_commands import configure_audit, run_audit

    _parser = argparse.ArgumentParser(prog="python -m custody_lab.live.audit")
    configure_audit(_parser)
    sys.exit(run_audit(_parser.parse_args(["--", *sys.argv[1:]])))
