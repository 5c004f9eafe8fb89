"""The custody matrix: the lab's cases drawn on the advisor's decision map.

Seed 000, "Read the custody matrix as a decision tool", describes a map with two halves: what
the application reads sits in the *resource* region, what the model asks for sits in the
*tool-result* region, large or separately governed output leans toward a resource link, small
evidence stays embedded, and fields that code must check become a structured result. This module
draws that map from the lab's own :func:`~custody_lab.core.advisor.advise` and places each case on it
with the outcome :func:`~custody_lab.core.router.route` gives.

* Rows are the five shapes, grouped by who initiates: the application reads a resource
  (``listed-resource``, ``templated-resource``); the model calls a tool
  (``structured-tool-result``, ``embedded-resource``, ``resource-link``).
* The x axis is the payload size on a symmetric-log scale (0 B .. 1 MB; larger payloads sit on
  the right edge and their label says ``≥ 1 MB``).
* Each row is shaded where the advisor, asked about the row's typical need, recommends the row's
  own shape, and hatched differently where it would pick another one. The policy's embed limit is
  a dashed vertical line.
* Every encoding is repeated without colour (seed 000: the legend "repeats all encodings without
  color"): marker shape = initiator, filled / hollow with a cross = accepted / rejected, hatch
  pattern + in-band text = region, dashed line = embed limit.

Three ways in:

* :func:`matrix_figure` draws every case with a label (the notebook figure, exportable);
* :func:`matrix_table` is the same content as a table (for screen readers and tests);
* :class:`CustodyMatrix` is the fast, incremental version the case explorer uses: the static map is
  drawn once and cached as a bitmap; each change redraws only the highlighted case.

Text that comes from a case (its id) is data: mathtext is switched off and control characters are
removed, so an id such as ``"$x^2$"`` is shown literally and never changes the layout rules.
"""

from __future__ import annotations

__all__ = [
    "REGION_KINDS",
    "ROWS",
    "XMAX",
    "ChartError",
    "CustodyMatrix",
    "Region",
    "RegionKind",
    "Row",
    "export",
    "matrix_figure",
    "matrix_regions",
    "matrix_table",
    "region_advice",
]

import struct
import unicodedata
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator
from matplotlib.transforms import Bbox, ScaledTranslation, blended_transform_factory

from ..core.advisor import advise
from ..core.errors import CustodyLabError
from ..core.model import Case, Decision, Policy
from ..core.receipts import canonical_json
from ..core.router import route

# ---------------------------------------------------------------------------------------------
# The map: rows, typical needs, regions
# ---------------------------------------------------------------------------------------------

#: The right edge of the x axis (1 MB). Larger payloads are drawn on the edge, labelled "≥ 1 MB".
XMAX = 1_000_000
_LINTHRESH = 10  # the symlog axis is linear from 0 to 10 B, logarithmic above
_TICKS = (0, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
_TICK_LABELS = ("0", "10 B", "100 B", "1 kB", "10 kB", "100 kB", "1 MB")


class ChartError(CustodyLabError, ValueError):
    """A chart request that cannot be honoured (unknown highlight id, unsupported file type)."""


@dataclass(frozen=True)
class Row:
    """One row of the matrix: a shape, its initiator group and the typical need asked of the advisor.

    Attributes:
        shape: the custody shape the row stands for.
        initiator: "application" (the resource group) or "model" (the tool-result group).
        y: the row's centre in data units (the axis is inverted: the first row is on top).
        need: keyword arguments for :func:`custody_lab.core.advisor.advise` describing the row's
            typical need (the payload size is the x axis).
        need_text: the typical need in words, for the notebook and the report.
    """

    shape: str
    initiator: str
    y: float
    need: tuple[tuple[str, Any], ...]
    need_text: str

    def advice_kwargs(self) -> dict[str, Any]:
        return dict(self.need)


_GAP = 0.4  # the space between the application group and the model group, in row units

#: The five rows, top to bottom. Seed 000, "MCP resources vs tool results start with control":
#: resources are application-driven, tools are model-controlled; the typical needs follow
#: "Separate listed resources from URI templates" and "Distinguish resource links from embedded
#: content" (link vs embed judged for content used once; seed 001's size x reuse table).
ROWS: tuple[Row, ...] = (
    Row(
        "listed-resource",
        "application",
        0.0,
        (("initiator", "application"), ("operation", "read"), ("address_known", True)),
        "the application reads content whose address it knows",
    ),
    Row(
        "templated-resource",
        "application",
        1.0,
        (("initiator", "application"), ("operation", "read-template"), ("address_known", False)),
        "the application reads one of many records by parameter",
    ),
    Row(
        "structured-tool-result",
        "model",
        2.0 + _GAP,
        (("initiator", "model"), ("operation", "calculate"), ("validated_fields", True)),
        "the model asks for a result whose fields code will check",
    ),
    Row(
        "embedded-resource",
        "model",
        3.0 + _GAP,
        (("initiator", "model"), ("operation", "generate"), ("reuse", 1)),
        "the model asks for content used once in this execution",
    ),
    Row(
        "resource-link",
        "model",
        4.0 + _GAP,
        (("initiator", "model"), ("operation", "generate"), ("reuse", 1)),
        "the model asks for content used once in this execution",
    ),
)
_ROW = {r.shape: r for r in ROWS}
_GROUPS = (
    ("application", "application\nreads a resource"),
    ("model", "model\ncalls a tool"),
)
_YTOP = ROWS[0].y - 0.5
_YBOTTOM = ROWS[-1].y + 0.5
_SEPARATOR_Y = (ROWS[1].y + ROWS[2].y) / 2


@dataclass(frozen=True)
class RegionKind:
    """What a shaded stretch of a row means, and how it is drawn (hatch + fill + legend text)."""

    key: str
    legend: str
    hatch: str
    face: str


#: Region meanings. The hatch carries the meaning; the fill colour only repeats it.
REGION_KINDS: dict[str, RegionKind] = {
    k.key: k
    for k in (
        RegionKind("resource", "resource region (advisor agrees)", "///", "#d6e4f3"),
        RegionKind("tool", "tool-result region (advisor agrees)", "\\\\\\", "#f9e0cb"),
        RegionKind("prefer-link", "advisor prefers a link here", "xx", "#e2e2e2"),
        RegionKind("prefer-embed", "advisor prefers embedding here", "..", "#f3f3f3"),
        RegionKind("prefer-other", "advisor prefers another shape", "++", "#ececec"),
    )
}
#: The in-band words for each (row shape, region kind); anything else reads "advisor: <shape>".
_REGION_TEXT = {
    ("listed-resource", "resource"): "resource · known address: list it",
    ("templated-resource", "resource"): "resource · one of many: template it",
    ("structured-tool-result", "tool"): "tool result · fields to validate",
    ("embedded-resource", "tool"): "fits: embed",
    ("embedded-resource", "prefer-link"): "over budget → link",
    ("resource-link", "prefer-embed"): "embedding would be simpler",
    ("resource-link", "tool"): "large: link it",
}


@dataclass(frozen=True)
class Region:
    """A stretch ``[x0, x1]`` (bytes) of one row where the advisor gives one answer."""

    shape: str
    x0: int
    x1: int
    advised: str | None
    kind: str
    text: str


def region_advice(shape: str, nbytes: int, policy: Policy | None = None) -> str | None:
    """The shape the advisor recommends for the typical need of ``shape``'s row at ``nbytes``.

    Example:
        >>> region_advice("embedded-resource", 760), region_advice("embedded-resource", 9000)
        ('embedded-resource', 'resource-link')
    """
    try:
        row = _ROW[shape]
    except KeyError as e:
        raise ChartError(f"no matrix row for shape {shape!r}; the rows are {', '.join(_ROW)}") from e
    return advise(**row.advice_kwargs(), payload_bytes=int(nbytes), policy=policy).shape


def _kind(row: Row, advised: str | None) -> str:
    if advised == row.shape:
        return "resource" if row.initiator == "application" else "tool"
    if advised == "resource-link":
        return "prefer-link"
    if advised == "embedded-resource":
        return "prefer-embed"
    return "prefer-other"


def _first_change(shape: str, lo: int, hi: int, policy: Policy | None) -> int:
    """The smallest byte count in (lo, hi] whose advice differs from the advice at ``lo``."""
    base = region_advice(shape, lo, policy)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if region_advice(shape, mid, policy) == base:
            lo = mid
        else:
            hi = mid
    return hi


def matrix_regions(policy: Policy | None = None) -> tuple[Region, ...]:
    """Every row split into stretches where the advisor's answer is constant (0 B .. 1 MB).

    The advisor is sampled on a log grid plus the policy's limit, and each change is located to
    the byte by bisection, so the map follows the advisor even if its thresholds change.

    Example:
        >>> [(r.x1, r.kind) for r in matrix_regions() if r.shape == "embedded-resource"]
        [(4096, 'tool'), (1000000, 'prefer-link')]
    """
    limit = (policy or Policy()).embed_limit_bytes
    grid = {0, XMAX, *(round(10 ** (i / 20)) for i in range(0, 121))}
    grid.update(v for v in (limit, limit + 1) if 0 <= v <= XMAX)
    samples = sorted(v for v in grid if 0 <= v <= XMAX)
    out: list[Region] = []
    for row in ROWS:
        start = 0
        current = region_advice(row.shape, 0, policy)
        prev = 0
        for x in samples[1:]:
            advised = region_advice(row.shape, x, policy)
            if advised != current:
                change = _first_change(row.shape, prev, x, policy)
                out.append(_region(row, start, change - 1, current))
                start, current = change - 1, region_advice(row.shape, change, policy)
            prev = x
        out.append(_region(row, start, XMAX, current))
    return tuple(out)


def _region(row: Row, x0: int, x1: int, advised: str | None) -> Region:
    kind = _kind(row, advised)
    text = _REGION_TEXT.get((row.shape, kind), f"advisor: {advised or 'no honest shape'}")
    return Region(row.shape, x0, x1, advised, kind, text)


# ---------------------------------------------------------------------------------------------
# The table (the text equivalent of the figure)
# ---------------------------------------------------------------------------------------------

TABLE_COLUMNS = (
    "id",
    "initiator",
    "shape",
    "bytes",
    "accepted",
    "outcome",
    "advisor_shape",
    "agrees",
    "rejected_by",
)


def _as_case(case: Case | Mapping[str, object]) -> Case:
    return case if isinstance(case, Case) else Case.from_dict(case)


def matrix_table(cases: Iterable[Case | Mapping[str, object]], policy: Policy | None = None) -> pd.DataFrame:
    """The matrix as a table: one row per case, in input order.

    Columns: ``id``, ``initiator``, ``shape`` (declared), ``bytes``, ``accepted``, ``outcome``
    (selected shape or rejection code, from :func:`~custody_lab.core.router.route`),
    ``advisor_shape`` (what the region under the case recommends for its row's typical need),
    ``agrees`` (the declared shape is that recommendation; rejection is a separate question) and
    ``rejected_by`` (the rule code, or ``""``).

    Raises:
        CaseError: when a mapping is not a valid case.

    Example:
        >>> from custody_lab import load_fixture
        >>> t = matrix_table(load_fixture().all_cases)
        >>> t.loc[t.id == "oversize-embed", ["outcome", "advisor_shape", "agrees"]].values.tolist()
        [['embed-over-budget', 'resource-link', False]]
    """
    rows = []
    for item in cases:
        case = _as_case(item)
        d = route(case, policy)
        advised = region_advice(case.shape, case.bytes, policy)
        rows.append(
            {
                "id": case.id,
                "initiator": case.initiator,
                "shape": case.shape,
                "bytes": case.bytes,
                "accepted": d.accepted,
                "outcome": d.outcome,
                "advisor_shape": advised or "",
                "agrees": advised == case.shape,
                "rejected_by": d.rejection or "",
            }
        )
    frame = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    return frame.astype({"bytes": "int64", "accepted": "bool", "agrees": "bool"})


# ---------------------------------------------------------------------------------------------
# Drawing
# ---------------------------------------------------------------------------------------------

_COLOR = {"application": "#1b4f8a", "model": "#9a4300"}
_MARKER = {"application": "o", "model": "^"}
_MS = 7.5  # marker size, points
_LABEL_SIZE = 8.0
_MARK_DY = 0.1  # markers sit a little below the row centre: the band's top strip holds its words
_ID_MAX = 26  # characters of an id shown before an ellipsis
# Fixed margins, inches: the layout is the same at every figure size (≥ 8 x 4.6 in).
_LEFT, _RIGHT, _TOP, _BOTTOM = 2.0, 0.3, 0.85, 1.72
_EDGE = 0.15  # the left edge of the title, status line, legend and caption, inches
_RC = {
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "hatch.linewidth": 0.6,
    "svg.hashsalt": "custody-lab",
}


def _safe(text: object, limit: int = _ID_MAX) -> str:
    """Text from a case made safe to draw: one line, no control characters, truncated."""
    s = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in str(text))
    s = " ".join(s.split()) or "(blank)"
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _x(nbytes: int) -> float:
    """The x position of a payload: payloads above 1 MB are clamped to the right edge."""
    return float(min(nbytes, XMAX))


def _label_text(case: Case, d: Decision) -> str:
    sign = "→" if d.accepted else "✕"
    note = " (≥ 1 MB)" if case.bytes > XMAX else ""
    return f"{_safe(case.id)} {sign} {d.outcome}{note}"


def _status_text(case: Case, d: Decision, policy: Policy | None) -> str:
    advised = region_advice(case.shape, case.bytes, policy)
    verdict = f"accepted → {d.selected}" if d.accepted else f"rejected ✕ {d.rejection}"
    region = "the region agrees" if advised == case.shape else f"the region recommends {advised or 'no shape'}"
    return f"{_safe(case.id)} · {case.initiator} · {case.bytes:,} B · {verdict} · {region}"


def _fit_width(text: Text, fig: Figure, size: float = 9.0) -> None:
    """Shrink a one-line figure text until it ends inside the figure (never below 6 pt)."""
    renderer = fig.canvas.get_renderer()
    text.set_fontsize(size)
    limit = fig.bbox.x1 - _EDGE * fig.dpi
    while text.get_window_extent(renderer).x1 > limit and size > 6.0:
        size -= 0.5
        text.set_fontsize(size)


def _short_status(case: Case, policy: Policy | None) -> str:
    """The interactive map's status line: the row and what the region under the case recommends.

    It leaves out the byte count on purpose: few distinct lines means their pixels can be cached.
    """
    advised = region_advice(case.shape, case.bytes, policy)
    region = "agrees" if advised == case.shape else f"recommends {advised or 'no shape'}"
    return f"{case.initiator} initiates · {case.shape} row · the advisor's region here {region}"


def _text(fig_or_ax: Any, x: float, y: float, s: str, **kw: Any) -> Text:
    """A Text that never interprets its string (no mathtext, no TeX)."""
    return fig_or_ax.text(x, y, s, parse_math=False, usetex=False, **kw)


@dataclass
class _Layout:
    """What a drawn matrix knows about itself (display-space geometry for the label placer)."""

    ax: Any
    policy: Policy
    text_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    marker_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    region_labels: list[Text] = field(default_factory=list)
    positions: list[tuple[float, float]] = field(default_factory=list)
    marker_r: float = 5.0


def _axes(fig: Figure) -> Any:
    w, h = fig.get_size_inches()
    rect = (_LEFT / w, _BOTTOM / h, 1 - (_LEFT + _RIGHT) / w, 1 - (_TOP + _BOTTOM) / h)
    ax = fig.add_axes(rect)
    ax.set_xscale("symlog", linthresh=_LINTHRESH, linscale=0.35)
    ax.set_xlim(0, XMAX)
    ax.set_ylim(_YBOTTOM, _YTOP)  # inverted: the first row on top
    ax.xaxis.set_major_locator(FixedLocator(list(_TICKS)))
    ax.xaxis.set_major_formatter(FixedFormatter(list(_TICK_LABELS)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_yticks([r.y for r in ROWS], [r.shape for r in ROWS])
    ax.yaxis.set_minor_locator(NullLocator())
    ax.tick_params(axis="both", labelsize=9, length=3)
    ax.tick_params(axis="y", length=0, pad=6)
    ax.set_xlabel("payload size (bytes, log scale)", fontsize=9, labelpad=3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def _draw_static(
    fig: Figure,
    placed: Sequence[tuple[Case, Decision]],
    policy: Policy,
    *,
    title: str,
    faint: bool,
    ring_legend: bool,
) -> _Layout:
    """The map: regions, separator, group labels, limit line, markers, legend, caption."""
    ax = _axes(fig)
    layout = _Layout(ax, policy, marker_r=_MS * fig.dpi / 72 / 2 + 1.5)
    renderer = fig.canvas.get_renderer()
    px = fig.dpi / 72  # pixels per point

    # Regions: hatch + fill, then their words in the top strip of the band.
    regions = matrix_regions(policy)
    for reg in regions:
        kind = REGION_KINDS[reg.kind]
        y = _ROW[reg.shape].y
        x0 = max(reg.x0, 0)
        patch = Rectangle(
            (x0, y - 0.5),
            reg.x1 - x0,
            1.0,
            facecolor=kind.face,
            edgecolor="none",
            hatch=kind.hatch,
            hatchcolor="#8a8a8a",
            linewidth=0,
            zorder=0,
        )
        patch.set_hatch_linewidth(0.6)
        patch.set_gid(f"region:{reg.shape}:{reg.kind}")
        ax.add_patch(patch)
        shift = ScaledTranslation(3 / 72, -2 / 72, fig.dpi_scale_trans)
        t = _text(
            ax,
            x0,
            y - 0.5,
            reg.text,
            transform=ax.transData + shift,
            ha="left",
            va="top",
            fontsize=7.5,
            style="italic",
            color="#222222",
            zorder=2,
            bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )
        t.set_gid(f"region-label:{reg.shape}:{reg.kind}")
        box = t.get_window_extent(renderer)
        left = ax.transData.transform((x0, y))[0]
        right = ax.transData.transform((reg.x1, y))[0]
        if box.x1 > right - 3 or box.x0 < left:
            t.set_visible(False)  # too narrow for its words: the hatch and the legend still say it
        else:
            layout.region_labels.append(t)
            layout.text_boxes.append((box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1))

    # The two groups: a separator line and a bracketed label at the far left.
    ax.axhline(_SEPARATOR_Y, color="black", linewidth=1.0, zorder=1)
    bracket = blended_transform_factory(fig.dpi_scale_trans, ax.transData)
    for initiator, words in _GROUPS:
        ys = [r.y for r in ROWS if r.initiator == initiator]
        top, bottom = min(ys) - 0.45, max(ys) + 0.45
        fig.add_artist(Line2D([0.52, 0.52], [top, bottom], transform=bracket, color="#444444", lw=1.2))
        _text(
            fig,
            0.3,
            (top + bottom) / 2,
            words,
            transform=bracket,
            rotation=90,
            ha="center",
            va="center",
            fontsize=9,
            fontweight="bold",
            linespacing=1.15,
        ).set_gid(f"group:{initiator}")

    # The policy's embed limit (seed 000: "a local teaching policy, not a protocol maximum").
    limit = policy.embed_limit_bytes
    xl = min(limit, XMAX)
    ax.axvline(xl, color="black", linestyle=(0, (5, 3)), linewidth=1.3, zorder=3)
    note = f"embed limit {limit:,} B" + (" (beyond 1 MB)" if limit > XMAX else "")
    top_of_axes = blended_transform_factory(ax.transData, ax.transAxes)
    lim = _text(
        ax,
        xl,
        1.0,
        note,
        transform=top_of_axes + ScaledTranslation(0, 3 / 72, fig.dpi_scale_trans),
        ha="center",
        va="bottom",
        fontsize=8.5,
        fontweight="bold",
    )
    lim.set_gid("limit-label")
    ext, axbox = lim.get_window_extent(renderer), ax.get_window_extent(renderer)
    if ext.x1 > axbox.x1:
        lim.set_ha("right")
    elif ext.x0 < axbox.x0:
        lim.set_ha("left")

    # The cases (faint in the interactive map, where one highlighted case is drawn on top).
    alpha = 0.35 if faint else 1.0
    layout.positions = _positions(ax, placed, px)
    for (case, d), (x, y) in zip(placed, layout.positions):
        _draw_marker(ax, case, d, x, y, alpha=alpha)
        cx, cy = ax.transData.transform((x, y))
        r = layout.marker_r
        layout.marker_boxes.append((cx - r, cy - r, cx + r, cy + r))

    _text(
        fig,
        _EDGE / fig.get_size_inches()[0],
        1 - 0.12 / fig.get_size_inches()[1],
        title,
        ha="left",
        va="top",
        fontsize=11,
        fontweight="bold",
    ).set_gid("title")
    _legend(fig, ring=ring_legend, kinds={r.kind for r in regions})
    return layout


def _positions(ax: Any, placed: Sequence[tuple[Case, Decision]], px: float) -> list[tuple[float, float]]:
    """Data positions of the markers: coincident cases on a row are spread vertically (dodged)."""
    base: list[tuple[float, float]] = []
    for case, _ in placed:
        base.append((_x(case.bytes), _ROW[case.shape].y + _MARK_DY))
    out = list(base)
    near = _MS * px * 1.3
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
                out[i] = (base[i][0], row.y + _MARK_DY - spread + 2 * spread * k / (n - 1))
    return out


def _draw_marker(
    ax: Any, case: Case, d: Decision, x: float, y: float, *, alpha: float = 1.0, size: float = _MS
) -> list[Line2D]:
    color = _COLOR[case.initiator]
    face = color if d.accepted else "white"
    (m,) = ax.plot(
        [x],
        [y],
        linestyle="none",
        marker=_MARKER[case.initiator],
        markersize=size,
        markerfacecolor=face,
        markeredgecolor=color,
        markeredgewidth=1.4,
        alpha=alpha,
        zorder=5,
        clip_on=False,
    )
    m.set_gid(f"case:{case.id}")
    out = [m]
    if not d.accepted:
        (c,) = ax.plot(
            [x],
            [y],
            linestyle="none",
            marker="x",
            markersize=size * 0.7,
            markeredgecolor="black",
            markeredgewidth=1.3,
            alpha=alpha,
            zorder=6,
            clip_on=False,
        )
        out.append(c)
    return out


def _legend(fig: Figure, *, ring: bool, kinds: set[str]) -> None:
    grey = "#333333"
    handles: list[Any] = [
        Line2D([], [], linestyle="none", marker="o", markersize=_MS, markerfacecolor=grey, markeredgecolor=grey),
        Line2D([], [], linestyle="none", marker="^", markersize=_MS, markerfacecolor=grey, markeredgecolor=grey),
        Line2D([], [], linestyle="none", marker="s", markersize=_MS, markerfacecolor=grey, markeredgecolor=grey),
        (
            Line2D(
                [],
                [],
                linestyle="none",
                marker="s",
                markersize=_MS,
                markerfacecolor="white",
                markeredgecolor=grey,
                markeredgewidth=1.4,
            ),
            Line2D(
                [], [], linestyle="none", marker="x", markersize=_MS * 0.7, markeredgecolor="black", markeredgewidth=1.3
            ),
        ),
    ]
    labels = [
        "circle: the application initiates",
        "triangle: the model initiates",
        "filled: accepted (→ shape)",
        "hollow + ✕: rejected (✕ rule code)",
    ]
    for kind in REGION_KINDS.values():
        if kind.key == "prefer-other" and kind.key not in kinds:
            continue  # no row's typical need leads there today; listed only if it appears
        patch = Patch(facecolor=kind.face, edgecolor="#555555", hatch=kind.hatch, hatchcolor="#666666", linewidth=0.6)
        patch.set_hatch_linewidth(0.6)
        handles.append(patch)
        labels.append(kind.legend)
    handles.append(Line2D([], [], color="black", linestyle=(0, (5, 3)), linewidth=1.3))
    labels.append("dashed line: the policy's embed limit")
    if ring:
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker="o",
                markersize=_MS * 2.1,
                markerfacecolor="none",
                markeredgecolor="black",
                markeredgewidth=1.5,
            )
        )
        labels.append("ring: the highlighted case")
    w, h = fig.get_size_inches()
    leg = fig.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(_EDGE / w, 1 - (h - _BOTTOM + 0.5) / h),
        ncol=3,
        frameon=False,
        fontsize=8,
        handlelength=2.4,
        handleheight=1.3,
        columnspacing=1.4,
        labelspacing=0.45,
        borderaxespad=0.0,
        handler_map={tuple: HandlerTuple(ndivide=1, pad=0.0)},
    )
    leg.set_gid("legend")
    _text(
        fig,
        _EDGE / w,
        0.08 / h,
        "Provenance is required on every row: without a URI, MIME type and provenance a case is "
        "refused (custody-incomplete).\nPayloads above 1 MB sit on the right edge, labelled ≥ 1 MB.",
        ha="left",
        va="bottom",
        fontsize=7.5,
        color="#222222",
        wrap=False,
    ).set_gid("caption")


# ---------------------------------------------------------------------------------------------
# The label placer
# ---------------------------------------------------------------------------------------------

Box = tuple[float, float, float, float]


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _place(
    anchor: tuple[float, float],
    size: tuple[float, float],
    band: tuple[float, float],
    area: Box,
    hard: Sequence[Box],
    soft: Sequence[Box],
    gap: float,
) -> tuple[Box, str]:
    """Choose a box for one label next to its marker (display pixels); deterministic.

    Candidates, in order of preference: right or left of the marker (the side with more room
    first), at the marker's height, then one label height up or down at a time, then a little
    further out sideways. Every candidate lies inside ``area``. The first candidate that wins, by
    tier:

    1. inside the row's ``band`` and touching nothing;
    2. inside the band and touching only ``soft`` boxes (faint context markers);
    3. anywhere in the plot touching nothing (a leader line then shows whose label it is);
    4. anywhere touching only soft boxes;
    5. otherwise the candidate with the least overlap.
    """
    mx, my = anchor
    w, h = size
    right_first = mx < area[0] + 0.68 * (area[2] - area[0])
    sides = ("right", "left") if right_first else ("left", "right")
    step = h + 3
    tiers: list[tuple[Box, str] | None] = [None] * 4
    best: tuple[float, Box, str] | None = None
    for extra in (0.0, 24.0, 60.0):
        for k in range(0, 13):
            for sign in (1,) if k == 0 else (1, -1):
                cy = my + sign * k * step
                for side in sides:
                    x0 = mx + gap + extra if side == "right" else mx - gap - extra - w
                    box = (x0, cy - h / 2, x0 + w, cy + h / 2)
                    if not (area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3]):
                        continue
                    in_band = band[0] <= box[1] and box[3] <= band[1]
                    hard_cost = sum(_overlap(box, t) for t in hard)
                    soft_cost = sum(_overlap(box, t) for t in soft)
                    if hard_cost == 0:
                        tier = (0 if soft_cost == 0 else 1) + (0 if in_band else 2)
                        if tier == 0:
                            return box, side
                        if tiers[tier] is None:
                            tiers[tier] = (box, side)
                    cost = hard_cost * 10 + soft_cost
                    if best is None or cost < best[0]:
                        best = (cost, box, side)
    for found in tiers:
        if found is not None:
            return found
    if best is not None:
        return best[1], best[2]
    x0 = min(max(mx + gap, area[0]), area[2] - w)
    return (x0, my - h / 2, x0 + w, my + h / 2), "right"


def _label_case(
    ax: Any,
    layout: _Layout,
    case: Case,
    d: Decision,
    x: float,
    y: float,
    taken: list[Box],
    *,
    soft: Sequence[Box] = (),
    bold: bool = False,
    ring: bool = False,
    text: Text | None = None,
    leader: Line2D | None = None,
) -> tuple[Text, Line2D]:
    """Draw (or move) one case label and its leader line; the label's box is added to ``taken``.

    ``taken`` holds boxes a label must not cover (other labels, the map's words, markers);
    ``soft`` holds boxes it should avoid but may cover to stay in its row (faint context markers).
    """
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    s = _label_text(case, d)
    if text is None:
        text = _text(
            ax,
            x,
            y,
            s,
            ha="left",
            va="center",
            fontsize=_LABEL_SIZE,
            zorder=8,
            fontweight="bold" if bold else "normal",
            color="black",
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.9},
        )
    else:
        text.set_text(s)
    text.set_gid(f"case-label:{case.id}")
    ext = text.get_window_extent(renderer)
    pad = 2.0
    w, h = ext.width + 2 * pad, ext.height + 2 * pad
    mx, my = ax.transData.transform((x, y))
    row = _ROW[case.shape]
    b0 = ax.transData.transform((x, row.y + 0.5))[1]
    b1 = ax.transData.transform((x, row.y - 0.5))[1]
    a = ax.get_window_extent(renderer)
    area = (a.x0 + 2, a.y0 + 2, a.x1 - 2, a.y1 - 2)
    own = (mx - layout.marker_r, my - layout.marker_r, mx + layout.marker_r, my + layout.marker_r)
    blockers = [t for t in taken if t != own]
    # A highlighted case wears a ring: keep its label clear of the ring, not just the marker.
    r = _MS * 2.1 / 2 * fig.dpi / 72 if ring else layout.marker_r
    box, side = _place((mx, my), (w, h), (min(b0, b1), max(b0, b1)), area, blockers, soft, gap=r + 2)
    ty = (box[1] + box[3]) / 2
    tx = box[0] + pad if side == "right" else box[2] - pad
    text.set_ha("left" if side == "right" else "right")
    text.set_position(ax.transData.inverted().transform((tx, ty)))
    taken.append(box)
    # The leader: from the marker's edge to the near edge of the label.
    ex = box[0] if side == "right" else box[2]
    dx, dy = ex - mx, ty - my
    dist = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    sx, sy = mx + dx / dist * r, my + dy / dist * r
    p0 = ax.transData.inverted().transform((sx, sy))
    p1 = ax.transData.inverted().transform((ex, ty))
    if leader is None:
        (leader,) = ax.plot([], [], color="#555555", linewidth=0.7, zorder=7, clip_on=False)
    leader.set_data([p0[0], p1[0]], [p0[1], p1[1]])
    leader.set_visible(abs(dy) > 1.5 or abs(dx) > r + 6)
    leader.set_gid(f"leader:{case.id}")
    return text, leader


# ---------------------------------------------------------------------------------------------
# The public figure functions
# ---------------------------------------------------------------------------------------------


def _new_figure(figsize: tuple[float, float], dpi: float) -> Figure:
    fig = Figure(figsize=figsize, dpi=dpi, facecolor="white")
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
) -> Figure:
    """Draw the custody matrix with every case placed, marked and labelled.

    Args:
        cases: :class:`~custody_lab.core.model.Case` objects or camelCase mappings.
        policy: the host policy (its embed limit moves the regions); the seed's by default.
        highlight: the id of a case to ring and describe in the subtitle.
        title: the figure title; a default naming the embed limit otherwise.
        figsize: inches (the layout needs at least about 8 x 4.6).
        dpi: pixels per inch of the Agg canvas.

    Returns:
        A matplotlib :class:`~matplotlib.figure.Figure` on an Agg canvas (no pyplot state).

    Raises:
        CaseError: when a mapping is not a valid case.
        ChartError: when ``highlight`` names no case.

    Example:
        >>> from custody_lab import load_fixture
        >>> fig = matrix_figure(load_fixture().all_cases, highlight="oversize-embed")
        >>> sorted(t.get_text() for t in fig.legends[0].get_texts())[0]
        'advisor prefers a link here'
    """
    policy = policy or Policy()
    items = [_as_case(c) for c in cases]
    placed = [(c, route(c, policy)) for c in items]
    if highlight is not None and highlight not in {c.id for c in items}:
        ids = ", ".join(c.id for c in items) or "(none)"
        raise ChartError(f"cannot highlight {highlight!r}: no such case id; the ids are {ids}")
    with matplotlib.rc_context(_RC):
        fig = _new_figure(figsize, dpi)
        layout = _draw_static(
            fig,
            placed,
            policy,
            faint=False,
            ring_legend=highlight is not None,
            title=_safe(title, 120)
            if title is not None
            else f"Custody matrix · where the advisor puts each shape · embed limit {policy.embed_limit_bytes:,} B",
        )
        ax = layout.ax
        positions = layout.positions
        # Highlighted case first, then row by row from the left: a deterministic order in which
        # crowded right-hand clusters push the labels of their left neighbours to the left.
        rank = {r.shape: k for k, r in enumerate(ROWS)}
        order = sorted(
            range(len(placed)),
            key=lambda i: (placed[i][0].id != highlight, rank[placed[i][0].shape], positions[i][0], i),
        )
        taken = layout.text_boxes + layout.marker_boxes
        for i in order:
            case, d = placed[i]
            x, y = positions[i]
            if case.id == highlight:
                ring = ax.plot(
                    [x],
                    [y],
                    linestyle="none",
                    marker="o",
                    markersize=_MS * 2.1,
                    markerfacecolor="none",
                    markeredgecolor="black",
                    markeredgewidth=1.5,
                    zorder=6,
                    clip_on=False,
                )[0]
                ring.set_gid("highlight-ring")
            _label_case(ax, layout, case, d, x, y, taken, bold=case.id == highlight, ring=case.id == highlight)
        if highlight is not None:
            case, d = next(p for p in placed if p[0].id == highlight)
            words = _status_text(case, d, policy)
        else:
            words = (
                "Each case sits at its payload size on the row of its declared shape; "
                "its label gives → the selected shape or ✕ the rule that refused it."
            )
        status = _text(fig, _EDGE / figsize[0], 1 - 0.42 / figsize[1], words, ha="left", va="top", fontsize=9)
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


# ---------------------------------------------------------------------------------------------
# The fast, incremental map for the case explorer
# ---------------------------------------------------------------------------------------------


class CustodyMatrix:
    """The matrix for an interactive widget: draw the map once, move one case many times.

    The static map (regions, hatching, limit line, legend and the faint context cases) is drawn
    once on an Agg canvas and kept as a bitmap. :meth:`render` restores that bitmap, redraws only
    the highlighted case (marker, cross, ring, label, leader line and the status line) and encodes
    the pixels with Pillow at a low compression level. Only :meth:`set_policy` with a different
    embed limit (or a policy that changes a context case's outcome) redraws the map.

    Args:
        policy: the host policy; the seed's by default.
        context_cases: cases drawn faintly behind the explored one (e.g. the fixture).
        figsize: inches; the layout needs at least about 8 x 4.6.
        dpi: pixels per inch.
        cache_size: how many rendered PNGs to keep, keyed by (case, decision, policy); 0 disables.

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
        figsize: tuple[float, float] = (9, 4.8),
        dpi: float = 96,
        *,
        cache_size: int = 32,
    ) -> None:
        self.policy = policy or Policy()
        self._context = [_as_case(c) for c in context_cases]
        self._figsize = figsize
        self._dpi = dpi
        self._cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._cache_size = cache_size
        #: How many times the static map has been drawn (1 after construction).
        self.background_draws = 0
        self.figure: Figure = _new_figure(figsize, dpi)
        self.canvas: FigureCanvasAgg = self.figure.canvas  # type: ignore[assignment]
        self._build()

    # -- the static map -----------------------------------------------------------------------

    def _context_decisions(self, policy: Policy) -> list[tuple[Case, Decision]]:
        return [(c, route(c, policy)) for c in self._context]

    def _build(self) -> None:
        fig = self.figure
        fig.clear()
        with matplotlib.rc_context(_RC):
            placed = self._context_decisions(self.policy)
            self._context_outcomes = tuple(d.outcome for _, d in placed)
            self._layout = _draw_static(
                fig,
                placed,
                self.policy,
                faint=True,
                ring_legend=True,
                title=f"Custody matrix · embed limit {self.policy.embed_limit_bytes:,} B",
            )
            ax = self._layout.ax
            kw: dict[str, Any] = {"linestyle": "none", "animated": True, "clip_on": False}
            self._ring = ax.plot(
                [],
                [],
                marker="o",
                markersize=_MS * 2.1,
                markerfacecolor="none",
                markeredgecolor="black",
                markeredgewidth=1.6,
                zorder=9,
                **kw,
            )[0]
            self._marker = ax.plot([], [], marker="o", markersize=_MS * 1.25, markeredgewidth=1.6, zorder=10, **kw)[0]
            self._cross = ax.plot(
                [], [], marker="x", markersize=_MS * 0.9, markeredgecolor="black", markeredgewidth=1.6, zorder=11, **kw
            )[0]
            self._label = _text(
                ax,
                0,
                0,
                "",
                ha="left",
                va="center",
                fontsize=_LABEL_SIZE + 0.5,
                zorder=12,
                animated=True,
                bbox={
                    "boxstyle": "round,pad=0.15",
                    "facecolor": "white",
                    "edgecolor": "#333333",
                    "linewidth": 0.6,
                    "alpha": 0.95,
                },
            )
            self._leader = ax.plot([], [], color="#222222", linewidth=0.9, zorder=9, animated=True, clip_on=False)[0]
            w, h = self._figsize
            self._status = _text(fig, _EDGE / w, 1 - 0.42 / h, "", ha="left", va="top", fontsize=9, animated=True)
            self._status.set_gid("status")
            # A context case explored unchanged is drawn exactly on its (dodged) ghost.
            self._twins = {(c.id, c.shape, c.bytes): pos for (c, _), pos in zip(placed, self._layout.positions)}
            self.canvas.draw()
            self._background = self.canvas.copy_from_bbox(fig.bbox)
            # The status line sits on plain background: keep each distinct line's pixels.
            self._status.set_text("Ag|→")
            ext = self._status.get_window_extent(self.canvas.get_renderer())
            self._status_strip = Bbox.from_extents(fig.bbox.x0, ext.y0 - 3, fig.bbox.x1, ext.y1 + 3)
            self._status_pixels: dict[str, Any] = {}
        self.background_draws += 1
        self._cache.clear()

    def set_policy(self, policy: Policy | None) -> None:
        """Use another policy; redraw the static map only if it would look different.

        The map changes when the embed limit moves (the regions move) or when a context case's
        outcome changes; any other policy change only affects the next :meth:`render`.
        """
        policy = policy or Policy()
        if policy == self.policy:
            return
        outcomes = tuple(d.outcome for _, d in self._context_decisions(policy))
        redraw = policy.embed_limit_bytes != self.policy.embed_limit_bytes or outcomes != self._context_outcomes
        self.policy = policy
        if redraw:
            self._build()

    # -- one frame ----------------------------------------------------------------------------

    def render(self, case: Case | Mapping[str, object], decision: Decision | None = None) -> bytes:
        """PNG bytes of the map with ``case`` highlighted (marker, label, status line).

        Args:
            case: the explored case (a Case or a camelCase mapping).
            decision: its decision if the caller already routed it; routed here otherwise.

        Raises:
            CaseError: when a mapping is not a valid case.
        """
        case = _as_case(case)
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

    def _draw_frame(self, case: Case, d: Decision) -> bytes:
        fig, ax, layout = self.figure, self._layout.ax, self._layout
        self.canvas.restore_region(self._background)
        status = _short_status(case, self.policy)
        strip = self._status_pixels.get(status)
        if strip is not None:
            self.canvas.restore_region(strip)
        else:
            self._status.set_text(status)
            fig.draw_artist(self._status)
            if len(self._status_pixels) < 64:
                self._status_pixels[status] = self.canvas.copy_from_bbox(self._status_strip)
        x, y = self._twins.get((case.id, case.shape, case.bytes), (_x(case.bytes), _ROW[case.shape].y + _MARK_DY))
        color = _COLOR[case.initiator]
        self._ring.set_data([x], [y])
        self._marker.set_data([x], [y])
        self._marker.set_marker(_MARKER[case.initiator])
        self._marker.set_markeredgecolor(color)
        self._marker.set_markerfacecolor(color if d.accepted else "white")
        self._cross.set_data([x], [y])
        self._cross.set_visible(not d.accepted)
        _label_case(
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
        return _png(np.asarray(self.canvas.buffer_rgba()))


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _png(rgba: np.ndarray, level: int = 1) -> bytes:
    """Encode an RGBA pixel buffer as an 8-bit RGB PNG (W3C PNG §11.2.2 IHDR, §9 filter type 0).

    Filter type 0 on every row and zlib level 1: on a chart with flat fills this is both smaller
    and about twice as fast as an adaptive-filter encoder, which is what an interactive view needs.
    """
    height, width = rgba.shape[:2]
    raw = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    raw[:, 0] = 0  # each row's filter byte: none
    raw[:, 1:] = rgba[:, :, :3].reshape(height, 3 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit truecolour
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(raw.tobytes(), level))
        + _png_chunk(b"IEND", b"")
    )
