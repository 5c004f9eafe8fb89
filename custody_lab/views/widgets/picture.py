"""A chart as a widget that stays legible and follows the page's theme.

The chart is a PNG in an ``Image`` widget. It is never shown narrower than
:func:`~custody_lab.whatif.theme.legible_width` (its smallest text stays at the lab's 12.5 px
minimum, read on a 1024 x 768 projector too): in a narrower output area (640 CSS px at 200 % zoom)
it scrolls sideways in a box of its own instead of shrinking. A chart drawn in the light theme
carries :data:`~custody_lab.views.html.LIGHT_CHART_CLASS`, so a dark JupyterLab or Voila page shows
it dark (:data:`~custody_lab.views.html.CHART_THEME_STYLE`, in a hidden widget beside it).
"""

from __future__ import annotations

__all__ = ["Picture", "follow_page_theme"]

import ipywidgets as W

from ...whatif.theme import Theme, legible_width
from ..html import CHART_THEME_STYLE, LIGHT_CHART_CLASS


def follow_page_theme(image: W.Image, theme: Theme) -> W.HTML:
    """Mark ``image`` (drawn in ``theme``) to turn dark on a dark page; show the returned (hidden)
    widget beside it, which carries the rule.

    Example:
        >>> from custody_lab.whatif.theme import THEMES
        >>> image = W.Image(format="png")
        >>> follow_page_theme(image, THEMES["light"]).layout.display, image._dom_classes
        ('none', ('custody-chart-light',))
    """
    if theme.name == "light":
        image.add_class(LIGHT_CHART_CLASS)
    return W.HTML(CHART_THEME_STYLE, layout=W.Layout(display="none"))


class Picture(W.VBox):
    """A PNG chart ``width_px`` x ``height_px`` drawn at ``dpi`` in ``theme``; set ``.image.value``.

    Example:
        >>> from custody_lab.whatif.theme import THEMES
        >>> p = Picture(864, 518, 96, THEMES["light"])
        >>> p.image.layout.width, p.image.layout.max_width, p.image._dom_classes
        ('900px', 'none', ('custody-chart-light', 'custody-chart'))
    """

    def __init__(self, width_px: float, height_px: float, dpi: float, theme: Theme) -> None:
        width = legible_width(width_px, dpi)
        self.width = width
        self.image = W.Image(
            format="png",
            layout=W.Layout(width=f"{width}px", min_width=f"{width}px", max_width="none", height="auto"),
        )
        style = follow_page_theme(self.image, theme)
        self.image.add_class("custody-chart")
        super().__init__(
            [self.image, style],
            layout=W.Layout(overflow="auto hidden", max_width="100%", align_items="flex-start"),
        )
        self.add_class("custody-scroll")
