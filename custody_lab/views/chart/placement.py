"""Where a case's label goes: a deterministic search for a box next to its marker.

Pure geometry in display pixels (no matplotlib): the drawing measures the label and the boxes it
must avoid, :func:`place` chooses, the drawing moves the text there.
"""

from __future__ import annotations

__all__ = ["Box", "overlap", "place"]

from collections.abc import Sequence

Box = tuple[float, float, float, float]


def overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def place(
    anchor: tuple[float, float],
    size: tuple[float, float],
    band: tuple[float, float],
    area: Box,
    hard: Sequence[Box],
    soft: Sequence[Box],
    gap: float,
) -> tuple[Box, str]:
    """Choose a box for one label next to its marker (display pixels); deterministic.

    Candidates, in order of preference: right or left of the marker (the side with more room
    first), at the marker's height, then one label height up or down at a time, then a little
    further out sideways. Every candidate lies inside ``area``. The first candidate that wins, by
    tier:

    1. inside the row's ``band`` and touching nothing;
    2. inside the band and touching only ``soft`` boxes (faint context markers);
    3. anywhere in the plot touching nothing (a leader line then shows whose label it is);
    4. anywhere touching only soft boxes;
    5. otherwise the candidate with the least overlap.
    """
    mx, my = anchor
    w, h = size
    right_first = mx < area[0] + 0.68 * (area[2] - area[0])
    sides = ("right", "left") if right_first else ("left", "right")
    step = h + 3
    tiers: list[tuple[Box, str] | None] = [None] * 4
    best: tuple[float, Box, str] | None = None
    for extra in (0.0, 24.0, 60.0):
        for k in range(0, 13):
            for sign in (1,) if k == 0 else (1, -1):
                cy = my + sign * k * step
                for side in sides:
                    x0 = mx + gap + extra if side == "right" else mx - gap - extra - w
                    box = (x0, cy - h / 2, x0 + w, cy + h / 2)
                    if not (area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3]):
                        continue
                    in_band = band[0] <= box[1] and box[3] <= band[1]
                    hard_cost = sum(overlap(box, t) for t in hard)
                    soft_cost = sum(overlap(box, t) for t in soft)
                    if hard_cost == 0:
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
