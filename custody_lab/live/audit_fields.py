"""Which custody fields a capability supplied: the marks of the audit's table, from receipts.

Each function turns what the recorder saw (an extended receipt) or what a listing declared into
:class:`~custody_lab.live.audit_report.FieldSupport` values, one per custody field of
:data:`~custody_lab.live.audit_report.AUDIT_FIELDS`.
"""

from __future__ import annotations

__all__ = [
    "NOT_CALLED",
    "TOOL_HINTS",
    "declared_prompt_fields",
    "declared_template_fields",
    "declared_tool_details",
    "declared_tool_fields",
    "fields_from_prompt",
    "fields_from_receipt",
    "prompt_details",
    "provenance_field",
    "receipt_details",
    "server_field",
    "tool_hints",
    "unexercised_fields",
]

from typing import Any

from .audit_report import AUDIT_FIELDS, FieldSupport
from .live_receipts import LiveReceipt, undeclared_side_effects
from .meta_keys import PROVENANCE_KEY, SIDE_EFFECTS_KEY, URI_KEY

#: What a tool that was not named is told, in the report.
NOT_CALLED = "not called (name it with --allow-calls)"


def server_field(server: dict[str, Any]) -> FieldSupport:
    name, version = server.get("name"), server.get("version")
    if name and version:
        return FieldSupport("server", True, f"serverInfo {name}@{version}")
    missing = " and ".join(k for k, v in (("name", name), ("version", version)) if not v)
    return FieldSupport("server", False, f"serverInfo has no {missing}: the host cannot name the source")


def provenance_field(rec: dict[str, Any], performed: bool) -> FieldSupport:
    source = (rec.get("provenanceSource") or {}).get("source")
    if source == "server _meta":
        return FieldSupport("provenance", True, f"server-supplied _meta {PROVENANCE_KEY} (richer than the host's)")
    if source == "host":
        how = "host-side: serverInfo name@version, method, URI, retrieval time (MCP has no provenance field)"
        return FieldSupport("provenance", True, how)
    if not performed:
        return FieldSupport("provenance", None, "nothing came back to attribute")
    return FieldSupport("provenance", False, "no _meta provenance, and serverInfo gives no name@version to name it by")


def receipt_details(rec: dict[str, Any]) -> dict[str, Any]:
    """The receipt's custody block, 2026-07-28 hints and provenance source, for the report's details."""
    keys = (
        "custody",
        "contentDigest",
        "hints",
        "provenanceSource",
        "mimeCheck",
        "template",
        "templateParams",
        "link",
        "followUp",
    )
    out = {k: rec[k] for k in keys if rec.get(k) is not None}
    if rec.get("contentBlocks") is not None:  # a tool result: every block, and the totals
        out["blocks"] = [
            {**b, "followed": None} if b["type"] == "resource_link" else dict(b) for b in rec["contentBlocks"]
        ]
        out["totals"] = rec["contentTotals"]
    if rec.get("exchange", {}).get("toolError"):
        out["toolError"] = rec.get("error", "")
    elif rec.get("error") is not None:
        out["error"] = rec["error"]
    return out


def fields_from_receipt(live: LiveReceipt, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    rec, custody = live.receipt, live.receipt["custody"]
    tool = rec["method"] == "tools/call"
    performed = rec.get("performed", True) and "error" not in rec
    arrived = rec.get("contentDigest") is not None
    uri_how = "the contents item / link / embed carries it"
    if tool and rec.get("delivery") in ("structured", "text"):
        uri_how = f"only through _meta {URI_KEY}: a structured result has no URI field"
    evidence = rec.get("sideEffectsEvidence") or {}
    mime = custody["mime"]
    if not mime:
        mime_how = "no MIME type came back"
    elif tool and rec.get("delivery") == "text":
        mime_how = f"{mime} (text blocks by their type, other blocks as the wire carried them)"
    elif tool and rec.get("delivery") == "structured":
        mime_how = f"{mime} (structuredContent is JSON by protocol)"
    else:
        mime_how = f"mimeType {mime} (as the wire carried it)"
    fields = [
        FieldSupport("actor", True, f"{custody['actor']} (derived from {rec['method']})"),
        server_field(server),
        FieldSupport(
            "uri", custody["uri"] is not None if performed else None, uri_how if custody["uri"] else "no URI came back"
        ),
        FieldSupport("mime", bool(mime) if performed else None, mime_how),
        *_content_fields(rec, performed, arrived),
        provenance_field(rec, performed),
        FieldSupport(
            "sideEffects",
            evidence.get("declared") is not None,
            str(evidence.get("source", "not stated"))
            + ("; observed by state digest" if evidence.get("observed") is not None else ""),
        ),
    ]
    return tuple(fields)


def _content_fields(rec: dict[str, Any], performed: bool, arrived: bool) -> tuple[FieldSupport, FieldSupport]:
    """Bytes and digest: counted from what arrived; a link not followed is an address (unknown)."""
    if not arrived and rec.get("delivery") == "linked" and rec.get("followUp") is None:
        how = "a resource_link is an address: --follow-links reads it (a second read, its own row)"
        return FieldSupport("bytes", None, how), FieldSupport("digest", None, how)
    known = arrived if performed else None
    error = rec.get("contentError")
    counted = "counted from the content that arrived" if arrived else f"not counted: {error}" if error else None
    return (
        FieldSupport("bytes", known, counted or "no content to count"),
        FieldSupport("digest", known, "sha256 of the content that arrived" if arrived else "no content to digest"),
    )


def declared_tool_fields(tool: Any, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    lab = isinstance((tool.meta or {}).get(SIDE_EFFECTS_KEY), bool)
    value = (tool.meta or {}).get(SIDE_EFFECTS_KEY)
    how = (
        f"_meta {SIDE_EFFECTS_KEY}: {str(value).lower()} (the server's claim; not observed: not called)"
        if lab
        else undeclared_side_effects(tool_hints(tool)) + " (the lab's host policy calls it only when you name it)"
    )
    unknown = f"not exercised: {NOT_CALLED}"
    return (
        FieldSupport("actor", True, "model (derived from tools/call)"),
        server_field(server),
        *(FieldSupport(f, None, unknown) for f in ("uri", "mime", "bytes", "digest", "provenance")),
        FieldSupport("sideEffects", lab, how),
    )


#: The tool annotations MCP defines (2025-03-26 and later; all in 2026-07-28), wire name by SDK name.
TOOL_HINTS: dict[str, str] = {
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
}


def tool_hints(tool: Any) -> dict[str, Any] | None:
    """A listed tool's annotations as the server's hints (``None`` for one not set), or ``None``.

    MCP 2025-03-26 and later (2026-07-28 included): clients MUST consider tool annotations
    untrusted unless they come from a trusted server; the report shows them and decides nothing.

    Example:
        >>> from types import SimpleNamespace as T
        >>> tool_hints(T(annotations=T(read_only_hint=None, destructive_hint=True, idempotent_hint=None,
        ...                            open_world_hint=False)))["destructiveHint"]
        True
    """
    ann = getattr(tool, "annotations", None)
    if ann is None:
        return None
    out: dict[str, Any] = {wire: getattr(ann, name, None) for name, wire in TOOL_HINTS.items()}
    out["source"] = "tool annotations: the server's hints, untrusted (MCP 2025-03-26 and later)"
    return out


def declared_tool_details(tool: Any) -> dict[str, Any]:
    """What a listed tool declares about side effects, as the report's ``details["declared"]``,
    and its annotations as ``details["toolHints"]`` (:func:`tool_hints`, when it has any).

    The value is the lab's ``_meta`` declaration (``True``, ``False``, or ``None`` when the tool
    declares none) and ``source`` says where it came from; a ``readOnlyHint`` is a hint and never
    the value (the lab's host policy: MCP 2025-06-18 and later says clients MUST consider tool
    annotations untrusted). The capstone rubric reads it to compare an uncalled tool with its design.

    Example:
        >>> from types import SimpleNamespace as T
        >>> declared_tool_details(T(meta={SIDE_EFFECTS_KEY: False}, annotations=None))
        {'declared': {'sideEffects': False, 'source': '_meta org.custody-lab/sideEffects'}}
        >>> declared_tool_details(T(meta=None, annotations=T(read_only_hint=True)))["declared"]["sideEffects"] is None
        True
    """
    value = (tool.meta or {}).get(SIDE_EFFECTS_KEY)
    hints = tool_hints(tool)
    extra = {"toolHints": hints} if hints is not None else {}
    if isinstance(value, bool):
        return {"declared": {"sideEffects": value, "source": f"_meta {SIDE_EFFECTS_KEY}"}, **extra}
    return {"declared": {"sideEffects": None, "source": undeclared_side_effects(hints)}, **extra}


def declared_template_fields(template: Any, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    prov = (template.meta or {}).get(PROVENANCE_KEY)
    unknown = "not exercised (a template needs arguments)"
    return (
        FieldSupport("actor", True, "application (derived from resources/read)"),
        server_field(server),
        FieldSupport("uri", True, f"expands {template.uri_template}"),
        # a listing's MIME type is the server's word for what a read will return; a template not
        # read without one is unknown (its reads may carry one), not a gap
        FieldSupport(
            "mime",
            True if template.mime_type else None,
            f"declared {template.mime_type} in the listing (not read)"
            if template.mime_type
            else "not read, and the listing declares no MIME type",
        ),
        FieldSupport("bytes", None, unknown),
        FieldSupport("digest", None, unknown),
        FieldSupport("provenance", True if prov else None, f"declared in _meta: {prov}" if prov else unknown),
        FieldSupport("sideEffects", True, "read-only by protocol contract"),
    )


def unexercised_fields(server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    unknown = "not exercised: the audit's time bound ran out first"
    return (
        FieldSupport("actor", True, "application (derived from resources/read)"),
        server_field(server),
        *(FieldSupport(f, None, unknown) for f in AUDIT_FIELDS[2:-1]),
        FieldSupport("sideEffects", True, "read-only by protocol contract"),
    )


#: Who a prompt's receipt names: MCP's Prompts page (since 2024-11-05, still in 2026-07-28)
#: says prompts are designed to be user-controlled.
_PROMPT_ACTOR = "user (prompts are user-controlled: the user picks one, the application gets it)"


def declared_prompt_fields(server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    """A listed prompt the audit did not get: only who picks it and who serves it are known."""
    unknown = "not exercised: the prompt was not got"
    return (
        FieldSupport("actor", True, _PROMPT_ACTOR),
        server_field(server),
        *(FieldSupport(f, None, unknown) for f in AUDIT_FIELDS[2:]),
    )


def fields_from_prompt(rec: dict[str, Any], server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    """The custody fields of one ``prompts/get`` receipt (:func:`~custody_lab.live.live_receipts.prompt_receipt`)."""
    performed = rec["performed"] and "error" not in rec
    custody, totals = rec["custody"], rec["contentTotals"]
    known = True if performed else None
    embeds = [b for b in rec["contentBlocks"] if b.get("uri")]
    uri_how = f"a prompt has a name, not a URI: {rec['target']!r} with its arguments" + (
        f"; {len(embeds)} embedded or linked block(s) carry their own URI" if embeds else ""
    )
    evidence = rec["sideEffectsEvidence"]
    counted = "counted from every block of every message" + (
        f" ({totals['uncounted']} block(s) could not be counted)" if totals["uncounted"] else ""
    )
    return (
        FieldSupport("actor", True, _PROMPT_ACTOR),
        server_field(server),
        FieldSupport("uri", known, uri_how),
        FieldSupport(
            "mime",
            bool(custody["mime"]) if performed else None,
            f"{custody['mime']} (text blocks by their type, others as the wire carried them)"
            if custody["mime"]
            else "no MIME type came back",
        ),
        FieldSupport("bytes", known and not totals["uncounted"], counted if performed else "nothing came back"),
        FieldSupport("digest", known, "sha256 of every inline block, in order" if performed else "nothing came back"),
        provenance_field(rec, performed),
        FieldSupport(
            "sideEffects",
            True if evidence["observed"] is not None else None,
            f"observed by state digest: {'changed' if evidence['observed'] else 'unchanged'}"
            if evidence["observed"] is not None
            else "not known: MCP makes no read-only promise for prompts/get, and no state resource was observed",
        ),
    )


def prompt_details(rec: dict[str, Any]) -> dict[str, Any]:
    """A prompt receipt's custody, blocks and totals, for the report's details."""
    out = {k: rec[k] for k in ("custody", "contentDigest", "provenanceSource", "arguments") if rec.get(k) is not None}
    out["blocks"], out["totals"] = rec["contentBlocks"], rec["contentTotals"]
    if rec.get("description"):
        out["description"] = rec["description"]
    return out
