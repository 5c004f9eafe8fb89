"""The template reader's steps as HTML: variables, template errors, the preview, the read.

Every string that came from a user, a catalog entry or a server is escaped (seed 000, "Preserve
URI, MIME type, and provenance": titles, descriptions and resource text are data); the logic of
each step is in :mod:`custody_lab.protocol.template_reading`.
"""

from __future__ import annotations

__all__ = ["outcome_html", "preview_html", "problem_html", "variables_html"]

import json
from collections.abc import Sequence

from ..protocol.blobs import hex_preview
from ..protocol.catalog import ReadResult
from ..protocol.template_reading import Preview, ReadOutcome, TemplateProblem, TemplateVariable
from .catalog_html import untrusted_text_html
from .html import FONT, Markup, box, code, escape, field_table, pre, small, table, tone, untrusted


def variables_html(variables: Sequence[TemplateVariable]) -> str:
    """The variables as a small table: name, role, required or optional, and a warning for ``+``/``#``.

    Example:
        >>> from custody_lab.protocol.template_reading import template_variables
        >>> "optional" in variables_html(template_variables("logs://{service}{?level}"))
        True
    """
    rows = []
    for v in variables:
        ops = ", ".join("{" + op + v.name + "}" for op in v.operators)
        note = ""
        if v.reserved:
            note = (
                "⚠ reserved expansion: '/', '?' and '#' in the value pass through unencoded, "
                "so the value can leave its segment; never fill it from untrusted input"
            )
        elif v.explode:
            note = "exploded: type a comma-separated list; each member becomes its own piece"
        rows.append(
            (code(v.name), v.role, "required" if v.required else "optional", code(ops), Markup(small(escape(note))))
        )
    head = ("variable", "role", "needed", "used as", "")
    return table(rows, head=head, cls="custody-variables", style=FONT)


def problem_html(problem: TemplateProblem) -> str:
    """A template error: the reason, and the template with a caret under the offending character.

    Example:
        >>> from custody_lab.protocol.template_reading import parse_error, template_problem
        >>> page = problem_html(template_problem(parse_error("x://<b>{a}")))
        >>> "<b>" not in page.replace("<b>⚠", "") and "&lt;b&gt;" in page
        True
    """
    return box(
        f"<b>⚠ This template is not valid</b> ({escape(problem.error_type)}): {untrusted(str(problem))}"
        + pre(problem.caret(), wrap=False)
        + small("Nothing is read until the template is fixed; the inputs keep their values."),
        "error",
        cls="custody-error custody-template-error",
    )


def preview_html(current: Preview) -> str:
    """The expanded URI (escaped), what each variable became, and whether it can be read.

    Example:
        >>> from custody_lab.protocol.template_reading import preview
        >>> "orders://A-1002" in preview_html(preview("orders://{order_id}", {"order_id": "A-1002"}))
        True
    """
    if current.problem is not None:
        return problem_html(current.problem)
    parts = []
    for v in current.variables:
        value = current.values.get(v.name)
        shown = "<i>undefined (skipped)</i>" if value is None else code(repr(value))
        parts.append(f"{code(v.name)} = {shown}")
    state = (
        tone("✓ ready to read", "ok")
        if current.ready
        else f"{tone('✗ not ready', 'error')} — {untrusted(current.message)}"
    )
    return box(
        f"<div><b>URI:</b> {code(current.uri or '')}</div>"
        f"<div>{small(' · '.join(parts) or 'no variables')}</div>"
        f"<div>{small(state)}</div>",
        cls="custody-preview",
    )


def _facts_html(result: ReadResult) -> str:
    rows = [
        ("uri", result.uri),
        ("template", result.template.uri_template if result.template else "(a listed resource)"),
        ("parameters", json.dumps(result.params, ensure_ascii=False) if result.params else "—"),
        ("mimeType", result.mime_type or "(none)"),
        ("carried as", result.transport),
        ("size", f"{result.size:,} bytes"),
        ("sha256", result.sha256[:16] + "…"),
    ]
    return field_table(((k, code(v)) for k, v in rows), cls="custody-read-facts")


def outcome_html(outcome: ReadOutcome) -> str:
    """The result of **Read**: the contents (escaped text, or a note that an image is drawn below,
    or a hex preview), or the JSON-RPC error -32602 with the URI, or why nothing was read.

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> from custody_lab.protocol.template_reading import read_template
        >>> page = outcome_html(read_template(Catalog.load(), "orders://{order_id}", {"order_id": "A-9999"}))
        >>> "-32602" in page and "Resource not found" in page and "orders://A-9999" in page
        True
    """
    if outcome.status == "not-ready":
        return box(f"<b>Nothing was read.</b> {untrusted(outcome.message)}", "note", cls="custody-not-ready")
    if outcome.status == "not-found":
        error = json.dumps(outcome.error_object, indent=2, ensure_ascii=False)
        reason = outcome.error.reason if outcome.error is not None else ""
        return box(
            f"<b>✗ Error -32602 · Resource not found</b> for {code(outcome.uri or '')}"
            + pre(error, wrap=False)
            + small(f"why: {untrusted(reason)}. A missing record is an error, never an empty answer."),
            "error",
            cls="custody-error custody-not-found",
        )
    result = outcome.result
    assert result is not None  # status "read"
    head = box(f"<b>✓ Read</b> {code(result.uri)}{_facts_html(result)}", "ok", cls="custody-read")
    if result.text is not None:
        return head + untrusted_text_html(result.text, result.uri)
    if outcome.image is not None:
        note = f"An image ({untrusted(outcome.image[1])}, {result.size:,} bytes): drawn below as a picture."
        return head + box(small(note))
    return head + box("<b>hex preview</b>" + pre(hex_preview(result.data, 128), wrap=False))
