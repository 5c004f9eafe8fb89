"""What a learner's kernels hold: each notebook's kernel memory against its libraries' floor (prints; asserts nothing).

    python benchmarks/bench_memory.py [--notebooks 01 04] [--interval 0.05]

Executes each notebook (``nbclient``, one at a time, as ``tests/test_notebooks.py`` does, with
``MPLBACKEND=Agg`` and a throwaway progress file) and reads its kernel's resident memory (RSS, with
``psutil``: the kernel process and any process it started that is still running):

- *peak*: the largest RSS sampled every ``--interval`` seconds while the notebook ran;
- *final*: the RSS once its last cell has run: what the kernel holds while the learner moves on;
- *USS*: the final memory that belongs to this kernel alone (what shutting it down frees: the
  libraries' shared code pages are counted in every kernel's RSS, but only once by the machine);
- *floor*: in the same run, a fresh kernel that imports every third-party module the notebook's
  kernel had loaded at its end (``sys.modules`` minus the standard library and ``custody_lab``):
  the cost of the libraries the notebook really uses, before any of the lab's own code or data;
- *bare*: a fresh kernel that imports nothing (the first line).

Then the sum for a learner's path (all ten kernels left running, as JupyterLab keeps every
notebook's kernel open until it is shut down), the RSS and the USS sums, against mybinder.org's 1 GB
guarantee; and what a Binder session holds when the lab's settings work (a closed notebook's kernel
is shut down, one left idle for 20 minutes is culled): the largest two consecutive notebooks' kernels.
The issue 42 targets are printed beside them, met or not for each notebook (printed, never asserted)
and summed up after the table: final - floor <= 30 MB for every notebook; final <=
150 MB for a notebook that needs neither pandas nor the MCP SDK (its cells import neither
``pandas`` nor ``mcp`` nor the paths that load them, ``custody_lab.sweep`` and ``custody_lab.live``).

MB here is 10**6 bytes (so 1 GB = 1000 MB). The Jupyter server's own memory is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import psutil
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
MB = 10**6
BINDER_GUARANTEE_MB = 1000
TARGET_ABOVE_FLOOR_MB = 30
TARGET_LIGHT_MB = 150
#: What makes a notebook "need" pandas or the SDK: its own cells import one of these.
NEEDS = {
    "pandas": re.compile(r"^\s*(import pandas|from pandas\b|(import|from) custody_lab\.sweep\b)", re.M),
    "SDK": re.compile(r"^\s*(import mcp\b|from mcp\b|(import|from) custody_lab\.live\b)", re.M),
}
#: Run in a kernel after the notebook's last cell (once final memory is read): its third-party modules.
MODULES_PROBE = """
import json as _json, sys as _sys
print(_json.dumps(sorted(
    n for n in list(_sys.modules)
    if n.split(".")[0] not in _sys.stdlib_module_names and n.split(".")[0] != "custody_lab" and n[:2] != "__"
)))
"""
#: Run in a fresh kernel: import the given modules, parents first; print those that would not import alone.
FLOOR_IMPORT = """
import importlib as _il, json as _json, warnings as _w
_failed = []
with _w.catch_warnings():
    _w.simplefilter("ignore")
    for _name in _json.loads({names!r}):
        try:
            _il.import_module(_name)
        except BaseException:  # a module that only imports as part of its package: its package is loaded
            _failed.append(_name)
print(_json.dumps(_failed))
"""


def rss(pid: int) -> int:
    """Resident bytes of a process and of every process it started that is still running."""
    proc = psutil.Process(pid)
    total = proc.memory_info().rss
    for child in proc.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def uss(pid: int) -> int:
    """Bytes only this process (and its running children) holds: what shutting it down frees."""
    procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    total = 0
    for proc in procs:
        try:
            total += proc.memory_full_info().uss
        except psutil.NoSuchProcess:
            pass
    return total


class PeakSampler(threading.Thread):
    """Samples a process tree's RSS every ``interval`` seconds until stopped; keeps the largest."""

    def __init__(self, pid: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak = pid, interval, rss(pid)
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self.peak = max(self.peak, rss(self.pid))

    def stop(self) -> int:
        self._stop_event.set()
        self.join()
        self.peak = max(self.peak, rss(self.pid))
        return self.peak


def kernel_output(kc: object, code: str, timeout: float) -> str:
    """Run ``code`` in a kernel and return what it printed."""
    printed: list[str] = []

    def keep(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            raise RuntimeError(f"{msg['content']['ename']}: {msg['content']['evalue']}")

    kc.execute_interactive(code, timeout=timeout, output_hook=keep)  # type: ignore[attr-defined]
    return "".join(printed)


def fresh_kernel_rss(code: str, timeout: float) -> tuple[int, str]:
    """A fresh python3 kernel's RSS after running ``code``, and what the code printed."""
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(NOTEBOOKS))
    try:
        printed = kernel_output(kc, code, timeout)
        return rss(km.provisioner.pid), printed  # type: ignore[union-attr]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@dataclass
class Row:
    name: str
    floor: int
    peak: int
    final: int
    final_uss: int
    needs: tuple[str, ...]
    loaded: tuple[str, ...]
    not_importable: tuple[str, ...]
    seconds: float


def measure(path: Path, interval: float, timeout: float) -> Row:
    nb = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    client = NotebookClient(
        nb, timeout=int(timeout), kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.reset_execution_trackers()
    with client.setup_kernel():
        pid = client.km.provisioner.pid  # type: ignore[union-attr]
        sampler = PeakSampler(pid, interval)
        sampler.start()
        try:
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
        finally:
            final, final_uss = rss(pid), uss(pid)
            peak = sampler.stop()
        probe = nbformat.v4.new_code_cell(MODULES_PROBE)
        nb.cells.append(probe)
        client.execute_cell(probe, len(nb.cells) - 1)
        modules = json.loads("".join(o.get("text", "") for o in probe.outputs))
    seconds = time.perf_counter() - started
    floor, failed = fresh_kernel_rss(FLOOR_IMPORT.format(names=json.dumps(modules)), timeout)
    source = "\n".join(c.source for c in nb.cells[:-1] if c.cell_type == "code")
    needs = tuple(lib for lib, pattern in NEEDS.items() if pattern.search(source))
    heavy = ("pandas", "pyarrow", "matplotlib", "ipywidgets", "mcp")
    loaded = tuple(lib for lib in heavy if lib in modules)
    return Row(path.name[:2], floor, peak, final, final_uss, needs, loaded, tuple(json.loads(failed)), seconds)


def mb(n: float) -> str:
    return f"{n / MB:,.0f}"


def report(bare: int, rows: list[Row]) -> None:
    print(f"bare kernel (imports nothing): {mb(bare)} MB RSS")
    print()
    head = (
        "notebook",
        "floor",
        "peak",
        "final",
        "final - floor",
        f"≤ +{TARGET_ABOVE_FLOOR_MB}",
        f"≤ {TARGET_LIGHT_MB}",
        "final USS",
        "needs",
        "loads",
        "run s",
    )
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = (
            r.name,
            mb(r.floor),
            mb(r.peak),
            mb(r.final),
            f"{(r.final - r.floor) / MB:+,.0f}",
            "met" if r.final - r.floor <= TARGET_ABOVE_FLOOR_MB * MB else "not met",
            ("met" if r.final <= TARGET_LIGHT_MB * MB else "not met") if not r.needs else "(needs a library)",
            mb(r.final_uss),
            ", ".join(r.needs) or "neither",
            ", ".join(r.loaded) or "none",
            f"{r.seconds:.0f}",
        )
        print("| " + " | ".join(cells) + " |")
    print()
    print("MB = 10**6 bytes; floor, peak and final are RSS (kernel + any process it started that still runs).")
    skipped = [f"{r.name}: {', '.join(r.not_importable)}" for r in rows if r.not_importable]
    if skipped:
        print(
            "floor: modules that import only as part of their package (their package is in the floor): "
            + "; ".join(skipped)
        )
    total, total_uss = sum(r.final for r in rows), sum(r.final_uss for r in rows)
    n = len(rows)
    print()
    print(
        f"learner's path, all {n} kernels left running: RSS sum {mb(total)} MB, USS sum {mb(total_uss)} MB "
        f"(+ one copy of the shared pages) against Binder's {BINDER_GUARANTEE_MB} MB guarantee: "
        f"{'within' if total <= BINDER_GUARANTEE_MB * MB else 'over'} by RSS sum"
    )
    if n >= 2:
        pairs = [(rows[i].final + rows[i + 1].final, rows[i].name, rows[i + 1].name) for i in range(n - 1)]
        worst, a, b = max(pairs)
        print(
            f"with closed or idle kernels shut down (the notebook open and the one just left): "
            f"at most {mb(worst)} MB RSS ({a} + {b}): "
            f"{'within' if worst <= BINDER_GUARANTEE_MB * MB else 'over'} {BINDER_GUARANTEE_MB} MB"
        )
    above = [r.name for r in rows if r.final - r.floor > TARGET_ABOVE_FLOOR_MB * MB]
    print(
        f"target final - floor <= {TARGET_ABOVE_FLOOR_MB} MB: "
        + (f"not met for {', '.join(above)}" if above else f"met for all {n}")
    )
    light = [r for r in rows if not r.needs]
    over = [r.name for r in light if r.final > TARGET_LIGHT_MB * MB]
    if not light:
        verdict = "no such notebook in this run"
    elif over:
        verdict = f"not met for {', '.join(over)}"
    else:
        verdict = f"met for {', '.join(r.name for r in light)}"
    print(f"target final <= {TARGET_LIGHT_MB} MB where neither pandas nor the SDK is needed: {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="*", default=[], help="two-digit prefixes (default: every notebook)")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between peak samples")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a cell may run")
    args = parser.parse_args(argv)
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    if args.notebooks:
        paths = [p for p in paths if p.name[:2] in args.notebooks]
    if not paths:
        parser.error(f"no notebook matches {args.notebooks} in {NOTEBOOKS}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MPLBACKEND"] = "Agg"
        os.environ["CUSTODY_LAB_PROGRESS"] = str(Path(tmp) / "progress.json")
        print(
            f"python {sys.version.split()[0]}, {psutil.cpu_count()} CPUs, "
            f"{psutil.virtual_memory().total / 10**9:.1f} GB; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        )
        bare, _ = fresh_kernel_rss("pass", args.timeout)
        rows = []
        for path in paths:
            rows.append(measure(path, args.interval, args.timeout))
            print(f"  {path.name}: done in {rows[-1].seconds:.0f} s", file=sys.stderr)
    report(bare, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
