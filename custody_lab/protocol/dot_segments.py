"""Dot-segments: a template value of ``.`` or ``..`` that becomes a whole path segment.

RFC 6570 §3.2.2 percent-encodes ``/`` in a simple expression but never ``.``, which is unreserved,
so ``crm://customer/{id}`` with ``id = ".."`` expands to ``crm://customer/..``. RFC 3986 §5.2.4
removes such dot-segments when a URI is resolved or normalised, so the URI names something other
than the template describes. :func:`dot_segments` finds them and the variables behind them; the
template reader (:mod:`custody_lab.protocol.template_reading`) refuses to read such a URI, as the
lab's host policy.
"""

from __future__ import annotations

__all__ = ["DotSegment", "dot_segments"]

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .uri_templates import Expression, UriTemplate, expand_parts

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986 §3.1


@dataclass(frozen=True)
class DotSegment:
    """A path segment of an expanded URI that is ``.`` or ``..`` (RFC 3986 §3.3), made by values.

    Attributes:
        segment: the segment as the URI writes it (``".."``, or ``"%2E%2E"`` through ``{+var}``).
        variables: the variables behind it: those of the expressions that wrote (part of) it
            whose value holds its text, or all of those expressions' defined variables.
        start: its index in the URI.
    """

    segment: str
    variables: tuple[str, ...]
    start: int


def _path_span(uri: str) -> tuple[int, int]:
    """Where the path of ``uri`` starts and ends (RFC 3986 §3): after ``scheme:`` and a ``//``
    authority, before the ``?`` query or ``#`` fragment."""
    scheme = _SCHEME.match(uri)
    start = scheme.end() if scheme else 0
    ends = [index for index in (uri.find("?", start), uri.find("#", start)) if index >= 0]
    end = min(ends, default=len(uri))
    if uri.startswith("//", start, end):
        slash = uri.find("/", start + 2, end)
        start = end if slash < 0 else slash
    return start, end


def _holds(value: object, segment: str) -> bool:
    """Whether a value (or a member of a list or mapping value) holds ``segment``'s text: the
    variable to blame when an expression of several variables wrote a dot-segment."""
    members = value.values() if isinstance(value, Mapping) else value if isinstance(value, list | tuple) else [value]
    return any(segment in str(member) for member in members)


def dot_segments(template: str | UriTemplate, values: Mapping[str, object]) -> tuple[DotSegment, ...]:
    """The ``.`` and ``..`` path segments that the values write into the expanded URI.

    RFC 3986 §5.2.4 removes dot-segments when a URI is resolved or normalised (``..`` takes the
    segment before it along), so such a URI names something other than what the template
    describes. ``%2E`` counts as ``.`` (§2.3: an encoded unreserved character is the same
    character). A dot-segment written by the template's own text is not reported: only values
    are untrusted here. Raises as :func:`~custody_lab.uri_templates.expand` does.

    Example:
        >>> dot_segments("crm://customer/{id}", {"id": ".."})
        (DotSegment(segment='..', variables=('id',), start=15),)
        >>> dot_segments("crm://customer/{id}", {"id": "../.."})  # "/" is encoded: one segment
        ()
        >>> dot_segments("crm://customer/{id}.json", {"id": ".."})  # "....json" is no dot-segment
        ()
    """
    pieces = expand_parts(template, values)
    uri = "".join(text for _, text in pieces)
    spans: list[tuple[int, int, Expression]] = []
    offset = 0
    for part, text in pieces:
        if isinstance(part, Expression) and text:
            spans.append((offset, offset + len(text), part))
        offset += len(text)
    path_start, path_end = _path_span(uri)
    found = []
    start = path_start
    for segment in uri[path_start:path_end].split("/"):
        end = start + len(segment)
        if segment.upper().replace("%2E", ".") in (".", ".."):
            names = [
                spec.name
                for first, last, expression in spans
                if first < end and last > start
                for spec in expression.varspecs
                if values.get(spec.name) is not None
            ]
            if names:
                holders = [name for name in names if _holds(values.get(name), segment)]
                found.append(DotSegment(segment, tuple(dict.fromkeys(holders or names)), start))
        start = end + 1
    return tuple(found)
