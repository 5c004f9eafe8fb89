"""The audit report as ``custody-lab audit --json`` writes it, read back for the rubric.

A reviewer who re-runs the rubric later has the archive, the inventory and the audit's JSON, not the
notebook's :class:`~custody_lab.live.audit_report.AuditReport`. :func:`audit_from_json` rebuilds the
report from that JSON and checks what the JSON states twice: each row's ``status`` against its
``exercised`` and ``skipped`` flags, each row's ``gaps`` against its ``fields``, the top-level
``counts`` and ``gaps`` against the rows. A flag flipped by hand without the rest is named; a
JSON rewritten consistently from end to end is not detectable here (the rubric says so).
"""

from __future__ import annotations

__all__ = ["audit_from_json", "read_audit_json"]

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.receipts import canonical_json
from ...core.text import visible
from .archive_shape import MAX_ARCHIVE_BYTES, json_problem

if TYPE_CHECKING:
    from ...live.audit_report import AuditReport

_TOP = {"command": list, "server": dict, "capabilities": list}
_ROW = {"kind": str, "name": str, "exercised": bool, "skipped": bool, "why": str, "fields": list, "details": dict}


def _wrong(where: str, obj: Mapping[str, Any], spec: Mapping[str, type]) -> list[str]:
    out = []
    for key, kind in spec.items():
        value = obj.get(key)
        kinds = (list, tuple) if kind is list else (kind,)  # to_dict() keeps tuples; JSON reads lists
        if not isinstance(value, kinds) or (kind is not bool and isinstance(value, bool)):
            out.append(f"{where}: field {key!r} is missing or not {kind.__name__}")
    return out


def audit_from_json(value: object, name: str = "the audit JSON") -> tuple[AuditReport | None, list[str]]:
    """The report ``custody-lab audit --json`` wrote (already parsed), and every problem with it.

    Returns ``(None, problems)`` when the JSON is not a report; a report together with the
    problems of its restated values (``status``, ``counts``, ``gaps``) otherwise.

    Example:
        >>> from custody_lab.live.audit_report import AuditReport
        >>> report, problems = audit_from_json(AuditReport(("srv",), {"name": "s"}, None, ()).to_dict())
        >>> report.server, problems
        ({'name': 's'}, [])
    """
    from ...live.audit_report import AuditReport, CapabilityAudit, FieldSupport

    if not isinstance(value, Mapping):
        return None, [f"{name} is not a JSON object"]
    unsafe = json_problem(value)
    if unsafe is not None:
        return None, [f"{name}: {unsafe}"]
    problems = _wrong(name, value, _TOP)
    if problems:
        return None, problems
    caps = []
    for i, row in enumerate(value["capabilities"]):
        where = f"{name} capabilities[{i}]"
        if not isinstance(row, Mapping):
            return None, [f"{where} is not an object"]
        wrong = _wrong(where, row, _ROW)
        found = row.get("fields")
        fields: list[Any] = list(found) if isinstance(found, list | tuple) else []
        if not all(isinstance(f, Mapping) and isinstance(f.get("field"), str) for f in fields):
            wrong.append(f"{where}: a field mark is not an object with a 'field'")
        if not (row.get("outcome") is None or isinstance(row.get("outcome"), str)):
            wrong.append(f"{where}: field 'outcome' is not text or null")
        if wrong:
            return None, wrong
        marks = tuple(FieldSupport(f["field"], f.get("supplied"), str(f.get("how", ""))) for f in fields)
        cap = CapabilityAudit(
            row["kind"],
            row["name"],
            row["exercised"],
            row["why"],
            row.get("outcome"),
            marks,
            dict(row["details"]),
            row["skipped"],
        )
        who = f"{where} ({visible(row['kind'])} {visible(repr(row['name']))})"
        if row.get("status") != cap.status:
            problems.append(
                f"{who}: status {visible(repr(row.get('status')))} is not what its flags say ({cap.status}): "
                "the report was edited by hand"
            )
        gaps = [g.get("field") if isinstance(g, Mapping) else g for g in row.get("gaps") or ()]
        if gaps != [g.field for g in cap.gaps]:
            problems.append(f"{who}: its gaps are not the fields it marks as gaps: the report was edited by hand")
        caps.append(cap)
    report = AuditReport(
        tuple(str(c) for c in value["command"]),
        dict(value["server"]),
        value.get("protocol_version") if isinstance(value.get("protocol_version"), str) else None,
        tuple(caps),
        notes=tuple(str(n) for n in value.get("notes") or ()),
        incomplete=tuple(str(n) for n in value.get("incomplete") or ()),
        reread=dict(value["reread"]) if isinstance(value.get("reread"), Mapping) else {},
    )
    if "counts" in value and canonical_json(value["counts"]) != canonical_json(report.counts):
        problems.append(
            f"{name}: counts {visible(canonical_json(value['counts']))} are not the rows' "
            f"{canonical_json(report.counts)}: the report was edited by hand"
        )
    listed = [(g.get("capability"), g.get("field")) for g in value.get("gaps") or () if isinstance(g, Mapping)]
    if "reread" in value and not isinstance(value["reread"], Mapping):
        problems.append(f"{name}: field 'reread' is not an object: the report was edited by hand")
    if "gaps" in value and listed != [(c, g.field) for c, g in report.gaps]:
        problems.append(f"{name}: its list of gaps is not the rows' gaps: the report was edited by hand")
    return report, problems


def read_audit_json(path: str | Path) -> tuple[AuditReport | None, list[str]]:
    """:func:`audit_from_json` over a file ``custody-lab audit --json`` wrote (at most
    :data:`~.archive_shape.MAX_ARCHIVE_BYTES`); a file that cannot be read is a problem, not an error."""
    target = Path(path)
    shown = visible(target.name)
    try:
        if not target.is_file():
            return None, [f"the audit JSON {shown} is not a file"]
        if target.stat().st_size > MAX_ARCHIVE_BYTES:
            return None, [f"the audit JSON {shown} is over the limit of {MAX_ARCHIVE_BYTES} bytes; not read"]
        value = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        return None, [f"the audit JSON {shown} cannot be read ({visible(e)})"]
    return audit_from_json(value, f"the audit JSON {shown}")
