"""How fast does the case explorer answer a learner? (prints figures; asserts nothing)

    python benchmarks/bench_explorer.py

Measures, in this run on this machine:
  * route + receipt (route a case, serialise its receipt canonically, digest it) per case;
  * control change -> fully updated panel (outcome, trace, diff, receipt, matrix PNG), median/p95,
    over a learner-like sequence of changes (bytes across the limit, shape and initiator flips);
  * the embed-limit control (issue 29) against every other input, interleaved, wall and CPU, and the
    map drawn whole for each new limit with today's drawing code (the way set_policy worked before
    issue 29, but faster than then: kept glyphs, no data-limit updates; so not a "before" figure);
  * the reference: a full matplotlib redraw + PNG of the annotated matrix, per change (the stable anchor);
  * the explorer map's PNG step, before and after issue 15: one zlib stream over the whole frame
    (the previous encoder) vs re-encoding only the 16-row bands that differ from the map's
    background (``PngBands``; the same bytes as a full banded encode).
Targets from the issues: median update <= 30 ms (the embed limit's too); route + receipt <= 1 ms; a cheaper PNG step.
"""

from __future__ import annotations

import statistics
import struct
import time
import zlib
from io import BytesIO

import numpy as np

import custody_lab as cl
from custody_lab.chart import CustodyMatrix
from custody_lab.views.chart.png_bands import png
from custody_lab.widgets import CaseExplorer


def whole_frame_png(rgba: np.ndarray) -> bytes:
    """The encoder before issue 15: filter 0, one zlib stream over every row of the frame."""
    height, width = rgba.shape[:2]
    raw = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    raw[:, 0] = 0
    raw[:, 1:] = rgba[:, :, :3].reshape(height, 3 * width)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 1))
        + chunk(b"IEND", b"")
    )


def timed(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def summary(name: str, ms: list[float]) -> float:
    med = statistics.median(ms)
    p95 = sorted(ms)[int(0.95 * (len(ms) - 1))]
    print(f"{name:<44} median {med:8.3f} ms   p95 {p95:8.3f} ms   (n={len(ms)})")
    return med


def main() -> None:
    fixture = cl.load_fixture()
    draft = fixture.case("approve-draft")
    variants = [draft.with_changes(bytes=b) for b in range(0, 20000, 97)]

    def route_and_receipt(i: int) -> None:
        d = cl.route(variants[i % len(variants)])
        cl.digest(d.to_dict())

    r = summary("route + receipt + digest", timed(route_and_receipt, 5000))

    explorer = CaseExplorer("approve-draft")
    steps = []
    for b in range(500, 12000, 250):
        steps.append({"bytes": b})
    steps += [
        {"shape": "resource-link"},
        {"shape": "embedded-resource"},
        {"initiator": "application"},
        {"initiator": "model"},
        {"allowed": False},
        {"allowed": True},
    ] * 4

    def change(i: int) -> None:
        explorer.set(**steps[i % len(steps)])

    change(0)  # warm caches
    u = summary("control change -> panel fully updated", timed(change, len(steps) * 2))

    # Issue 29: the embed-limit control against every other input, interleaved in this run, wall
    # and CPU; and the whole map drawn again for a new limit (the old way, with today's drawing code).
    limits = [3000 + 37 * i for i in range(120)]
    others = [steps[i % len(steps)] for i in range(len(limits))]
    lim_wall, lim_cpu, other_wall, other_cpu = [], [], [], []
    for limit, other in zip(limits, others):
        for changes, wall, cpu in (({"embedLimitBytes": limit}, lim_wall, lim_cpu), (other, other_wall, other_cpu)):
            w0, c0 = time.perf_counter(), time.process_time()
            explorer.set(**changes)
            wall.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
    explorer.set(embedLimitBytes=4096)
    whole_matrix = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    whole_wall, whole_cpu = [], []
    for limit in limits[:15]:
        w0, c0 = time.perf_counter(), time.process_time()
        whole_matrix.policy = cl.Policy(embed_limit_bytes=limit)
        whole_matrix._build()  # the way set_policy worked before issue 29 (today's drawing code)
        whole_wall.append((time.perf_counter() - w0) * 1000)
        whole_cpu.append((time.process_time() - c0) * 1000)
    lw, lc = statistics.median(lim_wall), statistics.median(lim_cpu)
    ow, oc = statistics.median(other_wall), statistics.median(other_cpu)
    print(
        f"embed-limit change -> panel updated: median {lw:.1f} ms wall, {lc:.1f} ms CPU (n={len(lim_wall)}); "
        f"any other input, interleaved: {ow:.1f} ms wall, {oc:.1f} ms CPU"
    )
    print(
        f"  the map alone, drawn whole for a new limit (the old way, today's code; not the pre-issue-29 figure): "
        f"median "
        f"{statistics.median(whole_wall):.1f} ms wall, {statistics.median(whole_cpu):.1f} ms CPU (n=15)"
    )
    print(f"  target (issue 29): embed-limit change <= 30 ms -> {'met' if lw <= 30 else 'NOT met'} (wall)")

    from custody_lab.chart import matrix_figure

    def full_redraw(i: int) -> None:
        case = variants[i % len(variants)]
        fig = matrix_figure([*fixture.all_cases, case], highlight=case.id)
        fig.savefig(BytesIO(), format="png")

    f = summary("reference: full matrix redraw + PNG", timed(full_redraw, 15))

    # The PNG step alone, on the explorer map's own frames (cache off, so every frame is encoded).
    matrix = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    frames = []
    for i in range(60):
        matrix.render(variants[(i * 7) % len(variants)])
        frames.append(np.asarray(matrix.canvas.buffer_rgba()).copy())
    encoder = matrix._encoder
    before = summary("PNG before: one zlib stream, whole frame", timed(lambda i: whole_frame_png(frames[i]), 60))
    full_bands = summary("PNG banded, every band encoded", timed(lambda i: png(frames[i]), 60))
    after = summary("PNG after: only changed bands re-encoded", timed(lambda i: encoder.encode(frames[i]), 60))
    assert all(encoder.encode(fr) == png(fr) for fr in frames[:5])  # same bytes either way
    print(f"PNG step: {before:.2f} ms -> {after:.2f} ms ({before / after:4.1f}x); all bands {full_bands:.2f} ms")
    print(f"\nupdate vs full redraw: {f / u:5.1f}x faster; route+receipt is {r * 1000:.0f} µs")
    print(
        f"targets: update median <= 30 ms -> {'met' if u <= 30 else 'NOT met'}; "
        f"route + receipt <= 1 ms -> {'met' if r <= 1 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
