"""The lab server: the six seed cases as real MCP capabilities (SDK 2.x ``MCPServer``).

Seed 000 ("Run six context-delivery cases") names six needs; here each is something a real server
exposes, with content whose size matches the fixture's declared ``bytes`` so the live receipts can
agree with the simulator honestly:

==================  =========================================  ==================================
fixture case        capability                                 what comes back
==================  =========================================  ==================================
handbook            listed resource ``kb://handbook/v4``       1800 bytes of text/markdown
customer-record     template ``crm://customer/{id}``           920 bytes of JSON (``fixture-17``)
generated-report    tool ``generate_report``                   a ``resource_link`` to an 18000-byte
                                                               text/html resource (also listed)
risk-score          tool ``calculate_risk``                    ``structuredContent`` (340 bytes of
                                                               canonical JSON) + an output schema
live-status         listed resource ``status://service/current`` 580 bytes of JSON; changes and
                                                               notifies subscribers
approve-draft       tool ``approve_draft``                     changes state; embeds
                                                               ``draft://fixture/9`` (760 bytes)
==================  =========================================  ==================================

plus ``assets://logo.png`` (a base64 blob, always with its MIME type: in SDK 2.x a resource
function that returns bytes without ``mime_type=`` is labelled ``text/plain``) and
``state://lab/ledger``, a small JSON document of the server's state that a client can digest
before and after an exchange to *observe* side effects.

Provenance. MCP has no provenance field, so the lab carries it in ``_meta`` under
``org.custody-lab/provenance`` (on each resource contents item, on a resource link, on an embedded
resource, and on a tool result). ``MCPServer`` gives a template one static ``_meta`` for every
instance, so a per-instance value (``crm-fixture@17``) or a changing one (``status-fixture@13``)
cannot come from the decorator: a server middleware stamps it on every ``resources/read`` result
from :meth:`LabState.provenance`. A structured tool result has no URI either; the lab names it with
``org.custody-lab/uri`` in the result's ``_meta``.

A missing resource, two ways (MCP, resources "Error Handling"): under 2026-07-28 the server answers
``-32602`` (SEP-2164), under 2025-06-18 and 2025-11-25 ``-32002`` "Resource not found"; clients
SHOULD accept both. SDK 2.3 answers ``-32602`` whatever the revision, so a server middleware
rewrites the code for a session that negotiated a handshake revision (``LabSession(mode="legacy")``,
``custody-lab live --mode legacy``: 2025-11-25).

Subscriptions, two ways (seed 000, "Choose by freshness and side effects": a notice is not
content). On 2026-07-28 a client opens ``subscriptions/listen``; the server publishes on its
subscription bus (what ``ctx.notify_resource_updated`` does inside a request). On 2025-11-25
``MCPServer`` serves no ``resources/subscribe``: the lab registers handlers on the low-level server
and keeps its own set of subscribed connections (the SDK keeps none), so only subscribers are
notified.

Freshness (MCP 2026-07-28, SEP-2549: every complete result of a cacheable method carries ``ttlMs``
and ``cacheScope``; ``resources/read``, the four list methods and ``server/discover``). A freshness
hint is a custody claim the server makes about its own content, and a standard client acts on it:
the SDK's ``Client`` serves a cached answer without asking the server again. So each resource gets
the claim that is true of it, from one table, :data:`~custody_lab.live.lab_content.FRESHNESS`
(keyed by URI or template, beside the content it describes): the status and the state ledger
move (``ttlMs: 0``), the versioned documents and the fixture record do not (a day).
``cacheScope`` says whether a shared cache may hand the same answer to another caller: the lab's
data is synthetic and this server checks no authorization, so every answer is the same for every
caller, and ``"public"`` is true of the handbook, the report, the logo, the status, the
ledger and the listings; the customer record is ``"private"``, because it stands for one person's
record, which a deployment serves only behind authorization, and a shared cache must not learn
otherwise from a lab. The listings never change while a server runs (it sends no ``list_changed``).
Under the handshake revisions (2025-11-25 and earlier) results carry no caching hints at all.

Prompts and completions: :mod:`~custody_lab.live.lab_prompts` (two prompts embed a resource, with
the bytes, MIME type and provenance its read returns; an unknown prompt is ``-32602``).

Run it over stdio with ``python -m custody_lab.live.lab_server`` (the hostile one:
``python -m custody_lab.live.hostile_server``).
"""

from __future__ import annotations

__all__ = [
    "ASSET_URI",
    "CUSTOMER_TEMPLATE",
    "DAY_MS",
    "DRAFT_URI",
    "FRESHNESS",
    "LISTING_FRESHNESS",
    "PROMPT_NAMES",
    "TONES",
    "Freshness",
    "HANDBOOK_URI",
    "REPORT_URI",
    "RISK_URI",
    "SERVER_NAME",
    "SERVER_VERSION",
    "STATUS_URI",
    "LEGACY_REVISIONS",
    "LabServer",
    "LabState",
    "RiskScore",
    "main",
    "serve_stdio",
]

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Annotated, Any

import anyio
import mcp.types as mt
from mcp.server.caching import CacheableMethod, CacheHint
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from ..core.rules import INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND
from ..core.text import visible
from ..protocol.uri_templates import match
from .lab_content import (
    ASSET_URI,
    CUSTOMER_TEMPLATE,
    CUSTOMERS,
    DAY_MS,
    DRAFT_URI,
    FRESHNESS,
    HANDBOOK_URI,
    LISTING_FRESHNESS,
    REPORT_URI,
    RISK_URI,
    STATIC_PROVENANCE,
    STATUS_URI,
    UNKNOWN_FRESHNESS,
    Freshness,
    customer_text,
    handbook_text,
    live_text,
    static_provenance,
)
from .lab_content import data as _data
from .lab_flows import flow_extensions, register_flows
from .lab_prompts import PROMPT_NAMES, TONES, register_completions, register_prompts
from .meta_keys import CHANGES_KEY, OPERATION_KEY, PROVENANCE_KEY, SIDE_EFFECTS_KEY, STATE_URI, URI_KEY
from .sdk_adapter import connection_of, lowlevel_server

SERVER_NAME = "custody-lab-server"
SERVER_VERSION = "1.0.0"

#: The revisions reached by the initialize handshake, under which a missing resource is ``-32002``
#: (the specification says so for 2025-06-18 and 2025-11-25; the lab treats the two earlier
#: handshake revisions the same).
LEGACY_REVISIONS: frozenset[str] = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})


_LISTING_METHODS: tuple[CacheableMethod, ...] = (
    "resources/list",
    "resources/templates/list",
    "tools/list",
    "prompts/list",
    "server/discover",
)


class RiskScore(BaseModel):
    """The output schema of ``calculate_risk`` (a structured tool result)."""

    subject: str
    score: int
    band: str
    factors: list[str]
    model: str
    computedAt: str  # noqa: N815 - the wire name
    explanation: str
    note: str


@dataclass
class LabState:
    """The server's mutable state and the custody facts it vouches for.

    Attributes:
        status_revision: the revision of ``status://service/current`` (the fixture's is 12).
        approvals: how many times ``approve_draft`` ran (a state change).
        reads: resource reads served, by URI (bookkeeping; not part of the ledger).
        calls: tool calls served, by name (bookkeeping; not part of the ledger).
    """

    status_revision: int = 12
    approvals: int = 0
    deleted_notes: set[str] = field(default_factory=set)  # delete_note (LabServer(flows=True))
    reads: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)

    def ledger(self) -> dict[str, Any]:
        """The state a client may digest to observe side effects (reads never change it).

        Example:
            >>> LabState().ledger()
            {'statusRevision': 12, 'approvals': 0}
        """
        deleted = {"deletedNotes": sorted(self.deleted_notes)} if self.deleted_notes else {}
        return {"statusRevision": self.status_revision, "approvals": self.approvals, **deleted}

    def provenance(self, uri: str) -> str | None:
        """Where the content at ``uri`` comes from, or ``None`` when the lab cannot say.

        Example:
            >>> s = LabState()
            >>> s.provenance("crm://customer/fixture-17"), s.provenance("status://service/current")
            ('crm-fixture@17', 'status-fixture@12')
        """
        if uri == STATUS_URI:
            return f"status-fixture@{self.status_revision}"
        if uri == STATE_URI:
            return f"lab-ledger@{self.status_revision}.{self.approvals}"
        return static_provenance(uri)

    def status_text(self) -> str:
        """The status document at the current revision (revision 12 is the fixture's 580 bytes)."""
        base = live_text("status-12.json")
        if self.status_revision == 12:
            return base
        doc = json.loads(base)
        doc.update(
            revision=self.status_revision,
            state="operational",
            summary=f"All components operational again (revision {self.status_revision}).",
            components=[{"name": c["name"], "state": "operational"} for c in doc["components"]],
        )
        return json.dumps(doc, indent=2) + "\n"


class LabServer:
    """The in-process lab server: an ``MCPServer`` plus its state and subscribers.

    Args:
        name: the server name reported in ``serverInfo``.
        version: the server version reported in ``serverInfo``.
        freshness: claims that replace :data:`FRESHNESS`'s, by URI or template. The honest table is
            the default; a lesson passes a false claim on purpose (notebook 07: a status "fresh for
            a minute") to show what a client's cache then serves.
        flows: add what flows the other way (:mod:`~custody_lab.live.lab_flows`, MCP 2026-07-28).

    Example:
        >>> lab = LabServer()
        >>> lab.mcp.name, lab.state.status_revision, lab.freshness("crm://customer/fixture-17").scope
        ('custody-lab-server', 12, 'private')
    """

    def __init__(
        self,
        *,
        name: str = SERVER_NAME,
        version: str = SERVER_VERSION,
        freshness: Mapping[str, Freshness] | None = None,
        flows: bool = False,
    ) -> None:
        self.state = LabState()
        self.bus = InMemorySubscriptionBus()
        self._subscribers: dict[str, set[Any]] = {}  # uri -> client connections
        self._freshness = {**FRESHNESS, **(freshness or {})}
        # The SDK fills these on results the handlers leave unset: the listings' claim, and for a read
        # the "unknown" claim, which _stamp_freshness replaces with the URI's own.
        hints: dict[CacheableMethod, CacheHint] = {m: LISTING_FRESHNESS.hint() for m in _LISTING_METHODS}
        hints["resources/read"] = UNKNOWN_FRESHNESS.hint()
        self.mcp: MCPServer[Any] = MCPServer(
            name,
            version=version,
            instructions="The custody lab's server: six synthetic context-delivery cases.",
            subscriptions=self.bus,
            cache_hints=hints,
            log_level="WARNING",
            extensions=flow_extensions(self.state) if flows else None,
        )
        if flows:
            register_flows(self.mcp, self.state)
        self._register_resources()
        self._register_tools()
        register_prompts(self.mcp)
        register_completions(self.mcp)
        self.mcp.middleware.append(self._stamp_provenance)
        self.mcp.middleware.append(self._stamp_freshness)
        self.mcp.middleware.append(self._legacy_not_found)
        self.mcp.middleware.append(self._unknown_names)
        self._register_legacy_subscriptions()

    def freshness(self, uri: str) -> Freshness:
        """The freshness this server claims for a read of ``uri`` (its own entry, else its template's).

        Example:
            >>> [LabServer().freshness(u).ttl_ms for u in ("state://lab/ledger", "kb://handbook/v4")]
            [0, 86400000]
        """
        if uri in self._freshness:
            return self._freshness[uri]
        for template, claim in self._freshness.items():
            if "{" in template and match(template, uri) is not None:
                return claim
        return UNKNOWN_FRESHNESS

    # -- resources -----------------------------------------------------------------------------

    def _register_resources(self) -> None:
        mcp, state = self.mcp, self.state

        @mcp.resource(
            HANDBOOK_URI,
            name="handbook",
            title="Support handbook (v4)",
            description="The support handbook a person attaches to a conversation.",
            mime_type="text/markdown",
        )
        async def handbook() -> str:
            return handbook_text()

        @mcp.resource(
            CUSTOMER_TEMPLATE,
            name="customer",
            title="Customer record",
            description="One synthetic customer record by id (try fixture-17).",
            mime_type="application/json",
        )
        async def customer(id: str) -> str:  # noqa: A002 - the template's variable name
            if id not in CUSTOMERS:
                # SDK: ResourceNotFoundError is -32602 (2026-07-28); _legacy_not_found makes it -32002
                # for a 2025-11-25 session. Any other exception is -32603.
                raise ResourceNotFoundError(f"no customer record {id!r}; the lab has fixture-17")
            return customer_text(id)

        @mcp.resource(
            REPORT_URI,
            name="weekly-report-7",
            title="Synthetic weekly report 7",
            description="The report generate_report links to.",
            mime_type="text/html",
        )
        async def report() -> str:
            return _data("resources/weekly-report-7.html").decode("utf-8")

        @mcp.resource(
            STATUS_URI,
            name="service-status",
            title="Service status",
            description="Changes during incidents; subscribe and re-read on notice.",
            mime_type="application/json",
            meta={CHANGES_KEY: True},
        )
        async def status() -> str:
            return state.status_text()

        @mcp.resource(
            ASSET_URI,
            name="logo",
            title="Course logo",
            description="A 16x16 PNG, sent as a base64 blob.",
            mime_type="image/png",
        )
        async def logo() -> bytes:
            return _data("resources/logo.png")

        @mcp.resource(
            STATE_URI,
            name="ledger",
            title="Server state ledger",
            description="The server's state, for observing side effects by digest.",
            mime_type="application/json",
        )
        async def ledger() -> str:
            return json.dumps(state.ledger(), sort_keys=True)

    def observe(self, middleware: Any) -> None:
        """Add a server middleware that sees each request and result as the client does.

        It runs outside the lab's own middleware (the provenance stamp, the legacy "not found"
        code) and inside the SDK's, so what it sees is what goes on the wire
        (``custody-lab serve`` logs receipts this way).
        """
        chain = self.mcp.middleware
        chain.insert(chain.index(self._stamp_provenance), middleware)

    async def _stamp_provenance(self, ctx: Any, call_next: Any) -> Any:
        """Server middleware: put per-URI provenance on every ``resources/read`` contents item."""
        result = await call_next(ctx)
        if ctx.method == "resources/read" and isinstance(result, dict):
            for item in result.get("contents", ()):
                uri = item.get("uri", "")
                self.state.reads[uri] += 1
                prov = self.state.provenance(uri)
                if prov is not None:
                    item["_meta"] = {**(item.get("_meta") or {}), PROVENANCE_KEY: prov}
        return result

    async def _stamp_freshness(self, ctx: Any, call_next: Any) -> Any:
        """Server middleware: a ``resources/read`` result carries the claim :meth:`freshness` makes.

        Only where the SDK put the hints (a 2026-07-28 result): a handshake-era result carries none.
        """
        result = await call_next(ctx)
        if ctx.method == "resources/read" and isinstance(result, dict) and "ttlMs" in result:
            uri = (ctx.params or {}).get("uri")
            claim = self.freshness(uri) if isinstance(uri, str) else UNKNOWN_FRESHNESS
            result["ttlMs"], result["cacheScope"] = claim.ttl_ms, claim.scope
        return result

    async def _unknown_names(self, ctx: Any, call_next: Any) -> Any:
        """Server middleware: an unknown tool or prompt, or a missing argument, is ``-32602``.

        SDK 2.3's ``prompts/get`` turns both into a ``ValueError``, which goes on the wire as code
        ``0`` with a traceback on stderr; the MCP reference servers answer ``-32602`` (invalid params).
        """
        params = ctx.params or {}
        if ctx.method == "tools/call" and params.get("name") not in {t.name for t in await self.mcp.list_tools()}:
            # SDK 2.3 answers an unknown tool with an ``isError`` result; MCP's tools page (Error
            # Handling, 2025-06-18 and later, 2026-07-28 included) makes it a protocol error, -32602
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {visible(repr(params.get('name')))}")
        if ctx.method != "prompts/get":
            return await call_next(ctx)
        name, arguments = params.get("name"), params.get("arguments") or {}
        known = {p.name: p for p in await self.mcp.list_prompts()}
        if name not in known:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name!r}; the lab has {', '.join(PROMPT_NAMES)}")
        missing = [a.name for a in known[name].arguments or () if a.required and a.name not in arguments]
        if missing:
            raise MCPError(INVALID_PARAMS, f"prompt {name!r}: missing required argument(s) {', '.join(missing)}")
        try:
            return await call_next(ctx)
        except ValueError as e:  # the SDK wraps every prompt failure so; the lab's are bad arguments
            raise MCPError(INVALID_PARAMS, f"prompt {name!r}: {e}") from e

    async def _legacy_not_found(self, ctx: Any, call_next: Any) -> Any:
        """Server middleware: a missing resource is ``-32002`` for a session on a handshake revision.

        Only the SDK's own "not found" answer is rewritten: ``-32602`` on ``resources/read`` with
        the ``{"uri": ...}`` data it attaches (a params-validation ``-32602`` carries no such data).
        """
        try:
            return await call_next(ctx)
        except MCPError as e:
            data = e.error.data
            not_found = e.code == INVALID_PARAMS and isinstance(data, dict) and "uri" in data
            if ctx.method != "resources/read" or not not_found or ctx.protocol_version not in LEGACY_REVISIONS:
                raise
            raise MCPError(LEGACY_RESOURCE_NOT_FOUND, f"Resource not found: {e.error.message}", data) from e

    def listing(self) -> tuple[list[mt.Resource], list[mt.ResourceTemplate]]:
        """What ``resources/list`` and ``resources/templates/list`` answer, without a client.

        The SDK's listing is a coroutine; it runs on a fresh event loop in a worker thread, so this
        works from plain code and from a Jupyter cell (whose loop is already running).

        Example:
            >>> resources, templates = LabServer().listing()
            >>> [t.uri_template for t in templates], len(resources)
            (['crm://customer/{id}'], 5)
        """

        async def both() -> tuple[list[mt.Resource], list[mt.ResourceTemplate]]:
            return await self.mcp.list_resources(), await self.mcp.list_resource_templates()

        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(anyio.run, both).result()

    # -- tools ---------------------------------------------------------------------------------

    def _register_tools(self) -> None:
        mcp, state = self.mcp, self.state

        @mcp.tool(
            title="Generate a weekly report",
            description="Generate the synthetic weekly report and return a link to it.",
            annotations=mt.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            meta={SIDE_EFFECTS_KEY: False, OPERATION_KEY: "generate"},
        )
        async def generate_report(week: int = 7) -> mt.CallToolResult:
            state.calls["generate_report"] += 1
            if week != 7:
                raise ToolError(f"no report for week {week}; the lab has week 7")
            link = mt.ResourceLink(
                name="weekly-report-7",
                title="Synthetic weekly report 7",
                uri=REPORT_URI,
                mime_type="text/html",
                size=len(_data("resources/weekly-report-7.html")),
                _meta={PROVENANCE_KEY: STATIC_PROVENANCE[REPORT_URI]},
            )
            text = mt.TextContent(type="text", text="Report ready; it is linked, not embedded.")
            return mt.CallToolResult(content=[text, link])

        @mcp.tool(
            title="Calculate a risk score",
            description="Score a customer's follow-up risk; returns structured content.",
            annotations=mt.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            meta={SIDE_EFFECTS_KEY: False, OPERATION_KEY: "calculate"},
        )
        async def calculate_risk(
            customer: str = "crm://customer/fixture-17",
        ) -> Annotated[mt.CallToolResult, RiskScore]:
            state.calls["calculate_risk"] += 1
            if customer != "crm://customer/fixture-17":
                raise ToolError(f"no risk model for {customer!r}; the lab scores fixture-17")
            score = json.loads(live_text("risk-42.json"))
            compact = json.dumps(score, separators=(",", ":"), ensure_ascii=False)
            return mt.CallToolResult(
                content=[mt.TextContent(type="text", text=compact)],
                structured_content=score,
                _meta={PROVENANCE_KEY: "risk-fixture@1", URI_KEY: RISK_URI},
            )

        @mcp.tool(
            title="Approve a refund draft",
            description="Approve a refund draft (changes state) and embed the approved draft.",
            annotations=mt.ToolAnnotations(
                read_only_hint=False,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
            meta={SIDE_EFFECTS_KEY: True, OPERATION_KEY: "mutate"},
        )
        async def approve_draft(draft_id: str) -> mt.CallToolResult:
            state.calls["approve_draft"] += 1
            if draft_id != "9":
                raise ToolError(f"no draft {draft_id!r}; the lab has draft 9")
            state.approvals += 1
            embedded = mt.EmbeddedResource(
                type="resource",
                resource=mt.TextResourceContents(
                    uri=DRAFT_URI,
                    mime_type="application/json",
                    text=live_text("draft-9.json"),
                    _meta={PROVENANCE_KEY: "draft-tool@3"},
                ),
            )
            return mt.CallToolResult(content=[embedded])

    # -- subscriptions -------------------------------------------------------------------------

    def _register_legacy_subscriptions(self) -> None:
        """2025-11-25 ``resources/subscribe``: handlers on the low-level server, own bookkeeping.

        ``MCPServer`` has no public hook for this, so the lab reaches its low-level ``Server``
        through :mod:`~custody_lab.live.sdk_adapter` (the one home of the SDK's private uses).
        """
        lowlevel = lowlevel_server(self.mcp)

        def subscriber(ctx: Any) -> Any:
            # A handler's ``ctx.session`` is a new per-request proxy; the client connection
            # behind it is the stable subscriber (no public accessor: see sdk_adapter).
            return connection_of(ctx.session)

        async def subscribe(ctx: Any, params: mt.SubscribeRequestParams) -> mt.EmptyResult:
            self._subscribers.setdefault(params.uri, set()).add(subscriber(ctx))
            return mt.EmptyResult()

        async def unsubscribe(ctx: Any, params: mt.UnsubscribeRequestParams) -> mt.EmptyResult:
            self._subscribers.get(params.uri, set()).discard(subscriber(ctx))
            return mt.EmptyResult()

        lowlevel.add_request_handler("resources/subscribe", mt.SubscribeRequestParams, subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", mt.UnsubscribeRequestParams, unsubscribe)

    def subscriber_count(self, uri: str) -> int:
        """How many legacy (2025-11-25) sessions subscribed to ``uri``."""
        return len(self._subscribers.get(uri, ()))

    async def notify_updated(self, uri: str) -> None:
        """Tell subscribers that ``uri`` changed: listen streams (2026-07-28) and legacy sessions."""
        await self.bus.publish(ResourceUpdated(uri=uri))
        for session in list(self._subscribers.get(uri, ())):
            try:
                await session.send_resource_updated(uri)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._subscribers[uri].discard(session)  # that client has gone

    async def advance_status(self) -> int:
        """Move the status document to its next revision and notify subscribers.

        Returns:
            The new revision (13 after the fixture's 12).
        """
        self.state.status_revision += 1
        await self.notify_updated(STATUS_URI)
        return self.state.status_revision


def serve_stdio(server: Any, prog: str, description: str, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (only ``--help``), then serve ``server.mcp`` over stdio until the client closes."""
    argparse.ArgumentParser(prog=prog, description=description).parse_args(argv)
    server.mcp.run("stdio")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the lab server over stdio (``python -m custody_lab.live.hostile_server`` serves the hostile one)."""
    return serve_stdio(
        LabServer(), "python -m custody_lab.live.lab_server", "Run the custody lab's MCP server over stdio.", argv
    )


if __name__ == "__main__":
    sys.exit(main())
