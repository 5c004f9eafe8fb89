"""The matrix's look: initiators told apart by shape and colour, text that stays text, the theme's colours."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure

from custody_lab.views.chart.style import (
    INITIATOR_MARKER,
    LABEL_SIZE,
    MARKER_SIZE,
    MIN_TEXT,
    RC,
    cross,
    draw_text,
    halo,
    initiator_color,
    renderer_of,
    ring,
    theme_rc,
)
from custody_lab.whatif.theme import THEMES


def test_the_two_initiators_differ_in_marker_shape_so_colour_is_never_needed():
    assert INITIATOR_MARKER == {"application": "o", "model": "^"}, INITIATOR_MARKER
    assert LABEL_SIZE >= MIN_TEXT == RC["font.size"], (LABEL_SIZE, MIN_TEXT, RC["font.size"])


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_each_initiator_takes_its_own_colour_from_the_theme(theme):
    look = THEMES[theme]
    got = (initiator_color(look, "application"), initiator_color(look, "model"))
    assert got == (look.application, look.model), f"{theme}: expected {(look.application, look.model)}, got {got}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_ring_and_the_cross_are_drawn_in_the_themes_ink(theme):
    look = THEMES[theme]
    r, x = ring(look), cross(look)
    assert (r["marker"], r["markerfacecolor"], r["markeredgecolor"]) == ("o", "none", look.ink), r
    assert r["markersize"] > MARKER_SIZE * 2, f"the ring must surround the marker, got size {r['markersize']}"
    assert (x["marker"], x["markeredgecolor"], x["linestyle"]) == ("x", look.ink, "none"), x


def test_the_halo_outlines_a_marker_in_the_background_colour_over_any_fill():
    look = THEMES["dark"]
    fig = Figure(figsize=(1, 1), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1), facecolor="#ff0000")  # a fill the halo must stand out of
    ax.set_axis_off()
    ax.patch.set_visible(False)
    fig.patch.set_facecolor("#ff0000")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.plot([0.5], [0.5], marker="o", markersize=20, color=look.ink, path_effects=halo(look, width=10.0))
    fig.canvas.draw()
    pixels = np.asarray(renderer_of(fig).buffer_rgba())
    ring_pixel = "#" + "".join(f"{v:02x}" for v in pixels[50, 50 + 17][:3])
    assert ring_pixel == look.background, f"just outside the marker: expected {look.background}, got {ring_pixel}"
    outside = "#" + "".join(f"{v:02x}" for v in pixels[50, 50 + 30][:3])
    assert outside == "#ff0000", f"beyond the halo the fill shows: got {outside}"


def test_the_rc_settings_keep_tex_off_and_take_the_themes_colours():
    rc = theme_rc(THEMES["dark"])
    assert rc["text.usetex"] is False and rc["font.family"] == "DejaVu Sans", rc
    assert rc["figure.facecolor"] == THEMES["dark"].background and rc["text.color"] == THEMES["dark"].text, rc


def test_drawn_text_never_reads_its_string_as_mathtext_or_tex():
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    text = draw_text(ax, 0.5, 0.5, "$x^2$ costs $5", gid="label")
    assert text.get_text() == "$x^2$ costs $5" and text.get_gid() == "label", text
    assert not text.get_usetex() and text.get_parse_math() is False, "the string would be parsed as math"
    assert isinstance(renderer_of(fig), RendererAgg), type(renderer_of(fig))
