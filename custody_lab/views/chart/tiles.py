"""Hatched region patches put back from kept tiles instead of drawn by Agg.

A region of the custody matrix is an opaque, edgeless rectangle with a hatch. Agg snaps such a
rectangle to whole pixels (each pixel is covered wholly or not at all) and anchors its hatch to the
canvas, not to the patch: every pixel a region covers gets the colour the canvas has at that place
for that look (fill, hatch, hatch colour and width), whatever lies under it and wherever the
region's edges are. :class:`RegionTiles` draws each look once over the whole axes, keeps those
pixels (a tile) and afterwards copies a region's pixels from its tile: the same pixels as drawing
it, for a fraction of matplotlib's fixed cost of drawing a hatched patch. A look whose tile is not
wholly opaque, or a patch that is not such a rectangle, is left to be drawn as usual.
(``tests/views/chart/test_tiles.py`` compares the pixels with Agg's.)
"""

from __future__ import annotations

__all__ = ["RegionTiles", "rectangle_extents"]

import math
from typing import Any

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle


def _footprint(extents: tuple[float, ...], height: int) -> tuple[int, int, int, int]:
    """The pixels (col0, row0, col1, row1; rows from the top) a snapped, edgeless rectangle with
    these display extents covers: Agg rounds each vertex to the nearest pixel corner."""
    x0, y0, x1, y1 = extents
    return (
        math.floor(x0 + 0.5),
        math.floor(height - y1 + 0.5),
        math.floor(x1 + 0.5),
        math.floor(height - y0 + 0.5),
    )


def rectangle_extents(patch: Any) -> tuple[float, ...] | None:
    """A rectangle's display extents (what ``get_window_extent`` gives, without building its path):
    its two corners through the data transform; ``None`` for a rotated rectangle or one not placed
    in its axes' data coordinates."""
    if patch.axes is None or patch.get_angle() != 0 or patch.get_data_transform() is not patch.axes.transData:
        return None
    x, y = patch.get_x(), patch.get_y()
    (a, b), (c, d) = patch.axes.transData.transform([(x, y), (x + patch.get_width(), y + patch.get_height())])
    return min(a, c), min(b, d), max(a, c), max(b, d)


class RegionTiles:
    """Kept tiles of a canvas's region looks, and the copy of a region's pixels from its tile.

    Example:
        >>> from custody_lab import load_fixture
        >>> from custody_lab.chart import CustodyMatrix
        >>> m = CustodyMatrix(context_cases=load_fixture().all_cases)
        >>> patch = next(a for a in m._layout.artists if a.get_gid() == "region:listed-resource:resource")
        >>> renderer, pixels = m.canvas.get_renderer(), np.asarray(m.canvas.buffer_rgba())
        >>> RegionTiles().put(patch, renderer, pixels, (0, 0, 864, 518))  # the same pixels as drawing it
        True
    """

    def __init__(self) -> None:
        #: by look: (tile pixels, its first column, its first row), or None when the look is not opaque
        self._tiles: dict[tuple[Any, ...], tuple[np.ndarray, int, int] | None] = {}

    @staticmethod
    def _look(patch: Any, renderer: Any) -> tuple[Any, ...] | None:
        """What decides a region's pixels besides where it is; ``None`` when it cannot be tiled."""
        if (
            type(patch) is not Rectangle
            or not patch.get_visible()
            or patch.axes is None
            or patch.get_alpha() is not None
            or patch.get_linewidth() != 0
            or patch.get_path_effects()
            or patch.get_snap() is not None
            or patch.get_sketch_params() is not None
            or patch.get_agg_filter() is not None
            or patch.get_clip_path() is not None
            or not patch.get_clip_on()
            or patch.get_clip_box() is None
        ):
            return None
        return (
            tuple(float(v) for v in to_rgba(patch.get_facecolor())),  # a see-through fill's tile is refused
            patch.get_hatch(),
            tuple(float(v) for v in to_rgba(patch.get_hatchcolor())),
            float(patch.get_hatch_linewidth()),
            patch.get_antialiased(),
            tuple(round(float(v), 6) for v in np.asarray(patch.get_clip_box(), float).flat),
            int(renderer.width),
            int(renderer.height),
            float(renderer.dpi),
        )

    def _tile(self, look: tuple[Any, ...], patch: Any, renderer: Any) -> tuple[np.ndarray, int, int] | None:
        """Draw ``patch``'s look over the whole axes (twice: over black and over white) and keep
        its pixels; ``None`` when they are not the same both times (not wholly opaque)."""
        ax = patch.axes
        pixels = np.asarray(renderer.buffer_rgba())
        saved = pixels.copy()
        bounds = patch.get_bbox().bounds
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        patch.set_bounds(x0, y0, x1 - x0, y1 - y0)
        try:
            c0, r0, c1, r1 = _footprint(tuple(patch.get_window_extent(renderer).extents), int(renderer.height))
            drawn = []
            for under in (0, 255):
                pixels[...] = under
                patch.draw(renderer)
                drawn.append(pixels.copy())
        finally:
            patch.set_bounds(*bounds)
            pixels[...] = saved
        inside = (slice(r0, r1), slice(c0, c1))
        black, white = drawn[0], drawn[1]
        covered = (black != 0).any(axis=2) | (white != 255).any(axis=2)
        outside = covered.copy()
        outside[inside] = False
        if r1 <= r0 or c1 <= c0 or outside.any() or not np.array_equal(black[inside], white[inside]):
            return None
        return black[inside].copy(), c0, r0

    def put(self, patch: Any, renderer: Any, pixels: np.ndarray, rect: tuple[int, int, int, int]) -> bool:
        """Copy ``patch``'s pixels inside ``rect`` (col0, row0, col1, row1) from its look's tile into
        ``pixels`` (the canvas's RGBA, rows from the top); ``False`` (nothing done) when the patch
        has no tile and must be drawn."""
        look = self._look(patch, renderer)
        if look is None:
            return False
        if look not in self._tiles:
            if len(self._tiles) > 64:
                self._tiles.clear()
            self._tiles[look] = self._tile(look, patch, renderer)
        kept = self._tiles[look]
        if kept is None:
            return False
        tile, tc, tr = kept
        extents = rectangle_extents(patch)
        if extents is None:
            return False
        c0, r0, c1, r1 = _footprint(extents, int(renderer.height))
        if c0 < tc or r0 < tr or c1 > tc + tile.shape[1] or r1 > tr + tile.shape[0]:
            return False  # it reaches beyond the axes: drawn
        x0, y0, x1, y1 = max(c0, rect[0]), max(r0, rect[1]), min(c1, rect[2]), min(r1, rect[3])
        if x1 > x0 and y1 > y0:
            pixels[y0:y1, x0:x1] = tile[y0 - tr : y1 - tr, x0 - tc : x1 - tc]
        return True
