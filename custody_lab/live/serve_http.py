"""What ``custody-lab serve --http`` lets reach it: only its owner's requests, and only escaped log text.

The token. ``serve --http`` listens on 127.0.0.1, which every user of the machine can reach, so
each run makes a token (:func:`new_token`; ``--token`` or ``CUSTODY_LAB_SERVE_TOKEN`` give one) and
prints it with the URL, as ``custody-lab lab`` and ``custody-lab present`` do. :func:`token_guard`
wraps the Streamable HTTP app: a request is served only when it carries the token as
``Authorization: Bearer <token>`` (the header MCP's authorization specification uses for access
tokens, 2025-06-18 and later, after RFC 6750) or, for a client that cannot set headers, as
``?token=<token>`` in the URL (the lab's convenience, as Jupyter's ``?token=``; for OAuth access
tokens MCP's authorization specification, 2025-06-18 "Token Requirements", rules the query string
out, so prefer the header). The comparison is
constant-time (``hmac.compare_digest``). Without the token the answer is ``401`` with
``WWW-Authenticate: Bearer`` (a wrong token adds ``error="invalid_token"``, RFC 6750 §3.1), and the
request goes no further: it reaches no handler and writes nothing to the receipt log. The token is
the lab's host policy, not MCP's OAuth flow: there is no authorization server, no metadata, no
scopes. The token is removed from the URL before the request goes on, so the access log never
prints it.

The origin. A page a browser loads from another site can send requests to 127.0.0.1 too, and
its ``Origin`` header says where it came from (RFC 6454 §7: the scheme, host and port, nothing
else). MCP's Streamable HTTP transport says servers MUST validate the ``Origin`` header on every
incoming connection (2025-03-26 and later) and, in 2026-07-28 ("Security & Endpoint"), MUST answer
one that is present and invalid with ``403 Forbidden``. The SDK matches an allowed ``http://127.0.0.1:*``
by prefix, so ``http://127.0.0.1:PORT.evil.example`` or ``http://127.0.0.1:PORT@evil.example``
would pass its check; :func:`origin_guard` compares the whole header with the server's own
origins (:func:`own_origins`: 127.0.0.1, localhost and [::1] on the serving port) and answers any
other with ``403`` (and one line on the terminal, made visible). A request with no ``Origin`` (a
client that is not a browser) goes on.

The terminal. The SDK and uvicorn log what clients send (``Invalid Host header: …``, the request
line), and a header value can hold an OSC title-set or raw C1 controls. :func:`escaped_logging`
installs a log-record factory for the run that makes every message, argument and traceback of every
logger :func:`~custody_lab.core.text.visible` before any handler prints it.
"""

from __future__ import annotations

__all__ = ["TOKEN_ENV", "escaped_logging", "new_token", "origin_guard", "own_origins", "token_guard"]

import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode

from ..core.text import visible

#: The environment variable ``serve --http`` takes its token from when ``--token`` is not given
#: (another user can read a command line in ``ps``, not another process's environment).
TOKEN_ENV = "CUSTODY_LAB_SERVE_TOKEN"

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_Asgi = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


def new_token() -> str:
    """A fresh random token (32 random bytes, URL-safe base64): the one way the lab makes a token.

    Example:
        >>> a, b = new_token(), new_token()
        >>> a != b and len(a) >= 40
        True
    """
    return secrets.token_urlsafe(32)


def _offered(scope: _Scope) -> tuple[bytes | None, bytes]:
    """The token a request offers (its Bearer header, else its ``token`` query parameter), and the
    query string without that parameter."""
    query = scope.get("query_string", b"") or b""
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    from_query = [v for k, v in pairs if k == "token"]
    rest = urlencode([(k, v) for k, v in pairs if k != "token"]).encode("latin-1") if from_query else query
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            scheme, _, credentials = value.partition(b" ")
            if scheme.lower() == b"bearer":
                return credentials.strip(), rest
            return b"", rest  # another scheme (Basic, …): a credential, but not the token
    if from_query:
        return from_query[-1].encode("latin-1"), rest
    return None, rest


def token_guard(app: _Asgi, token: str) -> _Asgi:
    """``app`` served only to HTTP requests that carry ``token``; every other one gets ``401``.

    Raises:
        ValueError: ``token`` is empty.
    """
    if not token:
        raise ValueError("an empty token would let anyone in")
    expected = token.encode("utf-8")

    async def guarded(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope.get("type") != "http":  # lifespan: the server's own start and stop
            await app(scope, receive, send)
            return
        offered, rest = _offered(scope)
        if offered is not None and hmac.compare_digest(offered, expected):
            scope["query_string"] = rest  # the token stops here: not in the access log, not passed on
            await app(scope, receive, send)
            return
        await _unauthorized(send, wrong=offered is not None)

    return guarded


async def _unauthorized(send: _Send, *, wrong: bool) -> None:
    challenge = 'Bearer realm="custody-lab serve"' + (', error="invalid_token"' if wrong else "")
    why = "the token is wrong" if wrong else "no token was sent"
    body = json.dumps(
        {
            "error": "invalid_token" if wrong else "unauthorized",
            "error_description": f"{why}: send the token custody-lab serve printed, as 'Authorization: Bearer <token>'",
        }
    ).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"www-authenticate", challenge.encode("ascii")),
        (b"content-length", str(len(body)).encode("ascii")),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def own_origins(port: int) -> frozenset[str]:
    """The ``Origin`` values of pages served by this machine's loopback on ``port`` (RFC 6454's
    serialisation: lower-case scheme and host, the port unless it is the scheme's default).

    Example:
        >>> sorted(own_origins(8765))
        ['http://127.0.0.1:8765', 'http://[::1]:8765', 'http://localhost:8765']
    """
    suffix = "" if port == 80 else f":{port}"
    return frozenset(f"http://{host}{suffix}" for host in ("127.0.0.1", "localhost", "[::1]"))


def origin_guard(app: _Asgi, port: int) -> _Asgi:
    """``app`` served only to HTTP requests without an ``Origin`` header or whose ``Origin`` is
    exactly one of :func:`own_origins` (``port``'s); every other one gets ``403``."""
    allowed = own_origins(port)

    async def same_origin(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope.get("type") == "http":
            origins = [v for k, v in scope.get("headers", ()) if k.lower() == b"origin"]
            if origins and (len(origins) > 1 or origins[0].decode("latin-1").lower() not in allowed):
                await _forbidden_origin(send, origins)
                return
        await app(scope, receive, send)

    return same_origin


async def _forbidden_origin(send: _Send, origins: list[bytes]) -> None:
    shown = visible(", ".join(o.decode("latin-1") for o in origins))
    logging.getLogger(__name__).warning("Refused a request from Origin %s: not one of this server's own", shown)
    body = json.dumps(
        {
            "error": "forbidden_origin",
            "error_description": f"Origin {shown} is not this server's own: a page from another site may not use it",
        }
    ).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii"))]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _arg(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    return visible(value.decode("latin-1") if isinstance(value, bytes) else value)


def _escape_record(record: logging.LogRecord) -> None:
    record.msg = visible(record.msg) if isinstance(record.msg, str) else _arg(record.msg)
    if isinstance(record.args, Mapping):
        record.args = {k: _arg(v) for k, v in record.args.items()}
    elif isinstance(record.args, tuple):
        record.args = tuple(_arg(a) for a in record.args)
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)
        record.exc_text = "\n".join(visible(line) for line in text.splitlines())


@contextmanager
def escaped_logging() -> Iterator[None]:
    """While inside, every log record any logger makes has its message, arguments and traceback
    made :func:`~custody_lab.core.text.visible` (one record stays one line per line it had)."""
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _escape_record(record)
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)
