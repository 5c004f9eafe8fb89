"""Where a case's label goes: a deterministic search for a box next to its marker.

Pure geometry in display pixels (no matplotlib): the drawing measures the labels and the boxes
they must avoid, :func:`stack` (a cluster of markers) or :func:`place` (one marker) chooses, the
drawing moves the text there and draws each leader line from the marker to its label.

Two promises, both measured by the tests: a label sits inside its own row's band whenever the
band has room for it, and no leader line crosses another leader line or runs through another
case's marker or label.
"""

from __future__ import annotations

__all__ = ["Box", "Mark", "Segment", "clear", "crosses", "cuts", "leader", "overlap", "place", "stack"]

from collections.abc import Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]
#: A line from (x0, y0) to (x1, y1), display pixels.
Segment = tuple[float, float, float, float]

_SPLIT_COST = 40.0  # a cluster split over both sides of its markers costs this many pixels of distance
_STACK_GAP = 1.0  # pixels between two stacked labels


def overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def leader(anchor: tuple[float, float], radius: float, box: Box, side: str) -> Segment:
    """The leader line: from the marker's edge (``radius`` from its centre) to the middle of the
    label's near edge.

    Example:
        >>> leader((0.0, 0.0), 5.0, (20.0, -5.0, 60.0, 5.0), "right")
        (5.0, 0.0, 20.0, 0.0)
    """
    mx, my = anchor
    ex = box[0] if side == "right" else box[2]
    ty = (box[1] + box[3]) / 2
    dx, dy = ex - mx, ty - my
    dist = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    return (mx + dx / dist * radius, my + dy / dist * radius, ex, ty)


def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


def crosses(a: Segment, b: Segment) -> bool:
    """True when two segments cross or touch (a shared end point counts: two leaders never meet).

    Example:
        >>> crosses((0, 0, 10, 10), (0, 10, 10, 0)), crosses((0, 0, 10, 0), (0, 5, 10, 5))
        (True, False)
    """
    d1 = _orient(b[0], b[1], b[2], b[3], a[0], a[1])
    d2 = _orient(b[0], b[1], b[2], b[3], a[2], a[3])
    d3 = _orient(a[0], a[1], a[2], a[3], b[0], b[1])
    d4 = _orient(a[0], a[1], a[2], a[3], b[2], b[3])
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True

    def on(p: tuple[float, float], s: Segment, d: float) -> bool:
        return d == 0 and min(s[0], s[2]) <= p[0] <= max(s[0], s[2]) and min(s[1], s[3]) <= p[1] <= max(s[1], s[3])

    return on((a[0], a[1]), b, d1) or on((a[2], a[3]), b, d2) or on((b[0], b[1]), a, d3) or on((b[2], b[3]), a, d4)


def cuts(s: Segment, box: Box, inset: float = 0.5) -> bool:
    """True when a segment runs through the inside of a box (``inset`` pixels in from its edges).

    Example:
        >>> cuts((0, 5, 20, 5), (8, 0, 12, 10)), cuts((0, 5, 6, 5), (8, 0, 12, 10))
        (True, False)
    """
    x0, y0, x1, y1 = box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset
    if x0 >= x1 or y0 >= y1:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = s[2] - s[0], s[3] - s[1]
    for p, q in ((-dx, s[0] - x0), (dx, x1 - s[0]), (-dy, s[1] - y0), (dy, y1 - s[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return t1 - t0 > 1e-9


def _clear(s: Segment, own: Box | None, solid: Sequence[Box], leaders: Sequence[Segment]) -> bool:
    """A leader is clear when it meets no other leader and runs through no box but its own marker's."""
    return not any(crosses(s, t) for t in leaders) and not any(cuts(s, b) for b in solid if b != own)


def _inside(box: Box, area: Box) -> bool:
    return area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3]


@dataclass(frozen=True)
class Mark:
    """One label to place: its marker's centre, the label's size and the gap to leave from the centre.

    Attributes:
        anchor: the marker's centre (display pixels).
        size: the label's width and height, pad included.
        gap: the distance from the centre to the label's near edge (the marker's radius + 2).
        own: the marker's own box (its leader starts inside it).
    """

    anchor: tuple[float, float]
    size: tuple[float, float]
    gap: float
    own: Box


def clear(
    mark: Mark, spot: tuple[Box, str], hard: Sequence[Box], solid: Sequence[Box], leaders: Sequence[Segment]
) -> bool:
    """True when a label's box covers none of ``hard`` and its leader is clear of ``solid`` and ``leaders``."""
    box, side = spot
    if any(overlap(box, t) > 0 for t in hard if t != mark.own):
        return False
    return _clear(leader(mark.anchor, mark.gap - 2, box, side), mark.own, solid, leaders)


def place(
    anchor: tuple[float, float],
    size: tuple[float, float],
    band: tuple[float, float],
    area: Box,
    hard: Sequence[Box],
    soft: Sequence[Box],
    gap: float,
    *,
    solid: Sequence[Box] = (),
    leaders: Sequence[Segment] = (),
) -> tuple[Box, str]:
    """Choose a box for one label next to its marker (display pixels); deterministic.

    Candidates, in order of preference: right or left of the marker (the side with more room
    first), at the marker's height, then one label height up or down at a time, then a little
    further out sideways. Every candidate lies inside ``area``. A candidate is *clear* when it
    covers no ``hard`` box and its leader meets none of ``leaders`` and runs through none of
    ``solid``. The first candidate that wins, by tier:

    1. inside the row's ``band`` and clear;
    2. inside the band and clear but for ``soft`` boxes (faint context markers);
    3. anywhere in the plot and clear (a leader line then shows whose label it is);
    4. anywhere clear but for soft boxes;
    5. covering no hard box, though its leader meets another (better than hiding a label);
    6. otherwise the candidate with the least overlap.

    ``solid`` must not hold the marker's own box (its leader starts inside it).
    """
    mx, my = anchor
    w, h = size
    right_first = mx < area[0] + 0.68 * (area[2] - area[0])
    sides = ("right", "left") if right_first else ("left", "right")
    step = h + 3
    tiers: list[tuple[Box, str] | None] = [None] * 5
    best: tuple[float, Box, str] | None = None
    own = (mx - gap + 2, my - gap + 2, mx + gap - 2, my + gap - 2)  # a label never covers its marker
    for extra in (0.0, 24.0, 60.0, 120.0, 200.0):
        for k in range(0, 17):
            for sign in (1,) if k == 0 else (1, -1):
                cy = my + sign * k * step
                for side in sides:
                    x0 = mx + gap + extra if side == "right" else mx - gap - extra - w
                    if extra == 0 and not area[0] <= x0 <= area[2] - w:  # too wide for this side:
                        x0 = min(max(x0, area[0]), area[2] - w)  # slid inside the plot, off its marker
                    box = (x0, cy - h / 2, x0 + w, cy + h / 2)
                    if not _inside(box, area):
                        continue
                    in_band = band[0] <= box[1] and box[3] <= band[1]
                    hard_cost = sum(overlap(box, t) for t in (*hard, own))
                    soft_cost = sum(overlap(box, t) for t in soft)
                    if hard_cost == 0 and not _clear(leader(anchor, gap - 2, box, side), None, solid, leaders):
                        if tiers[4] is None:
                            tiers[4] = (box, side)
                        hard_cost = 0.5  # no overlap, but a leader in the way: better than any overlap
                    elif hard_cost == 0:
                        tier = (0 if soft_cost == 0 else 1) + (0 if in_band else 2)
                        if tier == 0:
                            return box, side
                        if tiers[tier] is None:
                            tiers[tier] = (box, side)
                    cost = hard_cost * 10 + soft_cost
                    if best is None or cost < best[0]:
                        best = (cost, box, side)
    for found in tiers:
        if found is not None:
            return found
    if best is not None:
        return best[1], best[2]
    x0 = min(max(mx + gap, area[0]), area[2] - w)
    return (x0, my - h / 2, x0 + w, my + h / 2), "right"


def _column(
    marks: Sequence[Mark],
    side: str,
    band: tuple[float, float],
    area: Box,
    hard: Sequence[Box],
    solid: Sequence[Box],
    leaders: Sequence[Segment],
) -> tuple[float, list[Box]] | None:
    """The cheapest clear column of labels on one side of ``marks`` (top first), inside the band."""
    h = max(m.size[1] for m in marks)
    total = len(marks) * h + (len(marks) - 1) * _STACK_GAP
    lo, hi = band
    if total > hi - lo:
        return None
    centre = sum(m.anchor[1] for m in marks) / len(marks)
    ideal = min(max(centre + total / 2, lo + total), hi)  # the column's top edge
    tops = sorted({min(max(ideal + d * h / 2, lo + total), hi) for d in range(-8, 9)}, key=lambda t: abs(t - ideal))
    near = max(m.anchor[0] + m.gap for m in marks) if side == "right" else min(m.anchor[0] - m.gap for m in marks)
    extras = {0.0, 12.0, 24.0, 40.0, 60.0, 90.0, 130.0}
    for b in hard:  # just past anything in the way
        extras.add(b[2] + 2 - near if side == "right" else near - (b[0] - 2))
    best: tuple[float, list[Box]] | None = None
    for extra in sorted(e for e in extras if 0 <= e <= 400):
        if best is not None and extra >= best[0]:
            break
        for top in tops:
            cost = extra + abs(top - ideal)
            if best is not None and cost >= best[0]:
                continue
            boxes: list[Box] = []
            segments: list[Segment] = []
            for j, m in enumerate(marks):
                y1 = top - j * (h + _STACK_GAP)
                x0 = near + extra if side == "right" else near - extra - m.size[0]
                box = (x0, y1 - h, x0 + m.size[0], y1)
                seg = leader(m.anchor, m.gap - 2, box, side)
                if (
                    not _inside(box, area)
                    or any(overlap(box, t) > 0 for t in hard)
                    or not _clear(seg, m.own, [*solid, *boxes], [*leaders, *segments])
                ):
                    break
                boxes.append(box)
                segments.append(seg)
            else:
                best = (cost, boxes)
    return best


def stack(
    marks: Sequence[Mark],
    band: tuple[float, float],
    area: Box,
    hard: Sequence[Box],
    *,
    solid: Sequence[Box] = (),
    leaders: Sequence[Segment] = (),
) -> list[tuple[Box, str]] | None:
    """Place the labels of a cluster of markers as columns inside the row's band; deterministic.

    The labels keep their markers' top-to-bottom order in a column on one side (or, when one side
    has no room, the upper ones on one side and the lower ones on the other), so that their
    leaders cannot cross. Every box lies inside ``area`` and ``band``, covers no ``hard`` box, and
    every leader meets none of ``leaders`` and runs through none of ``solid``. Returns one
    ``(box, side)`` for each mark, in the order given, or ``None`` when no such layout exists.
    """
    if not marks:
        return []
    order = sorted(range(len(marks)), key=lambda i: (-marks[i].anchor[1], i))  # top first (display y is up)
    mx = sum(m.anchor[0] for m in marks) / len(marks)
    first = "right" if mx < area[0] + 0.68 * (area[2] - area[0]) else "left"
    second = "left" if first == "right" else "right"
    n = len(order)
    splits = [(n, first, second), (0, first, second)]
    splits += [(k, a, b) for k in range(1, n) for a, b in ((first, second), (second, first))]
    best: tuple[float, list[tuple[Box, str]]] | None = None
    for k, upper, lower in splits:
        cost = 0.0 if k in (0, n) else _SPLIT_COST
        placed: list[tuple[int, Box, str]] = []
        fits = True
        for part, side in ((order[:k], upper), (order[k:], lower)):
            if not part:
                continue
            found = _column([marks[i] for i in part], side, band, area, hard, solid, leaders)
            if found is None:
                fits = False
                break
            cost += found[0]
            placed += [(i, box, side) for i, box in zip(part, found[1])]
        if fits and (best is None or cost < best[0]):
            out: list[tuple[Box, str]] = [((0.0, 0.0, 0.0, 0.0), first)] * len(marks)
            for i, box, side in placed:
                out[i] = (box, side)
            best = (cost, out)
    return None if best is None else best[1]
