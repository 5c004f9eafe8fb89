"""The host lens, shown: one column per host profile — the exact text that reaches the model (bytes
and ≈ tokens), the log the host writes, the budgets it charges, and each host rule kept or broken
(a broken one highlighted, with the seed's sentence).

The readings come from :mod:`custody_lab.protocol.host_lens`; this module only renders them with the
one HTML module. The model's text and the log hold server-written text: both are shown through
:func:`~custody_lab.views.html.pre` (controls made visible, then escaped), never as markup.
"""

from __future__ import annotations

__all__ = [
    "LENS_CLASS",
    "column_html",
    "differences_html",
    "lens_html",
]

import json
from collections.abc import Sequence

from ..core.rules import HOST_RULES
from ..protocol.budgets import BUDGETS
from ..protocol.host_lens import HostReading, differences
from .html import FONT, Kind, box, code, escape, pre, table, tone, untrusted

#: The class of the lens's grid (tests and the browser find it by this).
LENS_CLASS = "custody-host-lens"

#: A column is at least this wide; narrower output areas stack the columns.
_COLUMN = "flex:1 1 280px;min-width:min(280px,100%);max-width:100%;box-sizing:border-box"
#: The model's text and the log scroll inside their own box (nothing is cut from the page).
_TEXT = "max-height:14em;overflow:auto;overflow-wrap:anywhere;border:1px solid #999;border-radius:4px;padding:0 6px"


def _choices(reading: HostReading) -> str:
    p = reading.profile
    rows = [
        ("content", p.content),
        ("links", p.links),
        ("audience user", p.user_blocks),
        ("embeds", p.embeds),
        ("over budget", p.over_budget),
        ("logs", p.logs),
    ]
    return table(rows, cls="custody-host-choices", style=f"{FONT};font-size:90%")


def _rules(reading: HostReading) -> str:
    items = []
    for r in HOST_RULES:
        if r.code in reading.broken:
            head = tone(f"✗ breaks {r.code}", "error", bold=True)
            items.append(
                f'<li class="custody-rule-broken">{head}: {escape(r.test)}<br>'
                f"<small>{escape(r.source)}: “{escape(r.quote)}”</small></li>"
            )
        else:
            items.append(f'<li class="custody-rule-kept">{tone(f"✓ keeps {r.code}", "ok")}</li>')
    return f'<ul style="margin:4px 0;padding-left:1.2em">{"".join(items)}</ul>'


def _budgets(reading: HostReading) -> str:
    rows: list[tuple[object, ...]] = [(b, f"{reading.ledger.used(b):,}") for b in BUDGETS]
    logged = "each on its own line" if reading.profile.logs == "per-budget" else "one number only"
    return table(rows, head=["budget charged", "bytes"], style=f"{FONT};font-size:90%") + (
        f"<small>the host's log gives them: {escape(logged)}</small>"
    )


def column_html(reading: HostReading) -> str:
    """One profile's column: its choices, what reaches the model, its log, budgets and rules."""
    p = reading.profile
    kind: Kind = "error" if reading.broken else "ok"
    verdict = (
        tone(f"✗ breaks {len(reading.broken)} custody rule(s)", "error", bold=True)
        if reading.broken
        else tone("✓ keeps every host rule", "ok", bold=True)
    )
    text = reading.model_text
    shown = pre(text) if text else "<i>(nothing reaches the model)</i>"
    log = pre(json.dumps(reading.log, indent=1, ensure_ascii=False))
    body = (
        f"<b>{escape(p.label)}</b> {code(p.id)}<br><small>{escape(p.basis)}</small>"
        f"{_choices(reading)}<div>{verdict}</div>"
        f'<div class="custody-host-size"><b>reaches the model:</b> {reading.model_bytes:,} bytes · '
        f"≈ {reading.tokens:,} tokens</div>"
        f'<div class="custody-host-text" style="{_TEXT}">{shown}</div>'
        f'<div><b>the host\'s log:</b></div><div class="custody-host-log" style="{_TEXT}">{log}</div>'
        f"{_budgets(reading)}{_rules(reading)}"
    )
    return box(body, kind, cls=f"custody-host-column custody-host-{escape(p.id)}", style=_COLUMN)


def differences_html(readings: Sequence[HostReading]) -> str:
    """One sentence: do the profiles put the same text into the model's context, or which differ?"""
    groups = differences(readings)
    if len(groups) <= 1:
        return box("Every profile puts the same text into the model's context.", "info", cls="custody-host-same")
    listed = "; ".join(" = ".join(untrusted(i) for i in g) for g in groups)
    return box(
        f"<b>{len(groups)} different texts reach the model</b> from this one result: {listed}. "
        "The server cannot know which one its user's host sends.",
        "note",
        cls="custody-host-differ",
    )


def lens_html(readings: Sequence[HostReading]) -> str:
    """The profiles side by side (columns wrap on a narrow page), with the differences sentence first.

    Example:
        >>> from custody_lab.protocol.host_lens import lens, sample_result
        >>> html = lens_html(lens(sample_result("text", 20)))
        >>> html.count("custody-host-column "), "Every profile" in html
        (4, True)
    """
    columns = "".join(column_html(r) for r in readings)
    grid = f'<div class="{LENS_CLASS}" style="display:flex;flex-wrap:wrap;gap:8px;max-width:100%">{columns}</div>'
    return differences_html(readings) + grid
