"""HTML for the case explorer's panes, as pure functions of core values.

Every piece is built from :mod:`custody_lab.views.html`, so every string that came from a case, a
catalog or a server is escaped there, and a title like ``<img src=x onerror=alert(1)>`` is shown as
text and never runs. How an outcome looks (its label and colour) comes from the rule table
(:func:`custody_lab.core.rules.outcome_look`). Nothing here imports ipywidgets: tests check the HTML
directly.
"""

from __future__ import annotations

__all__ = [
    "diff_html",
    "error_html",
    "caption_html",
    "look_badge",
    "matrix_text_html",
    "outcome_html",
    "policy_changes",
    "receipt_html",
    "trace_html",
    "untrusted_html",
]

import json
from collections.abc import Mapping, Sequence

from ...core.explain import Change, flip_sentence
from ...core.model import Case, Decision, Policy
from ...core.receipts import digest
from ...core.rules import outcome_look, rule
from ..html import (
    FONT,
    NOWRAP,
    ROW_STYLES,
    box,
    code,
    escape,
    pre,
    rows_html,
    scroll,
    small,
    untrusted,
    untrusted_block,
)


def look_badge(outcome: str) -> str:
    """The outcome's label on its colour, as the sweep plots and legends show it.

    Example:
        >>> badge = look_badge("embed-over-budget")
        >>> "background:#b0b0b0" in badge and badge.endswith(">over budget</span>")
        True
    """
    look = outcome_look(outcome)
    style = f"background:{look.color};color:#111111;padding:0 5px;border-radius:3px"
    return f'<span class="custody-look" style="{style}">{escape(look.label)}</span>'


def outcome_html(decision: Decision) -> str:
    """The outcome in words as well as colour: ✓ ACCEPTED · shape, or ✗ REJECTED · code + why.

    Example:
        >>> from custody_lab import load_fixture, route
        >>> "✗ REJECTED" in outcome_html(route(load_fixture().case("oversize-embed")))
        True
    """
    badge = look_badge(decision.outcome)
    if decision.accepted:
        body = f"<b>✓ ACCEPTED</b> — selected shape {code(decision.selected)} {badge}"
        return box(body, "ok", cls="custody-outcome")
    r = rule(str(decision.rejection))
    body = (
        f"<b>✗ REJECTED</b> — {code(r.code)} {badge}: {escape(r.test)}"
        f"<br>{small(f'source: {escape(r.source)} — “{escape(r.quote)}”')}"
    )
    return box(body, "error", cls="custody-outcome")


_MARK = {"passed": "✓ passed", "failed": "✗ FIRED", "not-reached": "· not reached"}
_STEP_STYLE = {
    "passed": "",
    "failed": f' style="{ROW_STYLES["error"]}"',
    "not-reached": f' style="{ROW_STYLES["muted"]}"',
}


def trace_html(decision: Decision) -> str:
    """Every step of the trace in order, passed / fired / not reached, the one that fired highlighted.

    Each step names its rule by code and is looked up by that code, so a trace walked over another
    order of the table (live mode's ``LIVE_RULES``) renders as faithfully as the router's.

    Example:
        >>> from custody_lab import load_fixture, route
        >>> trace_html(route(load_fixture().case("oversize-embed"))).count('class="trace-failed"')
        1
    """
    rows = []
    for step in decision.trace:
        origin = "seed" if rule(step.code).seed else "lab"
        rows.append(
            f'<tr class="trace-{step.status}"{_STEP_STYLE[step.status]}><td style="{NOWRAP}">'
            f"{_MARK[step.status]}</td><td>{code(step.code)}</td><td>{escape(step.test)}</td>"
            f"<td>{small(origin)}</td></tr>"
        )
    head = "<tr><th>result</th><th>rule</th><th>refuses when…</th><th>from</th></tr>"
    # the rule's whole test is shown and wraps; a table still too wide scrolls inside its own box
    return scroll(f'<table class="custody-trace" style="{FONT};font-size:90%">{head}{"".join(rows)}</table>')


#: The policy's fields as the diff line names them, with the value each shows.
_POLICY_FIELDS = (
    ("embed limit", "embed_limit_bytes"),
    ("requireCurrent (policy)", "require_current"),
    ("now (policy)", "now"),
)


def policy_changes(before: Policy, after: Policy) -> list[Change]:
    """The policy settings that differ, as :class:`Change` values the diff line names.

    Example:
        >>> [str(c) for c in policy_changes(Policy(), Policy(embed_limit_bytes=10240))]
        ['embed limit 4096 → 10240']
        >>> policy_changes(Policy(), Policy())
        []
    """
    return [
        Change(name, getattr(before, attr), getattr(after, attr))
        for name, attr in _POLICY_FIELDS
        if getattr(before, attr) != getattr(after, attr)
    ]


def diff_html(changes: list[Change], baseline: Decision, current: Decision, baseline_id: str) -> str:
    """Which inputs differ from the baseline and whether that flipped the outcome."""
    sentence = untrusted(flip_sentence(changes, baseline, current))
    mark = "⇄ FLIPPED" if baseline.outcome != current.outcome else "= same outcome"
    return box(f"<b>vs baseline {code(baseline_id)}:</b> {mark}<br>{sentence}", cls="custody-diff")


def receipt_html(decision: Decision) -> str:
    """The seed-shaped receipt as readable JSON, with its sha256."""
    text = json.dumps(decision.to_dict(), indent=2, ensure_ascii=False)
    return box(
        f"<b>Custody receipt</b> {small(f'sha256 {code(digest(decision.to_dict()))}')}" + scroll(pre(text, wrap=False)),
        cls="custody-receipt",
    )


_CASE_LABEL = (
    "<b>⚠ UNTRUSTED DATA</b> — the case's own words, shown as text; "
    "they never change a decision (a label like “approved” proves nothing).<br>"
)


def untrusted_html(case: Case) -> str:
    """The case's own words (title, description) under a visible "untrusted data" label."""
    if case.title is None and case.description is None:
        return box(small("This case has no title or description."), "muted", cls="custody-untrusted")
    parts = [
        f"<div><b>{name}:</b> <span>{untrusted(value)}</span></div>"
        for name, value in (("title", case.title), ("description", case.description))
        if value is not None
    ]
    return untrusted_block("".join(parts), label=_CASE_LABEL)


def error_html(message: str) -> str:
    """A plain, escaped error box; the panel keeps its last good state."""
    return box(
        f"<b>⚠ Not applied:</b> {untrusted(message)}<br>{small('The panel still shows the last valid case.')}",
        "error",
        cls="custody-error",
    )


def matrix_text_html(alt: str, rows: Sequence[Mapping[str, object]]) -> str:
    """The custody matrix in words: its alt text, then every case as a row (the explored case first)."""
    return scroll(f"<p>{escape(alt)}</p>" + rows_html(rows))


def caption_html(text: str) -> str:
    """A chart's words under the chart: its alternative text, escaped, in small type."""
    return small(escape(text))
