"""The recorder: every exchange with a real MCP server becomes an extended custody receipt.

A receipt is built from the *actual* protocol response, never from what a case declared: the URI
and MIME type of the contents item that came back, the byte size and sha256 of the bytes that came
back, the server name and version the connection reported, the method, the template parameters
when the URI matched a template, whether the content was read, embedded or linked, whether the
read came from the client's response cache, and the side effects — declared by the lab's ``_meta``
declaration (a tool's ``readOnlyHint`` is shown, never used) *and* observed by digesting the
server's state resource before and after.

The recorder only observes. What it saw becomes a :class:`~custody_lab.Case` plus a mapping of
exchange facts (:data:`~custody_lab.core.rules.EXCHANGE_FACTS`: timed out, the error code, the
requested URI, declared and observed side effects, the link follow-up), and
:func:`~custody_lab.route` decides through the same loop as the simulator, walking
:data:`~custody_lab.core.rules.LIVE_RULES`; the trace has exactly one failed step when rejected.

Custody rules for what comes back (seed 000):

- "Recheck authority at every read boundary": every read and call passes
  :class:`~custody_lab.live.gate.Gate` first; a ``resource_link`` is kept as a link and
  following it is a *second* read through the same gate. A link the caller may not read is kept,
  explained (``link-follow-up-denied``) and never fetched.
- "Choose by freshness and side effects": a tool whose side effects nobody declared is refused
  before it runs (``side-effects-unknown``); a read that changed the server's state is a mutation
  labelled as a resource (``resource-mislabeled-side-effect``); a tool declared free of side
  effects that changed state is ``read-only-hint-violated``. A ``readOnlyHint`` changes none of
  these decisions (MCP 2025-03-26 and later: annotations from an untrusted server are untrusted).
- "Budget large context without hiding truncation": an embed over the policy's limit is
  ``embed-over-budget``, computed from the bytes that actually arrived.
- The response cache must not hide staleness: each receipt says whether the read was served from
  the cache (``cache.fromCache``) and a cached answer is not *current*.

Every wait is bounded (``timeout``); a server that does not answer ends in ``server-timeout`` with a
message that says what was waited for.
"""

from __future__ import annotations

__all__ = ["Recorder", "server_identity"]

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

import mcp.types as mt
from mcp import Client
from mcp.shared.exceptions import MCPError

from ..core.model import Policy
from ..core.receipts import digest
from .elicitation import ElicitationDesk
from .flow_receipts import take_flows
from .gate import Gate, refuse_call, refuse_embedded, refuse_follow_up, refuse_read, refuse_undeclared
from .lab_tasks import TaskPoller
from .limits import DEFAULT_TIMEOUT, bounded
from .live_errors import LiveTimeout
from .live_receipts import (
    Facts,
    LiveReceipt,
    build_receipt,
    call_facts,
    failed,
    read_facts,
    take_call_result,
    take_read_result,
    utc_now,
    wire_fields,
)
from .prompt_receipts import prompt_receipt
from .server_listing import ServerListing
from .transport import Frame, RecordingCacheStore

_T = TypeVar("_T")


def server_identity(client: Client) -> dict[str, Any]:
    """The server's ``serverInfo`` name and version as a receipt names them (``None`` when not given)."""
    info = client.server_info
    return {"name": info.name if info else None, "version": info.version if info else None}


class Recorder:
    """Turns reads and calls on a connected ``mcp.Client`` into :class:`LiveReceipt` values.

    The exchange steps live here (the gate checks first, the bounded request, the state digest
    before and after, the cache, a link's follow-up); what the answer means for custody is decided
    by :mod:`~custody_lab.live.live_receipts`, the builder ``custody-lab serve`` uses too.

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
        desk: ElicitationDesk | None = None,
        tasks: TaskPoller | None = None,
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
        #: the host's elicitation callback and the client's task poller, when the client has them
        self.desk, self.tasks = desk, tasks
        #: what the server lists (resources, templates, tools), loaded by :meth:`load_listing`
        self.listing = ServerListing()
        self.receipts: list[LiveReceipt] = []
        #: the last ``tools/call`` result as it arrived (the audit reports every content block)
        self.last_result: mt.CallToolResult | None = None
        #: receipts of ``prompts/get`` (not routed: a prompt is not one of the seed's shapes)
        self.prompt_receipts: list[dict[str, Any]] = []

    # -- the listing ---------------------------------------------------------------------------

    @property
    def listed(self) -> dict[str, mt.Resource]:
        """Listed resources by URI."""
        return self.listing.listed

    @property
    def templates(self) -> list[mt.ResourceTemplate]:
        """Resource templates, in the order listed."""
        return self.listing.templates

    @property
    def tools(self) -> dict[str, mt.Tool]:
        """Tools by name."""
        return self.listing.tools

    @property
    def prompts(self) -> dict[str, mt.Prompt]:
        """Prompts by name (listed by :meth:`load_prompts`)."""
        return self.listing.prompts

    @property
    def listing_notes(self) -> list[str]:
        """What the listing left out (a page cap that cut it), for reports."""
        return self.listing.notes

    async def load_listing(self) -> None:
        """List resources, templates and tools, every page (see :meth:`ServerListing.load`)."""
        await self.listing.load(self.client, self.timeout)
        if self.state_uri is not None and self.state_uri not in self.listed:
            self.state_uri = None

    async def load_prompts(self) -> None:
        """List the server's prompts, every page (see :meth:`ServerListing.load_prompts`)."""
        await self.listing.load_prompts(self.client, self.timeout)

    def match_template(self, uri: str) -> tuple[str, dict[str, Any]] | None:
        """The first listed template ``uri`` matches, with its parameters; ``None`` otherwise."""
        return self.listing.match_template(uri)

    # -- steps every exchange shares -----------------------------------------------------------

    async def bounded(self, what: str, target: str, awaitable: Awaitable[_T]) -> _T:
        """Await one request for at most :attr:`timeout` seconds (:func:`~custody_lab.live.limits.bounded`)."""
        return await bounded(what, target, awaitable, self.timeout)

    async def state_digest(self) -> str | None:
        """The sha256 of the state resource now, or ``None`` when there is none to read."""
        if self.state_uri is None:
            return None
        try:
            res = await self.bounded(
                "resources/read", self.state_uri, self.client.read_resource(self.state_uri, cache_mode="bypass")
            )
        except (MCPError, LiveTimeout):
            return None  # unobserved, not "unchanged": the receipt says observed=None
        parts = [str(getattr(c, "text", None) or getattr(c, "blob", "")) for c in res.contents]
        return digest("\n".join(parts))

    async def _exchange(self, f: Facts, what: str, awaitable: Awaitable[_T]) -> tuple[_T | None, bool | None]:
        """Send one request between two state digests: ``(result, observed side effects)``, or
        ``(None, None)`` with ``f`` marked failed (a timeout or an error answer)."""
        before = await self.state_digest()
        asked, tasked = len(self.desk.log) if self.desk else 0, len(self.tasks.log) if self.tasks else 0
        if self.desk is not None:
            self.desk.target, self.desk.arguments = f.target, f.extra.get("arguments")
            self.desk.server = server_identity(self.client)["name"]
        try:
            result = await self.bounded(what, f.target, awaitable)
        except LiveTimeout as e:
            failed(f, str(e), timedOut=True)
            return None, None
        except MCPError as e:
            failed(f, f"{e.code}: {e.error.message}", errorCode=e.code)
            return None, None
        finally:
            f.extra["_flows"] = (asked, tasked)
        after = await self.state_digest()
        return result, None if before is None or after is None else before != after

    def _take_flows(self, f: Facts) -> None:
        """The exchange's elicitations and task, from the desk's and the poller's logs."""
        marks = f.extra.pop("_flows", None)
        if marks is None:  # refused before anything was sent
            return
        entries = self.desk.log[marks[0] :] if self.desk else []
        tasks = self.tasks.log[marks[1] :] if self.tasks else []
        take_flows(f, entries, tasks, self.clock())

    def _finish(self, f: Facts) -> LiveReceipt:
        self._take_flows(f)
        server = server_identity(self.client)
        live = build_receipt(
            f, server=server, protocol_version=self.client.protocol_version, policy=self.policy, now=self.clock()
        )
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
        matched, listed = self.listing.described(uri)
        f = read_facts(
            uri,
            listed=wire_fields(listed),
            matched=matched,
            case_id=case_id,
            operation=operation,
            requires_current=requires_current,
        )
        if trigger:
            f.extra["trigger"] = trigger
        if not self.gate.may_read(uri):
            refuse_read(f)
            return self._finish(f)
        result, observed = await self._exchange(
            f, "resources/read", self.client.read_resource(uri, cache_mode=cache_mode)
        )
        if result is None:
            return self._finish(f)
        from_cache = self.cache_store.take_hit("resources/read", uri) if self.cache_store else None
        f.current = not from_cache
        f.extra["cache"] = {
            "mode": cache_mode,
            "fromCache": from_cache,
            "ttlMs": result.ttl_ms if "ttl_ms" in result.model_fields_set else None,
        }
        take_read_result(f, wire_fields(result) or {}, observed=observed)
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
        f = call_facts(name, args, tool=wire_fields(self.tools.get(name)), case_id=case_id)
        if not self.gate.may_call(name):
            refuse_call(f)
            return self._finish(f)
        if f.exchange["declaredSideEffects"] is None and not self.allow_unknown_side_effects:
            refuse_undeclared(f)
            return self._finish(f)
        result, observed = await self._exchange(f, "tools/call", self.client.call_tool(name, args))
        if result is None:
            return self._finish(f)
        self.last_result = result
        take_call_result(f, wire_fields(result) or {}, observed=observed)
        refuse_embedded(self.gate, f)
        if f.delivery == "linked" and follow_links:
            await self._follow(f)
        return self._finish(f)

    # -- prompts -------------------------------------------------------------------------------

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Get a prompt once and receipt every block of its messages (:func:`prompt_receipt`).

        The state ledger is digested before and after, as for a call: MCP makes no promise that
        ``prompts/get`` is free of side effects.
        """
        args = dict(arguments or {})
        before = await self.state_digest()
        result: mt.GetPromptResult | None = None
        exchange: dict[str, Any] = {}
        error = None
        try:
            result = await self.bounded("prompts/get", name, self.client.get_prompt(name, args))
        except LiveTimeout as e:
            exchange["timedOut"], error = True, str(e)
        except MCPError as e:
            exchange["errorCode"], error = e.code, f"{e.code}: {e.error.message}"
        after = await self.state_digest() if result is not None else None
        observed = None if before is None or after is None else before != after
        server = server_identity(self.client)
        rec = prompt_receipt(
            name,
            args,
            result=wire_fields(result),
            exchange=exchange,
            error=error,
            observed=observed,
            server=server,
            protocol_version=self.client.protocol_version,
            now=self.clock(),
        )
        self.prompt_receipts.append(rec)
        return rec

    async def _follow(self, f: Facts) -> None:
        """Follow the link ``f`` kept: a second read through the same gate, recorded inside ``f``."""
        uri = f.extra["link"]["uri"]
        if refuse_follow_up(self.gate, f, uri):
            return
        follow_up = await self.read(uri, case_id=f"{f.case_id}:follow-up")
        self.receipts.remove(follow_up)
        f.extra["followUp"] = follow_up.receipt
        f.exchange["followUpAccepted"] = follow_up.accepted
        if not follow_up.accepted:
            f.notes["link-follow-up-failed"] = f"reading {uri!r} was rejected: {follow_up.outcome}"
            return
        custody = follow_up.receipt["custody"]
        f.size, f.mime = custody["bytes"], custody["mime"]
        f.provenance = f.provenance or custody["provenance"]
        f.content_digest = follow_up.receipt.get("contentDigest")
        f.content = follow_up.content
