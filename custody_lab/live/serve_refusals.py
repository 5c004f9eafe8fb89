"""The transport end of ``custody-lab serve``'s log: requests the SDK refuses before any handler runs.

SDK 2.3 turns some requests away before its middleware chain, so
:class:`~custody_lab.live.serve_middleware.ServedExchanges` never sees them (``mcp/server/runner.py``
and ``mcp/server/_streamable_http_modern.py``):

- ``-32022`` (unsupported protocol version): ``initialize`` on a 2026-07-28 connection, or an
  envelope naming a revision the server does not serve;
- ``-32600`` (invalid request): a request carrying the 2026-07-28 envelope on a connection that
  opened with the ``initialize`` handshake;
- ``-32020`` (header mismatch, Streamable HTTP only): an ``MCP-Protocol-Version`` (or ``Mcp-Method``,
  ``Mcp-Name``) header that contradicts the request body;
- and any other transport refusal (a missing session id, a malformed envelope).

Each watcher sees the request go in and its answer come out, and asks the middleware whether the
request reached it; when it did not, the refusal gets its line through
:meth:`~custody_lab.live.serve_middleware.ServedExchanges.refused`. So every request gets exactly
one line: the middleware's, or the watcher's.

- :func:`serve_stdio_watched`: serves a lab server over stdio through two relays that read every
  frame (one connection, so a request id names one request until it is answered). Its stdin is
  read in pieces of at most :data:`MAX_STDIO_REQUEST_BYTES` (4 MiB, the SDK's HTTP body limit): a
  longer line is never held whole; it is discarded as it arrives, answered with ``-32600`` (the id
  it opened with, else ``null``) and logged as refused;
- :func:`watched_asgi`: wraps the Streamable HTTP app; each POST carries a marker in its ASGI scope
  that the middleware fills when the request reaches it. It holds at most
  :data:`MAX_HTTP_BODY_BYTES` of a body (the SDK's own limit, which answers a longer one ``413``).
"""

from __future__ import annotations

__all__ = [
    "MAX_HTTP_BODY_BYTES",
    "MAX_STDIO_REQUEST_BYTES",
    "CappedLines",
    "requested_version",
    "serve_stdio_watched",
    "watched_asgi",
]

import json
import re
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PROTOCOL_VERSION_META_KEY,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
)

from .lab_server import LabServer
from .sdk_adapter import lowlevel_server
from .serve_middleware import REACHED_KEY, ServedExchanges

_VERSION_HEADER = b"mcp-protocol-version"

#: The longest request line ``serve`` reads over stdio (bytes, the newline included).
MAX_STDIO_REQUEST_BYTES = 4 * 1024 * 1024
#: The most of an HTTP body the watcher holds; the SDK answers a longer body ``413`` itself.
MAX_HTTP_BODY_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE
#: How much of an oversized line is kept to find its id and method.
_HEAD_BYTES = 4096
_ID = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})\s*[,}]')
_METHOD = re.compile(rb'"method"\s*:\s*"([A-Za-z0-9_./-]{1,64})"')

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_Asgi = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


def requested_version(method: str, params: Mapping[str, Any] | None, header: str | None = None) -> str | None:
    """The protocol revision a request asks for: its envelope's, else ``initialize``'s, else the header's.

    Example:
        >>> requested_version("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
        '2026-07-28'
        >>> requested_version("initialize", {"protocolVersion": "2024-11-05"})
        '2024-11-05'
    """
    params = params or {}
    meta = params.get("_meta")
    if isinstance(meta, Mapping) and isinstance(meta.get(PROTOCOL_VERSION_META_KEY), str):
        return str(meta[PROTOCOL_VERSION_META_KEY])
    if method == "initialize" and isinstance(params.get("protocolVersion"), str):
        return str(params["protocolVersion"])
    return header


class CappedLines:
    """A binary stream's lines as text, none longer than ``limit`` bytes held at once.

    A longer line is read on and dropped piece by piece; in its place the iterator yields ``""``
    (which the SDK's reader turns into a parse exception) and :attr:`oversized` gets
    ``(size, id, method)``: the line's length and the id and method its first bytes show.
    """

    def __init__(self, stream: BinaryIO, limit: int = MAX_STDIO_REQUEST_BYTES) -> None:
        self.stream, self.limit = stream, limit
        self.oversized: deque[tuple[int, Any, str | None]] = deque()

    def __aiter__(self) -> CappedLines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self.stream.readline, self.limit + 1)
        if not line:
            raise StopAsyncIteration
        if len(line) <= self.limit or line.endswith(b"\n"):
            return str(line.decode("utf-8", errors="replace"))
        head, size = line[:_HEAD_BYTES], len(line)
        del line
        while True:
            piece = await anyio.to_thread.run_sync(self.stream.readline, self.limit)
            size += len(piece)
            if not piece or piece.endswith(b"\n"):
                break
        self.oversized.append((size, _head_id(head), _head_method(head)))
        return ""


def _head_id(head: bytes) -> Any:
    found = _ID.match(head)
    if found is None:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return None


def _head_method(head: bytes) -> str | None:
    found = _METHOD.search(head)
    return found.group(1).decode("ascii") if found else None


async def serve_stdio_watched(lab: LabServer, served: ServedExchanges, stdin: BinaryIO | None = None) -> None:
    """Serve ``lab`` over stdio until the client closes, logging refusals the middleware never saw.

    ``stdin`` (the process's standard input when omitted) is read through :class:`CappedLines`.
    """
    from mcp.server.stdio import stdio_server

    server = lowlevel_server(lab.mcp)
    pending: dict[Any, tuple[str, Mapping[str, Any] | None]] = {}
    lines = CappedLines(stdin if stdin is not None else sys.stdin.buffer)
    async with stdio_server(stdin=cast(Any, lines)) as (read, write):
        to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](16)

        async def inbound() -> None:
            async with to_server:
                async for item in read:
                    if isinstance(item, Exception) and lines.oversized:
                        await _too_long(served, write, *lines.oversized.popleft())
                        continue
                    if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
                        pending[item.message.id] = (item.message.method, item.message.params)
                    await to_server.send(item)

        async def outbound() -> None:
            async with from_server, write:  # closing ``write`` lets stdio_server's writer finish
                async for item in from_server:
                    _answered(served, pending, item)
                    await write.send(item)

        async with anyio.create_task_group() as writing:
            writing.start_soon(outbound)  # ends when the server closes its write stream
            async with anyio.create_task_group() as reading:
                reading.start_soon(inbound)
                await server.run(server_reads, server_writes, server.create_initialization_options())
                reading.cancel_scope.cancel()


async def _too_long(served: ServedExchanges, write: Any, size: int, request_id: Any, method: str | None) -> None:
    """Answer and log a request line over :data:`MAX_STDIO_REQUEST_BYTES` (it was never parsed)."""
    message = (
        f"request line of {size} bytes refused: custody-lab serve reads at most {MAX_STDIO_REQUEST_BYTES} over stdio"
    )
    error = ErrorData(code=INVALID_REQUEST, message=message)
    ok_id = (
        request_id
        if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))
        else None
    )
    await write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=ok_id, error=error)))
    served.refused(method or "(unknown)", None, {"code": INVALID_REQUEST, "message": message}, requested_version=None)


def _answered(served: ServedExchanges, pending: dict[Any, tuple[str, Mapping[str, Any] | None]], item: Any) -> None:
    message = getattr(item, "message", None)
    if not isinstance(message, JSONRPCResponse | JSONRPCError) or message.id not in pending:
        return  # a notification, or a request of the server's own (its ids are its own)
    request_id = message.id
    method, params = pending.pop(request_id)
    if request_id in served.reached_ids:
        served.reached_ids.discard(request_id)
    elif isinstance(message, JSONRPCError):
        error = {"code": message.error.code, "message": message.error.message}
        served.refused(method, params, error, requested_version=requested_version(method, params))


def watched_asgi(app: _Asgi, served: ServedExchanges) -> _Asgi:
    """``app`` (the Streamable HTTP app) with a line for each POSTed request no handler answered."""

    async def watched(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        body, replay = await _buffered(receive)
        request = _request_of(body)
        if request is None:  # a notification, a response, or not JSON-RPC at all: not a request
            await app(scope, replay, send)
            return
        reached: list[Any] = []
        scope[REACHED_KEY] = reached
        status: list[int] = []
        answer = bytearray()

        async def recording_send(message: _Message) -> None:
            if message.get("type") == "http.response.start":
                status.append(int(message.get("status", 0)))
            elif message.get("type") == "http.response.body" and len(answer) < 65536:
                answer.extend(message.get("body", b""))
            await send(message)

        await app(scope, replay, recording_send)
        if reached:
            return
        method, params = request
        header = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == _VERSION_HEADER), None)
        served.refused(
            method,
            params,
            _error_of(bytes(answer), status[0] if status else None),
            requested_version=requested_version(method, params, header),
            http_status=status[0] if status else None,
        )

    return watched


async def _buffered(receive: _Receive) -> tuple[bytes, _Receive]:
    """The request body (up to :data:`MAX_HTTP_BODY_BYTES`), and a ``receive`` that hands the app the
    same body, then the client's (so the SDK sees a longer body whole and refuses it)."""
    chunks: list[bytes] = []
    held, more = 0, False
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break  # the client left while sending; the app will see the disconnect
        chunks.append(message.get("body", b""))
        held += len(chunks[-1])
        more = bool(message.get("more_body", False))
        if not more or held > MAX_HTTP_BODY_BYTES:
            break
    body = b"".join(chunks)
    sent = False

    async def replay() -> _Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return body, replay


def _request_of(body: bytes) -> tuple[str, Mapping[str, Any] | None] | None:
    try:
        decoded = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(decoded, dict) or not isinstance(decoded.get("method"), str) or "id" not in decoded:
        return None
    params = decoded.get("params")
    return decoded["method"], params if isinstance(params, Mapping) else None


def _error_of(answer: bytes, status: int | None) -> dict[str, Any]:
    """The JSON-RPC error an HTTP refusal carried (or what the status says, when it carried none)."""
    try:
        decoded = json.loads(answer)
    except (ValueError, RecursionError):
        decoded = None
    error = decoded.get("error") if isinstance(decoded, dict) else None
    if isinstance(error, dict):
        return {"code": error.get("code"), "message": error.get("message")}
    return {"code": None, "message": f"HTTP {status} without a JSON-RPC error" if status else "no answer"}
