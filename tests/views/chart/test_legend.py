"""The matrix's legend names exactly what is drawn, each encoding in words, and the caption sits under it."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.offsetbox import DrawingArea, HPacker, TextArea

import custody_lab as cl
from custody_lab.chart import matrix_figure
from custody_lab.views.chart.legend import MARKER_WORDS, Encodings, draw_legend
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
    used = Encodings(frozenset(MARKER_WORDS), frozenset(REGION_KINDS), True)
    _fig, _legend_, labels = _legend(used)
    expected = [
        "filled circle: application, accepted",
        "hollow circle + ✕: application, rejected",
        "filled triangle: model, accepted",
        "hollow triangle + ✕: model, rejected",
        *(kind.legend for kind in REGION_KINDS.values()),
        LIMIT,
        "ring: the highlighted case",
    ]
    assert labels == expected, f"expected {expected}, got {labels}"


def test_nothing_the_chart_does_not_draw_is_in_the_legend():
    used = Encodings(frozenset({("model", False)}), frozenset({"tool"}), False)
    _fig, legend, labels = _legend(used)
    expected = [
        "hollow triangle + ✕: model, rejected",
        REGION_KINDS["tool"].legend,
        LIMIT,
    ]
    assert labels == expected, f"only model, rejected, the tool region: expected {expected}, got {labels}"
    rejected = legend.legend_handles[0]
    assert rejected.get_marker() == "^", f"the rejected triangle's entry must draw a ^, got {rejected.get_marker()}"


def test_an_empty_chart_still_names_the_limit_line():
    _fig, _legend_, labels = _legend(Encodings(frozenset(), frozenset(), False))
    assert labels == [LIMIT], f"expected only the limit line, got {labels}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_legend_text_and_the_caption_are_drawn_in_the_themes_colours(theme):
    fig, legend, _labels = _legend(Encodings(frozenset({("application", True)}), frozenset(), False), theme)
    look = THEMES[theme]
    colours = {to_hex(t.get_color()) for t in legend.get_texts()}
    assert colours == {look.text}, f"{theme}: legend text in {colours}, theme text {look.text}"
    (caption,) = [t for t in fig.texts if t.get_gid() == "caption"]
    assert caption.get_text() == caption_text() and to_hex(caption.get_color()) == look.muted, caption
    assert legend.get_gid() == "legend", legend.get_gid()


# --- one glyph, one meaning ---------------------------------------------------------------------


def _glyph(parts, box: str) -> tuple[str, bool, bool, float]:
    """A marker as a reader without colour sees it: shape, filled or not, crossed or not, size."""
    marks = [p for p in parts if isinstance(p, Line2D) and p.get_marker() not in ("None", "none", None, "")]
    crossed = any(p.get_marker() == "x" for p in marks)
    (main,) = [p for p in marks if p.get_marker() != "x"]
    face = main.get_markerfacecolor()
    filled = not (isinstance(face, str) and face == "none") and to_hex(face) != box
    return (str(main.get_marker()), filled, crossed, round(float(main.get_markersize()), 1))


def _legend_entries(fig) -> list[tuple[str, list]]:
    """Each legend entry's text with every artist its handle box draws (a ✕ over a hollow marker too)."""
    (legend,) = fig.legends
    fig.canvas.draw()
    out = []
    for packer in legend.findobj(lambda a: isinstance(a, HPacker)):
        kids = packer.get_children()
        if len(kids) == 2 and isinstance(kids[0], DrawingArea) and isinstance(kids[1], TextArea):
            out.append((kids[1].get_text(), list(kids[0].get_children())))
    assert len(out) == len(legend.get_texts()), f"expected one handle box per entry, got {len(out)}"
    return out


def _drawn_glyphs(fig, box: str) -> set[tuple[str, bool, bool, float]]:
    ax = fig.axes[0]
    lines = [ln for ln in ax.lines if ln.get_visible()]
    out = set()
    for ln in lines:
        gid = ln.get_gid() or ""
        if not gid.startswith("case:"):
            continue
        at = (float(ln.get_xdata()[0]), float(ln.get_ydata()[0]))
        crosses = [
            c for c in lines if c.get_marker() == "x" and (float(c.get_xdata()[0]), float(c.get_ydata()[0])) == at
        ]
        out.add(_glyph([ln, *crosses], box))
    return out


FIGURES = {
    "fixture": lambda fx: matrix_figure(fx.all_cases),
    "fixture-highlight": lambda fx: matrix_figure(fx.all_cases, highlight="oversize-embed"),
    "accepted-only": lambda fx: matrix_figure([c for c in fx.all_cases if cl.route(c).accepted]),
    "model-only-dark": lambda fx: matrix_figure([c for c in fx.all_cases if c.initiator == "model"], theme="dark"),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_marker_drawn_has_its_own_legend_entry_and_no_two_entries_share_a_glyph(fixture, name):
    fig = FIGURES[name](fixture)
    box = THEMES["dark" if "dark" in name else "light"].box
    entries = {}
    for label, parts in _legend_entries(fig):
        if any(isinstance(p, Line2D) and p.get_marker() not in ("None", "none", None, "") for p in parts):
            entries[label] = _glyph(parts, box)
    assert entries, f"{name}: no marker entries in the legend"
    glyphs = list(entries.values())
    shared = {g: [t for t, e in entries.items() if e == g] for g in glyphs if glyphs.count(g) > 1}
    assert not shared, f"{name}: one glyph for two meanings: {shared}"
    drawn = _drawn_glyphs(fig, box)
    assert drawn, f"{name}: no case markers found"
    missing = drawn - set(glyphs)
    assert not missing, (
        f"{name}: markers drawn {sorted(drawn)}, without a legend entry {sorted(missing)}; entries {entries}"
    )
