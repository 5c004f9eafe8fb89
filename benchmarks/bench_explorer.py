"""How fast does the case explorer answer a learner? (prints figures; asserts nothing)

    python benchmarks/bench_explorer.py

Measures, in this run on this machine:
  * route + receipt (route a case, serialise its receipt canonically, digest it) per case;
  * control change -> fully updated panel (outcome, trace, diff, receipt, matrix PNG), median/p95,
    over a learner-like sequence of changes (bytes across the limit, shape and initiator flips);
  * the reference: a full matplotlib redraw + PNG of the annotated matrix, per change.
Targets from the issue: median update <= 30 ms; route + receipt <= 1 ms.
"""

from __future__ import annotations

import statistics
import time
from io import BytesIO

import custody_lab as cl
from custody_lab.widgets import CaseExplorer


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

    from custody_lab.chart import matrix_figure

    def full_redraw(i: int) -> None:
        case = variants[i % len(variants)]
        fig = matrix_figure([*fixture.all_cases, case], highlight=case.id)
        fig.savefig(BytesIO(), format="png")

    f = summary("reference: full matrix redraw + PNG", timed(full_redraw, 15))
    print(f"\nupdate vs full redraw: {f / u:5.1f}x faster; route+receipt is {r * 1000:.0f} µs")
    print(
        f"targets: update median <= 30 ms -> {'met' if u <= 30 else 'NOT met'}; "
        f"route + receipt <= 1 ms -> {'met' if r <= 1 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
