"""The sample catalog as people see it: entries, resource text and read checks, escaped.

Titles, descriptions and resource text are the server's words (seed 000, "Preserve URI, MIME
type, and provenance"; seed 004, "Trusting resource text"): they are shown escaped, under the
visible "untrusted data" label of :func:`custody_lab.views.html.untrusted_block`, and nothing here
acts on them. The two tables are :class:`~custody_lab.views.table.Table` values (every cell escaped
when rendered as HTML): showing a catalog loads no table library.
"""

from __future__ import annotations

__all__ = [
    "RESOURCE_COLUMNS",
    "TEMPLATE_COLUMNS",
    "determinism_html",
    "entry_html",
    "resources_table",
    "templates_table",
    "untrusted_text_html",
]

from ..protocol.catalog import Catalog, ResourceEntry, TemplateEntry
from ..protocol.determinism import DeterminismReport
from .html import box, code, escape, field_table, pre, small, table, tone, untrusted_block
from .table import Table

RESOURCE_COLUMNS = ("uri", "name", "title", "kind", "mimeType")
TEMPLATE_COLUMNS = ("uriTemplate", "name", "title", "kind", "mimeType", "variables")


def entry_html(entry: ResourceEntry | TemplateEntry) -> str:
    """A catalog entry as HTML: every field escaped, under a visible "untrusted data" label.

    Example:
        >>> html_text = entry_html(ResourceEntry("x://1", "x", title="<b>hi</b>"))
        >>> "&lt;b&gt;hi&lt;/b&gt;" in html_text and "UNTRUSTED DATA" in html_text
        True
    """
    address = ("uri", entry.uri) if isinstance(entry, ResourceEntry) else ("uriTemplate", entry.uri_template)
    rows = [
        address,
        ("name", entry.name),
        ("title", entry.title),
        ("description", entry.description),
        ("mimeType", entry.mime_type),
    ]
    return untrusted_block(field_table(rows))


def untrusted_text_html(text: str, source: str, *, limit: int = 4000) -> str:
    """Resource text as escaped, preformatted data under the "untrusted data" label.

    Text longer than ``limit`` characters is cut, and the block says how much was left out.

    Example:
        >>> "&lt;script&gt;" in untrusted_text_html("<script>x</script>", "tickets://T-501")
        True
    """
    shown = text if len(text) <= limit else text[:limit]
    more = f"<div>{small(f'… {len(text) - limit:,} more characters not shown')}</div>" if len(text) > limit else ""
    return untrusted_block(pre(shown) + more, source=source)


def determinism_html(report: DeterminismReport) -> str:
    """The verdict of :func:`~custody_lab.protocol.determinism.check_deterministic`, with each
    read's digest.

    Example:
        >>> from custody_lab.protocol.determinism import CountingCatalog, check_deterministic
        >>> "NOT DETERMINISTIC" in determinism_html(check_deterministic(CountingCatalog.load().read, "kb://shipping"))
        True
    """
    ok = report.deterministic
    mark = "✓ DETERMINISTIC" if ok else "✗ NOT DETERMINISTIC"
    digests = table((f"read {i}", code(d[:16] + "…")) for i, d in enumerate(report.digests, 1))
    return box(
        f"{tone(mark, 'ok' if ok else 'error', bold=True)} — {escape(report.message)}{digests}",
        "ok" if ok else "error",
        cls="custody-determinism",
    )


def resources_table(catalog: Catalog) -> Table:
    """The listed resources by kind: columns uri, name, title, kind, mimeType.

    Example:
        >>> first = resources_table(Catalog.load()).rows[0]
        >>> first["uri"], first["kind"]
        ('kb://returns-policy', 'text')
    """
    return Table(
        [
            {"uri": e.uri, "name": e.name, "title": e.title, "kind": catalog.kind_of(e), "mimeType": e.mime_type}
            for e in catalog.resources
        ],
        RESOURCE_COLUMNS,
    )


def templates_table(catalog: Catalog) -> Table:
    """The templates: columns uriTemplate, name, title, kind, mimeType, variables.

    Example:
        >>> templates_table(Catalog.load())["variables"][-1]
        'service, day, level'
    """
    return Table(
        [
            {
                "uriTemplate": t.uri_template,
                "name": t.name,
                "title": t.title,
                "kind": catalog.kind_of(t),
                "mimeType": t.mime_type,
                "variables": ", ".join(t.variables),
            }
            for t in catalog.templates
        ],
        TEMPLATE_COLUMNS,
    )
