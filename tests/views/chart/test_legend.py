"""The matrix's legend names exactly what is drawn, each encoding in words, and the caption sits under it."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from custody_lab.views.chart.legend import Encodings, draw_legend
from custody_lab.views.chart.regions import REGION_KINDS, caption_text
from custody_lab.whatif.theme import THEMES

LIMIT = "dashed line: the policy's embed limit"


def _legend(used: Encodings, theme: str = "light"):
    fig = Figure(figsize=(10, 7))
    FigureCanvasAgg(fig)
    draw_legend(fig, THEMES[theme], used)
    (legend,) = fig.legends
    return fig, legend, [t.get_text() for t in legend.get_texts()]


def test_everything_drawn_is_named_in_order_ending_with_the_limit_line_and_the_ring():
    used = Encodings(frozenset({"model", "application"}), True, True, frozenset(REGION_KINDS), True)
    _fig, _legend_, labels = _legend(used)
    expected = [
        "circle: the application initiates",
        "triangle: the model initiates",
        "filled: accepted (→ shape)",
        "hollow + ✕: rejected (✕ rule code)",
        *(kind.legend for kind in REGION_KINDS.values()),
        LIMIT,
        "ring: the highlighted case",
    ]
    assert labels == expected, f"expected {expected}, got {labels}"


def test_nothing_the_chart_does_not_draw_is_in_the_legend():
    used = Encodings(frozenset({"model"}), False, True, frozenset({"tool"}), False)
    _fig, legend, labels = _legend(used)
    expected = [
        "triangle: the model initiates",
        "hollow + ✕: rejected (✕ rule code)",
        REGION_KINDS["tool"].legend,
        LIMIT,
    ]
    assert labels == expected, f"only model, rejected, the tool region: expected {expected}, got {labels}"
    rejected = legend.legend_handles[1]
    assert rejected.get_marker() == "^", f"the outcome entry must use a drawn marker (^), got {rejected.get_marker()}"


def test_an_empty_chart_still_names_the_limit_line():
    _fig, _legend_, labels = _legend(Encodings(frozenset(), False, False, frozenset(), False))
    assert labels == [LIMIT], f"expected only the limit line, got {labels}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_legend_text_and_the_caption_are_drawn_in_the_themes_colours(theme):
    fig, legend, _labels = _legend(Encodings(frozenset({"application"}), True, False, frozenset(), False), theme)
    look = THEMES[theme]
    colours = {to_hex(t.get_color()) for t in legend.get_texts()}
    assert colours == {look.text}, f"{theme}: legend text in {colours}, theme text {look.text}"
    (caption,) = [t for t in fig.texts if t.get_gid() == "caption"]
    assert caption.get_text() == caption_text() and to_hex(caption.get_color()) == look.muted, caption
    assert legend.get_gid() == "legend", legend.get_gid()
