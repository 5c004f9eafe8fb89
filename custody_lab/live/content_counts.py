"""Every content block that reached the client, counted: the one count receipts and the audit use.

MCP's content blocks (all in 2026-07-28): ``text``, ``image`` and ``resource`` (since 2024-11-05),
``audio`` (2025-03-26) and ``resource_link`` (2025-06-18); a tool result and a prompt message carry
them alike. :func:`count_blocks` gives each its custody (type, MIME type and where it is known
from, bytes and sha256 of what arrived inline; a link's declared size) and the totals of the
result. A MIME type is *known* only when the wire carried it (a text block is ``text/plain`` by its
type); one only sniffed from the bytes is marked ``"sniffed"``.
"""

from __future__ import annotations

__all__ = ["count_blocks"]

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from ..protocol.blobs import BlobError, read_contents


def _block_reading(entry: dict[str, Any], item: Mapping[str, Any]) -> bytes | None:
    """Decode one contents-like item into ``entry`` (MIME per source, bytes, digest); its bytes."""
    declared = item.get("mimeType") if isinstance(item.get("mimeType"), str) else None
    try:
        r = read_contents(item)
    except BlobError as e:
        entry.update(mimeType=declared, mime=declared, mimeSource="wire" if declared else None, bytes=None)
        entry["error"] = str(e)
        return None
    entry.update(
        mimeType=declared,
        # known only when the wire carried it; a sniffed type is a guess from the bytes
        mime=declared or r.sniffed_mime,
        mimeSource="wire" if declared else ("sniffed" if r.sniffed_mime else None),
        sniffed=r.sniffed_mime,
        mimeMismatch=r.mime_mismatch,
        mismatchReason=r.mismatch_reason if r.mime_mismatch else None,
        bytes=r.size_bytes,
        digest="sha256:" + r.sha256,
    )
    return r.data


def count_blocks(blocks: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every content block (wire mappings) with its custody, and the totals of the result.

    MCP's content blocks (all in 2026-07-28): ``text``, ``image`` and ``resource`` (since
    2024-11-05), ``audio`` (2025-03-26) and ``resource_link`` (2025-06-18); a tool result and a
    prompt message carry them alike.

    Each entry has ``index``, ``type``, ``annotations``, ``mimeType`` (as the wire carried it, else
    ``None``), ``mime`` and ``mimeSource`` (``"wire"``, ``"block type"`` for a text block, which
    MCP gives no ``mimeType``, ``"sniffed"`` when only the bytes suggest one, or ``None``), and
    ``bytes`` and ``digest`` of what arrived inline (a ``resource_link`` is an address: ``bytes``
    is ``None`` and ``declaredSize`` is what it claims). The totals count blocks and bytes per
    type, the inline bytes of the whole result and their sha256 (every inline block's bytes in
    order), and the MIME types the wire (or a text block's type) made known; a sniffed one is not.

    Example:
        >>> entries, totals = count_blocks([{"type": "text", "text": "hi"}, {"type": "image",
        ...     "mimeType": "image/png", "data": "iVBORw0KGgo="}])
        >>> [(e["type"], e["mime"], e["mimeSource"], e["bytes"]) for e in entries]
        [('text', 'text/plain', 'block type', 2), ('image', 'image/png', 'wire', 8)]
        >>> totals["inlineBytes"], totals["byType"]["image"]
        (10, {'blocks': 1, 'bytes': 8})
    """
    entries: list[dict[str, Any]] = []
    whole = hashlib.sha256()
    by_type: dict[str, dict[str, int]] = {}
    mimes: list[str] = []
    inline = uncounted = 0
    links: list[int | None] = []
    for i, b in enumerate(blocks):
        kind = str(b.get("type"))
        ann = b.get("annotations")
        entry: dict[str, Any] = {
            "index": i,
            "type": kind,
            "annotations": dict(ann) if isinstance(ann, Mapping) else None,
        }
        data: bytes | None = None
        if kind == "text" and isinstance(b.get("text"), str):
            data = b["text"].encode("utf-8", "surrogatepass")
            entry.update(mimeType=None, mime="text/plain", mimeSource="block type", bytes=len(data))
            entry["digest"] = "sha256:" + hashlib.sha256(data).hexdigest()
        elif kind in ("image", "audio"):
            data = _block_reading(
                entry,
                {
                    "uri": f"({kind} block {i})",
                    "mimeType": b.get("mimeType"),
                    "blob": b.get("data") if isinstance(b.get("data"), str) else "",
                },
            )
        elif kind == "resource" and isinstance(b.get("resource"), Mapping):
            res = b["resource"]
            entry["uri"] = res.get("uri")
            data = _block_reading(entry, res)
        elif kind == "resource_link":
            size = b.get("size")
            known = isinstance(size, int) and not isinstance(size, bool)
            mime = b.get("mimeType") if isinstance(b.get("mimeType"), str) else None
            entry.update(uri=b.get("uri"), mimeType=mime, mime=mime, mimeSource="wire" if mime else None, bytes=None)
            entry.update(declaredSize=size if known else None)
            links.append(size if known else None)
        else:
            entry.update(mimeType=None, mime=None, mimeSource=None, bytes=None, error=f"unknown block type {kind!r}")
        if data is not None:
            whole.update(data)
            inline += len(data)
        elif kind != "resource_link":
            uncounted += 1
        count = by_type.setdefault(kind, {"blocks": 0, "bytes": 0})
        count["blocks"] += 1
        count["bytes"] += len(data) if data is not None else 0
        if entry.get("mimeSource") in ("wire", "block type") and entry["mime"] not in mimes:
            mimes.append(entry["mime"])
        entries.append(entry)
    totals = {
        "blocks": len(entries),
        "inlineBytes": inline,
        "inlineDigest": "sha256:" + whole.hexdigest(),
        "uncounted": uncounted,
        "links": len(links),
        "linkDeclaredBytes": sum(s for s in links if s is not None) if links and None not in links else None,
        "byType": by_type,
        "mimeTypes": mimes,
    }
    return entries, totals
