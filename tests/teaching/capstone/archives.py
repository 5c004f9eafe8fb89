"""A good archive of the given notes server, built without a server, for the rubric tests to break.

``FIXES`` and ``REASONS`` are a correct design of ``data/capstone/notes-server.csv``;
:func:`good_report` is the audit report of a server that does what that design says (what the
live test gets from the notebook's server after :data:`SERVER_EDITS`). Each test breaks a copy.
"""

from __future__ import annotations

import custody_lab as cl
from custody_lab.live.audit_report import AuditReport, CapabilityAudit, FieldSupport
from custody_lab.live.presentation import Consent
from custody_lab.teaching.capstone import GIVEN_INVENTORY, archive_lines, review_design
from custody_lab.teaching.capstone.rubric import check_lines

CASES = cl.load_cases(GIVEN_INVENTORY)
BY_ID = {c.id: c for c in CASES}

#: A correct design: one sound input per fixable refusal, and a reason for the one kept.
FIXES = {
    "word-count": {"uri": "urn:notes:word-count:7"},
    "export-notes": {"shape": "resource-link"},
    "delete-note": {"sideEffects": True},
}
REASONS = {"audit-log": "administrators only: this host has no admin role, so the log stays out of context"}

#: The edits that make the notebook's given server do what FIXES says, one line each.
SERVER_EDITS = [
    (
        "        structured_content=counted,\n",
        '        structured_content=counted,\n        _meta={"org.custody-lab/uri": f"urn:notes:word-count:{id}"},\n',
    ),
    (
        '    return mt.CallToolResult(content=[mt.EmbeddedResource(type="resource", resource=every)])\n',
        '    return mt.CallToolResult(content=[mt.ResourceLink(type="resource_link", name="all-notes", '
        'uri="notes://all", mime_type="text/markdown")])\n',
    ),
    ("@server.tool()\ndef delete_note", '@server.tool(meta={"org.custody-lab/sideEffects": True})\ndef delete_note'),
]

#: The learner who approves the calls, as the host's consent log names a person.
LEARNER = {"person": "Robin Okafor"}
CONSENTS = [Consent("word_count", {"id": "7"}, LEARNER), Consent("export_notes", {}, LEARNER)]


def custody(actor: str, uri: str | None, mime: str = "application/json", size: int = 25, effects: bool = False) -> dict:
    return {
        "actor": actor,
        "permissionChecked": True,
        "uri": uri,
        "mime": mime,
        "provenance": "notes-server@0.1.0",
        "bytes": size,
        "retrievedAt": "2026-09-04T12:00:00.000Z",
        "sideEffects": effects,
    }


def export_link_block(uri: str = "notes://all", followed: dict | None = None) -> dict:
    """The resource_link block export_notes returns, as the audit records it once it followed it."""
    resolved = {"accepted": True, "bytes": 51883, "digest": "sha256:" + "d" * 64, "resolved": True, "error": None}
    return {
        "index": 0,
        "type": "resource_link",
        "uri": uri,
        "mimeType": "text/markdown",
        "mime": "text/markdown",
        "mimeSource": "wire",
        "bytes": None,
        "declaredSize": None,
        "followed": resolved if followed is None else followed,
    }


def reread_of(changed: bool = False) -> dict:
    """A listed resource's second read, as the audit records it."""
    return {"changed": changed, "contentDigest": "sha256:" + ("e" if changed else "a") * 64, "error": None}


def good_caps() -> list[CapabilityAudit]:
    declared = (FieldSupport("sideEffects", True, "_meta org.custody-lab/sideEffects"),)
    return [
        CapabilityAudit(
            "resource",
            "notes://index",
            True,
            "listed",
            "listed-resource",
            (),
            {"custody": custody("application", "notes://index", "text/plain", 120), "reread": reread_of()},
        ),
        CapabilityAudit(
            "template",
            "notes://{id}",
            True,
            "template read as notes://7",
            "templated-resource",
            (),
            {"custody": custody("application", "notes://7", "text/markdown", 27)},
        ),
        CapabilityAudit(
            "tool",
            "word_count",
            True,
            "allowed",
            "structured-tool-result",
            (),
            {"custody": custody("model", "urn:notes:word-count:7")},
        ),
        CapabilityAudit(
            "tool",
            "export_notes",
            True,
            "allowed",
            "resource-link",
            (),
            {"custody": custody("model", "notes://all", "text/markdown", 0), "blocks": [export_link_block()]},
        ),
        CapabilityAudit(
            "link",
            "notes://all",
            True,
            "second read of a link from 'export_notes'",
            "templated-resource",
            (),
            {"custody": custody("application", "notes://all", "text/markdown", 51883), "from": "export_notes"},
        ),
        CapabilityAudit("tool", "delete_note", False, "not called (name it with --allow-calls)", None, declared),
    ]


#: The audit's second look at the listed resources when nothing changed (custody_lab.live.audit_reread).
UNCHANGED = {"changes": [], "calledBetween": ["word_count", "export_notes"], "reread": 1, "stopped": False}
UNCHANGED |= {"indexGone": [], "indexAdded": []}


def report_of(caps: list[CapabilityAudit], reread: dict | None = None) -> AuditReport:
    """The report of an audit that saw ``caps`` and, by default, nothing change on its second look."""
    server = {"name": "notes-server", "version": "0.1.0"}
    return AuditReport(("srv",), server, "2026-07-28", tuple(caps), reread=UNCHANGED if reread is None else reread)


def good_report() -> AuditReport:
    return report_of(good_caps())


def lines_for(
    fixes: dict | None = None,
    reasons: dict | None = None,
    report: AuditReport | None = None,
    consents: list[Consent] | None = None,
) -> list[dict]:
    """An archive of the given design (the good one by default), as archive_lines writes it."""
    rows = review_design(
        CASES, fixes=FIXES if fixes is None else fixes, reasons=REASONS if reasons is None else reasons
    )
    return archive_lines(rows, report or good_report(), CONSENTS if consents is None else consents)


def good_lines() -> list[dict]:
    return lines_for()


def line_of(lines: list[dict], kind: str, name: str) -> dict:
    return next(x for x in lines if x["kind"] == kind and name in (x.get("id"), x.get("name"), x.get("tool")))


def failures(lines: list[dict], report: AuditReport | None = None) -> dict[str, tuple[str, ...]]:
    """The failed steps of the rubric over ``lines`` (with the good report unless one is given)."""
    rubric = check_lines(lines, inventory=CASES, audit=report or good_report())
    return {s.step: s.problems for s in rubric.steps if not s.passed}
