"""HTML for the lab's panels, as pure functions of core values.

Every string that came from a case, a catalog or a server is passed through :func:`html.escape`
here, so a title like ``<img src=x onerror=alert(1)>`` is shown as text and never runs. Nothing
in this module imports ipywidgets: tests check the HTML directly.
"""

from __future__ import annotations

__all__ = [
    "ACCEPT_STYLE",
    "REJECT_STYLE",
    "diff_html",
    "error_html",
    "outcome_html",
    "receipt_html",
    "trace_html",
    "untrusted_html",
]

import json
from html import escape

from ...core.explain import Change, flip_sentence
from ...core.model import Case, Decision
from ...core.receipts import digest
from ...core.rules import RULES, rule

ACCEPT_STYLE = "background:#e6f4ea;border:2px solid #1e7e34;color:#0b3d17"
REJECT_STYLE = "background:#fdecea;border:2px dashed #b3261e;color:#5c0f0a"
_BOX = "padding:6px 10px;border-radius:6px;margin:2px 0;font-family:sans-serif"


def outcome_html(decision: Decision) -> str:
    """The outcome in words as well as colour: ✓ ACCEPTED · shape, or ✗ REJECTED · code + why."""
    if decision.accepted:
        body = f"<b>✓ ACCEPTED</b> — selected shape <code>{escape(str(decision.selected))}</code>"
        style = ACCEPT_STYLE
    else:
        r = rule(str(decision.rejection))
        body = (
            f"<b>✗ REJECTED</b> — <code>{escape(r.code)}</code>: {escape(r.test)}"
            f"<br><small>source: {escape(r.source)} — “{escape(r.quote)}”</small>"
        )
        style = REJECT_STYLE
    return f'<div class="custody-outcome" style="{style};{_BOX}">{body}</div>'


_MARK = {"passed": "✓ passed", "failed": "✗ FIRED", "not-reached": "· not reached"}


def trace_html(decision: Decision) -> str:
    """Every rule in order, passed / fired / not reached, the one that fired highlighted."""
    rows = []
    for step, r in zip(decision.trace, RULES):
        style = ""
        if step.status == "failed":
            style = ' style="background:#fdecea;font-weight:bold;outline:2px solid #b3261e"'
        elif step.status == "not-reached":
            style = ' style="color:#777"'
        origin = "seed" if r.seed else "lab"
        rows.append(
            f'<tr class="trace-{step.status}"{style}><td>{_MARK[step.status]}</td>'
            f"<td><code>{escape(step.code)}</code></td><td>{escape(step.test)}</td>"
            f"<td><small>{origin}</small></td></tr>"
        )
    head = "<tr><th>result</th><th>rule</th><th>refuses when…</th><th>from</th></tr>"
    return f'<table class="custody-trace" style="font-family:sans-serif;font-size:90%">{head}{"".join(rows)}</table>'


def diff_html(changes: list[Change], baseline: Decision, current: Decision, baseline_id: str) -> str:
    """Which inputs differ from the baseline and whether that flipped the outcome."""
    sentence = escape(flip_sentence(changes, baseline, current))
    flipped = baseline.outcome != current.outcome
    mark = "⇄ FLIPPED" if flipped else "= same outcome"
    return (
        f'<div class="custody-diff" style="font-family:sans-serif">'
        f"<b>vs baseline <code>{escape(baseline_id)}</code>:</b> {mark}<br>{sentence}</div>"
    )


def receipt_html(decision: Decision) -> str:
    """The seed-shaped receipt as readable JSON, with its sha256."""
    text = json.dumps(decision.to_dict(), indent=2, ensure_ascii=False)
    return (
        f'<div class="custody-receipt"><b>Custody receipt</b> '
        f"<small>sha256 <code>{digest(decision.to_dict())}</code></small>"
        f'<pre style="margin:2px 0;font-size:85%">{escape(text)}</pre></div>'
    )


def untrusted_html(case: Case) -> str:
    """The case's own words (title, description) under a visible "untrusted data" label."""
    if case.title is None and case.description is None:
        return (
            '<div class="custody-untrusted" style="color:#555;font-family:sans-serif">'
            "<small>This case has no title or description.</small></div>"
        )
    parts = []
    if case.title is not None:
        parts.append(f"<div><b>title:</b> <span>{escape(case.title)}</span></div>")
    if case.description is not None:
        parts.append(f"<div><b>description:</b> <span>{escape(case.description)}</span></div>")
    return (
        '<div class="custody-untrusted" style="border:2px dotted #8a6d00;padding:6px;'
        "font-family:sans-serif\"><b>⚠ UNTRUSTED DATA</b> — the case's own words, shown as text; "
        "they never change a decision (a label like “approved” proves nothing).<br>"
        f"{''.join(parts)}</div>"
    )


def error_html(message: str) -> str:
    """A plain, escaped error box; the panel keeps its last good state."""
    return (
        f'<div class="custody-error" style="{REJECT_STYLE};{_BOX}"><b>⚠ Not applied:</b> '
        f"{escape(message)}<br><small>The panel still shows the last valid case.</small></div>"
    )
