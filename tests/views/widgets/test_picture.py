"""Charts stay legible at a narrow width and follow the page's theme (issue 27 §2 and §4)."""

from __future__ import annotations

import re

import pytest

from custody_lab.views.html import CHART_THEME_STYLE, LIGHT_CHART_CLASS
from custody_lab.views.sequence import Sequence, Step, sequence_html
from custody_lab.views.widgets.picture import Picture
from custody_lab.whatif.theme import MIN_TEXT, MIN_TEXT_PX, THEMES, legible_width
from custody_lab.widgets import CaseExplorer, LinkOrEmbedCalculator, WhatIfPanel


@pytest.mark.parametrize(("width", "dpi"), [(864, 96), (1200, 100), (648, 72), (1800, 150)])
def test_a_chart_shown_at_its_legible_width_shows_its_smallest_text_at_the_minimum_or_more(width, dpi):
    shown = legible_width(width, dpi)
    smallest = MIN_TEXT * dpi / 72 * shown / width
    assert MIN_TEXT_PX <= smallest < MIN_TEXT_PX + 0.05, f"{width} px at {dpi} dpi shown {shown} px: text {smallest}"


@pytest.mark.parametrize(
    ("theme", "classes"), [("light", (LIGHT_CHART_CLASS, "custody-chart")), ("dark", ("custody-chart",))]
)
def test_the_explorers_chart_never_shrinks_below_its_legible_width_and_turns_dark_only_if_drawn_light(
    monkeypatch, theme, classes
):
    monkeypatch.setenv("CUSTODY_LAB_THEME", theme)
    ex = CaseExplorer("handbook")
    fig = ex._matrix.figure
    width = legible_width(fig.get_figwidth() * fig.dpi, fig.dpi)
    got = (ex.chart.layout.min_width, ex.chart.layout.max_width, ex.chart._dom_classes)
    assert got == (f"{width}px", "none", classes), f"{theme}: {got}"
    assert ex.picture.layout.overflow.startswith("auto"), ex.picture.layout.overflow
    assert any(getattr(c, "value", None) == CHART_THEME_STYLE for c in ex.picture.children), "no theme rule shown"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_sequence_diagram_is_shown_at_its_legible_width_in_a_box_that_scrolls(theme):
    html = sequence_html(Sequence("Read", (Step("client", "server", "request", "#1 resources/read", 0),)), theme=theme)
    width = int(re.search(r'style="width:(\d+)px;max-width:none', html).group(1))
    assert width == legible_width(1200, 100), width
    assert 'class="custody-scroll" style="overflow-x:auto' in html and CHART_THEME_STYLE in html
    marked = f'class="custody-sequence {LIGHT_CHART_CLASS}"' in html
    assert marked == (theme == "light"), f"{theme}: image marked as drawn light: {marked}"


def test_the_calculators_and_what_if_charts_turn_dark_on_a_dark_page_when_drawn_light():
    calc, panel = LinkOrEmbedCalculator(), WhatIfPanel()
    assert LIGHT_CHART_CLASS in calc.plot._dom_classes and LIGHT_CHART_CLASS in panel.chart._dom_classes
    for widget in (calc, panel):
        assert any(getattr(c, "value", None) == CHART_THEME_STYLE for c in widget.children), type(widget).__name__


def test_the_rule_inverts_only_light_charts_and_only_on_a_page_jupyterlab_marks_dark():
    assert CHART_THEME_STYLE == (
        "<style>body[data-jp-theme-light='false'] .custody-chart-light{filter:invert(1) hue-rotate(180deg)}</style>"
    )
    assert Picture(900, 540, 100, THEMES["dark"]).image._dom_classes == ("custody-chart",)
