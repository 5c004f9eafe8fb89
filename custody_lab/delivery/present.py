"""``custody-lab present``: one notebook as a Voila app for a projector.

    custody-lab present NOTEBOOK [--no-browser] [--port N] [--ip 127.0.0.1] [--theme dark]
                                 [--no-token] [--max-kernels N] [--cull-idle SECONDS]

The notebook as a Voila app: outputs and widgets, no code cells; a token (printed with the URL)
unless ``--no-token``; at most N kernels at once (:mod:`.voila_kernels`); the page is the lab's Voila
template (:data:`VOILA_TEMPLATE`: nothing fetched from another host, code-only instructions hidden),
and ``--theme`` reaches the kernels as ``CUSTODY_LAB_THEME``. The server is Voila's own app with the
additions of :mod:`.voila_app` (a closed page's kernel shut down, ``/api/kernels``, the rendered
``/docs/glossary.md`` and ``/docs/cheatsheet.md``).

**How kernels are freed.** Each page load starts one kernel. A page that is reloaded or closed
tells the server as it unloads, and its kernel is shut down at once (:mod:`.voila_app`). A page
that goes without a word (a crashed tab, a lost network) leaves a kernel no page is connected to:
it is shut down after SECONDS idle (``--cull-idle``, default :data:`CULL_IDLE_SECONDS`), checked
every :data:`CULL_INTERVAL_SECONDS` at most, so within a minute by default. An open page keeps its
kernel however long it stays idle.

**Where progress is kept.** Each presented page keeps its exercise progress in its own kernel's
memory (:func:`voila_env` sets ``CUSTODY_LAB_PROGRESS`` empty, :mod:`custody_lab.teaching.progress_store`):
a fresh page shows nothing passed, whatever a rehearsal did. The charts, CSV files and servers a
page writes go into a temporary folder of its kernel's own, removed when the kernel exits
(``CUSTODY_LAB_PRESENTED``, :func:`custody_lab.work_folder`), so nothing is written into the
repository folder. JupyterLab (``custody-lab lab``) keeps its one progress file as before.
"""

from __future__ import annotations

__all__ = [
    "CULL_IDLE_SECONDS",
    "CULL_INTERVAL_SECONDS",
    "PRESENT_APP",
    "MAX_KERNELS",
    "NOT_TRUSTED_NOTE",
    "PRESENT_PORT",
    "TEMPLATE_ROOT",
    "THEME_ENV",
    "VOILA_TEMPLATE",
    "configure_present",
    "present_argv",
    "run_present",
    "voila_env",
]

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.paths import PRESENTED_ENV, REPO_ROOT
from ..teaching.progress_store import ENV_VAR as PROGRESS_ENV
from ..whatif.theme import THEME_VARIABLE
from . import launch
from .exposure import DeliveryError, choose_port, exposure_warnings, url_host
from .launch import ipc_kernel_flags, say, token_or_new
from .voila_kernels import MANAGER

#: The port ``present`` starts from (Voila's default).
PRESENT_PORT = 8866
#: The most kernels running at once (Voila has no limit of its own; each is ~140 MB).
MAX_KERNELS = 8
#: Seconds a kernel with no open page may stay idle before it is shut down (a page that unloads
#: frees its kernel at once; this is for pages that go without a word).
CULL_IDLE_SECONDS = 30
#: The longest time between two checks for such kernels.
CULL_INTERVAL_SECONDS = 15
#: The module ``present`` runs: Voila's app with the lab's additions (:mod:`.voila_app`).
PRESENT_APP = "custody_lab.delivery.voila_app"
#: The Voila template ``present`` serves (``custody_lab/share/jupyter/voila/templates/``): Voila's
#: "lab" template without its Font Awesome CDN links (Voila's bundle has the font), hiding text
#: marked ``class="custody-code-only"``. Voila finds it through ``JUPYTER_PATH``.
VOILA_TEMPLATE = "custody-lab"
#: The Jupyter data directory that holds the template (first on ``JUPYTER_PATH``, see :func:`voila_env`).
TEMPLATE_ROOT = Path(__file__).resolve().parent.parent / "share" / "jupyter"
#: The environment variable that tells a kernel the page's theme (``present --theme dark``); the
#: charts read it (:mod:`custody_lab.whatif.theme`, which imports no chart library).
THEME_ENV = THEME_VARIABLE


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
        max_kernels: the most kernels at once (:mod:`custody_lab.delivery.voila_kernels`); a page load
            beyond it gets HTTP 503.
        cull_idle: seconds after which jupyter_server shuts down an idle kernel that no page is
            connected to (``MappingKernelManager.cull_idle_timeout``), checked every
            ``min(CULL_INTERVAL_SECONDS, cull_idle)`` seconds. An open page keeps its kernel.

    Example:
        >>> argv = present_argv("notebooks/01-x.ipynb", port=8866, no_browser=True, python="py")
        >>> argv[:4], "--Voila.auto_token=True" in argv
        (['py', '-m', 'custody_lab.delivery.voila_app', 'notebooks/01-x.ipynb'], True)
    """
    argv = [
        str(python or sys.executable),
        "-m",
        PRESENT_APP,
        str(notebook),
        f"--Voila.ip={ip}",
        f"--VoilaConfiguration.template={VOILA_TEMPLATE}",
        "--strip_sources=True",
        "--show_tracebacks=False",
        "--Voila.port_retries=0",
        f"--VoilaConfiguration.multi_kernel_manager_class={MANAGER}",
        f"--CappedKernelManager.max_kernels={int(max_kernels)}",
        f"--MappingKernelManager.cull_idle_timeout={int(cull_idle)}",
        f"--MappingKernelManager.cull_interval={max(1, min(CULL_INTERVAL_SECONDS, int(cull_idle)))}",
    ]
    if token:
        argv.append("--Voila.auto_token=True")
    if port is not None:
        argv.append(f"--port={int(port)}")
    if no_browser:
        argv.append("--no-browser")
    argv += list(extra)
    return argv


def voila_env(theme: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of ``present``'s Voila server and kernels: the lab's templates first on
    ``JUPYTER_PATH`` (Voila looks for :data:`VOILA_TEMPLATE` there), the theme in
    :data:`THEME_ENV`, so charts drawn by the kernels can follow the page, and
    ``CUSTODY_LAB_PROGRESS`` empty, so each page's kernel keeps its own progress in memory and
    writes no file (whatever the facilitator's shell had set), and ``CUSTODY_LAB_PRESENTED=1``, so
    the files a page writes go into a temporary folder of its kernel's own
    (:func:`custody_lab.work_folder`), not into ``notebooks/out/``.

    Example:
        >>> env = voila_env("dark", {"JUPYTER_PATH": "/elsewhere", "CUSTODY_LAB_PROGRESS": "p.json"})
        >>> env["CUSTODY_LAB_THEME"], env["JUPYTER_PATH"].split(os.pathsep)[1], env["CUSTODY_LAB_PROGRESS"]
        ('dark', '/elsewhere', '')
        >>> env["CUSTODY_LAB_PRESENTED"]
        '1'
    """
    env = dict(os.environ if base is None else base)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(TEMPLATE_ROOT), env.get("JUPYTER_PATH", "")) if p)
    env[THEME_ENV] = theme
    env[PROGRESS_ENV] = ""  # progress_store: in memory only, so one page's progress is its own
    env[PRESENTED_ENV] = "1"  # work_folder: a page's files go to a temporary folder of its own
    return env


#: The one line that explains Voila's "Notebook … is not trusted" warning, which the lab cannot
#: silence without signing notebooks in the user's own trust database.
NOT_TRUSTED_NOTE = (
    "Voila will warn that the notebook 'is not trusted': harmless here, as the lab's notebooks are "
    "committed without outputs and Voila shows only what it runs afresh"
)


def _voila_kernel_flags() -> list[str]:
    """IPC for the presentation's kernels (:func:`~.launch.ipc_kernel_flags`): Voila keeps their
    connection files in a new private ``voila_XXXXXXXX`` folder of the temporary directory."""
    import tempfile

    return ipc_kernel_flags(os.path.join(tempfile.gettempdir(), "voila_XXXXXXXX"))


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
        "--theme",
        choices=("light", "dark"),
        default="light",
        help="the page theme: light (default) or dark (suits some projectors)",
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
    token = None if args.no_token else token_or_new(None)
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
        extra=[f"--theme={args.theme}", *_voila_kernel_flags()],
    )
    for line in exposure_warnings(args.ip, token, port, "the presentation"):
        say(line, warning=True)
    query = f"?token={token}" if token else ""
    say(f"presenting {path.name} at http://{url_host(args.ip)}:{port}/{query}")
    say(
        f"kernels: at most {args.max_kernels} at once (one per open page); a closed or reloaded page's "
        f"kernel is shut down at once, and one no page is connected to after {args.cull_idle} s idle"
    )
    say("progress: each page keeps its own, in its kernel's memory; no progress file is written")
    say(NOT_TRUSTED_NOTE)
    return launch.exec_server(argv, Path.cwd(), env)
