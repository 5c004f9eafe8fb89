"""Servers as child processes that are waited on until they answer, and stopped by their PID.

:func:`serve_lab` and :func:`serve_voila` start the same servers as ``custody-lab lab`` and
``custody-lab present``, as child processes on a free port of 127.0.0.1, wait until they answer
(:func:`wait_for_http`: readiness, never a fixed sleep) and return ``(process, url)``;
:func:`stop` ends one by its PID. The tests use them to drive the lab in a real browser.
"""

from __future__ import annotations

__all__ = ["serve_lab", "serve_voila", "stop", "wait_for_http"]

import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from ..core.paths import REPO_ROOT
from .exposure import DeliveryError, free_port
from .lab import LAB_START, lab_argv


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
    token: str | None = None,
    extra: Sequence[str] = (),
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``custody-lab present NOTEBOOK`` as a child process and wait until it answers.

    The server runs the real command (``python -m custody_lab present``), so the test of the
    server is a test of the command a facilitator types. ``token`` (a random one by default) is
    given to it as ``JUPYTER_TOKEN``; ``extra`` are further ``present`` flags (``--max-kernels 2``).

    Returns:
        ``(process, url)``: the running Voila server and the URL of its app page, with the token.
    """
    port = port or free_port()
    token = token or secrets.token_hex(16)
    argv = [
        str(python or sys.executable),
        "-m",
        "custody_lab",
        "present",
        str(notebook),
        "--no-browser",
        f"--port={port}",
        *extra,
    ]
    base = f"http://127.0.0.1:{port}/"
    full_env = {**(env or {}), "JUPYTER_TOKEN": token}
    process = _start_and_wait(argv, Path(cwd or REPO_ROOT), full_env, log, f"{base}api/status", timeout)
    return process, f"{base}?token={token}"


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
