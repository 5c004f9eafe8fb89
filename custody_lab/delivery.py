"""Workshop delivery: open the lab in JupyterLab, or present one notebook as a Voila app.

    custody-lab lab [--no-browser] [--port N] [-- JUPYTER-ARGS…]
        JupyterLab on notebooks/00-start-here.ipynb; prints the notebook's URL with its token
        (adds --allow-root when run as root, and says why); the lab's own JupyterLab settings
        (:data:`LAB_SETTINGS_DIR`, quiet: no news toast, no autosave) unless others are given
    custody-lab present NOTEBOOK [--no-browser] [--port N] [--ip 127.0.0.1] [--theme dark]
                                 [--no-token] [--max-kernels N] [--cull-idle SECONDS]
        the notebook as a Voila app for a projector: outputs and widgets, no code cells; a token
        (printed with the URL) unless --no-token; at most N kernels at once, and a kernel with
        no open page is shut down after SECONDS idle; the page is the lab's Voila template
        (:data:`VOILA_TEMPLATE`: nothing fetched from another host, code-only instructions
        hidden), and ``--theme`` reaches the kernels as ``CUSTODY_LAB_THEME``

Both take the first free port from the server's default (8888, 8866) unless ``--port N`` is given,
and a busy ``--port N`` is an error that says so. Binding anything but a loopback address, or an
empty token, prints a warning: either lets other people run code on this machine.

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
    "CULL_IDLE_SECONDS",
    "LAB_SETTINGS_DIR",
    "LAB_START",
    "MAX_KERNELS",
    "QUIET_LAB_SETTINGS",
    "THEME_ENV",
    "VOILA_TEMPLATE",
    "DeliveryError",
    "choose_port",
    "exposure_warnings",
    "free_port",
    "is_loopback",
    "lab_argv",
    "present_argv",
    "serve_lab",
    "serve_voila",
    "stop",
    "voila_env",
    "wait_for_http",
    "write_lab_overrides",
    "write_lab_settings",
]

import argparse
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from .core.paths import REPO_ROOT
from .exposure import DeliveryError, choose_port, exposure_warnings, free_port, is_loopback, url_host
from .voila_kernels import MANAGER
from .whatif.theme import THEME_VARIABLE

#: The ports ``lab`` and ``present`` start from (JupyterLab's and Voila's defaults).
LAB_PORT, PRESENT_PORT = 8888, 8866
#: ``present``: the most kernels running at once (Voila has no limit of its own; each is ~140 MB).
MAX_KERNELS = 8
#: ``present``: seconds a kernel with no open page may stay idle before it is shut down.
CULL_IDLE_SECONDS = 600

#: The notebook ``custody-lab lab`` opens (relative to the repository root).
LAB_START = "notebooks/00-start-here.ipynb"

#: The JupyterLab user settings of ``custody-lab lab`` (gitignored; ``CUSTODY_LAB_SETTINGS`` moves
#: them): the quiet settings are written there once, and what a learner changes afterwards is theirs.
LAB_SETTINGS_DIR = Path(os.environ.get("CUSTODY_LAB_SETTINGS") or REPO_ROOT / ".custody-lab" / "lab-settings")
#: The Voila template ``present`` serves (``custody_lab/share/jupyter/voila/templates/``): Voila's
#: "lab" template without its Font Awesome CDN links (Voila's bundle has the font), hiding text
#: marked ``class="custody-code-only"``. Voila finds it through ``JUPYTER_PATH``.
VOILA_TEMPLATE = "custody-lab"
TEMPLATE_ROOT = Path(__file__).resolve().parent / "share" / "jupyter"
#: The environment variable that tells a kernel the page's theme (``present --theme dark``); the
#: charts read it (:mod:`custody_lab.whatif.theme`, which imports no chart library).
THEME_ENV = THEME_VARIABLE

#: JupyterLab user settings for an unattended or projected session: no "news" question, no update
#: check (both would put a toast over the notebook and reach for the network), no autosave (a
#: browser session must not write outputs into committed notebooks), Markdown files (the glossary and
#: cheat sheet the notebooks link to) open rendered.
QUIET_LAB_SETTINGS: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False, "defaultViewers": {"markdown": "Markdown Preview"}},
}


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


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
    token: bool = True,
    max_kernels: int = MAX_KERNELS,
    cull_idle: int = CULL_IDLE_SECONDS,
    extra: Sequence[str] = (),
) -> list[str]:
    """The ``voila`` command line that serves one notebook as an app (outputs only, no code).

    Voila strips code cells by default (``strip_sources``); this keeps it so, hides tracebacks
    from the audience, and never moves to another port silently: a busy port is an error.

    Args:
        token: require a token. Voila then takes it from the ``JUPYTER_TOKEN`` environment
            variable (``--Voila.auto_token``; a random one when that is unset), so the token never
            appears on a command line that other users can list.
        max_kernels: the most kernels at once (:mod:`custody_lab.voila_kernels`); a page load
            beyond it gets HTTP 503.
        cull_idle: seconds after which jupyter_server shuts down an idle kernel that no page is
            connected to (``MappingKernelManager.cull_idle_timeout``), checked every
            ``min(60, cull_idle)`` seconds. An open page keeps its kernel.

    Example:
        >>> argv = present_argv("notebooks/01-x.ipynb", port=8866, no_browser=True, python="py")
        >>> argv[:4], "--Voila.auto_token=True" in argv
        (['py', '-m', 'voila', 'notebooks/01-x.ipynb'], True)
    """
    argv = [
        str(python or sys.executable),
        "-m",
        "voila",
        str(notebook),
        f"--Voila.ip={ip}",
        f"--VoilaConfiguration.template={VOILA_TEMPLATE}",
        "--strip_sources=True",
        "--show_tracebacks=False",
        "--Voila.port_retries=0",
        f"--VoilaConfiguration.multi_kernel_manager_class={MANAGER}",
        f"--CappedKernelManager.max_kernels={int(max_kernels)}",
        f"--MappingKernelManager.cull_idle_timeout={int(cull_idle)}",
        f"--MappingKernelManager.cull_interval={max(1, min(60, int(cull_idle)))}",
    ]
    if token:
        argv.append("--Voila.auto_token=True")
    if port is not None:
        argv.append(f"--port={int(port)}")
    if no_browser:
        argv.append("--no-browser")
    argv += list(extra)
    return argv


def write_lab_settings(
    directory: str | os.PathLike[str],
    settings: Mapping[str, Mapping[str, object]] = QUIET_LAB_SETTINGS,
    *,
    keep_existing: bool = False,
) -> Path:
    """Write JupyterLab user settings (``plugin-id: {key: value}``) into a settings directory.

    Pass the directory to JupyterLab as ``--LabApp.user_settings_dir``. With ``keep_existing`` a
    plugin's settings file that is already there (a learner's own choices) is left as it is.

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
        if keep_existing and path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(values), indent=2) + "\n", encoding="utf-8")
    return root


def write_lab_overrides(prefix: str | os.PathLike[str] = sys.prefix) -> Path:
    """Make :data:`QUIET_LAB_SETTINGS` the defaults of the JupyterLab installed under ``prefix``
    (``share/jupyter/lab/settings/overrides.json``; ``binder/postBuild`` runs this on Binder)."""
    path = Path(prefix, "share", "jupyter", "lab", "settings", "overrides.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(QUIET_LAB_SETTINGS, indent=2) + "\n", encoding="utf-8")
    return path


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


# -- the command line -------------------------------------------------------------------------


#: Flags that carry a token: their value is never printed with the command line.
_TOKEN_FLAGS = ("IdentityProvider.token", "ServerApp.token", "NotebookApp.token", "Voila.token")
_SECRET = re.compile(r"^(--(?:" + "|".join(re.escape(f) for f in _TOKEN_FLAGS) + r")=).+$")


def _exec(argv: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> int:
    """Replace this process with ``argv`` (same PID) — or, on Windows, run it and wait."""
    print("[custody-lab] $ " + " ".join(_SECRET.sub(r"\1…", a) for a in argv), flush=True)
    os.chdir(cwd)
    full_env = dict(os.environ if env is None else env)
    if os.name == "nt":
        return subprocess.call(argv, env=full_env)
    os.execve(argv[0], argv, full_env)
    return 0  # not reached


def _say(line: str, *, warning: bool = False) -> None:
    print(line if warning else f"[custody-lab] {line}", file=sys.stderr if warning else sys.stdout, flush=True)


def _flag(argv: Sequence[str], names: Sequence[str]) -> str | None:
    """The value of the last ``--name=value`` or ``--name value`` among ``argv`` (as traitlets
    reads them, surrounding quotes removed), or ``None``."""
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


def voila_env(theme: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of ``present``'s Voila server and kernels: the lab's templates first on
    ``JUPYTER_PATH`` (Voila looks for :data:`VOILA_TEMPLATE` there) and the theme in
    :data:`THEME_ENV`, so charts drawn by the kernels can follow the page.

    Example:
        >>> env = voila_env("dark", {"JUPYTER_PATH": "/elsewhere"})
        >>> env["CUSTODY_LAB_THEME"], env["JUPYTER_PATH"].split(os.pathsep)[1]
        ('dark', '/elsewhere')
    """
    env = dict(os.environ if base is None else base)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(TEMPLATE_ROOT), env.get("JUPYTER_PATH", "")) if p)
    env[THEME_ENV] = theme
    return env


def _token(given: str | None) -> str:
    return given if given is not None else (os.environ.get("JUPYTER_TOKEN") or secrets.token_urlsafe(24))


def configure_lab(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.add_argument("--port", type=int, help="the port to listen on (default: the first free one from 8888)")
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
    extra = list(args.jupyter_args)
    host = _flag(extra, ("ip", "ServerApp.ip", "NotebookApp.ip")) or "localhost"
    their_port = _flag(extra, ("port", "ServerApp.port"))  # a port among the JupyterLab flags wins
    port = int(their_port) if their_port and their_port.isdigit() else choose_port(host, args.port, LAB_PORT)
    if _flag(extra, ("port-retries", "ServerApp.port_retries")) is None:
        extra.append("--ServerApp.port_retries=0")  # the printed URL is the one it serves
    given = _flag(extra, _TOKEN_FLAGS)
    token = _token(given)
    env = dict(os.environ)
    if _flag(extra, ("LabApp.user_settings_dir",)) is None and "JUPYTERLAB_SETTINGS_DIR" not in env:
        settings = write_lab_settings(LAB_SETTINGS_DIR, keep_existing=True)
        extra.append(f"--LabApp.user_settings_dir={settings}")
        _say(f"JupyterLab settings: {settings} (no news toast, no autosave into the lab's notebooks)")
    if given is None:  # JupyterLab reads it (IdentityProvider), and it stays off the command line
        env["JUPYTER_TOKEN"] = token
    if _is_root() and "--allow-root" not in extra:
        _say(
            "running as root, so --allow-root is added: JupyterLab refuses to start as root without it "
            "(a notebook's code then runs as root too; an ordinary user is safer)"
        )
    for line in exposure_warnings(host, token, port, "JupyterLab"):
        _say(line, warning=True)
    query = f"?token={token}" if token else ""
    _say(f"open the lab at http://{url_host(host)}:{port}/lab/tree/{LAB_START}{query}")
    argv = lab_argv(root=REPO_ROOT, port=None if their_port else port, no_browser=args.no_browser, extra=extra)
    return _exec(argv, REPO_ROOT, env)


def _at_least(low: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {low} or more, got {value}")
        return value

    return parse


def configure_present(p: argparse.ArgumentParser) -> None:
    p.add_argument("notebook", help="the notebook to present, e.g. notebooks/01-route-a-custody-case.ipynb")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.add_argument("--port", type=int, help="the port to listen on (default: the first free one from 8866)")
    p.add_argument(
        "--ip", default="127.0.0.1", help="the address to bind (default 127.0.0.1: only this machine can connect)"
    )
    p.add_argument(
        "--theme", choices=("light", "dark"), default="light", help="the page theme (dark suits some projectors)"
    )
    p.add_argument(
        "--no-token",
        action="store_true",
        help="no token in the URL (for a projector on a trusted machine; by default a token is required)",
    )
    p.add_argument(
        "--max-kernels",
        type=_at_least(1),
        default=MAX_KERNELS,
        help=f"the most kernels at once, one per open page (default {MAX_KERNELS}; each takes about 140 MB)",
    )
    p.add_argument(
        "--cull-idle",
        type=_at_least(1),
        default=CULL_IDLE_SECONDS,
        metavar="SECONDS",
        help=f"shut down a kernel no page is connected to after this many idle seconds (default {CULL_IDLE_SECONDS})",
    )


def run_present(args: argparse.Namespace) -> int:
    path = Path(args.notebook)
    if not path.is_file():
        raise DeliveryError(
            f"no notebook at {path} (from {Path.cwd()}); the lab's notebooks are in {REPO_ROOT / 'notebooks'}"
        )
    if path.suffix != ".ipynb":
        raise DeliveryError(f"{path} is not a notebook (.ipynb)")
    port = choose_port(args.ip, args.port, PRESENT_PORT)
    token = None if args.no_token else _token(None)
    env = voila_env(args.theme, {k: v for k, v in os.environ.items() if k != "JUPYTER_TOKEN"})
    if token is not None:
        env["JUPYTER_TOKEN"] = token  # Voila reads it (--Voila.auto_token); not on the command line
    argv = present_argv(
        path.resolve(),
        port=port,
        no_browser=args.no_browser,
        ip=args.ip,
        token=token is not None,
        max_kernels=args.max_kernels,
        cull_idle=args.cull_idle,
        extra=[f"--theme={args.theme}"],
    )
    for line in exposure_warnings(args.ip, token, port, "the presentation"):
        _say(line, warning=True)
    query = f"?token={token}" if token else ""
    _say(f"presenting {path.name} at http://{url_host(args.ip)}:{port}/{query}")
    _say(
        f"kernels: at most {args.max_kernels} at once (one per open page); a kernel no page is "
        f"connected to is shut down after {args.cull_idle} s idle"
    )
    return _exec(argv, Path.cwd(), env)
