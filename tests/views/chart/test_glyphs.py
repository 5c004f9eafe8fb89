"""Text drawn from kept glyph bitmaps and layouts gives the pixels matplotlib's own loop gives."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from custody_lab.views.chart.glyphs import cache_glyphs

WORDS = ["Custody matrix · embed limit 3,037 B", "over budget → link", "fits: embed", "Ag|→ ≥ 1 MB"]


def _figure(shift: float, *, antialiased: bool = True) -> Figure:
    """Texts at fractional places (each shift moves them by a part of a pixel), in several sizes,
    weights and angles, over a hatched patch, with a box behind some."""
    fig = Figure(figsize=(4, 3), dpi=96)
    FigureCanvasAgg(fig)
    fig.patches.append(matplotlib.patches.Rectangle((0.1, 0.1), 0.5, 0.5, transform=fig.transFigure, hatch="xx"))
    for k, words in enumerate(WORDS):
        for j, (size, angle) in enumerate([(9, 0), (11, 0), (9, 90), (10, 30)]):
            fig.text(
                0.03 + 0.21 * j + shift,
                0.05 + 0.22 * k + shift / 3,
                words,
                fontsize=size,
                rotation=angle,
                fontweight="bold" if k % 2 else "normal",
                antialiased=antialiased,
                parse_math=False,
                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "alpha": 0.9} if k == 1 else None,
            )
    for angle in (0, 90):  # one place, two angles: the first glyphs fall on the same 1/64 pixel
        fig.text(0.5 + shift, 0.5, "AAA", rotation=angle, rotation_mode="anchor", ha="left", va="baseline")
    return fig


def _pixels(fig: Figure) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba()).copy()  # type: ignore[attr-defined]


@pytest.mark.parametrize("antialiased", [True, False])
def test_text_drawn_from_kept_glyphs_has_the_pixels_of_matplotlibs_own_loop(antialiased):
    cached = _figure(0.0, antialiased=antialiased)
    assert cache_glyphs(cached.canvas.get_renderer())  # type: ignore[attr-defined]
    for shift in (0.0, 0.0013, 0.0021, 0.0104, 0.0):  # again and again: later draws take kept bitmaps
        plain = _figure(shift, antialiased=antialiased)
        for text, moved in zip(cached.texts, plain.texts):
            text.set_position(moved.get_position())
        differ = int((_pixels(cached) != _pixels(plain)).any(axis=2).sum())
        assert differ == 0, f"shift {shift}: {differ} pixels differ from matplotlib's own text drawing"


def test_the_glyph_cache_is_given_once_and_only_on_the_matplotlib_it_copies(monkeypatch):
    renderer = FigureCanvasAgg(Figure()).get_renderer()
    assert cache_glyphs(renderer) is True
    assert cache_glyphs(renderer) is False, "a second loop wrapped around the first"
    monkeypatch.setattr(matplotlib, "__version__", "3.12.0")
    other = FigureCanvasAgg(Figure()).get_renderer()
    assert cache_glyphs(other) is False
    assert "_draw_text_glyphs_and_boxes" not in vars(other) and "draw_text" not in vars(other)
