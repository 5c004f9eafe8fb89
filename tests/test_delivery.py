"""Workshop delivery: `custody-lab lab`, `custody-lab present`, and the server helpers."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from custody_lab import cli, delivery
from custody_lab.delivery import DeliveryError

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("as_root", "extra", "expect_allow_root"),
    [(True, [], True), (False, [], False), (True, ["--allow-root"], True)],
)
def test_lab_adds_allow_root_only_when_running_as_root_and_only_once(as_root, extra, expect_allow_root):
    argv = delivery.lab_argv(port=8899, no_browser=True, python="py", extra=extra, as_root=as_root)
    assert argv.count("--allow-root") == int(expect_allow_root), f"as_root={as_root} extra={extra}: {argv}"
    assert argv[:5] == ["py", "-m", "jupyter", "lab", delivery.LAB_START], argv
    assert "--no-browser" in argv and "--port=8899" in argv, argv


def test_lab_opens_the_start_notebook_which_exists():
    assert (ROOT / delivery.LAB_START).is_file(), f"{delivery.LAB_START} is missing"
    argv = delivery.lab_argv(root=ROOT, as_root=False)
    assert delivery.LAB_START in argv and f"--ServerApp.root_dir={ROOT}" in argv, argv
    assert "--no-browser" not in argv, f"without --no-browser the lab opens a browser tab: {argv}"


def test_present_binds_to_localhost_strips_code_and_never_moves_port_silently():
    argv = delivery.present_argv("notebooks/01-x.ipynb", port=8866, python="py")
    for flag in (
        "--Voila.ip=127.0.0.1",
        "--strip_sources=True",
        "--show_tracebacks=False",
        "--Voila.port_retries=0",
        "--port=8866",
    ):
        assert flag in argv, f"missing {flag}: {argv}"
    assert "--no-browser" not in argv
    assert "--Voila.ip=0.0.0.0" in delivery.present_argv("n.ipynb", ip="0.0.0.0")


def test_the_command_line_has_lab_present_and_solutions():
    parser = cli.build_parser()
    args = parser.parse_args(["present", "notebooks/01.ipynb", "--port", "9000", "--no-browser", "--theme", "dark"])
    assert (args.notebook, args.port, args.no_browser, args.ip, args.theme) == (
        "notebooks/01.ipynb",
        9000,
        True,
        "127.0.0.1",
        "dark",
    ), vars(args)
    args = parser.parse_args(["lab", "--no-browser", "--port", "8899", "--", "--IdentityProvider.token=x"])
    assert (args.no_browser, args.port, args.jupyter_args) == (True, 8899, ["--IdentityProvider.token=x"]), vars(args)
    assert parser.parse_args(["solutions"]).prefix is None


@pytest.mark.parametrize(
    ("path", "message"),
    [("notebooks/no-such-notebook.ipynb", "no notebook at"), ("README.md", "is not a notebook")],
)
def test_present_refuses_a_missing_or_non_notebook_path_with_a_clear_message(path, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["present", path]) == 2
    err = capsys.readouterr().err
    assert message in err and path.split("/")[-1] in err, f"{path}: stderr was {err!r}"


def test_quiet_lab_settings_turn_off_news_update_checks_and_autosave(tmp_path):
    delivery.write_lab_settings(tmp_path)
    news = json.loads(
        (tmp_path / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").read_text()
    )
    assert news == {"fetchNews": "false", "checkForUpdates": False}, news
    docs = json.loads((tmp_path / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings").read_text())
    assert docs == {"autosave": False}, docs


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
        status = delivery.wait_for_http(f"http://127.0.0.1:{server.server_port}/api/status", timeout=10)
    finally:
        server.shutdown()
    assert status == 403


def test_readiness_reports_a_server_that_exited_before_answering():
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    with pytest.raises(DeliveryError, match=r"exited with code 3"):
        delivery.wait_for_http(f"http://127.0.0.1:{delivery.free_port()}/", timeout=10, process=process)


def test_readiness_gives_up_after_the_timeout_with_the_last_error():
    with pytest.raises(DeliveryError, match=r"nothing answered .* within 1 s"):
        delivery.wait_for_http(f"http://127.0.0.1:{delivery.free_port()}/", timeout=1)


# -- the real servers ------------------------------------------------------------------------------


@pytest.mark.slow
def test_custody_lab_lab_serves_the_start_notebook_and_stops_by_pid(tmp_path):
    port, token = delivery.free_port(), "custody-lab-test-token"
    argv = [
        sys.executable,
        "-m",
        "custody_lab",
        "lab",
        "--no-browser",
        "--port",
        str(port),
        "--",
        f"--IdentityProvider.token={token}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
    ]
    env = {"JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    with open(tmp_path / "lab.log", "wb") as log:
        process = subprocess.Popen(
            argv,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
        )
        try:
            delivery.wait_for_http(f"http://127.0.0.1:{port}/api/status", timeout=120, process=process)
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/contents/{delivery.LAB_START}?content=0",
                headers={"Authorization": f"token {token}"},
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                model = json.loads(response.read())
        finally:
            code = delivery.stop(process)
    assert model["path"] == delivery.LAB_START and model["type"] == "notebook", model
    assert code is not None, f"PID {process.pid} still running"
    log_text = (tmp_path / "lab.log").read_text(errors="replace")
    assert "-m jupyter lab notebooks/00-start-here.ipynb" in log_text, log_text[:500]


@pytest.mark.slow
def test_present_serves_the_start_notebook_as_an_app_without_its_code(tmp_path):
    env = {
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "MPLBACKEND": "Agg",
    }
    with open(tmp_path / "voila.log", "wb") as log:
        process, url = delivery.serve_voila(delivery.LAB_START, env=env, log=log)
        try:
            assert url.startswith("http://127.0.0.1:"), url
            with urllib.request.urlopen(url, timeout=300) as response:  # Voila runs the notebook to answer
                page = response.read().decode("utf-8", errors="replace")
        finally:
            code = delivery.stop(process)
    assert code is not None, f"PID {process.pid} still running"
    assert "Start here" in page, "the presented page lacks the notebook's title"
    assert "import custody_lab as cl" not in page, "Voila showed the notebook's code"
    assert "listed-resource" in page, "the presented page lacks the notebook's outputs"
