"""How fast is ``sweep`` against the seed's own Node router, on a realistic inventory? Prints figures.

    python benchmarks/bench_sweep.py [--rows 1000000] [--repeat 9] [--node-repeat 3] [--no-live]

The headline is a **realistic** frame, as a loaded inventory has it: a distinct URI and
provenance on every row, a handful of MIME types, bytes clustered around the 4096-byte limit,
written to a CSV and read back with ``load_inventory`` (what a designer's sweep starts from). The
seed's own Node ``route`` (``tests/reference/seed_router.mjs``, which builds the custody object of
every row) routes the same cases with the same URIs, MIME types and provenances; it runs
``--node-repeat`` times before the Python timings and as many times after them, in the same run,
and its figure is the median of all of those. Every Python figure is the median of ``--repeat``
runs; each sweep line also prints its best and worst run and the best against Node's best run
(on a busy machine the spread is the noise to read the figures with). The decisions of every
frame are compared row by row with Node's (sha256 of the newline-joined outcomes).

It prints: sweep ms and the ratio to Node on (1) the realistic frame as ``load_inventory``
returns it (pyarrow strings, categoricals), (2) the same cases with plain Python ``str`` columns
(``string[python]``, no pyarrow), (3) object columns, (4) the synthetic frame of earlier
versions (one URI, MIME type and provenance for every row, labelled as such); ``load_inventory``
on the CSV against ``pandas.read_csv(engine="pyarrow")`` on the same file, and the loader's peak
memory against the file size; ``grid()``'s build against the sweep it feeds; the peak memory of a
sweep; and (unless ``--no-live``) ``custody-lab live``'s exchanges against ``import mcp``
(``benchmarks/bench_live.py``). Each figure is printed next to issue 15's target. Nothing here
asserts a time: speed is a figure to read, not a test to pass.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from custody_lab.core.model import INITIATORS, OPERATIONS, SHAPES
from custody_lab.sweep import grid, load_inventory, sweep

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "tests" / "reference" / "seed_router.mjs"
FLAGS = ("current", "allowed", "sideEffects", "requiresCurrent")
TEXT = ("uri", "mime", "provenance")
MIMES = ("application/json", "text/markdown", "text/plain", "text/html", "text/csv", "image/png")


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
        "mime": rng.integers(0, len(MIMES), n, dtype=np.int8),
    }


def realistic_text(n: int) -> dict[str, list[str]]:
    """A distinct URI and provenance on every row, one of a few MIME types (as an inventory has)."""
    schemes = ("kb", "crm", "billing", "ops", "hr")
    return {
        "uri": [f"{schemes[i % 5]}://items/{i:07d}" for i in range(n)],
        "provenance": [f"{schemes[i % 5]}-server@{i % 13}.{i}" for i in range(n)],
    }


def realistic_csv(cols: dict[str, np.ndarray], text: dict[str, list[str]], path: Path) -> None:
    """Write the realistic cases as an inventory CSV (the seed's keys; flags as true/false)."""
    n = len(cols["bytes"])
    frame = pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "initiator": np.array(INITIATORS)[cols["initiator"]],
            "operation": np.array(OPERATIONS)[np.arange(n) % len(OPERATIONS)],
            "shape": np.array(SHAPES)[cols["shape"]],
            "uri": text["uri"],
            "mime": np.array(MIMES)[cols["mime"]],
            "bytes": cols["bytes"],
            **{flag: np.where(cols[flag] == 1, "true", "false") for flag in FLAGS},
            "provenance": text["provenance"],
        }
    )
    frame.to_csv(path, index=False)


def synthetic_frame(cols: dict[str, np.ndarray]) -> pd.DataFrame:
    """The earlier benchmark's frame: one-category URI, MIME type and provenance on every row."""
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


def with_text_as(frame: pd.DataFrame, dtype: object) -> pd.DataFrame:
    """The same cases with the enumerations and custody text as ``dtype`` columns."""
    out = frame.copy()
    for name in ("initiator", "operation", "shape", *TEXT):
        out[name] = out[name].astype(dtype)
    return out


def outcomes_sha256(outcome: pd.Series) -> str:
    """sha256 of the outcomes joined by newlines, each followed by one (as seed_router.mjs does)."""
    return hashlib.sha256(("\n".join(outcome.astype(str).tolist()) + "\n").encode()).hexdigest()


def times_of(fn: Callable[[], object], repeat: int) -> list[float]:
    """``repeat`` wall-clock timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def median_of(fn: Callable[[], object], repeat: int) -> float:
    return statistics.median(times_of(fn, repeat))


def node_payload(cols: dict[str, np.ndarray], text: dict[str, list[str]] | None, path: Path) -> None:
    payload: dict[str, object] = {"n": int(len(cols["bytes"])), "initiators": list(INITIATORS), "shapes": list(SHAPES)}
    payload.update({k: v.tolist() for k, v in cols.items() if k != "mime"})
    if text is not None:
        payload.update(text)
        payload["mime"] = [MIMES[k] for k in cols["mime"].tolist()]
    path.write_text(json.dumps(payload, separators=(",", ":")))


def run_node(path: Path, repeat: int) -> list[dict]:
    """The seed's route loop in ``repeat`` fresh processes (each prints its loop time and hash)."""
    node = shutil.which("node")
    if node is None:
        return []
    runs = []
    for _ in range(repeat):
        out = subprocess.run([node, str(ORACLE), "columns", str(path)], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    return runs


def _met(value: float, target: float) -> str:
    return f"target ≤ {target:g}: {'met' if value <= target else 'NOT met'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=9, help="Python timings (the median is used)")
    parser.add_argument("--node-repeat", type=int, default=3, help="Node runs before and again after Python")
    parser.add_argument("--load-repeat", type=int, default=3, help="load_inventory and read_csv timings")
    parser.add_argument("--no-live", action="store_true", help="skip the live-exchange figures")
    args = parser.parse_args(argv)
    n = args.rows
    print(
        f"sweep vs the seed's Node route · {n:,} cases · python {sys.version.split()[0]}, numpy {np.__version__}, "
        f"pandas {pd.__version__}"
    )
    cols = random_columns(n)
    text = realistic_text(n)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        csv_path = work / "inventory.csv"
        realistic_csv(cols, text, csv_path)
        size = csv_path.stat().st_size
        real_json, synth_json = work / "real.json", work / "synth.json"
        node_payload(cols, text, real_json)
        node_payload(cols, None, synth_json)

        node_runs = run_node(real_json, args.node_repeat)  # before the Python timings
        synth_node = run_node(synth_json, args.node_repeat)

        loaded = load_inventory(csv_path)
        t_load = median_of(lambda: load_inventory(csv_path), args.load_repeat)
        t_pandas = median_of(lambda: pd.read_csv(csv_path, engine="pyarrow"), args.load_repeat)
        probe = subprocess.run(
            [sys.executable, __file__, "--load-probe", str(csv_path)], capture_output=True, text=True, check=True
        )
        frames = {
            "(1) realistic, as load_inventory returns it": (loaded, 0.04),
            "(2) realistic, plain Python str columns": (with_text_as(loaded, pd.StringDtype("python")), 0.25),
            "(3) realistic, object columns": (with_text_as(loaded, object), 0.5),
            "(4) synthetic frame (one URI/MIME/provenance)": (synthetic_frame(cols), None),
        }
        timed = {}
        for label, (frame, _) in frames.items():
            sweep(frame)  # warm up
            timed[label] = (
                times_of(lambda frame=frame: sweep(frame), args.repeat),
                outcomes_sha256(sweep(frame)["outcome"]),
            )

        node_runs += run_node(real_json, args.node_repeat)  # and after them
        synth_node += run_node(synth_json, args.node_repeat)

    w = 48  # the width of a figure's label

    def show(label: str, text: str) -> None:
        print(f"{label:<{w}}: {text}")

    if node_runs:
        t_node = statistics.median(r["seconds"] for r in node_runs)
        best_node = min(r["seconds"] for r in node_runs)
        node_hash = {r["outcomesSha256"] for r in node_runs}
        all_runs = ", ".join(f"{r['seconds'] * 1e3:.0f}" for r in node_runs)
        show(
            "seed Node route, custody object per row", f"{t_node * 1e3:7.1f} ms median of {len(node_runs)} ({all_runs})"
        )
    else:
        t_node, best_node, node_hash = float("nan"), float("nan"), set()
        show("seed Node route", "node is not installed — no ratio, no cross-check")
    synth_hash = {r["outcomesSha256"] for r in synth_node}
    for label, (times, digest) in timed.items():
        target = frames[label][1]
        seconds, best = statistics.median(times), min(times)
        ratio = seconds / t_node
        want = synth_hash if label.startswith("(4)") else node_hash
        same = "identical to Node" if digest in want and len(want) == 1 else "DIFFERENT from Node"
        goal = _met(ratio, target) if target is not None else "(second line, for comparison)"
        show(
            f"sweep {label}",
            f"{seconds * 1e3:7.1f} ms · {ratio:6.3f} × Node ({1 / ratio:5.1f}× faster) · {goal} · {same}",
        )
        show(
            "",
            f"  best {best * 1e3:.1f} ms, worst {max(times) * 1e3:.1f} ms of {len(times)} · "
            f"best against Node's best: {best / best_node:.3f} ×",
        )
    show(
        f"load_inventory, {n:,}-row CSV ({size / 1e6:.0f} MB)",
        f"{t_load * 1e3:7.0f} ms · pandas.read_csv(engine='pyarrow') {t_pandas * 1e3:.0f} ms · "
        f"{t_load / t_pandas:.1f} × · {_met(t_load / t_pandas, 5)}",
    )
    peak = float(probe.stdout.split()[0])
    ratio_mem = peak * 1e6 / size
    show("load_inventory peak memory", f"{peak:7.0f} MB · {ratio_mem:.1f} × the file · {_met(ratio_mem, 3)}")

    per_size = len(grid(bytes=[0]))
    axis = list(range(max(1, n // per_size)))
    grid(bytes=axis)
    t_grid = median_of(lambda: grid(bytes=axis), args.repeat)
    g = grid(bytes=axis)
    sweep(g)
    t_gsweep = median_of(lambda: sweep(g), args.repeat)
    show(
        f"grid(), {len(g):,} rows",
        f"build {t_grid * 1e3:6.1f} ms · its sweep {t_gsweep * 1e3:.1f} ms · {t_grid / t_gsweep:.2f} × · "
        f"{_met(t_grid / t_gsweep, 2)}",
    )
    memory = subprocess.run(
        [sys.executable, __file__, "--memory-probe", str(n)], capture_output=True, text=True, check=True
    )
    print(memory.stdout.rstrip())
    if not args.no_live:
        spec = importlib.util.spec_from_file_location("bench_live", Path(__file__).with_name("bench_live.py"))
        if spec is not None and spec.loader is not None:
            live = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(live)
            live._live_against_import_mcp(live.FRESH)
    return 0


def load_probe(path: str) -> int:
    """Print load_inventory's peak memory in MB (a fresh process: the growth of VmHWM it causes)."""
    load_inventory(Path(__file__).resolve().parent.parent / "data" / "inventories" / "support-desk.csv")  # imports
    before = high_water_mb()
    frame = load_inventory(path)
    print(f"{high_water_mb() - before:.0f} {len(frame)}")
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
    frame = synthetic_frame(random_columns(n))
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
    if len(sys.argv) == 3 and sys.argv[1] == "--load-probe":
        sys.exit(load_probe(sys.argv[2]))
    sys.exit(main())
