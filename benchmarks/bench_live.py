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
  handshake with ``--timeout 2`` (the bound is 2 s plus start-up and shutdown; it was 24 s).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

RAW_SERVER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "raw_mcp_server.py"


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
    return 0


def _audit_seconds(timeout: str, server_args: list[str]) -> float:
    """Wall time of one ``custody-lab audit`` process against the raw fixture server."""
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--timeout", timeout, "--"]
    t = time.perf_counter()
    subprocess.run([*cmd, sys.executable, str(RAW_SERVER), *server_args], capture_output=True, timeout=120)
    return time.perf_counter() - t


if __name__ == "__main__":
    sys.exit(main())
