"""``custody-lab lab``: JupyterLab on the start notebook, with the lab's quiet settings.

    custody-lab lab [--no-browser] [--port N] [-- JUPYTER-ARGS…]

JupyterLab on ``notebooks/00-start-here.ipynb``; prints the notebook's URL with its token (adds
``--allow-root`` when run as root, and says why); the lab's own JupyterLab settings
(:data:`LAB_SETTINGS_DIR`, quiet: no news toast, no autosave) unless others are given.
"""

from __future__ import annotations

__all__ = [
    "LAB_PORT",
    "LAB_SETTINGS_DIR",
    "LAB_START",
    "LEARNER_KERNEL_CULLING",
    "NO_NOTEBOOK_SHIM",
    "QUIET_LAB_SETTINGS",
    "configure_lab",
    "lab_argv",
    "run_lab",
    "write_lab_overrides",
    "write_lab_settings",
    "write_server_config",
]

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..core.paths import REPO_ROOT
from . import launch
from .exposure import DeliveryError, choose_port, exposure_warnings, url_host
from .launch import TOKEN_FLAGS, flag_value, ipc_kernel_flags, say, token_or_new

#: The port ``lab`` starts from (JupyterLab's default).
LAB_PORT = 8888
#: The notebook ``custody-lab lab`` opens (relative to the repository root).
LAB_START = "notebooks/00-start-here.ipynb"

#: The JupyterLab user settings of ``custody-lab lab`` (gitignored; ``CUSTODY_LAB_SETTINGS`` moves
#: them): the quiet settings are written there once, and what a learner changes afterwards is theirs.
LAB_SETTINGS_DIR = Path(os.environ.get("CUSTODY_LAB_SETTINGS") or REPO_ROOT / ".custody-lab" / "lab-settings")
#: JupyterLab user settings for an unattended or projected session: no "news" question, no update
#: check (both would put a toast over the notebook and reach for the network), no autosave (a
#: browser session must not write outputs into committed notebooks), Markdown files (the glossary and
#: cheat sheet the notebooks link to) open rendered.
QUIET_LAB_SETTINGS: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False, "defaultViewers": {"markdown": "Markdown Preview"}},
    # closing a notebook shuts its kernel down (JupyterLab's "Shut down kernel" setting): a learner
    # who works through ten notebooks does not keep ten kernels; progress lives on disk, not in one
    "@jupyterlab/notebook-extension:tracker": {"kernelShutdown": True},
}

#: The flag that keeps notebook_shim, the classic Notebook's config shim, from loading. The lab
#: uses no ``NotebookApp`` settings, and the shim reads every ``ServerApp`` trait as it starts,
#: which makes jupyter_server warn "ServerApp.token config is deprecated" though nothing set it
#: (the lab gives its token as ``JUPYTER_TOKEN``, which ``IdentityProvider.token`` reads).
NO_NOTEBOOK_SHIM = "--ServerApp.jpserver_extensions=notebook_shim=False"

#: How jupyter_server culls the kernels a learner has left, where memory is scarce (mybinder.org
#: guarantees 1 GB for a whole session; a course's hub sets a limit per user): a kernel idle for 20
#: minutes is shut down, open page or not, checked every minute; a busy one never is. Its
#: notebook's progress is kept on disk; running the notebook's cells again restarts it.
#: ``binder/postBuild`` writes this with :func:`write_server_config`.
LEARNER_KERNEL_CULLING: dict[str, object] = {
    "cull_idle_timeout": 1200,
    "cull_interval": 60,
    "cull_connected": True,
    "cull_busy": False,
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
        ['notification.jupyterlab-settings', 'plugin.jupyterlab-settings', 'tracker.jupyterlab-settings']
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


def write_server_config(prefix: str | os.PathLike[str] = sys.prefix) -> Path:
    """Make :data:`LEARNER_KERNEL_CULLING` the ``MappingKernelManager`` settings of the Jupyter
    server installed under ``prefix`` (``etc/jupyter/jupyter_server_config.json``; other settings
    already in that file are kept). ``binder/postBuild`` runs this on Binder and in a hub's image.

    Raises:
        DeliveryError: the file exists but is not a JSON object (it is named, and left as it is).

    Example:
        >>> import json, tempfile
        >>> path = write_server_config(tempfile.mkdtemp())
        >>> json.loads(path.read_text())["MappingKernelManager"]["cull_idle_timeout"]
        1200
    """
    path = Path(prefix, "etc", "jupyter", "jupyter_server_config.json")
    config: dict[str, object] = {}
    if path.exists():
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DeliveryError(
                f"{path} cannot be read as JSON ({exc}); fix or remove it, then run this again"
            ) from exc
        if not isinstance(config, dict):
            raise DeliveryError(f"{path} holds {type(config).__name__}, not a JSON object; fix or remove it")
    manager = config.get("MappingKernelManager")
    config["MappingKernelManager"] = {**(manager if isinstance(manager, dict) else {}), **LEARNER_KERNEL_CULLING}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


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
    host = flag_value(extra, ("ip", "ServerApp.ip", "NotebookApp.ip")) or "localhost"
    their_port = flag_value(extra, ("port", "ServerApp.port"))  # a port among the JupyterLab flags wins
    port = int(their_port) if their_port and their_port.isdigit() else choose_port(host, args.port, LAB_PORT)
    if flag_value(extra, ("port-retries", "ServerApp.port_retries")) is None:
        extra.append("--ServerApp.port_retries=0")  # the printed URL is the one it serves
    if flag_value(extra, ("ServerApp.jpserver_extensions",)) is None and not any("NotebookApp." in a for a in extra):
        extra.append(NO_NOTEBOOK_SHIM)  # a NotebookApp flag of theirs still gets the shim that reads it
    from jupyter_core.paths import jupyter_runtime_dir  # where jupyter_server keeps kernel connection files

    extra += ipc_kernel_flags(jupyter_runtime_dir(), extra)
    given = flag_value(extra, TOKEN_FLAGS)
    token = token_or_new(given)
    env = dict(os.environ)
    if flag_value(extra, ("LabApp.user_settings_dir",)) is None and "JUPYTERLAB_SETTINGS_DIR" not in env:
        settings = write_lab_settings(LAB_SETTINGS_DIR, keep_existing=True)
        extra.append(f"--LabApp.user_settings_dir={settings}")
        say(
            f"JupyterLab settings: {settings} (no news toast, no autosave into the lab's notebooks; "
            "closing a notebook shuts its kernel down, and its progress is kept)"
        )
    if given is None:  # JupyterLab reads it (IdentityProvider), and it stays off the command line
        env["JUPYTER_TOKEN"] = token
    if _is_root() and "--allow-root" not in extra:
        say(
            "running as root, so --allow-root is added: JupyterLab refuses to start as root without it "
            "(a notebook's code then runs as root too; an ordinary user is safer)"
        )
    for line in exposure_warnings(host, token, port, "JupyterLab"):
        say(line, warning=True)
    query = f"?token={token}" if token else ""
    say(f"open the lab at http://{url_host(host)}:{port}/lab/tree/{LAB_START}{query}")
    argv = lab_argv(root=REPO_ROOT, port=None if their_port else port, no_browser=args.no_browser, extra=extra)
    return launch.exec_server(argv, REPO_ROOT, env)
