"""The custody matrix's legend and caption: every encoding repeated in words, without colour."""

from __future__ import annotations

__all__ = ["draw_legend"]

from typing import Any

from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .regions import REGION_KINDS, caption_text
from .style import BOTTOM, CROSS, EDGE, MARKER_SIZE, RING, draw_text


def draw_legend(fig: Figure, *, ring: bool, kinds: set[str]) -> None:
    """Draw the legend under the axes and the caption at the foot of the figure.

    Args:
        fig: the matrix figure (its size fixes where the legend goes).
        ring: add the "highlighted case" ring entry.
        kinds: the region kinds drawn; "prefer-other" is listed only when it appears.
    """
    grey = "#333333"
    solid: dict[str, Any] = {
        "linestyle": "none",
        "markersize": MARKER_SIZE,
        "markerfacecolor": grey,
        "markeredgecolor": grey,
    }
    handles: list[Any] = [
        Line2D([], [], marker="o", **solid),
        Line2D([], [], marker="^", **solid),
        Line2D([], [], marker="s", **solid),
        (
            Line2D(
                [],
                [],
                linestyle="none",
                marker="s",
                markersize=MARKER_SIZE,
                markerfacecolor="white",
                markeredgecolor=grey,
                markeredgewidth=1.4,
            ),
            Line2D([], [], **CROSS, markersize=MARKER_SIZE * 0.7),
        ),
    ]
    labels = [
        "circle: the application initiates",
        "triangle: the model initiates",
        "filled: accepted (→ shape)",
        "hollow + ✕: rejected (✕ rule code)",
    ]
    for kind in REGION_KINDS.values():
        if kind.key == "prefer-other" and kind.key not in kinds:
            continue  # no row's typical need leads there today; listed only if it appears
        patch = Patch(facecolor=kind.face, edgecolor="#555555", hatch=kind.hatch, hatchcolor="#666666", linewidth=0.6)
        patch.set_hatch_linewidth(0.6)
        handles.append(patch)
        labels.append(kind.legend)
    handles.append(Line2D([], [], color="black", linestyle=(0, (5, 3)), linewidth=1.3))
    labels.append("dashed line: the policy's embed limit")
    if ring:
        handles.append(Line2D([], [], **RING))
        labels.append("ring: the highlighted case")
    w, h = fig.get_size_inches()
    leg = fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(EDGE / w, 1 - (h - BOTTOM + 0.5) / h),
        ncol=3,
        frameon=False,
        fontsize=8,
        handlelength=2.4,
        handleheight=1.3,
        columnspacing=1.4,
        labelspacing=0.45,
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
        fontsize=7.5,
        color="#222222",
        wrap=False,
    ).set_gid("caption")
