"""Plots of what-if results: outcome shares, the bytes × shape map, a before/after comparison.

Every plot reads without colour: each outcome has its own hatch pattern and short label, bars
carry their numbers, and the embed limit is a labelled line. Each function returns a matplotlib
``Figure`` (export it with ``fig.savefig("name.png")`` or ``"name.svg"``) drawn in the light or
dark theme (``theme=``; ``$CUSTODY_LAB_THEME`` when omitted, see :mod:`.theme`), with no text
smaller than :data:`~.theme.MIN_TEXT`. matplotlib is imported when a plot is drawn, not with this
module.
"""

from __future__ import annotations

__all__ = [
    "OUTCOME_STYLE",
    "bytes_shape_map",
    "outcome_share",
    "policy_comparison",
    "policy_label",
    "update_policy_comparison",
]

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError
from ..core.model import Policy
from ..core.rules import outcome_look
from .columns import OUTCOMES
from .compare import Comparison
from .plot_text import outcome_counts_by, runs, shape_size_cells
from .theme import MARGIN, MIN_TEXT, Theme, drawable, theme_of
from .validation import as_policy

#: outcome -> (short label, hatch, face colour), read from the rule table's looks
#: (:func:`custody_lab.core.rules.outcome_look`), in outcome order.
OUTCOME_STYLE: dict[str, tuple[str, str, str]] = {
    o: (outcome_look(o).label, outcome_look(o).hatch, outcome_look(o).color) for o in OUTCOMES
}


def policy_label(policy: Policy | Mapping[str, Any] | None) -> str:
    """A policy in a few words, for titles.

    Example:
        >>> policy_label({"embedLimitBytes": 2048, "requireCurrent": True})
        'embed ≤ 2048 B, always current'
    """
    p = as_policy(policy)
    fresh = "always current" if p.require_current else "current when the case asks"
    return f"embed ≤ {p.embed_limit_bytes} B, {fresh}"


@contextmanager
def _drawing(theme: Theme) -> Iterator[Any]:
    """pyplot, with the theme's colours and the minimum text size in force while a plot is drawn."""
    import matplotlib
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({**theme.rc(), "font.size": MIN_TEXT + 1, "legend.fontsize": MIN_TEXT}):
        yield plt


def _figure(plt: Any, width: float, height: float) -> tuple[Any, Any]:
    """A figure and its axes, laid out so that no text comes closer than :data:`MARGIN` to an edge."""
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    fig.get_layout_engine().set(w_pad=MARGIN, h_pad=MARGIN)
    return fig, ax


def _room_for_bar_labels(fig: Any, ax: Any, labels: list[Any]) -> None:
    """Widen the x axis until every label at a bar's end ends :data:`MARGIN` inside the axes.

    A label anchored at ``a`` data units from the axis' start, reaching ``w`` pixels past its
    anchor, ends inside an axes ``W`` pixels wide spanning ``X`` data units when
    ``a * W / X + w <= W - margin``. The layout is redone after each widening (the tick labels,
    and so ``W``, may move) until every label fits.
    """
    for _ in range(4):
        x0, x1 = ax.get_xlim()
        need = _label_room(fig, ax, labels)
        if need <= (x1 - x0) * (1 + 1e-6):
            return
        ax.set_xlim(x0, x0 + need * 1.001)


def _label_room(fig: Any, ax: Any, labels: list[Any], *, draw: bool = True) -> float:
    """How many data units the x axis needs for every label at a bar's end to end inside it
    (after a layout pass, unless ``draw`` is off: the layout is then the one already drawn)."""
    if draw:
        fig.draw_without_rendering()
    box = ax.get_window_extent()
    x0, x1 = ax.get_xlim()
    need = x1 - x0
    for t in labels:
        a = float(t.get_position()[0]) - x0
        reach = t.get_window_extent().x1 - ax.transData.transform((t.get_position()[0], 0))[0]
        room = box.width - MARGIN * fig.dpi - reach
        if room > 0:
            need = max(need, a * box.width / room)
    return need


def _label(ax: Any, theme: Theme, x: float, y: float, text: str, *, pad: float) -> Any:
    """A centred label on a nearly opaque box of the theme's label colour (readable over any hatch)."""
    box = {"boxstyle": f"round,pad={pad}", "facecolor": theme.box, "edgecolor": "none", "alpha": 0.9}
    return ax.text(x, y, text, ha="center", va="center", fontsize=MIN_TEXT, color=theme.text, bbox=box)


_SEGMENT_PAD = 0.15  # the pad of a segment label's box, in font sizes


def _fit_in_segments(fig: Any, ax: Any, labels: list[tuple[Any, float, float, str]]) -> None:
    """Keep each segment's label inside its segment, its box clear of both ends by a point.

    ``labels`` holds ``(text, x0, x1, shorter)``: a label whose box (measured after the layout)
    pokes out of ``[x0, x1]`` is replaced by ``shorter`` (the share alone), and hidden when even
    that does not fit.
    """
    fig.draw_without_rendering()
    clear = fig.dpi / 72 * (1 + _SEGMENT_PAD * MIN_TEXT)  # a point, plus the label box's own pad
    for text, x0, x1, shorter in labels:
        left = ax.transData.transform((x0, 0))[0] + clear
        right = ax.transData.transform((x1, 0))[0] - clear
        for words in (text.get_text(), shorter, None):
            if words is None:
                text.set_visible(False)
                break
            text.set_text(words)
            ext = text.get_window_extent()
            if left <= ext.x0 and ext.x1 <= right:
                break


def _legend(ax: Any, theme: Theme, outcomes: list[str], **kwargs: Any) -> None:
    from matplotlib.patches import Patch

    handles = [
        Patch(
            facecolor=OUTCOME_STYLE[o][2],
            hatch=OUTCOME_STYLE[o][1],
            edgecolor=theme.edge,
            hatchcolor="#333333",
            label=f"{OUTCOME_STYLE[o][0]} — {o}",
        )
        for o in outcomes
    ]
    ax.legend(handles=handles, frameon=False, labelcolor=theme.text, **kwargs)


def outcome_share(
    swept: pd.DataFrame, by: str = "shape", *, title: str | None = None, theme: str | Theme | None = None
) -> Any:
    """Stacked bars: for each value of one input, the share of rows that get each outcome.

    Args:
        swept: a frame returned by :func:`custody_lab.sweep.sweep`.
        by: the input whose values make the bars (``shape``, ``initiator``, ``allowed``...).
        title: the figure title (a default names ``by``).
        theme: ``"light"`` or ``"dark"`` (``$CUSTODY_LAB_THEME``, else light, when omitted).

    Returns:
        A matplotlib Figure; segments of 9 % or more carry their outcome's short label and
        share, segments of 4 % or more their share, each only where it fits inside its segment
        (the legend maps hatches to outcomes).

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> fig = outcome_share(sweep(grid()), by="initiator")
        >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
        ['application', 'model']
    """
    table = outcome_counts_by(swept, by)
    share = table.div(table.sum(axis=1), axis=0)
    look = theme_of(theme)
    with _drawing(look) as plt:
        return _outcome_share(plt, look, swept, share, by, title)


def _outcome_share(plt: Any, look: Theme, swept: pd.DataFrame, share: pd.DataFrame, by: str, title: str | None) -> Any:
    labels = [drawable(str(v)) for v in share.index]
    height = max(1.0 + 0.55 * len(labels), 0.9 + 0.22 * len(share.columns))  # room for the legend
    fig, ax = _figure(plt, 11, height)
    y = np.arange(len(labels))
    left = np.zeros(len(labels))
    inside: list[tuple[Any, float, float, str]] = []
    for outcome in share.columns:
        short, hatch, face = OUTCOME_STYLE[outcome]
        width = share[outcome].to_numpy()
        ax.barh(y, width, left=left, height=0.7, color=face, hatch=hatch, edgecolor=look.edge, linewidth=0.6)
        for bar in ax.patches[-len(labels) :]:
            bar.set_hatchcolor("#333333")  # hatches over the (light) outcome fills, in both themes
        for yi, (x0, w) in enumerate(zip(left, width)):
            if w >= 0.04:  # wide segments get their label and share; narrower ones the share only
                text = f"{short}\n{w:.0%}" if w >= 0.09 else f"{w:.0%}"
                inside.append((_label(ax, look, x0 + w / 2, yi, text, pad=_SEGMENT_PAD), x0, x0 + w, f"{w:.0%}"))
        left += width
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel(f"share of rows (of {len(swept):,}) with each outcome")
    ax.set_ylabel(by)
    ax.set_title(title or f"Outcome share by {by}", loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    _legend(ax, look, list(share.columns), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=MIN_TEXT)
    _fit_in_segments(fig, ax, inside)
    plt.close(fig)
    return fig


def _text_points(text: str, fontsize: float) -> float:
    """A generous estimate of a label's width in points (no renderer needed)."""
    return max(len(line) for line in text.splitlines()) * fontsize * 0.62


def _label_x(x0: float, x1: float, line: float, width: float) -> float | None:
    """Where a label of ``width`` (data units) is centred in the band [x0, x1]: in the middle, or,
    if the embed-limit line would cross it there, in the middle of the wider side of the line;
    ``None`` when it fits nowhere.

    Example:
        >>> _label_x(0, 100, 500, 40), _label_x(0, 100, 50, 40), _label_x(0, 100, 50, 60)
        (50.0, 25.0, None)
        >>> _label_x(0, 100, 35, 40)
        67.5
    """
    middle = (x0 + x1) / 2
    if width > x1 - x0:
        return None
    if not middle - width / 2 < line < middle + width / 2:
        return middle
    left, right = (x0, line), (line, x1)
    lo, hi = max(left, right, key=lambda side: side[1] - side[0])
    return (lo + hi) / 2 if hi - lo >= width else None


def _mix(counts: Mapping[str, int], total: int) -> str:
    """The refusals of one cell, most common first, two a line: "over budget 50% · mismatch 50%"."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], OUTCOMES.index(kv[0])))
    parts = [f"{OUTCOME_STYLE[code][0]} {n / total:.0%}" for code, n in ranked if n]
    parts = parts[:4] + (["…"] if len(parts) > 4 else [])
    return "\n".join(" · ".join(parts[i : i + 2]) for i in range(0, len(parts), 2))


def bytes_shape_map(
    swept: pd.DataFrame,
    policy: Policy | Mapping[str, Any] | None = None,
    *,
    title: str | None = None,
    theme: str | Theme | None = None,
) -> Any:
    """The bytes × shape map: for every shape and size, the share of rows accepted.

    Rows are the five shapes; the x axis is ``bytes``. Cells are grey by accepted share (darker =
    more; white and cross-hatched = none); consecutive sizes with the same result merge into one
    labelled band ("12% accepted" and the refusals with their share, short labels as in
    :data:`OUTCOME_STYLE`). The embed limit of ``policy`` is drawn as a dashed boundary line.

    Args:
        swept: a frame returned by :func:`custody_lab.sweep.sweep` (typically over :func:`grid`).
        policy: the policy the frame was swept under (the seed's when omitted).
        title: the figure title.
        theme: ``"light"`` or ``"dark"`` (``$CUSTODY_LAB_THEME``, else light, when omitted); in the
            dark theme lighter cells mean more accepted.

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> fig = bytes_shape_map(sweep(grid()))
        >>> any("embed limit" in t.get_text() for t in fig.axes[0].texts)
        True
    """
    p = as_policy(policy)
    sizes, shapes, accepted, totals, per_cell = shape_size_cells(swept)
    mix = {cell: _mix(found, int(totals[cell])) for cell, found in per_cell.items()}
    if len(sizes) > 1:
        mids = (sizes[1:] + sizes[:-1]) / 2
        edges = np.concatenate([[sizes[0] - (mids[0] - sizes[0])], mids, [sizes[-1] + (sizes[-1] - mids[-1])]])
    else:
        edges = np.array([sizes[0] - 0.5, sizes[0] + 0.5])
    edges[0] = max(edges[0], 0.0)  # sizes are never negative
    look = theme_of(theme)
    with _drawing(look) as plt:
        return _bytes_shape_map(plt, look, swept, p, sizes, shapes, accepted, mix, edges, title)


def _bytes_shape_map(
    plt: Any,
    look: Theme,
    swept: pd.DataFrame,
    p: Policy,
    sizes: np.ndarray,
    shapes: list[str],
    accepted: pd.DataFrame,
    mix: dict[tuple[str, int], str],
    edges: np.ndarray,
    title: str | None,
) -> Any:
    from matplotlib.patches import Rectangle

    dark = look.name == "dark"

    width_in = 11.0
    fig, ax = _figure(plt, width_in, 1.5 + 0.75 * len(shapes))
    span = edges[-1] - edges[0]
    line = p.embed_limit_bytes + 0.5  # where the dashed limit line is drawn
    axes_points = width_in * 72 * 0.8  # the shape labels take about a fifth of the width
    best = float(np.nanmax(accepted.to_numpy())) if accepted.notna().any().any() else 0.0
    for row, shape in enumerate(shapes):
        shares = [None if np.isnan(v) else round(float(v), 4) for v in accepted.loc[shape].to_numpy()]
        mixes = [mix.get((shape, int(b)), "") for b in sizes]
        for start, stop in runs(list(zip(shares, mixes))):
            share, refused = shares[start], mixes[start]
            x0, x1 = edges[start], edges[stop]
            if share is None:
                continue
            # darker = more accepted (relative to the best cell); nothing accepted = white, crossed
            strength = 0.6 * (share / best if best else 0.0)
            grey = 0.12 + strength if dark else 1.0 - strength
            ax.add_patch(
                Rectangle(
                    (x0, row - 0.42),
                    x1 - x0,
                    0.84,
                    facecolor=str(grey),
                    hatch="xx" if share == 0 else "",
                    edgecolor=look.edge,
                    hatchcolor=look.hatch,
                    linewidth=0.6,
                )
            )
            for text in (f"{share:.0%} accepted" + (f"\n{refused}" if refused else ""), f"{share:.0%}"):
                where = _label_x(x0, x1, line, (_text_points(text, MIN_TEXT) + 8) / axes_points * span)
                if where is not None:  # label only what fits inside its band, clear of the limit line
                    _label(ax, look, where, row, text, pad=0.2)
                    break
    limit = p.embed_limit_bytes
    if edges[0] <= limit <= edges[-1]:
        ax.axvline(limit + 0.5, color=look.ink, linestyle="--", linewidth=1.6)
        ax.text(
            limit + 0.5,
            -0.62,
            f" embed limit {limit} B ",
            ha="left",
            va="bottom",
            fontsize=MIN_TEXT,
            fontweight="bold",
            color=look.text,
            bbox={"boxstyle": "square,pad=0.15", "facecolor": look.box, "edgecolor": look.ink},
        )
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(len(shapes) - 0.5, -0.8)
    ax.set_yticks(range(len(shapes)), shapes)
    ax.set_xlabel(
        f"payload size (bytes)\n{'lighter' if dark else 'darker'} = more accepted (relative to the best cell)"
        " · crossed = none accepted · labels give the refusals' share of the cell"
    )
    ax.set_title(title or f"Share accepted by shape and size · {policy_label(p)} · {len(swept):,} rows", loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    plt.close(fig)
    return fig


def policy_comparison(comparison: Comparison, *, title: str | None = None, theme: str | Theme | None = None) -> Any:
    """Before/after bars: how many cases get each outcome under two policies.

    ``before`` bars are hatched and close to the background, ``after`` bars plain and far from
    it; every bar carries its count and each outcome its change (+n / −n).

    Args:
        comparison: the result of :func:`custody_lab.sweep.compare`.
        title: the figure title (a default names both policies and how many cases change).
        theme: ``"light"`` or ``"dark"`` (``$CUSTODY_LAB_THEME``, else light, when omitted).

    Example:
        >>> from custody_lab.sweep import compare, grid
        >>> fig = policy_comparison(compare(grid(), None, {"embedLimitBytes": 2048}))
        >>> len(fig.axes[0].patches) > 0
        True
    """
    summary = comparison.summary
    if summary.empty:
        raise CaseError("policy_comparison needs a comparison of at least one case", None)
    look = theme_of(theme)
    with _drawing(look) as plt:
        return _policy_comparison(plt, look, comparison, title)


def _comparison_words(comparison: Comparison, title: str | None) -> dict[str, Any]:
    """What the before/after chart shows: its bars' lengths, its words and where they sit."""
    summary = comparison.summary
    outcomes = [str(o) for o in summary.index]
    before = summary["before"].to_numpy()
    after = summary["after"].to_numpy()
    top = max(int(before.max()), int(after.max()), 1)
    ends = []
    for yi, (b, a) in enumerate(zip(before, after)):
        ends.append((b + top * 0.01, yi - 0.2, f"{b}", "normal"))
        change = a - b
        delta = f"   ({'+' if change > 0 else '−'}{abs(change)})" if change else ""
        ends.append((a + top * 0.01, yi + 0.2, f"{a}{delta}", "bold" if change else "normal"))
    return {
        "outcomes": outcomes,
        "before": before,
        "after": after,
        "top": top,
        "ends": ends,
        "labels": (f"before: {policy_label(comparison.before)}", f"after: {policy_label(comparison.after)}"),
        "title": title or f"{comparison.changed} of {comparison.cases:,} cases change outcome",
    }


def _policy_comparison(plt: Any, look: Theme, comparison: Comparison, title: str | None) -> Any:
    words = _comparison_words(comparison, title)
    dark = look.name == "dark"
    outcomes = words["outcomes"]
    fig, ax = _figure(plt, 11, 1.6 + 0.5 * len(outcomes))
    y = np.arange(len(outcomes))
    top = words["top"]
    for key, shift, face, hatch, label in (
        ("before", -0.2, "#3a3a3a" if dark else "#e8e8e8", "//", words["labels"][0]),
        ("after", 0.2, "#a8a8a8" if dark else "#4d4d4d", None, words["labels"][1]),
    ):
        ax.barh(  # the first container holds the before bars, the second the after bars
            y + shift, words[key], height=0.38, color=face, hatch=hatch, edgecolor=look.edge, linewidth=0.6, label=label
        )
    ends = [
        ax.text(x, yi, text, va="center", fontsize=MIN_TEXT, fontweight=weight, gid=f"end:{i}")
        for i, (x, yi, text, weight) in enumerate(words["ends"])
    ]
    ax.set_yticks(y, [f"{o}  [{OUTCOME_STYLE[o][0]}]" for o in outcomes])
    ax.invert_yaxis()
    from matplotlib.ticker import MaxNLocator

    ax.set_xlim(0, top * 1.18)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cases")
    ax.set_title(words["title"], loc="left", pad=44)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=1, frameon=False, fontsize=MIN_TEXT)
    _room_for_bar_labels(fig, ax, ends)
    plt.close(fig)
    return fig


def update_policy_comparison(fig: Any, comparison: Comparison, *, title: str | None = None) -> bool:
    """Show another comparison on a figure :func:`policy_comparison` drew, in place, when only
    its numbers and words change: the same outcomes, the same longest bar, and every bar's
    number still inside the axes (the x axis and the layout stay as they are).

    Returns:
        ``True`` when the figure now shows ``comparison``; ``False`` (figure untouched) when it
        must be drawn again with :func:`policy_comparison`.

    Example:
        >>> from custody_lab.sweep import compare, grid
        >>> cases = grid()
        >>> fig = policy_comparison(compare(cases, None, {"embedLimitBytes": 2048}))
        >>> update_policy_comparison(fig, compare(cases, None, {"embedLimitBytes": 2049}))
        True
        >>> fig.axes[0].get_legend().get_texts()[1].get_text()
        'after: embed ≤ 2049 B, current when the case asks'
    """
    ax = fig.axes[0]
    words = _comparison_words(comparison, title)
    shown = [str(t.get_text()).rsplit("  [", 1)[0] for t in ax.get_yticklabels()]
    if shown != words["outcomes"] or ax.get_xlim()[1] != words["top"] * 1.18 or len(ax.containers) != 2:
        return False
    bars = dict(zip(("before", "after"), ax.containers))
    ends = {t.get_gid(): t for t in ax.texts}
    old = [(t.get_position(), t.get_text(), t.get_fontweight()) for t in (ends[f"end:{i}"] for i in range(len(ends)))]
    for i, (x, yi, text, weight) in enumerate(words["ends"]):
        ends[f"end:{i}"].set(position=(x, yi), text=text, fontweight=weight)
    if _label_room(fig, ax, list(ends.values()), draw=False) > ax.get_xlim()[1] * (1 + 1e-6):
        for t, (position, text, weight) in zip((ends[f"end:{i}"] for i in range(len(ends))), old):
            t.set(position=position, text=text, fontweight=weight)
        return False
    for key in ("before", "after"):
        for rect, width in zip(bars[key], words[key]):
            rect.set_width(width)
    for text, label in zip(ax.get_legend().get_texts(), words["labels"]):
        text.set_text(label)
    ax.set_title(words["title"], loc="left", pad=44)
    return True
