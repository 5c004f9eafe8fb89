"""A Streamable HTTP transport for servers the lab did not write: every answer checked before the SDK reads it.

The SDK's Streamable HTTP client transport (``streamable_http_client``; the transport exists since
MCP 2025-03-26 and is the HTTP transport of 2025-06-18, 2025-11-25 and the current 2026-07-28)
trusts its server: a garbage body or event is logged with a traceback (which Python prints when no
logging is configured), a JSON body of any length is read, and an HTML page is "an unexpected content
type". :class:`HttpGuard` sits under it, as :class:`~custody_lab.live.stdio_guard.StdioGuard` sits
under stdio, and turns what is wrong into a sentence (:attr:`HttpGuard.problem`):

- nothing answers at the URL (refused, unknown host, a TLS failure), or the connection breaks;
- an answer to a request that is neither ``application/json`` nor ``text/event-stream`` (the
  Streamable HTTP transport says a server answers a POSTed request with one of those two, from
  2025-03-26 on; an HTML page means the URL is not the MCP endpoint);
- a JSON body or an event-stream event longer than :data:`MAX_HTTP_BODY_BYTES`, not UTF-8, nested
  deeper than :data:`~custody_lab.live.stdio_guard.MAX_JSON_DEPTH`, not a JSON-RPC message, or
  answering an id the request did not carry;
- more than :data:`~custody_lab.live.stdio_guard.MAX_NOTIFICATIONS` notifications.

As over stdio, a malformed notification is dropped and a declared ``size`` that is not a
non-negative integer is removed from the body or event before the SDK reads it, each kept in
:attr:`HttpGuard.findings` for the report (:mod:`~custody_lab.live.wire_checks`).

After a problem the guard sends nothing more: every later request is answered, by the guard and
not the server, with a ``CONNECTION_CLOSED`` error, so the audit ends at once as it does over
stdio. An HTTP error status (404, 401, 500 …) whose body is no JSON-RPC error is a softer finding
(:attr:`HttpGuard.note`): the SDK turns it into an error answer and, for ``server/discover``, may
rightly fall back to ``initialize`` (a server of a revision before 2026-07-28 does not know the
method); the note names the status only when the audit then fails. The limits are the lab's host
policy, the same as over stdio. The SDK's own log lines are kept out of the terminal. Request
headers go with every request; the guard never shows their values. The guard connects directly:
proxy settings in the environment (``HTTPS_PROXY`` and the like) are not used.
"""

from __future__ import annotations

__all__ = ["HTTP_ERRORS", "MAX_HTTP_BODY_BYTES", "HttpGuard", "url_problem"]

import json
import logging
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import httpx2
import mcp.types as mt
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from pydantic import ValidationError

from ..core.text import visible
from .limits import DEFAULT_CONNECT_TIMEOUT
from .stdio_guard import MAX_LINE_BYTES, MAX_NOTIFICATIONS, parse_frame, request_target
from .wire_checks import WireFindings

#: One JSON body or one event-stream event may be this long (the limit of one stdio line).
MAX_HTTP_BODY_BYTES = MAX_LINE_BYTES
#: Bytes of an error status's body read to see whether it is a JSON-RPC error.
_ERROR_BODY_BYTES = 64 * 1024

_HANDSHAKE = ("server/discover", "initialize")
#: The HTTP client's own exceptions: the audit explains them in one sentence like every other failure.
HTTP_ERRORS: tuple[type[BaseException], ...] = (httpx2.HTTPError, httpx2.InvalidURL)


def url_problem(url: str) -> str | None:
    """Why the HTTP client refuses ``url`` (an invalid host, say), or ``None`` when it takes it."""
    try:
        httpx2.URL(url)
    except httpx2.InvalidURL as e:
        return visible(e)
    return None


def _rpc_request(request: httpx2.Request) -> tuple[Any, str, str] | None:
    """``(id, method, target)`` of the JSON-RPC request a POST carries; ``None`` for anything else."""
    if request.method != "POST":
        return None
    try:
        body = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    if isinstance(body, dict) and "id" in body and isinstance(body.get("method"), str):
        return body["id"], body["method"], request_target(body.get("params"))
    return None


def _reason(e: BaseException) -> str:
    """The deepest cause's words: "Connection refused" rather than "All connection attempts failed"."""
    found: BaseException | None = e
    reason = str(e) or type(e).__name__
    for _ in range(8):  # a chain of httpx2, httpcore2 and OSError wrappers; never a loop
        if found is None:
            break
        errno = getattr(found, "errno", None)
        if isinstance(errno, int) and errno > 0:
            reason = os.strerror(errno)
        elif isinstance(found, OSError) and found.strerror:
            reason = found.strerror
        found = found.__cause__ or found.__context__
    return reason


def _media_type(response: httpx2.Response) -> str:
    return response.headers.get("content-type", "").partition(";")[0].strip().lower()


class _TooLong(Exception):
    """A body passed its byte limit (the message says which)."""


class HttpGuard:
    """Connect to ``url`` over Streamable HTTP, distrusting every answer (see the module docstring).

    Args:
        url: the MCP endpoint (see :func:`~custody_lab.live.audit_transport.check_url`).
        headers: sent with every request (see :func:`~custody_lab.live.audit_transport.parse_headers`);
            never shown.
        connect_timeout: seconds a TCP (and TLS) connection may take to open.
        transport: the HTTP transport under the guard (a real connection by default; a test
            passes ``httpx2.MockTransport`` to answer as a server would).

    Attributes:
        problem: the first misbehaviour seen, as a sentence (``None`` while all is well); after it
            the guard answers every request itself with a ``CONNECTION_CLOSED`` error.
        note: the last answer that was an HTTP error status and no JSON-RPC error (``None`` once a
            later answer was MCP); it explains a failure that follows it.
        method_of: the method of every request sent, by id; ``last_method``: the last one.
    """

    #: The audit's start-up bound speaks for a slow handshake over HTTP (no watch of its own here).
    handshake_timed_out = False
    #: There is no process to start: an error is always the server's (or the network's).
    started = True

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})
        self.connect_timeout = connect_timeout
        self._transport = transport
        self.problem: str | None = None
        self.note: str | None = None
        self.method_of: dict[Any, str] = {}
        self.last_method: str | None = None
        self.findings = WireFindings()
        self.target_of: dict[Any, str] = {}
        self._notifications = 0

    def handshake_asked(self) -> str:
        """The handshake requests sent so far, in order (``"server/discover then initialize"``)."""
        return " then ".join(m for m in _HANDSHAKE if m in self.method_of.values()) or "the handshake"

    def stderr_lines(self) -> list[str]:
        """A server behind a URL has no stderr the audit can see."""
        return []

    def fail(self, problem: str) -> None:
        """Remember the first problem; from now on no request reaches the server."""
        if self.problem is None:
            self.problem = problem

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[tuple[Any, Any]]:
        """Yield the (read, write) streams an ``mcp.Client`` takes, the guard under the SDK's transport."""
        timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, connect=self.connect_timeout, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
        client = httpx2.AsyncClient(
            headers=self.headers, timeout=timeout, transport=_GuardedTransport(self, self._transport)
        )
        # The SDK logs a parse error with its traceback; with no handler anywhere Python's last
        # resort would print it on stderr. A handler on "mcp" stops that (configured logging
        # still gets the records); the guard's sentence says what happened.
        quiet, sdk_log = logging.NullHandler(), logging.getLogger("mcp")
        sdk_log.addHandler(quiet)
        try:
            async with (
                client,
                streamable_http_client(self.url, http_client=client, max_sse_event_size=MAX_HTTP_BODY_BYTES) as streams,
            ):
                yield streams
        finally:
            sdk_log.removeHandler(quiet)

    # -- what the guarded transport calls ---------------------------------------------------

    def closed_answer(self, request: httpx2.Request, ident: Any) -> httpx2.Response:
        """The guard's own answer to a request after a problem: a JSON-RPC ``CONNECTION_CLOSED`` error."""
        error = {"code": mt.CONNECTION_CLOSED, "message": f"the audit stopped talking to the server: it {self.problem}"}
        body = json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}).encode()
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=body, request=request)

    def check_message(self, raw: bytes, where: str, ident: Any = None) -> bytes | None:
        """Check one JSON body or event's data: what to pass on (``raw``, or ``raw`` without the sizes
        :func:`~custody_lab.live.wire_checks.refuse_odd_sizes` removed, or ``b""`` for a malformed
        notification, which is dropped), or ``None`` (and :attr:`problem` set) when it is wrong."""
        parsed = parse_frame(raw, "sent", f"in {where}")
        if isinstance(parsed, str):
            self.fail(parsed)
            return None
        message, text = parsed
        if ident is not None and isinstance(message, mt.JSONRPCResponse | mt.JSONRPCError) and message.id != ident:
            self.fail(f"sent id {visible(repr(message.id))} in {where}, whose request has id {ident!r}")
            return None
        if isinstance(message, mt.JSONRPCNotification):
            self._notifications += 1
            if self._notifications > MAX_NOTIFICATIONS:
                self.fail(f"sent more than {MAX_NOTIFICATIONS} notifications (in {where})")
                return None
            if self.findings.drops_notification(message.method, message.params):
                return b""  # dropped: the SDK would log its validation traceback
        if isinstance(message, mt.JSONRPCResponse):
            fixed = self.findings.fixed_sizes(self.method_of.get(message.id), self.target_of.get(message.id, ""), text)
            if fixed is not None:  # the sizes removed: what the SDK reads is the lab's verdict on the wire
                return json.dumps(fixed).encode("utf-8")
        return raw


class _GuardedTransport(httpx2.AsyncBaseTransport):
    """The HTTP transport under the SDK's: every answer checked before the SDK reads it."""

    def __init__(self, guard: HttpGuard, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._guard = guard
        self._inner = inner if inner is not None else httpx2.AsyncHTTPTransport()

    async def __aenter__(self) -> _GuardedTransport:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.__aexit__(*exc)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        sent = _rpc_request(request)
        if sent is None:
            return await self._other(request)
        g = self._guard
        ident, what, target = sent
        g.method_of[ident] = g.last_method = what
        g.target_of[ident] = target
        if g.problem is not None:
            return g.closed_answer(request, ident)
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as e:
            g.fail(self._unreachable(e, what))
            return g.closed_answer(request, ident)
        response.request = request
        if response.status_code == 202 or 300 <= response.status_code < 400:
            return response  # the SDK's own words for these (a request answered 202, a redirect)
        if response.status_code >= 400:
            return await self._error_status(response, what)
        kind = _media_type(response)
        if kind == "text/event-stream":
            g.note = None
            return self._checked_events(response, what)
        if kind != "application/json":
            await response.aclose()
            shown = visible(kind) or "no content type"
            g.fail(
                f"answered {what} with HTTP {response.status_code} {shown}, not application/json or "
                f"text/event-stream: is {visible(g.url)} the server's MCP endpoint?"
            )
            return g.closed_answer(request, ident)
        try:
            body = await _read(response, MAX_HTTP_BODY_BYTES)
        except _TooLong:
            g.fail(f"sent more than {MAX_HTTP_BODY_BYTES // (1024 * 1024)} MiB in its answer to {what}")
            return g.closed_answer(request, ident)
        checked = g.check_message(body, f"its answer to {what}", ident=ident)
        if checked is None:
            return g.closed_answer(request, ident)
        g.note = None
        return _replay(response, checked or body)

    async def _other(self, request: httpx2.Request) -> httpx2.Response:
        """A notification or response POSTed, the GET event stream, the DELETE that ends the session:
        passed on (a GET's events checked); after a problem, not sent at all."""
        g = self._guard
        if g.problem is not None:
            if request.method == "GET":
                raise httpx2.RemoteProtocolError(f"the audit stopped talking to the server: it {g.problem}")
            return httpx2.Response(202 if request.method == "POST" else 204, request=request)
        try:
            response = await self._inner.handle_async_request(request)
        except httpx2.TransportError as e:
            if request.method != "POST":
                raise  # the SDK's GET loop retries and gives up; a failed DELETE is not the audit's concern
            g.fail(self._unreachable(e, "a notification"))
            return httpx2.Response(202, request=request)
        response.request = request
        if request.method == "GET" and response.status_code == 200 and _media_type(response) == "text/event-stream":
            return self._checked_events(response, "")
        return response

    def _checked_events(self, response: httpx2.Response, what: str) -> httpx2.Response:
        if response.headers.get("content-encoding", "identity").lower() != "identity":
            return response  # compressed events: the SDK decodes and reads them unchecked
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)  # an async transport's response
        return _replace_stream(response, _CheckedEvents(stream, self._guard, what))

    def _unreachable(self, e: httpx2.TransportError, what: str) -> str:
        origin = visible(urlsplit(self._guard.url).netloc)
        if isinstance(e, httpx2.ConnectTimeout):
            return f"did not accept a connection at {origin} within {self._guard.connect_timeout:g} s"
        reason = visible(_reason(e))
        if isinstance(e, httpx2.ConnectError):
            return f"could not be reached at {origin} ({reason}): is it running, and is that its address?"
        return f"broke the connection during {what} ({visible(type(e).__name__)}: {reason})"

    async def _error_status(self, response: httpx2.Response, what: str) -> httpx2.Response:
        """An HTTP error: passed on (the SDK answers for it); noted unless it carries a JSON-RPC error."""
        g = self._guard
        try:
            body = await _read(response, _ERROR_BODY_BYTES)
        except _TooLong:
            body = b""
        kind = _media_type(response)
        if kind == "application/json" and body:
            try:
                if isinstance(mt.jsonrpc_message_adapter.validate_json(body, by_name=False), mt.JSONRPCError):
                    g.note = None
                    return _replay(response, body)
            except ValidationError:
                pass
        status = response.status_code
        reason = visible(response.reason_phrase or "")
        shown = f" ({visible(kind)})" if kind else ""
        sent = response.request is not None and "authorization" in response.request.headers
        hint = {
            401: (
                "; the server refused the credentials sent (the Authorization header given with --header): "
                "check the token, its scheme ('Bearer …') and that it has not expired"
                if sent
                else "; the server wants credentials and none were sent: give them with --header 'Authorization: …'"
            ),
            403: "; the server refused these credentials (or this client)",
            404: f"; is {visible(g.url)} the server's MCP endpoint?",
            405: f"; {visible(g.url)} does not take POST: is it the server's MCP endpoint?",
        }.get(status, "")
        g.note = f"answered {what} with HTTP {status} {reason}{shown}{hint}".replace("  ", " ")
        return _replay(response, body)


async def _read(response: httpx2.Response, limit: int) -> bytes:
    """The decoded body, up to ``limit`` bytes (a longer one raises :class:`_TooLong`)."""
    out = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            out += chunk
            if len(out) > limit:
                raise _TooLong
    finally:
        await response.aclose()
    return bytes(out)


_REPLAYED_AWAY = ("content-encoding", "content-length", "transfer-encoding")


def _replay(response: httpx2.Response, body: bytes) -> httpx2.Response:
    """A response with the same status and headers whose (already decoded) body is ``body``."""
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _REPLAYED_AWAY]
    return httpx2.Response(
        response.status_code,
        headers=headers,
        content=body,
        extensions=response.extensions,
        request=response.request,
    )


def _replace_stream(response: httpx2.Response, stream: httpx2.AsyncByteStream) -> httpx2.Response:
    return httpx2.Response(
        response.status_code,
        headers=response.headers,
        stream=stream,
        extensions=response.extensions,
        request=response.request,
    )


class _CheckedEvents(httpx2.AsyncByteStream):
    """An event stream passed on event by event, each event's data checked as one JSON-RPC message.

    Lines end with LF or CRLF; ``data:`` lines of one event are joined with LF; a blank line ends
    the event (the HTML Standard's event-stream format, which MCP's Streamable HTTP uses). Only
    ``message`` events (the default type) carry MCP messages; an event with no data (a priming
    event with an id) is not a message. An event is held until its blank line, then passed on as
    it came, or with its data replaced by what :meth:`HttpGuard.check_message` made of it (declared
    sizes removed), or not at all (a malformed notification).
    """

    def __init__(self, inner: httpx2.AsyncByteStream, guard: HttpGuard, what: str) -> None:
        self._inner, self._guard = inner, guard
        self._where = f"the event stream answering {what}" if what else "the GET event stream"
        self._line = bytearray()
        self._data: list[bytes] = []
        self._lines: list[bytes] = []  # the event's lines as they came (each with its line ending)
        self._event = b""
        self._size = 0
        self._out = bytearray()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._feed(chunk)
            if self._out:
                out, self._out = bytes(self._out), bytearray()
                yield out
        rest = b"".join(self._lines) + bytes(self._line)  # an event the stream never ended: as it came
        if rest:
            yield rest

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _stop(self) -> None:
        raise httpx2.RemoteProtocolError(f"the audit stopped reading: the server {self._guard.problem}")

    def _feed(self, chunk: bytes) -> None:
        if self._guard.problem is not None:
            self._stop()
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._line += chunk[start : end + 1]
            start = end + 1
            self._take(bytes(self._line))
            self._line.clear()
        self._line += chunk[start:]
        if self._size + len(self._line) > MAX_HTTP_BODY_BYTES:
            self._guard.fail(f"sent an event over {MAX_HTTP_BODY_BYTES // (1024 * 1024)} MiB in {self._where}")
            self._stop()

    def _take(self, raw_line: bytes) -> None:
        line = raw_line.removesuffix(b"\n").removesuffix(b"\r")
        self._lines.append(raw_line)
        self._size += len(raw_line)  # every line the event holds counts against its bound
        if not line:
            data, event, lines = b"\n".join(self._data), self._event, self._lines
            self._data, self._event, self._size, self._lines = [], b"", 0, []
            if event in (b"", b"message") and data:
                checked = self._guard.check_message(data, self._where)
                if checked is None:
                    self._stop()
                if not checked:
                    return  # dropped
                if checked != data:
                    kept = [x for x in lines[:-1] if not x.startswith(b"data")]
                    lines = [*kept, b"data: " + checked + b"\n", b"\n"]
            self._out += b"".join(lines)
            return
        if line.startswith(b":"):
            return  # a comment (a keep-alive)
        field, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        if field == b"data":
            self._data.append(value)
        elif field == b"event":
            self._event = value
        if self._size > MAX_HTTP_BODY_BYTES:
            self._guard.fail(f"sent an event over {MAX_HTTP_BODY_BYTES // (1024 * 1024)} MiB in {self._where}")
            self._stop()
