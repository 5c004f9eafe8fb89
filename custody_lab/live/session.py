"""The session: :class:`LabSession` opens an MCP client on a server and records every exchange.

In Jupyter the kernel already runs an event loop, so use ``await`` in a cell::

    async with LabSession() as s:
        r = await s.read("kb://handbook/v4")

From plain Python (the CLI), :func:`run_sync` runs a coroutine function on a fresh loop. What each
receipt holds is described in :mod:`custody_lab.live.live_receipts`.
"""

from __future__ import annotations

__all__ = ["LabSession", "Mode", "Watch", "record_fixture", "run_sync"]

import asyncio
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, Literal, TypeVar, cast

import anyio
import mcp.types as mt
from mcp import Client
from mcp.client.caching import CacheConfig
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

from ..core.model import Policy
from .elicitation import Answer, ElicitationDesk
from .fixture_exchanges import FIXTURE_EXCHANGES, Exchange
from .gate import Gate
from .lab_server import LabServer
from .lab_tasks import TaskPoller
from .limits import DEFAULT_TIMEOUT, bounded
from .live_errors import LiveError, LiveTimeout
from .live_receipts import LiveReceipt, utc_now
from .meta_keys import STATE_URI
from .recorder import Recorder
from .transport import Frame, RecordingCacheStore, lowlevel_server, tapped_transport

#: The protocol a session speaks: ``"modern"`` (2026-07-28) or ``"legacy"`` (2025-11-25 handshake).
Mode = Literal["modern", "legacy"]

_T = TypeVar("_T")


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
        server: a :class:`~custody_lab.live.lab_server.LabServer`, a
            :class:`~custody_lab.live.hostile_server.HostileServer` or any ``MCPServer``; a fresh
            ``LabServer`` when omitted.
        mode: ``"modern"`` (2026-07-28) or ``"legacy"`` (2025-11-25, initialize handshake).
        frames: record every JSON-RPC frame (the session then runs over in-memory streams).
        gate, policy, timeout, clock, allow_unknown_side_effects: see :class:`Recorder`.
        answers: what people answered to a server's elicitation, by tool or URI
            (:class:`~custody_lab.live.elicitation.Answer`); a request nobody answered is declined.
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
        answers: Sequence[Answer] = (),
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
        #: the host at an elicitation: answers only with a person's answer for that tool or URI
        self.desk = ElicitationDesk(list(answers))
        #: the client's end of the tasks extension (polls a task until it ends)
        self.tasks = TaskPoller()

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
            "elicitation_callback": self.desk,
            "extensions": [self.tasks],
        }
        if self.record_frames:
            transport = tapped_transport(lowlevel_server(self.server), self.frames)
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
                desk=self.desk,
                tasks=self.tasks,
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
                await bounded("resources/subscribe", uri, client.subscribe_resource(uri), self.timeout)
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
