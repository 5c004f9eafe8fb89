"""``custody-lab serve --http`` serves only its owner (a token per run), and what it logs cannot steer the
terminal; over stdio one request line is bounded (issue 24, §2, §3, §4)."""

from __future__ import annotations

import http.client
import io
import json
import logging
import unicodedata

import pytest

from custody_lab.live import serve_http as sh
from custody_lab.live.serve_log import read_receipt_log
from custody_lab.live.serve_refusals import MAX_STDIO_REQUEST_BYTES, CappedLines

from ..timing import scaled
from .serving import AUTH, TOKEN, serve_http, token_url

_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
_JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


# -- the token, in-process (the ASGI guard alone) -------------------------------------------------------------


def _through(guard, headers: list[tuple[bytes, bytes]], query: bytes = b"") -> tuple[list[dict], list[dict]]:
    """One HTTP request through ``guard(app)``, in front of an app that records what reached it:
    the messages sent back, and the scopes that reached the app."""
    import anyio

    reached: list[dict] = []
    sent: list[dict] = []

    async def app(scope, receive, send) -> None:
        reached.append(dict(scope))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def receive() -> dict:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers, "query_string": query}
    anyio.run(guard(app), scope, receive, send)
    return sent, reached


def _through_guard(headers: list[tuple[bytes, bytes]], query: bytes = b"") -> tuple[int, dict, list[dict]]:
    """One HTTP request through ``token_guard`` in front of an app that records what reached it."""
    sent, reached = _through(lambda app: sh.token_guard(app, TOKEN), headers, query)
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, reached


@pytest.mark.parametrize(
    ("headers", "query", "status", "challenge"),
    [
        ([], b"", 401, 'Bearer realm="custody-lab serve"'),
        (
            [(b"authorization", b"Bearer wrong-token")],
            b"",
            401,
            'Bearer realm="custody-lab serve", error="invalid_token"',
        ),
        ([(b"authorization", b"Basic " + TOKEN.encode())], b"", 401, 'error="invalid_token"'),
        ([(b"authorization", b"Bearer " + TOKEN.encode() + b"x")], b"", 401, 'error="invalid_token"'),
        ([], b"token=nope", 401, 'error="invalid_token"'),
        ([(b"authorization", b"Bearer " + TOKEN.encode())], b"", 200, None),
        ([(b"authorization", b"bearer " + TOKEN.encode())], b"", 200, None),
        ([], b"a=1&token=" + TOKEN.encode(), 200, None),
    ],
    ids=["none", "wrong", "basic", "longer", "wrong-in-url", "bearer", "lowercase-scheme", "in-url"],
)
def test_only_a_request_with_the_token_reaches_the_server(headers, query, status, challenge):
    got, response_headers, reached = _through_guard(headers, query)
    assert got == status, f"{headers} {query}: expected {status}, got {got}"
    if challenge is None:
        assert len(reached) == 1, reached
        assert b"token" not in reached[0]["query_string"], reached[0]["query_string"]  # never passed on or logged
    else:
        assert reached == [], f"a request without the token reached the server: {reached}"
        assert challenge in response_headers["www-authenticate"], response_headers


def test_the_token_is_compared_in_constant_time(monkeypatch):
    seen: list[tuple[bytes, bytes]] = []
    real = sh.hmac.compare_digest

    def recording(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(sh.hmac, "compare_digest", recording)
    _through_guard([(b"authorization", b"Bearer " + TOKEN.encode())])
    assert seen == [(TOKEN.encode(), TOKEN.encode())], seen


def test_an_empty_token_is_refused_before_serving():
    with pytest.raises(ValueError, match="empty token"):
        sh.token_guard(lambda *a: None, "")  # type: ignore[arg-type, return-value]


# -- the token, end to end ------------------------------------------------------------------------------------


def _post(url: str, body: dict, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=scaled(60))
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request("POST", path, body=json.dumps(body).encode(), headers={**_JSON, **headers})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


@pytest.mark.slow
def test_serve_http_answers_401_without_the_token_and_serves_with_it_and_logs_only_what_it_served(tmp_path):
    log = tmp_path / "log.jsonl"
    with serve_http(log) as (url, _):
        none = _post(url, _INIT, {})
        wrong = _post(url, _INIT, {"Authorization": "Bearer not-the-token-at-all"})
        right = _post(url, _INIT, AUTH)
        in_url = _post(token_url(url), {**_INIT, "id": 2}, {})
    assert (none[0], wrong[0]) == (401, 401), (none, wrong)
    assert none[1]["www-authenticate"].startswith("Bearer"), none[1]
    assert 'error="invalid_token"' in wrong[1]["www-authenticate"], wrong[1]
    assert TOKEN.encode() not in none[2] + wrong[2], "a refusal told the caller the token"
    assert (right[0], in_url[0]) == (200, 200), (right, in_url)
    assert b'"protocolVersion":"2025-11-25"' in right[2].replace(b" ", b""), right[2][:300]
    logged = [(e["method"], e.get("refused", False)) for e in read_receipt_log(log)]
    assert logged == [("initialize", False), ("initialize", False)], f"only the two served requests: {logged}"


@pytest.mark.slow
def test_serve_http_closes_a_request_whose_body_never_arrives_and_still_serves_the_token_holder(tmp_path):
    # the request: Content-Length 1000, then one byte; it was still open after 65 s
    import socket
    from urllib.parse import urlsplit

    from custody_lab.live.http_arrival import REQUEST_ARRIVAL_SECONDS

    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    log = tmp_path / "log.jsonl"
    with serve_http(log) as (url, _):
        port = urlsplit(url).port
        wait = scaled(REQUEST_ARRIVAL_SECONDS + 20)
        answers = []
        with (
            socket.create_connection(("127.0.0.1", port), timeout=wait) as anonymous,
            socket.create_connection(("127.0.0.1", port), timeout=wait) as holder,
        ):
            anonymous.sendall(head + b"\r\n{")  # refused at once (no token), then its body never ends
            holder.sendall(head + auth + b"\r\n{")  # let in, then its body never ends
            for conn in (anonymous, holder):
                answer = b""
                while chunk := conn.recv(65536):  # ends when the server closes; a timeout fails the test
                    answer += chunk
                answers.append(answer)
        right = _post(url, _INIT, AUTH)
    assert answers[0].startswith(b"HTTP/1.1 401 Unauthorized\r\n"), answers[0]
    assert answers[1].startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answers[1]
    assert right[0] == 200, right
    logged = [e["method"] for e in read_receipt_log(log)]
    assert logged == ["initialize"], f"only the whole request is served and logged: {logged}"


def test_serve_prints_the_url_with_how_to_send_the_token(tmp_path, monkeypatch, capsys):
    from custody_lab.cli import main
    from custody_lab.live import serve_command

    async def no_serve(*args) -> None:
        return None

    monkeypatch.setattr(serve_command, "serve", no_serve)
    monkeypatch.delenv(sh.TOKEN_ENV, raising=False)
    assert main(["serve", "--http", "--port", "8799", "--log", str(tmp_path / "l.jsonl")]) == 0
    first = capsys.readouterr().err
    assert main(["serve", "--http", "--port", "8799", "--log", str(tmp_path / "l.jsonl")]) == 0
    second = capsys.readouterr().err
    tokens = [e.split("Authorization: Bearer ", 1)[1].split("'", 1)[0] for e in (first, second)]
    assert tokens[0] != tokens[1] and len(tokens[0]) >= 40, f"expected a new token each run, got {tokens}"
    assert "http://127.0.0.1:8799/mcp" in first and "2025-06-18" in first, first


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--token", "short"], "--token: a token is at least 16"),
        (["--token", "has a space in it, sixteen+"], "without spaces"),
    ],
)
def test_a_weak_token_is_refused(tmp_path, argv, said, capsys):
    from custody_lab.cli import main

    code = main(["serve", "--http", *argv, "--log", str(tmp_path / "l.jsonl")])
    err = capsys.readouterr().err
    assert code != 0 and said in err and "Traceback" not in err, (code, err)


def test_a_token_without_http_is_refused(tmp_path, capsys):
    from custody_lab.cli import main

    code = main(["serve", "--token", TOKEN, "--log", str(tmp_path / "l.jsonl")])
    assert code != 0 and "--token needs --http" in capsys.readouterr().err


# -- the terminal: what the SDK and uvicorn log is made visible -----------------------------------------------


def test_every_log_record_is_made_visible_while_serving():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("custody_lab.test.escaped")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with sh.escaped_logging():
            logger.warning("Invalid Host header: %s", "\x1b]0;pwn\x07")
            logger.warning("Invalid Origin header: \x9b31m\x85 %d", 3)
            try:
                raise ValueError("\x1b[2J")
            except ValueError:
                logger.exception("failed with %r", "\x07")
        logger.warning("after: %s", "\x1b")  # the factory is gone again
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue().splitlines()
    assert out[0] == "Invalid Host header: \\x1b]0;pwn\\x07", out[0]
    assert out[1] == "Invalid Origin header: \\x9b31m\\x85 3", out[1]
    assert "\\x1b[2J" in stream.getvalue() and "\x1b[2J" not in stream.getvalue(), stream.getvalue()
    assert out[-1] == "after: \x1b", out[-1]


@pytest.mark.slow
def test_hostile_host_and_origin_headers_reach_serves_terminal_only_made_visible(tmp_path):
    log = tmp_path / "log.jsonl"
    with serve_http(log) as (url, server):
        port = int(url.split(":")[2].split("/")[0])
        for host, origin in (("\x1b]0;pwn\x07", None), (f"127.0.0.1:{port}", "http://\x9b31m\x85evil\x07")):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=scaled(60))
            conn.putrequest("POST", "/mcp", skip_host=True)
            conn.putheader("Host", host)
            if origin:
                conn.putheader("Origin", origin)
            for k, v in {**_JSON, **AUTH}.items():
                conn.putheader(k, v)
            body = json.dumps(_INIT).encode()
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            status = conn.getresponse().status
            conn.close()
            assert status in (403, 421), f"Host {host!r} Origin {origin!r}: expected a refusal, got {status}"
        server.terminate()
        err = server.communicate(timeout=scaled(30))[1].decode("utf-8", "replace")
    assert "\\x1b]0;pwn\\x07" in err and "\\x9b31m\\x85evil\\x07" in err, err
    raw = [hex(ord(c)) for c in err if unicodedata.category(c) == "Cc" and c != "\n"]
    assert raw == [], f"raw control characters reached the terminal: {raw}\n{err!r}"


# -- stdio: one request line is bounded -----------------------------------------------------------------------


def test_a_request_line_over_the_stdio_limit_is_dropped_as_it_arrives_and_named():
    import anyio

    huge = b'{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"x":"' + b"a" * 5000 + b'"}}\n'
    lines = CappedLines(io.BytesIO(huge + b'{"jsonrpc":"2.0","id":42,"method":"ping"}\n'), limit=1000)

    async def read_all() -> list[str]:
        return [line async for line in lines]

    got = anyio.run(read_all)
    assert got == ["", '{"jsonrpc":"2.0","id":42,"method":"ping"}\n'], got
    assert list(lines.oversized) == [(len(huge), 41, "tools/call")], lines.oversized
    assert MAX_STDIO_REQUEST_BYTES == 4 * 1024 * 1024


@pytest.mark.slow
def test_a_50_mb_stdio_request_is_refused_in_bounded_memory_and_the_next_request_is_answered(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "log.jsonl"
    huge = {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "kb://" + "a" * 50_000_000}}
    frames = [
        _INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        huge,
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    code = (
        "import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], stdin=sys.stdin, "
        "capture_output=True); sys.stdout.buffer.write(p.stdout); sys.stderr.buffer.write(p.stderr); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, sys.executable, "-m", "custody_lab.cli", "serve", "--log", str(log)],
        input=("".join(json.dumps(f) + "\n" for f in frames)).encode(),
        capture_output=True,
        timeout=scaled(120),
    )
    peak_kib = int(out.stderr.decode().strip().splitlines()[-1])
    answers = {m["id"]: m for m in map(json.loads, out.stdout.decode().splitlines()) if "id" in m}
    assert answers[2]["error"]["code"] == -32600 and "4194304" in answers[2]["error"]["message"], answers[2]
    assert "result" in answers[3], answers[3]
    # generous: serve alone peaks near 150 MB here; holding and parsing the 50 MB line cost 500-833 MB
    assert peak_kib < 300 * 1024, f"serve peaked at {peak_kib // 1024} MB for one 50 MB request"
    assert log.stat().st_size < 8 * 1024, f"the log grew {log.stat().st_size} bytes"
    refused = [e for e in read_receipt_log(log) if e.get("refused")]
    assert [(e["method"], e["error"]["code"]) for e in refused] == [("resources/read", -32600)], refused


@pytest.mark.slow
def test_a_3_mb_http_request_adds_at_most_a_bounded_line_to_the_log(tmp_path):
    """Over HTTP each request used to add about six times its size to the log."""
    from custody_lab.live.serve_log import MAX_LINE_BYTES

    log = tmp_path / "log.jsonl"
    with serve_http(log) as (url, _):
        status, headers, _ = _post(url, _INIT, AUTH)
        session = {"Mcp-Session-Id": headers["mcp-session-id"]} if "mcp-session-id" in headers else {}
        _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {**AUTH, **session})
        before = log.stat().st_size
        call = {"name": "calculate_risk", "arguments": {"note": "n" * 3_000_000}}
        status, _, body = _post(
            url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, {**AUTH, **session}
        )
        read = {"uri": "crm://customer/" + "7" * 3_000_000}
        _post(url, {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": read}, {**AUTH, **session})
    grew = log.stat().st_size - before
    assert status == 200, (status, body[:300])
    methods = [e["method"] for e in read_receipt_log(log)]
    assert methods.count("tools/call") == 1 and methods.count("resources/read") == 1, methods
    assert grew <= 2 * (MAX_LINE_BYTES + 1), f"two 3 MB requests added {grew} bytes to the log"


# -- the Origin: compared whole, not by prefix (issue 39 §1) ----------------------------------------------------

_PORT = 8765


def _through_origin_guard(origins: list[str]) -> tuple[int, bytes, list[dict]]:
    """One HTTP request through ``origin_guard`` (port :data:`_PORT`) with these Origin headers."""
    headers = [(b"origin", o.encode("latin-1")) for o in origins]
    sent, reached = _through(lambda app: sh.origin_guard(app, _PORT), headers)
    return sent[0]["status"], sent[1]["body"], reached


@pytest.mark.parametrize(
    "origin",
    [
        f"http://127.0.0.1:{_PORT}.evil.example",
        f"http://127.0.0.1:{_PORT}@evil.example",
        f"http://127.0.0.1:{_PORT}/../evil",
        "http://[::1]:1",
        f"http://localhost.evil.example:{_PORT}",
        f"https://127.0.0.1:{_PORT}",
        f"http://127.0.0.1:{_PORT + 1}",
        "http://127.0.0.1",
        "null",
        f"http://127.0.0.1:{_PORT}\x1b]0;pwn\x07",
    ],
)
def test_an_origin_that_only_starts_like_the_servers_own_is_refused_with_403(origin):
    status, body, reached = _through_origin_guard([origin])
    assert status == 403 and reached == [], (origin, status)
    said = json.loads(body)["error_description"]
    assert "\x1b" not in said and "\x07" not in said, said


@pytest.mark.parametrize("origin", [f"http://127.0.0.1:{_PORT}", f"http://LOCALHOST:{_PORT}", f"http://[::1]:{_PORT}"])
def test_the_servers_own_origins_and_no_origin_at_all_go_on(origin):
    assert _through_origin_guard([origin])[0] == 200
    assert _through_origin_guard([])[0] == 200


def test_two_origin_headers_are_refused_even_when_one_is_the_servers_own():
    status, _, reached = _through_origin_guard([f"http://127.0.0.1:{_PORT}", "http://evil.example"])
    assert status == 403 and reached == []


@pytest.mark.slow
def test_serve_refuses_a_prefix_origin_with_the_token_and_serves_its_own(tmp_path):
    with serve_http(tmp_path / "log.jsonl") as (url, _server):
        port = int(url.split(":")[2].split("/")[0])
        statuses = {}
        for origin in (f"http://127.0.0.1:{port}.evil.example", f"http://127.0.0.1:{port}"):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=scaled(60))
            body = json.dumps(_INIT).encode()
            conn.request("POST", "/mcp", body=body, headers={**_JSON, **AUTH, "Origin": origin})
            statuses[origin] = conn.getresponse().status
            conn.close()
    assert statuses == {f"http://127.0.0.1:{port}.evil.example": 403, f"http://127.0.0.1:{port}": 200}, statuses
