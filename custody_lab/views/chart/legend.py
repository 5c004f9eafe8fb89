"""The custody matrix's legend and caption: every encoding drawn, repeated in words, without colour.

The legend lists only what the chart draws: the marker of each initiator present, filled /
hollow + ✕ only for outcomes present (drawn with a marker the chart uses), the region kinds on
the map, the limit line and, when a case is highlighted, the ring.
"""

from __future__ import annotations

__all__ = ["Encodings", "draw_legend"]

from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ...whatif.theme import Theme
from .regions import REGION_KINDS, caption_text
from .style import BOTTOM, EDGE, INITIATOR_MARKER, MARKER_SIZE, MIN_TEXT, cross, draw_text, ring

_INITIATOR_WORDS = {"application": "circle: the application initiates", "model": "triangle: the model initiates"}


@dataclass(frozen=True)
class Encodings:
    """What a matrix draws, so that its legend names exactly that.

    Attributes:
        initiators: the initiators whose markers appear (in ``INITIATOR_MARKER`` order).
        accepted: some case is drawn filled (accepted).
        rejected: some case is drawn hollow with a cross (rejected).
        kinds: the region kinds on the map.
        ring: a highlighted case wears the ring.
    """

    initiators: frozenset[str]
    accepted: bool
    rejected: bool
    kinds: frozenset[str]
    ring: bool


def draw_legend(fig: Figure, theme: Theme, used: Encodings) -> None:
    """Draw the legend under the axes and the caption at the foot of the figure."""
    ink = theme.text
    present = [i for i in INITIATOR_MARKER if i in used.initiators]
    shown = INITIATOR_MARKER[present[0]] if present else "o"  # the outcome entries use a drawn marker
    solid: dict[str, Any] = {
        "linestyle": "none",
        "markersize": MARKER_SIZE,
        "markerfacecolor": ink,
        "markeredgecolor": ink,
    }
    handles: list[Any] = []
    labels: list[str] = []
    for initiator in present:
        handles.append(Line2D([], [], marker=INITIATOR_MARKER[initiator], **solid))
        labels.append(_INITIATOR_WORDS[initiator])
    if used.accepted:
        handles.append(Line2D([], [], marker=shown, **solid))
        labels.append("filled: accepted (→ shape)")
    if used.rejected:
        hollow = Line2D(
            [],
            [],
            linestyle="none",
            marker=shown,
            markersize=MARKER_SIZE,
            markerfacecolor=theme.box,
            markeredgecolor=ink,
            markeredgewidth=1.4,
        )
        handles.append((hollow, Line2D([], [], **cross(theme), markersize=MARKER_SIZE * 0.7)))
        labels.append("hollow + ✕: rejected (✕ rule code)")
    for kind in REGION_KINDS.values():
        if kind.key not in used.kinds:
            continue
        patch = Patch(
            facecolor=kind.fill(theme), edgecolor=theme.edge, hatch=kind.hatch, hatchcolor=theme.hatch, linewidth=0.6
        )
        patch.set_hatch_linewidth(0.6)
        handles.append(patch)
        labels.append(kind.legend)
    handles.append(Line2D([], [], color=theme.ink, linestyle=(0, (5, 3)), linewidth=1.3))
    labels.append("dashed line: the policy's embed limit")
    if used.ring:
        handles.append(Line2D([], [], **ring(theme)))
        labels.append("ring: the highlighted case")
    w, h = fig.get_size_inches()
    leg = fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(EDGE / w, 1 - (h - BOTTOM + 0.5) / h),
        ncol=3,
        frameon=False,
        fontsize=MIN_TEXT,
        labelcolor=theme.text,
        handlelength=2.4,
        handleheight=1.3,
        columnspacing=1.2,
        labelspacing=0.4,
        borderaxespad=0.0,
        handler_map={tuple: HandlerTuple(ndivide=1, pad=0.0)},
    )
    leg.set_gid("legend")
    draw_text(
        fig,
        EDGE / w,
        0.08 / h,
        caption_text(),
        ha="left",
        va="bottom",
        fontsize=MIN_TEXT,
        color=theme.muted,
        wrap=False,
    ).set_gid("caption")
