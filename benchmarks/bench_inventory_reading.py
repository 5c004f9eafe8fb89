"""How fast does ``load_inventory`` read quoted CSVs, quoted line breaks and JSON, next to pandas? Prints.

    python benchmarks/bench_inventory_reading.py [--rows 1000000] [--repeat 2] [--only json]

Three files of the same ``--rows`` cases, shaped like ``data/inventories/support-desk.csv`` (its
fifteen rows repeated, each with its own id; titles and descriptions with commas, so quoted):

1. **quoted CSV**: the file as that inventory writes it, against ``pandas.read_csv`` with
   ``engine="pyarrow"`` (issue 29: ≤ 3 ×);
2. **quoted line breaks**: every third description runs over two lines inside its quotes, against
   ``pandas.read_csv`` (its C engine: pandas' pyarrow engine does not read quoted line breaks) and
   against pyarrow's own reader with ``newlines_in_values=True`` (issue 42: ≤ 5 ×);
3. **JSON**: the same cases as a JSON list of objects (two-space indented, as people write them),
   against ``pandas.read_json`` (issue 42: ≤ 5 ×).

Each time is the best of ``--repeat`` runs in this process (the file in the page cache for both
sides), wall and CPU (``time.process_time``: the steadier figure on a shared machine); the peak
memory is measured in a fresh process (the growth of its VmHWM while ``load_inventory`` runs)
against the file's size (issue 29: ≤ 3 ×). It also says which reader took each file (column-wise,
a JSON list a slice at a time, or the row-by-row fallback); ``--only`` runs some of the three
files. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow.csv as pacsv

from custody_lab.core.paths import data_path
from custody_lab.sweep import load_inventory
from custody_lab.whatif.inventory_csv import read_csv_frame
from custody_lab.whatif.inventory_json import json_frame
from custody_lab.whatif.io import _frame

BOOLS = ("current", "allowed", "sideEffects", "requiresCurrent")


def seed_rows() -> list[dict[str, str]]:
    with data_path("inventories", "support-desk.csv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def rows_of(n: int, line_breaks: bool) -> list[dict[str, str]]:
    base = seed_rows()
    out = []
    for i in range(n):
        row = dict(base[i % len(base)])
        row["id"] = f"{row['id']}-{i:07d}"
        if line_breaks and i % 3 == 0:
            row["description"] = row["description"] + ",\nsecond line of the note"
        out.append(row)
    return out


def write_csv(rows: list[dict[str, str]], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write_json(rows: list[dict[str, str]], path: Path) -> None:
    def case(row: dict[str, str]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in row.items():
            if key in BOOLS:
                out[key] = None if value.strip().lower() in ("", "null") else value.strip().lower() == "true"
            elif key == "bytes":
                out[key] = int(value)
            else:
                out[key] = value
        return out

    path.write_text(json.dumps([case(r) for r in rows], indent=2), encoding="utf-8")


def peak_mb(path: Path) -> float:
    """load_inventory's peak memory in MB, from bench_sweep's probe in a fresh process."""
    probe = Path(__file__).with_name("bench_sweep.py")
    out = subprocess.run([sys.executable, str(probe), "--load-probe", str(path)], capture_output=True, text=True)
    return float(out.stdout.split()[0]) if out.returncode == 0 else float("nan")


def best(fn, repeat: int) -> tuple[float, float]:
    """The best wall and the best CPU time (seconds) of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def _met(value: float, target: float) -> str:
    return f"target ≤ {target:g}: {'met' if value <= target else 'NOT met'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", nargs="+", choices=["quoted", "breaks", "json"], default=["quoted", "breaks", "json"])
    args = parser.parse_args(argv)
    n = args.rows
    print(f"load_inventory vs pandas · {n:,} cases shaped like support-desk.csv · pandas {pd.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        quoted, broken, as_json = work / "quoted.csv", work / "line-breaks.csv", work / "inventory.json"
        files = {"quoted": quoted, "breaks": broken, "json": as_json}
        for key in args.only:
            (write_json if key == "json" else write_csv)(rows_of(n, key == "breaks"), files[key])
        lines = []
        for label, path, anchors, target in (
            (
                "(1) quoted CSV",
                quoted,
                {"pandas.read_csv(engine='pyarrow')": lambda p: pd.read_csv(p, engine="pyarrow")},
                3,
            ),
            (
                "(2) quoted line breaks",
                broken,
                {
                    "pandas.read_csv()": pd.read_csv,
                    "pyarrow newlines_in_values": lambda p: pacsv.read_csv(
                        p, parse_options=pacsv.ParseOptions(newlines_in_values=True)
                    ),
                },
                5,
            ),
            ("(3) JSON list of cases", as_json, {"pandas.read_json": pd.read_json}, 5),
        ):
            if not path.exists():
                continue
            size = path.stat().st_size
            if path.suffix == ".csv":
                way = "column-wise" if read_csv_frame(path) is not None else "row by row (fallback)"
            else:
                sliced = json_frame(path, _frame) is not None
                way = "a slice at a time (inventory_json)" if sliced else "whole, then column-wise or row by row"
            ours = best(lambda path=path: load_inventory(path), args.repeat)
            theirs = {name: best(lambda fn=fn, path=path: fn(path), args.repeat) for name, fn in anchors.items()}
            peak = peak_mb(path)
            lines.append((label, size, way, ours, theirs, target, peak))
    for label, size, way, (ours, our_cpu), theirs, target, peak in lines:
        first = next(iter(theirs))
        mb, ms, cpu_ms = size / 1e6, ours * 1e3, our_cpu * 1e3
        print(f"{label:<24}: {mb:5.0f} MB · load_inventory {ms:7.0f} ms, CPU {cpu_ms:7.0f} ms ({way})")
        for name, (t, cpu) in theirs.items():
            mark = f" · {_met(ours / t, target)}" if name == first else ""
            cpu_part = f"CPU {cpu * 1e3:7.0f} ms · {our_cpu / cpu:5.1f} ×"
            print(f"{'':<24}    {name} {t * 1e3:7.0f} ms · {ours / t:5.1f} × ({cpu_part}){mark}")
        print(
            f"{'':<24}    peak memory {peak:6.0f} MB · {peak * 1e6 / size:.1f} × the file · "
            f"{_met(peak * 1e6 / size, 3)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
