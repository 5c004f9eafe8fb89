"""Link or embed, drawn and shown: the advice, the costs table, the cumulative-bytes plot, the same-URI check.

The numbers come from :mod:`custody_lab.protocol.link_or_embed`; this module only draws them
(matplotlib, a bare ``Figure``: no pyplot state) and renders a
:class:`~custody_lab.protocol.link_or_embed.UriInvariantCheck` with the one HTML module.
"""

from __future__ import annotations

__all__ = ["advice_html", "costs_table_html", "plot_cumulative", "uri_check_html"]

from typing import Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..protocol.link_or_embed import ShapeCosts, UriInvariantCheck
from ..whatif.theme import MIN_TEXT, Theme, theme_of
from .html import FONT, Markup, ViewError, box, code, escape, table, tone, untrusted

#: The two series' colours per theme (each ≥ 4.5:1 on that theme's background).
_SERIES = {"light": ("#b3261e", "#1f4e8c"), "dark": ("#ff8a80", "#8ab4ff")}


def plot_cumulative(costs: ShapeCosts, ax: Axes | None = None, *, theme: str | Theme | None = None) -> Figure:
    """Cumulative bytes in context vs call number, for embed and for link-with-cache.

    Readable without colour: the two lines differ in style (solid circles vs dashed squares) and
    each is labelled in words at its end; the break-even call is marked with a dotted line. Drawn
    in the light or dark theme (``theme=``; ``$CUSTODY_LAB_THEME``, else light, when omitted).

    Raises:
        ViewError: when ``ax`` belongs to no figure.
        ThemeError: when ``theme`` names no theme.

    Example:
        >>> from custody_lab.protocol.link_or_embed import compare_shapes
        >>> fig = plot_cumulative(compare_shapes(18000, 5))
        >>> [t.get_text() for t in fig.axes[0].texts][:2]
        ['embed: 90,505', 'link: 18,610']
    """
    look = theme_of(theme)
    with matplotlib.rc_context({**look.rc(), "font.size": MIN_TEXT + 1}):
        return _plot_cumulative(costs, ax, look)


def _plot_cumulative(costs: ShapeCosts, ax: Axes | None, look: Theme) -> Figure:
    embed_color, link_color = _SERIES[look.name]
    if ax is None:
        # A bare Figure (not pyplot): returned once, displayed once, never left open.
        fig = Figure(figsize=(7.5, 4.2), layout="constrained")
        ax = fig.subplots()
    else:
        root = ax.get_figure(root=True)
        if root is None:
            raise ViewError("ax: the axes passed to plot_cumulative belong to no figure")
        fig = root
    calls = list(range(1, costs.reuse + 1))
    ax.plot(calls, costs.embed_cumulative, "-o", color=embed_color, linewidth=2, markersize=6, label="embed every call")
    ax.plot(
        calls,
        costs.link_cumulative,
        "--s",
        color=link_color,
        linewidth=2,
        markersize=6,
        label="link + one fetch (client cache)",
    )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel("call number in the session")
    ax.set_ylabel("bytes in context so far")
    ax.set_ylim(bottom=0, top=max(costs.embed_total, costs.link_total) * 1.18 + 1)
    ax.set_xlim(0.6, costs.reuse + 0.4 + max(1.2, costs.reuse * 0.18))
    for series, text in ((costs.embed_cumulative, "embed"), (costs.link_cumulative, "link")):
        ax.annotate(
            f"{text}: {series[-1]:,}",
            (costs.reuse, series[-1]),
            xytext=(8, 0),
            textcoords="offset points",
            va="center",
            fontsize=MIN_TEXT + 1,
        )
    if costs.break_even is not None and costs.reuse > 1:
        ax.axvline(costs.break_even, color=look.muted, linestyle=":", linewidth=1.2)
        ax.annotate(
            f"link cheaper from call {costs.break_even}",
            (costs.break_even, 0.97),
            xycoords=ax.get_xaxis_transform(),
            xytext=(4, 0),
            textcoords="offset points",
            va="top",
            fontsize=MIN_TEXT,
            color=look.muted,
        )
    kind = "binary (base64)" if costs.binary else "text"
    ax.set_title(
        f"{costs.payload_bytes:,} {kind} bytes × {costs.reuse} call{'s' if costs.reuse != 1 else ''}, "
        f"inline budget {costs.budget:,} → advisor: {costs.shape}",
        fontsize=MIN_TEXT + 1,
    )
    fig.legend(loc="outside lower center", ncol=2, fontsize=MIN_TEXT + 1, frameon=False, labelcolor=look.text)
    ax.grid(axis="y", color=look.grid, linewidth=0.6)
    return fig


def uri_check_html(check: UriInvariantCheck) -> str:
    """Seed 001's same-URI check as a box: the verdict in words, then why (escaped).

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> from custody_lab.protocol.link_or_embed import resource_link_block, same_uri_invariant
        >>> check = same_uri_invariant(resource_link_block("report://weekly-7", "r"), Catalog.load())
        >>> "URI NOT REGISTERED" in uri_check_html(check)
        True
    """
    head = "✓ SAME URI" if check.ok else "✗ URI NOT REGISTERED"
    kind: Literal["ok", "error"] = "ok" if check.ok else "error"
    return box(f"{tone(head, kind, bold=True)} — {untrusted(check.message)}", kind, cls="custody-uri-check")


def advice_html(costs: ShapeCosts) -> str:
    """The advisor's shape and reasons, and whether one embed would exceed the budget.

    Example:
        >>> from custody_lab.protocol.link_or_embed import compare_shapes
        >>> "over the 4,096-byte inline budget" in advice_html(compare_shapes(18000, 1))
        True
    """
    reasons = "".join(f"<li>{escape(r)}</li>" for r in costs.advice.reasons)
    budget = (
        f"⚠ one embed carries {costs.payload_bytes:,} bytes, over the {costs.budget:,}-byte inline budget"
        if costs.embed_over_budget
        else f"one embed fits the {costs.budget:,}-byte inline budget"
    )
    return box(
        f'<b>Advisor: {code(costs.shape)}</b><ul style="margin:2px 0">{reasons}</ul>'
        f"<div>{escape(budget)}</div><div>{escape(costs.summary())}</div>",
        "info",
        cls="custody-advice",
    )


def costs_table_html(costs: ShapeCosts) -> str:
    """Per-call and total bytes for both shapes, as an HTML table.

    Example:
        >>> from custody_lab.protocol.link_or_embed import compare_shapes
        >>> "<b>90,505</b>" in costs_table_html(compare_shapes(18000, 5))
        True
    """
    calls = f"{costs.reuse} call{'s' if costs.reuse != 1 else ''}"
    rows = [
        (
            "per call",
            f"{costs.embed_block_bytes:,} (embedded-resource block)",
            f"{costs.link_block_bytes:,} (resource_link block)",
        ),
        ("first use", "—", f"+ {costs.fetch_bytes:,} (one resources/read, then cached)"),
        (f"total after {calls}", Markup(f"<b>{costs.embed_total:,}</b>"), Markup(f"<b>{costs.link_total:,}</b>")),
    ]
    return table(rows, head=("", "embed", "link + client cache"), cls="custody-costs", style=FONT)
