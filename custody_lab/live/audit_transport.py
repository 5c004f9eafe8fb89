"""How the audit reaches a server: over stdio or at a URL, with the same bounds, the same sentences, the same report.

    custody-lab audit [options] -- COMMAND [ARG ...]                      (stdio)
    custody-lab audit [--header 'NAME: VALUE' ...] [options] URL          (Streamable HTTP)

:func:`~custody_lab.live.audit.audit_command` starts a command behind
:class:`~custody_lab.live.stdio_guard.StdioGuard`; :func:`audit_url` connects to an ``http://`` or
``https://`` URL with the SDK's Streamable HTTP client transport behind
:class:`~custody_lab.live.http_guard.HttpGuard`. Both then run the same audit
(:func:`~custody_lab.live.audit.audit_client`) under :func:`audit_guarded`, and the report differs
only in the line naming what was audited (the URL instead of the command).

The bounds (each the lab's host policy):

- ``--connect-timeout`` (default :data:`~custody_lab.live.limits.DEFAULT_CONNECT_TIMEOUT`, 60 s)
  bounds start-up: the command starting (or the URL answering) and the handshake
  (``server/discover``, then ``initialize`` for a server of a revision before 2026-07-28). A server
  too slow here gets a sentence naming ``--connect-timeout``, the flag to raise. Within it the
  SDK's auto mode waits its own 10 s (``mcp.client.session.DISCOVER_TIMEOUT_SECONDS``) for an answer
  to ``server/discover`` before it asks ``initialize`` instead, so a server that leaves a method it
  does not know unanswered is audited too when the bound is longer than that (the default is).
- ``--timeout`` bounds each exchange after that, and
  :data:`~custody_lab.live.audit_report.TOTAL_EXCHANGES` times it the rest of the audit, counted
  from the end of the handshake.

So the whole audit ends within ``--connect-timeout`` + ``TOTAL_EXCHANGES`` x ``--timeout`` (a stdio
server that ignores being asked to stop is then terminated and killed, which takes at most 2 s more). Every
failure becomes one :class:`~custody_lab.live.audit.AuditError` sentence, the guard's own finding
first (it saw the wire). A URL is refused before anything is sent unless it is ``http`` or
``https`` with a host and no credentials (give them with ``--header``, whose values are never shown).
"""

from __future__ import annotations

__all__ = ["audit_guarded", "audit_url", "check_options", "check_url", "parse_headers", "shown_url"]

import re
import unicodedata
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..core.text import visible
from .audit import AuditError, audit_client, check_timeout, parse_allow_calls, parse_template_values, timeout_hint
from .audit_flows import AnswerError, parse_answers
from .audit_report import TOTAL_EXCHANGES, AuditReport
from .elicitation import ElicitationDesk
from .http_guard import HTTP_ERRORS, HttpGuard, url_problem
from .lab_tasks import TaskPoller
from .limits import DEFAULT_CONNECT_TIMEOUT
from .live_errors import LiveError, LiveTimeout, first_problem
from .session import run_sync
from .wire_checks import WireFindings


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Headers the Streamable HTTP transport sets itself (MCP 2025-06-18 on; ``Mcp-Method``,
#: ``Mcp-Name`` and ``Mcp-Param-*`` in 2026-07-28), or HTTP itself: ``--header`` may not set them.
_TRANSPORT_HEADERS = frozenset(
    {
        "accept",
        "connection",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "mcp-method",
        "mcp-name",
        "mcp-protocol-version",
        "mcp-session-id",
        "transfer-encoding",
    }
)
#: An RFC 9110 field name (section 5.1: a token).
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def check_url(url: object) -> str:
    """An ``http://`` or ``https://`` URL with a host, as the audit connects to it.

    Example:
        >>> check_url("http://127.0.0.1:8765/mcp")
        'http://127.0.0.1:8765/mcp'
        >>> check_url("ftp://example.com/mcp")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        custody_lab.live.audit.AuditError: 'ftp://example.com/mcp': the audit connects to an http:// or https:// URL...

    Raises:
        AuditError: another scheme, no host, a bad port, credentials in the URL (give them with
            ``--header``), or spaces or control characters in it.
    """
    if not isinstance(url, str):
        raise AuditError(f"a URL is text; got {type(url).__name__}")
    shown = _cut(visible(repr(url)))
    if not url or visible(url) != url or any(ch.isspace() for ch in url):
        raise AuditError(f"{shown}: a URL has no spaces or control characters")
    try:
        parts = urlsplit(url)
    except ValueError as e:  # an unclosed IPv6 bracket
        raise AuditError(f"{shown} is not a URL ({visible(e)})") from e
    if parts.scheme.lower() not in ("http", "https"):
        raise AuditError(
            f"{shown}: the audit connects to an http:// or https:// URL (Streamable HTTP); "
            "to audit a stdio server, give its command after --"
        )
    if parts.username is not None or parts.password is not None:
        raise AuditError(
            f"{_cut(visible(repr(parts.scheme + '://' + parts.netloc.rpartition('@')[2])))}: no credentials in "
            "the URL (the report prints it); give them as a header, e.g. --header 'Authorization: Bearer …'"
        )
    if not parts.hostname:
        raise AuditError(f"{shown}: the URL names no host")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked
    except ValueError as e:
        raise AuditError(f"{shown}: the port is not a number from 0 to 65535") from e
    if (problem := url_problem(url)) is not None:
        raise AuditError(f"{shown} is not a URL the HTTP client can use ({problem})")
    return url


def parse_headers(items: Sequence[str]) -> dict[str, str]:
    """``NAME: VALUE`` items -> {name: value} for every HTTP request; a message never shows a value.

    Example:
        >>> parse_headers(["Authorization: Bearer abc", "X-Team:  red "])
        {'Authorization': 'Bearer abc', 'X-Team': 'red'}

    Raises:
        AuditError: no ``:``, a name that is not an HTTP field name, a name given twice or one the
            transport sets itself (``Content-Type``, ``Mcp-Session-Id`` …), or a value with a
            control character (a line break would start another header).
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        name = name.strip()
        if not sep or not _TOKEN.fullmatch(name):
            shown = _cut(visible(repr(name if sep else "")))
            raise AuditError(f"--header {shown}: write NAME: VALUE with an HTTP field name, e.g. 'Authorization: …'")
        if name.lower() in _TRANSPORT_HEADERS or name.lower().startswith("mcp-param-"):
            raise AuditError(f"--header {name!r}: the Streamable HTTP transport sets this header itself")
        if name.lower() in {n.lower() for n in out}:
            raise AuditError(f"--header {name!r} is given twice")
        value = value.strip(" \t")
        if not value.isascii() or any(ch != "\t" and unicodedata.category(ch) == "Cc" for ch in value):
            raise AuditError(
                f"--header {name!r}: the value must be ASCII with no control character (the value is not shown)"
            )
        out[name] = value
    return out


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


def _known_leaf(
    group: BaseExceptionGroup[BaseException], known: tuple[type[BaseException], ...] = _KNOWN
) -> BaseException | None:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            found = _known_leaf(exc, known)
            if found is not None:
                return found
        elif isinstance(exc, known):
            return exc
    return None


class _Guard(Protocol):
    """What the audit asks of a transport guard (:class:`~custody_lab.live.stdio_guard.StdioGuard`,
    :class:`~custody_lab.live.http_guard.HttpGuard`)."""

    problem: str | None
    findings: WireFindings
    handshake_timed_out: bool
    started: bool
    last_method: str | None

    def connect(self) -> AbstractAsyncContextManager[tuple[Any, Any]]: ...

    def handshake_asked(self) -> str: ...

    def stderr_lines(self) -> list[str]: ...


def _raise_hint(connect_timeout: float) -> str:
    return f"; if it is only slow to start, raise --connect-timeout (e.g. --connect-timeout {2 * connect_timeout:g})"


def _explain(
    e: BaseException,
    guard: _Guard,
    command: Sequence[str],
    limit: float,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    ready: bool = True,
) -> str:
    """One sentence for what went wrong; the guard's own finding first (it saw the wire).

    ``limit`` is the bound after start-up (``TOTAL_EXCHANGES`` x ``--timeout``); ``ready`` says
    whether the handshake was answered, so a wait that ran out before it is start-up's
    (``--connect-timeout``), one after it the audit's.
    """
    cmd = _cut(visible(" ".join(command)))
    asked = visible(guard.last_method or "the handshake")
    if guard.problem is not None:
        hint = _raise_hint(connect_timeout) if guard.handshake_timed_out else ""
        return f"{cmd!r}: the server {guard.problem}{hint}"
    if isinstance(e, AuditError):
        return str(e)
    if isinstance(e, LiveTimeout):
        return f"{cmd!r}: {visible(e)}{timeout_hint(limit / TOTAL_EXCHANGES)}"
    if isinstance(e, TimeoutError) and not ready:  # before OSError: TimeoutError is one
        return (
            f"{cmd!r}: the server did not answer {visible(guard.handshake_asked())} within {connect_timeout:g} s"
            + _raise_hint(connect_timeout)
        )
    if isinstance(e, TimeoutError):
        return (
            f"{cmd!r} did not finish the audit within {limit:g} s after start-up ({TOTAL_EXCHANGES} x --timeout; "
            f"it stopped at {asked}){timeout_hint(limit / TOTAL_EXCHANGES)}"
        )
    if isinstance(e, OSError) and not guard.started:
        return f"cannot start {visible(repr(command[0]))}: {visible(e.strerror or e)}"
    note = getattr(guard, "note", None)  # over HTTP: the last answer was an HTTP error status, not MCP
    if note is not None and isinstance(e, MCPError | LiveError):
        return f"{cmd!r}: the server {note}"
    if isinstance(e, LiveError):
        return f"{cmd!r}: the server's {visible(e)}"
    if isinstance(e, MCPError):
        return f"{cmd!r}: the server answered {asked} with error {e.code}: {visible(e.error.message)}"
    if isinstance(e, ValidationError):
        return f"{cmd!r}: the server answered {asked} with a malformed result: {first_problem(e)}"
    return f"{cmd!r}: {visible(e)} (during {asked})"


async def audit_guarded(
    guard: _Guard,
    command: Sequence[str],
    timeout: float,
    connect_timeout: float,
    options: dict[str, Any],
    errors: tuple[type[BaseException], ...] = (),
    transport: str = "stdio",
) -> AuditReport:
    """Audit the server behind ``guard``: start-up within ``connect_timeout``, then the rest of the
    audit within ``TOTAL_EXCHANGES * timeout`` counted from the end of the handshake.

    ``command`` is what the report names (the command line, or the URL); ``errors`` are the
    transport's own exceptions, explained like :data:`_KNOWN` (an HTTP client's, for a URL).
    """
    known = _KNOWN + errors
    limit = TOTAL_EXCHANGES * timeout
    report: AuditReport | None = None
    ready = False
    try:
        # one scope, two deadlines: start-up's, then (once the handshake is answered) the audit's;
        # a report made in time is kept even if stopping the server is slow
        with anyio.CancelScope(deadline=anyio.current_time() + connect_timeout) as scope:
            # The SDK's read timeout matters only for initialize (server/discover has the SDK's own
            # 10 s; each exchange after the handshake has the lab's bound, limits.bounded): as long as
            # start-up's bound, so this scope is what ends a slow start, and never shorter than an exchange.
            waits = max(connect_timeout, timeout)
            flows = dict(options)
            desk, tasks = ElicitationDesk(list(parse_answers(flows.pop("answers", ())))), TaskPoller()
            async with Client(
                guard.connect(),
                mode="auto",
                read_timeout_seconds=waits,
                cache=None,
                elicitation_callback=desk,
                extensions=[tasks],
            ) as client:
                ready = True
                began = anyio.current_time()
                scope.deadline = began + limit
                report = await audit_client(
                    client, timeout=timeout, command=command, started=began, desk=desk, tasks=tasks, **flows
                )
    except BaseExceptionGroup as group:
        leaf = _known_leaf(group, known)
        if leaf is None:
            raise
        why = _explain(leaf, guard, command, limit, connect_timeout=connect_timeout, ready=ready)
        raise AuditError(why, stderr=guard.stderr_lines()) from leaf
    except known as e:
        why = _explain(e, guard, command, limit, connect_timeout=connect_timeout, ready=ready)
        raise AuditError(why, stderr=guard.stderr_lines()) from e
    if report is None:
        why = _explain(TimeoutError(), guard, command, limit, connect_timeout=connect_timeout, ready=ready)
        raise AuditError(why, stderr=guard.stderr_lines())
    late = () if guard.problem is None else (f"the server {guard.problem}",)
    return replace(
        report,
        incomplete=report.incomplete + late,
        notes=report.notes + guard.findings.notes(),
        protocol=guard.findings.protocol(),
        stderr=tuple(guard.stderr_lines()),
        transport=transport,
    )


def check_options(
    *,
    allow_calls: Sequence[str] = (),
    timeout: object = 10.0,
    connect_timeout: object = DEFAULT_CONNECT_TIMEOUT,
    template_values: Sequence[str] = (),
    answers: Sequence[str] = (),
) -> tuple[float, float]:
    """Refuse bad arguments before anything starts; return ``(timeout, connect_timeout)`` in seconds.

    Example:
        >>> check_options(timeout="5", connect_timeout=30)
        (5.0, 30.0)

    Raises:
        AuditError: a bound is not a finite number of seconds above zero, or an ``--allow-calls``
            or ``--template-values`` item is malformed (the message names the flag).
    """
    seconds = check_timeout(timeout)
    start_up = check_timeout(connect_timeout, "--connect-timeout")
    parse_allow_calls(allow_calls)
    parse_template_values(template_values)
    try:
        parse_answers(answers)
    except AnswerError as e:
        raise AuditError(str(e)) from e
    return seconds, start_up


#: Query parameters whose values are secrets (``serve --http``'s ``?token=``, API keys): never printed.
_SECRET_QUERY = re.compile(r"token|key|secret|password|auth|sig", re.IGNORECASE)


def shown_url(url: str) -> str:
    """``url`` as the report prints it: the value of a query parameter that looks secret is hidden.

    Example:
        >>> shown_url("http://127.0.0.1:8765/mcp?token=s3cret&tenant=a")
        'http://127.0.0.1:8765/mcp?token=REDACTED&tenant=a'
    """
    parts = urlsplit(url)
    if not parts.query:
        return url
    query = parse_qsl(parts.query, keep_blank_values=True)
    pairs = [(k, "REDACTED" if _SECRET_QUERY.search(k) else v) for k, v in query]
    return urlunsplit(parts._replace(query=urlencode(pairs)))


def audit_url(
    url: str,
    *,
    allow_calls: Sequence[str] = (),
    timeout: float = 10.0,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    template_values: Sequence[str] = (),
    follow_links: bool = False,
    headers: Sequence[str] = (),
    answers: Sequence[str] = (),
) -> AuditReport:
    """Audit the MCP server at ``url`` over Streamable HTTP (synchronous; for the CLI).

    ``allow_calls``, ``template_values`` and ``follow_links`` are as for
    :func:`~custody_lab.live.audit.audit_client`; ``timeout`` and ``connect_timeout`` as for
    :func:`~custody_lab.live.audit.audit_command` (here start-up is reaching the URL and the
    handshake); ``headers`` are ``NAME: VALUE`` items sent with every request (:func:`parse_headers`).
    The report names the URL where a stdio report names the command.

    Raises:
        AuditError: the URL or an argument is refused (before anything is sent), nothing answers
            at the URL, or the server misbehaved or was too slow (the message says how).
    """
    target = check_url(url)
    seconds, start_up = check_options(
        allow_calls=allow_calls,
        timeout=timeout,
        connect_timeout=connect_timeout,
        template_values=template_values,
        answers=answers,
    )
    sent_headers = parse_headers(headers)
    options = {
        "allow_calls": allow_calls,
        "template_values": template_values,
        "follow_links": follow_links,
        "answers": answers,
    }

    async def go() -> AuditReport:
        guard = HttpGuard(target, headers=sent_headers, connect_timeout=start_up)
        shown = [shown_url(target)]  # what the report and every message print: no secret of the query
        return await audit_guarded(guard, shown, seconds, start_up, options, HTTP_ERRORS, "streamable-http")

    return run_sync(go)
