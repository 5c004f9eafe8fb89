"""What the lab server serves: its URIs, the fixture files behind them, their provenance and freshness.

One home for the content, so a resource read and a prompt that embeds the same URI
(:mod:`~custody_lab.live.lab_prompts`) send the same bytes, MIME type and provenance; and one home
for what the server claims about how long each answer stays true (:data:`FRESHNESS`, SEP-2549,
2026-07-28; :mod:`~custody_lab.live.lab_server` says why each claim is true).

Example:
    >>> len(handbook_text().encode()), static_provenance("crm://customer/fixture-17")
    (1800, 'crm-fixture@17')
"""

from __future__ import annotations

__all__ = [
    "ASSET_URI",
    "DAY_MS",
    "FRESHNESS",
    "LISTING_FRESHNESS",
    "UNKNOWN_FRESHNESS",
    "Freshness",
    "CUSTOMERS",
    "CUSTOMER_PREFIX",
    "CUSTOMER_TEMPLATE",
    "DRAFT_URI",
    "HANDBOOK_URI",
    "NOTE_TEMPLATE",
    "PANEL_URI",
    "REPORT_URI",
    "RISK_URI",
    "STATIC_PROVENANCE",
    "STATUS_URI",
    "customer_text",
    "data",
    "handbook_text",
    "live_text",
    "static_provenance",
]

from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Literal

from mcp.server.caching import CacheHint

from ..core.paths import data_path
from .meta_keys import STATE_URI

HANDBOOK_URI = "kb://handbook/v4"
CUSTOMER_TEMPLATE = "crm://customer/{id}"
CUSTOMER_PREFIX = "crm://customer/"
REPORT_URI = "report://synthetic/weekly-7"
RISK_URI = "urn:fixture:risk:42"
STATUS_URI = "status://service/current"
DRAFT_URI = "draft://fixture/9"
ASSET_URI = "assets://logo.png"

#: Fixture revisions: the seed's provenance strings.
STATIC_PROVENANCE = {
    HANDBOOK_URI: "docs-server@v4",
    REPORT_URI: "report-tool@2",
    ASSET_URI: "course-assets@1",
}
#: The customer records the server has, by id (``crm://customer/{id}``).
CUSTOMERS = {"fixture-17": "customer-fixture-17.json"}


#: A day in milliseconds: the longest ``ttlMs`` the lab claims (the SDK's client caps any ``ttlMs`` at
#: this, ``mcp.client.caching.MAX_TTL_MS``).
DAY_MS = 86_400_000


@dataclass(frozen=True)
class Freshness:
    """What the server claims about how long an answer stays true (SEP-2549, 2026-07-28).

    Attributes:
        ttl_ms: the ``ttlMs`` sent: how long a client MAY treat the answer as fresh (``0``: stale at once).
        scope: the ``cacheScope`` sent: ``"public"`` (a shared cache may serve it to any caller) or
            ``"private"`` (reused only for the caller it was served to).
        why: why the claim is true of this resource (the lab says it beside the claim).

    Example:
        >>> FRESHNESS["state://lab/ledger"].hint()
        CacheHint(ttl_ms=0, scope='public')
    """

    ttl_ms: int
    scope: Literal["public", "private"]
    why: str

    def hint(self) -> CacheHint:
        """The SDK's form of this claim."""
        return CacheHint(ttl_ms=self.ttl_ms, scope=self.scope)


#: The one home of the server's freshness claims, keyed by a listed URI or a template.
#: The notes template and the MCP Apps page of ``LabServer(flows=True)`` (:mod:`~custody_lab.live.lab_flows`).
NOTE_TEMPLATE, PANEL_URI = "notes://note/{id}", "ui://notes/panel.html"
FRESHNESS: MappingProxyType[str, Freshness] = MappingProxyType(
    {
        HANDBOOK_URI: Freshness(DAY_MS, "public", "versioned (v4): these bytes never change under this URI"),
        REPORT_URI: Freshness(DAY_MS, "public", "a numbered report (week 7): written once, never rewritten"),
        ASSET_URI: Freshness(DAY_MS, "public", "a versioned course asset"),
        CUSTOMER_TEMPLATE: Freshness(
            DAY_MS,
            "private",
            "the fixture record never changes here, but a customer record is one person's data: "
            "no shared cache may serve it to another caller",
        ),
        STATUS_URI: Freshness(0, "public", "moves during incidents: stale at once (subscribe, or read again)"),
        STATE_URI: Freshness(0, "public", "the server's state: every side effect changes it"),
        NOTE_TEMPLATE: Freshness(
            0, "private", "a note can be deleted at any moment, and it answers one reader's question"
        ),
        PANEL_URI: Freshness(DAY_MS, "public", "the notes panel's HTML never changes while the server runs"),
    }
)
#: The claim on ``resources/list``, ``resources/templates/list``, ``tools/list``, ``prompts/list`` and
#: ``server/discover``: the server never changes them while it runs.
LISTING_FRESHNESS = Freshness(DAY_MS, "public", "the server never changes its listings while it runs")
#: A read the table does not know (none succeeds today): stale at once, for this caller only.
UNKNOWN_FRESHNESS = Freshness(0, "private", "not in the lab's freshness table: claimed stale at once")


@cache
def data(name: str) -> bytes:
    """The bytes of ``data/NAME`` (``/``-separated)."""
    return data_path(*name.split("/")).read_bytes()


def live_text(name: str) -> str:
    """The text of ``data/live/NAME``."""
    return data(f"live/{name}").decode("utf-8")


def handbook_text() -> str:
    """``kb://handbook/v4``: the catalog's file (one URI, one content)."""
    return data("resources/handbook-v4.md").decode("utf-8")


def customer_text(customer_id: str) -> str:
    """``crm://customer/{customer_id}`` (``KeyError`` for an id the lab does not have)."""
    return live_text(CUSTOMERS[customer_id])


def static_provenance(uri: str) -> str | None:
    """The provenance of a resource that never changes (``None`` for a moving one or an unknown URI)."""
    if uri in STATIC_PROVENANCE:
        return STATIC_PROVENANCE[uri]
    if uri.startswith(CUSTOMER_PREFIX) and uri[len(CUSTOMER_PREFIX) :] in CUSTOMERS:
        return "crm-fixture@" + uri[len(CUSTOMER_PREFIX) :].removeprefix("fixture-")
    return None
