"""End to end, file → every decision: ``custody-lab sweep inventory.csv`` against Node. Prints figures.

    python benchmarks/bench_end_to_end.py [--rows 1000000] [--repeat 2]

The file is ``bench_sweep.py``'s realistic inventory (a distinct id, URI and provenance a row,
about 3 % of rows with a blank field), written once as CSV. Both sides start a fresh process
and go from the file to every row's decision:

- **the lab**: ``custody-lab sweep inventory.csv`` (the installed command: interpreter start,
  imports, ``load_inventory``, ``sweep``, the outcome counts printed);
- **Node**: ``node benchmarks/route_csv.mjs inventory.csv`` (``fs.readFileSync``, a split at line
  ends and commas with a small quoted-field reader for a line holding a quote, the seed's
  ``route`` building the custody object per row, the outcome counts).

Each side runs ``--repeat`` times, alternating (the file is in the page cache after the first);
the figure is each side's best run, wall and CPU time (this process's children's user + system
time). Issue 42's target: the lab ≤ 0.5 × Node. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import random_columns, realistic_csv, realistic_text, with_blanks  # noqa: E402

NODE_SCRIPT = Path(__file__).with_name("route_csv.mjs")


def timed(argv: list[str]) -> tuple[float, float, str]:
    """Run ``argv``; its wall seconds, CPU seconds (user + system) and standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def lab_command() -> list[str]:
    installed = Path(sys.executable).with_name("custody-lab")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "custody_lab"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    node = shutil.which("node")
    if node is None:
        print("node is not installed: no end-to-end comparison")
        return 0
    cols, text = random_columns(args.rows), realistic_text(args.rows)
    with_blanks(cols, text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inventory.csv"
        realistic_csv(cols, text, path)
        size = path.stat().st_size
        lab, ours, theirs = lab_command(), [], []
        for _ in range(args.repeat):
            theirs.append(timed([node, str(NODE_SCRIPT), str(path)]))
            ours.append(timed([*lab, "sweep", str(path)]))
    print(
        f"end to end, {args.rows:,}-row inventory CSV ({size / 1e6:.0f} MB) → every decision · "
        f"node {node_version(node)}"
    )
    node_wall, node_cpu, node_out = min(theirs)
    lab_wall, lab_cpu, lab_out = min(ours)
    summary = json.loads(node_out)
    print(
        f"Node route_csv.mjs      : {node_wall * 1e3:7.0f} ms wall, {node_cpu * 1e3:.0f} ms CPU "
        f"(best of {len(theirs)}: "
        f"{', '.join(f'{w * 1e3:.0f}' for w, _, _ in theirs)}) · inside the script {summary['seconds'] * 1e3:.0f} ms · "
        f"{summary['rows']:,} rows"
    )
    total = next((line for line in lab_out.splitlines() if line.startswith("total")), "?")
    ratio, cpu_ratio = lab_wall / node_wall, lab_cpu / node_cpu
    met = "met" if ratio <= 0.5 else "NOT met"
    print(
        f"custody-lab sweep       : {lab_wall * 1e3:7.0f} ms wall, {lab_cpu * 1e3:.0f} ms CPU (best of {len(ours)}: "
        f"{', '.join(f'{w * 1e3:.0f}' for w, _, _ in ours)}) · {' '.join(total.split())}"
    )
    print(f"lab / Node              : {ratio:.2f} × wall, {cpu_ratio:.2f} × CPU · target ≤ 0.5 × (wall): {met}")
    return 0


def node_version(node: str) -> str:
    return subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
