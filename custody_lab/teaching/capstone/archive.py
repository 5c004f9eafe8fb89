"""The capstone's third step: the receipt archive, one JSON line per receipt and per consent.

:func:`archive_lines` gathers the design review's rows and the live audit's report into lines, and
:func:`write_archive` writes one JSON line per receipt (design and live), one per consent, and a
summary that lists every receipt with its sha256; the rubric (:mod:`.rubric`) checks the file.

The archive's format (JSON lines, ``ARCHIVE_FORMAT``), in this order::

    {"kind": "header", "format", "server", "protocol", "policy", "inventory"}
    {"kind": "design", "id", "row", "case", "fix": {"field", "before", "after"} | null,
     "receipt", "reason"}                                  # one per inventory row
    {"kind": "consent", "tool", "approvedBy", "arguments"}   # one per approved tool; approvedBy {"person"|"hostPolicy"}
    {"kind": "live", "capability", "name", "exercised", "why", "receipt" | null, "gaps", "reason"}
    {"kind": "summary", "receipts": [{"line", "kind", "id", "sha256"}], "counts": {...}}

A receipt is the seed's shape (``id``, ``accepted``, ``selected`` or ``rejection``, ``custody``);
a live one is built from what the audit recorded (its ``custody`` block and outcome). Everything a
server said is kept as data: shown through :func:`~custody_lab.core.text.visible` or escaped by
:mod:`custody_lab.views.html`, it never decides anything.
"""

from __future__ import annotations

__all__ = ["ARCHIVE_FORMAT", "archive_lines", "consent_line", "live_line", "live_receipt", "write_archive"]

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.model import SHAPES, Policy
from ...core.receipts import digest
from .design_review import DesignRow, unknown_names

if TYPE_CHECKING:  # the live layer (and mcp) load only when a server is audited
    from ...live.audit_report import AuditReport, CapabilityAudit
    from ...live.presentation import Consent

#: The name and version written into every archive's header.
ARCHIVE_FORMAT = "custody-lab-capstone-archive/1"


def consent_line(consent: Consent) -> dict[str, Any]:
    """A consent as its archive line."""
    return {
        "kind": "consent",
        "tool": consent.tool,
        "approvedBy": consent.approved_by,
        "arguments": dict(consent.arguments),
    }


def live_receipt(cap: CapabilityAudit) -> dict[str, Any] | None:
    """The receipt of one audited capability in the seed's shape, or ``None`` if not exercised.

    ``custody`` is the block the audit recorded from what the server sent; ``accepted`` is whether
    the outcome is one of the five shapes (otherwise it is a rejection code).
    """
    if not cap.exercised or cap.outcome is None:
        return None
    accepted = cap.outcome in SHAPES
    out: dict[str, Any] = {"id": cap.name, "accepted": accepted, "selected" if accepted else "rejection": cap.outcome}
    out["custody"] = cap.details.get("custody")
    return out


def live_line(cap: CapabilityAudit, reason: str | None = None) -> dict[str, Any]:
    """One audited capability as its archive line (the rubric re-derives these from the report)."""
    return {
        "kind": "live",
        "capability": cap.kind,
        "name": cap.name,
        "exercised": cap.exercised,
        "why": cap.why,
        "receipt": live_receipt(cap),
        "gaps": [g.field for g in cap.gaps],
        "reason": reason,
    }


def archive_lines(
    rows: Sequence[DesignRow],
    report: AuditReport,
    consents: Sequence[Consent] = (),
    *,
    reasons: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    inventory: str | Path | None = None,
) -> list[dict[str, Any]]:
    """The archive as a list of JSON-ready lines (see this module's docstring for their shape).

    ``reasons`` gives the written reason for a live capability that stays refused or unread
    (keyed by its name as the audit lists it); design reasons come with ``rows``.
    """
    reasons = dict(reasons or {})
    known = {c.name for c in report.capabilities}
    unknown_names("reasons", reasons, sorted(known))
    header = {
        "kind": "header",
        "format": ARCHIVE_FORMAT,
        "server": dict(report.server),
        "protocol": report.protocol_version,
        "policy": (policy or Policy()).to_dict(),
        "inventory": None if inventory is None else Path(inventory).name,
    }
    lines: list[dict[str, Any]] = [header]
    for r in rows:
        lines.append(
            {
                "kind": "design",
                "id": r.case.id,
                "row": r.row,
                "case": r.case.to_dict(),
                "fix": r.fix.to_dict() if r.fix else None,
                "receipt": r.decision.to_dict(),
                "reason": r.reason,
            }
        )
    lines += [consent_line(c) for c in consents]
    lines += [live_line(cap, reasons.get(cap.name)) for cap in report.capabilities]
    listed = [
        {"line": n, "kind": line["kind"], "id": line["receipt"]["id"], "sha256": digest(line["receipt"])}
        for n, line in enumerate(lines, start=1)
        if line.get("receipt") is not None
    ]
    counts = {
        "design": len(rows),
        "designAccepted": sum(r.decision.accepted for r in rows),
        "designFixed": sum(r.status == "fixed" for r in rows),
        "designRefused": sum(r.status == "refused" for r in rows),
        "live": len(report.capabilities),
        "liveExercised": sum(c.exercised for c in report.capabilities),
        "toolsCalled": sorted(c.name for c in report.capabilities if c.kind == "tool" and c.exercised),
        "consents": len(consents),
    }
    lines.append({"kind": "summary", "receipts": listed, "counts": counts})
    return lines


def write_archive(path: str | Path, lines: Sequence[Mapping[str, Any]]) -> Path:
    """Write the archive's lines as JSON lines (one compact object a line); return the path.

    Every non-ASCII character is written as a JSON escape, so a server's control characters or
    bidi overrides cannot act on a terminal that shows the file; the values (and the sha256 of
    each receipt's canonical JSON) are unchanged. The folder is created when missing.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n" for line in lines)
    target.write_text(text, encoding="utf-8")
    return target
