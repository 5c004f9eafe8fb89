"""Region patches put back from kept tiles have Agg's own pixels (views/chart/tiles.py)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.patches import Rectangle
from matplotlib.transforms import Bbox

import custody_lab as cl
from custody_lab.chart import CustodyMatrix
from custody_lab.views.chart.fast import _draw_clipped
from custody_lab.views.chart.tiles import RegionTiles, rectangle_extents

# (col0, row0, col1, row1): the whole canvas, a strip across every row, a box on a region's edge
RECTS = [(0, 0, 864, 518), (450, 40, 700, 330), (530, 230, 560, 280), (201, 80, 204, 130)]


def agg_and_tiles(m: CustodyMatrix, patch, tiles: RegionTiles, rect) -> tuple[np.ndarray, np.ndarray]:
    """The pixels inside ``rect`` after Agg draws ``patch`` clipped to it, and after ``tiles`` puts it."""
    renderer = m.canvas.get_renderer()
    pixels = np.asarray(m.canvas.buffer_rgba())
    start = pixels.copy()
    x0, y0, x1, y1 = rect
    height = int(renderer.height)
    _draw_clipped(patch, renderer, Bbox.from_extents(x0, height - y1, x1, height - y0))
    drawn = pixels[y0:y1, x0:x1].copy()
    pixels[...] = start
    assert tiles.put(patch, renderer, pixels, rect), f"{patch.get_gid()} was not put from a tile"
    put = pixels[y0:y1, x0:x1].copy()
    pixels[...] = start
    return drawn, put


@pytest.mark.parametrize(("theme", "dpi"), [("light", 96), ("dark", 96), ("light", 137)])
def test_every_region_put_from_its_tile_has_aggs_pixels(fixture, theme, dpi):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0, theme=theme, dpi=dpi)
    tiles = RegionTiles()
    for limit in (4096, 0, 1, 37, 3037, 99_999, 1_000_000, 5_000_000):
        m.set_policy(cl.Policy(embed_limit_bytes=limit))
        for region, (patch, _words, _box) in m._layout.regions.items():
            for rect in RECTS:
                drawn, put = agg_and_tiles(m, patch, tiles, rect)
                differ = int((drawn != put).any(axis=2).sum())
                assert differ == 0, f"limit {limit}, {region.shape} {region.kind}, {rect}: {differ} pixels differ"


@pytest.mark.parametrize(
    "looks",
    [
        # each pair shares all but one thing a tile is kept by: the second must not get the first's tile
        [{"hatch": "///"}, {"hatch": "xx"}],
        [{"facecolor": "#d6e4f3"}, {"facecolor": "#f9e0cb"}],
        [{"hatchcolor": "#888888"}, {"hatchcolor": "#ff0000"}],
        [{"hatch_linewidth": 0.6}, {"hatch_linewidth": 2.0}],
    ],
)
def test_a_tile_is_kept_by_everything_that_decides_its_pixels(fixture, looks):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    ax = m._layout.ax
    tiles = RegionTiles()
    for look in looks:
        kw = {"facecolor": "#e2e2e2", "hatch": "..", "hatchcolor": "#777777", **look}
        width = kw.pop("hatch_linewidth", 0.6)
        patch = Rectangle((30, 0.5), 5000, 2.0, edgecolor="none", linewidth=0, zorder=0, **kw)
        patch.set_hatch_linewidth(width)
        ax.add_artist(patch)
        drawn, put = agg_and_tiles(m, patch, tiles, (0, 0, 864, 518))
        assert (drawn != put).any(axis=2).sum() == 0, f"{look}: the tile's pixels are not Agg's"
        patch.remove()


def test_a_see_through_or_edged_patch_is_left_to_agg(fixture):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    ax, renderer = m._layout.ax, m.canvas.get_renderer()
    pixels = np.asarray(m.canvas.buffer_rgba())
    tiles = RegionTiles()
    see_through = ax.add_artist(Rectangle((30, 0.5), 500, 1, facecolor=(1, 0, 0, 0.5), hatch="//", linewidth=0))
    edged = ax.add_artist(Rectangle((30, 0.5), 500, 1, facecolor="#e2e2e2", hatch="//", linewidth=1.0))
    faded = ax.add_artist(Rectangle((30, 0.5), 500, 1, facecolor="#e2e2e2", hatch="//", linewidth=0, alpha=0.5))
    turned = ax.add_artist(Rectangle((30, 0.5), 500, 1, facecolor="#e2e2e2", hatch="//", linewidth=0, angle=10))
    plain = ax.add_artist(Rectangle((30, 0.5), 500, 1, facecolor="#e2e2e2", hatch="//", linewidth=0))
    assert tiles.put(plain, renderer, pixels.copy(), (0, 0, 864, 518))  # its look's tile is kept: a turned
    before = pixels.copy()  # patch of the same look still is not put from it
    for patch in (see_through, edged, faded, turned):
        assert not tiles.put(patch, renderer, pixels, (0, 0, 864, 518))
    assert np.array_equal(pixels, before)


def test_a_rectangles_corners_give_its_window_extent(fixture):
    m = CustodyMatrix(context_cases=fixture.all_cases, cache_size=0)
    renderer = m.canvas.get_renderer()
    for limit in (0, 3037, 1_000_000):
        m.set_policy(cl.Policy(embed_limit_bytes=limit))
        for patch, _words, _box in m._layout.regions.values():
            assert rectangle_extents(patch) == pytest.approx(tuple(patch.get_window_extent(renderer).extents), abs=1e-9)
    turned = m._layout.ax.add_artist(Rectangle((30, 0.5), 500, 1, angle=10))
    assert rectangle_extents(turned) is None
