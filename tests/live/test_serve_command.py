"""``custody-lab serve``'s command: stdio by default, HTTP on 127.0.0.1 only, and the ports it refuses."""

from __future__ import annotations

import argparse
import socket

import pytest

from custody_lab.cli import main
from custody_lab.live import serve_command
from custody_lab.live.live_errors import LiveError
from custody_lab.live.serve_command import DEFAULT_PORT, HTTP_PATH, configure, run


def _recording(calls):
    async def serve(lab, served, port, token=None):
        calls.append(port)

    return serve


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(list(argv))


def test_serve_defaults_to_stdio_with_no_port_and_the_default_log():
    args = _args()
    assert (args.http, args.port, args.log) == (False, None, None), vars(args)
    assert DEFAULT_PORT == 8765, f"the documented HTTP port is 8765, got {DEFAULT_PORT}"


def test_a_port_without_http_is_refused_before_anything_is_served(monkeypatch, tmp_path):
    served = []
    monkeypatch.setattr(serve_command, "serve", _recording(served))
    with pytest.raises(LiveError, match="--port needs --http"):
        run(_args("--port", "8000", "--log", str(tmp_path / "log.jsonl")))
    assert served == [], f"expected nothing served, got {served}"


def test_ctrl_c_ends_the_http_server_with_exit_0(monkeypatch, tmp_path):
    async def interrupted(lab, served, port, token=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(serve_command, "serve", interrupted)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = run(_args("--http", "--port", str(port), "--log", str(tmp_path / "log.jsonl")))
    assert code == 0, f"Ctrl-C on the HTTP server: expected exit 0, got {code}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "8000"], "--port needs --http"),
        (["serve", "--http", "--port", "0"], "--port 0: a TCP port"),
        (["serve", "--http", "--port", "70000"], "--port 70000: a TCP port"),
    ],
)
def test_serve_refuses_a_port_it_cannot_use_with_exit_2(argv, message, capsys, tmp_path):
    code = main([*argv, "--log", str(tmp_path / "log.jsonl")])
    err = capsys.readouterr().err
    assert (code, message in err) == (2, True), f"{argv}: expected exit 2 and {message!r}, got {code} and {err!r}"


def test_serve_refuses_a_port_already_in_use_and_names_it(capsys, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--http", "--port", str(port), "--log", str(tmp_path / "log.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and f"127.0.0.1:{port} cannot be used" in err, (port, code, err)


def test_serve_accepts_a_port_whose_last_connection_is_in_time_wait_so_a_restart_works():
    """A client served and closed by the server leaves 127.0.0.1:PORT in TIME_WAIT for a minute;
    uvicorn binds it with SO_REUSEADDR, so the port check must not refuse it."""
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn's listener has it
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            served, _ = listener.accept()
            served.close()  # the server side closes first: its end goes to TIME_WAIT
            client.recv(1)
    serve_command._check_port(port)  # raises LiveError("... cannot be used") when it is refused


def test_serve_http_listens_on_127_0_0_1_only_and_stdio_by_default(monkeypatch, tmp_path, capsys):
    calls = []
    monkeypatch.setattr(serve_command, "serve", _recording(calls))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "log.jsonl"
    assert main(["serve", "--log", str(log)]) == 0
    assert main(["serve", "--http", "--port", str(port), "--log", str(log)]) == 0
    want = [None, port]  # None: stdio
    assert calls == want, f"expected {want}, got {calls}"
    err = capsys.readouterr().err
    assert str(log) in err and f"http://127.0.0.1:{port}{HTTP_PATH}" in err and HTTP_PATH == "/mcp", err


def test_serve_http_binds_127_0_0_1_and_wraps_the_sdks_app_in_the_token_guard_the_origin_guard_then_the_watcher(
    monkeypatch, tmp_path
):
    import anyio
    import uvicorn

    from custody_lab.live.http_arrival import MAX_WAITING_CONNECTIONS, REQUEST_ARRIVAL_SECONDS
    from custody_lab.live.lab_server import LabServer
    from custody_lab.live.serve_log import ReceiptLog
    from custody_lab.live.serve_middleware import ServedExchanges

    seen = []

    async def serve(self, sockets=None):
        app, http = self.config.app, self.config.http
        # the guard's closure holds the watcher: no request reaches the watcher (or the log) without the token
        inner = [c.cell_contents for c in app.__closure__ if callable(c.cell_contents)]
        innermost = [c.cell_contents.__name__ for c in inner[0].__closure__ if callable(c.cell_contents)]
        bounds = (http.seconds, http.max_waiting)
        seen.append((self.config.host, self.config.port, app.__name__, [f.__name__ for f in inner], innermost, bounds))

    monkeypatch.setattr(uvicorn.Server, "serve", serve)
    lab = LabServer()
    anyio.run(serve_command.serve, lab, ServedExchanges(lab, ReceiptLog(tmp_path / "log.jsonl")), 8123, "t" * 20)
    # the token first, then the Origin, then the watcher that logs; each connection under the arrival bounds
    bounds = (REQUEST_ARRIVAL_SECONDS, MAX_WAITING_CONNECTIONS)
    assert seen == [("127.0.0.1", 8123, "guarded", ["same_origin"], ["watched"], bounds)], seen


def test_serve_without_log_uses_the_private_default_folder_and_prints_where(monkeypatch, tmp_path, capsys):
    import os
    import stat

    calls = []
    monkeypatch.setattr(serve_command, "serve", _recording(calls))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert main(["serve"]) == 0 and calls == [None], calls
    log = tmp_path / "state" / "custody-lab" / "serve-receipts.jsonl"
    assert f"appended to {log}" in capsys.readouterr().err
    modes = (stat.S_IMODE(os.stat(log.parent).st_mode), stat.S_IMODE(os.stat(log).st_mode))
    assert modes == (0o700, 0o600), [oct(m) for m in modes]


def test_serve_refuses_a_default_folder_others_can_open_with_exit_2(monkeypatch, tmp_path, capsys):
    calls = []
    monkeypatch.setattr(serve_command, "serve", _recording(calls))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    (tmp_path / "custody-lab").mkdir(mode=0o777)
    (tmp_path / "custody-lab").chmod(0o777)
    code = main(["serve"])
    err = capsys.readouterr().err
    assert (code, calls) == (2, []) and "open to other users (mode 0777)" in err and "Traceback" not in err, err


@pytest.mark.slow
def test_a_client_that_goes_away_gets_one_quiet_line_and_exit_0(tmp_path):
    """``… | custody-lab serve | head -c 10``: the reader closes stdout while the server writes
    (issue 39 §1: four tracebacks and exit 1 before)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from ..timing import scaled

    root = Path(__file__).resolve().parents[2]
    argv = [sys.executable, "-m", "custody_lab.cli", "serve", "--log", str(tmp_path / "log.jsonl")]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root)
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    server.stdin.write((json.dumps(init) + "\n").encode())
    server.stdin.flush()
    assert server.stdout.read(10) == b'{"jsonrpc"'
    server.stdout.close()  # the reader goes away, as `head -c 10` does
    for n in range(2, 40):  # answers keep coming: the next write finds the pipe closed
        try:
            server.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping"}) + "\n").encode())
            server.stdin.flush()
        except BrokenPipeError:
            break
    try:
        server.stdin.close()
    except BrokenPipeError:
        pass
    code = server.wait(timeout=scaled(60))
    err = server.stderr.read().decode("utf-8", "replace")
    assert code == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert err.count("the client closed its end of stdout") == 1, err
