"""The custody matrix's legend and caption: every encoding drawn, repeated in words, without colour.

The legend lists only what the chart draws, and gives every drawn marker its own entry: each
(initiator, outcome) pair present is one glyph (circle / triangle for who initiates, filled /
hollow under a ✕ for accepted / rejected) in the chart's own colour, so no two meanings share a
glyph; then the region kinds on the map, the limit line and, when a case is highlighted, the ring.
"""

from __future__ import annotations

__all__ = ["MARKER_WORDS", "Encodings", "draw_legend", "marker_handle"]

from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ...whatif.theme import Theme
from .regions import REGION_KINDS, caption_text
from .style import BOTTOM, EDGE, INITIATOR_MARKER, MARKER_SIZE, MIN_TEXT, cross, draw_text, initiator_color, ring

#: The words of each marker the chart draws, keyed by (initiator, accepted): one glyph, one meaning.
MARKER_WORDS: dict[tuple[str, bool], str] = {
    ("application", True): "filled circle: application, accepted",
    ("application", False): "hollow circle + ✕: application, rejected",
    ("model", True): "filled triangle: model, accepted",
    ("model", False): "hollow triangle + ✕: model, rejected",
}


@dataclass(frozen=True)
class Encodings:
    """What a matrix draws, so that its legend names exactly that.

    Attributes:
        markers: the markers drawn, as ``(initiator, accepted)`` pairs: the initiator gives the
            marker's shape (``INITIATOR_MARKER``) and colour, accepted a filled marker, rejected a
            hollow one under a cross.
        kinds: the region kinds on the map.
        ring: a highlighted case wears the ring.
    """

    markers: frozenset[tuple[str, bool]]
    kinds: frozenset[str]
    ring: bool


def marker_handle(theme: Theme, initiator: str, accepted: bool) -> Any:
    """The legend glyph of one drawn marker: the chart's own shape, colour, fill and cross."""
    color = initiator_color(theme, initiator)
    glyph = Line2D(
        [],
        [],
        linestyle="none",
        marker=INITIATOR_MARKER[initiator],
        markersize=MARKER_SIZE,
        markerfacecolor=color if accepted else theme.box,
        markeredgecolor=color,
        markeredgewidth=1.4,
    )
    if accepted:
        return glyph
    return (glyph, Line2D([], [], **cross(theme), markersize=MARKER_SIZE * 0.7))


def draw_legend(fig: Figure, theme: Theme, used: Encodings) -> None:
    """Draw the legend under the axes and the caption at the foot of the figure."""
    handles: list[Any] = []
    labels: list[str] = []
    for key, words in MARKER_WORDS.items():  # every marker drawn has its own entry, in this order
        if key in used.markers:
            handles.append(marker_handle(theme, *key))
            labels.append(words)
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
