"""How fast is ``sweep`` against the seed's own Node router? A script that prints figures.

    python benchmarks/bench_sweep.py [--rows 1000000] [--no-big]

It draws the same N random seed-domain cases for both sides (every field present and well typed,
bytes clustered around the 4096-byte limit), writes them as the columnar JSON the ``columns`` mode
of ``tests/reference/seed_router.mjs`` reads, and runs Node's route loop and ``sweep`` in the same
run. Node prints its loop time and the sha256 of the newline-joined outcomes; the script hashes
``sweep``'s outcomes the same way, so equal hashes mean identical decisions row by row.

It also times ``sweep`` on a frame of plain text columns, prints rows/s at 100k and 10M rows (the
cost should grow linearly), the time to read a 100k-row inventory CSV with ``read_grid`` (the
same reader and case validation as ``custody-lab route``) and the peak memory a 1M-row sweep
allocates. Nothing here asserts a
time: speed is a figure to read, not a test to pass.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from custody_lab.core.model import INITIATORS, SHAPES
from custody_lab.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "tests" / "reference" / "seed_router.mjs"
FLAGS = ("current", "allowed", "sideEffects", "requiresCurrent")


def random_columns(n: int, seed: int = 20260904) -> dict[str, np.ndarray]:
    """N seed-domain cases as small-integer columns (codes into INITIATORS / SHAPES, 0/1 flags)."""
    rng = np.random.default_rng(seed)
    near = rng.integers(4090, 4103, n)  # around the seed's 4096-byte embed limit
    wide = rng.integers(0, 20001, n)
    return {
        "initiator": rng.integers(0, len(INITIATORS), n, dtype=np.int8),
        "shape": rng.integers(0, len(SHAPES), n, dtype=np.int8),
        "bytes": np.where(rng.random(n) < 0.3, near, wide).astype(np.int64),
        "current": (rng.random(n) < 0.7).astype(np.int8),
        "allowed": (rng.random(n) < 0.8).astype(np.int8),
        "sideEffects": (rng.random(n) < 0.3).astype(np.int8),
        "requiresCurrent": (rng.random(n) < 0.4).astype(np.int8),
    }


def categorical_frame(cols: dict[str, np.ndarray]) -> pd.DataFrame:
    """The frame the lab's own grid() and loaders produce: categoricals and numpy booleans."""
    n = len(cols["bytes"])
    one = np.zeros(n, dtype=np.int8)
    return pd.DataFrame(
        {
            "initiator": pd.Categorical.from_codes(cols["initiator"], categories=list(INITIATORS)),
            "shape": pd.Categorical.from_codes(cols["shape"], categories=list(SHAPES)),
            "uri": pd.Categorical.from_codes(one, categories=["u://x"]),
            "mime": pd.Categorical.from_codes(one, categories=["m/x"]),
            "bytes": cols["bytes"],
            **{flag: cols[flag].astype(bool) for flag in FLAGS},
            "provenance": pd.Categorical.from_codes(one, categories=["p"]),
        }
    )


def string_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The same cases with every text column as plain pandas strings."""
    out = frame.copy()
    for name in ("initiator", "shape", "uri", "mime", "provenance"):
        out[name] = out[name].astype("str")
    return out


def outcomes_sha256(outcome: pd.Series) -> str:
    """sha256 of the outcomes joined by newlines, each followed by one (as seed_router.mjs does)."""
    return hashlib.sha256(("\n".join(outcome.astype(str).tolist()) + "\n").encode()).hexdigest()


def best_of(fn, repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), times


def run_node(cols: dict[str, np.ndarray], workdir: Path, repeat: int) -> dict | None:
    """Run the seed's route loop ``repeat`` times (fresh processes); keep every loop time."""
    node = shutil.which("node")
    if node is None:
        return None
    path = workdir / "columns.json"
    payload = {"n": int(len(cols["bytes"])), "initiators": list(INITIATORS), "shapes": list(SHAPES)}
    payload.update({k: v.tolist() for k, v in cols.items()})
    path.write_text(json.dumps(payload, separators=(",", ":")))
    runs = []
    for _ in range(repeat):
        out = subprocess.run([node, str(ORACLE), "columns", str(path)], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    hashes = {r["outcomesSha256"] for r in runs}
    return {
        "seconds": min(r["seconds"] for r in runs),
        "all": [r["seconds"] for r in runs],
        "outcomesSha256": runs[0]["outcomesSha256"] if len(hashes) == 1 else "node runs disagree",
    }


def read_figure(n: int) -> str:
    """Time reading an n-row inventory CSV for a sweep: the one reader ``route`` uses too, so every
    row is validated as a case before the columns are built (once) for the vectorised sweep."""
    from custody_lab.sweep import read_grid

    frame = categorical_frame(random_columns(n, seed=n))
    frame.insert(0, "id", [f"c{i}" for i in range(n)])
    frame.insert(2, "operation", "read")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inventory.csv"
        frame.to_csv(path, index=False)  # flags as True/False: read in any letter case
        t0 = time.perf_counter()
        read = read_grid(path)
        t = time.perf_counter() - t0
    assert len(read) == n
    return (
        f"read_grid, {n:,}-row CSV: {t * 1e3:8.1f} ms · {t / n * 1e6:5.1f} µs/row "
        "(the reader route uses; every row validated as a case)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=25, help="sweep timings (the best is used)")
    parser.add_argument("--node-repeat", type=int, default=3, help="Node runs (the best loop time is used)")
    parser.add_argument("--no-big", action="store_true", help="skip the 10M-row run")
    parser.add_argument("--read-rows", type=int, default=100_000, help="rows of the CSV read by read_grid")
    args = parser.parse_args(argv)
    n = args.rows

    print(
        f"sweep vs the seed's Node router · {n:,} random seed-domain cases · python {sys.version.split()[0]}, "
        f"numpy {np.__version__}, pandas {pd.__version__}"
    )
    cols = random_columns(n)
    frame = categorical_frame(cols)

    with tempfile.TemporaryDirectory() as tmp:
        node = run_node(cols, Path(tmp), args.node_repeat)

    sweep(frame)  # warm up (imports, lookup tables)
    t_cat, runs = best_of(lambda: sweep(frame), args.repeat)
    result = sweep(frame)
    ours = outcomes_sha256(result["outcome"])
    print(
        f"sweep, categorical frame : {t_cat * 1e3:8.1f} ms best of {args.repeat} "
        f"(median {statistics.median(runs) * 1e3:.1f} ms) · {n / t_cat / 1e6:6.1f} M rows/s"
    )

    strings = string_frame(frame)
    t_str, _ = best_of(lambda: sweep(strings), 5)
    print(
        f"sweep, plain string frame: {t_str * 1e3:8.1f} ms · {n / t_str / 1e6:6.1f} M rows/s "
        f"(text is mapped to codes once per call)"
    )
    same_strings = outcomes_sha256(sweep(strings)["outcome"]) == ours

    if node is None:
        print("node                     : not installed — no Node timing or cross-check")
    else:
        runs = ", ".join(f"{t * 1e3:.0f}" for t in node["all"])
        print(
            f"node route loop          : {node['seconds'] * 1e3:8.1f} ms best of {len(node['all'])} ({runs} ms) · "
            f"{n / node['seconds'] / 1e6:6.1f} M rows/s"
        )
        print(
            f"ratio node / sweep       : {node['seconds'] / t_cat:8.1f}× (categorical) · "
            f"{node['seconds'] / t_str:.1f}× (strings) · goal ≥ 20×"
        )
        verdict = "IDENTICAL" if node["outcomesSha256"] == ours else "DIFFERENT"
        print(f"decisions, row by row    : {verdict} (sha256 node {node['outcomesSha256'][:16]}… sweep {ours[:16]}…)")
    print(f"string frame decisions   : {'identical' if same_strings else 'DIFFERENT'} to the categorical frame's")

    counts = result["outcome"].value_counts(sort=False)
    print("outcome mix              : " + ", ".join(f"{k} {v / n:.1%}" for k, v in counts.items() if v))

    # How the cost grows: rows/s at 100k, the main size and 10M rows (each a categorical frame).
    sizes = [100_000, n] + ([] if args.no_big else [10_000_000])
    for m in sizes:
        if m == n:
            t = t_cat
        else:
            big = categorical_frame(random_columns(m, seed=m))
            sweep(big)
            t, _ = best_of(lambda big=big: sweep(big), 9 if m < 5_000_000 else 3)
            del big
        print(f"rows/s at {m:>10,}     : {m / t / 1e6:6.1f} M rows/s ({t * 1e3:7.1f} ms, {t / m * 1e9:5.1f} ns/row)")
    print(
        "                           (a call also has a fixed cost of about half a millisecond — checking "
        "the columns, building the result frame — which shows at 100k rows)"
    )

    print(read_figure(args.read_rows))

    # Peak memory of a 1M-row sweep, measured in a fresh process so nothing above (the Node
    # payload, the 10M frames) inflates it: the high-water RSS of the whole process (Python,
    # pandas, the input frame and the sweep) and what the sweep itself allocated (tracemalloc).
    probe = subprocess.run(
        [sys.executable, __file__, "--memory-probe", str(n)], capture_output=True, text=True, check=True
    )
    print(probe.stdout.rstrip())
    return 0


def high_water_mb() -> float:
    """This process's peak resident memory in MB: VmHWM on Linux (reset by exec, unlike
    ru_maxrss, which a child inherits from the parent that forked it), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024 if sys.platform != "darwin" else rss / 1024 / 1024


def memory_probe(n: int) -> int:
    """Print the peak memory of one n-row sweep (run in a fresh process by main)."""
    frame = categorical_frame(random_columns(n))
    sweep(frame.head(1000))  # imports and lookup tables, outside the measurement
    before = high_water_mb()
    tracemalloc.start()
    out = sweep(frame)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"peak memory, {n:,}-row sweep: process high-water RSS {high_water_mb():.0f} MB (budget 500 MB; "
        f"{before:.0f} MB before the sweep, incl. generating the cases) · the sweep itself allocated at most "
        f"{peak / 1e6:.1f} MB · input frame {frame.memory_usage(deep=True).sum() / 1e6:.1f} MB, "
        f"result {out.memory_usage(deep=True).sum() / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--memory-probe":
        sys.exit(memory_probe(int(sys.argv[2])))
    sys.exit(main())
