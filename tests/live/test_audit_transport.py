"""``custody-lab audit URL`` (Streamable HTTP) and ``--connect-timeout``: the same report as over stdio,
start-up bounded apart from each exchange, and every failure one sentence with exit 2.

The servers here run as their own processes: ``custody-lab serve --http`` (the lab's server),
``tests/fixtures/bad_http_server.py`` (stdlib HTTP, one misbehaviour per ``--mode``) and
``tests/fixtures/slow_start_server.py`` (sleeps, then becomes a server command). The audit runs
as a ``custody-lab`` process where what reaches the terminal is the point (a traceback printed by
Python's last-resort log handler shows only there), in-process where the report's values are.
"""

from __future__ import annotations

import argparse
import doctest
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from custody_lab.live import audit_transport
from custody_lab.live.audit import AuditError, audit_command
from custody_lab.live.audit_report import format_report
from custody_lab.live.audit_transport import audit_url, check_url, parse_headers
from custody_lab.live.live_commands import configure_audit, run_audit

from ..timing import scaled
from .serving import TOKEN, alive, free_port, serve_http, stop, token_url

ROOT = Path(__file__).resolve().parents[2]
BAD_HTTP = ROOT / "tests" / "fixtures" / "bad_http_server.py"
SLOW_START = ROOT / "tests" / "fixtures" / "slow_start_server.py"
LAB = [sys.executable, "-m", "custody_lab.live.lab_server"]
#: Generous bounds that turn a hang into a failure (a busy 2-core machine starts Python slowly).
START_TIMEOUT = scaled(60)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure_audit(parser)
    return parser.parse_args(list(argv))


def _cli(*argv: str, bound: float = 60.0) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(bound), cwd=ROOT)


@pytest.fixture
def bad_http(tmp_path) -> Iterator:
    """Start the misbehaving HTTP fixture in a mode; yield ``start(mode) -> url``."""
    started: list[subprocess.Popen[bytes]] = []

    def start(mode: str, header_log: Path | None = None) -> str:
        port_file = tmp_path / f"{mode}.port"
        cmd = [sys.executable, str(BAD_HTTP), "--mode", mode, "--port-file", str(port_file)]
        if header_log is not None:
            cmd += ["--header-log", str(header_log)]
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(process)
        deadline = time.monotonic() + START_TIMEOUT
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the {mode} fixture did not start within {START_TIMEOUT} s (exit {process.poll()})")
            time.sleep(0.05)
        return f"http://127.0.0.1:{port_file.read_text()}/mcp"

    yield start
    for process in started:
        stop(process)


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory) -> Iterator[str]:
    """``custody-lab serve --http`` on a free port, as a user would start it, with its token in the URL."""
    log = tmp_path_factory.mktemp("serve") / "receipts.jsonl"
    with serve_http(log) as (url, _):
        yield token_url(url)


# -- refused before anything starts -------------------------------------------------------------


def test_the_docstring_examples_of_the_transport_module_pass():
    result = doctest.testmod(audit_transport, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0, result


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.com/mcp", "the audit connects to an http:// or https:// URL"),
        ("file:///etc/passwd", "the audit connects to an http:// or https:// URL"),
        ("ws://127.0.0.1:8765/mcp", "the audit connects to an http:// or https:// URL"),
        ("http:///mcp", "the URL names no host"),
        ("http://127.0.0.1:99999/mcp", "the port is not a number from 0 to 65535"),
        ("http://127.0.0.1:8765/mcp\x1b[2J", "a URL has no spaces or control characters"),
        ("http://[::1/mcp", "is not a URL"),
    ],
)
def test_a_url_the_audit_cannot_use_is_refused_with_what_is_wrong(url, message):
    with pytest.raises(AuditError) as caught:
        check_url(url)
    assert message in str(caught.value), f"{url!r}: expected {message!r} in {caught.value}"
    assert "\x1b" not in str(caught.value), f"a raw escape reached the message: {caught.value!r}"


def test_credentials_in_the_url_are_refused_and_never_printed():
    with pytest.raises(AuditError) as caught:
        check_url("http://admin:s3cret@127.0.0.1:8765/mcp")
    message = str(caught.value)
    assert "--header 'Authorization: Bearer" in message and "s3cret" not in message, message


@pytest.mark.parametrize("url", ["http://127.0.0.1:8765/mcp", "https://mcp.example.com/v1/mcp?team=red", "HTTP://h/"])
def test_an_http_or_https_url_with_a_host_is_taken_as_it_is(url):
    assert check_url(url) == url


def test_a_url_that_is_not_http_is_refused_by_the_cli_before_any_connection(monkeypatch, capsys):
    made = []
    monkeypatch.setattr(audit_transport, "HttpGuard", lambda *a, **kw: made.append(a))
    code = run_audit(_args("ftp://127.0.0.1:8765/mcp"))
    err = capsys.readouterr().err
    assert (code, made) == (2, []), f"expected exit 2 and no connection; got {code}, {made}"
    assert err.startswith("error: 'ftp://127.0.0.1:8765/mcp': the audit connects to an http://"), err


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["Authorization Bearer x"], "write NAME: VALUE"),
        (["Bad Name: x"], "write NAME: VALUE"),
        (["Content-Type: text/plain"], "the Streamable HTTP transport sets this header itself"),
        (["mcp-session-id: 1"], "the Streamable HTTP transport sets this header itself"),
        (["Mcp-Param-Region: eu"], "the Streamable HTTP transport sets this header itself"),
        (["X-A: 1", "x-a: 2"], "is given twice"),
        (["Authorization: Bearer s3cret\r\nX-Evil: 1"], "the value must be ASCII with no control character"),
        (["Authorization: Bearer s3crét"], "the value must be ASCII with no control character"),
    ],
)
def test_a_header_the_audit_cannot_send_is_refused_and_its_value_never_shown(items, message):
    with pytest.raises(AuditError) as caught:
        parse_headers(items)
    shown = str(caught.value)
    assert message in shown, f"{items}: expected {message!r} in {shown!r}"
    assert "s3cr" not in shown and "2" not in shown.replace("--", ""), f"a header value reached the message: {shown}"


def test_headers_keep_their_names_and_values_trimmed():
    got = parse_headers(["Authorization: Bearer abc", "X-Team:\tred team "])
    assert got == {"Authorization": "Bearer abc", "X-Team": "red team"}, got


def test_options_may_follow_the_url_and_reach_the_url_audit(monkeypatch, capsys):
    seen = {}

    def fake_audit_url(url, **kwargs):
        seen.update(url=url, **kwargs)
        raise AuditError("stop here")

    monkeypatch.setattr(audit_transport, "audit_url", fake_audit_url)
    argv = ["http://127.0.0.1:9/mcp", "--timeout", "3", "--connect-timeout", "7", "--header", "A: b", "--json"]
    code = run_audit(_args(*argv))
    assert code == 2 and capsys.readouterr().err.strip() == "error: stop here"
    got = (seen["url"], seen["timeout"], seen["connect_timeout"], seen["headers"])
    assert got == ("http://127.0.0.1:9/mcp", "3", "7", ("A: b",)), got


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["http://127.0.0.1:9/mcp", "python", "server.py"], "after the URL give only options; got 'python server.py'"),
        (["--", "http://127.0.0.1:9/mcp"], "after -- is taken as a command: write the URL without --"),
        (["--header", "A: b", "--", "python", "server.py"], "--header is for a URL audit (HTTP)"),
        (["--connect-timeout", "0", "--", "python", "server.py"], "--connect-timeout must be a finite number"),
        (["--connect-timeout", "soon", "http://127.0.0.1:9/mcp"], "--connect-timeout must be a number of seconds"),
    ],
)
def test_a_target_the_audit_cannot_use_is_one_sentence_and_exit_2(argv, message, monkeypatch, capsys):
    monkeypatch.setattr(audit_transport, "HttpGuard", lambda *a, **kw: pytest.fail("a connection was made"))
    code = run_audit(_args(*argv))
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, code, err)


def test_the_help_states_both_bounds_and_the_url_form():
    text = argparse.ArgumentParser(prog="custody-lab audit")
    configure_audit(text)
    shown = " ".join(text.format_help().split())
    for needle in (
        "--connect-timeout S",
        "seconds for start-up (default 60)",
        "the whole audit within --connect-timeout + 8 x S",
        "http://127.0.0.1:8765/mcp",
        "--header 'NAME: VALUE'",
    ):
        assert needle in shown, f"{needle!r} missing from the audit's --help:\n{shown}"


# -- the same report over HTTP as over stdio ----------------------------------------------------

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")


def _without_times(value: object) -> object:
    """The report with every retrieval time and freshness deadline (they differ run to run) blanked."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_times(v) for v in value]
    return _TIMESTAMP.sub("<time>", value) if isinstance(value, str) else value


@pytest.mark.slow  # a serve --http process and a stdio server
def test_the_url_audit_reports_what_the_stdio_audit_reports_for_the_same_server(lab_url):
    over_http = audit_url(lab_url, allow_calls=("calculate_risk",), timeout=scaled(10.0))
    over_stdio = audit_command(LAB, allow_calls=("calculate_risk",), timeout=scaled(10.0))
    http, stdio = over_http.to_dict(), over_stdio.to_dict()
    shown = lab_url.replace(TOKEN, "REDACTED")
    assert (http["command"], http["stderr"]) == ((shown,), ()), (http["command"], http["stderr"])
    assert len(http["capabilities"]) >= 9 and any(c["exercised"] for c in http["capabilities"]), http
    for key in ("server", "protocol_version", "capabilities", "notes", "incomplete", "gaps"):
        assert _without_times(http[key]) == _without_times(stdio[key]), f"{key} differs over HTTP and stdio"
    text_http, text_stdio = (_TIMESTAMP.sub("<time>", format_report(r)) for r in (over_http, over_stdio))
    first_http, *rest_http = text_http.splitlines()
    first_stdio, *rest_stdio = text_stdio.splitlines()
    assert rest_http == rest_stdio, "the text reports differ below their first line"
    assert f"url: {shown}" in first_http and "command: " in first_stdio, (first_http, first_stdio)
    assert TOKEN not in text_http and TOKEN not in json.dumps(http), "the serve token is printed"
    assert (http["transport"], stdio["transport"]) == ("streamable-http", "stdio")


@pytest.mark.slow
def test_custody_lab_audit_url_prints_the_report_and_exits_0(lab_url):
    out = _cli(lab_url, "--timeout", f"{scaled(10):g}")
    assert out.returncode == 0, out.stderr
    assert "server: custody-lab-server 1.0.0 · protocol 2026-07-28" in out.stdout, out.stdout[:300]
    assert "resource  kb://handbook/v4" in out.stdout and "Traceback" not in out.stderr, out.stderr


# -- a server at a URL that misbehaves: one sentence, exit 2, no traceback --------------------

#: (fixture mode, what the one-line message must say)
HTTP_MISBEHAVIOURS = [
    ("html", "answered server/discover with HTTP 200 text/html, not application/json or text/event-stream"),
    ("not-found", "answered initialize with HTTP 404 Not Found (text/html); is http://127.0.0.1:"),
    (
        "unauthorized",
        "answered initialize with HTTP 401 Unauthorized (text/plain); the server wants credentials and none were sent: "
        "give them with --header 'Authorization: …'",
    ),
    ("server-error", "answered initialize with HTTP 500 Internal Server Error (text/plain)"),
    ("garbage-json", "sent data that is not a JSON-RPC message in its answer to server/discover: hello, I print"),
    ("garbage-sse", "sent data that is not a JSON-RPC message in the event stream answering server/discover"),
    ("wrong-id", "sent id 999 in its answer to server/discover, whose request has id"),
    ("huge-json", "sent more than 16 MiB in its answer to server/discover"),
    ("notification-flood", "sent more than 1000 notifications (in the event stream answering server/discover)"),
]


@pytest.mark.slow  # an HTTP fixture and a custody-lab process per mode
@pytest.mark.parametrize(("mode", "expected"), HTTP_MISBEHAVIOURS, ids=[m[0] for m in HTTP_MISBEHAVIOURS])
def test_a_misbehaving_http_server_gets_one_sentence_and_exit_2_never_a_traceback(bad_http, mode, expected):
    url = bad_http(mode)
    out = _cli(url, "--timeout", f"{scaled(5):g}")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, f"mode {mode}: expected exit 2, got {out.returncode}\n{out.stderr}"
    assert "Traceback" not in out.stderr + out.stdout, f"mode {mode}: a traceback reached the user:\n{out.stderr}"
    assert len(lines) == 1 and lines[0].startswith(f"error: {url!r}: the server "), f"mode {mode}: {lines}"
    assert expected in lines[0], f"mode {mode}: expected {expected!r} in {lines[0]!r}"


@pytest.mark.slow
def test_a_wrong_token_gets_another_sentence_than_a_missing_one_and_never_shows_the_token(bad_http):
    url = bad_http("unauthorized")
    out = _cli(url, "--header", "Authorization: Bearer wrong-token-1234", "--timeout", f"{scaled(5):g}")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, (out.returncode, out.stderr)
    assert lines[0].endswith(
        "HTTP 401 Unauthorized (text/plain); the server refused the credentials sent (the Authorization header given "
        "with --header): check the token, its scheme ('Bearer …') and that it has not expired"
    ), lines[0]
    assert "wrong-token-1234" not in out.stderr + out.stdout, "the token is printed"


@pytest.mark.slow
def test_a_url_where_nothing_listens_is_one_sentence_naming_the_refusal():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    out = _cli(url)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.strip() == (
        f"error: {url!r}: the server could not be reached at {url[7:-4]} (Connection refused): "
        "is it running, and is that its address?"
    ), out.stderr


@pytest.mark.slow
def test_a_server_that_fails_after_start_up_gets_its_partial_report_and_exit_2(bad_http):
    out = _cli(bad_http("ok-then-garbage"), "--timeout", f"{scaled(5):g}")
    assert out.returncode == 2, out.stderr
    assert "server: bad-http-fixture 0.1 · protocol 2025-11-25" in out.stdout, out.stdout
    assert "INCOMPLETE: the server sent data that is not a JSON-RPC message in its answer to resources/read" in (
        out.stdout
    ), out.stdout
    assert "error: the audit did not finish: the server sent data that is not a JSON-RPC message" in out.stderr


@pytest.mark.slow
def test_a_read_that_never_answers_over_http_is_bounded_by_timeout_and_the_report_is_printed(bad_http):
    out = _cli(bad_http("ok-then-hang"), "--timeout", "2", bound=40.0)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "INCOMPLETE: resources/read 'note://one' got no answer within 2 s" in out.stdout, out.stdout
    assert "error: the audit did not finish: resources/read 'note://one'" in out.stderr, out.stderr


@pytest.mark.slow
def test_a_header_reaches_the_server_and_its_value_is_never_printed(bad_http, tmp_path):
    received = tmp_path / "headers.jsonl"
    url = bad_http("unauthorized", header_log=received)
    out = _cli(url, "--header", "Authorization: Bearer s3cret-token", "--timeout", f"{scaled(5):g}")
    sent = {json.loads(line)["authorization"] for line in received.read_text().splitlines()}
    assert sent == {"Bearer s3cret-token"}, f"the server received Authorization {sent}"
    assert out.returncode == 2 and "s3cret" not in out.stdout + out.stderr, out.stderr


@pytest.mark.slow
def test_a_url_that_never_answers_is_bounded_by_the_connect_timeout_and_names_it(bad_http):
    out = _cli(bad_http("hang"), "--timeout", "1", "--connect-timeout", "2", bound=30.0)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert "the server did not answer server/discover" in line and "within 2 s" in line, line
    assert "if it is only slow to start, raise --connect-timeout" in line, line


# -- start-up has its own bound ---------------------------------------------------------------


def _slow(seconds: float, *command: str, pid_file: Path | None = None) -> list[str]:
    pid = ["--pid-file", str(pid_file)] if pid_file is not None else []
    return [sys.executable, str(SLOW_START), f"{seconds:g}", *pid, "--", *command]


@pytest.mark.slow  # the server sleeps twice the exchange bound before it starts
def test_a_server_slower_to_start_than_an_exchange_may_take_is_audited_on_the_default_start_up_bound():
    # the start-up (2 x --timeout, then the lab server's own import of mcp) fits the default
    # --connect-timeout of 60 s; an audit bounding start-up by --timeout would stop at the handshake
    exchange = scaled(3.0)
    report = audit_command(_slow(2 * exchange, *LAB), timeout=exchange)
    assert report.incomplete == () and report.protocol_version == "2026-07-28", report.incomplete
    assert report.server["name"] == "custody-lab-server" and len(report.capabilities) >= 9, report.server


@pytest.mark.slow
def test_a_server_that_does_not_start_in_time_is_told_to_raise_connect_timeout_and_is_stopped(tmp_path):
    pid_file = tmp_path / "server.pid"
    seconds = f"{scaled(2):g}"
    out = _cli("--timeout", "1", "--connect-timeout", seconds, "--", *_slow(3600, pid_file=pid_file), bound=30.0)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert re.search(rf"the server did not answer server/discover( then initialize)? within {seconds} s", line), line
    assert f"raise --connect-timeout (e.g. --connect-timeout {2 * float(seconds):g})" in line, line
    pid = int(pid_file.read_text())
    assert not alive(pid), f"the server that never started (pid {pid}) was left running"


#: A stdio server of revision 2025-11-25 (stdlib only) that leaves ``server/discover`` unanswered,
#: as some servers leave a method they do not know, and answers everything else.
_SILENT_DISCOVER = """
import json, sys
answers = {
    "initialize": {"protocolVersion": "2025-11-25", "capabilities": {"resources": {}},
                   "serverInfo": {"name": "silent-discover", "version": "1"}},
    "resources/list": {"resources": [{"uri": "note://one", "name": "one", "mimeType": "text/plain"}]},
    "resources/templates/list": {"resourceTemplates": []},
    "tools/list": {"tools": []},
    "resources/read": {"contents": [{"uri": "note://one", "mimeType": "text/plain", "text": "hi"}]},
}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or message["method"] == "server/discover":
        continue
    result = answers.get(message["method"], {})
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


@pytest.mark.slow  # server/discover waits the SDK's 10 s before initialize is asked
def test_a_server_that_leaves_server_discover_unanswered_is_audited_within_the_start_up_bound(tmp_path):
    from mcp.client.session import DISCOVER_TIMEOUT_SECONDS

    script = tmp_path / "silent_discover.py"
    script.write_text(_SILENT_DISCOVER, encoding="utf-8")
    exchange = scaled(2.0)
    start_up = DISCOVER_TIMEOUT_SECONDS + scaled(20.0)
    report = audit_command([sys.executable, str(script)], timeout=exchange, connect_timeout=start_up)
    assert report.protocol_version == "2025-11-25" and report.incomplete == (), report.incomplete
    assert [c.name for c in report.capabilities] == ["note://one"], report.capabilities
