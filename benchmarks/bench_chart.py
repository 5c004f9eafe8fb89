"""How fast the custody matrix redraws: the full figure vs the cached interactive map.

Run ``python benchmarks/bench_chart.py``. It prints medians and 95th percentiles, in milliseconds
of wall-clock time and of this process's CPU time (the CPU figure is steadier on a shared
machine), for

(a) a full :func:`custody_lab.chart.matrix_figure` draw of the fixture plus a PNG save (the
    reference: what a naive widget would do on every change), at the notebook size and at the
    interactive map's size;
(b) :meth:`custody_lab.chart.CustodyMatrix.render` for 200 changing cases (bytes sweeping across
    the embed limit and back, shape and initiator flipping), every case distinct so the PNG cache
    never hits; then the same cases again to show a cache hit;
(c) routing one case and serialising its receipt (``route`` + ``canonical_json(to_dict())``).

The case explorer's target is a median of 30 ms or less per change for (b).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import custody_lab as cl  # noqa: E402
from custody_lab.chart import CustodyMatrix, matrix_figure  # noqa: E402
from custody_lab.core.receipts import canonical_json  # noqa: E402


def _time(fn: Callable[[int], object], n: int, warmup: int = 1) -> tuple[list[float], list[float]]:
    for i in range(warmup):
        fn(i)
    wall, cpu = [], []
    for i in range(n):
        w0, c0 = time.perf_counter(), time.process_time()
        fn(i)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return wall, cpu


def _stats(seconds: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in seconds)
    return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def _report(name: str, timing: tuple[list[float], list[float]]) -> tuple[float, float]:
    (wm, wp), (cm, cp) = _stats(timing[0]), _stats(timing[1])
    print(
        f"{name:<46} n={len(timing[0]):>5}  wall median {wm:8.3f}  p95 {wp:8.3f}   "
        f"cpu median {cm:8.3f}  p95 {cp:8.3f}  (ms)"
    )
    return wm, cm


def sweep_cases(fixture: cl.loading.Fixture, n: int = 200) -> list[cl.Case]:
    """n distinct cases: bytes 100 B .. 63 kB and back; shape / initiator change every 9 cases."""
    base = fixture.case("approve-draft")
    flips = [
        ("model", "embedded-resource"),
        ("model", "resource-link"),
        ("model", "structured-tool-result"),
        ("application", "listed-resource"),
        ("model", "embedded-resource"),
        ("application", "templated-resource"),
        ("application", "resource-link"),  # control-shape-mismatch
    ]
    out = []
    for i in range(n):
        t = i / max(n - 1, 1)
        exponent = 2 + 2.8 * (1 - abs(2 * t - 1))  # 10**2 .. 10**4.8 .. 10**2
        initiator, shape = flips[(i // 9) % len(flips)]
        out.append(
            base.with_changes(
                id=f"sweep-{i:03d}",
                bytes=int(10**exponent) + i,
                initiator=initiator,
                shape=shape,
                sideEffects=initiator == "model" and i % 3 == 0,
            )
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--full", type=int, default=15, help="full redraws to time (default 15)")
    parser.add_argument("--frames", type=int, default=200, help="interactive frames (default 200)")
    args = parser.parse_args(argv)

    fx = cl.load_fixture()
    cases = fx.all_cases

    def full(size: tuple[float, float], dpi: float) -> Callable[[int], object]:
        def run(i: int) -> object:
            fig = matrix_figure(cases, highlight=cases[i % len(cases)].id, figsize=size, dpi=dpi)
            fig.savefig(io.BytesIO(), format="png", dpi=fig.dpi)
            return fig

        return run

    _report("(a) full matrix_figure + PNG, 11x6.6 in @100", _time(full((11, 6.6), 100), args.full))
    ref_wall, ref_cpu = _report("(a) full matrix_figure + PNG, 9x5.4 in @96", _time(full((9, 5.4), 96), args.full))

    t0 = time.perf_counter()
    matrix = CustodyMatrix(context_cases=cases)
    print(f"{'    CustodyMatrix construction (once)':<46}         wall {1000 * (time.perf_counter() - t0):8.3f} ms")
    frames = sweep_cases(fx, args.frames)
    sizes: list[int] = []
    timing = _time(lambda i: sizes.append(len(matrix.render(frames[i]))), len(frames), warmup=0)
    fast_wall, fast_cpu = _report("(b) CustodyMatrix.render, 200 changing cases", timing)
    print(f"{'    PNG size':<46}         median {statistics.median(sizes) / 1024:6.1f} KiB")
    print(
        f"{'    speed-up (a, 9x5.4) / (b), medians':<46}         wall {ref_wall / fast_wall:5.1f} x"
        f"   cpu {ref_cpu / fast_cpu:5.1f} x"
    )
    print(
        f"{'    target: (b) median <= 30 ms':<46}         "
        f"{'met' if fast_wall <= 30 else 'NOT met'} (wall {fast_wall:.1f} ms, cpu {fast_cpu:.1f} ms)"
    )
    last = frames[-20:]  # still in the 32-entry PNG cache
    _report("    render again (PNG cache hit)", _time(lambda i: matrix.render(last[i]), len(last), warmup=0))

    _report(
        "(c) route + canonical_json(receipt), per case",
        _time(lambda i: canonical_json(cl.route(cases[i % len(cases)], fx.policy).to_dict()), 5000),
    )


if __name__ == "__main__":
    main()
