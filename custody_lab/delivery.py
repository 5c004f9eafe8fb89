"""Workshop delivery: open the lab in JupyterLab, or present one notebook as a Voila app.

    custody-lab lab [--no-browser] [--port N] [-- JUPYTER-ARGS…]
        JupyterLab on notebooks/00-start-here.ipynb (adds --allow-root when run as root)
    custody-lab present NOTEBOOK [--no-browser] [--port N] [--ip 127.0.0.1] [--theme dark]
        the notebook as a Voila app for a projector: outputs and widgets, no code cells

Both commands only *build* a command line (:func:`lab_argv`, :func:`present_argv`) and then
replace the current process with it, so the server's PID is the command's PID and Ctrl+C stops it.
:func:`serve_lab` and :func:`serve_voila` start the same servers as child processes on a free
port of 127.0.0.1 and return ``(process, url)``; :func:`stop` ends one by its PID. The tests use
them to drive the lab in a real browser.

Nothing here decides anything about custody: it is plumbing around the lab, so it imports no
widget or chart library (Voila and JupyterLab run in their own processes).
"""

from __future__ import annotations

__all__ = [
    "LAB_START",
    "QUIET_LAB_SETTINGS",
    "DeliveryError",
    "free_port",
    "lab_argv",
    "present_argv",
    "serve_lab",
    "serve_voila",
    "stop",
    "wait_for_http",
    "write_lab_settings",
]

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from .core.errors import CustodyLabError
from .core.paths import REPO_ROOT

#: The notebook ``custody-lab lab`` opens (relative to the repository root).
LAB_START = "notebooks/00-start-here.ipynb"

#: JupyterLab user settings for an unattended or projected session: no "news" question, no update
#: check (both would put a toast over the notebook and reach for the network), no autosave (a
#: browser session must not write outputs into committed notebooks).
QUIET_LAB_SETTINGS: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
}


class DeliveryError(CustodyLabError, ValueError):
    """A server could not be started or did not answer; the message says which and why."""


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it).

    Example:
        >>> 1024 <= free_port() <= 65535
        True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def lab_argv(
    *,
    notebook: str = LAB_START,
    root: str | os.PathLike[str] | None = None,
    port: int | None = None,
    no_browser: bool = False,
    ip: str | None = None,
    python: str | os.PathLike[str] | None = None,
    extra: Sequence[str] = (),
    as_root: bool | None = None,
) -> list[str]:
    """The ``jupyter lab`` command line that opens ``notebook``.

    Args:
        notebook: the notebook to open, relative to ``root``.
        root: the server's root directory (its file browser starts there). Without it JupyterLab
            roots itself at the notebook's own folder.
        port: the port (JupyterLab's default, 8888 or the next free one, when ``None``).
        no_browser: do not open a browser tab.
        ip: the address to bind (JupyterLab's default, ``localhost``, when ``None``).
        python: the interpreter whose JupyterLab runs (this one by default).
        extra: further JupyterLab flags, passed unchanged.
        as_root: add ``--allow-root`` (JupyterLab refuses to run as root without it); by default
            when this process runs as root.

    Example:
        >>> lab_argv(port=8899, no_browser=True, python="py", as_root=False)
        ['py', '-m', 'jupyter', 'lab', 'notebooks/00-start-here.ipynb', '--no-browser', '--port=8899']
    """
    argv = [str(python or sys.executable), "-m", "jupyter", "lab", notebook]
    if root is not None:
        argv.append(f"--ServerApp.root_dir={root}")
    if no_browser:
        argv.append("--no-browser")
    if port is not None:
        argv.append(f"--port={int(port)}")
    if ip is not None:
        argv.append(f"--ip={ip}")
    argv += list(extra)
    if (_is_root() if as_root is None else as_root) and "--allow-root" not in argv:
        argv.append("--allow-root")
    return argv


def present_argv(
    notebook: str | os.PathLike[str],
    *,
    port: int | None = None,
    no_browser: bool = False,
    ip: str = "127.0.0.1",
    python: str | os.PathLike[str] | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The ``voila`` command line that serves one notebook as an app (outputs only, no code).

    Voila strips code cells by default (``strip_sources``); this keeps it so, hides tracebacks
    from the audience, and never moves to another port silently: a busy port is an error.

    Example:
        >>> present_argv("notebooks/01-x.ipynb", port=8866, no_browser=True, python="py")[:4]
        ['py', '-m', 'voila', 'notebooks/01-x.ipynb']
    """
    argv = [
        str(python or sys.executable),
        "-m",
        "voila",
        str(notebook),
        f"--Voila.ip={ip}",
        "--strip_sources=True",
        "--show_tracebacks=False",
        "--Voila.port_retries=0",
    ]
    if port is not None:
        argv.append(f"--port={int(port)}")
    if no_browser:
        argv.append("--no-browser")
    argv += list(extra)
    return argv


def write_lab_settings(
    directory: str | os.PathLike[str], settings: Mapping[str, Mapping[str, object]] = QUIET_LAB_SETTINGS
) -> Path:
    """Write JupyterLab user settings (``plugin-id: {key: value}``) into a settings directory.

    Pass the directory to JupyterLab as ``--LabApp.user_settings_dir``.

    Example:
        >>> import tempfile
        >>> d = write_lab_settings(tempfile.mkdtemp())
        >>> sorted(p.name for p in d.rglob("*.jupyterlab-settings"))
        ['notification.jupyterlab-settings', 'plugin.jupyterlab-settings']
    """
    root = Path(directory)
    for plugin_id, values in settings.items():
        package, _, plugin = plugin_id.partition(":")
        path = root.joinpath(*package.split("/"), f"{plugin}.jupyterlab-settings")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(values), indent=2) + "\n", encoding="utf-8")
    return root


def wait_for_http(
    url: str,
    *,
    timeout: float = 90.0,
    process: subprocess.Popen[bytes] | None = None,
    headers: Mapping[str, str] | None = None,
) -> int:
    """Wait until ``url`` answers with *any* HTTP status and return that status.

    Any reply counts as "up": Voila answers ``/api/status`` with 403 in single-notebook mode, and a
    login page is a reply too. Connection errors are retried until ``timeout``.

    Raises:
        DeliveryError: the process exited first, or nothing answered within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    last: str = "no attempt"
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise DeliveryError(
                f"the server (PID {process.pid}) exited with code {process.returncode} before {url} answered"
            )
        request = urllib.request.Request(url, headers=dict(headers or {}))
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as e:  # an HTTP reply, whatever its status
            return int(e.code)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
            last = f"{type(e).__name__}: {e}"
        time.sleep(0.25)
    raise DeliveryError(f"nothing answered at {url} within {timeout:.0f} s (last attempt: {last})")


def _start(
    argv: list[str], *, cwd: Path, env: Mapping[str, str] | None, log: IO[bytes] | None
) -> subprocess.Popen[bytes]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=log if log is not None else subprocess.DEVNULL,
        stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
    )


def serve_lab(
    root: str | os.PathLike[str] = REPO_ROOT,
    *,
    notebook: str = LAB_START,
    port: int | None = None,
    token: str | None = None,
    settings_dir: str | os.PathLike[str] | None = None,
    python: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    log: IO[bytes] | None = None,
    extra: Sequence[str] = (),
    timeout: float = 90.0,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start JupyterLab on 127.0.0.1 as a child process and wait until it answers.

    Args:
        root: the server's root directory (its file browser starts there).
        notebook: the notebook the returned URL opens, relative to ``root``.
        port: the port; a free one by default.
        token: the access token; a random one by default (it is part of the returned URL).
        settings_dir: JupyterLab user settings (see :func:`write_lab_settings`); by default the
            user's own settings are used.
        python: the interpreter whose JupyterLab runs.
        env: extra environment variables for the server (and its kernels).
        log: a binary file that receives the server's output.
        extra: further JupyterLab flags.
        timeout: seconds to wait for the server to answer.

    Returns:
        ``(process, url)``: the running server and the URL of ``notebook`` with the token.
        Stop the server with :func:`stop`.
    """
    port = port or free_port()
    token = token or secrets.token_hex(16)
    flags = [f"--IdentityProvider.token={token}"]
    if settings_dir is not None:
        flags.append(f"--LabApp.user_settings_dir={Path(settings_dir).resolve()}")
    argv = lab_argv(
        notebook=notebook,
        root=Path(root).resolve(),
        port=port,
        no_browser=True,
        ip="127.0.0.1",
        python=python,
        extra=[*flags, "--ServerApp.port_retries=0", *extra],
    )
    base = f"http://127.0.0.1:{port}"
    process = _start_and_wait(argv, Path(root), env, log, f"{base}/api/status", timeout)
    return process, f"{base}/lab/tree/{notebook}?token={token}"


def serve_voila(
    notebook: str | os.PathLike[str],
    *,
    port: int | None = None,
    python: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    log: IO[bytes] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 90.0,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``custody-lab present NOTEBOOK`` as a child process and wait until it answers.

    The server runs the real command (``python -m custody_lab present``), so the test of the
    server is a test of the command a facilitator types.

    Returns:
        ``(process, url)``: the running Voila server and the URL of its app page.
    """
    port = port or free_port()
    argv = [
        str(python or sys.executable),
        "-m",
        "custody_lab",
        "present",
        str(notebook),
        "--no-browser",
        f"--port={port}",
    ]
    url = f"http://127.0.0.1:{port}/"
    process = _start_and_wait(argv, Path(cwd or REPO_ROOT), env, log, f"{url}api/status", timeout)
    return process, url


def _start_and_wait(
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str] | None,
    log: IO[bytes] | None,
    probe: str,
    timeout: float,
) -> subprocess.Popen[bytes]:
    """Start a server and wait until ``probe`` answers; stop it (by PID) if it never does."""
    process = _start(argv, cwd=cwd, env=env, log=log)
    try:
        wait_for_http(probe, timeout=timeout, process=process)
    except DeliveryError:
        stop(process)
        raise
    return process


def stop(process: subprocess.Popen[bytes], timeout: float = 15.0) -> int | None:
    """Stop a server started here, by its PID: SIGTERM (both servers then shut their kernels
    down), and SIGKILL if it has not exited within ``timeout`` seconds. Returns its exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)
    return process.returncode


# -- the command line -------------------------------------------------------------------------


def _exec(argv: list[str], cwd: Path) -> int:
    """Replace this process with ``argv`` (same PID) — or, on Windows, run it and wait."""
    print("[custody-lab] $ " + " ".join(argv), flush=True)
    os.chdir(cwd)
    if os.name == "nt":
        return subprocess.call(argv)
    os.execv(argv[0], argv)
    return 0  # not reached


def configure_lab(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.add_argument("--port", type=int, help="the port to listen on (JupyterLab's default: 8888)")
    p.add_argument(
        "jupyter_args", nargs="*", metavar="-- JUPYTER-ARGS", help="after --, flags passed unchanged to JupyterLab"
    )


def run_lab(args: argparse.Namespace) -> int:
    start = REPO_ROOT / LAB_START
    if not start.exists():
        raise DeliveryError(
            f"{start} is missing: `custody-lab lab` runs from a checkout of the lab "
            "(install it with `pip install -e .`)"
        )
    argv = lab_argv(root=REPO_ROOT, port=args.port, no_browser=args.no_browser, extra=args.jupyter_args)
    return _exec(argv, REPO_ROOT)


def configure_present(p: argparse.ArgumentParser) -> None:
    p.add_argument("notebook", help="the notebook to present, e.g. notebooks/01-route-a-custody-case.ipynb")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.add_argument("--port", type=int, help="the port to listen on (Voila's default: 8866)")
    p.add_argument(
        "--ip", default="127.0.0.1", help="the address to bind (default 127.0.0.1: only this machine can connect)"
    )
    p.add_argument(
        "--theme", choices=("light", "dark"), default="light", help="the page theme (dark suits some projectors)"
    )


def run_present(args: argparse.Namespace) -> int:
    path = Path(args.notebook)
    if not path.is_file():
        raise DeliveryError(
            f"no notebook at {path} (from {Path.cwd()}); the lab's notebooks are in {REPO_ROOT / 'notebooks'}"
        )
    if path.suffix != ".ipynb":
        raise DeliveryError(f"{path} is not a notebook (.ipynb)")
    argv = present_argv(
        path.resolve(), port=args.port, no_browser=args.no_browser, ip=args.ip, extra=[f"--theme={args.theme}"]
    )
    return _exec(argv, Path.cwd())
