"""Measured label geometry of the custody matrix: each label on its own case's row, no leader lines crossing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.text import Text
from matplotlib.transforms import Bbox

import custody_lab as cl
from custody_lab import data_path
from custody_lab.chart import ROWS, matrix_figure
from custody_lab.views.chart.draw import draw_static, new_figure
from custody_lab.views.chart.labelling import label_all
from custody_lab.whatif.theme import THEMES

ROW_Y = {r.shape: r.y for r in ROWS}


def _support_desk() -> list[cl.Case]:
    return cl.load_cases(data_path("inventories", "support-desk.csv"))


def _crowd(fixture, n: int = 6) -> list[cl.Case]:
    base = fixture.case("approve-draft")
    return fixture.all_cases + [base.with_changes(id=f"crowd-{i}", allowed=bool(i % 2)) for i in range(n)]


#: Layouts whose every row has room for its labels: each label sits in its case's row, no leader
#: line crosses another or runs through another case's label or marker.
ROOMY = {
    "fixture": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases)),
    "fixture-highlight": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases, highlight="denied-handbook")),
    "fixture-highlight-embed": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases, highlight="oversize-embed")),
    "fixture-dark": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases, theme="dark")),
    "fixture-2048": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases, cl.Policy(embed_limit_bytes=2048))),
    "fixture-300": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases, cl.Policy(embed_limit_bytes=300))),
}
#: Crowded rows: a label may leave its row (with a leader), but leaders still keep clear.
CROWDED = {
    "support-desk": lambda fx: (_support_desk(), matrix_figure(_support_desk())),
}
#: The smallest figure: the listed row holds three of its five labels; leaders never cross.
SMALL = {
    "fixture-small-figure": lambda fx: (fx.all_cases, matrix_figure(fx.all_cases, figsize=(9, 5.4), dpi=96)),
}
#: Beyond what the rows can hold (markers touching each other): labels never overlap.
ALL = {
    **ROOMY,
    **CROWDED,
    **SMALL,
    "seven-on-one-spot": lambda fx: (_crowd(fx), matrix_figure(_crowd(fx))),
    "support-desk-small": lambda fx: (_support_desk(), matrix_figure(_support_desk(), figsize=(9, 5.4), dpi=96)),
}


def _labels(fig) -> dict[str, object]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return {
        t.get_gid().split(":", 1)[1]: t.get_window_extent(renderer)
        for t in fig.findobj(Text)
        if (t.get_gid() or "").startswith("case-label:") and t.get_visible()
    }


def _leaders(fig) -> dict[str, tuple[float, float, float, float]]:
    """Each visible leader line as (x0, y0, x1, y1), display pixels."""
    ax = fig.axes[0]
    out = {}
    for line in ax.lines:
        gid = line.get_gid() or ""
        if gid.startswith("leader:") and line.get_visible():
            (x0, y0), (x1, y1) = ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
            out[gid.split(":", 1)[1]] = (float(x0), float(y0), float(x1), float(y1))
    return out


def _markers(fig) -> dict[str, tuple[float, float]]:
    ax = fig.axes[0]
    return {
        line.get_gid().split(":", 1)[1]: tuple(ax.transData.transform((line.get_xdata()[0], line.get_ydata()[0])))
        for line in ax.lines
        if (line.get_gid() or "").startswith("case:")
    }


def _side(p, q, r) -> float:
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])


def _segments_cross(a, b) -> bool:
    """Two segments meet (written here independently of the placer's own test)."""
    p1, p2, p3, p4 = (a[0], a[1]), (a[2], a[3]), (b[0], b[1]), (b[2], b[3])
    d1, d2, d3, d4 = _side(p3, p4, p1), _side(p3, p4, p2), _side(p1, p2, p3), _side(p1, p2, p4)
    return d1 * d2 < 0 and d3 * d4 < 0


def _runs_through(seg, box, inset: float = 1.0) -> bool:
    """The segment passes through the box's inside, sampled every half pixel."""
    n = max(2, int(np.hypot(seg[2] - seg[0], seg[3] - seg[1]) * 2))
    t = np.linspace(0.0, 1.0, n)
    xs, ys = seg[0] + (seg[2] - seg[0]) * t, seg[1] + (seg[3] - seg[1]) * t
    inside = (xs > box.x0 + inset) & (xs < box.x1 - inset) & (ys > box.y0 + inset) & (ys < box.y1 - inset)
    return bool(inside.any())


@pytest.mark.parametrize("name", list(ROOMY))
def test_every_label_sits_inside_its_own_cases_row(fixture, name):
    cases, fig = ROOMY[name](fixture)
    ax = fig.axes[0]
    labels = _labels(fig)
    assert len(labels) == len({c.id for c in cases}), f"{name}: expected a label per case, got {sorted(labels)}"
    wrong = []
    for case in cases:
        box = labels[case.id]
        top, bottom = (float(ax.transData.transform((1, ROW_Y[case.shape] + d))[1]) for d in (-0.5, 0.5))
        if box.y0 < bottom - 0.5 or box.y1 > top + 0.5:
            centre = ax.transData.inverted().transform((box.x0, (box.y0 + box.y1) / 2))[1]
            seen = min(ROWS, key=lambda r: abs(r.y - centre)).shape
            wrong.append(f"{case.id}: row {case.shape}, label on {seen} ({box.y0:.0f}..{box.y1:.0f} px)")
    assert not wrong, f"{name}: labels outside their case's row {wrong}"


LEADERS_UNCROSSED = {**ROOMY, **CROWDED, **SMALL}
LEADERS_CLEAR = {**ROOMY, **CROWDED}


@pytest.mark.parametrize("name", list(LEADERS_UNCROSSED))
def test_no_two_leader_lines_cross(fixture, name):
    _cases, fig = LEADERS_UNCROSSED[name](fixture)
    leaders = _leaders(fig)
    crossing = [(a, b) for (a, sa), (b, sb) in itertools.combinations(leaders.items(), 2) if _segments_cross(sa, sb)]
    assert not crossing, f"{name}: leader lines crossing {crossing}"


@pytest.mark.parametrize("name", list(LEADERS_CLEAR))
def test_no_leader_runs_through_another_cases_label_or_marker(fixture, name):
    _cases, fig = LEADERS_CLEAR[name](fixture)
    labels, markers = _labels(fig), _markers(fig)
    r = 4.0  # the inner part of a marker, pixels
    through = []
    for owner, seg in _leaders(fig).items():
        through += [f"{owner} through label {k}" for k, b in labels.items() if k != owner and _runs_through(seg, b)]
        for k, (mx, my) in markers.items():
            if k != owner and _runs_through(seg, Bbox.from_extents(mx - r, my - r, mx + r, my + r)):
                through.append(f"{owner} through marker {k}")
    assert not through, f"{name}: {through}"


@pytest.mark.parametrize("name", list(ALL))
def test_no_two_case_labels_overlap(fixture, name):
    _cases, fig = ALL[name](fixture)
    labels = _labels(fig)
    overlapping = [
        (a, b)
        for (a, ba), (b, bb) in itertools.combinations(labels.items(), 2)
        if min(ba.x1, bb.x1) - max(ba.x0, bb.x0) > 0.5 and min(ba.y1, bb.y1) - max(ba.y0, bb.y0) > 0.5
    ]
    assert not overlapping, f"{name}: overlapping labels {overlapping}"


def _labelled_positions(cases) -> dict[str, tuple[float, float]]:
    policy = cl.Policy()
    placed = [(c, cl.route(c, policy)) for c in cases]
    look = THEMES["light"]
    fig = new_figure((11.0, 6.6), 100, look)
    layout = draw_static(fig, placed, policy, look, title="t", faint=False, ring_legend=False)
    label_all(layout.ax, layout, placed, None, look)
    return {gid: (round(b.x0, 3), round(b.y0, 3)) for gid, b in _labels(fig).items()}


def test_labelling_the_same_cases_twice_puts_every_label_in_the_same_place(fixture):
    first = _labelled_positions(fixture.all_cases)
    assert sorted(first) == sorted(c.id for c in fixture.all_cases), sorted(first)
    again = _labelled_positions(fixture.all_cases)
    moved = {k: (first[k], again[k]) for k in first if first[k] != again[k]}
    assert not moved, f"labels moved between two identical drawings: {moved}"
