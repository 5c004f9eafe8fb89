"""How fast is ``sweep`` against the seed's own Node router, on a realistic inventory? Prints figures.

    python benchmarks/bench_sweep.py [--rows 1000000] [--repeat 9] [--node-rounds 5] [--no-live]

The cases are **realistic**, as an inventory has them: a distinct id, URI and provenance on every
row, a handful of MIME types, bytes clustered around the 4096-byte limit, and about 3 % of rows
with a field left blank (an empty URI or MIME type, a provenance of only whitespace, a
``sideEffects`` nobody gave, a missing ``requiresCurrent``). The sweep reads them as:

(a) the frame ``load_inventory`` returns for the CSV those cases are written to (pyarrow strings
    with every blank cell already missing, categoricals for the closed sets);
(b) a plain pandas frame a user builds with ``pd.DataFrame({...})`` from Python lists: string
    columns as pandas 3 makes them (``str``, Arrow-backed), ``current`` / ``allowed`` True/False
    (``bool``), ``sideEffects`` / ``requiresCurrent`` True/False/NaN (``object``). Timed twice:
    the first sweep of a frame (each timed run gets a frame whose Arrow columns are new array
    objects over the same buffers, so nothing read before is reused) and the same frame swept
    again, as a what-if move does (what the sweep read from each immutable Arrow column is kept
    while that array lives);
(c) the synthetic frame of earlier versions (one URI, MIME type and provenance for every row,
    categoricals, no blanks): the lower line, the cost of the rules alone.

Two Node loops are the anchors: the seed's own ``route`` (``tests/reference/seed_router.mjs``,
which builds the custody object of every row) over (1) the same realistic cases and (2) the
synthetic ones. Each runs in its own process, once before the Python timings and once after;
its rows are built from a columnar JSON file into objects with the seed's keys (blank text as
``""``, an unknown ``sideEffects`` as ``false``, which the seed cannot tell apart) before its loop
runs ``--node-rounds`` times. The first round is cold (the JIT compiles), the later rounds are
warm and their median is the anchor, as every Python figure is the median of ``--repeat`` warm
runs (after a first, untimed sweep). Wall and CPU time are printed for both sides.

Decisions: every row in the seed's domain (no blank custody text, ``sideEffects`` given) must get
exactly Node's outcome; every other row the outcome ``custody_lab.route`` gives that case alone
(the lab's host-policy rules ``custody-incomplete`` and ``side-effects-unknown``, which the seed
has not). Both are checked in the run, row by row.

It also prints ``load_inventory`` on the CSV against ``pandas.read_csv(engine="pyarrow")`` and
the loader's peak memory against the file size, ``grid()``'s build against the sweep it feeds,
the peak memory of a sweep, and (unless ``--no-live``) ``custody-lab live``'s exchanges
(``benchmarks/bench_live.py``). Each figure is printed next to its target. Nothing here asserts a
time: speed is a figure to read, not a test to pass.
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
import pyarrow as pa

from custody_lab import route
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


def with_blanks(cols: dict[str, np.ndarray], text: dict[str, list[str]], seed: int = 20261207) -> dict[str, np.ndarray]:
    """Leave about 3 % of rows with a field blank, in place: an empty URI (1 %) or MIME type
    (0.5 %), a provenance of only spaces (0.5 %), ``sideEffects`` not given (code 2, 1 %),
    ``requiresCurrent`` not given (code 2, 1 %: false, as in the seed). Returns the mask of rows
    outside the seed's domain (blank custody text or unknown side effects)."""
    n = len(cols["bytes"])
    rng = np.random.default_rng(seed)
    text["mime"] = [MIMES[k] for k in cols["mime"].tolist()]
    outside = np.zeros(n, dtype=bool)
    for name, share, blank in (("uri", 0.01, ""), ("mime", 0.005, ""), ("provenance", 0.005, "  ")):
        rows = np.flatnonzero(rng.random(n) < share)
        for i in rows.tolist():
            text[name][i] = blank
        outside[rows] = True
    unknown = rng.random(n) < 0.01
    cols["sideEffects"] = np.where(unknown, 2, cols["sideEffects"]).astype(np.int8)
    cols["requiresCurrent"] = np.where(rng.random(n) < 0.01, 2, cols["requiresCurrent"]).astype(np.int8)
    return outside | unknown


def _flag_text(codes: np.ndarray) -> np.ndarray:
    return np.where(codes == 1, "true", np.where(codes == 0, "false", ""))


def realistic_csv(cols: dict[str, np.ndarray], text: dict[str, list[str]], path: Path) -> None:
    """Write the realistic cases as an inventory CSV (the seed's keys; flags as true/false, a flag
    nobody gave as an empty cell)."""
    n = len(cols["bytes"])
    frame = pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "initiator": np.array(INITIATORS)[cols["initiator"]],
            "operation": np.array(OPERATIONS)[np.arange(n) % len(OPERATIONS)],
            "shape": np.array(SHAPES)[cols["shape"]],
            "uri": text["uri"],
            "mime": text["mime"],
            "bytes": cols["bytes"],
            **{flag: _flag_text(cols[flag]) for flag in FLAGS},
            "provenance": text["provenance"],
        }
    )
    frame.to_csv(path, index=False)


def _flag_objects(codes: np.ndarray) -> list[object]:
    return np.array([False, True, np.nan], dtype=object)[codes].tolist()


def plain_frame(cols: dict[str, np.ndarray], text: dict[str, list[str]]) -> pd.DataFrame:
    """The same cases as a user builds them: ``pd.DataFrame`` of Python lists (pandas 3 makes the
    text ``str``, Arrow-backed; True/False/NaN flags ``object``; blank text stays as written)."""
    n = len(cols["bytes"])
    return pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "initiator": np.array(INITIATORS)[cols["initiator"]].tolist(),
            "operation": np.array(OPERATIONS)[np.arange(n) % len(OPERATIONS)].tolist(),
            "shape": np.array(SHAPES)[cols["shape"]].tolist(),
            "uri": text["uri"],
            "mime": text["mime"],
            "bytes": cols["bytes"].tolist(),
            "current": (cols["current"] == 1).tolist(),
            "allowed": (cols["allowed"] == 1).tolist(),
            "sideEffects": _flag_objects(cols["sideEffects"]),
            "provenance": text["provenance"],
            "requiresCurrent": _flag_objects(cols["requiresCurrent"]),
        }
    )


def fresh_arrow(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each Arrow-backed string column made a new Arrow array object over the same
    buffers (no copy): a frame the sweep has not read before, with the same values."""
    out = frame.copy(deep=False)
    for name in out.columns:
        array = out[name].array
        if isinstance(array, pd.arrays.ArrowStringArray):
            data = array.__arrow_array__()
            out[name] = pd.Series(
                pd.arrays.ArrowStringArray(pa.chunked_array(data.chunks, type=data.type), dtype=out[name].dtype),
                index=out.index,
            )
    return out


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
            **{flag: cols[flag] == 1 for flag in FLAGS},
            "provenance": pd.Categorical.from_codes(one, categories=["p"]),
        }
    )


def outcomes_sha256(outcome: pd.Series) -> str:
    """sha256 of the outcomes joined by newlines, each followed by one (as seed_router.mjs does)."""
    return hashlib.sha256(("\n".join(outcome.astype(str).tolist()) + "\n").encode()).hexdigest()


def runs_of(fn: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """``repeat`` timings of ``fn()``: wall seconds and this process's CPU seconds."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def median_of(fn: Callable[[], object], repeat: int) -> float:
    return statistics.median(runs_of(fn, repeat)[0])


def node_payload(cols: dict[str, np.ndarray], text: dict[str, list[str]] | None, path: Path) -> None:
    payload: dict[str, object] = {"n": int(len(cols["bytes"])), "initiators": list(INITIATORS), "shapes": list(SHAPES)}
    payload.update({k: v.tolist() for k, v in cols.items() if k != "mime"})
    if text is not None:
        payload.update(text)
    path.write_text(json.dumps(payload, separators=(",", ":")))


def run_node(path: Path, rounds: int, out: Path | None = None) -> dict | None:
    """The seed's route loop, ``rounds`` times in one fresh process (wall and CPU per round, and the
    outcomes' hash; with ``out``, the outcomes one a line)."""
    node = shutil.which("node")
    if node is None:
        return None
    argv = [node, str(ORACLE), "columns", str(path), str(rounds), *([str(out)] if out else [])]
    return json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)


def _met(value: float, target: float) -> str:
    return f"target ≤ {target:g}: {'met' if value <= target else 'NOT met'}"


def _warm(runs: list[dict], key: str) -> list[float]:
    return [t for r in runs for t in r[key][1:]] or [t for r in runs for t in r[key]]


def lab_outcomes(frame: pd.DataFrame, rows: np.ndarray) -> list[str]:
    """``custody_lab.route``'s outcome for each of ``rows`` of ``frame``, one case at a time."""
    out = []
    for case in frame.iloc[rows].astype(object).to_dict("records"):
        clean = {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in case.items()}
        clean = {k: v for k, v in clean.items() if not (k == "requiresCurrent" and v is None)}
        decision = route(clean).to_dict()
        out.append(decision.get("selected") or decision["rejection"])
    return out


def decisions(ours: np.ndarray, node: np.ndarray | None, outside: np.ndarray, lab: list[str]) -> str:
    """Rows in the seed's domain against Node's outcomes; the others against ``route`` alone."""
    inside = ~outside
    same_lab = ours[outside].tolist() == lab
    if node is None:
        return "no Node: not compared" + ("" if same_lab else "; rows outside the seed's domain DIFFER from route")
    same_node = bool((ours[inside] == node[inside]).all())
    return (
        f"{'identical to Node' if same_node else 'DIFFERENT from Node'} on the {inside.sum():,} rows in the seed's "
        f"domain; {'as route decides' if same_lab else 'DIFFERENT from route on'} the {outside.sum():,} outside it"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=9, help="Python timings (the median is used)")
    parser.add_argument("--node-rounds", type=int, default=5, help="loops per Node process (the first is cold)")
    parser.add_argument("--load-repeat", type=int, default=3, help="load_inventory and read_csv timings")
    parser.add_argument("--no-live", action="store_true", help="skip the live-exchange figures")
    args = parser.parse_args(argv)
    n = args.rows
    print(
        f"sweep vs the seed's Node route · {n:,} cases · python {sys.version.split()[0]}, numpy {np.__version__}, "
        f"pandas {pd.__version__}, node {node_version()}"
    )
    cols = random_columns(n)
    synth_cols = {k: v.copy() for k, v in cols.items()}
    text = realistic_text(n)
    outside = with_blanks(cols, text)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        csv_path = work / "inventory.csv"
        realistic_csv(cols, text, csv_path)
        size = csv_path.stat().st_size
        real_json, synth_json, node_out = work / "real.json", work / "synth.json", work / "node-outcomes.txt"
        node_payload(cols, text, real_json)
        node_payload(synth_cols, None, synth_json)

        first = run_node(real_json, args.node_rounds, node_out)  # before the Python timings
        node_runs = [first] if first else []
        synth_node = [r for r in [run_node(synth_json, args.node_rounds)] if r]
        node = np.array(node_out.read_text().split("\n")[:-1]) if first else None

        loaded = load_inventory(csv_path)
        t_load = median_of(lambda: load_inventory(csv_path), args.load_repeat)
        t_pandas = median_of(lambda: pd.read_csv(csv_path, engine="pyarrow"), args.load_repeat)
        probe = subprocess.run(
            [sys.executable, __file__, "--load-probe", str(csv_path)], capture_output=True, text=True, check=True
        )
        t0 = time.perf_counter()
        plain = plain_frame(cols, text)
        t_build = time.perf_counter() - t0
        frames = {
            "(a) as load_inventory returns it": (loaded, 0.05),
            "(b) plain pd.DataFrame(...), first sweep": (plain, 0.15),
            "(b) the same plain frame swept again": (plain, 0.15),
            "(c) synthetic (one URI/MIME/provenance)": (synthetic_frame(synth_cols), None),
        }
        lab = lab_outcomes(plain, np.flatnonzero(outside))
        timed = {}
        for label, (frame, _) in frames.items():
            if "first sweep" in label:  # a frame not read before for every run, built untimed
                result = sweep(fresh_arrow(frame))
                unread = iter([fresh_arrow(frame) for _ in range(args.repeat)])
                timed[label] = (runs_of(lambda unread=unread: sweep(next(unread)), args.repeat), result["outcome"])
                continue
            result = sweep(frame)  # warm up (and the decisions to check)
            timed[label] = (runs_of(lambda frame=frame: sweep(frame), args.repeat), result["outcome"])

        node_runs += [r for r in [run_node(real_json, args.node_rounds)] if r]  # and after them
        synth_node += [r for r in [run_node(synth_json, args.node_rounds)] if r]

    w = 50  # the width of a figure's label

    def show(label: str, text: str) -> None:
        print(f"{label:<{w}}: {text}")

    anchors = {}
    for name, runs, how in (
        ("(1) realistic", node_runs, 'the same cases, blank text as "", unknown sideEffects as false'),
        ("(2) synthetic", synth_node, "the synthetic cases of (c)"),
    ):
        if not runs:
            show(f"seed Node route {name}", "node is not installed — no ratio, no cross-check")
            anchors[name] = (float("nan"), float("nan"))
            continue
        wall, cpu = _warm(runs, "times"), _warm(runs, "cpu")
        anchors[name] = (statistics.median(wall), statistics.median(cpu))
        cold = ", ".join(f"{r['times'][0] * 1e3:.0f}" for r in runs)
        show(
            f"seed Node route {name}",
            f"{anchors[name][0] * 1e3:7.1f} ms wall, {anchors[name][1] * 1e3:.1f} ms CPU · median of {len(wall)} warm "
            f"loops in {len(runs)} processes (all warm: {', '.join(f'{t * 1e3:.0f}' for t in wall)}; cold first "
            f"loops {cold})",
        )
        show("", f"  rows: objects with the seed's keys built from columnar JSON before the loop ({how});")
        show("", "  loop: route(row) building the custody object per row, as the seed does")
    synth_hash = {r["outcomesSha256"] for r in synth_node}
    for label, ((wall, cpu), outcome) in timed.items():
        target = frames[label][1]
        synthetic = label.startswith("(c)")
        node_wall, node_cpu = anchors["(2) synthetic" if synthetic else "(1) realistic"]
        seconds, cpu_s = statistics.median(wall), statistics.median(cpu)
        ratio = seconds / node_wall
        goal = _met(ratio, target) if target is not None else "(lower line)"
        show(
            f"sweep {label}",
            f"{seconds * 1e3:7.1f} ms wall · {ratio:6.3f} × Node · CPU {cpu_s * 1e3:.1f} ms = "
            f"{cpu_s / node_cpu:.3f} × Node's · {goal}",
        )
        show("", f"  best {min(wall) * 1e3:.1f} ms, worst {max(wall) * 1e3:.1f} ms of {len(wall)}")
        if synthetic:
            same = outcomes_sha256(outcome) in synth_hash and len(synth_hash) == 1
            show("", f"  decisions: {'identical to Node' if same else 'DIFFERENT from Node'} (sha256)")
        else:
            show("", f"  decisions: {decisions(outcome.astype(str).to_numpy(), node, outside, lab)}")
    show("", f"  (b) built in {t_build * 1e3:.0f} ms; dtypes: {dict(plain.dtypes.astype(str))}")
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


def node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "absent"
    return subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()


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
