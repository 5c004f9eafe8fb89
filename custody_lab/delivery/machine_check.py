"""``custody-lab check``: is this machine ready for the lab? Four checks, one line each.

    custody-lab check        # about half a minute on a laptop; exit 0 when every check passed

A facilitator runs it on each learner machine the day before (``docs/workshop.md``, *Before the
day*) instead of the whole test suite, whose timings depend on the machine's load. It does what a
learner's first minutes do, and nothing else:

1. ``python``: this Python and the libraries the lab imports (pandas, ipywidgets, mcp, JupyterLab's
   kernel client);
2. ``kernel``: a ``python3`` kernel, the one JupyterLab starts, runs ``notebooks/00-start-here.ipynb``
   top to bottom (its cells' outputs are discarded; the notebook file is not touched);
3. ``widgets``: in that kernel, a :class:`~custody_lab.widgets.CaseExplorer`'s state reaches the
   page (the widget messages a browser receives), and a change sent as a browser sends it (a
   ``comm_msg`` ``update`` to the checkbox ``allowed``) reaches the kernel, whose decision follows;
4. ``server``: ``custody-lab serve --http`` starts on a free port of 127.0.0.1 and answers the
   lab's own audit over MCP (handshake, listings, reads), with a token, and is stopped by its PID.

Each line says ``ok`` or ``FAIL``, what was seen and, for a failure, what to do. A check that needs
an earlier one (the widgets need the kernel) says so instead of running. Every wait is bounded (the
kernel 70 s, the widgets 10 s, the server 40 s), so the whole check ends within
:data:`CHECK_BUDGET_SECONDS` even on a machine that hangs.
"""

from __future__ import annotations

__all__ = ["CHECK_BUDGET_SECONDS", "CheckResult", "configure_check", "format_result", "run_check", "run_checks"]

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.paths import NOTEBOOKS_DIR, REPO_ROOT
from .exposure import DeliveryError, free_port
from .lab import LAB_START
from .readiness import stop, wait_for_http

#: The bound of the whole check (the import of the lab's libraries aside): each wait takes a share.
CHECK_BUDGET_SECONDS = 120.0
#: The shares of the budget: starting the kernel and running the start notebook (about 5 s on a
#: laptop, 60 s on a loaded one), the widget round trip, and the server (start-up and audit).
_KERNEL_SECONDS = 70.0
_WIDGET_SECONDS = 10.0
_SERVER_SECONDS = 40.0
#: What to do when the lab's own install is broken.
_REINSTALL = "reinstall the lab: python3 -m custody_lab.bootstrap lab (from the repository's folder)"


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict.

    Attributes:
        name: ``python``, ``kernel``, ``widgets`` or ``server``.
        ok: whether it passed.
        seen: what was seen (for a failure, what went wrong).
        fix: what to do when it failed (``""`` when it passed).
        seconds: how long it took.
    """

    name: str
    ok: bool
    seen: str
    fix: str = ""
    seconds: float = 0.0


def format_result(result: CheckResult) -> str:
    """One line: the verdict, the check, what was seen, and for a failure what to do.

    Example:
        >>> format_result(CheckResult("kernel", False, "no python3 kernel", "reinstall", 1.25))
        'FAIL  kernel   no python3 kernel (1.2 s); what to do: reinstall'
    """
    verdict = "ok  " if result.ok else "FAIL"
    fix = f"; what to do: {result.fix}" if not result.ok and result.fix else ""
    return f"{verdict}  {result.name:<7}  {result.seen} ({result.seconds:.1f} s){fix}"


def _timed(name: str, check: Callable[[], tuple[bool, str, str]]) -> CheckResult:
    began = time.monotonic()
    try:
        ok, seen, fix = check()
    except Exception as e:  # the top of one check: any failure becomes its line, never a traceback
        ok, seen, fix = False, f"{type(e).__name__}: {_one_line(e)}", _REINSTALL
    return CheckResult(name, ok, seen, "" if ok else fix, time.monotonic() - began)


def _one_line(e: object, limit: int = 300) -> str:
    from ..core.text import visible

    text = " ".join(visible(e).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _python_check() -> tuple[bool, str, str]:
    import importlib

    missing = []
    for name in ("pandas", "ipywidgets", "matplotlib", "mcp", "jupyter_client", "nbclient", "nbformat"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    version = ".".join(map(str, sys.version_info[:3]))
    if missing:
        return False, f"Python {version}; cannot import {', '.join(missing)}", _REINSTALL
    return True, f"Python {version} at {sys.executable}; the lab's libraries import", ""


#: The widget round trip, run in the kernel: an explorer whose checkbox ``allowed`` a "browser" unticks.
_MAKE_EXPLORER = (
    "from custody_lab.widgets import CaseExplorer\n"
    "_machine_check = CaseExplorer('handbook', chart=False)\n"
    "print(_machine_check.controls['allowed'].model_id, _machine_check.decision.outcome)"
)
_READ_EXPLORER = (
    "print(_machine_check.controls['allowed'].value, _machine_check.decision.outcome)\n_machine_check.close()"
)


def _stdout(cell: object) -> str:
    outputs = getattr(cell, "outputs", None) or []
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout")


def _kernel_checks(notebook: Path) -> Iterator[CheckResult]:
    """Run the start notebook in a ``python3`` kernel, then one widget round trip in the same kernel."""
    import nbformat
    from jupyter_client.manager import AsyncKernelManager

    began = time.monotonic()
    nb = nbformat.read(notebook, as_version=4)
    # IPC sockets in a private folder: the kernel's own ports stay closed to other users, and it
    # prints no "running over TCP without encryption" warning a facilitator cannot act on
    # (on Windows, which has no IPC transport, the kernel uses TCP on 127.0.0.1 as JupyterLab does)
    with tempfile.TemporaryDirectory(prefix="custody-lab-kernel-") as sockets:
        if os.name == "nt":
            km = AsyncKernelManager(kernel_name="python3")
        else:
            km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        yield from _run_in_kernel(notebook, nb, km, began)


def _run_in_kernel(notebook: Path, nb: Any, km: Any, began: float) -> Iterator[CheckResult]:
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    client = NotebookClient(
        nb,
        km=km,
        timeout=int(_KERNEL_SECONDS),
        startup_timeout=30,
        kernel_name="python3",
        resources={"metadata": {"path": str(notebook.parent)}},
    )
    shown = notebook.relative_to(REPO_ROOT) if notebook.is_relative_to(REPO_ROOT) else notebook
    code_cells = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    deadline = began + _KERNEL_SECONDS
    reported = False
    try:
        with client.setup_kernel():
            at = 0
            try:
                for index, cell in code_cells:
                    at += 1
                    client.timeout = max(1, int(deadline - time.monotonic()))  # the notebook's whole share
                    client.execute_cell(cell, index)
            except CellExecutionError as e:
                name = getattr(e, "ename", "an error")
                yield CheckResult(
                    "kernel",
                    False,
                    f"code cell {at} of {shown} raised {name}: {_one_line(getattr(e, 'evalue', e))}",
                    _REINSTALL + "; if it fails again, send this line to the facilitator",
                    time.monotonic() - began,
                )
                yield _skipped("widgets", "the kernel check failed")
                return
            except CellTimeoutError:
                yield CheckResult(
                    "kernel",
                    False,
                    f"{shown} did not finish within {_KERNEL_SECONDS:g} s (it stopped at code cell {at})",
                    "close other programs (the machine may be short of memory or CPU) and run the check again",
                    time.monotonic() - began,
                )
                yield _skipped("widgets", "the kernel check failed")
                return
            reported = True
            yield CheckResult(
                "kernel",
                True,
                f"a python3 kernel ran {shown} ({len(code_cells)} code cells) without an error",
                seconds=time.monotonic() - began,
            )
            client.timeout = int(_WIDGET_SECONDS)
            yield _timed("widgets", lambda: _widget_round_trip(client))
    except (DeadKernelError, RuntimeError, OSError) as e:
        if reported:  # the kernel ran the notebook; only its shutdown failed, which no learner sees
            return
        yield CheckResult(
            "kernel",
            False,
            f"no python3 kernel could start or it died: {_one_line(e)}",
            _REINSTALL + " (its kernel is the python3 of .venv/)",
            time.monotonic() - began,
        )
        yield _skipped("widgets", "the kernel check failed")


def _widget_round_trip(client: object) -> tuple[bool, str, str]:
    import nbformat

    nb = client.nb  # type: ignore[attr-defined]
    make = nbformat.v4.new_code_cell(_MAKE_EXPLORER)
    nb.cells.append(make)
    client.execute_cell(make, len(nb.cells) - 1)  # type: ignore[attr-defined]
    words = _stdout(make).split()
    if len(words) != 2:
        return False, f"the explorer printed {_one_line(_stdout(make))!r}", _REINSTALL
    model_id, before = words
    states = getattr(client, "widget_state", {})
    if model_id not in states:
        return False, "the explorer's checkbox never reached the page (no comm_open)", _REINSTALL
    kc = client.kc  # type: ignore[attr-defined]
    update = {"method": "update", "state": {"value": False}, "buffer_paths": []}
    kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": model_id, "data": update}))
    read = nbformat.v4.new_code_cell(_READ_EXPLORER)
    nb.cells.append(read)
    client.execute_cell(read, len(nb.cells) - 1)  # type: ignore[attr-defined]
    after = _stdout(read).split()
    if after != ["False", "permission-denied"]:
        return (
            False,
            f"unticking 'allowed' as a browser does left the kernel at {_one_line(_stdout(read))!r}",
            "the widget messages do not reach the kernel: " + _REINSTALL,
        )
    return (
        True,
        f"CaseExplorer: state reached the page, a browser's change reached the kernel ({before} → {after[1]})",
        "",
    )


def _skipped(name: str, why: str) -> CheckResult:
    return CheckResult(name, False, f"not run: {why}", "fix the check above first")


def _server_check(budget: float) -> tuple[bool, str, str]:
    from ..live.audit import AuditError
    from ..live.audit_transport import audit_url
    from ..live.serve_http import TOKEN_ENV

    port = free_port()
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="custody-lab-check-") as tmp:
        log = Path(tmp) / "receipts.jsonl"
        argv = [sys.executable, "-m", "custody_lab", "serve", "--http", "--port", str(port), "--log", str(log)]
        with open(Path(tmp) / "serve.out", "wb") as out:
            server = subprocess.Popen(
                argv, cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, TOKEN_ENV: token}
            )
            try:
                url = f"http://127.0.0.1:{port}/mcp"
                try:
                    wait_for_http(url, timeout=budget / 4, process=server)
                except DeliveryError as e:
                    said = _one_line((Path(tmp) / "serve.out").read_text(errors="replace")[-300:])
                    return False, f"custody-lab serve --http did not answer: {_one_line(e)} {said}", _REINSTALL
                try:
                    report = audit_url(
                        url,
                        headers=(f"Authorization: Bearer {token}",),
                        timeout=budget / 16,
                        connect_timeout=budget / 4,
                    )
                except AuditError as e:
                    return False, f"the lab's server answered the audit wrongly: {_one_line(e)}", _REINSTALL
            finally:
                stop(server)  # type: ignore[arg-type]
        exercised = sum(c.exercised for c in report.capabilities)
        logged = len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0
    if report.exit_code() != 0 or not exercised or not logged:
        why = "; ".join(report.incomplete) or f"{exercised} capabilities exercised, {logged} receipts logged"
        return False, f"the lab's server did not finish its audit: {_one_line(why)}", _REINSTALL
    return True, f"custody-lab serve --http answered an MCP audit ({exercised} exchanges, {logged} receipts logged)", ""


def run_checks(notebook: Path | None = None) -> Iterator[CheckResult]:
    """Run the four checks in order, yielding each result as soon as it is known."""
    python = _timed("python", _python_check)
    yield python
    if python.ok:
        yield from _kernel_checks(notebook or NOTEBOOKS_DIR / Path(LAB_START).name)
    else:
        yield _skipped("kernel", "the python check failed")
        yield _skipped("widgets", "the python check failed")
    yield _timed("server", lambda: _server_check(_SERVER_SECONDS))


def configure_check(p: argparse.ArgumentParser) -> None:
    """``custody-lab check`` takes no arguments; its help says what it checks."""
    p.description = (
        "Check this machine for the lab, in about half a minute (two at most): python (the lab's libraries "
        "import), kernel (a python3 kernel runs notebooks/00-start-here.ipynb), widgets (a change sent as a "
        "browser sends it reaches the kernel), server (custody-lab serve --http answers an MCP audit). One "
        "line per check, with what to do when one fails; exit 0 when all pass, 1 otherwise."
    )


def run_check(args: argparse.Namespace) -> int:
    """Print one line per check and a last line; exit 0 when every check passed, else 1."""
    began = time.monotonic()
    print("checking this machine for the lab (about half a minute)…", flush=True)
    results = []
    for result in run_checks():
        results.append(result)
        print(format_result(result), flush=True)
    failed = [r.name for r in results if not r.ok]
    took = time.monotonic() - began
    if failed:
        print(f"{len(failed)} of {len(results)} checks failed ({', '.join(failed)}) in {took:.0f} s: see above")
        return 1
    print(f"all {len(results)} checks passed in {took:.0f} s: this machine is ready for the lab")
    return 0
