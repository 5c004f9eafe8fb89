"""The test servers' readiness and stop: any HTTP reply means "up", an exited server is named, a stop reaps by PID."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading

import pytest

from custody_lab.delivery.exposure import DeliveryError, free_port
from custody_lab.delivery.readiness import serve_voila, stop, wait_for_http

from ..timing import scaled


class _Forbidden(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.send_response(403)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_readiness_accepts_any_http_reply_even_403():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Forbidden)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        status = wait_for_http(f"http://127.0.0.1:{server.server_port}/api/status", timeout=scaled(10))
    finally:
        server.shutdown()
    assert status == 403, f"a 403 reply: expected status 403, got {status}"


def test_readiness_reports_a_server_that_exited_before_answering():
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    with pytest.raises(DeliveryError, match=rf"PID {process.pid}\) exited with code 3"):
        wait_for_http(f"http://127.0.0.1:{free_port()}/", timeout=scaled(10), process=process)


def test_readiness_gives_up_after_the_timeout_with_the_last_error():
    timeout = scaled(1)
    with pytest.raises(DeliveryError, match=rf"nothing answered .* within {timeout:.0f} s \(last attempt: \w+"):
        wait_for_http(f"http://127.0.0.1:{free_port()}/", timeout=timeout)


def test_stop_ends_a_running_server_with_sigterm_and_returns_its_exit_code():
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    code = stop(process, timeout=scaled(15))
    assert code == -15, f"a sleeping child stopped by SIGTERM: expected exit code -15, got {code}"
    assert process.poll() == -15, f"PID {process.pid} was not reaped: poll() says {process.poll()}"


def test_stop_kills_a_server_that_ignores_sigterm_once_the_timeout_has_passed():
    ignore = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(600)"
    process = subprocess.Popen([sys.executable, "-c", ignore], stdout=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n", "the child did not start"  # SIGTERM is now ignored
    code = stop(process, timeout=scaled(0.5))
    process.stdout.close()
    assert code == -9, f"a child that ignores SIGTERM: expected SIGKILL (-9), got {code}"


def test_stop_of_a_server_that_already_exited_returns_its_own_exit_code():
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(4)"])
    process.wait()
    assert stop(process) == 4, f"an exited child: expected its exit code 4, got {process.returncode}"


def test_a_presentation_that_exits_before_answering_is_an_error_naming_its_exit_code(tmp_path):
    with open(tmp_path / "voila.log", "wb") as log:
        with pytest.raises(DeliveryError, match=r"exited with code 2 before http://127\.0\.0\.1:\d+/api/status"):
            serve_voila("no-such-notebook.ipynb", cwd=tmp_path, log=log, timeout=scaled(60))
    said = (tmp_path / "voila.log").read_text(errors="replace")
    assert "no notebook at" in said, f"expected present's own message in the log, got {said!r}"
