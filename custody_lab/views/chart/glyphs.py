"""Text drawn from kept glyph bitmaps: the Agg renderer's own glyph loop, FreeType asked once a glyph.

matplotlib 3.11 draws a text glyph by glyph: for each it sets FreeType's transform (the glyph's
place, to 1/64 pixel), renders the glyph's coverage bitmap and blends that bitmap into the canvas
in the text's colour. Rendering the bitmap is most of a short text's cost, and a chart draws the
same glyphs again and again (its title and words at each new embed limit). :func:`cache_glyphs`
gives one renderer a loop that keeps each bitmap by everything that decides it (the font object,
size, resolution, glyph, transform, hinting, render mode and the place's fraction of a pixel) and
blends the kept bitmap where FreeType would have put it: a whole-pixel move of a glyph moves its
outline by whole pixels, so its coverage bitmap is the same, shifted. The blend is the renderer's
own call with the same bitmap, place and colour, so the pixels are those the uncached loop gives
(``tests/views/chart/test_glyphs.py`` compares them).
"""

from __future__ import annotations

__all__ = ["GLYPH_CACHE_SIZE", "cache_glyphs"]

import math
from collections.abc import Iterable
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends import backend_agg
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.ft2font import RenderMode

#: the loop below is matplotlib 3.11's ``RendererAgg._draw_text_glyphs_and_boxes`` (pyproject pins 3.11.2)
_MATPLOTLIB = "3.11."
#: bitmaps kept per renderer (a glyph's is a few hundred bytes); the cache starts again when full
GLYPH_CACHE_SIZE = 8192


def cache_glyphs(renderer: RendererAgg) -> bool:
    """Give ``renderer`` the caching glyph loop; ``False`` (nothing changed) on another matplotlib.

    Example:
        >>> from matplotlib.figure import Figure
        >>> from matplotlib.backends.backend_agg import FigureCanvasAgg
        >>> canvas = FigureCanvasAgg(Figure())
        >>> cache_glyphs(canvas.get_renderer()), cache_glyphs(canvas.get_renderer())
        (True, False)
    """
    if not matplotlib.__version__.startswith(_MATPLOTLIB) or "_draw_text_glyphs_and_boxes" in vars(renderer):
        return False
    uncached = renderer._draw_text_glyphs_and_boxes
    kept: dict[tuple[Any, ...], tuple[Any, np.ndarray, int, int]] = {}
    matrices: dict[tuple[float, float, float], tuple[Any, tuple[int, ...]]] = {}

    def draw(gc: Any, x: float, y: float, angle: float, glyphs: Iterable[Any], boxes: Any) -> None:
        boxes = list(boxes)
        if boxes:  # mathtext's rules: drawn as matplotlib draws them (the lab's text is never math)
            uncached(gc, x, y, angle, glyphs, boxes)
            return
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        flags = backend_agg.get_hinting_flag()
        mode = RenderMode.NORMAL if gc.get_antialiased() else RenderMode.MONO
        height = int(renderer.height)
        if len(kept) > GLYPH_CACHE_SIZE:
            kept.clear()
        for font, size, glyph_index, slant, extend, dx, dy in glyphs:  # dy is upwards
            shape = matrices.get((angle, slant, extend))
            if shape is None:
                m = (0x10000 * np.array([[cos, -sin], [sin, cos]]) @ [[extend, extend * slant], [0, 1]]).round()
                shape = matrices[(angle, slant, extend)] = (m.astype(int), tuple(int(v) for v in m.flat))
            ox = round(0x40 * (x + dx * cos - dy * sin))
            oy = round(0x40 * (renderer.height - y + dx * sin + dy * cos))  # FreeType's y is upwards
            key = (id(font), size, renderer.dpi, glyph_index, shape[1], flags, mode, ox & 0x3F, oy & 0x3F)
            hit = kept.get(key)
            if hit is None:
                font.set_size(size, renderer.dpi)
                font._set_transform(shape[0], [ox, oy])
                bitmap = font._render_glyph(glyph_index, flags, mode)
                buffer = bitmap.buffer
                if mode is RenderMode.MONO:
                    buffer *= 0xFF
                # the font is kept with its bitmaps, so its id names no other font while they are kept
                hit = kept[key] = (font, buffer, bitmap.left - (ox >> 6), bitmap.top - (oy >> 6))
            _, buffer, left, top = hit
            # draw_text_image's y is downwards & the bitmap's bottom side
            bottom = height - (top + (oy >> 6)) + buffer.shape[0]
            renderer._renderer.draw_text_image(buffer, left + (ox >> 6), bottom, 0, gc)

    def draw_text(
        gc: Any, x: float, y: float, s: str, prop: Any, angle: float, ismath: Any = False, mtext: Any = None
    ) -> None:
        """``RendererAgg.draw_text`` with each string's glyph layout kept (shaping it is a third
        of drawing a short label) and its glyphs drawn by the caching loop."""
        if ismath:
            uncached_text(gc, x, y, s, prop, angle, ismath, mtext)
            return
        font = renderer._prepare_font(prop)
        flags = backend_agg.get_hinting_flag()
        features = mtext.get_fontfeatures() if mtext is not None else None
        language = mtext.get_language() if mtext is not None else None
        size = prop.get_size_in_points()
        key = (id(font), s, flags, features, language, size, renderer.dpi)
        try:
            laid, keep = layouts.get(key), True
        except TypeError:  # a feature list or language ranges: not kept
            laid, keep = None, False
        if laid is None:
            items = font._layout(s, flags=flags, features=features, language=language)
            laid = (font, tuple((item.ft_object, item.glyph_index, item.x, item.y) for item in items))
            if keep:
                if len(layouts) > GLYPH_CACHE_SIZE:
                    layouts.clear()
                layouts[key] = laid  # the font kept with it: its id names no other font meanwhile
        draw(gc, x, y, angle, ((f, size, index, 0, 1, dx, dy) for f, index, dx, dy in laid[1]), [])

    uncached_text = renderer.draw_text
    layouts: dict[tuple[Any, ...], tuple[Any, tuple[tuple[Any, int, float, float], ...]]] = {}
    renderer._draw_text_glyphs_and_boxes = draw  # type: ignore[method-assign]
    renderer.draw_text = draw_text  # type: ignore[method-assign]
    return True
