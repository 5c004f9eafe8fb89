"""The light and dark themes every chart of the lab is drawn in, and text the chart font can draw.

A chart is drawn in the theme named by its ``theme=`` argument; without one it follows the
environment variable ``CUSTODY_LAB_THEME`` (``light`` or ``dark``; what ``custody-lab present
--theme dark`` sets for its kernels), and is light otherwise. Each theme's text colours meet
WCAG 2.x's 4.5:1 contrast ratio against the backgrounds they are drawn on (:func:`contrast`;
the chart tests measure every drawn text).

The charts draw with DejaVu Sans, the font matplotlib ships, so a figure looks the same on every
machine. A character that font lacks (an emoji in a case id, say) would draw as an empty box with a
warning; :func:`drawable` replaces it with a look-alike the font has or with its code point.
No module here imports matplotlib at import time.
"""

from __future__ import annotations

__all__ = [
    "MARGIN",
    "MIN_TEXT",
    "MIN_TEXT_PX",
    "THEMES",
    "THEME_VARIABLE",
    "Theme",
    "ThemeError",
    "contrast",
    "drawable",
    "legible_width",
    "theme_of",
]

import math
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..core.errors import CustodyLabError

#: The smallest text any chart draws, in points: at 100 dpi a 9 pt label is 12.5 px, which still
#: reads on a 1024 x 768 projector from the back of a room (the lab's own choice, issue 16).
MIN_TEXT = 9.0
#: The smallest text a reader may see, in CSS pixels (the lab's minimum: 9 pt at 100 dpi). A chart
#: shown narrower than :func:`legible_width` shrinks its text below it; tests/test_browser_layout.py
#: measures the pictures on the page against it.
MIN_TEXT_PX = 12.5
#: The clear space every chart keeps between its text and the figure's edge (and between a bar's
#: label and the end of its axes), in inches: a label never touches the edge it sits by.
MARGIN = 0.15
#: The environment variable a chart reads when no ``theme=`` is given.
THEME_VARIABLE = "CUSTODY_LAB_THEME"


class ThemeError(CustodyLabError, ValueError):
    """A theme name the lab does not know (the message names where it came from)."""


@dataclass(frozen=True)
class Theme:
    """The colours of one theme.

    Attributes:
        name: ``"light"`` or ``"dark"``.
        background: the figure and axes background.
        text: body text, tick labels, legend entries.
        muted: secondary text (captions, notes); still ≥ 4.5:1 on ``background``.
        ink: lines and edges drawn at full strength (the embed-limit line, spines, crosses).
        edge: outlines of bars and swatches.
        hatch: hatch lines over region fills.
        box: the face of the small boxes labels sit on (over hatching).
        grid: faint grid lines.
        application, model: the initiator colours of the custody matrix's markers.
    """

    name: str
    background: str
    text: str
    muted: str
    ink: str
    edge: str
    hatch: str
    box: str
    grid: str
    application: str
    model: str

    def rc(self) -> dict[Any, Any]:
        """matplotlib rc settings for this theme (used inside ``matplotlib.rc_context``)."""
        return {
            "figure.facecolor": self.background,
            "axes.facecolor": self.background,
            "savefig.facecolor": self.background,
            "axes.edgecolor": self.ink,
            "axes.labelcolor": self.text,
            "axes.titlecolor": self.text,
            "text.color": self.text,
            "xtick.color": self.ink,
            "ytick.color": self.ink,
            "xtick.labelcolor": self.text,
            "ytick.labelcolor": self.text,
            "legend.labelcolor": self.text,
            "hatch.color": self.hatch,
            "grid.color": self.grid,
        }


THEMES: dict[str, Theme] = {
    "light": Theme(
        name="light",
        background="#ffffff",
        text="#111111",
        muted="#3d3d3d",
        ink="#000000",
        edge="#333333",
        hatch="#7a7a7a",
        box="#ffffff",
        grid="#dddddd",
        application="#1b4f8a",
        model="#9a4300",
    ),
    "dark": Theme(
        name="dark",
        background="#1e1e1e",
        text="#f2f2f2",
        muted="#c8c8c8",
        ink="#f2f2f2",
        edge="#d0d0d0",
        hatch="#8c8c8c",
        box="#111111",
        grid="#444444",
        application="#7fb8ff",
        model="#ffa552",
    ),
}


def theme_of(theme: str | Theme | None = None) -> Theme:
    """The theme to draw in: the argument, else ``$CUSTODY_LAB_THEME``, else light.

    Raises:
        ThemeError: for a name that is neither ``light`` nor ``dark`` (argument or variable).

    Example:
        >>> theme_of("dark").background, theme_of(THEMES["light"]).name
        ('#1e1e1e', 'light')
    """
    if isinstance(theme, Theme):
        return theme
    where = "theme"
    if theme is None:
        where = THEME_VARIABLE
        theme = os.environ.get(THEME_VARIABLE, "").strip().lower() or "light"
    try:
        return THEMES[theme]
    except KeyError as e:
        raise ThemeError(f"{where}: unknown theme {theme!r}; the themes are {', '.join(THEMES)}") from e


def legible_width(width_px: float, dpi: float) -> int:
    """The narrowest a ``width_px``-wide chart drawn at ``dpi`` may be shown, in CSS pixels, so that
    its smallest text (:data:`MIN_TEXT` points) is still :data:`MIN_TEXT_PX` pixels.

    Example:
        >>> legible_width(900, 100), legible_width(864, 96)
        (900, 900)
    """
    smallest = MIN_TEXT * dpi / 72  # the smallest text's height in the picture's own pixels
    return math.ceil(width_px * MIN_TEXT_PX / smallest - 1e-9)


def _luminance(color: str) -> float:
    """WCAG 2.x relative luminance of ``#rrggbb``."""
    channels = [int(color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """The WCAG 2.x contrast ratio of two ``#rrggbb`` colours (1 to 21).

    Example:
        >>> round(contrast("#555555", "#212121"), 2), contrast("#000000", "#ffffff")
        (2.16, 21.0)
    """
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


#: Look-alikes the chart font has, for characters it lacks that case ids are likely to hold.
_SUBSTITUTES = {
    "\u2705": "\u2713",  # ✅ -> ✓
    "\u2714": "\u2713",
    "\u274c": "\u2717",  # ❌ -> ✗
    "\u274e": "\u2717",
    "\u2b55": "\u25cb",  # ⭕ -> ○
    "\U0001f534": "\u25cf",  # 🔴 -> ●
    "\U0001f7e2": "\u25cf",  # 🟢 -> ●
    "\U0001f512": "[lock]",
    "\U0001f513": "[unlock]",
}


@lru_cache(maxsize=1)
def _font_chars() -> frozenset[int]:
    """The code points DejaVu Sans (the charts' font, shipped with matplotlib) can draw."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    path = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"), fallback_to_default=True)
    return frozenset(FT2Font(path).get_charmap())


def drawable(text: str) -> str:
    """``text`` with every character the chart font lacks replaced by a look-alike or ``[U+XXXX]``.

    Example:
        >>> drawable("✅ ok-draft"), drawable("a🦜b")
        ('✓ ok-draft', 'a[U+1F99C]b')
    """
    chars = _font_chars()
    out = []
    for ch in text:
        if ord(ch) in chars or ch in "\n\t ":
            out.append(ch)
            continue
        sub = _SUBSTITUTES.get(ch)
        if sub is not None and all(ord(c) in chars for c in sub):
            out.append(sub)
        elif 0xFE00 <= ord(ch) <= 0xFE0F or ord(ch) == 0x200D:
            continue  # variation selectors and joiners: no glyph of their own
        else:
            out.append(f"[U+{ord(ch):04X}]")
    return "".join(out)
