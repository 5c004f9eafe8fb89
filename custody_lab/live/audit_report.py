"""The audit's report: its values, the text a terminal shows, and JSON that is safe to print.

Everything a server supplied (names, titles, URIs, MIME types, error messages, its stderr) is
made visible with :func:`custody_lab.core.text.visible` when it is formatted, so an escape code in
a resource name is shown as ``\\x1b`` instead of clearing the learner's screen. ``--json`` output
goes through :func:`terminal_json`, which escapes the C1 controls ``json.dumps`` leaves raw.

This module imports nothing from ``mcp``: the CLI formats a report without loading the SDK twice.
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
    "FieldSupport",
    "format_report",
    "terminal_json",  # re-exported from core.text, its home
]

from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..core.text import terminal_json, visible

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


@dataclass(frozen=True)
class FieldSupport:
    """One custody field of one capability: supplied (True), a gap (False) or unknown (None)."""

    field: str
    supplied: bool | None
    how: str


@dataclass(frozen=True)
class CapabilityAudit:
    """What the audit learned about one resource, template or tool."""

    kind: Literal["resource", "template", "tool"]
    name: str
    exercised: bool
    why: str
    outcome: str | None
    fields: tuple[FieldSupport, ...]

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
        out = asdict(self)
        out["gaps"] = [{"capability": n, **asdict(g)} for n, g in self.gaps]
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
        for g in c.gaps:
            lines.append(f"    gap: {g.field} — {visible(g.how)}")
    lines.append("")
    for note in report.notes:
        lines.append(f"note: {visible(note)}")
    for reason in report.incomplete:
        lines.append(f"INCOMPLETE: {visible(reason)}")
    lines.append(f"{len(report.gaps)} custody gap(s) across {len(report.capabilities)} capabilities")
    return "\n".join(lines)
