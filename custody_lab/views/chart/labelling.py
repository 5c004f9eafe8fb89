"""The case labels of the custody matrix: each beside its marker, on its own row, leaders uncrossed.

:func:`label_all` labels every case of :func:`~.draw.matrix_figure`, a cluster of touching markers
at a time: a cluster's labels stack in their row's band in their markers' top-to-bottom order
(:func:`~.placement.stack`), so that their leader lines cannot cross; a cluster its band has no
room for keeps the longest run that fits and gives the rest the best clear spot
(:func:`~.placement.place`). The whole layout is planned four times (the rows' clusters taken from
the left and from the right, alone and with close neighbours merged into one column) and the plan
with fewer leaders in the way, then fewer labels off their row, then shorter leaders is drawn.
:func:`label_case` places one label (the case explorer's).
"""

from __future__ import annotations

__all__ = ["label_all", "label_case"]

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from matplotlib.lines import Line2D
from matplotlib.text import Text

from ...core.model import Case, Decision
from ...whatif.theme import Theme
from .placement import Box, Mark, Segment, clear, crosses, cuts, leader, place, stack
from .regions import ROW_OF, ROWS, label_text
from .style import LABEL_SIZE, MARKER_SIZE, draw_text, renderer_of, ring

if TYPE_CHECKING:  # pragma: no cover
    from .draw import Layout

_PAD = 2.0  # pixels round a label's text that no other label may cover
_NOWHERE: tuple[Box, str] = ((0.0, 0.0, 0.0, 0.0), "right")


def _label_text(
    ax: Any, layout: Layout, case: Case, d: Decision, x: float, y: float, *, bold: bool, text: Text | None
) -> Text:
    """The label's text (drawn, or an existing one reused), not yet placed."""
    s = label_text(case, d)
    if text is None:
        text = draw_text(
            ax,
            x,
            y,
            s,
            ha="left",
            va="center",
            fontsize=LABEL_SIZE,
            zorder=8,
            fontweight="bold" if bold else "normal",
            color=layout.theme.text,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": layout.theme.box, "edgecolor": "none", "alpha": 0.9},
        )
    else:
        text.set_text(s)
    text.set_gid(f"case-label:{case.id}")
    return text


def _mark(ax: Any, layout: Layout, text: Text, x: float, y: float, *, ringed: bool, own: Box) -> Mark:
    """What the placer needs to know about one label: its marker's centre, its size, its gap."""
    fig = ax.figure
    ext = text.get_window_extent(renderer_of(fig))
    mx, my = ax.transData.transform((x, y))
    # A highlighted case wears a ring: keep its label clear of the ring, not just the marker.
    r = MARKER_SIZE * 2.1 / 2 * fig.dpi / 72 if ringed else layout.marker_r
    return Mark((float(mx), float(my)), (ext.width + 2 * _PAD, ext.height + 2 * _PAD), r + 2, own)


def _band(ax: Any, case: Case, x: float) -> tuple[float, float]:
    """The case's row, display pixels (bottom, top)."""
    row = ROW_OF[case.shape]
    b0 = ax.transData.transform((x, row.y + 0.5))[1]
    b1 = ax.transData.transform((x, row.y - 0.5))[1]
    return (float(min(b0, b1)), float(max(b0, b1)))


def _area(ax: Any) -> Box:
    a = ax.get_window_extent(renderer_of(ax.figure))
    return (a.x0 + 2, a.y0 + 2, a.x1 - 2, a.y1 - 2)


def _put(
    ax: Any, layout: Layout, case: Case, text: Text, mark: Mark, box: Box, side: str, leader_line: Line2D | None
) -> Line2D:
    """Move a label to its box and draw its leader from the marker's edge to the label's near edge."""
    ty = (box[1] + box[3]) / 2
    tx = box[0] + _PAD if side == "right" else box[2] - _PAD
    text.set_horizontalalignment("left" if side == "right" else "right")
    text.set_position(ax.transData.inverted().transform((tx, ty)))
    sx, sy, ex, ey = leader(mark.anchor, mark.gap - 2, box, side)
    p0 = ax.transData.inverted().transform((sx, sy))
    p1 = ax.transData.inverted().transform((ex, ey))
    if leader_line is None:
        (leader_line,) = ax.plot([], [], color=layout.theme.muted, linewidth=0.8, zorder=7, clip_on=False)
    leader_line.set_data([p0[0], p1[0]], [p0[1], p1[1]])
    dx, dy = ex - mark.anchor[0], ey - mark.anchor[1]
    leader_line.set_visible(abs(dy) > 1.5 or abs(dx) > mark.gap + 4)
    leader_line.set_gid(f"leader:{case.id}")
    return leader_line


def label_case(
    ax: Any,
    layout: Layout,
    case: Case,
    d: Decision,
    x: float,
    y: float,
    taken: list[Box],
    *,
    soft: Sequence[Box] = (),
    bold: bool = False,
    ring: bool = False,
    text: Text | None = None,
    leader: Line2D | None = None,
) -> tuple[Text, Line2D]:
    """Draw (or move) one case label and its leader line; the label's box is added to ``taken``.

    ``taken`` holds boxes a label must not cover (other labels, the map's words, markers);
    ``soft`` holds boxes it should avoid but may cover to stay in its row (faint context markers).
    """
    text = _label_text(ax, layout, case, d, x, y, bold=bold, text=text)
    mx, my = ax.transData.transform((x, y))
    own = (mx - layout.marker_r, my - layout.marker_r, mx + layout.marker_r, my + layout.marker_r)
    mark = _mark(ax, layout, text, x, y, ringed=ring, own=own)
    blockers = [t for t in taken if t != own]
    box, side = place(mark.anchor, mark.size, _band(ax, case, x), _area(ax), blockers, soft, mark.gap)
    taken.append(box)
    return text, _put(ax, layout, case, text, mark, box, side, leader)


class _Plan:
    """One labelling in progress: the boxes taken, the boxes leaders avoid, the leaders drawn."""

    def __init__(self, taken: list[Box], solid: list[Box], area: Box) -> None:
        self.taken, self.solid, self.area = list(taken), list(solid), area
        self.leaders: list[Segment] = []
        self.spots: dict[int, tuple[Box, str]] = {}

    def keep(self, index: Sequence[int], marks: Sequence[Mark], found: Sequence[tuple[Box, str]]) -> None:
        for i, m, (box, side) in zip(index, marks, found):
            self.taken.append(box)
            self.solid.append(box)
            self.leaders.append(leader(m.anchor, m.gap - 2, box, side))
            self.spots[i] = (box, side)

    def overflow(self, index: list[int], marks: list[Mark], band: tuple[float, float]) -> None:
        """A cluster too big for its band: the longest run of its labels that stacks stays in the
        band; the ones above and below it take the best clear spot one at a time, outward."""
        start, start_solid, start_leaders = len(self.taken), len(self.solid), len(self.leaders)
        order = sorted(range(len(marks)), key=lambda j: (-marks[j].anchor[1], j))  # top first
        h = max(m.size[1] for m in marks)
        most = min(len(marks) - 1, 2 * int((band[1] - band[0] + 1) // (h + 1)))
        run: list[int] = []
        for size in range(most, 0, -1):
            for a in sorted(range(len(order) - size + 1), key=lambda a: (abs(2 * a + size - len(order)), a)):
                part = order[a : a + size]
                found = stack(
                    [marks[j] for j in part], band, self.area, self.taken, solid=self.solid, leaders=self.leaders
                )
                if found is not None:
                    run = part
                    self.keep([index[j] for j in part], [marks[j] for j in part], found)
                    break
            if run:
                break
        first = order.index(run[0]) if run else len(order) // 2
        last = order.index(run[-1]) if run else first - 1
        clean = True
        for j in [*reversed(order[:first]), *order[last + 1 :]]:  # outward from the run: up, then down
            m = marks[j]
            taken, solid = [t for t in self.taken if t != m.own], [b for b in self.solid if b != m.own]
            spot = place(m.anchor, m.size, band, self.area, taken, (), m.gap, solid=solid, leaders=self.leaders)
            clean = clean and clear(m, spot, taken, solid, self.leaders)
            self.keep([index[j]], [m], [spot])
        if not clean:  # a leader in the way: one column in marker order, over the band's edges if need be
            before = self.taken[:start], self.solid[:start_solid], self.leaders[:start_leaders]
            tall = (self.area[1], self.area[3])
            found = stack(marks, tall, self.area, before[0], solid=before[1], leaders=before[2])
            if found is not None:
                self.taken, self.solid, self.leaders = list(before[0]), list(before[1]), list(before[2])
                self.keep(index, marks, found)

    def score(self, marks: dict[int, Mark], bands: dict[int, tuple[float, float]]) -> tuple[int, int, float]:
        """Leaders in the way (crossing or through a label), labels off their row, total leader length."""
        off = sum(1 for i, (box, _) in self.spots.items() if not bands[i][0] <= box[1] and box[3] <= bands[i][1])
        segs = {i: leader(marks[i].anchor, marks[i].gap - 2, box, side) for i, (box, side) in self.spots.items()}
        boxes = {i: box for i, (box, _) in self.spots.items()}
        blocked = sum(1 for i in segs for j in segs if i < j and crosses(segs[i], segs[j]))
        blocked += sum(1 for i in segs for j in boxes if i != j and cuts(segs[i], boxes[j]))
        length = sum(((s[2] - s[0]) ** 2 + (s[3] - s[1]) ** 2) ** 0.5 for s in segs.values())
        return (blocked, off, length)


_NEIGHBOURS = 48.0  # pixels: clusters on a row closer than this may share one column of labels


def _neighbours(clusters: list[list[int]], marks: Mapping[int, Mark], rows: Mapping[int, str]) -> list[list[int]]:
    """The clusters (row by row, left to right), with neighbours on one row closer than
    :data:`_NEIGHBOURS` merged."""
    out: list[list[int]] = []
    for cluster in clusters:
        last = out[-1] if out else None
        if last is not None and rows[last[0]] == rows[cluster[0]]:
            gap = min(marks[i].anchor[0] for i in cluster) - max(marks[i].anchor[0] for i in last)
            if gap < _NEIGHBOURS:
                last.extend(cluster)
                continue
        out.append(list(cluster))
    return out


def label_all(
    ax: Any, layout: Layout, placed: Sequence[tuple[Case, Decision]], highlight: str | None, look: Theme
) -> None:
    """Label every case of a matrix (the module's docstring says how); ring the highlighted one.

    The highlighted case's cluster is labelled first; clusters its band has no room for come after
    every cluster that fits, the biggest first.
    """
    positions = layout.positions
    rank = {r.shape: k for k, r in enumerate(ROWS)}
    texts: dict[int, Text] = {}
    marks: dict[int, Mark] = {}
    bands: dict[int, tuple[float, float]] = {}
    for i, (case, d) in enumerate(placed):
        x, y = positions[i]
        lit = case.id == highlight
        if lit:
            ax.plot([x], [y], **ring(look), zorder=6, clip_on=False)[0].set_gid("highlight-ring")
        texts[i] = _label_text(ax, layout, case, d, x, y, bold=lit, text=None)
        marks[i] = _mark(ax, layout, texts[i], x, y, ringed=lit, own=layout.marker_boxes[i])
        bands[i] = _band(ax, case, x)
    taken: list[Box] = layout.text_boxes + layout.marker_boxes
    solid = [b for b in taken if b != layout.limit_box]  # a leader may cross the limit line
    shapes = {i: c.shape for i, (c, _) in enumerate(placed)}
    groupings = (layout.clusters, _neighbours(layout.clusters, marks, shapes))
    best: tuple[tuple[int, int, float], _Plan] | None = None
    for groups, direction in itertools.product(groupings, (1, -1)):

        def key(cluster: list[int], direction: int = direction) -> tuple[bool, int, float, int]:
            lit = any(placed[i][0].id == highlight for i in cluster)
            x = min(positions[i][0] for i in cluster)
            return (not lit, rank[placed[cluster[0]][0].shape], direction * x, cluster[0])

        plan = _Plan(taken, solid, _area(ax))
        pending = []
        for cluster in sorted(groups, key=key):
            ms = [marks[i] for i in cluster]
            found = stack(ms, bands[cluster[0]], plan.area, plan.taken, solid=plan.solid, leaders=plan.leaders)
            if found is None:
                pending.append(cluster)
            else:
                plan.keep(cluster, ms, found)
        for cluster in sorted(pending, key=lambda c: -len(c)):
            plan.overflow(cluster, [marks[i] for i in cluster], bands[cluster[0]])
        score = plan.score(marks, bands)
        if best is None or score < best[0]:
            best = (score, plan)
    assert best is not None
    for i, (case, _) in enumerate(placed):
        box, side = best[1].spots.get(i, _NOWHERE)
        _put(ax, layout, case, texts[i], marks[i], box, side, None)
