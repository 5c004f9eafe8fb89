"""The fast, incremental custody matrix for the case explorer.

:class:`CustodyMatrix` draws the static map once, keeps it as a bitmap and redraws only the
highlighted case; :mod:`.png_bands` turns the canvas pixels into PNG bytes with zlib.
"""

from __future__ import annotations

__all__ = ["CustodyMatrix"]

import itertools
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from ...core.model import Case, Decision, Policy
from ...core.receipts import canonical_json
from ...core.router import route
from ...core.text import visible
from ...whatif.theme import Theme, theme_of
from .draw import draw_policy_layer, draw_static, label_case, new_figure
from .glyphs import cache_glyphs
from .png_bands import PngBands
from .regions import MARK_DY, ROW_OF, Region, as_case, matrix_regions, matrix_rows, short_status, x_of
from .style import (
    EDGE,
    INITIATOR_MARKER,
    LABEL_SIZE,
    MARKER_SIZE,
    cross,
    draw_text,
    halo,
    initiator_color,
    renderer_of,
    ring,
    theme_rc,
)
from .tiles import RegionTiles, rectangle_extents

# ---------------------------------------------------------------------------------------------
# The fast, incremental map for the case explorer
# ---------------------------------------------------------------------------------------------


class CustodyMatrix:
    """The matrix for an interactive widget: draw the map once, move one case many times.

    The static map (regions, hatching, limit line, legend and the faint context cases) is drawn
    once on an Agg canvas and kept as a bitmap. :meth:`render` restores that bitmap, redraws only
    the highlighted case (marker, cross, ring, label, leader line and the status line) and encodes
    the pixels with :func:`~.png_bands.png` (zlib at a low compression level). Only :meth:`set_policy` with a different
    embed limit (or a policy that changes a context case's outcome) redraws the map.

    Args:
        policy: the host policy; the seed's by default.
        context_cases: cases drawn faintly behind the explored one (e.g. the fixture).
        figsize: inches; the layout needs at least about 9 x 5.4 (9 pt text throughout).
        dpi: pixels per inch.
        cache_size: how many rendered PNGs to keep, keyed by (case, decision, policy); 0 disables.
        theme: ``"light"`` or ``"dark"``; ``$CUSTODY_LAB_THEME`` (else light) when omitted.

    Example:
        >>> from custody_lab import load_fixture
        >>> fx = load_fixture()
        >>> m = CustodyMatrix(context_cases=fx.all_cases)
        >>> m.render(fx.case("handbook"))[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
        True
    """

    def __init__(
        self,
        policy: Policy | None = None,
        context_cases: Iterable[Case | Mapping[str, object]] = (),
        figsize: tuple[float, float] = (9, 5.4),
        dpi: float = 96,
        *,
        cache_size: int = 32,
        theme: str | Theme | None = None,
    ) -> None:
        self.policy = policy or Policy()
        self.theme = theme_of(theme)
        self._context = [as_case(c) for c in context_cases]
        self._figsize = figsize
        self._cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._cache_size = cache_size
        self._regions: OrderedDict[Policy, tuple[Region, ...]] = OrderedDict()
        #: How many times the static map has been drawn (1 after construction), whole or its policy layer.
        self.background_draws = 0
        #: How many of those drew only the policy's layer over the kept axes and legend.
        self.policy_draws = 0
        self.figure: Figure = new_figure(figsize, dpi, self.theme)
        self._encoder = PngBands()
        self._tiles = RegionTiles()  # the regions' hatched patches, put back from kept pixels
        self.canvas: FigureCanvasAgg = self.figure.canvas  # type: ignore[assignment]
        cache_glyphs(renderer_of(self.figure))  # the title and words redrawn at each new limit
        self._build()

    # -- the static map -----------------------------------------------------------------------

    def _context_decisions(self, policy: Policy) -> list[tuple[Case, Decision]]:
        return [(c, route(c, policy)) for c in self._context]

    def _build(self) -> None:
        fig = self.figure
        fig.clear()
        look = self.theme
        with matplotlib.rc_context(theme_rc(look)):
            placed = self._context_decisions(self.policy)
            self._layout = draw_static(
                fig, placed, self.policy, look, faint=True, ring_legend=True, title=self._title()
            )
            self._kinds = frozenset(r.kind for r in matrix_regions(self.policy))
            ax = self._layout.ax
            kw: dict[str, Any] = {"linestyle": "none", "animated": True, "clip_on": False}
            self._ring = ax.plot([], [], **{**ring(look), **kw, "markeredgewidth": 1.8}, zorder=9)[0]
            self._marker = ax.plot(
                [],
                [],
                marker="o",
                markersize=MARKER_SIZE * 1.25,
                markeredgewidth=1.6,
                zorder=10,
                path_effects=halo(look, 6.0),
                **kw,
            )[0]
            self._cross = ax.plot(
                [], [], **{**cross(look), **kw, "markeredgewidth": 1.8}, markersize=MARKER_SIZE * 0.9, zorder=11
            )[0]
            self._label = draw_text(
                ax,
                0,
                0,
                "",
                ha="left",
                va="center",
                fontsize=LABEL_SIZE + 0.5,
                color=look.text,
                zorder=12,
                animated=True,
                bbox={
                    "boxstyle": "round,pad=0.15",
                    "facecolor": look.box,
                    "edgecolor": look.edge,
                    "linewidth": 0.6,
                    "alpha": 0.95,
                },
            )
            self._leader = ax.plot([], [], color=look.text, linewidth=0.9, zorder=9, animated=True, clip_on=False)[0]
            w, h = self._figsize
            self._status = draw_text(fig, EDGE / w, 1 - 0.42 / h, "", ha="left", va="top", fontsize=10, animated=True)
            self._status.set_gid("status")
            # The base a policy's layer is drawn over: the map without it, its spines and axes.
            hidden = [a for a in [*self._layout.artists, *self._axes_lines()] if a.get_visible()]
            for artist in hidden:
                artist.set_visible(False)
            self.canvas.draw()
            self._base_pixels = np.asarray(self.canvas.buffer_rgba()).copy()
            for artist in hidden:
                artist.set_visible(True)
            self.canvas.draw()
            self._reaches: dict[tuple[Any, ...], Bbox] = {}  # _signature's: this canvas's reaches by look
            self._signatures = {a: _signature(a, renderer_of(fig), self._reaches) for a in self._layout.artists}
            # The spines stay with the kept axes: where they reach is worked out once (their ticks' too).
            self._spine_reach = {a: _reach(a, renderer_of(fig)) for a in self._axes_lines()}
            # The status line sits on plain background: keep each distinct line's pixels.
            self._status.set_text("Ag|→")
            ext = self._status.get_window_extent(renderer_of(self.figure))
            self._status_strip = Bbox.from_extents(fig.bbox.x0, ext.y0 - 3, fig.bbox.x1, ext.y1 + 3)
            self._status_pixels: dict[str, Any] = {}
            self._remember(placed)
        self._cache.clear()

    def set_policy(self, policy: Policy | None) -> None:
        """Use another policy; redraw the static map only if it would look different.

        The map changes when the embed limit moves (the regions move) or when a context case's
        outcome changes; any other policy change only affects the next :meth:`render`. Only what
        the policy moves is redrawn (:meth:`_redraw_policy_layer`): the axes, their ticks, the group
        labels and the legend stay as they were drawn, unless the legend's region kinds change.
        """
        policy = policy or Policy()
        if policy == self.policy:
            return
        placed = self._context_decisions(policy)
        outcomes = tuple(d.outcome for _, d in placed)
        redraw = policy.embed_limit_bytes != self.policy.embed_limit_bytes or outcomes != self._context_outcomes
        self.policy = policy
        if not redraw:
            return
        regions = self._regions.get(policy)
        if regions is None:  # a slider goes back over its values: each policy's regions are kept
            regions = self._regions[policy] = matrix_regions(policy)
            while len(self._regions) > 256:
                self._regions.popitem(last=False)
        self._regions.move_to_end(policy)
        if frozenset(r.kind for r in regions) == self._kinds:
            self._redraw_policy_layer(placed, regions)
        else:
            self._build()

    def _redraw_policy_layer(self, placed: list[tuple[Case, Decision]], regions: tuple[Region, ...]) -> None:
        """Redraw only the pixels the new policy changes, as a full draw would give them.

        The old and the new policy's artists are compared (kind, words, colours, where they
        sit); every place where one of them differs is a dirty rectangle. Each rectangle gets the
        base pixels back (the map without the policy's layer and without the spines drawn over
        it) and then every artist that reaches into it, clipped to it, in the order a full draw
        uses. Agg clips at whole pixels, so the pixels are those :meth:`_build` would give.
        """
        fig, ax = self.figure, self._layout.ax
        renderer = renderer_of(fig)
        before = self._signatures
        # The same cases with the same outcomes keep their markers, and a region the same its patch
        # and words: taken off with the rest, they are added again in the drawing order.
        same = tuple(d.outcome for _, d in placed) == self._context_outcomes
        markers = self._layout.markers if same else None
        lent = self._layout.regions
        # What the new layer does not take over leaves the axes; what it takes over stays on them.
        staying = {id(a) for a in (self._layout.separator, *itertools.chain.from_iterable(markers or ()))}
        staying.update(id(a) for reg in regions if reg in lent for a in lent[reg][:2])
        for artist in self._layout.artists:
            if id(artist) not in staying:
                artist.remove()
        with matplotlib.rc_context(theme_rc(self.theme)):
            self._layout = draw_policy_layer(
                fig,
                ax,
                placed,
                self.policy,
                self.theme,
                regions,
                title=self._title(),
                faint=True,
                markers=markers,
                kept=lent,
                separator=self._layout.separator,
            )
            if len(self._reaches) > 4096:
                self._reaches.clear()
            # An artist lent by the last layer (an unchanged region, a marker, the separator) is
            # drawn as it was: its signature is the one worked out for it then.
            after = self._signatures = {
                a: before[a] if a in before else _signature(a, renderer, self._reaches) for a in self._layout.artists
            }
            height = int(fig.bbox.height)
            dirty = [_pixel_box(box, height) for box in _changes(list(before.values()), list(after.values()))]
            self.canvas.restore_region(self._background)
            pixels = np.asarray(self.canvas.buffer_rgba())
            axes_artists = sorted(  # stable, as Axes.draw sorts its children
                [a for a in self._layout.artists if a.axes is ax] + self._axes_lines(), key=lambda a: a.get_zorder()
            )
            order = axes_artists + [a for a in self._layout.artists if a.axes is None]
            spines = self._spine_reach
            reach = [
                (a, Bbox.from_extents(*after[a][-1]) if a in after else spines.get(a) or _reach(a, renderer))
                for a in order
            ]
            reach = [(a, box) for a, box in reach if a.get_visible()]
            rects = _merge(dirty)
            strip = _pixel_box(tuple(self._status_strip.extents), height)
            if any(r[0] < strip[2] and strip[0] < r[2] and r[1] < strip[3] and strip[1] < r[3] for r in rects):
                self._status_pixels = {}  # the status line's kept pixels hold a part of the map that changed
            for x0, y0, x1, y1 in rects:
                # Agg's pixel clip of markers and text includes the box's far edge: keep a frame
                # of the pixels around the box and put it back after drawing.
                around = (slice(max(y0 - 2, 0), y1 + 2), slice(max(x0 - 2, 0), x1 + 2))
                frame = pixels[around].copy()
                pixels[y0:y1, x0:x1] = self._base_pixels[y0:y1, x0:x1]
                clip = Bbox.from_extents(x0, height - y1, x1, height - y0)  # display space: y up
                for artist, box in reach:
                    if box.overlaps(clip) and not self._tiles.put(artist, renderer, pixels, (x0, y0, x1, y1)):
                        _draw_clipped(artist, renderer, clip)
                drawn = pixels[y0:y1, x0:x1].copy()
                pixels[around] = frame
                pixels[y0:y1, x0:x1] = drawn
        # Only the rectangles changed (each framed by its own pixels put back): their rows.
        self._remember(placed, [(y0, y1) for _, y0, _, y1 in rects])
        self.policy_draws += 1

    def _axes_lines(self) -> list[Any]:
        """The axes' own lines drawn over the regions' edges: the spines (ticks and their words lie
        outside the axes, where no region is drawn, so the base keeps them)."""
        return list(self._layout.ax.spines.values())

    def _title(self) -> str:
        return f"Custody matrix · embed limit {self.policy.embed_limit_bytes:,} B"

    def _remember(self, placed: list[tuple[Case, Decision]], rows: list[tuple[int, int]] | None = None) -> None:
        """Keep the drawn map as the frames' background (and its geometry for the labels);
        ``rows``: the only rows where it can differ from the last background (all when ``None``)."""
        fig = self.figure
        self._context_outcomes = tuple(d.outcome for _, d in placed)
        # A context case explored unchanged is drawn exactly on its (dodged) ghost.
        self._twins = {(c.id, c.shape, c.bytes): pos for (c, _), pos in zip(placed, self._layout.positions)}
        self._background = self.canvas.copy_from_bbox(fig.bbox)
        self._encoder.set_reference(np.asarray(self.canvas.buffer_rgba()), rows)
        self.background_draws += 1

    # -- one frame ----------------------------------------------------------------------------

    def render(self, case: Case | Mapping[str, object], decision: Decision | None = None) -> bytes:
        """PNG bytes of the map with ``case`` highlighted (marker, label, status line).

        Args:
            case: the explored case (a Case or a camelCase mapping).
            decision: its decision if the caller already routed it; routed here otherwise.

        Raises:
            CaseError: when a mapping is not a valid case.
        """
        case = as_case(case)
        d = decision if decision is not None else route(case, self.policy)
        key = (canonical_json(case.to_dict()), d.accepted, d.outcome, self.policy)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        png = self._draw_frame(case, d)
        if self._cache_size > 0:
            self._cache[key] = png
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return png

    def describe(
        self, case: Case | Mapping[str, object], decision: Decision | None = None
    ) -> tuple[str, list[dict[str, object]]]:
        """What :meth:`render` draws, in words: an alt text and the table equivalent, as rows.

        The rows are :func:`~.regions.matrix_rows` of the explored case (first, marked
        ``explored``) and the context cases, under the current policy (``pd.DataFrame(rows)``
        makes them a frame; the explorer renders them without pandas).

        Example:
            >>> from custody_lab import load_fixture
            >>> fx = load_fixture()
            >>> alt, table = CustodyMatrix(context_cases=fx.all_cases).describe(fx.case("oversize-embed"))
            >>> alt.split(":")[0], table[0]["id"], table[0]["explored"], table[0]["outcome"], len(table)
            ('Custody matrix', 'oversize-embed', True, 'embed-over-budget', 11)
        """
        case = as_case(case)
        d = decision if decision is not None else route(case, self.policy)
        table = [
            {"id": row.pop("id"), "explored": i == 0, **row}
            for i, row in enumerate(matrix_rows([case, *self._context], self.policy))
        ]
        verdict = f"accepted as {d.outcome}" if d.accepted else f"refused with {d.outcome}"
        alt = (
            f"Custody matrix: rows are the five shapes, the x axis is payload size with the embed limit at "
            f"{self.policy.embed_limit_bytes} bytes. The explored case {visible(case.id)} ({case.initiator}, "
            f"{case.shape}, {case.bytes} bytes) is {verdict}; {len(self._context)} other cases are drawn faintly."
        )
        return alt, table

    def _draw_frame(self, case: Case, d: Decision) -> bytes:
        fig, ax, layout = self.figure, self._layout.ax, self._layout
        self.canvas.restore_region(self._background)
        status = short_status(case, self.policy)
        strip = self._status_pixels.get(status)
        if strip is not None:
            self.canvas.restore_region(strip)
        else:
            self._status.set_text(status)
            fig.draw_artist(self._status)
            if len(self._status_pixels) < 64:
                self._status_pixels[status] = self.canvas.copy_from_bbox(self._status_strip)
        x, y = self._twins.get((case.id, case.shape, case.bytes), (x_of(case.bytes), ROW_OF[case.shape].y + MARK_DY))
        color = initiator_color(self.theme, case.initiator)
        self._ring.set_data([x], [y])
        self._marker.set_data([x], [y])
        self._marker.set_marker(INITIATOR_MARKER[case.initiator])
        self._marker.set_markeredgecolor(color)
        self._marker.set_markerfacecolor(color if d.accepted else self.theme.box)
        self._cross.set_data([x], [y])
        self._cross.set_visible(not d.accepted)
        label_case(
            ax,
            layout,
            case,
            d,
            x,
            y,
            list(layout.text_boxes),
            soft=layout.marker_boxes,
            ring=True,
            text=self._label,
            leader=self._leader,
        )
        for artist in (self._leader, self._ring, self._marker, self._cross, self._label):
            if artist.get_visible():
                fig.draw_artist(artist)
        return self._encoder.encode(np.asarray(self.canvas.buffer_rgba()))


#: pixels added around each artist's extent: antialiasing, line widths, a text's box and halo
_MARGIN = 4


def _reach(artist: Any, renderer: Any) -> Bbox:
    """The display-space box an artist's pixels can reach (its extent plus :data:`_MARGIN`)."""
    corners = rectangle_extents(artist) if type(artist) is Rectangle else None
    if corners is not None:  # its window extent without its path through the symlog scale
        return Bbox.from_extents(*corners).padded(_MARGIN)
    box = artist.get_window_extent(renderer)
    patch = artist.get_bbox_patch() if isinstance(artist, Text) else None
    if patch is not None:  # the box around a text: its pad, in points, on every side
        pad = float(getattr(patch.get_boxstyle(), "pad", 0.3))  # a style's pad, in font sizes
        return box.padded(pad * artist.get_fontsize() * renderer.points_to_pixels(1) + _MARGIN)
    return box.padded(_MARGIN)


def _signature(artist: Any, renderer: Any, reaches: dict[tuple[Any, ...], Bbox] | None = None) -> tuple[Any, ...]:
    """What decides an artist's pixels, with where they can reach last (two artists with the
    same signature draw the same pixels).

    ``reaches`` keeps each look's reach (:func:`_reach`: a text's extent needs its layout, a
    line's its path through the symlog scale) for a map whose artists are drawn by one code path
    on one canvas: an artist with the same look (its words, place, sizes, name) reaches as far.
    """
    look: tuple[Any, ...] = (type(artist).__name__, artist.get_gid(), artist.get_visible(), artist.get_zorder())
    size: tuple[Any, ...] = ()
    if isinstance(artist, Text):
        look += (artist.get_text(), artist.get_horizontalalignment(), artist.get_position())
        size = (artist.get_fontsize(), artist.get_rotation(), artist.get_verticalalignment(), artist.get_fontweight())
    elif isinstance(artist, Line2D):
        marker = MarkerStyle(artist.get_marker())
        look += (
            tuple(np.asarray(artist.get_xdata(), float)),
            tuple(np.asarray(artist.get_ydata(), float)),
            artist.get_marker(),
            str(artist.get_color()),
            str(artist.get_markeredgecolor()),
            str(artist.get_markerfacecolor()) if marker.is_filled() else "",  # an "x" has no face
        )
        size = (artist.get_markersize(), artist.get_linewidth(), artist.get_markeredgewidth())
    elif isinstance(artist, Patch):
        look += (str(artist.get_facecolor()), artist.get_hatch())
        if isinstance(artist, Rectangle):
            size = (artist.get_x(), artist.get_y(), artist.get_width(), artist.get_height())
    key = (*look, *size)
    box = reaches.get(key) if reaches is not None and size else None
    if box is None:
        box = _reach(artist, renderer)
        if reaches is not None and size:
            reaches[key] = box
    return (*look, tuple(round(float(v), 3) for v in box.extents))


def _changes(before: list[tuple[Any, ...]], after: list[tuple[Any, ...]]) -> list[tuple[float, ...]]:
    """Display boxes holding every pixel that differs between two sets of artist signatures.

    An artist in only one set changes the pixels it reaches. A rectangle that only moved its
    edges (the same fill and hatch; Agg anchors a hatch to the canvas, not to the patch) changes
    only the strips between its old and its new edges.
    """
    old, new = set(before), set(after)
    gone, came = [s for s in before if s not in new], [s for s in after if s not in old]
    boxes: list[tuple[float, ...]] = []
    moved = {s[:-1]: s[-1] for s in gone if s[0] == "Rectangle" and s[1] is not None}
    for s in came:
        was = moved.pop(s[:-1], None) if s[0] == "Rectangle" and s[1] is not None else None
        if was is None:
            boxes.append(s[-1])
            continue
        (a0, b0, a1, b1), (c0, d0, c1, d1) = was, s[-1]
        pad = 2 * _MARGIN  # each edge's own margin, on either side of it
        for x, y in ((a0, c0), (a1, c1)):
            if x != y:
                boxes.append((min(x, y) - pad, min(b0, d0), max(x, y) + pad, max(b1, d1)))
        for x, y in ((b0, d0), (b1, d1)):
            if x != y:
                boxes.append((min(a0, c0), min(x, y) - pad, max(a1, c1), max(x, y) + pad))
    boxes += list(moved.values())
    boxes += [s[-1] for s in gone if not (s[0] == "Rectangle" and s[1] is not None)]
    return boxes


def _pixel_box(extents: tuple[float, ...], height: int) -> tuple[int, int, int, int]:
    """Display extents as whole-pixel array bounds (x0, row0, x1, row1), rows counted from the top."""
    x0, y0, x1, y1 = extents
    return max(int(np.floor(x0)), 0), max(int(np.floor(height - y1)), 0), int(np.ceil(x1)), int(np.ceil(height - y0))


def _merge(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Overlapping boxes (x0, row0, x1, row1) joined into their bounding boxes until none overlap
    (an artist is then drawn once for a cluster of changes, not once a piece)."""
    out: list[tuple[int, int, int, int]] = []
    for box in boxes:
        while True:
            hit = next((o for o in out if o[0] < box[2] and box[0] < o[2] and o[1] < box[3] and box[1] < o[3]), None)
            if hit is None:
                break
            out.remove(hit)
            box = (min(box[0], hit[0]), min(box[1], hit[1]), max(box[2], hit[2]), max(box[3], hit[3]))
        out.append(box)
    return out


def _draw_clipped(artist: Any, renderer: Any, clip: Bbox) -> None:
    """Draw an artist with its pixels limited to ``clip`` (and to its own clip box, if it has one)."""
    was_on, was_box = artist.get_clip_on(), artist.get_clip_box()
    box = clip if not was_on or was_box is None else Bbox.intersection(clip, was_box)
    if box is None:
        return
    artist.set_clip_box(box)
    artist.set_clip_on(True)
    try:
        artist.draw(renderer)
    finally:
        artist.set_clip_box(was_box)
        artist.set_clip_on(was_on)
