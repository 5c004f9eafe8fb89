"""How the custody matrix is drawn: marker shapes and colours, sizes, margins, text that stays text.

Colours come from the chart's :class:`~custody_lab.whatif.theme.Theme` (light or dark); sizes are
fixed here. No text of a chart is smaller than :data:`MIN_TEXT` (the lab's projector minimum).
"""

from __future__ import annotations

__all__ = [
    "BOTTOM",
    "EDGE",
    "INITIATOR_MARKER",
    "LABEL_SIZE",
    "LEFT",
    "MARKER_SIZE",
    "MIN_TEXT",
    "RC",
    "RIGHT",
    "TOP",
    "cross",
    "draw_text",
    "halo",
    "initiator_color",
    "renderer_of",
    "ring",
    "theme_rc",
]

from typing import TYPE_CHECKING, Any, cast

from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from ...whatif.theme import MARGIN, MIN_TEXT, Theme

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.typing import RcKeyType

#: Who initiates is shown twice: by marker shape (readable without colour) and by colour.
INITIATOR_MARKER = {"application": "o", "model": "^"}
MARKER_SIZE = 8.0  # points
LABEL_SIZE = MIN_TEXT
# Fixed margins, inches: the layout is the same at every figure size (≥ 8 x 5 in).
LEFT, RIGHT, TOP, BOTTOM = 2.1, 0.3, 0.85, 2.05
EDGE = MARGIN  # the left edge of the title, status line, legend and caption, inches
RC: dict[RcKeyType, Any] = {
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": MIN_TEXT,
    "hatch.linewidth": 0.6,
    "svg.hashsalt": "custody-lab",
}


def theme_rc(theme: Theme) -> dict[RcKeyType, Any]:
    """The matrix's rc settings in one theme."""
    return cast("dict[RcKeyType, Any]", {**RC, **theme.rc()})


def initiator_color(theme: Theme, initiator: str) -> str:
    return theme.application if initiator == "application" else theme.model


def halo(theme: Theme, width: float = 5.0) -> list[Any]:
    """A background-coloured outline under a marker: it stands out of any hatch or fill."""
    return [patheffects.Stroke(linewidth=width, foreground=theme.background), patheffects.Normal()]


def ring(theme: Theme) -> dict[str, Any]:
    """The ring around the highlighted case; its legend entry is drawn with the same keywords."""
    return {
        "linestyle": "none",
        "marker": "o",
        "markersize": MARKER_SIZE * 2.1,
        "markerfacecolor": "none",
        "markeredgecolor": theme.ink,
        "markeredgewidth": 1.6,
    }


def cross(theme: Theme) -> dict[str, Any]:
    """The cross over a rejected case's hollow marker (sized by the caller: 0.7 of the marker)."""
    return {"linestyle": "none", "marker": "x", "markeredgecolor": theme.ink, "markeredgewidth": 1.6}


def draw_text(fig_or_ax: Any, x: float, y: float, s: str, **kw: Any) -> Text:
    """A Text that never interprets its string (no mathtext, no TeX)."""
    return fig_or_ax.text(x, y, s, parse_math=False, usetex=False, **kw)


def renderer_of(fig: Figure) -> RendererAgg:
    """The Agg renderer of a figure drawn on an Agg canvas (every matrix figure is)."""
    return cast(FigureCanvasAgg, fig.canvas).get_renderer()
