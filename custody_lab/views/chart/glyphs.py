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
            renderer._renderer.draw_text_image(buffer, left + (ox >> 6), height - (top + (oy >> 6)) + buffer.shape[0], 0, gc)

    renderer._draw_text_glyphs_and_boxes = draw  # type: ignore[method-assign]
    return True
