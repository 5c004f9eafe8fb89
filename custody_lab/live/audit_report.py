"""The audit's report: its values, the text a terminal shows, and JSON that is safe to print.

Everything a server supplied (names, titles, URIs, MIME types, error messages, its stderr) is
made visible with :func:`custody_lab.core.text.visible` when it is formatted, so an escape code in
a resource name is shown as ``\\x1b`` instead of clearing the learner's screen. ``--json`` output
goes through :func:`~custody_lab.core.text.terminal_json`, which escapes the C1 controls ``json.dumps`` leaves raw.

This module imports nothing from ``mcp``: the CLI formats a report without loading the SDK twice.

The shape of ``custody-lab audit --json`` (:meth:`AuditReport.to_dict`)::

    {"command": [...], "server": {"name", "version"}, "protocol_version": "2025-11-25",
     "presentation": {"instructions", "title", "websiteUrl", "icons"},   # the server's words: untrusted
     "counts": {"total", "exercised", "listedOnly", "skipped"},
     "capabilities": [                       # one per resource, template, tool call, followed link, prompt
       {"kind": "resource" | "template" | "tool" | "link" | "prompt", "name", "exercised", "skipped",
        "status": "exercised" | "listed-only" | "skipped", "why", "outcome",   # null for a prompt: not routed
        "fields": [{"field", "supplied": true | false | null, "how"}, ...],   # AUDIT_FIELDS, in order
        "gaps": [{"field", "supplied": false, "how", "rule": {"revision", "page", "section", "level", "fix"}}],
        "details": {...}}],                  # receipt hints, provenance source, template values,
                                             # "blocks" (every content block) and "totals",
                                             # structured check (when exercised); a tool's
                                             # "declared": {"sideEffects", "source"} and "hints"
                                             # (its annotations: the server's, untrusted)
     "notes": [...], "incomplete": [...], "protocol": [...], "stderr": [...],
     "reread": {"changes", "calledBetween", "indexGone", "indexAdded", "reread", "stopped"},
     "gaps": [{"capability", "field", "supplied", "how", "rule"}, ...]}

``rule`` names the MCP specification page and section a gap relates to and its requirement level
(``MUST``, ``SHOULD``, ``MAY``); ``"none"`` where MCP defines no field and the rule is the lab's
host policy (seed 000's receipt); its ``fix`` says what a server does to supply the field. Exit
codes: :data:`EXIT_OK`, :data:`EXIT_GAPS`, :data:`EXIT_TROUBLE`.
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
    "Status",
    "SPEC_RULES",
    "FieldSupport",
    "format_report",
    "rule_for",
]

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..core.text import visible
from .meta_keys import PROVENANCE_KEY, SIDE_EFFECTS_KEY, URI_KEY

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
    "actor": {
        "page": f"{_SPEC}/server",
        "section": "User Interaction Model",
        "level": "none",
        "fix": "nothing to add: the host derives the actor from the method (a read: the application; a call: "
        "the model)",
    },
    "server": {
        "page": f"{_SPEC}/basic/lifecycle",
        "section": "Initialization (serverInfo name, version)",
        "level": "MUST",
        "fix": "return serverInfo with a name and a version in the initialize result",
    },
    "uri": {
        "page": f"{_SPEC}/server/resources",
        "section": "Resource Contents (uri)",
        "level": "MUST",
        "fix": "return each content item with the uri it was read from",
    },
    "mime": {
        "page": f"{_SPEC}/server/resources",
        "section": "Resource Contents (mimeType, optional)",
        "level": "MAY",
        "fix": "set mimeType on each resource in resources/list and on each content item",
    },
    "bytes": {
        "page": f"{_SPEC}/server/resources",
        "section": "Resource (size, optional)",
        "level": "MAY",
        "fix": "return the content, and set size on each listed resource and resource_link",
    },
    "digest": {
        "page": f"{_SPEC}/server/resources",
        "section": "no digest field (the lab's host policy)",
        "level": "none",
        "fix": "return the content itself: the host digests what arrives (a link is read with --follow-links)",
    },
    "provenance": {
        "page": f"{_SPEC}/basic/lifecycle",
        "section": "no provenance field; the host names serverInfo (the lab's host policy)",
        "level": "none",
        "fix": f"put the _meta key {PROVENANCE_KEY} (who produced it, e.g. 'helpdesk-kb@2026.08') on each "
        "resource and result (the lab's host policy reads it)",
    },
    "sideEffects": {
        "page": f"{_SPEC}/server/tools",
        "section": "Tool annotations (readOnlyHint; clients MUST treat them as untrusted)",
        "level": "MAY",
        "fix": f"declare the tool's _meta key {SIDE_EFFECTS_KEY}, true or false, in tools/list (the lab's host "
        "policy; a readOnlyHint declares nothing)",
    },
}

#: Where a tool result's field differs from a resource's: a tool result has no URI or MIME field.
_TOOL_RULES: dict[str, dict[str, str]] = {
    "uri": {
        "page": f"{_SPEC}/server/tools",
        "section": "Tool Result: text, image and structured content carry no URI (the lab's host policy asks one)",
        "level": "none",
        "fix": f"return a resource_link or an embedded resource (each carries its uri), or name a structured "
        f"result with the _meta key {URI_KEY}",
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


#: What became of a capability: exercised (read, called, got); listed only (the audit does not
#: exercise it on its own: a tool not named, a template or prompt with no value known); skipped
#: (the audit would have, but the time bound ran out or the gate refused it).
Status = Literal["exercised", "listed-only", "skipped"]


@dataclass(frozen=True)
class CapabilityAudit:
    """What the audit learned about one resource, template, tool call, followed link or prompt."""

    kind: Literal["resource", "template", "tool", "link", "prompt"]
    name: str
    exercised: bool
    why: str
    outcome: str | None
    fields: tuple[FieldSupport, ...]
    #: what the exchange showed beyond the marks: receipt hints (2026-07-28 fields), provenance
    #: source, template values, content blocks, the structured-content check
    details: dict[str, Any] = field(default_factory=dict)
    #: the audit meant to exercise it and could not (time bound, gate); see :data:`Status`
    skipped: bool = False

    @property
    def gaps(self) -> tuple[FieldSupport, ...]:
        return tuple(f for f in self.fields if f.supplied is False)

    @property
    def status(self) -> Status:
        return "exercised" if self.exercised else "skipped" if self.skipped else "listed-only"


@dataclass(frozen=True)
class AuditReport:
    """The whole audit: the server, the protocol, every capability, and what was left out.

    Attributes:
        notes: what the listing left out (a page cap that cut it); the audit still finished.
        incomplete: why the audit did not finish (an exchange timed out, the overall bound ran
            out, a schema check was cut); a non-empty tuple makes ``custody-lab audit`` exit 2 after
            printing the report.
        protocol: what the server sent that MCP does not allow, and the audit carried on past (a
            malformed notification, dropped; a declared size that is not a non-negative integer,
            treated as undeclared), counted, the first few of each kind shown
            (:class:`~custody_lab.live.wire_checks.WireFindings`); a non-empty tuple makes
            ``custody-lab audit`` exit 2 after printing the report: the server broke the protocol.
        stderr: the server's stderr, captured, cut and made visible, one line each.
        transport: how the audit reached the server: ``"stdio"`` (``command`` is the command line)
            or ``"streamable-http"`` (``command`` is the URL).
        presentation: what the server says about itself for people to read (``instructions``,
            ``title``, ``websiteUrl``, ``icons`` as addresses): untrusted text, shown escaped,
            deciding nothing.
        reread: the audit's second look at the listed resources
            (:func:`~custody_lab.live.audit_reread.reread_listed`): ``changes`` (one sentence per
            read or index that changed), ``calledBetween``, ``indexGone``, ``indexAdded``,
            ``reread`` and ``stopped``; empty when the audit did not get that far. A change makes
            ``--strict`` exit 1.
        flows: context that flowed back (:mod:`~custody_lab.live.audit_flows`): the extensions the
            server declares, each request it made of the user and what the audit sent, each task.
    """

    command: tuple[str, ...]
    server: dict[str, Any]
    protocol_version: str | None
    capabilities: tuple[CapabilityAudit, ...]
    notes: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    stderr: tuple[str, ...] = ()
    protocol: tuple[str, ...] = ()
    presentation: dict[str, Any] = field(default_factory=dict)
    transport: str = "stdio"
    reread: dict[str, Any] = field(default_factory=dict)
    flows: tuple[str, ...] = ()

    @property
    def changes(self) -> list[str]:
        """What changed between the audit's two looks at the listed resources (:attr:`reread`)."""
        found = self.reread.get("changes") if isinstance(self.reread, dict) else None
        return [str(c) for c in found] if isinstance(found, list | tuple) else []

    @property
    def gaps(self) -> list[tuple[str, FieldSupport]]:
        return [(c.name, g) for c in self.capabilities for g in c.gaps]

    @property
    def counts(self) -> dict[str, int]:
        """How many capabilities were exercised, only listed, or skipped (and in all).

        Example:
            >>> AuditReport((), {}, None, ()).counts
            {'total': 0, 'exercised': 0, 'listedOnly': 0, 'skipped': 0}
        """
        statuses = [c.status for c in self.capabilities]
        return {
            "total": len(statuses),
            "exercised": statuses.count("exercised"),
            "listedOnly": statuses.count("listed-only"),
            "skipped": statuses.count("skipped"),
        }

    def to_dict(self) -> dict[str, Any]:
        """The documented ``--json`` shape (see the module docstring): every gap carries its rule."""
        out = asdict(self)
        out["counts"] = self.counts
        for cap, c in zip(out["capabilities"], self.capabilities, strict=True):
            cap["status"] = c.status
            cap["gaps"] = [{**asdict(g), "rule": rule_for(c.kind, g.field)} for g in c.gaps]
        out["gaps"] = [
            g for cap in out["capabilities"] for g in ({"capability": cap["name"], **x} for x in cap["gaps"])
        ]
        return out

    def exit_code(self, *, strict: bool = False) -> int:
        """2 when the audit did not finish or the server broke the protocol; under ``strict``, 1 for
        gaps, a read that changed (:attr:`changes`), or when nothing was exercised (no gap seen is
        no evidence when nothing was looked at); else 0.

        Example:
            >>> AuditReport((), {}, None, (), incomplete=("timed out",)).exit_code()
            2
            >>> AuditReport((), {}, None, ()).exit_code(strict=True)
            1
        """
        if self.incomplete or self.protocol:
            return EXIT_TROUBLE
        if strict and (self.gaps or self.changes or not self.counts["exercised"]):
            return EXIT_GAPS
        return EXIT_OK


def _cell(text: object, width: int) -> str:
    shown = visible(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def _label(c: CapabilityAudit) -> str:
    call = c.details.get("call") if isinstance(c.details, dict) else None
    return f"{c.name} (call {call['n']} of {call['of']})" if call and call.get("of", 1) > 1 else c.name


#: Widest piece of server-supplied presentation text shown (instructions, titles); longer is cut.
_PRESENT_WIDTH = 400


def _reached(report: AuditReport) -> str:
    """``command: ...`` for a stdio audit, ``url: ...`` for one over Streamable HTTP."""
    label = "url" if report.transport == "streamable-http" else "command"
    return f"{label}: {visible(' '.join(report.command))}"


def format_report(report: AuditReport) -> str:
    """The report as text: one row per capability, a mark per custody field, then every finding."""
    names = [_cell(_label(c), _NAME_WIDTH) for c in report.capabilities]
    name_w = max([len(n) for n in names] + [10])
    head = f"{'kind':<8}  {'capability':<{name_w}}  ran  " + "  ".join(f"{f:<10}" for f in AUDIT_FIELDS)
    lines = [
        f"server: {visible(report.server.get('name'))} {visible(report.server.get('version'))} · "
        f"protocol {visible(report.protocol_version)} · {_reached(report)}",
        *_presentation_lines(report.presentation),
        "✓ supplied (where not exercised: declared by the server, not observed)   ✗ cannot supply (a custody gap)   "
        "? not exercised or not known",
        head,
        "-" * len(head),
    ]
    for c, name in zip(report.capabilities, names, strict=True):
        marks = {f.field: _MARK[f.supplied] for f in c.fields}
        ran = {"exercised": "yes", "listed-only": "no ", "skipped": "cut"}[c.status]
        lines.append(
            f"{c.kind:<8}  {name:<{name_w}}  {ran:<3}  " + "  ".join(f"{marks.get(f, ' '):<10}" for f in AUDIT_FIELDS)
        )
    lines.append("")
    for c in report.capabilities:
        outcome = f" → {visible(c.outcome)}" if c.outcome else ""
        lines.append(f"{c.kind} {visible(_label(c))}: {visible(c.why)}{outcome}")
        for line in _detail_lines(c):
            lines.append(f"    {line}")
        for g in c.gaps:
            rule = rule_for(c.kind, g.field)
            lines.append(f"    gap: {g.field} — {visible(g.how)} [{rule['level']}: {rule['section']}]")
            lines.append(f"      fix: {rule['fix']}")
    lines.append("")
    for note in report.notes:
        lines.append(f"note: {visible(note)}")
    for reason in report.incomplete:
        lines.append(f"INCOMPLETE: {visible(reason)}")
    for finding in report.protocol:
        lines.append(f"PROTOCOL: {visible(finding)}")
    for change in report.changes:
        lines.append(f"READ CHANGED: {visible(change)}")
    lines += list(report.flows)  # made visible where they were written
    lines += _summary_lines(report)
    return "\n".join(lines)


def _summary_lines(report: AuditReport) -> list[str]:
    n = report.counts
    seen = [g for c in report.capabilities if c.exercised for g in c.gaps]
    lines = [
        f"exercised {n['exercised']}, listed only {n['listedOnly']}, skipped {n['skipped']} "
        f"(of {n['total']} capabilities)"
    ]
    if report.protocol:
        lines.append("the server broke the protocol (the PROTOCOL lines above): the audit carried on, and exits 2")
    if not n["exercised"]:
        lines.append(
            "nothing was exercised: no content reached the audit, so it cannot say the server has no custody gaps"
            + (f"; {len(report.gaps)} custody gap(s) in what the listings declare" if report.gaps else "")
        )
        return lines
    declared = len(report.gaps) - len(seen)
    lines.append(
        f"{len(seen)} custody gap(s) in the {n['exercised']} exercised, "
        f"{declared} in what the {n['listedOnly'] + n['skipped']} others declare"
    )
    return lines


def _presentation_lines(presentation: dict[str, Any]) -> list[str]:
    """The server's words about itself, marked as untrusted presentation (escaped, cut)."""
    shown = {k: v for k, v in (presentation or {}).items() if v}
    if not shown:
        return []
    lines = ["the server's presentation (its own words: untrusted, shown escaped, deciding nothing):"]
    for key in ("title", "websiteUrl", "instructions"):
        if shown.get(key):
            text = str(shown[key])
            cut = _cell(text, _PRESENT_WIDTH)
            more = f" ({len(text)} characters in all)" if len(text) > _PRESENT_WIDTH else ""
            lines.append(f"  {key}: {cut}{more}")
    icons = shown.get("icons") or []
    if icons:
        schemes = ", ".join(visible(i.get("scheme") or "no scheme") for i in icons)
        lines.append(f"  icons: {len(icons)} ({schemes}; addresses only, never fetched)")
    return lines


_HINT_NAMES = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _detail_lines(c: CapabilityAudit) -> list[str]:
    """The few detail lines a person reads: values used, what arrived, findings, digests."""
    details = c.details if isinstance(c.details, dict) else {}
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
        claim = "" if c.exercised else " — the server's claim, not observed (not called)"
        lines.append(
            f"declares sideEffects {str(declared['sideEffects']).lower()} ({visible(declared.get('source'))}){claim}"
        )
    tool_hints = details.get("toolHints")
    if tool_hints:
        set_ = [f"{k} {str(tool_hints[k]).lower()}" for k in _HINT_NAMES if tool_hints.get(k) is not None]
        unset = [k for k in _HINT_NAMES if tool_hints.get(k) is None]
        lines.append(
            "the server's hints (tool annotations: untrusted, they decide nothing): "
            + ", ".join(set_)
            + (f"; not set: {', '.join(unset)}" if unset else "")
        )
        says = declared.get("sideEffects")
        if says is False and (tool_hints.get("destructiveHint") is True or tool_hints.get("readOnlyHint") is False):
            lines.append(
                "HINTS DISAGREE: the tool declares no side effects, its hints say it may change state "
                "(both are the server's claims; the audit did not see which is true)"
            )
        elif says is True and tool_hints.get("readOnlyHint") is True:
            lines.append(
                "HINTS DISAGREE: the tool declares side effects, its readOnlyHint says it changes nothing "
                "(both are the server's claims; the audit did not see which is true)"
            )
    for name, how in (details.get("templateValues") or {}).items():
        lines.append(f"value {visible(name)}: {visible(how)}")
    for name, how in (details.get("argumentValues") or {}).items():
        lines.append(f"argument {visible(name)}: {visible(how)}")
    if details.get("expandedUri"):
        lines.append(f"expanded with the lab's RFC 6570 engine: {visible(details['expandedUri'])}")
    if details.get("error") is not None:
        lines.append(f"no content: {visible(details['error'])}")
    if details.get("toolError") is not None:
        lines.append(f"TOOL ERROR (isError): the server says {visible(repr(details['toolError']))}")
    lines += _mime_lines(details)
    digest_field = next((f for f in c.fields if f.field == "digest"), None)
    if digest_field is not None and digest_field.supplied and details.get("contentDigest"):
        lines.append(f"digest {visible(details['contentDigest'])}")
    for b in details.get("blocks") or ():
        lines.append(_block_line(b))
    totals = details.get("totals")
    if totals:
        per = "; ".join(f"{visible(t)} {v['blocks']}: {v['bytes']} B" for t, v in totals["byType"].items())
        mimes = ", ".join(visible(m) for m in totals["mimeTypes"]) or "none known"
        uncounted = f", {totals['uncounted']} not countable" if totals.get("uncounted") else ""
        lines.append(
            f"content: {totals['blocks']} block(s), {totals['inlineBytes']} bytes inline ({per}{uncounted}); "
            f"MIME types known: {mimes}"
        )
    check = details.get("structured")
    if check and check.get("toolError"):
        lines.append("structuredContent not checked: the result is a tool error (isError), not a structured result")
    elif check:
        verdict = {True: "valid", False: f"INVALID ({visible(check['error'])})", None: "not checked"}[check["valid"]]
        if check.get("stopped"):
            verdict = f"NOT CHECKED ({visible(check['stopped'])})"
        fallback = "a TextContent block carries the same JSON" if check["textFallback"] else "no TextContent fallback"
        dialect = f" ({visible(check['dialect'])})" if check.get("dialect") else ""
        lines.append(f"structuredContent against outputSchema{dialect}: {verdict}; {fallback}")
    return lines


def _mime_lines(details: dict[str, Any]) -> list[str]:
    """MIME findings: declared against sniffed, a listing's or template's MIME against the read's."""
    lines = []
    check = details.get("mimeCheck") or {}
    if check.get("mismatch"):
        lines.append(
            f"MIME MISMATCH: declared {visible(check.get('declared'))}, but the bytes look like "
            f"{visible(check.get('sniffed'))} ({visible(check.get('reason'))})"
        )
    elif check and check.get("declared") is None and check.get("sniffed"):
        lines.append(
            f"MIME not known: the wire carried no mimeType; the bytes look like {visible(check['sniffed'])} "
            "(sniffed, not known)"
        )
    listed = details.get("listedMime")
    got = (details.get("custody") or {}).get("mime")
    if listed and got and listed != got:
        lines.append(f"MIME FINDING: the listing declares {visible(listed)}, the read returned {visible(got)}")
    return lines


def _followed_text(followed: object) -> str:
    """What following a resource_link found: its bytes, the server's refusal to resolve it, or why
    it was not followed."""
    if not isinstance(followed, dict):
        return "; an address, not fetched"
    if "notFollowed" in followed:
        return f"; not followed ({visible(followed['notFollowed'])})"
    if followed.get("error") is not None:
        return f"; LINK NOT RESOLVED: the server could not serve it ({visible(followed['error'])})"
    return f"; followed: {followed.get('bytes')} bytes"


def _block_line(b: dict[str, Any]) -> str:
    where = f" {visible(b['uri'])}" if b.get("uri") else ""
    mime = b.get("mime")
    source = b.get("mimeSource")
    shown = f", {visible(mime)} ({'sniffed, not known' if source == 'sniffed' else source})" if mime else ", no MIME"
    if b.get("type") == "resource_link":
        size = b.get("declaredSize")
        claim = f"declares {size} bytes" if size is not None else "declares no size"
        read = _followed_text(b.get("followed"))
        return f"block {b['index']}: resource_link{where}{shown}, {claim}{read}"
    counted = f", {b['bytes']} bytes" if b.get("bytes") is not None else ""
    error = f", NOT COUNTED ({visible(b['error'])})" if b.get("error") else ""
    mismatch = f", MIME MISMATCH ({visible(b.get('mismatchReason'))})" if b.get("mimeMismatch") else ""
    digest = f", {b['digest']}" if b.get("digest") else ""
    return f"block {b['index']}: {visible(b['type'])}{where}{shown}{counted}{mismatch}{error}{digest}"
