"""How the custody matrix is drawn: marker shapes and colours, sizes, margins, text that stays text."""

from __future__ import annotations

__all__ = [
    "BOTTOM",
    "EDGE",
    "INITIATOR_COLOR",
    "INITIATOR_MARKER",
    "LABEL_SIZE",
    "LEFT",
    "MARKER_SIZE",
    "CROSS",
    "RC",
    "RING",
    "RIGHT",
    "TOP",
    "draw_text",
    "renderer_of",
]

from typing import TYPE_CHECKING, Any, cast

from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.typing import RcKeyType

#: Who initiates is shown twice: by marker shape (readable without colour) and by colour.
INITIATOR_COLOR = {"application": "#1b4f8a", "model": "#9a4300"}
INITIATOR_MARKER = {"application": "o", "model": "^"}
MARKER_SIZE = 7.5  # points
LABEL_SIZE = 8.0
# Fixed margins, inches: the layout is the same at every figure size (≥ 8 x 4.6 in).
LEFT, RIGHT, TOP, BOTTOM = 2.0, 0.3, 0.85, 1.72
#: The ring around the highlighted case; its legend entry is drawn with the same keywords.
RING: dict[str, Any] = {
    "linestyle": "none",
    "marker": "o",
    "markersize": MARKER_SIZE * 2.1,
    "markerfacecolor": "none",
    "markeredgecolor": "black",
    "markeredgewidth": 1.5,
}
#: The cross over a rejected case's hollow marker (sized by the caller: 0.7 of the marker).
CROSS: dict[str, Any] = {"linestyle": "none", "marker": "x", "markeredgecolor": "black", "markeredgewidth": 1.3}
EDGE = 0.15  # the left edge of the title, status line, legend and caption, inches
RC: dict[RcKeyType, Any] = {
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "hatch.linewidth": 0.6,
    "svg.hashsalt": "custody-lab",
}


def draw_text(fig_or_ax: Any, x: float, y: float, s: str, **kw: Any) -> Text:
    """A Text that never interprets its string (no mathtext, no TeX)."""
    return fig_or_ax.text(x, y, s, parse_math=False, usetex=False, **kw)


def renderer_of(fig: Figure) -> RendererAgg:
    """The Agg renderer of a figure drawn on an Agg canvas (every matrix figure is)."""
    return cast(FigureCanvasAgg, fig.canvas).get_renderer()
