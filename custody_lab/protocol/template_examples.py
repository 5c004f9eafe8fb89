"""Notebook 03's tables: the operator examples, what listing every record costs, two engines side by side.

:func:`operator_examples` is the RFC 6570 expansion table, computed by the lab's engine;
:func:`listing_cost` puts a size on listing a million records instead of publishing one template
(seed 000, "Separate listed resources from URI templates"); :func:`compare_engines` runs the lab's
engine and another implementation, such as the MCP SDK's ``mcp.shared.uri_template.UriTemplate``,
side by side. This module never imports ``mcp``: the caller passes the other engine's ``parse`` in.
"""

from __future__ import annotations

__all__ = [
    "EXAMPLE_VALUES",
    "TRICKY_CASES",
    "ListingCost",
    "compare_engines",
    "describe_error",
    "listing_cost",
    "operator_examples",
]

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .catalog import TemplateEntry
from .uri_templates import UriTemplateError, expand, parse

#: The values the operator table expands (lab data: an order, a log day, a folder path...).
EXAMPLE_VALUES: dict[str, object] = {
    "order_id": "A-1002",
    "name": "returns policy/v2",
    "segments": ["guides", "returns"],
    "day": "2026-09-04",
    "level": None,
    "limit": 50,
    "empty": "",
    "filter": {"status": "shipped", "tier": "plus"},
}

#: (operator as written, what it is, RFC 6570 section, template) for the table.
_EXAMPLES: tuple[tuple[str, str, str, str], ...] = (
    ("{var}", "simple", "§3.2.2", "orders://{order_id}"),
    ("{var}", "simple", "§3.2.2", "kb://{name}"),
    ("{+var}", "reserved", "§3.2.3", "kb://{+name}"),
    ("{#var}", "fragment", "§3.2.4", "kb://handbook/v4{#name}"),
    ("{.var}", "label", "§3.2.5", "files://report{.day}"),
    ("{/var}", "path segment", "§3.2.6", "files://docs{/segments}"),
    ("{/var*}", "path segments, exploded", "§3.2.6", "files://docs{/segments*}"),
    ("{;var}", "path-style parameter", "§3.2.7", "logs://api{;day,level,empty}"),
    ("{?var}", "form-style query", "§3.2.8", "logs://api/2026-09-04{?level,limit}"),
    ("{?var}", "form-style query", "§3.2.8", "logs://api/2026-09-04{?empty}"),
    ("{&var}", "query continuation", "§3.2.9", "logs://api/2026-09-04?page=2{&limit}"),
    ("{var:n}", "prefix", "§2.4.1", "orders://{order_id:1}"),
    ("{?var*}", "query, exploded map", "§2.4.2", "search://orders{?filter*}"),
    ("{?var}", "query, map not exploded", "§2.4.2", "search://orders{?filter}"),
)


def operator_examples(values: Mapping[str, object] | None = None) -> list[dict[str, str]]:
    """One row per example: the operator, its name, the RFC section, the template and its
    expansion, computed by :func:`custody_lab.uri_templates.expand` with :data:`EXAMPLE_VALUES`.

    Example:
        >>> rows = operator_examples()
        >>> rows[1]["template"], rows[1]["expands to"]
        ('kb://{name}', 'kb://returns%20policy%2Fv2')
    """
    used = EXAMPLE_VALUES if values is None else values
    return [
        {"operator": op, "kind": kind, "RFC 6570": section, "template": template, "expands to": expand(template, used)}
        for op, kind, section, template in _EXAMPLES
    ]


@dataclass(frozen=True)
class ListingCost:
    """What listing every record costs, against publishing one template.

    Attributes:
        count: how many records would be listed.
        item: one ``resources/list`` item as a record would appear.
        item_bytes: its compact JSON size.
        listing_bytes: ``count * item_bytes`` (every item is about that size).
        template_bytes: the compact JSON size of the ``resources/templates/list`` item.
    """

    count: int
    item: dict[str, str]
    item_bytes: int
    listing_bytes: int
    template_bytes: int

    @property
    def ratio(self) -> float:
        """How many times larger the listing is than the template."""
        return self.listing_bytes / self.template_bytes


def _compact(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def listing_cost(entry: TemplateEntry, sample: Mapping[str, object], count: int = 1_000_000) -> ListingCost:
    """Estimate the size of a ``resources/list`` answer naming ``count`` records one by one.

    Seed 000 ("Separate listed resources from URI templates"): avoid listing millions of instances
    merely because pagination allows it; a template describes the whole family in one entry.

    Example:
        >>> from custody_lab.protocol.catalog import Catalog
        >>> entry = Catalog.load().template("orders://{order_id}")
        >>> cost = listing_cost(entry, {"order_id": "A-1002"})
        >>> cost.item["uri"], cost.listing_bytes > 50_000_000
        ('orders://A-1002', True)
    """
    uri = expand(entry.uri_template, sample)
    item = {"uri": uri, "name": f"{entry.name} {uri.rsplit('/', 1)[-1]}"}
    if entry.mime_type is not None:
        item["mimeType"] = entry.mime_type
    size = _compact(item)
    return ListingCost(count, item, size, count * size, _compact(entry.to_dict()))


def describe_error(error: BaseException, limit: int = 120) -> str:
    """An exception as a short table cell: ``raises Name at N: reason`` (never the whole template).

    Example:
        >>> from custody_lab.protocol.template_reading import parse_error
        >>> describe_error(parse_error("orders://{order-id}"))
        "raises UriTemplateError at 15: expected ',', ':', '*' or '}' after variable 'order', found '-'"
    """
    position = getattr(error, "position", None)
    template = getattr(error, "template", None)
    message = error.reason if isinstance(error, UriTemplateError) else str(error)
    for tail in (f" in URI template {template!r}", f" at position {position}"):  # another engine's error
        if template is not None and message.endswith(tail):
            message = message[: -len(tail)]
    where = "" if not isinstance(position, int) else f" at {position}"
    text = f"raises {type(error).__name__}{where}: {message}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(call: Callable[[], object], limit: int = 80) -> str:
    """Run one engine call; its value as ``repr``, or the exception as a table cell.

    Only ``ValueError`` (template errors in both engines) and ``TypeError`` (values an engine does
    not accept) are shown as cells; anything else is a bug and propagates.
    """
    try:
        return repr(call())
    except (ValueError, TypeError) as error:
        return describe_error(error, limit)


#: Templates where engines part ways, as ``(template, values, uri to match)``; notebook 03 runs the
#: lab's engine and the MCP SDK's on them with :func:`compare_engines`.
TRICKY_CASES: tuple[tuple[str, dict[str, object], str], ...] = (
    # both agree: a slash in a simple value is encoded, and decoded back
    ("orders://{order_id}", {"order_id": "A/1"}, "orders://A%2F1"),
    # '.' can be inside {name} and starts {.ext}: the SDK picks the last dot, the lab refuses
    ("files://{name}{.ext}", {"name": "report", "ext": "tar.gz"}, "files://report.tar.gz"),
    # extra or reordered query parameters: the SDK ignores them, the lab matches strictly
    ("logs://{service}{?level}", {"service": "api", "level": "error"}, "logs://api?utm=x&level=error"),
    # a reserved value holding '?': the lab reads it back, the SDK stops the path at '?'
    ("docs://{+path}", {"path": "a/b?x=1"}, "docs://a/b?x=1"),
    # level 4 features the SDK does not parse: a prefix, an exploded query
    ("orders://{order_id:4}", {"order_id": "A-1002"}, "orders://A-10"),
    ("search://{?tags*}", {"tags": ["red", "blue"]}, "search://?tags=red&tags=blue"),
    # a space in literal text: the RFC grammar forbids it; the SDK accepts it
    ("kb://my docs/{id}", {"id": "a"}, "kb://my docs/a"),
    # a '-' in a variable name: both refuse, and point at different places
    ("orders://{order-id}", {"order-id": "A"}, "orders://A"),
)


def compare_engines(
    cases: Iterable[tuple[str, Mapping[str, object], str]],
    other_parse: Callable[[str], Any],
    other_name: str = "SDK",
) -> list[dict[str, str]]:
    """Run the lab's engine and another one side by side on ``(template, values, uri)`` cases.

    ``other_parse(template)`` must return an object with ``expand(values)`` and ``match(uri)``
    (as the MCP SDK's ``mcp.shared.uri_template.UriTemplate.parse`` does). An exception in either
    engine becomes a table cell (``raises InvalidUriTemplate: ...``), never a crash.

    Returns:
        One row per case: template, values, "lab: expand", "<other>: expand", uri,
        "lab: match", "<other>: match".

    Example:
        >>> rows = compare_engines([("orders://{order_id}", {"order_id": "A-1"}, "orders://A-1")], parse)
        >>> rows[0]["lab: match"], rows[0]["SDK: match"]
        ("{'order_id': 'A-1'}", "{'order_id': 'A-1'}")
    """
    return [_side_by_side(template, values, uri, other_parse, other_name) for template, values, uri in cases]


def _side_by_side(
    template: str, values: Mapping[str, object], uri: str, other_parse: Callable[[str], Any], other_name: str
) -> dict[str, str]:
    return {
        "template": template,
        "values": repr(dict(values)),
        "lab: expand": _cell(lambda: expand(template, values)),
        f"{other_name}: expand": _cell(lambda: other_parse(template).expand(values)),
        "uri": uri,
        "lab: match": _cell(lambda: parse(template).match(uri)),
        f"{other_name}: match": _cell(lambda: other_parse(template).match(uri)),
    }
