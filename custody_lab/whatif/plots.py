"""Plots of what-if results: outcome shares, the bytes × shape map, a before/after comparison.

Every plot reads without colour: each outcome has its own hatch pattern and short label, bars
carry their numbers, and the embed limit is a labelled line. Each function returns a matplotlib
``Figure`` (export it with ``fig.savefig("name.png")`` or ``"name.svg"``). matplotlib is imported
when a plot is drawn, not with this module.
"""

from __future__ import annotations

__all__ = ["OUTCOME_STYLE", "bytes_shape_map", "outcome_share", "policy_comparison", "policy_label"]

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError
from ..core.model import SHAPES, Policy
from ..core.rules import outcome_look
from .columns import OUTCOMES
from .compare import Comparison
from .validation import as_policy

#: outcome -> (short label, hatch, face colour), read from the rule table's looks
#: (:func:`custody_lab.core.rules.outcome_look`), in outcome order.
OUTCOME_STYLE: dict[str, tuple[str, str, str]] = {
    o: (outcome_look(o).label, outcome_look(o).hatch, outcome_look(o).color) for o in OUTCOMES
}
_EDGE = "#333333"


def policy_label(policy: Policy | Mapping[str, Any] | None) -> str:
    """A policy in a few words, for titles.

    Example:
        >>> policy_label({"embedLimitBytes": 2048, "requireCurrent": True})
        'embed ≤ 2048 B, always current'
    """
    p = as_policy(policy)
    fresh = "always current" if p.require_current else "current when the case asks"
    return f"embed ≤ {p.embed_limit_bytes} B, {fresh}"


def _pyplot() -> Any:
    import matplotlib.pyplot as plt

    return plt


def _label(ax: Any, x: float, y: float, text: str, *, pad: float, alpha: float) -> None:
    """A small centred label on a white, nearly opaque box (readable over any hatch)."""
    box = {"boxstyle": f"round,pad={pad}", "facecolor": "white", "edgecolor": "none", "alpha": alpha}
    ax.text(x, y, text, ha="center", va="center", fontsize=7.5, bbox=box)


def _legend(ax: Any, outcomes: list[str], **kwargs: Any) -> None:
    from matplotlib.patches import Patch

    handles = [
        Patch(
            facecolor=OUTCOME_STYLE[o][2],
            hatch=OUTCOME_STYLE[o][1],
            edgecolor=_EDGE,
            label=f"{OUTCOME_STYLE[o][0]} — {o}",
        )
        for o in outcomes
    ]
    ax.legend(handles=handles, frameon=False, **kwargs)


def outcome_share(swept: pd.DataFrame, by: str = "shape", *, title: str | None = None) -> Any:
    """Stacked bars: for each value of one input, the share of rows that get each outcome.

    Args:
        swept: a frame returned by :func:`custody_lab.sweep.sweep`.
        by: the input whose values make the bars (``shape``, ``initiator``, ``allowed``...).
        title: the figure title (a default names ``by``).

    Returns:
        A matplotlib Figure; segments of 9 % or more carry their outcome's short label and
        share, segments of 4 % or more their share (the legend maps hatches to outcomes).

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> fig = outcome_share(sweep(grid()), by="initiator")
        >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
        ['application', 'model']
    """
    if "outcome" not in swept.columns or by not in swept.columns:
        missing = "outcome" if "outcome" not in swept.columns else by
        raise CaseError(f"outcome_share needs a swept frame with an {missing!r} column", missing)
    table = pd.crosstab(swept[by].astype(object).where(swept[by].notna(), "(missing)"), swept["outcome"])
    table = table.loc[:, [o for o in OUTCOMES if o in table.columns and table[o].sum() > 0]]
    if table.empty:
        raise CaseError("outcome_share needs at least one row", by)
    share = table.div(table.sum(axis=1), axis=0)
    plt = _pyplot()
    labels = [str(v) for v in share.index]
    height = max(1.0 + 0.55 * len(labels), 0.9 + 0.22 * len(share.columns))  # room for the legend
    fig, ax = plt.subplots(figsize=(11, height), layout="constrained")
    y = np.arange(len(labels))
    left = np.zeros(len(labels))
    for outcome in share.columns:
        short, hatch, face = OUTCOME_STYLE[outcome]
        width = share[outcome].to_numpy()
        ax.barh(y, width, left=left, height=0.7, color=face, hatch=hatch, edgecolor=_EDGE, linewidth=0.6)
        for yi, (x0, w) in enumerate(zip(left, width)):
            if w >= 0.04:  # wide segments get their label and share; narrower ones the share only
                text = f"{short}\n{w:.0%}" if w >= 0.09 else f"{w:.0%}"
                _label(ax, x0 + w / 2, yi, text, pad=0.15, alpha=0.85)
        left += width
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_xlabel(f"share of rows (of {len(swept):,}) with each outcome")
    ax.set_ylabel(by)
    ax.set_title(title or f"Outcome share by {by}", loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    _legend(ax, list(share.columns), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    plt.close(fig)
    return fig


def _text_points(text: str, fontsize: float) -> float:
    """A generous estimate of a label's width in points (no renderer needed)."""
    return max(len(line) for line in text.splitlines()) * fontsize * 0.62


def _runs(values: list[Any]) -> list[tuple[int, int]]:
    """[start, stop) index ranges of consecutive equal values."""
    runs, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            runs.append((start, i))
            start = i
    return runs


def _mix(counts: Mapping[str, int], total: int) -> str:
    """The refusals of one cell, most common first, two a line: "over budget 50% · mismatch 50%"."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], OUTCOMES.index(kv[0])))
    parts = [f"{OUTCOME_STYLE[code][0]} {n / total:.0%}" for code, n in ranked if n]
    parts = parts[:4] + (["…"] if len(parts) > 4 else [])
    return "\n".join(" · ".join(parts[i : i + 2]) for i in range(0, len(parts), 2))


def bytes_shape_map(
    swept: pd.DataFrame, policy: Policy | Mapping[str, Any] | None = None, *, title: str | None = None
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

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> fig = bytes_shape_map(sweep(grid()))
        >>> any("embed limit" in t.get_text() for t in fig.axes[0].texts)
        True
    """
    for col in ("bytes", "shape", "outcome", "accepted"):
        if col not in swept.columns:
            raise CaseError(f"bytes_shape_map needs a swept frame with a {col!r} column", col)
    if swept.empty:
        raise CaseError("bytes_shape_map needs at least one row", "bytes")
    p = as_policy(policy)
    sizes = np.sort(swept["bytes"].unique())
    shapes = [s for s in SHAPES if (swept["shape"] == s).any()]
    accepted = swept.pivot_table(
        index="shape", columns="bytes", values="accepted", aggfunc="mean", observed=True
    ).reindex(index=shapes, columns=sizes)
    totals = swept.groupby(["shape", "bytes"], observed=True).size()
    refusals = swept.groupby(["shape", "bytes", "rejection"], observed=True).size()
    per_cell: dict[tuple[str, int], dict[str, int]] = {}
    for shape, size, code, count in refusals.reset_index().itertuples(index=False, name=None):
        per_cell.setdefault((str(shape), int(size)), {})[str(code)] = int(count)
    mix = {cell: _mix(found, int(totals[cell])) for cell, found in per_cell.items()}
    if len(sizes) > 1:
        mids = (sizes[1:] + sizes[:-1]) / 2
        edges = np.concatenate([[sizes[0] - (mids[0] - sizes[0])], mids, [sizes[-1] + (sizes[-1] - mids[-1])]])
    else:
        edges = np.array([sizes[0] - 0.5, sizes[0] + 0.5])
    edges[0] = max(edges[0], 0.0)  # sizes are never negative
    plt = _pyplot()
    from matplotlib.patches import Rectangle

    width_in = 11.0
    fig, ax = plt.subplots(figsize=(width_in, 1.5 + 0.75 * len(shapes)), layout="constrained")
    span = edges[-1] - edges[0]
    axes_points = width_in * 72 * 0.8  # the shape labels take about a fifth of the width
    best = float(np.nanmax(accepted.to_numpy())) if accepted.notna().any().any() else 0.0
    for row, shape in enumerate(shapes):
        shares = [None if np.isnan(v) else round(float(v), 4) for v in accepted.loc[shape].to_numpy()]
        mixes = [mix.get((shape, int(b)), "") for b in sizes]
        for start, stop in _runs(list(zip(shares, mixes))):
            share, refused = shares[start], mixes[start]
            x0, x1 = edges[start], edges[stop]
            if share is None:
                continue
            # darker = more accepted (relative to the best cell); nothing accepted = white, crossed
            grey = 1.0 - 0.6 * (share / best if best else 0.0)
            ax.add_patch(
                Rectangle(
                    (x0, row - 0.42),
                    x1 - x0,
                    0.84,
                    facecolor=str(grey),
                    hatch="xx" if share == 0 else "",
                    edgecolor=_EDGE,
                    linewidth=0.6,
                )
            )
            room = (x1 - x0) / span * axes_points
            for text in (f"{share:.0%} accepted" + (f"\n{refused}" if refused else ""), f"{share:.0%}"):
                if _text_points(text, 7.5) + 8 <= room:  # label only what fits inside its band
                    _label(ax, (x0 + x1) / 2, row, text, pad=0.2, alpha=0.9)
                    break
    limit = p.embed_limit_bytes
    if edges[0] <= limit <= edges[-1]:
        ax.axvline(limit + 0.5, color="black", linestyle="--", linewidth=1.6)
        ax.text(
            limit + 0.5,
            -0.62,
            f" embed limit {limit} B ",
            ha="left",
            va="bottom",
            fontsize=8.5,
            fontweight="bold",
            bbox={"boxstyle": "square,pad=0.15", "facecolor": "white", "edgecolor": "black"},
        )
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(len(shapes) - 0.5, -0.8)
    ax.set_yticks(range(len(shapes)), shapes)
    ax.set_xlabel(
        "payload size (bytes)\ndarker = more accepted (relative to the best cell) · crossed = none "
        "accepted · labels give the refusals' share of the cell"
    )
    ax.set_title(title or f"Share accepted by shape and size · {policy_label(p)} · {len(swept):,} rows", loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    plt.close(fig)
    return fig


def policy_comparison(comparison: Comparison, *, title: str | None = None) -> Any:
    """Before/after bars: how many cases get each outcome under two policies.

    ``before`` bars are light and hatched, ``after`` bars dark and plain; every bar carries its
    count and each outcome its change (+n / −n).

    Args:
        comparison: the result of :func:`custody_lab.sweep.compare`.
        title: the figure title (a default names both policies and how many cases change).

    Example:
        >>> from custody_lab.sweep import compare, grid
        >>> fig = policy_comparison(compare(grid(), None, {"embedLimitBytes": 2048}))
        >>> len(fig.axes[0].patches) > 0
        True
    """
    summary = comparison.summary
    if summary.empty:
        raise CaseError("policy_comparison needs a comparison of at least one case", None)
    plt = _pyplot()
    outcomes = [str(o) for o in summary.index]
    fig, ax = plt.subplots(figsize=(11, 1.6 + 0.5 * len(outcomes)), layout="constrained")
    y = np.arange(len(outcomes))
    before = summary["before"].to_numpy()
    after = summary["after"].to_numpy()
    top = max(int(before.max()), int(after.max()), 1)
    ax.barh(
        y - 0.2,
        before,
        height=0.38,
        color="#e8e8e8",
        hatch="//",
        edgecolor=_EDGE,
        linewidth=0.6,
        label=f"before: {policy_label(comparison.before)}",
    )
    ax.barh(
        y + 0.2,
        after,
        height=0.38,
        color="#4d4d4d",
        edgecolor=_EDGE,
        linewidth=0.6,
        label=f"after: {policy_label(comparison.after)}",
    )
    for yi, (b, a) in enumerate(zip(before, after)):
        ax.text(b + top * 0.01, yi - 0.2, f"{b}", va="center", fontsize=8)
        change = a - b
        delta = f"   ({'+' if change > 0 else '−'}{abs(change)})" if change else ""
        ax.text(
            a + top * 0.01, yi + 0.2, f"{a}{delta}", va="center", fontsize=8, fontweight="bold" if change else "normal"
        )
    ax.set_yticks(y, [f"{o}  [{OUTCOME_STYLE[o][0]}]" for o in outcomes])
    ax.invert_yaxis()
    from matplotlib.ticker import MaxNLocator

    ax.set_xlim(0, top * 1.18)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cases")
    ax.set_title(title or f"{comparison.changed} of {comparison.cases:,} cases change outcome", loc="left", pad=26)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False, fontsize=8.5)
    plt.close(fig)
    return fig
