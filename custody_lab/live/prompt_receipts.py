"""The receipt of one ``prompts/get``: every block of every message counted, like a tool result's."""

from __future__ import annotations

__all__ = ["prompt_receipt"]

from collections.abc import Mapping
from typing import Any

from .content_counts import count_blocks
from .live_receipts import OBSERVED_BY, meta_of
from .meta_keys import PROVENANCE_KEY


def prompt_receipt(
    name: str,
    arguments: Mapping[str, str],
    *,
    result: Mapping[str, Any] | None,
    exchange: Mapping[str, Any],
    error: str | None,
    observed: bool | None,
    server: Mapping[str, Any],
    protocol_version: str | None,
    now: str,
) -> dict[str, Any]:
    """The receipt of one ``prompts/get``: every block of every message counted, like a tool's.

    A prompt is not one of the seed's five shapes and MCP has no initiator field: its Prompts
    page (since 2024-11-05, still in 2026-07-28) says prompts are designed to be
    *user-controlled*, so the receipt names the user as the actor and is not routed. Its identity is
    the prompt's name and arguments (a prompt has no URI; an embedded resource carries its own);
    its size and digest are the inline bytes of every message's content (:func:`count_blocks`);
    its provenance follows the fallback rule of :mod:`~custody_lab.live.live_receipts`; its side
    effects are what the state ledger showed, else unknown (MCP makes no read-only promise for
    ``prompts/get``).

    Example:
        >>> r = prompt_receipt("greet", {}, result={"messages": [{"role": "user", "content": {"type": "text",
        ...     "text": "hi"}}]}, exchange={}, error=None, observed=None, server={"name": "s", "version": "1"},
        ...     protocol_version="2025-11-25", now="2026-09-04T12:00:00.000Z")
        >>> r["custody"]["bytes"], r["custody"]["provenance"], r["contentBlocks"][0]["role"]
        (2, 's@1', 'user')
    """
    messages = [m for m in (result or {}).get("messages") or () if isinstance(m, Mapping)]
    blocks: list[Mapping[str, Any]] = [m["content"] if isinstance(m.get("content"), Mapping) else {} for m in messages]
    entries, totals = count_blocks(blocks)
    for entry, message in zip(entries, messages, strict=True):
        entry["role"] = message.get("role")
    performed = result is not None
    meta = meta_of(result).get(PROVENANCE_KEY)
    if isinstance(meta, str) and meta:
        provenance, source = meta, "server _meta"
    elif performed and error is None and server.get("name") and server.get("version"):
        provenance, source = f"{server['name']}@{server['version']}", "host"
    else:
        provenance, source = None, None
    rec: dict[str, Any] = {
        "id": name,
        "method": "prompts/get",
        "target": name,
        "arguments": dict(arguments),
        "custody": {
            "actor": "user",
            "permissionChecked": False,
            "uri": None,
            "mime": ", ".join(totals["mimeTypes"]) or None,
            "provenance": provenance,
            "bytes": totals["inlineBytes"] if performed else 0,
            "retrievedAt": now,
            "sideEffects": observed,
        },
        "server": {"name": server.get("name"), "version": server.get("version")},
        "protocolVersion": protocol_version,
        "performed": performed,
        "contentDigest": totals["inlineDigest"] if performed else None,
        "contentBlocks": entries,
        "contentTotals": totals,
        "messages": len(messages),
        "description": (result or {}).get("description"),
        "provenanceSource": {"source": source, "method": "prompts/get", "uri": None, "retrievedAt": now},
        "sideEffectsEvidence": {
            "declared": None,
            "observed": observed,
            "source": OBSERVED_BY if observed is not None else "nobody declared (MCP makes no promise for prompts)",
        },
        "exchange": dict(exchange),
    }
    if error is not None:
        rec["error"] = error
    return rec
