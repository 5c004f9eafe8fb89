"""``custody-lab serve --http`` as a child process for the tests, with a known token.

The token goes through ``CUSTODY_LAB_SERVE_TOKEN`` (as a user would keep it off the command line);
clients send it as ``Authorization: Bearer <token>`` (:data:`AUTH`), or in the URL
(:func:`token_url`) when they cannot set headers (the conformance suite's CLI).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from custody_lab.live.serve_http import TOKEN_ENV

from ..timing import scaled

#: The token every test server of this module is started with.
TOKEN = "test-token-for-serve-0123456789"
#: The header that carries it.
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def token_url(url: str) -> str:
    """``url`` with the token as its ``token`` query parameter."""
    return f"{url}{'&' if '?' in url else '?'}token={TOKEN}"


def wait_listening(server: subprocess.Popen, port: int, timeout: float | None = None) -> None:
    deadline = time.monotonic() + (timeout if timeout is not None else scaled(60))
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=scaled(1)).close()
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                err = server.stderr.read().decode() if server.stderr and server.poll() is not None else "(starting)"
                pytest.fail(f"custody-lab serve --http --port {port} did not listen: {err}")
            time.sleep(0.2)


def alive(pid: int, *, within: float = 5.0) -> bool:
    """Whether the process is still running ``within`` seconds from now (a killed process takes a
    moment to die; a zombie waiting to be reaped does not count as running)."""
    status = Path(f"/proc/{pid}/status")
    for _ in range(int(scaled(within) / 0.1)):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        if status.exists() and "\nState:\tZ" in status.read_text():
            return False
        time.sleep(0.1)
    return True


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=scaled(30))
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@contextmanager
def serve_http(
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    stderr: int | None = subprocess.PIPE,
    extra: tuple[str, ...] = (),
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``custody-lab serve --http`` (and ``extra`` arguments) on a free port with :data:`TOKEN`: its URL
    and the process."""
    port = free_port()
    argv = [sys.executable, "-m", "custody_lab.cli", "serve", "--http", "--port", str(port), "--log", str(log)]
    argv += extra
    full_env = {**os.environ, TOKEN_ENV: TOKEN, **(env or {})}
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT, env=full_env)
    try:
        wait_listening(server, port)
        yield f"http://127.0.0.1:{port}/mcp", server
    finally:
        stop(server)
