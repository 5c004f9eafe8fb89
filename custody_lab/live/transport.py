"""The frame-recording transport: in-memory streams that keep every JSON-RPC message, and a cache
store that says when it served an answer.

``mcp.Client`` can talk to an in-process ``MCPServer`` directly, but then no frame is visible; with
``LabSession(frames=True)`` the session serves the server over memory streams wrapped by the taps
below, so each message that crosses is recorded as a :class:`Frame`.
"""

from __future__ import annotations

__all__ = ["Frame", "RecordingCacheStore", "lowlevel_server", "tapped_transport"]

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal, Self

import anyio
from mcp.client.caching import CacheEntry, CacheKey, InMemoryResponseCacheStore
from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.mcpserver import MCPServer
from mcp.shared.memory import create_client_server_memory_streams

from . import sdk_adapter
from .live_errors import LiveError
from .live_receipts import utc_now


@dataclass(frozen=True)
class Frame:
    """One JSON-RPC message as it crossed the wire, seen from the client.

    Attributes:
        direction: which way it went.
        message: the message as JSON.
        at: when it crossed, as an RFC 3339 UTC timestamp (the receipt's format; ``""`` if unknown).
    """

    direction: Literal["client→server", "server→client"]
    message: dict[str, Any]
    at: str = ""

    def summary(self) -> str:
        """One line: arrow, id, method (or result/error)."""
        m = self.message
        arrow = "→" if self.direction == "client→server" else "←"
        ident = f"#{m['id']} " if "id" in m else ""
        if "method" in m:
            params = m.get("params") or {}
            hint = params.get("uri") or params.get("name") or ""
            return f"{arrow} {ident}{m['method']} {hint}".rstrip()
        if "error" in m:
            return f"{arrow} {ident}error {m['error'].get('code')}: {m['error'].get('message')}"
        return f"{arrow} {ident}result ({', '.join(sorted((m.get('result') or {}).keys()))})"


class RecordingCacheStore(InMemoryResponseCacheStore):
    """The SDK's in-memory response cache, counting the fresh entries it serves.

    ``Client`` does not say whether an answer came from its cache; this store does, so a receipt
    can record it (seed 000: "the application can make staleness visible").
    """

    def __init__(self) -> None:
        super().__init__()
        self._hits: dict[tuple[str, str], int] = {}

    async def get(self, key: CacheKey) -> CacheEntry | None:
        entry = await super().get(key)
        if entry is not None and entry.expires_at is not None and entry.expires_at > time.time():
            k = (key.method, key.params_key)
            self._hits[k] = self._hits.get(k, 0) + 1
        return entry

    def take_hit(self, method: str, params_key: str) -> bool:
        """Whether a fresh entry was served for this key since the last call (and reset)."""
        return self._hits.pop((method, params_key), 0) > 0


def _dump(message: Any) -> dict[str, Any]:
    inner = getattr(message, "message", message)
    if hasattr(inner, "model_dump"):
        return inner.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {"note": repr(inner)}


class _Tap:
    """One end of a memory stream that appends every message it carries to ``frames``."""

    def __init__(self, stream: Any, frames: list[Frame]) -> None:
        self._s, self._frames = stream, frames

    async def aclose(self) -> None:
        await self._s.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._s.aclose()


class _TapRead(_Tap):
    async def receive(self) -> Any:
        item = await self._s.receive()
        if not isinstance(item, Exception):
            self._frames.append(Frame("server→client", _dump(item), utc_now()))
        return item

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None


class _TapWrite(_Tap):
    async def send(self, item: Any) -> None:
        self._frames.append(Frame("client→server", _dump(item), utc_now()))
        await self._s.send(item)


@asynccontextmanager
async def tapped_transport(server: LowLevelServer[Any], frames: list[Frame]) -> AsyncIterator[Any]:
    """Serve ``server`` over in-memory streams and record every message that crosses them."""
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        done = anyio.Event()

        async def serve() -> None:
            try:
                await server.run(server_streams[0], server_streams[1], server.create_initialization_options())
            finally:
                done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            try:
                yield _TapRead(client_streams[0], frames), _TapWrite(client_streams[1], frames)
            finally:
                await client_streams[1].aclose()
                with anyio.move_on_after(2.0):
                    await done.wait()
                tg.cancel_scope.cancel()


def lowlevel_server(server: Any) -> LowLevelServer[Any]:
    """The low-level server behind ``server`` (a lab server, an ``MCPServer`` or a low-level one).

    Raises:
        LiveError: when ``server`` is none of these, so it cannot be served in-process.
    """
    mcp_server = getattr(server, "mcp", server)
    if isinstance(mcp_server, MCPServer):
        return sdk_adapter.lowlevel_server(mcp_server)
    if isinstance(mcp_server, LowLevelServer):
        return mcp_server
    raise LiveError(f"cannot serve {type(server).__name__} in-process: expected an MCPServer")
