"""Replacing this process with a server: the command line printed (tokens hidden), then exec.

``custody-lab lab`` and ``custody-lab present`` only *build* a command line and then hand this
process over to it (:func:`exec_server`), so the server's PID is the command's PID and Ctrl+C
stops it. The few helpers both commands need to read their flags and speak live here too.
"""

from __future__ import annotations

__all__ = ["IPC_PATH_LIMIT", "TOKEN_FLAGS", "exec_server", "flag_value", "ipc_kernel_flags", "say", "token_or_new"]

import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..live.serve_http import new_token

#: Flags that carry a token: their value is never printed with the command line.
TOKEN_FLAGS = ("IdentityProvider.token", "ServerApp.token", "NotebookApp.token", "Voila.token")
_SECRET = re.compile(r"^(--(?:" + "|".join(re.escape(f) for f in TOKEN_FLAGS) + r")=).+$")


def exec_server(argv: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> int:
    """Replace this process with ``argv`` (same PID) — or, on Windows, run it and wait.

    The command line is printed first, with the value of every :data:`TOKEN_FLAGS` flag hidden.
    """
    print("[custody-lab] $ " + " ".join(_SECRET.sub(r"\1…", a) for a in argv), flush=True)
    os.chdir(cwd)
    full_env = dict(os.environ if env is None else env)
    if os.name == "nt":
        return subprocess.call(argv, env=full_env)
    os.execve(argv[0], argv, full_env)
    return 0  # not reached


def say(line: str, *, warning: bool = False) -> None:
    """Print one line for the person at the terminal: ``[custody-lab] line``, or a warning on stderr."""
    print(line if warning else f"[custody-lab] {line}", file=sys.stderr if warning else sys.stdout, flush=True)


def flag_value(argv: Sequence[str], names: Sequence[str]) -> str | None:
    """The value of the last ``--name=value`` or ``--name value`` among ``argv`` (as traitlets
    reads them, surrounding quotes removed), or ``None``.

    Example:
        >>> flag_value(["--port=1", "--ServerApp.port", "'2'"], ("port", "ServerApp.port"))
        '2'
    """
    value = None
    for i, arg in enumerate(argv):
        for name in names:
            if arg.startswith(f"--{name}="):
                value = arg.split("=", 1)[1]
            elif arg == f"--{name}" and i + 1 < len(argv):
                value = argv[i + 1]
    if value is not None and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value


def token_or_new(given: str | None) -> str:
    """``given``, else ``JUPYTER_TOKEN`` from the environment, else a fresh random token.

    The fresh token is :func:`~custody_lab.live.serve_http.new_token`, the one way the lab makes a
    token (``custody-lab serve --http`` uses it too).
    """
    return given if given is not None else (os.environ.get("JUPYTER_TOKEN") or new_token())


#: The longest kernel socket path the lab lets IPC use: a Unix socket's path holds at most 103
#: bytes on macOS and 107 on Linux; past it the kernel could not bind and would never start.
IPC_PATH_LIMIT = 100
#: What a kernel's five sockets add to the connection folder: ``/kernel-<uuid>-ipc-5``.
_IPC_SUFFIX = len("/kernel-") + 36 + len("-ipc-5")


def ipc_kernel_flags(connection_dir: str | os.PathLike[str], extra: Sequence[str] = ()) -> list[str]:
    """``--KernelManager.transport=ipc`` for the kernels a server starts, when it can be used.

    Over IPC a kernel's sockets are files beside its connection file (in a folder only their owner
    can open) instead of TCP ports any local user can reach, and ipykernel prints no "Kernel is
    running over TCP without encryption" warning for every kernel, a line a learner cannot act on.
    Nothing is added on Windows (no IPC transport), when ``extra`` already sets the kernels'
    transport or address, or when the socket paths under ``connection_dir`` would be too long
    (:data:`IPC_PATH_LIMIT`): those kernels keep JupyterLab's default, TCP on 127.0.0.1.

    Example:
        >>> ipc_kernel_flags("/home/ada/.local/share/jupyter/runtime") if os.name != "nt" else ["(windows)"]
        ['--KernelManager.transport=ipc']
        >>> ipc_kernel_flags("/tmp", ["--KernelManager.transport=tcp"]), ipc_kernel_flags("/t" * 50)
        ([], [])
    """
    if os.name == "nt" or flag_value(extra, ("KernelManager.transport", "KernelManager.ip")) is not None:
        return []
    if len(os.fsencode(os.path.abspath(connection_dir))) + _IPC_SUFFIX > IPC_PATH_LIMIT:
        return []
    return ["--KernelManager.transport=ipc"]
