"""A request to ``serve --http`` must arrive whole within a bound, and only so many may wait (issue 39 §1).

Each test runs uvicorn in a thread with :func:`~custody_lab.live.http_arrival.arrival_protocol`
and a small ASGI app, and talks to it over a raw socket, so a request can trickle in as a hostile
client sends it. The bound is short here (:data:`ARRIVAL` seconds); every wait of the test itself
goes through ``scaled()``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn

from custody_lab.live.http_arrival import (
    MAX_WAITING_CONNECTIONS,
    REQUEST_ARRIVAL_SECONDS,
    arrival_protocol,
)

from ..timing import scaled

#: The arrival bound of these tests' servers, in seconds.
ARRIVAL = 0.5


async def _app(scope, receive, send):
    """Reads the whole body, then answers its length; ``/slow`` answers in ten parts over 3 x ARRIVAL."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    said = f"got {len(body)} bytes".encode()
    if scope["path"] != "/slow":
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(said)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": said})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    for i in range(10):
        await send({"type": "http.response.body", "body": f"part {i}\n".encode(), "more_body": True})
        await asyncio.sleep(3 * ARRIVAL / 10)
    await send({"type": "http.response.body", "body": said})


@contextmanager
def serving(max_waiting: int = MAX_WAITING_CONNECTIONS) -> Iterator[int]:
    """A uvicorn server with the arrival protocol on a free loopback port; yields the port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(_app, log_level="warning", http=arrival_protocol(ARRIVAL, max_waiting), lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + scaled(20)
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the test server did not start"
        time.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(scaled(20))
        sock.close()


def connect(port: int) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=scaled(10))
    return conn


def read_all(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes (a test fails if it never does, within scaled(10) s)."""
    out = b""
    while chunk := conn.recv(65536):
        out += chunk
    return out


REQUEST = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def test_the_stated_bounds_are_ten_seconds_and_sixty_four_waiting_connections():
    assert (REQUEST_ARRIVAL_SECONDS, MAX_WAITING_CONNECTIONS) == (10.0, 64), (
        REQUEST_ARRIVAL_SECONDS,
        MAX_WAITING_CONNECTIONS,
    )


def test_headers_that_trickle_in_get_408_and_the_connection_is_closed():
    with serving() as port, connect(port) as conn:
        conn.sendall(REQUEST)  # the headers never end
        began = time.monotonic()
        answer = read_all(conn)
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer
        assert b"did not arrive whole within 0.5 s" in answer, answer
        assert time.monotonic() - began >= ARRIVAL * 0.9, "closed before the bound"


def test_a_body_shorter_than_its_content_length_gets_408_and_the_connection_is_closed():
    with serving() as port, connect(port) as conn:
        conn.sendall(REQUEST + b"Content-Length: 1000\r\n\r\n{")  # the request: 1 byte of 1,000
        answer = read_all(conn)
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_a_body_sent_a_byte_at_a_time_does_not_restart_the_clock():
    with serving() as port, connect(port) as conn:
        conn.sendall(REQUEST + b"Content-Length: 1000\r\n\r\n")
        began = time.monotonic()
        try:
            for _ in range(1000):  # one byte each ARRIVAL / 5: 200 s in all, were the clock restarted
                conn.sendall(b"x")
                time.sleep(ARRIVAL / 5)
        except OSError:
            pass  # the server closed it
        assert time.monotonic() - began < scaled(10), "the trickling connection was never closed"
        assert read_all(conn).startswith(b"HTTP/1.1 408"), "expected 408 before the close"


def test_a_connection_that_sends_nothing_is_closed_without_an_answer():
    with serving() as port, connect(port) as conn:
        assert read_all(conn) == b"", "a connection that began no request gets no answer, only the close"


def test_a_whole_request_is_answered_and_a_long_answer_is_not_cut_by_the_bound():
    with serving() as port, connect(port) as conn:
        conn.sendall(b"POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        answer = read_all(conn)  # the answer takes 3 x the bound: it was the app's once the request arrived
        assert answer.startswith(b"HTTP/1.1 200 OK\r\n"), answer
        assert b"part 9" in answer and b"got 5 bytes" in answer, answer[-200:]


def test_a_kept_alive_connection_may_send_its_next_request_in_time():
    with serving() as port, connect(port) as conn:
        conn.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi")
        first = b""
        while not first.endswith(b"got 2 bytes") and (chunk := conn.recv(65536)):
            first += chunk
        assert first.startswith(b"HTTP/1.1 200 OK\r\n") and first.endswith(b"got 2 bytes"), first
        conn.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
        assert read_all(conn).endswith(b"got 3 bytes")


def test_past_the_waiting_bound_a_connection_gets_503_at_once_and_room_comes_back():
    with serving(max_waiting=3) as port:
        silent = [connect(port) for _ in range(3)]
        for conn in silent:
            conn.sendall(b"POST")  # each has begun its request, and waits
        time.sleep(ARRIVAL / 5)  # the three are accepted before the fourth
        with connect(port) as fourth:
            answer = read_all(fourth)
        assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
        assert b"more than 3 connections are waiting" in answer, answer
        for conn in silent:
            assert read_all(conn).startswith(b"HTTP/1.1 408"), "each waiting connection ends at the bound"
            conn.close()
        with connect(port) as later:
            later.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            assert read_all(later).startswith(b"HTTP/1.1 200 OK\r\n"), "the room the closed ones left is given back"


@pytest.mark.parametrize(("seconds", "waiting"), [(0, 4), (-1.0, 4), (float("nan"), 4), (1.0, 0)])
def test_a_bound_that_lets_nothing_arrive_is_refused(seconds, waiting):
    with pytest.raises(ValueError, match="a request needs time above 0"):
        arrival_protocol(seconds, waiting)
