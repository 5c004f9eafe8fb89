"""Kinds of resources as seed 004 names them, and what a host may cache and must state for each.

Seed 004 ("Kinds of Resources") names four: **static files** (a README, a policy, ``kb://...``),
**records** (one row or document, usually through a template such as ``orders://{order_id}``),
**logs** (``logs://api/today``: they change over time, and a read should say which time range it
covers) and **schemas** (the shape of a database or an API; read-only and rarely changed). The lab
adds a fifth, the **live document** of seed 000 (``status://service/current``, read by
subscription), because its content moves while its URI stays.

The kind is not the text/image/data view of :func:`~custody_lab.protocol.catalog.kind_of_mime`:
that one says how to *show* content, this one says what a copy of it is worth.

What MCP says (revision 2026-07-28): a resource is identified by a URI and described by ``name``,
``title``, ``description``, ``mimeType``, ``size`` and ``annotations`` (``lastModified`` among
them, a hint); templates are listed by ``resources/templates/list``; a subscriber is told that a
resource changed by ``notifications/resources/updated``; a read result may carry ``ttlMs``. The
protocol names no kinds and has no field for a log's period. So everything else here is **the
lab's host policy**:

* :func:`classify` decides a kind from structure only, in this order: reached through (or listed
  as an alias of) a log template; read by subscription in the host's own case file (the fixture's
  ``read-subscribed`` cases); reached through a template; a schema MIME type; else a static file.
  Titles and descriptions are server-written text and never decide (seed 004, "Trusting resource
  text");
* :func:`describe` reads the resource and reports what the read states (a log's period, a
  record's template values, the digest) and what it fails to state;
* a copy may be served again without re-reading only when the content is pinned: a version or a
  date in the URI of a static file or schema (seed 004, "Immutability Where You Can"), or a log
  whose stated period ended before the lab's clock. Records and live documents are re-read.

Standard library only.
"""

from __future__ import annotations

__all__ = [
    "KINDS",
    "SCHEMA_MIMES",
    "KindName",
    "KindReport",
    "Period",
    "ResourceKind",
    "classify",
    "describe",
    "kind",
    "kinds_table",
    "log_period",
    "pinned_in_uri",
]

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from ..core.loading import load_fixture
from ..core.model import Policy
from .catalog import Catalog, ResourceEntry, ResourceNotFound, TemplateEntry
from .mime import essence

KindName = Literal["static-file", "record", "log", "schema", "live-document"]

#: MIME types the lab treats as a schema: SQL DDL and JSON Schema.
SCHEMA_MIMES: frozenset[str] = frozenset({"application/sql", "application/schema+json"})


@dataclass(frozen=True)
class ResourceKind:
    """One kind, with what the lab's host policy does about it.

    Attributes:
        name: the kind's id (``"log"``).
        label: its name in words (``"Log"``).
        in_seed_004: whether seed 004 names it (the live document is the lab's addition).
        may_cache: what a copy may be used for, the lab's host policy.
        must_state: what a read of this kind must say, the lab's host policy.
        mcp: what MCP 2026-07-28 offers toward it.
    """

    name: KindName
    label: str
    in_seed_004: bool
    may_cache: str
    must_state: str
    mcp: str


KINDS: tuple[ResourceKind, ...] = (
    ResourceKind(
        "static-file", "Static file", True,
        "a copy keyed by URI and sha256; served again without a re-read only when the URI pins a "
        "version or a date (kb://handbook/v4), otherwise re-read and compare the sha256",
        "the URI and the sha256 of the bytes read",
        "a listed resource (resources/list); annotations.lastModified is a hint, not a promise",
    ),
    ResourceKind(
        "record", "Record", True,
        "no copy is served again: re-read before acting on it (an order's status changes)",
        "the template and the values it matched, beside the sha256",
        "a resource template (resources/templates/list) filled in by the client",
    ),
    ResourceKind(
        "log", "Log", True,
        "a closed period (a day that is over) may be kept; an open one is still being written",
        "the period the read covers, from and to",
        "no field for a period: the server must say it in the content",
    ),
    ResourceKind(
        "schema", "Schema", True,
        "kept until the schema changes: re-read and compare the sha256, unless the URI pins a version",
        "the URI and the sha256, so a changed schema is noticed",
        "a listed resource like any other (the spec's own example of a resource)",
    ),
    ResourceKind(
        "live-document", "Live document", False,
        "never served from a copy when current content is required (the stale-content rule)",
        "when it was read (retrievedAt)",
        "notifications/resources/updated after a subscription; a read's ttlMs is a hint",
    ),
)  # fmt: skip
_BY_NAME: dict[str, ResourceKind] = {k.name: k for k in KINDS}


def kind(name: str) -> ResourceKind:
    """The kind called ``name``.

    Raises:
        KeyError: no kind has that name (the message lists them).

    Example:
        >>> kind("log").must_state
        'the period the read covers, from and to'
    """
    if name not in _BY_NAME:
        raise KeyError(f"no resource kind {name!r}; the kinds are: {', '.join(_BY_NAME)}")
    return _BY_NAME[name]


def _subscribed_uris() -> frozenset[str]:
    """The URIs the host's own case file reads by subscription (seed 000's live status)."""
    return frozenset(c.uri for c in load_fixture().cases if c.operation == "read-subscribed" and c.uri)


def _is_log(catalog: Catalog, found: ResourceEntry | TemplateEntry) -> bool:
    if isinstance(found, ResourceEntry) and found.alias is not None:
        matched = catalog.match(found.alias)
        return matched is not None and matched[0].reader == "log-lines"
    return isinstance(found, TemplateEntry) and found.reader == "log-lines"


def classify(catalog: Catalog, uri: str, *, moving: Collection[str] | None = None) -> KindName:
    """The kind of the resource at ``uri`` (rules in the module docstring; reads nothing).

    Args:
        catalog: the server's catalog.
        uri: a listed URI or one a template matches.
        moving: URIs the host knows to move; by default those its case file reads by subscription.

    Raises:
        ResourceNotFound: nothing is registered under ``uri``.

    Example:
        >>> c = Catalog.load()
        >>> [classify(c, u) for u in ("kb://shipping", "orders://A-1002", "logs://api/today", "db://shop/schema")]
        ['static-file', 'record', 'log', 'schema']
        >>> classify(c, "status://service/current")
        'live-document'
    """
    found = catalog.resolve(uri)
    if found is None:
        raise ResourceNotFound(uri)
    if _is_log(catalog, found):
        return "log"
    if uri in (_subscribed_uris() if moving is None else moving):
        return "live-document"
    if isinstance(found, TemplateEntry):
        return "record"
    if essence(found.mime_type) in SCHEMA_MIMES:
        return "schema"
    return "static-file"


@dataclass(frozen=True)
class Period:
    """The time range a log read says it covers (ISO 8601, UTC)."""

    start: str
    end: str


_PERIOD = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) to (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")


def log_period(text: str | None) -> Period | None:
    """The period a log read states in its first line (``... <from> to <to> ...``), or ``None``.

    Example:
        >>> log_period("# logs://api/today: service api, 2026-09-04T00:00:00Z to 2026-09-04T23:59:59Z\\n")
        Period(start='2026-09-04T00:00:00Z', end='2026-09-04T23:59:59Z')
        >>> log_period("2026-09-04T00:00:01Z INFO log rotated\\n") is None
        True
    """
    first = (text or "").split("\n", 1)[0]
    found = _PERIOD.search(first) if first.startswith("#") else None
    return Period(found.group(1), found.group(2)) if found else None


_PIN = re.compile(r"^(v\d+(\.\d+)*|\d{4}-\d{2}(-\d{2})?)$")


def pinned_in_uri(uri: str) -> bool:
    """Whether a path segment of ``uri`` is a version (``v4``, ``v4.1``) or a date (``2026-09``,
    ``2026-09-03``): seed 004's way of saying "this URI always means the same content".

    Example:
        >>> pinned_in_uri("kb://handbook/v4"), pinned_in_uri("invoices://2026-09"), pinned_in_uri("kb://shipping")
        (True, True, False)
    """
    rest = uri.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    return any(_PIN.match(segment) for segment in rest.split("/"))


@dataclass(frozen=True)
class KindReport:
    """What :func:`describe` found for one URI.

    Attributes:
        uri: the URI read.
        kind: its :class:`ResourceKind`.
        mime: the MIME type the read declared.
        size: the bytes read.
        sha256: their digest (hex).
        stated: what the read states, as ``(what, value)`` pairs.
        missing: what the kind requires and the read does not state.
        reusable: whether a copy may be served again without a re-read (the lab's host policy).
        why: the reason, in words.
    """

    uri: str
    kind: ResourceKind
    mime: str | None
    size: int
    sha256: str
    stated: tuple[tuple[str, str], ...]
    missing: tuple[str, ...]
    reusable: bool
    why: str

    def rows(self) -> list[tuple[str, object]]:
        """The report as ``(field, value)`` rows, for a table."""
        return [
            ("URI", self.uri),
            ("kind", f"{self.kind.label}" + ("" if self.kind.in_seed_004 else " (the lab's addition)")),
            ("MIME type", self.mime),
            ("bytes read", self.size),
            *self.stated,
            ("must state", self.kind.must_state),
            ("not stated", ", ".join(self.missing) or "(nothing missing)"),
            ("serve a copy without re-reading?", ("yes: " if self.reusable else "no: ") + self.why),
        ]


def _reuse(name: KindName, uri: str, period: Period | None, now: str) -> tuple[bool, str]:
    if name in ("static-file", "schema"):
        if pinned_in_uri(uri):
            return True, "the URI pins a version or a date, so it always means these bytes"
        return False, "nothing in the URI pins the content: re-read and compare the sha256"
    if name == "log":
        if period is None:
            return False, "the read does not say which period it covers"
        if period.end < now:
            return True, f"the period it covers ended at {period.end}, before the lab's clock ({now})"
        return False, f"the period it covers runs to {period.end}, after the lab's clock ({now}): still being written"
    if name == "record":
        return False, "a record can change between reads: re-read before acting on it"
    return False, "a live document moves while its URI stays: re-read when current content is required"


def describe(
    catalog: Catalog, uri: str, *, moving: Collection[str] | None = None, now: str | None = None
) -> KindReport:
    """Read ``uri`` and report its kind, what the read states, what it leaves out, and whether a
    copy may be served again (``now`` is the lab's clock, the policy's ``now`` by default).

    Raises:
        ResourceNotFound: nothing is registered under ``uri``.

    Example:
        >>> report = describe(Catalog.load(), "logs://api/2026-09-03")
        >>> report.kind.name, report.reusable, report.missing
        ('log', True, ())
        >>> describe(Catalog.load(), "logs://api/today").reusable
        False
    """
    name = classify(catalog, uri, moving=moving)
    read = catalog.read(uri)
    clock = (now or Policy().now).replace(".000Z", "Z")
    stated: list[tuple[str, str]] = [("sha256", read.sha256)]
    missing: list[str] = []
    period = log_period(read.text) if name == "log" else None
    if name == "log":
        if period is None:
            missing.append("the period the read covers")
        else:
            stated.append(("period", f"{period.start} to {period.end}"))
    if read.template is not None:
        values = ", ".join(f"{k}={v}" for k, v in read.params.items())
        stated.append(("template", f"{read.template.uri_template} with {values}"))
    reusable, why = _reuse(name, uri, period, clock)
    return KindReport(
        uri, kind(name), read.mime_type, read.size, read.sha256, tuple(stated), tuple(missing), reusable, why
    )


def kinds_table(catalog: Catalog, *, moving: Collection[str] | None = None) -> list[dict[str, str]]:
    """One row per kind: an example from ``catalog`` (its first listed resource of that kind, else
    its first template of that kind), the example's MIME type, and the lab's host policy.

    Example:
        >>> [(r["kind"], r["example URI"]) for r in kinds_table(Catalog.load())]  # doctest: +NORMALIZE_WHITESPACE
        [('Static file', 'kb://returns-policy'), ('Record', 'orders://{order_id}'), ('Log', 'logs://api/today'),
         ('Schema', 'db://shop/schema'), ("Live document (the lab's addition)", 'status://service/current')]
    """
    examples: dict[str, tuple[str, str | None]] = {}
    for entry in catalog.resources:
        examples.setdefault(classify(catalog, entry.uri, moving=moving), (entry.uri, entry.mime_type))
    for template in catalog.templates:
        name: KindName = "log" if template.reader == "log-lines" else "record"
        examples.setdefault(name, (template.uri_template, template.mime_type))
    rows = []
    for k in KINDS:
        example, mime = examples.get(k.name, ("(none in this catalog)", None))
        rows.append(
            {
                "kind": k.label + ("" if k.in_seed_004 else " (the lab's addition)"),
                "example URI": example,
                "MIME type": mime or "",
                "may be cached (the lab's host policy)": k.may_cache,
                "must be stated (the lab's host policy)": k.must_state,
                "MCP 2026-07-28": k.mcp,
            }
        )
    return rows
