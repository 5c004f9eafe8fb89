"""What `lab` and `present` print: no warning a learner cannot act on (issue 38 §1).

The kernels they start talk over IPC (no "Kernel is running over TCP without encryption" for each
kernel), JupyterLab starts without notebook_shim (whose start reads ``ServerApp.token`` and makes
jupyter_server warn that it is deprecated, though nothing set it), and the one warning the lab
cannot silence, Voila's "Notebook … is not trusted", is explained in one line before it appears.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import uuid
from pathlib import Path

import pytest

from custody_lab import cli, delivery
from custody_lab.delivery import lab, launch, present
from custody_lab.delivery.launch import IPC_PATH_LIMIT, ipc_kernel_flags

from ..timing import scaled

ROOT = Path(__file__).resolve().parents[2]
IPC = "--KernelManager.transport=ipc"
NOISE = ("without encryption", "ServerApp.token config is deprecated")
posix_only = pytest.mark.skipif(os.name == "nt", reason="Windows has no IPC transport: its kernels use TCP")


def _argv(monkeypatch, tmp_path, command: list[str], runtime: str | None = None) -> list[str]:
    """The command line ``custody-lab COMMAND`` would exec (its kernels' runtime folder: ``runtime``)."""
    calls: list[list[str]] = []
    monkeypatch.setattr(launch, "exec_server", lambda argv, cwd, env=None: calls.append(argv) or 0)
    monkeypatch.setattr(lab, "LAB_SETTINGS_DIR", tmp_path / "settings")
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", runtime or str(tmp_path))
    monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
    monkeypatch.chdir(ROOT)
    assert cli.main([*command, "--no-browser", "--port", str(delivery.free_port())]) == 0
    assert len(calls) == 1, calls
    return calls[0]


@posix_only
def test_ipc_is_used_only_where_the_kernels_socket_paths_fit():
    short = "/tmp/r"
    assert ipc_kernel_flags(short) == [IPC]
    fits = "/" + "r" * (IPC_PATH_LIMIT - len("/kernel-") - 36 - len("-ipc-5") - 1)
    assert ipc_kernel_flags(fits) == [IPC] and ipc_kernel_flags(fits + "r") == [], len(fits)
    for theirs in ("--KernelManager.transport=tcp", "--KernelManager.ip=127.0.0.1"):
        assert ipc_kernel_flags(short, [theirs]) == [], theirs


@posix_only
def test_lab_starts_its_kernels_over_ipc_and_jupyterlab_without_notebook_shim(monkeypatch):
    with tempfile.TemporaryDirectory(prefix="cl-", dir="/tmp") as short:
        argv = _argv(monkeypatch, Path(short), ["lab"])
        assert IPC in argv and lab.NO_NOTEBOOK_SHIM in argv, argv
        long_dir = short + "/" + "r" * 80
        argv = _argv(monkeypatch, Path(short), ["lab"], runtime=long_dir)
        assert IPC not in argv, f"a runtime folder too long for a socket path must keep TCP: {argv}"


@pytest.mark.parametrize(
    "theirs",
    [
        "--NotebookApp.ip=127.0.0.1",  # a classic flag of theirs needs the shim that reads it
        "--ServerApp.jpserver_extensions=notebook_shim=True",
    ],
)
def test_lab_keeps_notebook_shim_for_a_user_who_configures_through_it(monkeypatch, tmp_path, theirs):
    calls: list[list[str]] = []
    monkeypatch.setattr(launch, "exec_server", lambda argv, cwd, env=None: calls.append(argv) or 0)
    monkeypatch.setattr(lab, "LAB_SETTINGS_DIR", tmp_path / "settings")
    monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
    assert cli.main(["lab", "--no-browser", "--port", str(delivery.free_port()), "--", theirs]) == 0
    assert lab.NO_NOTEBOOK_SHIM not in calls[0] and theirs in calls[0], calls[0]


@posix_only
def test_present_starts_its_kernels_over_ipc_and_explains_the_trust_warning(monkeypatch, capsys, tmp_path):
    argv = _argv(monkeypatch, tmp_path, ["present", "notebooks/01-route-a-custody-case.ipynb"])
    out = capsys.readouterr().out
    assert IPC in argv, argv
    assert present.NOT_TRUSTED_NOTE in out and out.count("\n") >= 3, out


def _execute(port: int, token: str, code: str) -> str:
    """Start a kernel through the server's REST API and run ``code`` in it over the websocket."""
    import asyncio

    from tornado.websocket import websocket_connect

    headers = {"Authorization": f"token {token}"}
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/kernels", data=b"{}", headers=headers)
    with urllib.request.urlopen(request, timeout=scaled(60)) as response:
        kernel = json.loads(response.read())["id"]

    async def run() -> str:
        ws = await websocket_connect(f"ws://127.0.0.1:{port}/api/kernels/{kernel}/channels?token={token}")
        header = {"msg_id": uuid.uuid4().hex, "msg_type": "execute_request", "session": uuid.uuid4().hex}
        content = {"code": code, "silent": False}
        message = {"header": {**header, "username": "", "version": "5.3"}, "parent_header": {}, "metadata": {}}
        await ws.write_message(json.dumps({**message, "content": content, "channel": "shell"}))
        printed = ""
        while True:
            reply = json.loads(await asyncio.wait_for(ws.read_message(), scaled(60)))  # type: ignore[arg-type]
            if reply["msg_type"] == "stream":
                printed += reply["content"]["text"]
            if reply["msg_type"] == "execute_reply":
                return printed

    return asyncio.run(run())


@posix_only
@pytest.mark.slow
def test_a_kernel_of_custody_lab_lab_runs_over_ipc_and_the_terminal_shows_neither_warning(tmp_path):
    port, token = delivery.free_port(), uuid.uuid4().hex
    with tempfile.TemporaryDirectory(prefix="cl-", dir="/tmp") as runtime:
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
            "JUPYTER_RUNTIME_DIR": runtime,
            "CUSTODY_LAB_SETTINGS": str(tmp_path / "lab-settings"),
            "JUPYTER_TOKEN": token,
        }
        argv = [sys.executable, "-m", "custody_lab", "lab", "--no-browser", "--port", str(port)]
        argv += ["--", "--ServerApp.ip=127.0.0.1", f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}"]
        with open(tmp_path / "lab.log", "wb") as log:
            process = subprocess.Popen(
                argv, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
            )
            try:
                delivery.wait_for_http(f"http://127.0.0.1:{port}/api/status", timeout=scaled(120), process=process)
                printed = _execute(port, token, "print(6 * 7)")
                sockets = sorted(p.name for p in Path(runtime).glob("kernel-*-ipc-*"))
            finally:
                delivery.stop(process)
    log_text = (tmp_path / "lab.log").read_text(errors="replace")
    assert printed.strip() == "42", f"the kernel did not answer over IPC: {printed!r}\n{log_text[-1500:]}"
    assert len(sockets) == 5, f"expected the kernel's five IPC sockets in the runtime folder: {sockets}"
    heard = [line for line in log_text.splitlines() if any(n in line for n in NOISE)]
    assert not heard and "Kernel started" in log_text, heard or log_text[-1500:]
