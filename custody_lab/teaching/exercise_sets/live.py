"""Live-server exercises (notebook 07): custody decisions about what a real MCP exchange did.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
live-01   2      an update notice arrives for ``status://service/current``: what must the client do
live-02   3      a tool returns a ``resource_link`` the caller may not read: what the receipt records
live-03   2      the status changed, nobody subscribed, the client's cache still holds the old
                 answer: the outcome of a read that needs current content
========  =====  ===================================================================

Every reference is computed by running the in-process lab server and the lab's recording client
(:class:`~custody_lab.live.session.LabSession`) once per kernel, on a fresh event loop in a worker
thread (a notebook's kernel already runs a loop in its own thread, where a second cannot start).
A run takes well under a second after the ``mcp`` import; nothing is typed in by hand.

Where a rule is the lab's own and not the protocol's, the prompt and hints say "the lab's host
policy"; protocol claims name the revision they hold for.
"""

from __future__ import annotations

__all__: list[str] = [
    "EXERCISES",
    "NOTICE_OPTIONS",
    "STATUS",
    "CachedRead",
    "DeniedLink",
    "NoticeSeen",
    "cached_read",
    "denied_link",
    "notice_seen",
    "run_exchange",
]

import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from ...core.model import SHAPES
from ..exercises import Exercise, Mistake
from . import _answers as ans

_T = TypeVar("_T")

#: The status document the server changes during an incident (the fixture's live-status case).
STATUS = "status://service/current"
#: The tool whose report travels as a resource_link, and the URI prefix the caller may not read.
_REPORT_TOOL, _REPORT_PREFIX = "generate_report", "report://"


def run_exchange(async_fn: Callable[[], Awaitable[_T]]) -> _T:
    """Run ``async_fn()`` to completion on a fresh event loop in a worker thread."""
    from ...live.session import run_sync  # mcp and anyio, loaded on first use

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="custody-lab-exercise") as pool:
        return pool.submit(run_sync, async_fn).result()


def _code(answer: object) -> str | None:
    text = ans.text(answer)
    return None if text is None else text.lower()


# --------------------------------------------------------------------------------------------
# live-01: an update notice arrives
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoticeSeen:
    """What the lab's client did when ``notifications/resources/updated`` came for the status.

    Attributes:
        notices: what each notice carried (the URI that changed; nothing else reaches the client).
        method: the request the client sent after the notice.
        trigger: what the new receipt names as the reason for the read.
        from_cache: whether that read was answered from the client's response cache.
        new_content: whether the new receipt's content digest differs from the first read's.
        revoked_outcome: the outcome of the same re-read after the caller lost the right to read
            ``status://`` (the gate was asked again, or it was not).
    """

    notices: tuple[str, ...]
    method: str
    trigger: str | None
    from_cache: bool | None
    new_content: bool
    revoked_outcome: str


@functools.cache
def notice_seen() -> NoticeSeen:
    """Subscribe, read, let the server change the status, and watch what the client does (twice).

    Example:
        >>> seen = notice_seen()
        >>> seen.method, seen.trigger, seen.revoked_outcome
        ('resources/read', 'notifications/resources/updated', 'permission-denied')
    """
    from ...live.gate import Gate
    from ...live.session import LabSession

    async def exchange() -> NoticeSeen:
        async with LabSession() as s:
            async with s.watch(STATUS) as watch:
                before = await s.read(STATUS, operation="read-subscribed")
                await s.server.advance_status()
                after = await s.reread_on_notice(watch, timeout=3)
                # The caller loses the right to read status:// while it is still subscribed.
                s.recorder.gate = Gate(deny=(*s.recorder.gate.deny, "status://"))
                await s.server.advance_status()
                revoked = await s.reread_on_notice(watch, timeout=3)
            return NoticeSeen(
                notices=tuple(watch.notices),
                method=after.receipt["method"],
                trigger=after.receipt.get("trigger"),
                from_cache=after.receipt.get("cache", {}).get("fromCache"),
                new_content=after.receipt["contentDigest"] != before.receipt["contentDigest"],
                revoked_outcome=revoked.outcome,
            )

    return run_exchange(exchange)


_Option = ans.Option[NoticeSeen]  # one choice and the observation that makes it true


NOTICE_OPTIONS = (
    _Option(
        "notice-as-content",
        "put the notice itself into the model's context: it is the server's word on the new status",
        lambda seen: any(notice != STATUS for notice in seen.notices),
    ),
    _Option(
        "re-read-gated",
        "read `status://service/current` again with `resources/read`, asking the caller's permission "
        "gate again for that read, and record a new receipt for what comes back",
        lambda seen: (
            seen.method == "resources/read"
            and seen.trigger == "notifications/resources/updated"
            and seen.from_cache is False
            and seen.new_content
            and seen.revoked_outcome == "permission-denied"
        ),
    ),
    _Option(
        "keep-cached",
        "keep the answer it already holds: it was read a moment ago and its `ttlMs` has not run out",
        lambda seen: seen.from_cache is True or not seen.new_content,
    ),
    _Option(
        "re-read-ungated",
        "read it again but skip the permission gate: the caller was checked when it subscribed",
        lambda seen: seen.revoked_outcome != "permission-denied",
    ),
)


def _what_the_client_does() -> str:
    return ans.the_one("live-01", NOTICE_OPTIONS, notice_seen(), "describe what the client did")


_LIVE_01 = Exercise(
    id="live-01",
    title="A notice arrives: what must the client do?",
    why=(
        "a notification carries the URI, never the content, and permission is checked on every read: the "
        "client reads again through the gate and writes a new receipt for what comes back"
    ),
    level=2,
    prompt=(
        f"The client subscribed to `{STATUS}` and read it. Then the server sends "
        "`notifications/resources/updated` for that URI. Before the model sees the status again, "
        "what must the client do under the lab's host policy? Answer with the code of one option, "
        "as text.\n\n" + "\n".join(f"- `{o.code}`: {o.text}" for o in NOTICE_OPTIONS)
    ),
    input_label=f"an update notice for {STATUS}",
    wanted="the code of one option, as text",
    parse="text",
    reference=_what_the_client_does,
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "took-the-notice-for-content",
            lambda a: _code(a) == "notice-as-content",
            "A notice says *that* something changed, not *what* it now says: its params carry the "
            "URI only (2025-11-25; under 2026-07-28 the same event arrives on a `subscriptions/listen` "
            "stream). Which option gets the new contents, with a receipt?",
            example="notice-as-content",
        ),
        Mistake(
            "trusted-the-cache",
            lambda a: _code(a) == "keep-cached",
            "The notice is exactly the news that the answer the client holds is out of date. `ttlMs` "
            "(2026-07-28) says how long the server lets a client reuse an answer when nothing is "
            "known to have changed; here something is known to have changed.",
            example=" Keep-Cached ",
        ),
        Mistake(
            "checked-once-per-subscription",
            lambda a: _code(a) == "re-read-ungated",
            "A subscription is not a read. The lab's host policy checks permission at every read "
            "boundary, so a caller who lost the right to read the status since subscribing must "
            "not get the new revision.",
            example="re-read-ungated",
        ),
        Mistake(
            "more-than-one-option",
            lambda a: (
                sum(o.code in (_code(a) or "") for o in NOTICE_OPTIONS) > 1
                or (isinstance(a, list | tuple | set) and len(a) > 1)
            ),
            "Choose one option: they exclude each other.",
            example="re-read-ungated, keep-cached",
        ),
        Mistake(
            "not-an-option",
            lambda a: (code := _code(a)) is not None and code != "" and code not in {o.code for o in NOTICE_OPTIONS},
            "Answer with the code of one option exactly as listed, not with a method name or a sentence.",
            example="resources/read",
        ),
    ),
    hints=(
        "Ask what the notice itself carries, and what the model needs before it sees the status again.",
        "A subscription is not a read: whatever the client shows next must come from a read, with its"
        " own gate check and receipt.",
    ),
)


# --------------------------------------------------------------------------------------------
# live-02: a resource_link the caller may not read
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeniedLink:
    """What the receipt of ``generate_report`` says when the caller may not read ``report://``.

    Attributes:
        rejection: the receipt's ``rejection`` code.
        fetched: the receipt's ``followUp.fetched``.
        server_reads: how often the server served the report (its own counter).
        link_uri: the URI the receipt keeps in ``custody.uri``.
    """

    rejection: str | None
    fetched: bool
    server_reads: int
    link_uri: str | None


@functools.cache
def denied_link() -> DeniedLink:
    """Call ``generate_report`` with a gate that refuses ``report://`` and read its receipt.

    Example:
        >>> denied_link().server_reads
        0
    """
    from ...live.gate import Gate
    from ...live.session import LabSession

    async def exchange() -> DeniedLink:
        async with LabSession(gate=Gate(deny=(_REPORT_PREFIX,))) as s:
            blocked = await s.call(_REPORT_TOOL, {"week": 7})
            uri = blocked.receipt["custody"]["uri"]
            return DeniedLink(
                rejection=blocked.receipt.get("rejection"),
                fetched=bool(blocked.receipt["followUp"]["fetched"]),
                server_reads=s.server.state.reads[uri],
                link_uri=uri,
            )

    return run_exchange(exchange)


def _receipt_record() -> tuple[str | None, bool]:
    seen = denied_link()
    return seen.rejection, seen.fetched


def _pair(answer: object) -> tuple[str, bool] | None:
    """A two-item list or tuple of a code and a boolean, as ``(code, fetched)``; else ``None``."""
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        return None
    code, fetched = answer
    if not isinstance(code, str) or not isinstance(fetched, bool):
        return None
    return code.strip().lower(), fetched


def _pair_code(answer: object) -> str | None:
    pair = _pair(answer)
    return None if pair is None else pair[0]


_LIVE_02 = Exercise(
    id="live-02",
    title="A link the caller may not read: what does the receipt record?",
    why=(
        "the tool call was allowed and ran, but the gate refuses the follow-up read of the link it returned: "
        "the client never fetched the report, and the receipt names the refused follow-up"
    ),
    level=3,
    prompt=(
        f"The caller may call `{_REPORT_TOOL}`, but the lab's permission gate refuses every "
        f"`{_REPORT_PREFIX}` URI for it. The tool answers with a `resource_link` to this week's "
        "report. Before you see the exchange, predict what the tool call's receipt records: "
        "its `rejection` code, and whether the client fetched the report. Answer with a tuple "
        '`(code, fetched)`, such as `("some-code", True)`.'
    ),
    input_label=f"{_REPORT_TOOL}({{'week': 7}}) with Gate(deny=({_REPORT_PREFIX!r},))",
    wanted="a tuple: the rejection code (text), then True or False",
    reference=_receipt_record,
    compare=lambda a, e: _pair(a) == e,
    mistakes=(
        Mistake(
            "blamed-the-tool-call",
            lambda a: _pair_code(a) == "permission-denied",
            f"The gate allows the call itself: `{_REPORT_TOOL}` ran and answered. Which boundary comes "
            "after the tool's answer, and what did the gate say there?",
            example=("permission-denied", False),
        ),
        Mistake(
            "follow-up-was-made",
            lambda a: _pair_code(a) == "link-follow-up-failed",
            "That code is for a follow-up read that was sent and whose answer was then rejected. Was a "
            "read of the report ever sent here?",
            example=("link-follow-up-failed", False),
        ),
        Mistake(
            "kept-link-means-accepted",
            lambda a: _pair_code(a) in SHAPES or _pair_code(a) in ("none", "accepted", ""),
            "The link is kept in the receipt, but keeping is not accepting: would the lab accept a "
            "result whose only content this caller may not read? Look for the trace's failed step.",
            example=("resource-link", False),
        ),
        Mistake(
            "counted-the-declared-size",
            lambda a: _pair_code(a) == "embed-over-budget",
            "A link carries no content inline: its 18000 bytes are only the size it declares, and "
            "the inline budget limits embedded resources.",
            example=("embed-over-budget", False),
        ),
        Mistake(
            "fetched-it-anyway",
            lambda a: (pair := _pair(a)) is not None and pair[1] and pair[0] == denied_link().rejection,
            "Now the second part: a follow-up the gate refuses is never sent by some other path. "
            "The server's read counter for the report can tell you.",
            example=("link-follow-up-denied", True),
        ),
        Mistake(
            "swapped-the-parts",
            lambda a: isinstance(a, list | tuple) and len(a) == 2 and isinstance(a[0], bool) and isinstance(a[1], str),
            "The code comes first, then whether the report was fetched.",
            example=(False, "permission-denied"),
        ),
        Mistake(
            "only-one-part",
            lambda a: isinstance(a, str) and bool(a.strip()),
            "Give both parts as a tuple: the rejection code, then True or False for whether the report was fetched.",
            example="tool-error",
        ),
    ),
    hints=(
        "Follow the exchange step by step: the gate on the call, the tool's answer, then what the "
        "client does with the link it got.",
        "The rejection code names the step that failed; the second part asks whether any read of the "
        "report was ever sent.",
    ),
)


# --------------------------------------------------------------------------------------------
# live-03: a cache that does not know the status changed
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CachedRead:
    """The read of the status that needs current content, after an unwatched change.

    Attributes:
        outcome: the read's outcome (its shape when accepted, else its rejection code).
        from_cache: the receipt's ``cache.fromCache``.
        ttl_ms: the ``ttlMs`` the server sent with the first answer (2026-07-28 caching hints).
        bypass_outcome: the same read with ``cache_mode="bypass"``.
    """

    outcome: str
    from_cache: bool | None
    ttl_ms: int | None
    bypass_outcome: str


@functools.cache
def cached_read() -> CachedRead:
    """Read the status, change it with nobody subscribed, read it again needing current content.

    Example:
        >>> cached_read().from_cache
        True
    """
    from ...live.lab_server import Freshness, LabServer
    from ...live.session import LabSession

    # The lab's own server claims the status stale at once (ttlMs 0); this one claims a minute, so the
    # SDK's cache keeps the answer, as it would for any server that says so.
    minute = Freshness(60_000, "public", "a claim this server makes about its status, wrongly")

    async def exchange() -> CachedRead:
        async with LabSession(LabServer(freshness={STATUS: minute})) as s:
            first = await s.read(STATUS)
            await s.server.advance_status()  # nobody is listening
            cached = await s.read(STATUS, requires_current=True)
            fresh = await s.read(STATUS, requires_current=True, cache_mode="bypass")
        return CachedRead(
            outcome=cached.outcome,
            from_cache=cached.receipt["cache"]["fromCache"],
            ttl_ms=first.receipt["cache"]["ttlMs"],
            bypass_outcome=fresh.outcome,
        )

    return run_exchange(exchange)


_WIRE_FAILURES = ("server-timeout", "server-error", "resource-not-found", "tool-error")

_LIVE_03 = Exercise(
    id="live-03",
    title="The cache answered: is that current?",
    why=(
        "the server's ttlMs is a claim, nobody subscribed, so no notice arrived, and the cache served the old"
        " revision: the copy is not current and the case requires current content"
    ),
    level=2,
    prompt=(
        f"The client reads `{STATUS}` from a server that claims the status fresh for a minute "
        "(`ttlMs: 60000`), and the SDK's client caches the answer. Then the status moves to its "
        "next revision, and nobody is subscribed. A moment later the client reads it again for a "
        "case that needs current content (`requires_current=True`), with the cache on. Predict the "
        "outcome of that second read: the shape when it is accepted, or the rejection code."
    ),
    input_label=f"a second read of {STATUS} with requires_current=True, cache on, after an unwatched change",
    wanted="one outcome: a shape or a rejection code",
    parse="text",
    reference=lambda: cached_read().outcome,
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "trusted-a-fresh-ttl",
            lambda a: _code(a) in SHAPES,
            "It was answered, but from where? The receipt's `cache.fromCache` says, and the status "
            "changed after that copy was stored. What does `requires_current=True` ask of an answer "
            "the server was never asked for?",
            example="listed-resource",
        ),
        Mistake(
            "expected-a-wire-failure",
            lambda a: _code(a) in _WIRE_FAILURES,
            "Nothing failed on the wire: the read got an answer. Ask which answer it got, and from where.",
            example="server-timeout",
        ),
        Mistake(
            "expected-a-gate-refusal",
            lambda a: _code(a) == "permission-denied",
            "The gate lets this caller read `status://`; nothing is refused before the read.",
            example="permission-denied",
        ),
        Mistake(
            "applied-the-inline-budget",
            lambda a: _code(a) == "embed-over-budget",
            "A resource read is not an embed in a tool result: the inline budget does not apply.",
            example="embed-over-budget",
        ),
    ),
    hints=(
        "Ask where the second answer came from, and whether that copy can know about a change made "
        "after it was stored.",
        "`requires_current=True` asks for content the server was asked for now; the receipt's "
        "`cache.fromCache` says whether it was.",
    ),
)

EXERCISES = (_LIVE_01, _LIVE_02, _LIVE_03)
