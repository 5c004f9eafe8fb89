"""The recording client: every exchange with a real MCP server becomes an extended custody receipt.

A receipt is built from the *actual* protocol response, never from what a case declared: the URI
and MIME type of the contents item that came back, the byte size and sha256 of the bytes that came
back, the server name and version the connection reported, the method, the template parameters
when the URI matched a template, whether the content was read, embedded or linked, whether the
read came from the client's response cache, and the side effects — declared by the tool's
annotations (or the lab's ``_meta`` declaration) *and* observed by digesting the server's state
resource before and after. The facts are turned into a :class:`~custody_lab.Case` and routed by
the same rule table as the simulator, so the live decision and the simulated one can be compared
field by field (:mod:`custody_lab.live.compare`).

Custody rules for what comes back (seed 000):

- "Recheck authority at every read boundary": every read and call passes :class:`Gate` first; a
  ``resource_link`` is kept as a link and following it is a *second* read through the same gate.
  A link the caller may not read is kept, explained (``link-follow-up-denied``) and never fetched.
- "Choose by freshness and side effects": a tool whose side effects nobody declared is refused
  before it runs (``side-effects-unknown``); a read that changed the server's state is a mutation
  labelled as a resource (``resource-mislabeled-side-effect``); a tool annotated read-only that
  changed state is ``read-only-hint-violated``. A subscription notice is not content: the client
  re-reads through the gate and records the new revision.
- "Budget large context without hiding truncation": an embed over the policy's limit is
  ``embed-over-budget``, computed from the bytes that actually arrived.
- The response cache must not hide staleness: each receipt says whether the read was served from
  the cache (``cache.fromCache``) and a cached answer is not *current*.

Every wait is bounded (``timeout``); a server that does not answer ends in ``server-timeout`` with a
message that says what was waited for.

In Jupyter the kernel already runs an event loop, so use ``await`` in a cell::

    async with LabSession() as s:
        r = await s.read("kb://handbook/v4")

From plain Python (the CLI), :func:`run_sync` runs a coroutine function on a fresh loop.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_TIMEOUT",
    "FIXTURE_EXCHANGES",
    "LIVE_CODES",
    "Exchange",
    "Frame",
    "Gate",
    "LabSession",
    "LiveError",
    "LiveReceipt",
    "LiveTimeout",
    "RecordingCacheStore",
    "Recorder",
    "record_fixture",
    "run_sync",
    "utc_now",
]

import asyncio
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import import_module
from typing import Any, Literal, TypeVar, cast

import anyio
import mcp.types as mt
from mcp import Client
from mcp.client.caching import CacheConfig, CacheEntry, CacheKey, InMemoryResponseCacheStore
from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.uri_template import UriTemplate

from ..core.errors import CustodyLabError
from ..core.model import OPERATIONS, Case, Decision, Policy, TraceStep
from ..core.receipts import canonical_json, digest, extended_receipt
from ..core.router import route
from ..core.rules import rule
from ..protocol.blobs import BlobError, read_contents
from .server import OPERATION_KEY, PROVENANCE_KEY, SIDE_EFFECTS_KEY, STATE_URI, URI_KEY, LabServer

#: Seconds any single exchange may take before it is abandoned (and recorded as a timeout).
DEFAULT_TIMEOUT = 5.0

#: Rejection codes only live mode can produce (the rule table's codes come from the router).
LIVE_CODES: dict[str, str] = {
    "link-follow-up-denied": "the tool returned a link the caller may not read; the link is kept "
    "and explained, and nothing is fetched by a privileged path",
    "link-follow-up-failed": "following the link (a second read through the gate) failed",
    "read-only-hint-violated": "the tool declared itself read-only but the server's state changed",
    "uri-mismatch": "the server answered with contents for a different URI than the one requested",
    "resource-not-found": "the server answered -32602: no such resource",
    "server-error": "the server answered with a protocol error",
    "tool-error": "the tool ran and reported an error (isError)",
    "server-timeout": "the server did not answer within the time limit; the wait was cancelled",
}

_FAILURE_CODES = frozenset(
    {"permission-denied", "side-effects-unknown", "resource-not-found", "server-error", "tool-error", "server-timeout"}
)

_T = TypeVar("_T")
Mode = Literal["modern", "legacy"]


def _test_of(code: str) -> str:
    return LIVE_CODES[code] if code in LIVE_CODES else rule(code).test


class LiveError(CustodyLabError, ValueError):
    """Live mode refused or could not do something; ``.method`` and ``.target`` say what."""

    def __init__(self, message: str, *, method: str | None = None, target: str | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.target = target


class LiveTimeout(LiveError, TimeoutError):
    """A bounded wait ran out (the server hung, or no notice arrived)."""


def utc_now() -> str:
    """The current UTC time in the seed's receipt format (milliseconds, ``Z``).

    Example:
        >>> len(utc_now()), utc_now().endswith("Z")
        (24, True)
    """
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run_sync(async_fn: Callable[..., Awaitable[_T]], *args: Any) -> _T:
    """Run ``async_fn(*args)`` to completion from synchronous code (the CLI, a script).

    Raises:
        LiveError: inside a running event loop (a Jupyter cell): write ``await async_fn(...)``.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(async_fn, *args)
    raise LiveError(
        "an event loop is already running here (a Jupyter kernel runs one): write "
        f"`await {getattr(async_fn, '__name__', 'fn')}(...)` in the cell instead of run_sync"
    )


# ------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """One JSON-RPC message as it crossed the wire, seen from the client."""

    direction: Literal["client→server", "server→client"]
    message: dict[str, Any]

    def summary(self) -> str:
        """One line: arrow, id, method (or result/error)."""
        m = self.message
        arrow = "→" if self.direction == "client→server" else "←"
        ident = f"#{m['id']} " if "id" in m else ""
        if "method" in m:
            params = m.get("params") or {}
            hint = params.get("uri") or params.get("name") or ""
            return f"{arrow} {ident}{m['method']} {hint}".rstrip()
        if "error" in m:
            return f"{arrow} {ident}error {m['error'].get('code')}: {m['error'].get('message')}"
        return f"{arrow} {ident}result ({', '.join(sorted((m.get('result') or {}).keys()))})"


@dataclass(frozen=True)
class Gate:
    """The caller's own permission check, applied before every read and call.

    URIs are matched by prefix; ``deny`` wins over ``allow``; ``"*"`` in ``allow`` allows any URI
    not denied. ``tools=None`` allows every tool not in ``deny_tools``.

    Example:
        >>> g = Gate(deny=("secret://",))
        >>> g.may_read("kb://handbook/v4"), g.may_read("secret://vault/keys")
        (True, False)
    """

    allow: tuple[str, ...] = ("*",)
    deny: tuple[str, ...] = ("secret://",)
    tools: tuple[str, ...] | None = None
    deny_tools: tuple[str, ...] = ()

    def may_read(self, uri: str) -> bool:
        """Whether the caller may read ``uri``."""
        if any(uri.startswith(p) for p in self.deny):
            return False
        return "*" in self.allow or any(uri.startswith(p) for p in self.allow)

    def may_call(self, name: str) -> bool:
        """Whether the caller may call the tool ``name``."""
        if name in self.deny_tools:
            return False
        return self.tools is None or name in self.tools


@dataclass(frozen=True)
class LiveReceipt:
    """One recorded exchange: the decision, its extended receipt, and what actually came back.

    Attributes:
        case_id: the fixture case (or a name you chose) this exchange stands for.
        decision: the router's decision on the case built from the actual response, with any
            live-only rejection applied.
        receipt: the JSON-ready extended receipt (seed shape + live fields).
        content: the bytes or text that came back (for display; never decisive), or ``None``.
        frames: the JSON-RPC frames of this exchange when the session records them.
    """

    case_id: str
    decision: Decision
    receipt: dict[str, Any]
    content: str | bytes | None = None
    frames: tuple[Frame, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.decision.accepted

    @property
    def outcome(self) -> str:
        """The selected shape, or the rejection code."""
        return self.decision.outcome

    @property
    def rejection(self) -> str | None:
        return self.decision.rejection


@dataclass(frozen=True)
class Exchange:
    """One step of the live fixture: which case, and what the client does for it."""

    case_id: str
    kind: Literal["read", "call", "subscribed-read"]
    target: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


#: The six seed cases as real exchanges with the lab server (seed 000, "Run six ... cases").
FIXTURE_EXCHANGES: tuple[Exchange, ...] = (
    Exchange("handbook", "read", "kb://handbook/v4"),
    Exchange("customer-record", "read", "crm://customer/fixture-17"),
    Exchange("generated-report", "call", "generate_report", {"week": 7}),
    Exchange("risk-score", "call", "calculate_risk", {"customer": "crm://customer/fixture-17"}),
    Exchange("live-status", "subscribed-read", "status://service/current"),
    Exchange("approve-draft", "call", "approve_draft", {"draft_id": "9"}),
)


class RecordingCacheStore(InMemoryResponseCacheStore):
    """The SDK's in-memory response cache, counting the fresh entries it serves.

    ``Client`` does not say whether an answer came from its cache; this store does, so a receipt
    can record it (seed 000: "the application can make staleness visible").
    """

    def __init__(self) -> None:
        super().__init__()
        self._hits: dict[tuple[str, str], int] = {}

    async def get(self, key: CacheKey) -> CacheEntry | None:
        entry = await super().get(key)
        if entry is not None and entry.expires_at is not None and entry.expires_at > time.time():
            k = (key.method, key.params_key)
            self._hits[k] = self._hits.get(k, 0) + 1
        return entry

    def take_hit(self, method: str, params_key: str) -> bool:
        """Whether a fresh entry was served for this key since the last call (and reset)."""
        return self._hits.pop((method, params_key), 0) > 0


# ------------------------------------------------------------------------------------------------
# Frames: a transport that records every JSON-RPC message
# ------------------------------------------------------------------------------------------------


def _dump(message: Any) -> dict[str, Any]:
    inner = getattr(message, "message", message)
    if hasattr(inner, "model_dump"):
        return inner.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {"note": repr(inner)}


class _TapRead:
    def __init__(self, stream: Any, frames: list[Frame]) -> None:
        self._s, self._frames = stream, frames

    async def receive(self) -> Any:
        item = await self._s.receive()
        if not isinstance(item, Exception):
            self._frames.append(Frame("server→client", _dump(item)))
        return item

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._s.aclose()

    async def __aenter__(self) -> _TapRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._s.aclose()


class _TapWrite:
    def __init__(self, stream: Any, frames: list[Frame]) -> None:
        self._s, self._frames = stream, frames

    async def send(self, item: Any) -> None:
        self._frames.append(Frame("client→server", _dump(item)))
        await self._s.send(item)

    async def aclose(self) -> None:
        await self._s.aclose()

    async def __aenter__(self) -> _TapWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._s.aclose()


@asynccontextmanager
async def _tapped_transport(server: LowLevelServer[Any], frames: list[Frame]) -> AsyncIterator[Any]:
    """Serve ``server`` over in-memory streams and record every message that crosses them."""
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        done = anyio.Event()

        async def serve() -> None:
            try:
                await server.run(server_streams[0], server_streams[1], server.create_initialization_options())
            finally:
                done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            try:
                yield _TapRead(client_streams[0], frames), _TapWrite(client_streams[1], frames)
            finally:
                await client_streams[1].aclose()
                with anyio.move_on_after(2.0):
                    await done.wait()
                tg.cancel_scope.cancel()


def _lowlevel(server: Any) -> LowLevelServer[Any]:
    mcp_server = getattr(server, "mcp", server)
    if isinstance(mcp_server, MCPServer):
        return mcp_server._lowlevel_server  # noqa: SLF001 - needed to serve over our own streams
    if isinstance(mcp_server, LowLevelServer):
        return mcp_server
    raise LiveError(f"cannot serve {type(server).__name__} in-process: expected an MCPServer")


# ------------------------------------------------------------------------------------------------
# The recorder
# ------------------------------------------------------------------------------------------------


@dataclass
class _Facts:
    """What one exchange established, before it becomes a Case and a receipt."""

    case_id: str
    initiator: Literal["application", "model"]
    operation: str
    shape: str
    method: str
    target: str
    uri: str | None = None
    mime: str | None = None
    size: int = 0
    provenance: str | None = None
    current: bool = True
    allowed: bool = True
    side_effects: bool | None = None
    requires_current: bool = False
    content: str | bytes | None = None
    content_digest: str | None = None
    delivery: str = "none"
    performed: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    live_rejection: tuple[str, str] | None = None
    template_params: dict[str, Any] | None = None


def _meta_of(obj: Any) -> dict[str, Any]:
    meta = getattr(obj, "meta", None)
    return dict(meta) if isinstance(meta, Mapping) else {}


def _item_dict(item: Any) -> dict[str, Any]:
    """A contents item as the wire mapping ``read_contents`` expects."""
    return item.model_dump(by_alias=True, mode="json", exclude_none=True)


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

    async def load_listing(self) -> None:
        """List resources, templates and tools once (needed for shapes and declared side effects)."""
        caps = self.client.server_capabilities
        if caps.resources is not None:
            res = await self._bounded("resources/list", "", self.client.list_resources(cache_mode="bypass"))
            self.listed = {r.uri: r for r in res.resources}
            tpl = await self._bounded(
                "resources/templates/list", "", self.client.list_resource_templates(cache_mode="bypass")
            )
            self.templates = list(tpl.resource_templates)
        if caps.tools is not None:
            tools = await self._bounded("tools/list", "", self.client.list_tools(cache_mode="bypass"))
            self.tools = {t.name: t for t in tools.tools}
            if any(t.output_schema for t in tools.tools):
                # The SDK checks structured results with jsonschema, imported on first use; that
                # one-time import (seconds on a busy machine) must not count against an exchange.
                import_module("jsonschema")
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

    def _template_mime(self, matched: tuple[str, dict[str, Any]] | None) -> str | None:
        if matched is None:
            return None
        return next((t.mime_type for t in self.templates if t.uri_template == matched[0]), None)

    def _declared_side_effects(self, tool: mt.Tool | None) -> tuple[bool | None, str]:
        if tool is None:
            return None, "unknown tool (not in tools/list)"
        ann = tool.annotations
        if ann is not None and ann.read_only_hint is not None:
            return (not ann.read_only_hint), "annotations.readOnlyHint"
        declared = _meta_of(tool).get(SIDE_EFFECTS_KEY)
        if isinstance(declared, bool):
            return declared, f"_meta {SIDE_EFFECTS_KEY}"
        return None, "nobody declared (no readOnlyHint, no lab declaration)"

    def _finish(self, f: _Facts) -> LiveReceipt:
        now = self.clock()
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
        decision = route(case, policy)
        checks = list(f.extra.pop("liveChecks", []))
        if f.live_rejection is not None:
            code, detail = f.live_rejection
            checks.append({"code": code, "passed": False, "detail": detail})
            # A failed exchange has nothing to route: its own code wins. The other live checks
            # (link follow-up, read-only hint, URI mismatch) apply after the rule table passed.
            if decision.accepted or code in _FAILURE_CODES:
                decision = replace(
                    decision,
                    accepted=False,
                    selected=None,
                    rejection=code,
                    trace=decision.trace + (TraceStep(code, "failed", _test_of(code)),),
                )
        extra: dict[str, Any] = {
            "method": f.method,
            "target": f.target,
            "server": self._server(),
            "protocolVersion": self.client.protocol_version,
            "performed": f.performed,
            "delivery": f.delivery,
            "contentDigest": f.content_digest,
            **f.extra,
            "liveChecks": checks,
        }
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
        listed = self.listed.get(uri)
        f = _Facts(
            case_id=case_id or uri,
            initiator="application",
            operation=operation or ("read-template" if matched else "read"),
            shape="templated-resource" if matched else "listed-resource",
            method="resources/read",
            target=uri,
            uri=uri,
            mime=listed.mime_type if listed else self._template_mime(matched),
            requires_current=requires_current,
            template_params=matched[1] if matched else None,
        )
        if matched:
            f.extra["template"] = matched[0]
        if trigger:
            f.extra["trigger"] = trigger
        if not self.gate.may_read(uri):
            f.allowed, f.performed, f.side_effects = False, False, False
            f.extra["error"] = f"the gate refused to read {uri!r}; nothing was fetched"
            f.live_rejection = ("permission-denied", f.extra["error"])
            return self._finish(f)
        before = await self.state_digest()
        try:
            result = await self._bounded("resources/read", uri, self.client.read_resource(uri, cache_mode=cache_mode))
        except LiveTimeout as e:
            return self._failed(f, "server-timeout", str(e))
        except MCPError as e:
            code = "resource-not-found" if e.code == mt.INVALID_PARAMS else "server-error"
            return self._failed(f, code, f"{e.code}: {e.error.message}")
        from_cache = self.cache_store.take_hit("resources/read", uri) if self.cache_store else None
        after = await self.state_digest()
        f.current = not from_cache
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
            f.live_rejection = ("uri-mismatch", f"asked for {uri!r}, the contents item says {item.uri!r}")
        observed = None if before is None or after is None else before != after
        f.side_effects = bool(observed) if observed is not None else False
        f.extra["sideEffectsEvidence"] = {
            "declared": False,
            "observed": observed,
            "source": "state digest before/after"
            if observed is not None
            else "protocol contract only (no state resource to observe)",
        }
        return self._finish(f)

    def _take_contents(self, f: _Facts, item: Any, *, delivery: str) -> None:
        """Fill URI, MIME type, size, digest and provenance from a contents item."""
        f.delivery = delivery
        f.uri = item.uri
        f.mime = item.mime_type
        meta = _meta_of(item)
        if isinstance(meta.get(PROVENANCE_KEY), str):
            f.provenance = meta[PROVENANCE_KEY]
        try:
            reading = read_contents(_item_dict(item))
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

    def _failed(self, f: _Facts, code: str, message: str) -> LiveReceipt:
        f.performed = code != "server-timeout"
        f.extra["error"] = message
        f.live_rejection = (code, message)
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
        op = _meta_of(tool).get(OPERATION_KEY) if tool else None
        f = _Facts(
            case_id=case_id or name,
            initiator="model",
            operation=op if op in OPERATIONS else ("mutate" if declared else "calculate"),
            shape="structured-tool-result",
            method="tools/call",
            target=name,
            side_effects=declared,
        )
        f.extra["arguments"] = args
        evidence: dict[str, Any] = {"declared": declared, "observed": None, "source": source}
        f.extra["sideEffectsEvidence"] = evidence
        if not self.gate.may_call(name):
            f.allowed, f.performed = False, False
            f.extra["error"] = f"the gate refused to call {name!r}; it did not run"
            f.live_rejection = ("permission-denied", f.extra["error"])
            return self._finish(f)
        if declared is None and not self.allow_unknown_side_effects:
            f.performed = False
            f.extra["error"] = (
                f"{name!r} was not called: {source}; seed 000 says reject an "
                "operation whose side effects nobody can state before it runs"
            )
            f.live_rejection = ("side-effects-unknown", f.extra["error"])
            return self._finish(f)
        before = await self.state_digest()
        try:
            result = await self._bounded("tools/call", name, self.client.call_tool(name, args))
        except LiveTimeout as e:
            return self._failed(f, "server-timeout", str(e))
        except MCPError as e:
            return self._failed(f, "server-error", f"{e.code}: {e.error.message}")
        after = await self.state_digest()
        observed = None if before is None or after is None else before != after
        evidence["observed"] = observed
        if observed is not None:
            f.side_effects = observed if declared is None else (declared or observed)
            if declared is False and observed:
                f.live_rejection = (
                    "read-only-hint-violated",
                    f"{name!r} declared read-only ({source}) but the state digest changed",
                )
        meta = _meta_of(result)
        if isinstance(meta.get(PROVENANCE_KEY), str):
            f.provenance = meta[PROVENANCE_KEY]
        if result.is_error:
            text = " ".join(getattr(b, "text", "") for b in result.content)
            f.uri = meta.get(URI_KEY) if isinstance(meta.get(URI_KEY), str) else None
            return self._failed_keep(f, "tool-error", text[:500])
        embedded = [b for b in result.content if isinstance(b, mt.EmbeddedResource)]
        links = [b for b in result.content if isinstance(b, mt.ResourceLink)]
        f.extra["contentTypes"] = [b.type for b in result.content]
        if embedded:
            f.shape = "embedded-resource"
            self._take_contents(f, embedded[0].resource, delivery="embedded")
            f.provenance = _meta_of(embedded[0].resource).get(PROVENANCE_KEY, f.provenance)
        elif links:
            f.shape = "resource-link"
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

    def _failed_keep(self, f: _Facts, code: str, message: str) -> LiveReceipt:
        f.extra["error"] = message
        f.live_rejection = (code, message)
        return self._finish(f)

    async def _take_link(self, f: _Facts, link: mt.ResourceLink, *, follow: bool) -> None:
        """Keep the link; following it is a second read through the same gate."""
        f.delivery = "linked"
        f.uri, f.mime = link.uri, link.mime_type
        f.size = link.size or 0
        prov = _meta_of(link).get(PROVENANCE_KEY)
        if isinstance(prov, str):
            f.provenance = prov
        f.extra["link"] = {"uri": link.uri, "mimeType": link.mime_type, "declaredSize": link.size, "name": link.name}
        if not follow:
            f.extra["followUp"] = None
            return
        if not self.gate.may_read(link.uri):
            f.extra["followUp"] = {"uri": link.uri, "permissionChecked": True, "allowed": False, "fetched": False}
            f.live_rejection = (
                "link-follow-up-denied",
                f"the link to {link.uri!r} is kept, but the caller may not read it; it was not fetched",
            )
            return
        follow_up = await self.read(link.uri, case_id=f"{f.case_id}:follow-up")
        self.receipts.remove(follow_up)
        f.extra["followUp"] = follow_up.receipt
        if not follow_up.accepted:
            f.live_rejection = ("link-follow-up-failed", f"reading {link.uri!r} was rejected: {follow_up.outcome}")
            return
        custody = follow_up.receipt["custody"]
        f.size, f.mime = custody["bytes"], custody["mime"]
        f.provenance = f.provenance or custody["provenance"]
        f.content_digest = follow_up.receipt.get("contentDigest")
        f.content = follow_up.content


# ------------------------------------------------------------------------------------------------
# The session
# ------------------------------------------------------------------------------------------------


class Watch:
    """An open subscription to one URI; :meth:`next_notice` waits (bounded) for a change notice."""

    def __init__(self, uri: str, receive: Callable[[], Awaitable[str]], timeout: float) -> None:
        self.uri = uri
        self._receive = receive
        self._timeout = timeout
        self.notices: list[str] = []

    async def next_notice(self, timeout: float | None = None) -> str:
        """The URI of the next update notice; :class:`LiveTimeout` when none arrives in time."""
        limit = self._timeout if timeout is None else timeout
        try:
            with anyio.fail_after(limit):
                uri = await self._receive()
        except TimeoutError as e:
            raise LiveTimeout(
                f"no update notice for {self.uri!r} within {limit:g} s",
                method="notifications/resources/updated",
                target=self.uri,
            ) from e
        self.notices.append(uri)
        return uri


class LabSession:
    """An MCP client session with the lab server (or any in-process ``MCPServer``), recording.

    Use it with ``async with`` (top-level ``await`` works in a Jupyter cell)::

        async with LabSession() as s:                   # the lab server, protocol 2026-07-28
            handbook = await s.read("kb://handbook/v4")
            report = await s.call("generate_report", {"week": 7})

    Args:
        server: a :class:`~custody_lab.live.server.LabServer`, a
            :class:`~custody_lab.live.hostile.HostileServer` or any ``MCPServer``; a fresh
            ``LabServer`` when omitted.
        mode: ``"modern"`` (2026-07-28) or ``"legacy"`` (2025-11-25, initialize handshake).
        frames: record every JSON-RPC frame (the session then runs over in-memory streams).
        gate, policy, timeout, clock, allow_unknown_side_effects: see :class:`Recorder`.
        cache: keep the SDK's response cache on (it serves fresh entries per ``ttlMs``).
    """

    def __init__(
        self,
        server: Any = None,
        *,
        mode: Mode = "modern",
        frames: bool = False,
        gate: Gate | None = None,
        policy: Policy | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        cache: bool = True,
        clock: Callable[[], str] = utc_now,
        allow_unknown_side_effects: bool = False,
    ) -> None:
        if mode not in ("modern", "legacy"):
            raise LiveError(f"mode must be 'modern' or 'legacy'; got {mode!r}")
        self.server = server if server is not None else LabServer()
        self.mode = mode
        self.record_frames = frames
        self.frames: list[Frame] = []
        self.timeout = timeout
        self.cache_store = RecordingCacheStore() if cache else None
        self._gate, self._policy, self._clock = gate, policy, clock
        self._allow_unknown = allow_unknown_side_effects
        self._notices: dict[str, tuple[Any, Any]] = {}
        self._client: Client | None = None
        self._recorder: Recorder | None = None

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mt.ResourceUpdatedNotification):
            pair = self._notices.get(message.params.uri)
            if pair is not None:
                try:
                    pair[0].send_nowait(message.params.uri)
                except anyio.WouldBlock:
                    pass  # a backlog of identical notices carries no more information
        await anyio.lowlevel.checkpoint()

    async def __aenter__(self) -> LabSession:
        target = getattr(self.server, "mcp", self.server)
        name = getattr(target, "name", "server")
        cache = (
            CacheConfig(store=self.cache_store, partition="custody-lab", target_id=f"in-process:{name}:{id(target)}")
            if self.cache_store is not None
            else None
        )
        common: dict[str, Any] = {
            "message_handler": self._on_message,
            "cache": cache,
            "read_timeout_seconds": self.timeout + 1.0,
        }
        if self.record_frames:
            transport = _tapped_transport(_lowlevel(self.server), self.frames)
            # "auto" probes server/discover first (a frame worth seeing), which also brings the
            # server's real capabilities; pinning "2026-07-28" would synthesize empty ones.
            client = Client(transport, mode="legacy" if self.mode == "legacy" else "auto", **common)
        else:
            in_process = cast(MCPServer[Any], target)
            client = Client(in_process, mode="legacy" if self.mode == "legacy" else "auto", **common)
        await client.__aenter__()
        self._client = client
        try:
            self._recorder = Recorder(
                client,
                gate=self._gate,
                policy=self._policy,
                state_uri=STATE_URI,
                timeout=self.timeout,
                cache_store=self.cache_store,
                clock=self._clock,
                allow_unknown_side_effects=self._allow_unknown,
                frames=self.frames,
            )
            await self._recorder.load_listing()
        except BaseException:
            await client.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._client is not None:
            await self._client.__aexit__(*exc)
            self._client = None

    @property
    def client(self) -> Client:
        """The underlying ``mcp.Client`` (inside ``async with`` only)."""
        if self._client is None:
            raise LiveError("the session is not open: use `async with LabSession() as s:`")
        return self._client

    @property
    def recorder(self) -> Recorder:
        if self._recorder is None:
            raise LiveError("the session is not open: use `async with LabSession() as s:`")
        return self._recorder

    @property
    def receipts(self) -> list[LiveReceipt]:
        """Every receipt recorded so far, in order."""
        return self.recorder.receipts

    def _with_frames(self, start: int, receipt: LiveReceipt) -> LiveReceipt:
        if not self.record_frames:
            return receipt
        framed = replace(receipt, frames=tuple(self.frames[start:]))
        self.recorder.receipts[-1] = framed
        return framed

    async def read(self, uri: str, **kwargs: Any) -> LiveReceipt:
        """Read through the gate and record (see :meth:`Recorder.read`)."""
        start = len(self.frames)
        return self._with_frames(start, await self.recorder.read(uri, **kwargs))

    async def call(self, name: str, arguments: Mapping[str, Any] | None = None, **kwargs: Any) -> LiveReceipt:
        """Call a tool through the gate and record (see :meth:`Recorder.call`)."""
        start = len(self.frames)
        return self._with_frames(start, await self.recorder.call(name, arguments, **kwargs))

    @asynccontextmanager
    async def watch(self, uri: str) -> AsyncIterator[Watch]:
        """Subscribe to ``uri`` for the duration of the block.

        2026-07-28: a ``subscriptions/listen`` stream. 2025-11-25: ``resources/subscribe`` and
        the ``notifications/resources/updated`` messages the session receives.
        """
        client = self.client
        if self.mode == "modern":
            async with client.listen(resource_subscriptions=[uri]) as sub:

                async def receive_modern() -> str:
                    event = await sub.__anext__()
                    return str(getattr(event, "uri", uri))

                yield Watch(uri, receive_modern, self.timeout)
            return
        send, recv = anyio.create_memory_object_stream[str](16)
        self._notices[uri] = (send, recv)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await self.recorder._bounded("resources/subscribe", uri, client.subscribe_resource(uri))
            yield Watch(uri, recv.receive, self.timeout)
        finally:
            self._notices.pop(uri, None)
            send.close()
            recv.close()
            with warnings.catch_warnings(), anyio.move_on_after(self.timeout, shield=True):
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.unsubscribe_resource(uri)

    async def reread_on_notice(
        self, watch: Watch, *, case_id: str | None = None, timeout: float | None = None
    ) -> LiveReceipt:
        """Wait for the next notice, then read again through the gate (a notice is not content)."""
        uri = await watch.next_notice(timeout)
        return await self.read(
            uri,
            case_id=case_id,
            operation="read-subscribed",
            requires_current=True,
            trigger="notifications/resources/updated",
        )

    async def run(self, exchange: Exchange) -> LiveReceipt:
        """Perform one :class:`Exchange` and return its receipt."""
        if exchange.kind == "read":
            return await self.read(exchange.target, case_id=exchange.case_id)
        if exchange.kind == "call":
            return await self.call(exchange.target, exchange.arguments, case_id=exchange.case_id)
        async with self.watch(exchange.target):
            return await self.read(
                exchange.target, case_id=exchange.case_id, operation="read-subscribed", requires_current=True
            )

    async def record_fixture(self, exchanges: Sequence[Exchange] = FIXTURE_EXCHANGES) -> list[LiveReceipt]:
        """Run the six seed exchanges (by default) and return their receipts in order."""
        return [await self.run(x) for x in exchanges]


async def record_fixture(**session_kwargs: Any) -> list[LiveReceipt]:
    """Open a session with a fresh lab server, run the six seed exchanges, return the receipts.

    In a notebook: ``receipts = await record_fixture()``; from a script:
    ``run_sync(record_fixture)``.
    """
    async with LabSession(**session_kwargs) as session:
        return await session.record_fixture()
