"""The HTTP guard under the SDK's Streamable HTTP transport, answered in-process by ``httpx2.MockTransport``.

Each test drives a real ``mcp.Client`` handshake (``server/discover``, then ``initialize``) through
:class:`~custody_lab.live.http_guard.HttpGuard`; the mock plays a server of revision 2025-11-25 and
breaks what the test is about.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from custody_lab.live.http_guard import MAX_HTTP_BODY_BYTES, HttpGuard, url_problem

from ..timing import scaled

URL = "http://mock.test/mcp"
INITIALIZED = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "serverInfo": {"name": "mock", "version": "1"},
}


def _json(ident: Any, *, result: Any = None, error: Any = None) -> bytes:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
    body.update({"error": error} if error is not None else {"result": result})
    return json.dumps(body).encode()


class _Chunks(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


def _server(initialize: Callable[[Any], httpx2.Response], seen: list[str]) -> httpx2.MockTransport:
    """A 2025-11-25 server: -32601 for server/discover, ``initialize(id)`` for initialize, 202 otherwise."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        message = json.loads(request.content) if request.method == "POST" else {}
        seen.append(message.get("method", request.method))
        if request.method != "POST" or "id" not in message:
            return httpx2.Response(202 if request.method == "POST" else 405)
        if message["method"] == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            return httpx2.Response(200, headers={"content-type": "application/json"}, content=_json(1, error=error))
        return initialize(message["id"])

    return httpx2.MockTransport(handle)


def _handshake(guard: HttpGuard) -> str | BaseException:
    """The negotiated protocol version, or what the handshake raised."""

    async def go() -> str | BaseException:
        try:
            with anyio.fail_after(scaled(20)):
                async with Client(guard.connect(), mode="auto", read_timeout_seconds=scaled(10), cache=None) as c:
                    return c.protocol_version
        except Exception as e:  # an ExceptionGroup or an MCPError: the test reads the guard
            return e

    return anyio.run(go)


def _events(ident: Any, newline: bytes, garbage: bool) -> bytes:
    """A keep-alive comment, a priming event (an id, no data), a notification whose data spans two
    lines, then the answer to ``initialize``. With ``garbage`` the notification is not JSON and no
    priming event comes first (an id would make the SDK wait to resume the stream)."""
    nl = newline
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
    text = "hello {not json, " + "x" * 40 if garbage else json.dumps(note)
    cut = text.index('"params"') if not garbage else 10
    answer = _json(ident, result=INITIALIZED)
    return (
        b": keep-alive" + nl + nl + (b"" if garbage else b"id: 7" + nl + nl)
        + b"event: message" + nl + b"data: " + text[:cut].encode() + nl + b"data: " + text[cut:].encode() + nl + nl
        + b"data: " + answer + nl + nl
    )  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 400), max_size=6), st.sampled_from([b"\n", b"\r\n"]), st.booleans())
def test_an_event_stream_split_anywhere_is_read_event_by_event(cuts, newline, garbage):
    """Split at any bytes, with LF or CRLF lines: a good stream reaches the client whole, and a
    stream whose second event is not JSON-RPC is caught wherever the cuts fall."""
    seen: list[str] = []

    def initialize(ident: Any) -> httpx2.Response:
        raw = _events(ident, newline, garbage)
        points = sorted({c % len(raw) for c in cuts} | {0, len(raw)})
        chunks = [raw[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=_Chunks(chunks))

    guard = HttpGuard(URL, transport=_server(initialize, seen))
    got = _handshake(guard)
    where = f"cuts {cuts}, newline {newline!r}, garbage {garbage}"
    if garbage:
        assert (guard.problem or "").startswith("sent data that is not a JSON-RPC message in the event stream"), (
            f"{where}: {guard.problem!r}"
        )
        assert "hello {not\\x0a json, xx" in (guard.problem or ""), f"{where}: the data lines joined: {guard.problem!r}"
        return
    assert got == "2025-11-25", f"{where}: the handshake gave {got!r}"
    assert guard.problem is None and guard.note is None, guard.problem


def test_event_data_that_is_not_json_rpc_is_named_and_nothing_more_is_sent():
    seen: list[str] = []

    def initialize(ident: Any) -> httpx2.Response:
        body = b"event: message\ndata: hello {not json\n\n"
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    guard = HttpGuard(URL, transport=_server(initialize, seen))
    got = _handshake(guard)
    assert isinstance(got, BaseException), f"the handshake should fail; it gave {got!r}"
    assert guard.problem == (
        "sent data that is not a JSON-RPC message in the event stream answering initialize: hello {not json"
    ), guard.problem
    assert seen == ["server/discover", "initialize"], f"after the problem nothing more may reach the server: {seen}"


@pytest.mark.parametrize("content_type", ["application/json", "text/event-stream"])
def test_a_reply_with_both_result_and_error_is_refused_as_not_json_rpc(content_type):
    seen: list[str] = []

    def initialize(ident: Any) -> httpx2.Response:
        both = json.dumps(
            {"jsonrpc": "2.0", "id": ident, "result": INITIALIZED, "error": {"code": -32603, "message": "and not"}}
        ).encode()
        body = b"event: message\ndata: " + both + b"\n\n" if content_type == "text/event-stream" else both
        return httpx2.Response(200, headers={"content-type": content_type}, content=body)

    guard = HttpGuard(URL, transport=_server(initialize, seen))
    got = _handshake(guard)
    assert isinstance(got, BaseException), f"the handshake should fail; it gave {got!r}"
    assert guard.problem is not None and guard.problem.startswith("sent a reply with both result and error in "), (
        guard.problem
    )
    assert guard.problem.endswith("(id 2): JSON-RPC 2.0 allows one of them, never both"), guard.problem
    assert seen == ["server/discover", "initialize"], f"after the problem nothing more may reach the server: {seen}"


def test_a_404_to_server_discover_is_only_a_note_and_the_initialize_that_follows_clears_it():
    # a gateway (or a server before 2026-07-28) may answer an unknown method with 404: the SDK
    # falls back to initialize, and the audit must go on
    seen: list[str] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        message = json.loads(request.content) if request.method == "POST" else {}
        seen.append(message.get("method", request.method))
        if message.get("method") == "server/discover":
            return httpx2.Response(404, headers={"content-type": "text/html"}, content=b"<h1>Not Found</h1>")
        if message.get("method") == "initialize":
            body = _json(message["id"], result=INITIALIZED)
            return httpx2.Response(200, headers={"content-type": "application/json"}, content=body)
        return httpx2.Response(202 if request.method == "POST" else 405)

    guard = HttpGuard(URL, transport=httpx2.MockTransport(handle))
    assert _handshake(guard) == "2025-11-25" and guard.problem is None, guard.problem
    assert guard.note is None, f"the initialize answer should clear the note; it is {guard.note!r}"
    assert seen[:2] == ["server/discover", "initialize"], seen


def test_a_json_rpc_error_carried_by_an_error_status_passes_as_the_servers_answer():
    def initialize(ident: Any) -> httpx2.Response:
        error = {"code": -32602, "message": "bad params \x1b[2J"}
        return httpx2.Response(400, headers={"content-type": "application/json"}, content=_json(ident, error=error))

    guard = HttpGuard(URL, transport=_server(initialize, []))
    got = _handshake(guard)
    assert guard.problem is None and guard.note is None, (guard.problem, guard.note)
    assert "bad params" in repr(got), f"the server's own error should reach the client: {got!r}"


def test_a_json_body_over_the_limit_is_refused_unread_past_it():
    def initialize(ident: Any) -> httpx2.Response:
        body = b'{"jsonrpc": "2.0", "id": 1, "result": "' + b"x" * MAX_HTTP_BODY_BYTES + b'"}'
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=body)

    guard = HttpGuard(URL, transport=_server(initialize, []))
    assert isinstance(_handshake(guard), BaseException)
    assert guard.problem == "sent more than 16 MiB in its answer to initialize", guard.problem


@pytest.mark.parametrize(("url", "refused"), [("http://127.0.0.1:8765/mcp", False), ("http://exa\x00mple.com/", True)])
def test_the_http_client_names_what_it_cannot_use_in_a_url(url, refused):
    assert (url_problem(url) is not None) is refused, url_problem(url)


#: A handshake against compressed event-stream garbage (which the guard passes to the SDK unchecked),
#: in a fresh interpreter with no logging configured: the SDK logs its parse error with a traceback.
_COMPRESSED_GARBAGE = """
import gzip, json
import anyio, httpx2
from mcp import Client
from custody_lab.live.http_guard import HttpGuard

def handle(request):
    message = json.loads(request.content) if request.method == "POST" else {}
    if "id" not in message:
        return httpx2.Response(202 if request.method == "POST" else 405)
    body = gzip.compress(b"event: message\\ndata: hello {not json\\n\\n")
    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    return httpx2.Response(200, headers=headers, content=body)

async def go():
    guard = HttpGuard("http://mock.test/mcp", transport=httpx2.MockTransport(handle))
    try:
        with anyio.fail_after(TIMEOUT):
            async with Client(guard.connect(), mode="auto", read_timeout_seconds=TIMEOUT, cache=None):
                pass
    except Exception as e:
        print("handshake failed:", type(e).__name__)

anyio.run(go)
"""


def test_the_sdks_own_log_lines_and_their_tracebacks_stay_out_of_the_terminal():
    import subprocess
    import sys

    script = _COMPRESSED_GARBAGE.replace("TIMEOUT", f"{scaled(20):g}")
    root = Path(__file__).resolve().parents[2]
    run = [sys.executable, "-c", script]
    out = subprocess.run(run, capture_output=True, text=True, timeout=scaled(60), cwd=root)
    assert out.stdout.strip() == "handshake failed: ExceptionGroup", (out.stdout, out.stderr)
    assert out.stderr == "", f"the SDK's log reached stderr:\n{out.stderr}"


def test_malformed_notifications_in_an_event_stream_are_dropped_and_counted_and_odd_sizes_removed():
    """Over HTTP as over stdio: a notification no MCP revision accepts is dropped and counted, an
    unknown method noted, and a listed ``size: true`` removed before the SDK's lax model reads 1."""
    bad = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": "half"}}
    odd = {"jsonrpc": "2.0", "method": "notifications/made-up", "params": {"x": [None]}}
    served = {**INITIALIZED, "capabilities": {"resources": {}}}

    def handle(request: httpx2.Request) -> httpx2.Response:
        message = json.loads(request.content) if request.method == "POST" else {}
        if request.method != "POST" or "id" not in message:
            return httpx2.Response(202 if request.method == "POST" else 405)
        if message["method"] == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            return httpx2.Response(200, headers={"content-type": "application/json"}, content=_json(1, error=error))
        if message["method"] == "initialize":
            events = b"".join(b"data: " + json.dumps(n).encode() + b"\n\n" for n in (bad, odd))
            events += b"data: " + _json(message["id"], result=served) + b"\n\n"
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=events)
        listing = {"resources": [{"uri": "a://x", "name": "x", "size": True}, {"uri": "a://y", "name": "y", "size": 3}]}
        body = _json(message["id"], result=listing)
        return httpx2.Response(200, headers={"content-type": "application/json"}, content=body)

    guard = HttpGuard(URL, transport=httpx2.MockTransport(handle))

    async def go() -> list[Any]:
        with anyio.fail_after(scaled(20)):
            async with Client(guard.connect(), mode="auto", read_timeout_seconds=scaled(10), cache=None) as c:
                return [r.size for r in (await c.list_resources()).resources]

    sizes = anyio.run(go)
    assert guard.problem is None, guard.problem
    assert sizes == [None, 3], f"size true must arrive undeclared, not as {sizes[0]!r}"
    assert guard.findings.count == {"malformed-notification": 1, "unknown-notification": 1, "refused-size": 1}, (
        guard.findings.count
    )
    protocol = guard.findings.protocol()
    assert "malformed notifications/progress" in protocol[0], protocol
    assert protocol[1] == (
        "resources/list item 0 ('a://x') declares size true: not a non-negative integer; treated as undeclared"
    ), protocol


# -- the bounds hold on the running total, not on one chunk or one line (issue 39 §4) --------------------------


class _CountedChunks(httpx2.AsyncByteStream):
    """``count`` chunks of ``chunk`` bytes (made as they are read), counting how many were read."""

    def __init__(self, head: bytes, chunk: bytes, count: int) -> None:
        self.head, self.chunk, self.count, self.read = head, chunk, count, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self.read += 1
        yield self.head
        for _ in range(self.count):
            self.read += 1
            yield self.chunk


def test_a_json_body_in_small_chunks_is_refused_once_their_total_passes_the_limit():
    """Each 64 KiB chunk is under the limit; their sum is not: the guard stops at the limit."""
    kib64 = 64 * 1024
    per_limit = MAX_HTTP_BODY_BYTES // kib64
    body = _CountedChunks(b'{"jsonrpc": "2.0", "id": 1, "result": "', b"x" * kib64, 4 * per_limit)

    def initialize(ident: Any) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "application/json"}, stream=body)

    guard = HttpGuard(URL, transport=_server(initialize, []))
    assert isinstance(_handshake(guard), BaseException)
    assert guard.problem == "sent more than 16 MiB in its answer to initialize", guard.problem
    assert body.read <= per_limit + 2, f"{body.read} of {body.count + 1} chunks read: nothing past the limit is"


def test_an_event_of_many_small_data_lines_is_refused_once_they_pass_the_limit():
    """Every data line is 1 MiB; the event's lines together pass the limit before its blank line."""
    mib = 1024 * 1024
    per_limit = MAX_HTTP_BODY_BYTES // mib
    stream = _CountedChunks(b"event: message\n", b"data: " + b"x" * (mib - 7) + b"\n", 3 * per_limit)

    def initialize(ident: Any) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)

    guard = HttpGuard(URL, transport=_server(initialize, []))
    assert isinstance(_handshake(guard), BaseException)
    assert (guard.problem or "").startswith("sent an event over 16 MiB in the event stream answering initialize"), (
        guard.problem
    )
    assert stream.read <= per_limit + 2, f"{stream.read} of {stream.count + 1} chunks read: nothing past the limit is"
