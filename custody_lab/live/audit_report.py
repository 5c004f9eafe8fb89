"""The audit's report: its values, the text a terminal shows, and JSON that is safe to print.

Everything a server supplied (names, titles, URIs, MIME types, error messages, its stderr) is
made visible with :func:`custody_lab.core.text.visible` when it is formatted, so an escape code in
a resource name is shown as ``\\x1b`` instead of clearing the learner's screen. ``--json`` output
goes through :func:`~custody_lab.core.text.terminal_json`, which escapes the C1 controls ``json.dumps`` leaves raw.

This module imports nothing from ``mcp``: the CLI formats a report without loading the SDK twice.

The shape of ``custody-lab audit --json`` (:meth:`AuditReport.to_dict`)::

    {"command": [...], "server": {"name", "version"}, "protocol_version": "2025-11-25",
     "capabilities": [                       # one object per resource, template, tool, followed link
       {"kind": "resource" | "template" | "tool" | "link", "name", "exercised", "why", "outcome",
        "fields": [{"field", "supplied": true | false | null, "how"}, ...],   # AUDIT_FIELDS, in order
        "gaps": [{"field", "supplied": false, "how", "rule": {"revision", "page", "section", "level"}}],
        "details": {...}}],                  # receipt hints, provenance source, template values,
                                             # content blocks, structured check (when exercised);
                                             # a tool's "declared": {"sideEffects", "source"}
     "notes": [...], "incomplete": [...], "stderr": [...],
     "gaps": [{"capability", "field", "supplied", "how", "rule"}, ...]}

``rule`` names the MCP specification page and section a gap relates to and its requirement level
(``MUST``, ``SHOULD``, ``MAY``); ``"none"`` where MCP defines no field and the rule is the lab's
host policy (seed 000's receipt). Exit codes: :data:`EXIT_OK`, :data:`EXIT_GAPS`,
:data:`EXIT_TROUBLE`.
"""

from __future__ import annotations

__all__ = [
    "AUDIT_FIELDS",
    "EXIT_GAPS",
    "EXIT_OK",
    "EXIT_TROUBLE",
    "STOP_EXCHANGES",
    "TOTAL_EXCHANGES",
    "AuditReport",
    "CapabilityAudit",
    "SPEC_RULES",
    "FieldSupport",
    "format_report",
    "rule_for",
]

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..core.text import visible

#: The custody fields reported for every capability.
AUDIT_FIELDS: tuple[str, ...] = (
    "actor",
    "server",
    "uri",
    "mime",
    "bytes",
    "digest",
    "provenance",
    "sideEffects",
)

#: Exit codes of ``custody-lab audit``: done; gaps found under ``--strict``; the audit could not
#: run or did not finish (the server misbehaved, an exchange timed out, the bound ran out).
EXIT_OK, EXIT_GAPS, EXIT_TROUBLE = 0, 1, 2

#: The whole audit (start, handshake, listing, reads, calls) is bounded by ``TOTAL_EXCHANGES``
#: times ``--timeout``; reads and calls stop at ``STOP_EXCHANGES`` times it after the start, so
#: the partial report is made in time and says where the audit stopped.
TOTAL_EXCHANGES = 8
STOP_EXCHANGES = TOTAL_EXCHANGES - 1

#: Widest capability name shown in the table (longer ones are cut with "…"; the list below the
#: table shows them whole).
_NAME_WIDTH = 60

_MARK = {True: "✓", False: "✗", None: "?"}

_SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"

#: The spec rule each custody field's gap relates to (MCP 2026-07-28; the same fields exist in
#: 2025-11-25). ``level`` is the requirement the rule states for the field; ``none``: MCP has no
#: such field and the rule is the lab's host policy.
SPEC_RULES: dict[str, dict[str, str]] = {
    "actor": {"page": f"{_SPEC}/server", "section": "User Interaction Model", "level": "none"},
    "server": {
        "page": f"{_SPEC}/basic/lifecycle",
        "section": "Initialization (serverInfo name, version)",
        "level": "MUST",
    },
    "uri": {"page": f"{_SPEC}/server/resources", "section": "Resource Contents (uri)", "level": "MUST"},
    "mime": {"page": f"{_SPEC}/server/resources", "section": "Resource Contents (mimeType, optional)", "level": "MAY"},
    "bytes": {"page": f"{_SPEC}/server/resources", "section": "Resource (size, optional)", "level": "MAY"},
    "digest": {
        "page": f"{_SPEC}/server/resources",
        "section": "no digest field (the lab's host policy)",
        "level": "none",
    },
    "provenance": {
        "page": f"{_SPEC}/basic/lifecycle",
        "section": "no provenance field; the host names serverInfo (the lab's host policy)",
        "level": "none",
    },
    "sideEffects": {
        "page": f"{_SPEC}/server/tools",
        "section": "Tool annotations (readOnlyHint; clients MUST treat them as untrusted)",
        "level": "MAY",
    },
}

#: Where a tool result's field differs from a resource's: a tool result has no URI or MIME field.
_TOOL_RULES: dict[str, dict[str, str]] = {
    "uri": {
        "page": f"{_SPEC}/server/tools",
        "section": "Tool Result: text, image and structured content carry no URI (the lab's host policy asks one)",
        "level": "none",
    },
}


def rule_for(kind: str, field_name: str) -> dict[str, str]:
    """The spec rule a gap of ``field_name`` on a capability of ``kind`` relates to.

    Example:
        >>> rule_for("resource", "uri")["level"], rule_for("tool", "uri")["level"]
        ('MUST', 'none')
    """
    return (_TOOL_RULES if kind == "tool" else {}).get(field_name) or SPEC_RULES[field_name]


@dataclass(frozen=True)
class FieldSupport:
    """One custody field of one capability: supplied (True), a gap (False) or unknown (None)."""

    field: str
    supplied: bool | None
    how: str


@dataclass(frozen=True)
class CapabilityAudit:
    """What the audit learned about one resource, template or tool."""

    kind: Literal["resource", "template", "tool", "link"]
    name: str
    exercised: bool
    why: str
    outcome: str | None
    fields: tuple[FieldSupport, ...]
    #: what the exchange showed beyond the marks: receipt hints (2026-07-28 fields), provenance
    #: source, template values, content blocks, the structured-content check
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def gaps(self) -> tuple[FieldSupport, ...]:
        return tuple(f for f in self.fields if f.supplied is False)


@dataclass(frozen=True)
class AuditReport:
    """The whole audit: the server, the protocol, every capability, and what was left out.

    Attributes:
        notes: what the listing left out (a page cap that cut it); the audit still finished.
        incomplete: why the audit did not finish (an exchange timed out, the overall bound ran
            out); a non-empty tuple makes ``custody-lab audit`` exit 2 after printing the report.
        stderr: the server's stderr, captured, cut and made visible, one line each.
    """

    command: tuple[str, ...]
    server: dict[str, Any]
    protocol_version: str | None
    capabilities: tuple[CapabilityAudit, ...]
    notes: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    stderr: tuple[str, ...] = ()

    @property
    def gaps(self) -> list[tuple[str, FieldSupport]]:
        return [(c.name, g) for c in self.capabilities for g in c.gaps]

    def to_dict(self) -> dict[str, Any]:
        """The documented ``--json`` shape (see the module docstring): every gap carries its rule."""
        out = asdict(self)
        for cap, c in zip(out["capabilities"], self.capabilities, strict=True):
            cap["gaps"] = [{**asdict(g), "rule": rule_for(c.kind, g.field)} for g in c.gaps]
        out["gaps"] = [
            g for cap in out["capabilities"] for g in ({"capability": cap["name"], **x} for x in cap["gaps"])
        ]
        return out

    def exit_code(self, *, strict: bool = False) -> int:
        """2 when the audit did not finish, 1 for gaps under ``strict``, else 0.

        Example:
            >>> AuditReport((), {}, None, (), incomplete=("timed out",)).exit_code()
            2
        """
        if self.incomplete:
            return EXIT_TROUBLE
        return EXIT_GAPS if strict and self.gaps else EXIT_OK


def _cell(text: object, width: int) -> str:
    shown = visible(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def format_report(report: AuditReport) -> str:
    """The report as text: one row per capability, a mark per custody field, then every gap."""
    names = [_cell(c.name, _NAME_WIDTH) for c in report.capabilities]
    name_w = max([len(n) for n in names] + [10])
    head = f"{'kind':<8}  {'capability':<{name_w}}  ran  " + "  ".join(f"{f:<10}" for f in AUDIT_FIELDS)
    lines = [
        f"server: {visible(report.server.get('name'))} {visible(report.server.get('version'))} · "
        f"protocol {visible(report.protocol_version)} · command: {visible(' '.join(report.command))}",
        "✓ supplied   ✗ cannot supply (a custody gap)   ? not exercised",
        head,
        "-" * len(head),
    ]
    for c, name in zip(report.capabilities, names, strict=True):
        marks = {f.field: _MARK[f.supplied] for f in c.fields}
        lines.append(
            f"{c.kind:<8}  {name:<{name_w}}  {'yes' if c.exercised else 'no ':<3}  "
            + "  ".join(f"{marks.get(f, ' '):<10}" for f in AUDIT_FIELDS)
        )
    lines.append("")
    for c in report.capabilities:
        outcome = f" → {visible(c.outcome)}" if c.outcome else ""
        lines.append(f"{c.kind} {visible(c.name)}: {visible(c.why)}{outcome}")
        for line in _detail_lines(c.details):
            lines.append(f"    {line}")
        for g in c.gaps:
            rule = rule_for(c.kind, g.field)
            lines.append(f"    gap: {g.field} — {visible(g.how)} [{rule['level']}: {rule['section']}]")
    lines.append("")
    for note in report.notes:
        lines.append(f"note: {visible(note)}")
    for reason in report.incomplete:
        lines.append(f"INCOMPLETE: {visible(reason)}")
    lines.append(f"{len(report.gaps)} custody gap(s) across {len(report.capabilities)} capabilities")
    return "\n".join(lines)


def _detail_lines(details: dict[str, Any]) -> list[str]:
    """The few detail lines a person reads: values used, blocks seen, the schema check."""
    lines = []
    hints = details.get("hints") or {}
    size = hints.get("size") or {}
    if size.get("mismatch"):
        lines.append(f"size MISMATCH: the server declared {size['declared']} bytes, {size['received']} arrived")
    if hints.get("freshness"):
        fresh = hints["freshness"]
        lines.append(
            f"ttlMs {fresh['ttlMs']} (server hint): fresh until {fresh['freshUntil']}, {fresh['state']} when read"
        )
    declared = details.get("declared") or {}
    if declared.get("sideEffects") is not None:
        lines.append(f"declares sideEffects {str(declared['sideEffects']).lower()} ({visible(declared.get('source'))})")
    for name, how in (details.get("templateValues") or {}).items():
        lines.append(f"value {visible(name)}: {visible(how)}")
    if details.get("expandedUri"):
        lines.append(f"expanded with the lab's RFC 6570 engine: {visible(details['expandedUri'])}")
    for b in details.get("blocks") or ():
        what = " " + visible(b.get("uri") or b.get("mimeType")) if b.get("uri") or b.get("mimeType") else ""
        size = f", {b['bytes']} bytes" if b.get("bytes") is not None else ""
        sniffed = f", sniffed {visible(b['sniffed'])}" if b.get("sniffed") else ""
        lines.append(f"block {b['index']}: {b['type']}{what}{size}{sniffed}")
    check = details.get("structured")
    if check:
        verdict = {True: "valid", False: f"INVALID ({visible(check['error'])})", None: "not checked"}[check["valid"]]
        fallback = "a TextContent block carries the same JSON" if check["textFallback"] else "no TextContent fallback"
        lines.append(f"structuredContent against outputSchema ({check['dialect']}): {verdict}; {fallback}")
    return lines
