"""What the transport guards check in a message's *meaning*: notifications and declared sizes.

:class:`~custody_lab.live.stdio_guard.StdioGuard` and :class:`~custody_lab.live.http_guard.HttpGuard`
see every message as it came off the wire, before the SDK turns it into models. Two things are
checked there because the SDK cannot be trusted with them:

- **Notifications.** A notification of a method MCP defines (``notifications/message``,
  ``notifications/progress`` …) is validated against that method's params in every revision that
  defines it (2024-11-05 to 2026-07-28); one no revision accepts is *malformed*: the server broke
  the protocol, and it is not passed on (the SDK would log its validation traceback on the
  terminal). A method no revision defines is *unknown*: a notification gets no reply in
  JSON-RPC 2.0 and no MCP revision forbids a method it does not define, so the lab's host policy
  only notes it (the SDK drops it without a word).
- **Declared sizes.** MCP's ``Resource.size`` (on a listed resource and on a ``resource_link``,
  which extends Resource; since 2024-11-05, in 2026-07-28 too) is an integer count of bytes. The
  SDK's models read it in pydantic's lax mode, so ``true`` arrives as 1, ``"12"`` as 12 and
  ``-0.0`` as 0, and ``1.5`` or ``NaN`` makes the whole listing fail. The guard reads the wire
  value: a ``size`` that is not a whole non-negative JSON integer (a boolean, a string, a number
  written with a fraction or exponent, NaN, a negative number) is removed before the SDK sees it
  and reported, and the lab treats that size as undeclared. Templates and embedded resources have
  no ``size`` in MCP; one that carries it anyway is checked the same way.

:class:`WireFindings` collects both for the report, counted, the first :data:`SHOWN_FINDINGS` of
each kind kept as sentences (made visible).
"""

from __future__ import annotations

__all__ = [
    "SHOWN_FINDINGS",
    "SIZE_METHODS",
    "Kind",
    "WireFindings",
    "notification_problem",
    "refuse_odd_sizes",
    "snippet",
]

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from ..core.text import visible
from .live_errors import first_problem

#: How many findings of each kind the report shows one by one (the rest are counted).
SHOWN_FINDINGS = 5

#: What a finding is about: a notification no revision accepts, one no revision defines, a refused size.
Kind = Literal["malformed-notification", "unknown-notification", "refused-size"]


class WireFindings:
    """Findings about what the server sent, kept by kind: counted, the first few as sentences.

    Example:
        >>> w = WireFindings()
        >>> for i in range(7):
        ...     w.add("refused-size", f"item {i}")
        >>> w.count["refused-size"], len(w.shown["refused-size"]), w.lines("refused-size")[-1]
        (7, 5, '… and 2 more like these')
    """

    def __init__(self) -> None:
        self.count: dict[Kind, int] = {}
        self.shown: dict[Kind, list[str]] = {}

    def add(self, kind: Kind, sentence: str) -> None:
        self.count[kind] = self.count.get(kind, 0) + 1
        kept = self.shown.setdefault(kind, [])
        if len(kept) < SHOWN_FINDINGS:
            kept.append(sentence)

    def lines(self, kind: Kind) -> list[str]:
        """The sentences kept for ``kind``, and one counting the rest."""
        kept = list(self.shown.get(kind, ()))
        rest = self.count.get(kind, 0) - len(kept)
        return kept + ([f"… and {rest} more like these"] if rest else [])

    def protocol(self) -> tuple[str, ...]:
        """What broke the protocol (malformed notifications, refused sizes): exit 2 after the report."""
        return tuple(self.lines("malformed-notification") + self.lines("refused-size"))

    def drops_notification(self, method: str, params: Mapping[str, Any] | None) -> bool:
        """Record what :func:`notification_problem` finds; ``True`` when the notification is
        malformed and must not reach the SDK (which would log its validation traceback)."""
        problem = notification_problem(method, params)
        if problem is None:
            return False
        self.add(*problem)
        return problem[0] == "malformed-notification"

    def fixed_sizes(self, method: str | None, target: str, text: str) -> dict[str, Any] | None:
        """The response ``text`` without the sizes :func:`refuse_odd_sizes` refuses (each recorded),
        or ``None`` when it holds none: what the SDK reads is the lab's verdict on the wire."""
        fixed, found = refuse_odd_sizes(method, target, text)
        for sentence in found:
            self.add("refused-size", sentence)
        return fixed

    def notes(self) -> tuple[str, ...]:
        """What the protocol allows but the report should show (unknown notifications)."""
        return tuple(self.lines("unknown-notification"))


def snippet(text: str, limit: int = 80) -> str:
    """The first ``limit`` characters of a server's text, made visible (``…`` when cut).

    Example:
        >>> snippet("abc\\x1bdef", 4)
        'abc\\\\x1b…'
    """
    shown = visible(text[:limit])
    return f"{shown}…" if len(text) > limit else shown


def notification_problem(method: str, params: Mapping[str, Any] | None) -> tuple[Kind, str] | None:
    """Whether a server notification is malformed or unknown (a sentence naming it), else ``None``.

    Example:
        >>> notification_problem("notifications/progress", {"progressToken": 1, "progress": "half"})[0]
        'malformed-notification'
        >>> notification_problem("notifications/made-up", {})[0], notification_problem("notifications/progress",
        ...     {"progressToken": 1, "progress": 0.5})
        ('unknown-notification', None)
    """
    from mcp.types import methods

    versions = sorted(v for m, v in methods.SERVER_NOTIFICATIONS if m == method)
    if not versions:
        return "unknown-notification", (
            f"the server sent notification {snippet(repr(method))}, a method no MCP revision defines "
            "(ignored; no revision forbids it)"
        )
    first: str | None = None
    for version in reversed(versions):  # the newest revision's complaint is the one shown
        try:
            methods.parse_server_notification(method, version, params)
        except ValidationError as e:
            first = first or first_problem(e)
            continue
        except (KeyError, ValueError, RuntimeError):
            continue
        return None
    return "malformed-notification", (
        f"the server sent a malformed {visible(method)} (no MCP revision accepts its params: {first}); it was dropped"
    )


#: The methods whose results carry a declared ``size`` (or, wrongly, a template's or an embed's).
SIZE_METHODS = ("resources/list", "resources/templates/list", "tools/call", "prompts/get")


class _Raw(float):
    """A JSON number read as a float, keeping how the wire wrote it (``-0.0``, ``1e400``, ``NaN``)."""

    raw: str

    def __new__(cls, text: str) -> _Raw:
        value = super().__new__(cls, text)
        value.raw = text
        return value


def _size_problem(size: object) -> str | None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return "not a non-negative integer"
    return None


def _shown(size: object) -> str:
    if isinstance(size, _Raw):
        return visible(size.raw)
    try:
        return snippet(json.dumps(size))
    except (TypeError, ValueError):
        return snippet(repr(size))


def _check(item: Any, what: str, found: list[str]) -> bool:
    if not isinstance(item, dict) or item.get("size") is None:  # null: no size, as the SDK reads it too
        return False
    problem = _size_problem(item["size"])
    if problem is None:
        return False
    found.append(f"{what} declares size {_shown(item.pop('size'))}: {problem}; treated as undeclared")
    return True


def _name(item: Any, key: str) -> str:
    value = item.get(key) if isinstance(item, dict) else None
    return snippet(repr(value)) if isinstance(value, str) else f"(no {key})"


def _blocks(blocks: Any, where: str, found: list[str]) -> bool:
    changed = False
    for i, block in enumerate(blocks if isinstance(blocks, list) else ()):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "resource_link":
            changed |= _check(block, f"{where} block {i}: the resource_link to {_name(block, 'uri')}", found)
        elif block.get("type") == "resource":
            res = block.get("resource")
            changed |= _check(res, f"{where} block {i}: the embedded resource {_name(res, 'uri')}", found)
    return changed


def refuse_odd_sizes(method: str | None, target: str, text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Remove every declared ``size`` that is not a non-negative integer from a response to ``method``.

    ``text`` is the JSON-RPC response as it came off the wire; ``target`` names the request in the
    sentences. Returns ``(the response without those sizes, or None when nothing was removed,
    one sentence per size removed)``.

    Example:
        >>> raw = '{"jsonrpc": "2.0", "id": 1, "result": {"resources": [{"uri": "a://x", "name": "x", "size": true}]}}'
        >>> fixed, found = refuse_odd_sizes("resources/list", "page 1", raw)
        >>> fixed["result"]["resources"][0]
        {'uri': 'a://x', 'name': 'x'}
        >>> found  # doctest: +NORMALIZE_WHITESPACE
        ["resources/list item 0 ('a://x') declares size true: not a non-negative integer;
          treated as undeclared"]
    """
    if method not in SIZE_METHODS or ("size" not in text and "\\u" not in text):  # "\u0073ize" is "size" too
        return None, []
    try:
        message = json.loads(text, parse_float=_Raw, parse_constant=_Raw)
    except ValueError:  # an integer over Python's digit limit: the SDK refuses the message itself
        return None, []
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict):
        return None, []
    found: list[str] = []
    changed = False
    if method == "resources/list":
        for i, item in enumerate(result.get("resources") or ()):
            changed |= _check(item, f"resources/list item {i} ({_name(item, 'uri')})", found)
    elif method == "resources/templates/list":
        for i, item in enumerate(result.get("resourceTemplates") or ()):
            changed |= _check(item, f"resources/templates/list item {i} ({_name(item, 'uriTemplate')})", found)
    elif method == "tools/call":
        changed = _blocks(result.get("content"), f"tools/call {visible(repr(target))}", found)
    else:
        for m, msg in enumerate(result.get("messages") or ()):
            content = msg.get("content") if isinstance(msg, dict) else None
            changed |= _blocks([content], f"prompts/get {visible(repr(target))} message {m}", found)
    return (message if changed else None), found
