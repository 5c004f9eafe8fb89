"""The recorder: every exchange with a real MCP server becomes an extended custody receipt.

A receipt is built from the *actual* protocol response, never from what a case declared: the URI
and MIME type of the contents item that came back, the byte size and sha256 of the bytes that came
back, the server name and version the connection reported, the method, the template parameters
when the URI matched a template, whether the content was read, embedded or linked, whether the
read came from the client's response cache, and the side effects — declared by the tool's
annotations (or the lab's ``_meta`` declaration) *and* observed by digesting the server's state
resource before and after.

The recorder only observes. What it saw becomes a :class:`~custody_lab.Case` plus a mapping of
exchange facts (:data:`~custody_lab.core.rules.EXCHANGE_FACTS`: timed out, the error code, the
requested URI, declared and observed side effects, the link follow-up), and
:func:`~custody_lab.route` decides through the same loop as the simulator, walking
:data:`~custody_lab.core.rules.LIVE_RULES`; the trace has exactly one failed step when rejected.

Custody rules for what comes back (seed 000):

- "Recheck authority at every read boundary": every read and call passes
  :class:`~custody_lab.live.values.Gate` first; a ``resource_link`` is kept as a link and
  following it is a *second* read through the same gate. A link the caller may not read is kept,
  explained (``link-follow-up-denied``) and never fetched.
- "Choose by freshness and side effects": a tool whose side effects nobody declared is refused
  before it runs (``side-effects-unknown``); a read that changed the server's state is a mutation
  labelled as a resource (``resource-mislabeled-side-effect``); a tool annotated read-only that
  changed state is ``read-only-hint-violated``.
- "Budget large context without hiding truncation": an embed over the policy's limit is
  ``embed-over-budget``, computed from the bytes that actually arrived.
- The response cache must not hide staleness: each receipt says whether the read was served from
  the cache (``cache.fromCache``) and a cached answer is not *current*.

Every wait is bounded (``timeout``); a server that does not answer ends in ``server-timeout`` with a
message that says what was waited for.
"""

from __future__ import annotations

__all__ = ["MAX_PAGES", "MAX_TEXT_CHARS", "Recorder", "first_problem"]

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

import anyio
import mcp.types as mt
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate
from pydantic import ValidationError

from ..core.model import OPERATIONS, Case, Policy
from ..core.receipts import canonical_json, digest, extended_receipt, server_hints
from ..core.router import route
from ..core.text import visible
from ..protocol.blobs import BlobError, read_contents
from .facts import Facts, check_size, item_dict, meta_of
from .keys import OPERATION_KEY, PROVENANCE_KEY, SIDE_EFFECTS_KEY, URI_KEY
from .transport import RecordingCacheStore
from .values import (
    DEFAULT_TIMEOUT,
    RESULT_HINTS,
    Frame,
    Gate,
    LiveError,
    LiveReceipt,
    LiveTimeout,
    first_problem,
    load_jsonschema,
    utc_now,
    wire_fields,
)

_T = TypeVar("_T")

#: Pages followed per listing (resources, templates, tools) before the listing is cut and noted.
MAX_PAGES = 100
#: Text contents longer than this many characters are not copied (the blob limit is 10 MiB too).
MAX_TEXT_CHARS = 10 * 1024 * 1024


class Recorder:
    """Turns reads and calls on a connected ``mcp.Client`` into :class:`LiveReceipt` values.

    Args:
        client: an entered ``mcp.Client``.
        gate: the caller's permission check (every read, call and link follow-up passes it).
        policy: the host policy (embed limit); ``now`` is replaced by the real retrieval time.
        state_uri: a resource whose digest before/after an exchange reveals side effects, or
            ``None`` when the server has none (side effects are then only *declared*).
        timeout: seconds each exchange may take.
        cache_store: the client's :class:`RecordingCacheStore`, to tell cached answers apart.
        clock: returns the retrieval time written into receipts.
        allow_unknown_side_effects: call tools whose side effects nobody declared (seed 000
            says refuse them before execution; the default does).
    """

    def __init__(
        self,
        client: Client,
        *,
        gate: Gate | None = None,
        policy: Policy | None = None,
        state_uri: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        cache_store: RecordingCacheStore | None = None,
        clock: Callable[[], str] = utc_now,
        allow_unknown_side_effects: bool = False,
        frames: list[Frame] | None = None,
    ) -> None:
        self.client = client
        self.gate = gate or Gate()
        self.policy = policy or Policy()
        self.state_uri = state_uri
        self.timeout = timeout
        self.cache_store = cache_store
        self.clock = clock
        self.allow_unknown_side_effects = allow_unknown_side_effects
        self._frames = frames
        self.tools: dict[str, mt.Tool] = {}
        self.listed: dict[str, mt.Resource] = {}
        self.templates: list[mt.ResourceTemplate] = []
        self.receipts: list[LiveReceipt] = []
        #: the last ``tools/call`` result as it arrived (the audit reports every content block)
        self.last_result: mt.CallToolResult | None = None
        #: what the listing left out (a page cap that cut it), for reports
        self.listing_notes: list[str] = []

    # -- plumbing ------------------------------------------------------------------------------

    async def _bounded(self, what: str, target: str, awaitable: Awaitable[_T]) -> _T:
        try:
            with anyio.fail_after(self.timeout):
                return await awaitable
        except TimeoutError as e:
            raise LiveTimeout(
                f"{what} {target!r} got no answer within {self.timeout:g} s; the wait was cancelled",
                method=what,
                target=target,
            ) from e
        except MCPError as e:
            if e.code == mt.REQUEST_TIMEOUT:
                raise LiveTimeout(
                    f"{what} {target!r} timed out in the client ({e.error.message})",
                    method=what,
                    target=target,
                ) from e
            raise

    async def _list_all(self, method: str, fetch: Callable[[str | None], Awaitable[Any]], key: str) -> list[Any]:
        """Every page of one listing: follow ``nextCursor`` (``""`` is a cursor too) up to
        :data:`MAX_PAGES` pages; a cut listing is noted in :attr:`listing_notes`."""
        items: list[Any] = []
        cursor: str | None = None
        for page in range(1, MAX_PAGES + 1):
            try:
                result = await self._bounded(method, f"page {page}", fetch(cursor))
            except MCPError as e:
                raise LiveError(
                    f"{method} answered with error {e.code}: {visible(e.error.message)}", method=method
                ) from e
            except ValidationError as e:
                raise LiveError(f"{method} answered a malformed result: {first_problem(e)}", method=method) from e
            items.extend(getattr(result, key))
            cursor = result.next_cursor
            if cursor is None:
                return items
            if page == MAX_PAGES:
                self.listing_notes.append(
                    f"{method}: stopped after {MAX_PAGES} pages ({len(items)} items); the server offered more"
                )
        return items

    async def load_listing(self) -> None:
        """List resources, templates and tools, every page (needed for shapes and declared side effects).

        Raises:
            LiveError: a listing is malformed (an empty URI or tool name, a size that is not a size,
                a result of the wrong shape) or the server answered it with an error.
            LiveTimeout: a page got no answer in time.
        """
        caps = self.client.server_capabilities
        client = self.client
        if caps.resources is not None:
            resources = await self._list_all(
                "resources/list", lambda c: client.list_resources(cursor=c, cache_mode="bypass"), "resources"
            )
            for i, r in enumerate(resources):
                if not r.uri.strip():
                    raise LiveError(f"resources/list item {i} ({visible(r.name)!r}) has an empty URI")
                check_size(r.size, f"resources/list item {i} ({visible(r.uri)!r})")
            self.listed = {r.uri: r for r in resources}
            self.templates = await self._list_all(
                "resources/templates/list",
                lambda c: client.list_resource_templates(cursor=c, cache_mode="bypass"),
                "resource_templates",
            )
        if caps.tools is not None:
            tools = await self._list_all(
                "tools/list", lambda c: client.list_tools(cursor=c, cache_mode="bypass"), "tools"
            )
            for i, t in enumerate(tools):
                if not t.name.strip():
                    raise LiveError(f"tools/list item {i} has an empty name ({visible(repr(t.name))})")
            self.tools = {t.name: t for t in tools}
        if self.state_uri is not None and self.state_uri not in self.listed:
            self.state_uri = None

    async def state_digest(self) -> str | None:
        """The sha256 of the state resource now, or ``None`` when there is none to read."""
        if self.state_uri is None:
            return None
        try:
            res = await self._bounded(
                "resources/read", self.state_uri, self.client.read_resource(self.state_uri, cache_mode="bypass")
            )
        except (MCPError, LiveTimeout):
            return None  # unobserved, not "unchanged": the receipt says observed=None
        parts = [str(getattr(c, "text", None) or getattr(c, "blob", "")) for c in res.contents]
        return digest("\n".join(parts))

    def _server(self) -> dict[str, Any]:
        info = self.client.server_info
        return {"name": info.name if info else None, "version": info.version if info else None}

    def match_template(self, uri: str) -> tuple[str, dict[str, Any]] | None:
        """The first listed template ``uri`` matches, with its parameters; ``None`` otherwise."""
        for t in self.templates:
            try:
                params = UriTemplate.parse(t.uri_template).match(uri)
            except ValueError:
                continue
            if params is not None:
                return t.uri_template, dict(params)
        return None

    def _template(self, matched: tuple[str, dict[str, Any]] | None) -> mt.ResourceTemplate | None:
        """The listed template a matched URI came from (its MIME type, annotations and icons)."""
        return next((t for t in self.templates if matched and t.uri_template == matched[0]), None)

    def _declared_side_effects(self, tool: mt.Tool | None) -> tuple[bool | None, str]:
        if tool is None:
            return None, "unknown tool (not in tools/list)"
        ann = tool.annotations
        if ann is not None and ann.read_only_hint is not None:
            return (not ann.read_only_hint), "annotations.readOnlyHint"
        declared = meta_of(tool).get(SIDE_EFFECTS_KEY)
        if isinstance(declared, bool):
            return declared, f"_meta {SIDE_EFFECTS_KEY}"
        return None, "nobody declared (no readOnlyHint, no lab declaration)"

    def _finish(self, f: Facts) -> LiveReceipt:
        now, server = self.clock(), self._server()
        # MCP has no provenance field; the host can still name the source it asked (the lab's host
        # policy): serverInfo name@version, the method, the URI and the retrieval time.
        source = "server _meta" if f.provenance else None
        if not f.provenance and f.performed and "error" not in f.extra and server["name"] and server["version"]:
            f.provenance, source = f"{server['name']}@{server['version']}", "host"
        provenance_source = {"source": source, "method": f.method, "uri": f.uri, "retrievedAt": now}
        case = Case(
            id=f.case_id,
            initiator=f.initiator,
            operation=f.operation,
            shape=f.shape,  # type: ignore[arg-type]
            uri=f.uri or None,
            mime=f.mime or None,
            bytes=f.size,
            current=f.current,
            allowed=f.allowed,
            side_effects=f.side_effects,
            provenance=f.provenance or None,
            requires_current=f.requires_current,
        )
        policy = Policy(
            embed_limit_bytes=self.policy.embed_limit_bytes, now=now, require_current=self.policy.require_current
        )
        decision = route(case, policy, exchange=f.exchange)
        extra: dict[str, Any] = {"provenanceSource": provenance_source}
        status = {step.code: step.status for step in decision.trace}
        checks = [{"code": code, "status": status[code], "detail": text} for code, text in f.notes.items()]
        extra.update(
            {
                "method": f.method,
                "target": f.target,
                "server": server,
                "protocolVersion": self.client.protocol_version,
                "performed": f.performed,
                "delivery": f.delivery,
                "contentDigest": f.content_digest,
                **f.extra,
                "exchange": dict(f.exchange),
                "liveChecks": checks,
            }
        )
        if f.hints is not None:
            received = f.size if f.content_digest else None
            extra["hints"] = server_hints(retrieved_at=now, bytes_received=received, **f.hints)
        receipt = extended_receipt(decision, template_params=f.template_params, extra=extra)
        live = LiveReceipt(f.case_id, decision, receipt, f.content)
        self.receipts.append(live)
        return live

    # -- reads ---------------------------------------------------------------------------------

    async def read(
        self,
        uri: str,
        *,
        case_id: str | None = None,
        operation: str | None = None,
        requires_current: bool = False,
        cache_mode: Literal["use", "refresh", "bypass"] = "use",
        trigger: str | None = None,
    ) -> LiveReceipt:
        """Read ``uri`` through the gate and record what came back (the application initiates).

        Example (in a notebook cell)::

            r = await session.read("kb://handbook/v4")
            r.receipt["custody"]["bytes"]   # 1800, counted from the actual text
        """
        matched = self.match_template(uri) if uri not in self.listed else None
        listed = self.listed.get(uri) or self._template(matched)
        f = Facts(
            case_id=case_id or uri,
            initiator="application",
            operation=operation or ("read-template" if matched else "read"),
            shape="templated-resource" if matched else "listed-resource",
            method="resources/read",
            target=uri,
            uri=uri,
            mime=listed.mime_type if listed else None,
            requires_current=requires_current,
            template_params=matched[1] if matched else None,
            exchange={"requestedUri": uri},
        )
        if matched:
            f.extra["template"] = matched[0]
        if trigger:
            f.extra["trigger"] = trigger
        if not self.gate.may_read(uri):
            f.allowed, f.performed, f.side_effects = False, False, False
            f.extra["error"] = f.notes["permission-denied"] = f"the gate refused to read {uri!r}; nothing was fetched"
            return self._finish(f)
        before = await self.state_digest()
        try:
            result = await self._bounded("resources/read", uri, self.client.read_resource(uri, cache_mode=cache_mode))
        except LiveTimeout as e:
            return self._failed(f, str(e), timedOut=True)
        except MCPError as e:
            return self._failed(f, f"{e.code}: {e.error.message}", errorCode=e.code)
        from_cache = self.cache_store.take_hit("resources/read", uri) if self.cache_store else None
        after = await self.state_digest()
        observed = None if before is None or after is None else before != after
        f.exchange["observedSideEffects"] = observed
        # a resource read declares no side effects by contract; only the state digest can say
        f.side_effects = bool(observed) if observed is not None else False
        f.current = not from_cache
        f.hints = {"result": wire_fields(result, RESULT_HINTS), "described": wire_fields(listed)}
        f.extra["cache"] = {
            "mode": cache_mode,
            "fromCache": from_cache,
            "ttlMs": result.ttl_ms if "ttl_ms" in result.model_fields_set else None,
        }
        if not result.contents:
            f.extra["error"] = "the server answered with no contents"
            f.uri = None
            return self._finish(f)
        item = result.contents[0]
        f.extra["contentsItems"] = len(result.contents)
        self._take_contents(f, item, delivery="read")
        if item.uri != uri:
            f.notes["uri-mismatch"] = f"asked for {uri!r}, the contents item says {item.uri!r}"
        f.extra["sideEffectsEvidence"] = {
            "declared": False,
            "observed": observed,
            "source": "state digest before/after"
            if observed is not None
            else "protocol contract only (no state resource to observe)",
        }
        return self._finish(f)

    def _take_contents(self, f: Facts, item: Any, *, delivery: str) -> None:
        """Fill URI, MIME type, size, digest and provenance from a contents item."""
        f.delivery = delivery
        f.uri = item.uri
        f.mime = item.mime_type
        meta = meta_of(item)
        if isinstance(meta.get(PROVENANCE_KEY), str):
            f.provenance = meta[PROVENANCE_KEY]
        text = getattr(item, "text", None)
        if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
            f.extra["contentError"] = (
                f"text contents of {len(text)} characters exceed the {MAX_TEXT_CHARS} limit; not copied"
            )
            return
        try:
            reading = read_contents(item_dict(item))
        except BlobError as e:
            f.extra["contentError"] = str(e)
            return
        f.size = reading.size_bytes
        f.content_digest = "sha256:" + reading.sha256
        f.content = reading.text if reading.kind == "text" else reading.data
        f.extra["mimeCheck"] = {
            "declared": reading.declared_mime,
            "sniffed": reading.sniffed_mime,
            "mismatch": reading.mime_mismatch,
            "reason": reading.mismatch_reason,
        }

    def _failed(self, f: Facts, message: str, **facts: Any) -> LiveReceipt:
        """Record an exchange that got no usable answer (``facts``: ``timedOut`` or ``errorCode``)."""
        f.exchange.update(facts)
        f.performed = not facts.get("timedOut", False)
        f.extra["error"] = message
        if f.side_effects is None and f.initiator == "application":
            f.side_effects = False
        return self._finish(f)

    # -- tool calls ----------------------------------------------------------------------------

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        case_id: str | None = None,
        follow_links: bool = True,
    ) -> LiveReceipt:
        """Call a tool through the gate and record what came back (the model initiates).

        A tool whose side effects nobody declared is not called (``side-effects-unknown``)
        unless the recorder was made with ``allow_unknown_side_effects=True``.
        """
        args = dict(arguments or {})
        tool = self.tools.get(name)
        declared, source = self._declared_side_effects(tool)
        op = meta_of(tool).get(OPERATION_KEY) if tool else None
        f = Facts(
            case_id=case_id or name,
            initiator="model",
            operation=op if op in OPERATIONS else ("mutate" if declared else "calculate"),
            shape="structured-tool-result",
            method="tools/call",
            target=name,
            side_effects=declared,
            exchange={"declaredSideEffects": declared},
        )
        f.extra["arguments"] = args
        evidence: dict[str, Any] = {"declared": declared, "observed": None, "source": source}
        f.extra["sideEffectsEvidence"] = evidence
        if not self.gate.may_call(name):
            f.allowed, f.performed = False, False
            f.extra["error"] = f.notes["permission-denied"] = f"the gate refused to call {name!r}; it did not run"
            return self._finish(f)
        if declared is None and not self.allow_unknown_side_effects:
            f.performed = False
            f.extra["error"] = f.notes["side-effects-unknown"] = (
                f"{name!r} was not called: {source}; seed 000 says reject an "
                "operation whose side effects nobody can state before it runs"
            )
            return self._finish(f)
        if tool is None or tool.output_schema:
            load_jsonschema()  # the SDK checks structured results with it: import it ahead, once
        before = await self.state_digest()
        try:
            result = await self._bounded("tools/call", name, self.client.call_tool(name, args))
        except LiveTimeout as e:
            return self._failed(f, str(e), timedOut=True)
        except MCPError as e:
            return self._failed(f, f"{e.code}: {e.error.message}", errorCode=e.code)
        self.last_result = result
        f.hints = {"result": wire_fields(result, RESULT_HINTS), "tool": wire_fields(tool)}
        after = await self.state_digest()
        observed = None if before is None or after is None else before != after
        evidence["observed"] = f.exchange["observedSideEffects"] = observed
        if observed is not None:
            f.side_effects = observed if declared is None else (declared or observed)
            if declared is False and observed:
                f.notes["read-only-hint-violated"] = (
                    f"{name!r} declared read-only ({source}) but the state digest changed"
                )
        meta = meta_of(result)
        if isinstance(meta.get(PROVENANCE_KEY), str):
            f.provenance = meta[PROVENANCE_KEY]
        if result.is_error:
            text = " ".join(getattr(b, "text", "") for b in result.content)
            f.uri = meta.get(URI_KEY) if isinstance(meta.get(URI_KEY), str) else None
            f.exchange["toolError"] = True
            f.extra["error"] = f.notes["tool-error"] = text[:500]
            return self._finish(f)
        embedded = [b for b in result.content if isinstance(b, mt.EmbeddedResource)]
        links = [b for b in result.content if isinstance(b, mt.ResourceLink)]
        f.extra["contentTypes"] = [b.type for b in result.content]
        if embedded:
            f.shape = "embedded-resource"
            f.hints["described"] = wire_fields(embedded[0])
            self._take_contents(f, embedded[0].resource, delivery="embedded")
            f.provenance = meta_of(embedded[0].resource).get(PROVENANCE_KEY, f.provenance)
            if not self.gate.may_read(f.uri or ""):  # authorise before embedding (seed 000): the server should have
                f.allowed, f.content = False, None  # checked; consent to the call is not consent to read this URI
                f.notes["permission-denied"] = f"the result embeds {f.uri!r}, which the caller may not read; not kept"
        elif links:
            f.shape = "resource-link"
            f.hints["described"] = wire_fields(links[0])
            await self._take_link(f, links[0], follow=follow_links)
        else:
            f.delivery = "structured" if result.structured_content is not None else "text"
            f.uri = meta.get(URI_KEY) if isinstance(meta.get(URI_KEY), str) else None
            if result.structured_content is not None:
                body = canonical_json(result.structured_content)
                f.mime = "application/json"
                f.content = body
                f.extra["outputSchema"] = bool(tool and tool.output_schema)
            else:
                body = "".join(getattr(b, "text", "") for b in result.content)
                f.mime = "text/plain" if body else None
                f.content = body
            f.size = len(body.encode("utf-8"))
            f.content_digest = "sha256:" + digest(body)
        return self._finish(f)

    async def _take_link(self, f: Facts, link: mt.ResourceLink, *, follow: bool) -> None:
        """Keep the link; following it is a second read through the same gate."""
        f.delivery = "linked"
        check_size(link.size, f"{f.method} {visible(f.target)!r}: the resource_link to {visible(link.uri)!r}")
        f.uri, f.mime = link.uri, link.mime_type
        f.size = link.size or 0
        prov = meta_of(link).get(PROVENANCE_KEY)
        if isinstance(prov, str):
            f.provenance = prov
        f.extra["link"] = {"uri": link.uri, "mimeType": link.mime_type, "declaredSize": link.size, "name": link.name}
        if not follow:
            f.extra["followUp"] = None
            return
        f.exchange["followUpAllowed"] = self.gate.may_read(link.uri)
        if not f.exchange["followUpAllowed"]:
            f.extra["followUp"] = {"uri": link.uri, "permissionChecked": True, "allowed": False, "fetched": False}
            f.notes["link-follow-up-denied"] = (
                f"the link to {link.uri!r} is kept, but the caller may not read it; it was not fetched"
            )
            return
        follow_up = await self.read(link.uri, case_id=f"{f.case_id}:follow-up")
        self.receipts.remove(follow_up)
        f.extra["followUp"] = follow_up.receipt
        f.exchange["followUpAccepted"] = follow_up.accepted
        if not follow_up.accepted:
            f.notes["link-follow-up-failed"] = f"reading {link.uri!r} was rejected: {follow_up.outcome}"
            return
        custody = follow_up.receipt["custody"]
        f.size, f.mime = custody["bytes"], custody["mime"]
        f.provenance = f.provenance or custody["provenance"]
        f.content_digest = follow_up.receipt.get("contentDigest")
        f.content = follow_up.content
