"""Live mode speed: prints figures, asserts nothing.

    python benchmarks/bench_live.py [--runs 20] [--trips 300]

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
- ``custody-lab live`` (a fresh process) against ``import mcp``, and in one fresh interpreter the
  first and a later structured exchange after ``import mcp`` — issue 15's targets: the command
  ≤ 1.5 x ``import mcp``, the first exchange ≤ 50 ms (jsonschema is loaded without its RFC 3987
  grammar, :func:`custody_lab.live.values.load_jsonschema`);
- the end-to-end audit of the MCP reference server (server-everything, pinned in ``tests/interop``;
  skipped with a note when it is not installed), the run ``tests/test_live_audit_reference.py``
  makes, against that test's time bound.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW_SERVER = ROOT / "tests" / "fixtures" / "raw_mcp_server.py"
REFERENCE = ROOT / "tests" / "interop" / "node_modules" / "@modelcontextprotocol" / "server-everything"
#: The first structured exchange in a fresh interpreter, after ``import mcp`` (issue 15).
FIRST_EXCHANGE = """
import time
t = time.perf_counter(); import mcp; t_mcp = time.perf_counter() - t
import anyio
from custody_lab.live.session import LabSession
async def go():
    t_open = time.perf_counter()
    async with LabSession() as s:  # lists the tools and loads the schema validator ahead
        t = time.perf_counter(); await s.call("calculate_risk", {"customer": "crm://customer/fixture-17"})
        first, opened = time.perf_counter() - t, time.perf_counter() - t_open
        t = time.perf_counter(); await s.call("calculate_risk", {"customer": "crm://customer/fixture-17"})
        return first, opened, time.perf_counter() - t
first, opened, later = anyio.run(go)
print(t_mcp, first, opened, later)
"""


def _import_seconds(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def _verdict(value: float, target: float) -> str:
    return "meets the target" if value <= target else "MISSES the target"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="warm fixture runs (default 20)")
    parser.add_argument("--trips", type=int, default=300, help="round trips timed (default 300)")
    args = parser.parse_args(argv)

    print(f"import mcp                        {_import_seconds('mcp'):7.3f} s  (reference)")
    print(f"import custody_lab.live.session   {_import_seconds('custody_lab.live.session'):7.3f} s")

    import anyio

    from custody_lab.live.compare import compare_fixture
    from custody_lab.live.server import HANDBOOK_URI
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
    _live_against_import_mcp()
    _reference_audit()
    return 0


def _live_against_import_mcp() -> None:
    """``custody-lab live`` and the first structured exchange, each against ``import mcp``."""
    t_mcp = statistics.median(_import_seconds("mcp") for _ in range(3))
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "custody_lab.cli", "live"], capture_output=True, timeout=120)
        runs.append(time.perf_counter() - t)
    live = statistics.median(runs)
    ratio = live / t_mcp
    print(
        f"custody-lab live (median of 3)    {live:7.3f} s  = {ratio:.2f} x import mcp ({t_mcp:.3f} s); "
        f"target ≤ 1.5 x: {_verdict(ratio, 1.5)}"
    )
    out = subprocess.run([sys.executable, "-c", FIRST_EXCHANGE], capture_output=True, text=True, timeout=120)
    _, first, opened, later = (float(x) for x in out.stdout.split())
    print(
        f"first structured exchange         {first * 1000:7.1f} ms; with the session's start "
        f"{opened * 1000:.1f} ms after import mcp, target ≤ 50 ms: {_verdict(opened, 0.05)}; "
        f"a later one {later * 1000:.1f} ms"
    )


def _reference_audit() -> None:
    """The reference-server audit the end-to-end test runs, against that test's bound."""
    if not (REFERENCE / "dist" / "index.js").is_file():
        print("audit, MCP reference server        skipped: run `npm ci --prefix tests/interop`")
        return
    sys.path.insert(0, str(ROOT))
    from tests.test_live_audit_reference import BOUND_S, CALLS

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
