"""How fast does a case file load, next to ``json.loads`` on the same file? A script that prints.

    python benchmarks/bench_loading.py [--sizes 1 4 16] [--csv-mb 0] [--repeat 3]

For each size (in MB) it writes a JSON case file of distinct cases (a distinct id and URI per row,
indented as people write them), then times ``json.loads`` on the file's text and
``custody_lab.read_cases`` on the file (scan, line numbers, duplicate-key checks and the
validation of every case). Loading is linear when the time per MB stays flat from 1 to 16 MB; the
ratio to ``json.loads`` says what the checks cost. ``load_inventory`` (the what-if reader, which
checks a good file column by column) is timed on the same file and its frame compared with the
row-by-row loader's. ``--csv-mb N`` also writes an N MB CSV file and
prints its load time and the process's peak memory next to the file's size. Nothing here asserts
a time: speed is a figure to read, not a test to pass.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from custody_lab.core.loading import read_cases
from custody_lab.sweep import load_inventory
from custody_lab.whatif.io import to_frame

HEADER = "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance,requiresCurrent"


def case(i: int) -> dict:
    """Case ``i``: every field present, a distinct id and URI, the shapes and flags varied."""
    model = i % 2 == 0
    return {
        "id": f"case-{i:07d}",
        "initiator": "model" if model else "application",
        "operation": "generate" if model else "read",
        "shape": ("resource-link", "embedded-resource", "structured-tool-result")[i % 3]
        if model
        else ("listed-resource", "templated-resource")[i % 2],
        "uri": f"kb://records/{i}/summary",
        "mime": "application/json" if i % 5 else "text/plain",
        "bytes": (i * 7919) % 20000,
        "current": i % 7 != 0,
        "allowed": i % 11 != 0,
        "sideEffects": i % 13 == 0,
        "provenance": f"records-server@{i % 97}",
        "requiresCurrent": i % 3 == 0,
    }


def json_file(path: Path, megabytes: float) -> int:
    """Write a ``{"cases": [...]}`` file of about ``megabytes`` MB; return the number of cases."""
    per_case = len(json.dumps({"cases": [case(0)]}, indent=2)) - 12
    n = max(1, int(megabytes * 1e6 / per_case))
    path.write_text(json.dumps({"cases": [case(i) for i in range(n)]}, indent=2), encoding="utf-8")
    return n


def csv_file(path: Path, megabytes: float) -> int:
    """Write a CSV case file of about ``megabytes`` MB, a row at a time; return the number of rows."""
    n = 0
    with path.open("w", encoding="utf-8") as f:
        f.write(HEADER + "\n")
        while f.tell() < megabytes * 1e6:
            c = case(n)
            f.write(",".join(str(c[k]).lower() if isinstance(c[k], bool) else str(c[k]) for k in HEADER.split(",")))
            f.write("\n")
            n += 1
    return n


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 4, 16], help="JSON file sizes in MB")
    parser.add_argument("--repeat", type=int, default=3, help="timings per size (the best is used)")
    parser.add_argument("--csv-mb", type=float, default=0, help="also load a CSV file of this many MB")
    args = parser.parse_args(argv)
    print(f"case-file loading vs json.loads · python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        for mb in args.sizes:
            path = Path(tmp) / f"cases-{mb:g}mb.json"
            n = json_file(path, mb)
            text = path.read_text(encoding="utf-8")
            size = path.stat().st_size / 1e6
            t_json = best(lambda text=text: json.loads(text), args.repeat)
            t_load = best(lambda path=path: read_cases(path), args.repeat)
            t_inv = best(lambda path=path: load_inventory(path), args.repeat)
            loaded = read_cases(path)
            same = load_inventory(path).equals(to_frame(loaded.cases))
            status = (
                "ok" if len(loaded.cases) == n and not loaded.problems else f"LOST ROWS: {len(loaded.cases)} of {n}"
            )
            print(
                f"{size:6.1f} MB, {n:7,} cases: json.loads {t_json * 1e3:8.1f} ms · read_cases {t_load * 1e3:8.1f} ms "
                f"({t_load / size * 1e3:6.1f} ms/MB) · ratio {t_load / t_json:5.1f}× · {status}"
            )
            print(
                f"{'':24}load_inventory (column-wise) {t_inv * 1e3:8.1f} ms · {t_inv / t_json:5.1f}× json.loads · "
                f"{'the same frame as the row-by-row loader' if same else 'A DIFFERENT FRAME'}"
            )
        if args.csv_mb:
            path = Path(tmp) / "cases.csv"
            n = csv_file(path, args.csv_mb)
            size = path.stat().st_size / 1e6
            before = peak_rss_mb()
            t0 = time.perf_counter()
            loaded = read_cases(path)
            t = time.perf_counter() - t0
            print(
                f"{size:6.1f} MB CSV, {n:,} rows: read_cases {t:6.1f} s ({t / n * 1e6:5.1f} µs/row) · "
                f"peak RSS {peak_rss_mb():,.0f} MB (before the load {before:,.0f} MB) · "
                f"{len(loaded.cases):,} cases, {len(loaded.problems)} problems"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
