"""``custody-lab serve``: the lab's server for any MCP client, logging a receipt for each exchange.

Any client can connect (MCP Inspector's web UI or its ``--cli`` mode, an IDE):

    custody-lab serve                       # stdio: the client starts this command
    custody-lab serve --http --port 8765    # Streamable HTTP on http://127.0.0.1:8765/mcp only, with a token

Over HTTP only a request carrying the run's token is served (:mod:`~custody_lab.live.serve_http`:
``Authorization: Bearer <token>``, printed with the URL); everything the SDK and uvicorn log is
made visible before it reaches the terminal. Over stdio the client that started the command is
the only one on its pipes, and one request line is at most
:data:`~custody_lab.live.serve_refusals.MAX_STDIO_REQUEST_BYTES`.

Every request the server answers is appended to the receipt log (:mod:`~custody_lab.live.serve_log`,
in a private folder of the user's unless ``--log`` says otherwise; the path is printed on stderr,
stdout is the stdio transport's) by :class:`~custody_lab.live.serve_middleware.ServedExchanges`,
which builds each receipt with the same builder as the lab's own client
(:mod:`~custody_lab.live.live_receipts`); a request the SDK refuses before any handler runs gets its
line from the transport watchers of :mod:`~custody_lab.live.serve_refusals`, so every request has
exactly one line.

This module imports nothing heavy (``mcp`` loads when ``run`` serves), so the CLI stays light.
"""

from __future__ import annotations

__all__ = ["DEFAULT_PORT", "HTTP_PATH", "configure", "run", "serve"]

import argparse
import os
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.text import visible
from .live_errors import LiveError
from .serve_http import TOKEN_ENV, escaped_logging, new_token
from .serve_log import ReceiptLog, default_log_path

if TYPE_CHECKING:
    from .lab_server import LabServer
    from .serve_middleware import ServedExchanges

#: The HTTP port when ``--http`` is given without ``--port``.
DEFAULT_PORT = 8765
#: The Streamable HTTP endpoint's path (the SDK's default).
HTTP_PATH = "/mcp"


def configure(p: argparse.ArgumentParser) -> None:
    """The ``serve`` subcommand's arguments."""
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP on 127.0.0.1 instead of stdio")
    p.add_argument("--port", type=int, default=None, help=f"the HTTP port (with --http; default {DEFAULT_PORT})")
    p.add_argument("--log", default=None, help=f"the JSON-lines receipt log (default {default_log_path()})")
    p.add_argument(
        "--flows",
        action="store_true",
        help="also serve what flows the other way (MCP 2026-07-28): input-required reads and calls, "
        "elicitation, a task, an icon and a ui:// page",
    )
    p.add_argument(
        "--token",
        default=None,
        help=f"with --http: the token clients must send (default: ${TOKEN_ENV}, else a new one each run; "
        "other users can see a command line, so prefer the variable)",
    )


def _check_port(port: int) -> None:
    if not 1 <= port <= 65535:
        raise LiveError(f"--port {port}: a TCP port is a whole number from 1 to 65535")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # as uvicorn binds: a port whose last connection is in TIME_WAIT is free (a restart is not refused)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as e:
            raise LiveError(f"--port {port}: 127.0.0.1:{port} cannot be used ({e.strerror})") from e


def run(args: argparse.Namespace) -> int:
    """Serve the lab server until the client (stdio) or Ctrl-C (HTTP) ends it; returns 0."""
    if args.port is not None and not args.http:
        raise LiveError("--port needs --http (stdio has no port)")
    token = _token(args)
    port = DEFAULT_PORT if args.port is None else args.port
    if args.http:
        _check_port(port)
    from .lab_server import LabServer
    from .serve_middleware import ServedExchanges

    given = args.log is not None
    log = ReceiptLog(args.log if given else default_log_path(), private=not given)
    lab = LabServer(flows=getattr(args, "flows", False))
    served = ServedExchanges(lab, log)
    lab.observe(served)
    print(f"custody-lab serve: each exchange is appended to {visible(str(log.path))}", file=sys.stderr)
    if args.http:
        url = f"http://127.0.0.1:{port}{HTTP_PATH}"
        print(
            f"custody-lab serve: connect a client to {url} with the header 'Authorization: Bearer {token}' "
            f"(MCP's authorization spec, 2025-06-18 and later, sends tokens that way); a client that cannot "
            f"set headers may use {url}?token={token} (Ctrl-C stops)",
            file=sys.stderr,
            flush=True,
        )
    import anyio

    try:
        with escaped_logging():
            anyio.run(serve, lab, served, port if args.http else None, token)
    except KeyboardInterrupt:
        pass
    except BaseException as e:
        if not _only_broken_pipes(e):
            raise
        # the client went away (`custody-lab serve | head -c 10`): one line, and nothing more to stdout
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        print("custody-lab serve: the client closed its end of stdout; stopped", file=sys.stderr)
    return 0


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in _leaves(e)]
    return [error]


def _only_broken_pipes(error: BaseException) -> bool:
    """Whether ``error`` is a :class:`BrokenPipeError`, or a group of them and of the closed streams
    a broken pipe leaves behind (anyio's ``BrokenResourceError``, ``ClosedResourceError``).

    Example:
        >>> _only_broken_pipes(BaseExceptionGroup("x", [BrokenPipeError(), ExceptionGroup("y", [BrokenPipeError()])]))
        True
        >>> _only_broken_pipes(ExceptionGroup("x", [BrokenPipeError(), ValueError()]))
        False
    """
    import anyio

    leaves = _leaves(error)
    after = (BrokenPipeError, anyio.BrokenResourceError, anyio.ClosedResourceError)
    return any(isinstance(e, BrokenPipeError) for e in leaves) and all(isinstance(e, after) for e in leaves)


def _token(args: argparse.Namespace) -> str | None:
    """The HTTP token: ``--token``, else ``$CUSTODY_LAB_SERVE_TOKEN``, else a new one (stdio has none)."""
    if not args.http:
        if args.token is not None:
            raise LiveError("--token needs --http (over stdio only the client that started serve is connected)")
        return None
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV)
    if token is None:
        return new_token()
    where = "--token" if args.token is not None else f"${TOKEN_ENV}"
    if len(token) < 16 or not token.isascii() or not token.isprintable() or " " in token:
        raise LiveError(f"{where}: a token is at least 16 printable ASCII characters without spaces")
    return token


async def serve(lab: LabServer, served: ServedExchanges, port: int | None, token: str | None = None) -> None:
    """Serve ``lab`` over stdio (``port`` is ``None``) or Streamable HTTP on ``127.0.0.1:port``.

    Either way the transport is watched (:mod:`~custody_lab.live.serve_refusals`), so a request the
    SDK refuses before any handler runs is logged too. Over HTTP every request must carry ``token``
    (:func:`~custody_lab.live.serve_http.token_guard`; a new one when ``None``) and come from no page
    but one of the server's own origins (:func:`~custody_lab.live.serve_http.origin_guard`) before
    it is watched, and arrive whole within
    :data:`~custody_lab.live.http_arrival.REQUEST_ARRIVAL_SECONDS` (with at most
    :data:`~custody_lab.live.http_arrival.MAX_WAITING_CONNECTIONS` waiting; :mod:`~custody_lab.live.http_arrival`).
    """
    from .serve_http import origin_guard, token_guard
    from .serve_refusals import serve_stdio_watched, watched_asgi

    if port is None:
        await serve_stdio_watched(lab, served)
        return
    from .http_arrival import serve_http_app

    guard = token or new_token()

    def wrap(app: Any) -> Callable[..., Any]:
        return token_guard(origin_guard(watched_asgi(app, served=served), port), guard)

    await serve_http_app(lab.mcp, wrap, host="127.0.0.1", port=port, path=HTTP_PATH)
