"""What content costs in context, drawn and shown: for link or embed, the advice, the costs table,
the cumulative-bytes plot and the same-URI check; for the three context budgets, the ledger table,
what two hosts let in and the embed verdict.

The numbers come from :mod:`custody_lab.protocol.link_or_embed` and :mod:`custody_lab.protocol.budgets`;
this module only draws them (matplotlib, a bare ``Figure``: no pyplot state) and renders them with the
one HTML module. :func:`budget_panel` is the sliders over the budgets (ipywidgets, loaded on first use).
"""

from __future__ import annotations

__all__ = [
    "advice_html",
    "budget_ledger",
    "budget_panel",
    "costs_table_html",
    "cumulative_alt",
    "embed_verdict_html",
    "hosts_html",
    "ledger_html",
    "plot_cumulative",
    "uri_check_html",
]

from collections.abc import Sequence
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..protocol.budgets import BudgetLimits, EmbedVerdict, Ledger, every_record_listed, reached
from ..protocol.catalog import Catalog
from ..protocol.link_or_embed import ShapeCosts, UriInvariantCheck
from ..whatif.theme import MIN_TEXT, Theme, theme_of
from .html import FONT, Markup, ViewError, box, code, escape, scroll, table, tone, untrusted

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


def cumulative_alt(costs: ShapeCosts) -> str:
    """What :func:`plot_cumulative` draws, in words: both lines' totals and the call where the link is ahead.

    Example:
        >>> from custody_lab.protocol.link_or_embed import compare_shapes
        >>> "from call 2 on" in cumulative_alt(compare_shapes(18000, 5))
        True
    """
    ahead = [n for n, (e, k) in enumerate(zip(costs.embed_cumulative, costs.link_cumulative), 1) if k < e]
    where = f"the link puts fewer bytes in context from call {ahead[0]} on" if ahead else "the link is never ahead"
    return (
        f"Two lines, bytes in context after each of {costs.reuse} calls returning the same "
        f"{costs.payload_bytes:,}-byte content: embed (solid, circles) reaches {costs.embed_cumulative[-1]:,}, "
        f"link with a client cache (dashed, squares) {costs.link_cumulative[-1]:,}; {where}."
    )


def uri_check_html(check: UriInvariantCheck) -> str:
    """Seed 001's same-URI check as a box: the verdict in words, then why (escaped).

    A registered resource under another URI is an error (the lab's host policy); a URI the server
    never registered is information, not an error: MCP lets a link name it.

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> from custody_lab.protocol.link_or_embed import resource_link_block, same_uri_invariant
        >>> catalog = Catalog.load()
        >>> "ANOTHER URI" in uri_check_html(same_uri_invariant(resource_link_block("kb://Shipping", "s"), catalog))
        True
        >>> "VALID UNDER MCP" in uri_check_html(same_uri_invariant(resource_link_block("x://1", "x"), catalog))
        True
    """
    head, colour, kind = _VERDICT_HEADS[check.verdict]
    return box(f"{tone(head, colour, bold=True)} — {untrusted(check.message)}", kind, cls="custody-uri-check")


#: Each verdict's head, its text colour and its box.
_VERDICT_HEADS: dict[str, tuple[str, Literal["ok", "error", "muted"], Literal["ok", "error", "info"]]] = {
    "same-uri": ("✓ SAME URI", "ok", "ok"),
    "registered-under-another-uri": ("✗ REGISTERED UNDER ANOTHER URI", "error", "error"),
    "unlisted": ("ⓘ NOT REGISTERED — VALID UNDER MCP", "muted", "info"),
    "malformed": ("✗ NOT A LINK OR AN EMBED", "error", "error"),
}


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


# --------------------------------------------------------------------------------------------
# The three context budgets (seed 000, "Budget large context without hiding truncation")
# --------------------------------------------------------------------------------------------


def ledger_html(ledger: Ledger) -> str:
    """The ledger as a table, one line per budget and the combined line, each status in words.

    Example:
        >>> html = ledger_html(Ledger().log("content", "export://all", 9000))
        >>> "over by 4,904" in html and "one combined number hides" in html
        True
    """
    rows = []
    for line in ledger.lines():
        over = line["status"] != "within"
        status = tone(("✗ " if over else "✓ ") + line["status"], "error" if over else "ok")
        rows.append(
            (
                line["budget"],
                line["entries"],
                f"{line['bytes']:,}",
                f"{line['≈ tokens']:,}",
                f"{line['limit']:,}",
                status,
            )
        )
    head = ("budget", "entries", "bytes", "≈ tokens (bytes ÷ 4)", "limit", "status")
    warning = ""
    if ledger.hidden():
        warning = box(
            f"{tone('⚠ one combined number hides', 'error', bold=True)}: "
            f"{escape(', '.join(ledger.hidden()))} over its own limit while the total looks fine.",
            "error",
        )
    return scroll(table(rows, head=head, cls="custody-ledger", style=FONT)) + warning


def hosts_html(ledger: Ledger, items: Sequence[str]) -> str:
    """For each named content item: its bytes, and how many reach the model under three budgets and under one.

    Example:
        >>> ledger = Ledger().log("resource-catalog", "list", 20000).log("content", "kb://doc", 1800)
        >>> "crowded out" in hosts_html(ledger, ["kb://doc"])
        True
    """
    separate, combined = ledger.admit(), ledger.admit_combined()

    def verdict(admissions: Any, item: str) -> Markup:
        got = reached(admissions, item)
        reasons = [
            a.reason for a in admissions if a.entry.item == item and a.entry.budget == "content" and not a.admitted
        ]
        if reasons:
            return Markup(f"{tone(f'✗ {got:,}', 'error')} {escape(reasons[0])}")
        return tone(f"✓ {got:,}", "ok")

    rows = [
        (
            code(item),
            f"{sum(e.bytes for e in ledger.entries if e.item == item and e.budget == 'content'):,}",
            verdict(separate, item),
            verdict(combined, item),
        )
        for item in items
    ]
    head = ("content item", "bytes logged", "reach the model: three budgets", "reach the model: one combined limit")
    return scroll(table(rows, head=head, cls="custody-hosts", style=FONT))


def embed_verdict_html(verdict: EmbedVerdict) -> str:
    """The host's decision on one embedded resource: the verdict in words, then the receipt's fields.

    Example:
        >>> from custody_lab.protocol.budgets import authorise_embed
        >>> block = {"type": "resource", "resource": {"uri": "crm://x/9", "mimeType": "text/plain", "text": "t"}}
        >>> v = authorise_embed(block, tool="t", provenance="p@1", may_read=lambda uri: False)
        >>> "WITHHELD" in embed_verdict_html(v)
        True
    """
    head = "✓ EMBED ACCEPTED" if verdict.revealed else "✗ EMBED WITHHELD"
    kind: Literal["ok", "error"] = "ok" if verdict.revealed else "error"
    receipt = verdict.receipt
    fields = [
        ("accepted", receipt["accepted"]),
        ("rejection", receipt.get("rejection")),
        ("actor", receipt["custody"]["actor"]),
        ("uri", receipt["custody"]["uri"]),
        ("bytes", receipt["custody"]["bytes"]),
        ("into the content budget", verdict.bytes if verdict.revealed else 0),
    ]
    body = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td>{code(v)}</td></tr>" for k, v in fields)
    return box(
        f"{tone(head, kind, bold=True)} — {untrusted(verdict.explain())}<table style='{FONT}'>{body}</table>",
        kind,
        cls="custody-embed-verdict",
    )


#: The handbook the user selected in the panel's turn (seed 000's first case).
_SELECTED = "kb://handbook/v4"
_EMBED_URI = "export://all"


def budget_ledger(tool_bytes: int, listed_records: int, embed_bytes: int, limits: BudgetLimits | None = None) -> Ledger:
    """The panel's turn: tool definitions, a listing of the lab's resources plus ``listed_records``
    customer records one by one, the selected handbook, then an embedded result.

    Example:
        >>> budget_ledger(239, 0, 8992).hidden()
        ('content',)
    """
    catalog = Catalog.load()
    template = next(t for t in catalog.list_templates()["resourceTemplates"] if t["name"] == "customer")
    records = every_record_listed(template, ({"id": f"c-{i:04d}"} for i in range(1, listed_records + 1)))
    listing = {"resources": catalog.list_resources()["resources"] + records["resources"]}
    ledger = Ledger(limits or BudgetLimits()).log("tool-definitions", "tool definitions", tool_bytes)
    ledger = ledger.log_listing(listing).log_contents(catalog.read(_SELECTED).item, "selected by the user")
    return ledger.log("content", _EMBED_URI, embed_bytes, "embedded by a tool")


def budget_panel(tool_bytes: int = 239, listed_records: int = 0, embed_bytes: int = 8992) -> Any:
    """Sliders over one turn's three budgets; the ledger and what each host lets in follow them.

    Returns an ipywidgets ``VBox`` with ``.sliders`` (a dict: ``tool_bytes``, ``listed_records``,
    ``embed_bytes``), ``.ledger`` (the current :class:`~custody_lab.protocol.budgets.Ledger`) and
    ``.view`` (the ``HTML`` widget that shows it).

    Example:
        >>> panel = budget_panel()
        >>> panel.sliders["listed_records"].value = 200
        >>> panel.ledger.over()
        ('resource-catalog', 'content')
    """
    import ipywidgets as widgets

    from .widgets.controls import StrictIntSlider, fit

    def slider(value: int, high: int, description: str) -> StrictIntSlider:
        return StrictIntSlider(
            value=value,
            min=0,
            max=max(high, value),
            step=1,
            description=description,
            style={"description_width": "initial"},
            layout=fit("460px", min_width="260px"),
        )

    sliders = {
        "tool_bytes": slider(tool_bytes, 30000, "tool-definition bytes"),
        "listed_records": slider(listed_records, 400, "records listed one by one"),
        "embed_bytes": slider(embed_bytes, 20000, "embedded result bytes"),
    }
    view = widgets.HTML()
    panel = widgets.VBox([*(s.row for s in sliders.values()), view])

    def redraw(_change: object = None) -> None:
        ledger = budget_ledger(*(s.value for s in sliders.values()))
        panel.ledger = ledger
        view.value = ledger_html(ledger) + hosts_html(ledger, [_SELECTED, _EMBED_URI])

    for s in sliders.values():
        s.observe(redraw, names="value")
    panel.sliders, panel.view = sliders, view
    redraw()
    return panel
