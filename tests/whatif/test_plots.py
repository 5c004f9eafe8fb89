"""The what-if plots keep their words off the edges: a margin round the figure, bar labels inside their bars and axes."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from custody_lab import Policy, data_path
from custody_lab.sweep import compare, grid, load_inventory, load_policy, sweep
from custody_lab.whatif import plots
from custody_lab.whatif.compare import Comparison
from custody_lab.whatif.theme import MARGIN

matplotlib.use("Agg")

SIZES = sorted(set(range(0, 20001, 500)) | {2048, 2049, 4096, 4097})  # notebook 06's design grid


def _inventory(name: str):
    return load_inventory(data_path("inventories", name))


def _strict():
    return load_policy(data_path("policies", "strict.json"))


def _lopsided() -> Comparison:
    """A comparison whose longest bar carries the longest label: six digits and a six-digit change."""
    summary = pd.DataFrame(
        {"before": [1, 123_456], "after": [123_457, 0], "change": [123_456, -123_456]},
        index=pd.Index(["embed-over-budget", "embedded-resource"], name="outcome"),
    )
    changes = pd.DataFrame({"id": [], "before": [], "after": []})
    transitions = pd.DataFrame({"before": [], "after": [], "cases": []})
    return Comparison(Policy(), Policy(embed_limit_bytes=2048), changes, summary, transitions, 123_457)


PLOTS = {
    "share-support-desk": lambda: plots.outcome_share(sweep(_inventory("support-desk.csv")), by="shape"),
    "share-design-grid": lambda: plots.outcome_share(sweep(grid(bytes=SIZES)), by="shape"),
    "share-synthetic-by-initiator": lambda: plots.outcome_share(sweep(_inventory("synthetic-200.csv")), by="initiator"),
    "map-design-grid": lambda: plots.bytes_shape_map(sweep(grid(bytes=SIZES))),
    "map-strict": lambda: plots.bytes_shape_map(sweep(grid(bytes=SIZES), _strict()), _strict()),
    "compare-support-desk": lambda: plots.policy_comparison(compare(_inventory("support-desk.csv"), None, _strict())),
    "compare-synthetic": lambda: plots.policy_comparison(compare(_inventory("synthetic-200.csv"), None, _strict())),
    "compare-grid-thousands": lambda: plots.policy_comparison(compare(grid(bytes=SIZES), None, _strict())),
    "compare-lopsided": lambda: plots.policy_comparison(_lopsided()),
}


def _drawn(fig) -> list[Text]:
    """The figure on an Agg canvas, drawn; every visible text it draws (ticks outside the view are not)."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    undrawn = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for loc, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels()):
                if not lo - 1e-9 * (hi - lo) <= loc <= hi + 1e-9 * (hi - lo):
                    undrawn.add(id(label))
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in undrawn]


@pytest.mark.parametrize("name", list(PLOTS))
def test_every_text_keeps_the_margin_from_the_figures_edges(name):
    fig = PLOTS[name]()
    texts = _drawn(fig)
    renderer, fb = fig.canvas.get_renderer(), fig.bbox
    margin = MARGIN * fig.dpi - 0.5
    assert texts, f"{name}: no text drawn"
    close = []
    for t in texts:
        b = t.get_window_extent(renderer)
        gaps = {"left": b.x0 - fb.x0, "right": fb.x1 - b.x1, "bottom": b.y0 - fb.y0, "top": fb.y1 - b.y1}
        side, gap = min(gaps.items(), key=lambda kv: kv[1])
        if gap < margin:
            close.append(f"{t.get_text()[:40]!r}: {gap:.1f} px from the {side} edge")
    assert not close, f"{name}: expected every text at least {margin:.1f} px inside the figure, got {close}"


@pytest.mark.parametrize("name", [n for n in PLOTS if n.startswith("compare")])
def test_the_labels_at_the_bars_ends_end_inside_the_axes_with_the_margin(name):
    fig = PLOTS[name]()
    _drawn(fig)
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    right = ax.get_window_extent(renderer).x1 - (MARGIN * fig.dpi - 0.5)
    ends = [t for t in ax.texts if t.get_text().strip()]
    assert len(ends) >= 2 * len(ax.get_yticks()), f"{name}: expected two labels a row, got {len(ends)}"
    longest = max(ends, key=lambda t: t.get_window_extent(renderer).x1)
    x1 = longest.get_window_extent(renderer).x1
    assert x1 <= right, f"{name}: {longest.get_text()!r} ends at {x1:.1f} px, expected <= {right:.1f} px"


@pytest.mark.parametrize("name", [n for n in PLOTS if n.startswith("share")])
def test_each_segment_label_sits_inside_its_own_segment_a_point_clear_of_its_ends(name):
    fig = PLOTS[name]()
    _drawn(fig)
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    bars = [p.get_window_extent(renderer) for p in ax.patches if p.get_width() > 0]
    labels = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
    assert labels, f"{name}: no segment labels"
    clear = fig.dpi / 72 - 0.25  # a point, less a rounding hair
    out = []
    for t in labels:
        box = t.get_bbox_patch().get_window_extent(renderer)
        cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
        (bar,) = [b for b in bars if b.x0 <= cx <= b.x1 and b.y0 <= cy <= b.y1]
        if box.x0 < bar.x0 + clear or box.x1 > bar.x1 - clear:
            out.append(f"{t.get_text()!r}: box {box.x0:.0f}..{box.x1:.0f} px, segment {bar.x0:.0f}..{bar.x1:.0f} px")
    assert not out, f"{name}: labels poking out of their segments {out}"
