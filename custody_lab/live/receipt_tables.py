"""Live receipts and a server's listing as HTML tables (every server string escaped).

:func:`receipt_html` shows recorded receipts (outcome, URI, MIME type, bytes, provenance, digest);
:func:`listing_rows` and :func:`listing_html` show what a server lists and what each capability
declares about side effects, by the same rule the receipts use
(:func:`~custody_lab.live.live_receipts.declared_side_effects`).
"""

from __future__ import annotations

__all__ = ["listing_html", "listing_rows", "receipt_html"]

from collections.abc import Iterable
from typing import Any

from ..views.html import rows_html, table
from .live_receipts import declared_side_effects, read_only_hint, wire_fields


def receipt_html(receipts: Iterable[Any]) -> str:
    """An HTML table of live receipts (outcome, URI, MIME, bytes, provenance, digest), escaped."""
    cols = (
        "id",
        "outcome",
        "actor",
        "method",
        "uri",
        "mime",
        "bytes",
        "provenance",
        "sideEffects",
        "delivery",
        "fromCache",
        "contentDigest",
    )
    rows = []
    for r in receipts:
        rec = getattr(r, "receipt", r)
        custody = rec.get("custody", {})
        values = (
            rec.get("id"),
            rec.get("selected") if rec.get("accepted") else rec.get("rejection"),
            custody.get("actor"),
            rec.get("method"),
            custody.get("uri"),
            custody.get("mime"),
            custody.get("bytes"),
            custody.get("provenance"),
            custody.get("sideEffects"),
            rec.get("delivery"),
            (rec.get("cache") or {}).get("fromCache"),
            (rec.get("contentDigest") or "")[:19],
        )
        rows.append(values)
    return table(rows, head=cols)


def listing_rows(recorder: Any) -> list[dict[str, Any]]:
    """The server's listing as plain rows (kind, name, title, description, declared facts).

    Titles and descriptions are the server's words: shown as data, never used to decide.
    """
    rows: list[dict[str, Any]] = []
    for r in recorder.listed.values():
        rows.append(
            {
                "kind": "resource",
                "name": r.uri,
                "title": r.title,
                "description": r.description,
                "mime": r.mime_type,
                "declares": "read-only by protocol contract",
            }
        )
    for t in recorder.templates:
        rows.append(
            {
                "kind": "template",
                "name": t.uri_template,
                "title": t.title,
                "description": t.description,
                "mime": t.mime_type,
                "declares": "read-only by protocol contract",
            }
        )
    for tool in recorder.tools.values():
        wire = wire_fields(tool)
        declared, source = declared_side_effects(wire)
        declares = "no side-effect declaration" if declared is None else f"{source}: {str(declared).lower()}"
        hint = read_only_hint(wire)
        if hint is not None:  # shown as the server's claim; it declares nothing
            declares += f"; claims readOnlyHint: {str(hint).lower()} (a hint)"
        rows.append(
            {
                "kind": "tool",
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "mime": None,
                "declares": declares,
            }
        )
    return rows


def listing_html(recorder: Any) -> str:
    """The listing as an HTML table; every server string is escaped."""
    return rows_html(listing_rows(recorder), ("kind", "name", "title", "description", "mime", "declares"))
