"""How long a request to ``custody-lab serve --http`` may take to arrive, and how many may wait.

uvicorn, which serves the SDK's Streamable HTTP app, times out neither a request whose headers
trickle in nor one whose body does: a client that sends ``Content-Length: 1000`` and one byte, or
a header line a byte at a time, holds its connection for as long as it likes, and a few hundred
such clients hold a few hundred connections, all before any token is checked (the token guard
sees a request only once its headers are complete). The SDK's runner builds uvicorn's
configuration itself and offers no hook for this, so the lab runs uvicorn itself
(:func:`serve_http_app`) with the SDK's own app (``MCPServer.streamable_http_app``, a public
method) and its own connection protocol (:func:`arrival_protocol`, uvicorn's h11 protocol with two
bounds, each the lab's host policy):

- a request must arrive whole, headers and body, within :data:`REQUEST_ARRIVAL_SECONDS` of the
  connection opening, or of the previous response on a kept-alive connection; one that has not
  gets ``408 Request Timeout`` (when it had begun) and the connection is closed. A request that
  has arrived is the app's: a long answer (an event stream) is never cut by this bound;
- at most :data:`MAX_WAITING_CONNECTIONS` connections may be waiting for their request at once;
  a connection past that gets ``503 Service Unavailable`` at once and is closed.

Nothing a waiting client sends is logged or printed: it has not shown the token yet.
"""

from __future__ import annotations

__all__ = ["MAX_WAITING_CONNECTIONS", "REQUEST_ARRIVAL_SECONDS", "arrival_protocol", "serve_http_app"]

import asyncio
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a request may take to arrive whole (headers and body), from the connection opening or
#: the previous response on the same connection; a request on loopback arrives in milliseconds.
REQUEST_ARRIVAL_SECONDS = 10.0
#: Connections that may wait for their request at once (each at most REQUEST_ARRIVAL_SECONDS).
MAX_WAITING_CONNECTIONS = 64

#: The client's states in which its request has arrived whole (h11's names).
_ARRIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED)


def _answer(status: int, reason: str, text: str) -> bytes:
    body = text.encode("ascii")
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


def arrival_protocol(
    seconds: float = REQUEST_ARRIVAL_SECONDS, max_waiting: int = MAX_WAITING_CONNECTIONS
) -> type[H11Protocol]:
    """uvicorn's h11 connection protocol with the two bounds above (``uvicorn.Config(http=...)``).

    Each call makes a new class with its own count of waiting connections (one per server).

    Example:
        >>> protocol = arrival_protocol(5.0, 8)
        >>> (protocol.seconds, protocol.max_waiting, issubclass(protocol, H11Protocol))
        (5.0, 8, True)

    Raises:
        ValueError: ``seconds`` is not above 0, or ``max_waiting`` is below 1.
    """
    if not seconds > 0 or max_waiting < 1:
        raise ValueError(f"a request needs time above 0 and room for one connection; got {seconds!r}, {max_waiting!r}")
    waiting: set[H11Protocol] = set()

    class _Arrival(H11Protocol):
        """One connection: its request must arrive within ``seconds``; ``max_waiting`` may wait."""

        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(waiting) >= max_waiting:
                text = f"more than {max_waiting} connections are waiting for their request; try again"
                transport.write(_answer(503, "Service Unavailable", text))
                transport.close()
                return
            self._watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop()
            super().connection_lost(exc)

        def _watch(self) -> None:
            """Stop the clock once the request has arrived; start it when one is awaited and it is not running."""
            if self.conn.their_state in _ARRIVED:
                self._stop()
            elif self._timer is None and not self.transport.is_closing():
                self._timer = self.loop.call_later(seconds, self._too_slow)
                waiting.add(self)

        def _stop(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            waiting.discard(self)

        def _too_slow(self) -> None:
            self._timer = None
            waiting.discard(self)
            if self.transport.is_closing():
                return
            begun = self.conn.their_state is h11.SEND_BODY or bool(self.conn.trailing_data[0])
            answered = self.cycle is not None and self.cycle.response_started
            if begun and not answered:  # nothing answered yet: say why it ends
                text = f"the request did not arrive whole within {seconds:g} s"
                self.transport.write(_answer(408, "Request Timeout", text))
            self.transport.close()

    _Arrival.seconds = seconds  # type: ignore[attr-defined]
    _Arrival.max_waiting = max_waiting  # type: ignore[attr-defined]
    return _Arrival


async def serve_http_app(
    server: Any,
    wrap: Callable[[Any], Any],
    *,
    host: str,
    port: int,
    path: str,
    seconds: float = REQUEST_ARRIVAL_SECONDS,
    max_waiting: int = MAX_WAITING_CONNECTIONS,
) -> None:
    """Serve ``server``'s Streamable HTTP app (an ``MCPServer``'s, passed through ``wrap``) with
    uvicorn on ``host:port``, each connection under :func:`arrival_protocol`'s bounds."""
    import uvicorn

    app = wrap(server.streamable_http_app(streamable_http_path=path, host=host))
    level = str(server.settings.log_level).lower()
    config = uvicorn.Config(app, host=host, port=port, log_level=level, http=arrival_protocol(seconds, max_waiting))
    await uvicorn.Server(config).serve()
