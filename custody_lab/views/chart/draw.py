"""The custody matrix drawn with matplotlib: :func:`matrix_figure`, :func:`export`, the legend.

The figure is drawn on an Agg canvas (no pyplot state). Every encoding is repeated without colour
(seed 000: the legend "repeats all encodings without color"): marker shape = initiator, filled /
hollow with a cross = accepted / rejected, hatch pattern + in-band text = region, dashed line =
embed limit. Text from a case is drawn with mathtext and TeX switched off (:func:`draw_text`).
"""

from __future__ import annotations

__all__ = ["Layout", "draw_policy_layer", "draw_static", "export", "label_case", "matrix_figure", "new_figure"]


from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator
from matplotlib.transforms import ScaledTranslation, blended_transform_factory

from ...core.model import Case, Decision, Policy
from ...core.router import route
from ...whatif.theme import Theme, theme_of
from .labelling import label_all, label_case
from .legend import MARKER_WORDS, Encodings, draw_legend
from .placement import Box
from .regions import (
    GROUPS,
    LINTHRESH,
    MARK_DY,
    REGION_KINDS,
    ROW_OF,
    ROWS,
    SEPARATOR_Y,
    TICK_LABELS,
    TICKS,
    XMAX,
    YBOTTOM,
    YTOP,
    ChartError,
    Region,
    as_case,
    matrix_regions,
    safe_text,
    status_text,
    x_of,
)
from .style import (
    BOTTOM,
    EDGE,
    INITIATOR_MARKER,
    LEFT,
    MARKER_SIZE,
    MIN_TEXT,
    RIGHT,
    TOP,
    cross,
    draw_text,
    halo,
    initiator_color,
    renderer_of,
    theme_rc,
)


def _fit_width(text: Text, fig: Figure, size: float = 10.0) -> None:
    """Shrink a one-line figure text to end inside the figure; at the minimum size, shorten it."""
    renderer = renderer_of(fig)
    text.set_fontsize(size)
    limit = fig.bbox.x1 - EDGE * fig.dpi
    while text.get_window_extent(renderer).x1 > limit and size > MIN_TEXT:
        size -= 0.5
        text.set_fontsize(size)
    words = text.get_text()
    while text.get_window_extent(renderer).x1 > limit and len(words) > 10:
        words = words[:-2]
        text.set_text(words.rstrip() + "…")


@dataclass
class Layout:
    """What a drawn matrix knows about itself (display-space geometry for the label placer)."""

    ax: Any
    policy: Policy
    theme: Theme
    text_boxes: list[Box] = field(default_factory=list)
    marker_boxes: list[Box] = field(default_factory=list)
    region_labels: list[Text] = field(default_factory=list)
    positions: list[tuple[float, float]] = field(default_factory=list)
    clusters: list[list[int]] = field(default_factory=list)
    limit_box: Box | None = None
    marker_r: float = 5.0
    #: the artists the policy moves (regions, their words, separator, limit, cases, title)
    artists: list[Any] = field(default_factory=list)
    #: each case's marker artists (its marker, and its cross when refused), in the cases' order
    markers: list[list[Line2D]] = field(default_factory=list)
    #: each region's patch, words and the words' box for the placer (``None``: hidden, too narrow)
    regions: dict[Region, tuple[Any, Text, Box | None]] = field(default_factory=dict)
    #: the line between the two groups (the same for every policy)
    separator: Line2D | None = None


def _axes(fig: Figure) -> Any:
    w, h = fig.get_size_inches()
    rect = (LEFT / w, BOTTOM / h, 1 - (LEFT + RIGHT) / w, 1 - (TOP + BOTTOM) / h)
    ax = fig.add_axes(rect)
    ax.set_xscale("symlog", linthresh=LINTHRESH, linscale=0.35)
    ax.set_xlim(0, XMAX)
    ax.set_ylim(YBOTTOM, YTOP)  # inverted: the first row on top
    ax.xaxis.set_major_locator(FixedLocator(list(TICKS)))
    ax.xaxis.set_major_formatter(FixedFormatter(list(TICK_LABELS)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_yticks([r.y for r in ROWS], [r.shape for r in ROWS])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="both", labelsize=MIN_TEXT, length=3)
    ax.tick_params(axis="y", length=0, pad=6)
    ax.set_xlabel("payload size (bytes, log scale)", fontsize=MIN_TEXT, labelpad=3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def draw_static(
    fig: Figure,
    placed: Sequence[tuple[Case, Decision]],
    policy: Policy,
    theme: Theme,
    *,
    title: str,
    faint: bool,
    ring_legend: bool,
) -> Layout:
    """The map: regions, separator, group labels, limit line, markers, legend, caption.

    ``faint`` draws the cases as context behind one explored case; its legend then lists every
    marker encoding (the explored case can be any of them), otherwise only those drawn.
    """
    ax = _axes(fig)
    regions = matrix_regions(policy)
    layout = draw_policy_layer(fig, ax, placed, policy, theme, regions, title=title, faint=faint)
    _draw_groups(fig, ax, theme)
    drawn = {(c.initiator, d.accepted) for c, d in placed}
    used = Encodings(
        markers=frozenset(MARKER_WORDS if faint else drawn),
        kinds=frozenset(r.kind for r in regions),
        ring=ring_legend,
    )
    draw_legend(fig, theme, used)
    return layout


def _draw_groups(fig: Figure, ax: Any, theme: Theme) -> None:
    """The two groups: a separator line and a bracketed label at the far left."""
    bracket = blended_transform_factory(fig.dpi_scale_trans, ax.transData)
    for initiator, words in GROUPS:
        ys = [r.y for r in ROWS if r.initiator == initiator]
        top, bottom = min(ys) - 0.45, max(ys) + 0.45
        fig.add_artist(Line2D([0.52, 0.52], [top, bottom], transform=bracket, color=theme.muted, lw=1.2))
        draw_text(
            fig,
            0.3,
            (top + bottom) / 2,
            words,
            transform=bracket,
            rotation=90,
            ha="center",
            va="center",
            fontsize=MIN_TEXT,
            fontweight="bold",
            linespacing=1.15,
        ).set_gid(f"group:{initiator}")


def draw_policy_layer(
    fig: Figure,
    ax: Any,
    placed: Sequence[tuple[Case, Decision]],
    policy: Policy,
    theme: Theme,
    regions: Sequence[Region],
    *,
    title: str,
    faint: bool,
    markers: Sequence[Sequence[Line2D]] | None = None,
    kept: Mapping[Region, tuple[Any, Text, Box | None]] | None = None,
    separator: Line2D | None = None,
) -> Layout:
    """What the policy moves: regions and their words, separator, limit line, the cases, the title.

    Every artist drawn is listed in the returned layout's ``artists`` (in drawing order), so a map
    can take them away and draw another policy's over the same axes, legend and group labels.
    A layer drawn before on the same axes can lend its artists: ``markers`` (``layout.markers``,
    one list a case) when the cases and their outcomes are the same, ``kept`` (``layout.regions``)
    for each region that is the same, ``separator`` (``layout.separator``) in the same theme. Those
    are not made anew: they are taken off the axes (if still on them) and added again in the
    drawing order, so the axes hold the artists in the order a fresh layer gives.
    """
    layout = Layout(ax, policy, theme, marker_r=MARKER_SIZE * fig.dpi / 72 / 2 + 1.5)
    renderer = renderer_of(fig)
    px = fig.dpi / 72  # pixels per point
    mine = layout.artists

    # Regions: hatch + fill, then their words in the top strip of the band.
    for reg in regions:
        drawn = kept.get(reg) if kept is not None else None
        if drawn is None:
            drawn = _draw_region(fig, ax, renderer, theme, reg)
        else:
            _again(ax, drawn[0])
            _again(ax, drawn[1])
        patch, t, box = layout.regions[reg] = drawn
        mine += [patch, t]
        if box is not None:
            layout.region_labels.append(t)
            layout.text_boxes.append(box)

    # The line between the two groups (their bracketed labels are drawn once, by draw_static).
    if separator is None:
        separator = ax.axhline(SEPARATOR_Y, color=theme.ink, linewidth=1.0, zorder=1)
    else:
        _again(ax, separator)
    layout.separator = separator
    mine.append(separator)

    # The policy's embed limit (seed 000: "a local teaching policy, not a protocol maximum").
    limit = policy.embed_limit_bytes
    xl = min(limit, XMAX)
    line = ax.axvline(xl, color=theme.ink, linestyle=(0, (5, 3)), linewidth=1.3, zorder=3)
    line.set_gid("limit-line")
    mine.append(line)
    note = f"embed limit {limit:,} B" + (" (beyond 1 MB)" if limit > XMAX else "")
    top_of_axes = blended_transform_factory(ax.transData, ax.transAxes)
    lim = draw_text(
        ax,
        xl,
        1.0,
        note,
        transform=top_of_axes + ScaledTranslation(0, 3 / 72, fig.dpi_scale_trans),
        ha="center",
        va="bottom",
        fontsize=MIN_TEXT,
        fontweight="bold",
    )
    lim.set_gid("limit-label")
    mine.append(lim)
    # Case labels keep off the limit line: its strip is a box no label may cover.
    line_x = ax.transData.transform((xl, 0))[0]
    axbox0 = ax.get_window_extent(renderer)
    layout.limit_box = (line_x - 2.5, axbox0.y0, line_x + 2.5, axbox0.y1)  # a leader may cross the line
    layout.text_boxes.append(layout.limit_box)
    ext, axbox = lim.get_window_extent(renderer), ax.get_window_extent(renderer)
    if ext.x1 > axbox.x1:
        lim.set_horizontalalignment("right")
    elif ext.x0 < axbox.x0:
        lim.set_horizontalalignment("left")

    # The cases (faint in the interactive map, where one highlighted case is drawn on top).
    alpha = 0.35 if faint else 1.0
    layout.positions, layout.clusters = _positions(ax, placed, px)
    for k, ((case, d), (x, y)) in enumerate(zip(placed, layout.positions)):
        if markers is not None:
            case_drawn = [_again(ax, a) for a in markers[k]]
        else:
            case_drawn = _draw_marker(ax, theme, case, d, x, y, alpha=alpha)
        layout.markers.append(case_drawn)
        mine += case_drawn
        cx, cy = ax.transData.transform((x, y))
        r = layout.marker_r
        layout.marker_boxes.append((cx - r, cy - r, cx + r, cy + r))

    heading = draw_text(
        fig,
        EDGE / fig.get_size_inches()[0],
        1 - 0.12 / fig.get_size_inches()[1],
        title,
        ha="left",
        va="top",
        fontsize=11,
        fontweight="bold",
    )
    heading.set_gid("title")
    mine.append(heading)
    return layout


def _draw_region(fig: Figure, ax: Any, renderer: Any, theme: Theme, reg: Region) -> tuple[Any, Text, Box | None]:
    """A region's patch and its words (hidden when the region is too narrow for them), and the
    words' box for the label placer (``None`` when hidden)."""
    kind = REGION_KINDS[reg.kind]
    y = ROW_OF[reg.shape].y
    x0 = max(reg.x0, 0)
    patch = Rectangle(
        (x0, y - 0.5),
        reg.x1 - x0,
        1.0,
        facecolor=kind.fill(theme),
        edgecolor="none",
        hatch=kind.hatch,
        hatchcolor=theme.hatch,
        linewidth=0,
        zorder=0,
    )
    patch.set_hatch_linewidth(0.6)
    patch.set_gid(f"region:{reg.shape}:{reg.kind}")
    _add(ax, patch)
    shift = ScaledTranslation(3 / 72, -2 / 72, fig.dpi_scale_trans)
    t = draw_text(
        ax,
        x0,
        y - 0.5,
        reg.text,
        transform=ax.transData + shift,
        ha="left",
        va="top",
        fontsize=MIN_TEXT,
        style="italic",
        color=theme.text,
        zorder=2,
        bbox={"boxstyle": "square,pad=0.1", "facecolor": theme.box, "edgecolor": "none", "alpha": 0.9},
    )
    t.set_gid(f"region-label:{reg.shape}:{reg.kind}")
    box = t.get_window_extent(renderer)
    left = ax.transData.transform((x0, y))[0]
    right = ax.transData.transform((reg.x1, y))[0]
    if box.x1 > right - 3 or box.x0 < left:
        t.set_visible(False)  # too narrow for its words: the hatch and the legend still say it
        return patch, t, None
    return patch, t, (box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1)


def _positions(
    ax: Any, placed: Sequence[tuple[Case, Decision]], px: float
) -> tuple[list[tuple[float, float]], list[list[int]]]:
    """Data positions of the markers, and the clusters: cases on one row whose markers would touch.

    The markers of a cluster are spread vertically (dodged); its labels are placed together.
    """
    base: list[tuple[float, float]] = []
    for case, _ in placed:
        base.append((x_of(case.bytes), ROW_OF[case.shape].y + MARK_DY))
    out = list(base)
    near = MARKER_SIZE * px * 1.3
    every: list[list[int]] = []
    for row in ROWS:
        idx = sorted((i for i, (c, _) in enumerate(placed) if c.shape == row.shape), key=lambda i: (base[i][0], i))
        clusters: list[list[int]] = []
        last = None
        for i in idx:
            sx = ax.transData.transform((base[i][0], row.y))[0]
            if clusters and last is not None and sx - last < near:
                clusters[-1].append(i)
            else:
                clusters.append([i])
            last = sx
        for cluster in clusters:
            n = len(cluster)
            if n == 1:
                continue
            spread = min(0.26, 0.13 * (n - 1))
            for k, i in enumerate(sorted(cluster)):
                out[i] = (base[i][0], row.y + MARK_DY - spread + 2 * spread * k / (n - 1))
        every += clusters
    return out, every


def _add(ax: Any, artist: Any) -> Any:
    """Add an artist to the axes as ``add_patch`` and ``add_line`` do, without widening the data
    limits: the axes' limits are fixed (:func:`_axes`), so the data limits are never read, and
    working them out through the symlog scale was a third of the policy layer's cost."""
    return ax.add_artist(artist)


def _again(ax: Any, artist: Any) -> Any:
    """An artist of an earlier layer added again: last among the axes' children, as ``add_artist``
    puts it. One still on these axes is moved there in the axes' list of children (matplotlib 3.11's
    ``Axes._children``), keeping everything ``add_artist`` would set again to the same values (taking
    it off and adding it again works out its clip box anew: most of the cost of lending it)."""
    children = getattr(ax, "_children", None)
    if artist.axes is ax and isinstance(children, list) and artist in children:
        children.remove(artist)
        children.append(artist)
        ax.stale = True
        return artist
    if artist.axes is not None:
        artist.remove()
    return _add(ax, artist)


def _draw_marker(
    ax: Any, theme: Theme, case: Case, d: Decision, x: float, y: float, *, alpha: float = 1.0, size: float = MARKER_SIZE
) -> list[Line2D]:
    color = initiator_color(theme, case.initiator)
    face = color if d.accepted else theme.box
    m = Line2D(  # added as ax.plot would, without its colour cycle (every colour is given)
        [x],
        [y],
        linestyle="none",
        marker=INITIATOR_MARKER[case.initiator],
        markersize=size,
        markerfacecolor=face,
        markeredgecolor=color,
        markeredgewidth=1.4,
        alpha=alpha,
        zorder=5,
        clip_on=False,
        path_effects=halo(theme) if alpha == 1.0 else None,  # faint context markers stay faint
    )
    m.set_gid(f"case:{case.id}")
    out = [_add(ax, m)]
    if not d.accepted:
        c = Line2D([x], [y], **cross(theme), markersize=size * 0.7, alpha=alpha, zorder=6, clip_on=False)
        out.append(_add(ax, c))
    return out


# ---------------------------------------------------------------------------------------------
# The public figure functions
# ---------------------------------------------------------------------------------------------


def new_figure(figsize: tuple[float, float], dpi: float, theme: Theme) -> Figure:
    fig = Figure(figsize=figsize, dpi=dpi, facecolor=theme.background)
    FigureCanvasAgg(fig)
    return fig


def matrix_figure(
    cases: Iterable[Case | Mapping[str, object]],
    policy: Policy | None = None,
    *,
    highlight: str | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (11.0, 6.6),
    dpi: float = 100,
    theme: str | Theme | None = None,
) -> Figure:
    """Draw the custody matrix with every case placed, marked and labelled.

    Args:
        cases: :class:`~custody_lab.core.model.Case` objects or camelCase mappings.
        policy: the host policy (its embed limit moves the regions); the seed's by default.
        highlight: the id of a case to ring and describe in the subtitle.
        title: the figure title; a default naming the embed limit otherwise.
        figsize: inches (the layout needs at least about 9 x 5.4: 9 pt text throughout).
        dpi: pixels per inch of the Agg canvas.
        theme: ``"light"`` or ``"dark"``; ``$CUSTODY_LAB_THEME`` (else light) when omitted.

    Returns:
        A matplotlib :class:`~matplotlib.figure.Figure` on an Agg canvas (no pyplot state).

    Raises:
        CaseError: when a mapping is not a valid case.
        ChartError: when ``highlight`` names no case.
        ThemeError: when ``theme`` (or ``$CUSTODY_LAB_THEME``) names no theme.

    Example:
        >>> from custody_lab import load_fixture
        >>> fig = matrix_figure(load_fixture().all_cases, highlight="oversize-embed")
        >>> sorted(t.get_text() for t in fig.legends[0].get_texts())[0]
        'advisor prefers a link here'
    """
    policy = policy or Policy()
    items = [as_case(c) for c in cases]
    placed = [(c, route(c, policy)) for c in items]
    if highlight is not None and highlight not in {c.id for c in items}:
        ids = ", ".join(c.id for c in items) or "(none)"
        raise ChartError(f"cannot highlight {highlight!r}: no such case id; the ids are {ids}")
    look = theme_of(theme)
    with matplotlib.rc_context(theme_rc(look)):
        fig = new_figure(figsize, dpi, look)
        layout = draw_static(
            fig,
            placed,
            policy,
            look,
            faint=False,
            ring_legend=highlight is not None,
            title=safe_text(title, 120)
            if title is not None
            else f"Custody matrix · where the advisor puts each shape · embed limit {policy.embed_limit_bytes:,} B",
        )
        label_all(layout.ax, layout, placed, highlight, look)
        if highlight is not None:
            case, d = next(p for p in placed if p[0].id == highlight)
            words = status_text(case, d, policy)
        else:
            words = (
                "Each case sits at its payload size on the row of its declared shape; "
                "its label gives → the selected shape or ✕ the rule that refused it."
            )
        status = draw_text(fig, EDGE / figsize[0], 1 - 0.42 / figsize[1], words, ha="left", va="top")
        status.set_gid("status")
        _fit_width(status, fig)
    return fig


def export(fig: Figure, path: str | Path) -> Path:
    """Write a figure to ``.png`` or ``.svg`` (chosen by the suffix) and return the path.

    Raises:
        ChartError: for any other suffix (the message names it).

    Example:
        >>> import tempfile, pathlib
        >>> fig = matrix_figure([])
        >>> export(fig, pathlib.Path(tempfile.mkdtemp()) / "m.svg").suffix
        '.svg'
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ChartError(f"cannot export the matrix as {suffix or '(no suffix)'!r}: use .png or .svg ({p})")
    if suffix == ".svg":
        with matplotlib.rc_context({"svg.hashsalt": "custody-lab"}):
            fig.savefig(p, format="svg", metadata={"Date": None})
    else:
        fig.savefig(p, format="png", dpi=fig.dpi)
    return p
