"""Live mode speed: prints figures, asserts nothing.

    python benchmarks/bench_live.py [--runs 20] [--trips 300] [--fresh 7] [--only-first]

Prints, each in a fresh interpreter where imports are concerned:

- the import time of ``mcp`` (for reference) and of ``custody_lab.live.session`` (what ``LabSession`` loads);
- the live fixture (all six exchanges with a fresh in-process lab server): the first run, which
  pays for the SDK's lazy imports (``jsonschema``, used to check structured tool output), and the
  median of the warm runs after it — the target is ≤ 0.5 s;
- the per-round-trip median of a plain ``resources/read`` on an open session — the target is
  ≤ 2 ms — and of a recorded read (which adds two state-ledger reads to observe side effects);
- ``custody-lab audit`` over stdio against ``tests/fixtures/raw_mcp_server.py``: a healthy
  server listing 200 resources in pages of 2 (100 pages), and a server that hangs on the
  handshake with ``--timeout 2`` (the bound is 2 s plus start-up and shutdown; it was 24 s);
- issue 15's live figures, medians of ``--fresh`` fresh interpreters run interleaved in the same
  run, with bytecode cached as an installed lab has it (:func:`fresh_env`): the ``custody-lab live``
  process against a ``python -c 'import mcp'`` process, wall time (target ≤ 1.5 x) and CPU time;
  and after ``import mcp`` the session's start plus the first exchange (target ≤ 50 ms; CPU time
  beside it) for a structured result, the worst first exchange (the SDK imports ``jsonschema`` to
  check it against the tool's output schema, with every format module ``jsonschema`` finds: the
  lab no longer hides any of them from the process), and for a read; then the same with the lab's
  own import, and a later exchange; and ``import jsonschema`` alone, the part of that first
  structured result the lab accepts rather than hides. ``--only-first`` prints only these;
- the end-to-end audit of the MCP reference server (server-everything, pinned in ``tests/interop``;
  skipped with a note when it is not installed), the run ``tests/live/test_audit_reference_server.py``
  makes, against that test's time bound.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW_SERVER = ROOT / "tests" / "fixtures" / "raw_mcp_server.py"
REFERENCE = ROOT / "tests" / "interop" / "node_modules" / "@modelcontextprotocol" / "server-everything"
#: The first exchange in a fresh interpreter after ``import mcp`` (issue 15): the lab's import, the
#: session's start (a fresh lab server, the handshake, the listings) and the first and a later
#: exchange of one kind (``read`` or ``call``); prints the seconds and whether both were accepted.
FIRST_EXCHANGE = """
import sys, time
t = time.perf_counter(); import mcp; t_mcp = time.perf_counter() - t
t = time.perf_counter()
import anyio
from custody_lab.live.session import LabSession
t_import = time.perf_counter() - t
async def go():
    t_open, cpu_open = time.perf_counter(), time.process_time()
    async with LabSession() as s:
        opened = time.perf_counter() - t_open
        if sys.argv[1] == "read":
            exchange = lambda: s.read("kb://handbook/v4")
        else:
            exchange = lambda: s.call("calculate_risk", {"customer": "crm://customer/fixture-17"})
        t = time.perf_counter(); first = await exchange(); t_first = time.perf_counter() - t
        cpu = time.process_time() - cpu_open
        t = time.perf_counter(); later = await exchange(); t_later = time.perf_counter() - t
        return opened, t_first, t_later, cpu, first.accepted and later.accepted
opened, t_first, t_later, cpu, ok = anyio.run(go)
print(t_mcp, t_import, opened, t_first, t_later, cpu, ok)
"""


#: Fresh interpreters per live figure (``--fresh``); bench_sweep.py uses the same.
FRESH = 7


def fresh_env(cache_dir: str) -> dict[str, str]:
    """The environment of the timed interpreters: bytecode cached, as an installed lab has it.

    Under ``PYTHONDONTWRITEBYTECODE`` every run would recompile the modules whose cached bytecode
    is missing or stale; here the cache goes to ``cache_dir`` (``PYTHONPYCACHEPREFIX``), never into
    the working tree, and one untimed run of each command fills it first.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache_dir
    return env


def _import_seconds(module: str, env: dict[str, str] | None = None) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip())


def _verdict(value: float, target: float) -> str:
    return "meets the target" if value <= target else "MISSES the target"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="warm fixture runs (default 20)")
    parser.add_argument("--trips", type=int, default=300, help="round trips timed (default 300)")
    parser.add_argument(
        "--fresh", type=int, default=FRESH, help=f"fresh interpreters per live figure (default {FRESH})"
    )
    parser.add_argument("--only-first", action="store_true", help="print only issue 15's live figures")
    args = parser.parse_args(argv)
    if args.only_first:
        _live_against_import_mcp(args.fresh)
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-live-pyc-") as cache:
        env = fresh_env(cache)
        _import_seconds("custody_lab.live.session", env)  # fills the bytecode cache
        print(f"import mcp                        {_import_seconds('mcp', env):7.3f} s  (reference)")
        print(f"import custody_lab.live.session   {_import_seconds('custody_lab.live.session', env):7.3f} s")

    import anyio

    from custody_lab.live.lab_server import HANDBOOK_URI
    from custody_lab.live.receipt_diff import compare_fixture
    from custody_lab.live.session import LabSession, record_fixture

    async def fixture_once() -> float:
        t = time.perf_counter()
        receipts = await record_fixture()
        elapsed = time.perf_counter() - t
        if not all(c.agrees for c in compare_fixture(receipts)):
            print("warning: a live receipt differs from the simulator", file=sys.stderr)
        return elapsed

    async def trips() -> tuple[list[float], list[float]]:
        raw: list[float] = []
        recorded: list[float] = []
        async with LabSession() as session:
            client = session.client
            for _ in range(args.trips):
                t = time.perf_counter()
                await client.read_resource(HANDBOOK_URI, cache_mode="bypass")
                raw.append(time.perf_counter() - t)
            for _ in range(max(1, args.trips // 3)):
                t = time.perf_counter()
                await session.read(HANDBOOK_URI, cache_mode="bypass")
                recorded.append(time.perf_counter() - t)
        return raw, recorded

    async def run() -> None:
        first = await fixture_once()
        warm = [await fixture_once() for _ in range(args.runs)]
        median = statistics.median(warm)
        print(f"live fixture, first run           {first:7.3f} s  (includes the SDK's lazy imports)")
        print(f"live fixture, warm median of {args.runs:<3}  {median:7.3f} s  target ≤ 0.5 s: {_verdict(median, 0.5)}")
        raw, recorded = await trips()
        raw_ms = statistics.median(raw) * 1000
        rec_ms = statistics.median(recorded) * 1000
        print(f"round trip, median of {len(raw):<4}        {raw_ms:7.3f} ms target ≤ 2 ms: {_verdict(raw_ms, 2.0)}")
        print(f"recorded read (3 round trips)     {rec_ms:7.3f} ms median of {len(recorded)}")

    anyio.run(run)
    for label, timeout, server_args in (
        ("audit, 200 resources in 100 pages", "10", ["--mode", "paginated", "--resources", "200"]),
        ("audit, hang on initialize, 2 s", "2", ["--mode", "hang-initialize"]),
    ):
        print(f"{label:<34}{_audit_seconds(timeout, server_args):7.3f} s  (exit code aside; a fresh process)")
    _live_against_import_mcp(args.fresh)
    _reference_audit()
    return 0


def _live_against_import_mcp(fresh: int) -> None:
    """``custody-lab live`` and the first exchanges, each against ``import mcp`` in the same run.

    Every figure is the median of ``fresh`` fresh interpreters (the range beside it), the commands
    interleaved so that the machine's load falls on all of them alike.
    """
    with tempfile.TemporaryDirectory(prefix="bench-live-pyc-") as cache:
        env = fresh_env(cache)
        live_cmd = [sys.executable, "-m", "custody_lab.cli", "live"]
        first_cmd = [sys.executable, "-c", FIRST_EXCHANGE]
        for cmd in (live_cmd, [*first_cmd, "read"], [*first_cmd, "call"]):  # fills the bytecode cache
            subprocess.run(cmd, capture_output=True, timeout=120, env=env, check=True)
        mcp_s: list[float] = []  # the in-process import time
        schema_s: list[float] = []  # import jsonschema alone, in-process
        procs: dict[str, list[tuple[float, float]]] = {"mcp": [], "live": []}  # (wall, CPU) per process
        firsts: dict[str, list[list[float]]] = {"call": [], "read": []}
        for _ in range(fresh):
            mcp_s.append(float(_timed(procs["mcp"], [sys.executable, "-c", IMPORT_MCP], env).stdout))
            schema_s.append(_import_seconds("jsonschema", env))
            _timed(procs["live"], live_cmd, env)
            for kind, runs in firsts.items():
                out = subprocess.run([*first_cmd, kind], capture_output=True, text=True, timeout=120, env=env)
                *seconds, ok = out.stdout.split() or ["no output"]
                if out.returncode or ok != "True":
                    print(
                        f"warning: a timed {kind} exchange failed or was refused: {out.stderr[-300:]}", file=sys.stderr
                    )
                    continue
                runs.append([float(x) for x in seconds])
    (mcp_wall, mcp_cpu), (live_wall, live_cpu) = (
        [statistics.median(x[i] for x in procs[k]) for i in (0, 1)] for k in ("mcp", "live")
    )
    ratio = live_wall / mcp_wall
    print(
        f"python -c 'import mcp', median of {fresh:<3} {mcp_wall:7.3f} s  {_spread([w for w, _ in procs['mcp']], 1)}; "
        f"CPU {mcp_cpu:.3f} s; the import alone {statistics.median(mcp_s):.3f} s"
    )
    print(
        f"custody-lab live, median of {fresh:<3}    {live_wall:7.3f} s  {_spread([w for w, _ in procs['live']], 1)}; "
        f"CPU {live_cpu:.3f} s"
    )
    print(
        f"  = {ratio:.2f} x the import mcp process (CPU time: {live_cpu / mcp_cpu:.2f} x, less moved by the "
        f"machine's load); target ≤ 1.5 x: {_verdict(ratio, 1.5)}"
    )
    print(
        f"import jsonschema, median of {fresh:<3}     {statistics.median(schema_s):7.3f} s  {_spread(schema_s, 1)}; "
        "paid by the first structured result (the SDK's output-schema check), every format module included"
    )
    for kind, label in (("call", "a structured result (calculate_risk)"), ("read", "a read (kb://handbook/v4)")):
        runs = firsts[kind]
        if not runs:
            continue
        lab_import, opened, first, later, cpu = ([r[i] for r in runs] for i in range(1, 6))
        start_and_first = [o + f for o, f in zip(opened, first, strict=True)]
        ms = statistics.median(start_and_first) * 1000
        print(f"first exchange after import mcp, {label}, median of {len(runs)}:")
        print(
            f"  session start + first exchange  {ms:7.1f} ms {_spread(start_and_first, 1000)}  "
            f"target ≤ 50 ms: {_verdict(ms, 50)}; CPU {statistics.median(cpu) * 1000:.1f} ms"
        )
        print(
            f"    of which the session's start {statistics.median(opened) * 1000:.1f} ms "
            f"(a fresh lab server, handshake, listings), the exchange {statistics.median(first) * 1000:.1f} ms"
        )
        with_import = [i + s for i, s in zip(lab_import, start_and_first, strict=True)]
        print(f"  the same plus the lab's import  {statistics.median(with_import) * 1000:7.1f} ms (no target)")
        print(f"  a later exchange                {statistics.median(later) * 1000:7.1f} ms")


IMPORT_MCP = "import time; t = time.perf_counter(); import mcp; print(time.perf_counter() - t)"


def _timed(into: list[tuple[float, float]], cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` to completion (it must succeed); append its wall and CPU seconds to ``into``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    into.append((wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime))
    return out


def _spread(values: list[float], scale: float) -> str:
    """``(min–max)`` of ``values`` times ``scale``: the noise beside a median."""
    digits = 3 if scale == 1 else 1
    return f"({min(values) * scale:.{digits}f}–{max(values) * scale:.{digits}f})"


def _reference_audit() -> None:
    """The reference-server audit the end-to-end test runs, against that test's bound."""
    if not (REFERENCE / "dist" / "index.js").is_file():
        print("audit, MCP reference server        skipped: run `npm ci --prefix tests/interop`")
        return
    sys.path.insert(0, str(ROOT))
    from tests.live.test_audit_reference_server import BOUND_S, CALLS

    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--json", "--follow-links", "--timeout", "10"]
    for call in CALLS:
        cmd += ["--allow-calls", call]
    t = time.perf_counter()
    subprocess.run(
        [*cmd, "--", "node", str(REFERENCE / "dist" / "index.js"), "stdio"], capture_output=True, timeout=BOUND_S
    )
    elapsed = time.perf_counter() - t
    print(
        f"audit, MCP reference server       {elapsed:7.3f} s  (every capability, links followed); "
        f"the test's bound {BOUND_S} s"
    )


def _audit_seconds(timeout: str, server_args: list[str]) -> float:
    """Wall time of one ``custody-lab audit`` process against the raw fixture server."""
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--timeout", timeout, "--"]
    t = time.perf_counter()
    subprocess.run([*cmd, sys.executable, str(RAW_SERVER), *server_args], capture_output=True, timeout=120)
    return time.perf_counter() - t


if __name__ == "__main__":
    sys.exit(main())
