"""Custody receipts: the seed's receipt shape, canonical JSON and digests.

A receipt serialises exactly as JavaScript's ``JSON.stringify`` would (keys in insertion order, no
spaces, non-ASCII kept as is), so the digest of the lab's fixture equals the one the seed's Node
artifact prints.
"""

from __future__ import annotations

__all__ = [
    "EXECUTORS",
    "FIXTURE_NAME",
    "FIXTURE_SHA256",
    "HINT_FIELDS",
    "METHOD_EXECUTOR",
    "actor_labels",
    "canonical_json",
    "digest",
    "extended_receipt",
    "fixture_payload",
    "freshness",
    "receipt",
    "server_hints",
]

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .errors import CaseError
from .model import APPLICATION_SHAPES, INITIATORS, Case, Decision

FIXTURE_NAME = "mcp-context-custody-v1"
#: What the seed's Node artifact prints as ``sha256`` (seed 000, "Runnable artifact").
FIXTURE_SHA256 = "b07a3cfddf44d5ff300da17345bc31697013a48211d23d974456ea2390f88b7b"


#: A surrogate pair written as two code points, or a lone surrogate (text that came from escaped
#: JSON such as ``"\\ud800"``, or from bytes decoded with ``surrogateescape``).
_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _well_formed(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:  # a pair: the one character it stands for, as JavaScript reads it
        return chr(0x10000 + ((ord(found[0]) - 0xD800) << 10) + (ord(found[1]) - 0xDC00))
    return f"\\u{ord(found):04x}"


def canonical_json(value: Any) -> str:
    """Compact JSON as ``JSON.stringify`` writes it: non-ASCII kept, and a lone surrogate written
    as its ``\\uXXXX`` escape (ECMAScript 2019's well-formed ``JSON.stringify``), so the text is
    always valid UTF-8.

    Example:
        >>> canonical_json({"b": 1, "a": [True, None, "é"]})
        '{"b":1,"a":[true,null,"é"]}'
        >>> canonical_json("kb://\\ud800"), canonical_json("\\ud83d\\ude00") == '"\\U0001f600"'
        ('"kb://\\\\ud800"', True)
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return _SURROGATES.sub(_well_formed, text)


def digest(value: Any) -> str:
    """The sha256 (hex) of a value's canonical JSON (or of ``bytes`` / ``str`` as given)."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode("utf-8")
    else:
        data = canonical_json(value).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def receipt(decision: Decision) -> dict[str, Any]:
    """The seed-shaped receipt of a decision (same as ``decision.to_dict()``)."""
    return decision.to_dict()


#: Who performs the step that brings context in, by MCP method (seed 000, "Decide who initiates
#: the context transfer": "the model chooses an operation, the server executes it"). For
#: ``resources/read`` the application's client *issues* the read through the gate and the server
#: *serves* it (it may compute what it serves: under 2026-07-28 a read may return several contents
#: or an ``InputRequiredResult``), so the read is the application's action; for ``tools/call`` the
#: server *runs* the operation the model chose. That the receipt keeps this label beside the
#: initiator is the lab's host policy: MCP (2026-07-28) has no executor field.
METHOD_EXECUTOR: dict[str, str] = {"resources/read": "application", "tools/call": "server"}
#: The executor labels, in the order of :data:`METHOD_EXECUTOR`.
EXECUTORS: tuple[str, ...] = tuple(dict.fromkeys(METHOD_EXECUTOR.values()))


def actor_labels(
    case: Case | None = None, *, initiator: str | None = None, method: str | None = None
) -> dict[str, str]:
    """The two labels a design review writes beside a context source: initiator and executor.

    The initiator is who decided that the context enters (``application`` or ``model``); the
    executor is who performs the step (:data:`METHOD_EXECUTOR`). Either comes from ``case`` (its
    initiator, and the method its declared shape travels by: a resource shape is a
    ``resources/read``, a tool shape a ``tools/call``) unless given. Seed 000: when the labels
    differ, the receipt keeps both instead of flattening them into one.

    Raises:
        CaseError: an unknown initiator or method (``.field`` is ``"initiator"`` or ``"method"``),
            or neither a case nor both labels' sources were given.

    Example:
        >>> actor_labels(initiator="model", method="resources/read")
        {'initiator': 'model', 'executor': 'application'}
    """
    who = initiator if initiator is not None else (case.initiator if case is not None else None)
    if method is None and case is not None:
        method = "resources/read" if case.shape in APPLICATION_SHAPES else "tools/call"
    if who not in INITIATORS:
        raise CaseError(f"field 'initiator': {who!r} is not one of {', '.join(INITIATORS)}", "initiator")
    if method not in METHOD_EXECUTOR:
        raise CaseError(f"field 'method': {method!r} is not one of {', '.join(METHOD_EXECUTOR)}", "method")
    return {"initiator": who, "executor": METHOD_EXECUTOR[method]}


def extended_receipt(
    decision: Decision,
    *,
    template_params: dict[str, Any] | None = None,
    actors: Mapping[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The seed receipt plus what later lessons need: digest, trace, template parameters, actors.

    The seed-shaped part is unchanged (its digest is ``digest``); the additions sit beside it.
    ``actors`` (from :func:`actor_labels`) is written as its own ``actors`` block, both labels
    kept, while the seed's ``custody.actor`` stays the one label the router decided on.

    Raises:
        CaseError: ``actors`` lacks ``initiator`` or ``executor`` or holds an unknown label
            (``.field`` names it, for example ``"actors.executor"``).

    Example:
        >>> from custody_lab.core.loading import load_fixture
        >>> from custody_lab.core.router import route
        >>> report = load_fixture().case("generated-report")
        >>> ext = extended_receipt(route(report), actors=actor_labels(report))
        >>> ext["custody"]["actor"], ext["actors"]
        ('model', {'initiator': 'model', 'executor': 'server'})
    """
    base = receipt(decision)
    out = dict(base)
    out["digest"] = digest(base)
    out["trace"] = [{"code": s.code, "status": s.status} for s in decision.trace]
    if template_params is not None:
        out["templateParams"] = dict(template_params)
    if actors is not None:
        for key, known in (("initiator", INITIATORS), ("executor", EXECUTORS)):
            if actors.get(key) not in known:
                raise CaseError(
                    f"field 'actors.{key}': {actors.get(key)!r} is not one of {', '.join(known)}", f"actors.{key}"
                )
        out["actors"] = {"initiator": actors["initiator"], "executor": actors["executor"]}
    if extra:
        out.update(extra)
    return out


#: Where each 2026-07-28 field of the extended receipt comes from. ``hint``: the server says so and
#: nothing checks it (the lab's host policy: a hint is recorded, never trusted); ``checked``: the
#: lab compares it with what arrived.
HINT_FIELDS: dict[str, str] = {
    "ttlMs": "hint",  # ReadResourceResult.ttlMs, 2026-07-28: how long the client MAY cache it
    "cacheScope": "hint",  # ReadResourceResult.cacheScope, 2026-07-28: "public" or "private"
    "resultType": "hint",  # every Result, 2026-07-28: absent means "complete"
    "size": "checked",  # Resource.size / ResourceLink.size (2025-06-18 and later): raw bytes, if known
    # Annotations: audience, priority (2024-11-05 and later), lastModified (2025-06-18 and later)
    "annotations": "hint",
    # ToolAnnotations (2025-03-26 and later): clients MUST consider them untrusted (from 2025-03-26 on)
    "toolAnnotations": "hint",
    "icons": "hint",  # Icon.src: a data: or https: URI (2025-11-25 and later); the lab never fetches it
}


def freshness(retrieved_at: str, ttl_ms: int | None, now: str | None = None) -> dict[str, Any] | None:
    """The freshness deadline of a read: retrieval time + ``ttlMs``, and whether ``now`` is past it.

    ``ttlMs`` is the server's hint (MCP 2026-07-28, ``ReadResourceResult``); ``None`` (an older
    revision, or no hint) gives ``None``. ``now`` defaults to ``retrieved_at``.

    Example:
        >>> freshness("2026-09-04T12:00:00.000Z", 1500, now="2026-09-04T12:00:01.000Z")
        {'ttlMs': 1500, 'freshUntil': '2026-09-04T12:00:01.500Z', 'state': 'fresh'}
        >>> freshness("2026-09-04T12:00:00.000Z", 0)["state"]
        'stale'
    """
    if ttl_ms is None:
        return None
    start = datetime.fromisoformat(retrieved_at.replace("Z", "+00:00"))
    until = start + timedelta(milliseconds=ttl_ms)
    at = datetime.fromisoformat((now or retrieved_at).replace("Z", "+00:00"))
    shown = until.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"ttlMs": ttl_ms, "freshUntil": shown, "state": "fresh" if at < until else "stale"}


def _icons(value: Any) -> list[dict[str, Any]] | None:
    """Icons as addresses only: the scheme of each ``src`` (``data`` / ``https`` / other); never fetched."""
    if not isinstance(value, list):
        return None
    out = []
    for icon in value:
        src = str(icon.get("src", "")) if isinstance(icon, Mapping) else ""
        scheme = src.partition(":")[0].lower() if ":" in src else ""
        out.append({"scheme": scheme, "accepted": scheme in ("data", "https"), "fetched": False})
    return out


def server_hints(
    *,
    retrieved_at: str,
    result: Mapping[str, Any] | None = None,
    described: Mapping[str, Any] | None = None,
    tool: Mapping[str, Any] | None = None,
    bytes_received: int | None = None,
) -> dict[str, Any]:
    """The 2026-07-28 custody fields of one exchange, each marked ``hint`` or ``checked``.

    Args:
        retrieved_at: when the answer arrived (the receipt's ``retrievedAt``).
        result: the wire result (``ttlMs``, ``cacheScope``, ``resultType``).
        described: what the listing or link said about the resource (``size``, ``annotations``,
            ``icons``), as wire keys.
        tool: the listed tool (its ``annotations`` and ``icons``).
        bytes_received: the bytes that actually arrived; compared with the declared ``size``.

    Example:
        >>> h = server_hints(retrieved_at="2026-09-04T12:00:00.000Z", result={"ttlMs": 0, "cacheScope": "private"},
        ...                  described={"size": 10}, bytes_received=12)
        >>> h["freshness"]["state"], h["cacheScope"], h["size"]
        ('stale', 'private', {'declared': 10, 'received': 12, 'mismatch': True})
    """
    res, desc, tl = result or {}, described or {}, tool or {}
    ttl = res.get("ttlMs")
    declared = desc.get("size")
    out: dict[str, Any] = {
        "freshness": freshness(retrieved_at, ttl if isinstance(ttl, int) else None),
        "cacheScope": res.get("cacheScope"),
        "resultType": res.get("resultType"),
        "size": {
            "declared": declared,
            "received": bytes_received,
            "mismatch": None if declared is None or bytes_received is None else declared != bytes_received,
        },
        "annotations": dict(desc["annotations"]) if isinstance(desc.get("annotations"), Mapping) else None,
        "toolAnnotations": dict(tl["annotations"]) if isinstance(tl.get("annotations"), Mapping) else None,
        "icons": _icons(desc.get("icons", tl.get("icons"))),
        "sources": HINT_FIELDS,
    }
    return out


def fixture_payload(path: str | Path | None = None) -> dict[str, Any]:
    """Rebuild the seed fixture from ``data/cases.json`` and add its ``sha256``.

    The six seed cases are routed as the ``accepted`` list and the four adversarial variants (each
    one input changed from a seed case) as the ``adversarial`` list, under the seed's policy.

    Example:
        >>> fixture_payload()["sha256"] == FIXTURE_SHA256
        True
    """
    from .loading import load_fixture
    from .router import route

    fixture = load_fixture(path)
    policy = fixture.policy
    payload: dict[str, Any] = {
        "fixture": FIXTURE_NAME,
        "remoteServerCalled": False,
        "policy": policy.to_dict(),
        "accepted": [route(c, policy).to_dict() for c in fixture.cases],
        "adversarial": [route(c, policy).to_dict() for c in fixture.adversarial],
    }
    serialized = canonical_json(payload)
    return {**payload, "sha256": digest(serialized)}
