"""The capstone (notebook 09): custody for your own server, from design review to receipt archive.

Seed 000 ends its checklist with "archive its JSON receipt with the design review". The capstone
walks that path for one server, the learner's own or the given notes server
(``data/capstone/notes-server.csv``):

1. **Design review.** Route every capability of the server's inventory (the lab's inventory format,
   read by :func:`custody_lab.load_cases`), then fix each refusal by changing **one** design input
   (:func:`change_one_input`, :func:`review_design`) or keep it refused with a written reason.
2. **Live audit.** Start the server over stdio and audit it as ``custody-lab audit`` does
   (:func:`audit_server`, :func:`custody_lab.live.audit.audit_command`): every listed resource is
   read, each template once, and a tool is called only when a consent names it (an entry of the
   host's :class:`~custody_lab.live.presentation.ConsentLog`; the lab's
   host policy: MCP 2025-11-25 and 2026-07-28 say clients MUST consider tool annotations untrusted
   unless the server is trusted, so a ``readOnlyHint`` is no consent).
3. **Archive.** :func:`write_archive` writes one JSON line per receipt (design and live), one per
   consent, and a summary that lists every receipt with its sha256; the rubric
   (:mod:`custody_lab.teaching.capstone_rubric`) checks the file.

The archive's format (JSON lines, ``ARCHIVE_FORMAT``), in this order::

    {"kind": "header", "format", "server", "protocol", "policy", "inventory"}
    {"kind": "design", "id", "row", "case", "fix": {"field", "before", "after"} | null,
     "receipt", "reason"}                                  # one per inventory row
    {"kind": "consent", "tool", "approvedBy", "arguments"}   # one per tool the user approved
    {"kind": "live", "capability", "name", "exercised", "why", "receipt" | null, "gaps", "reason"}
    {"kind": "summary", "receipts": [{"line", "kind", "id", "sha256"}], "counts": {...}}

A receipt is the seed's shape (``id``, ``accepted``, ``selected`` or ``rejection``, ``custody``);
a live one is built from what the audit recorded (its ``custody`` block and outcome). Everything a
server said is kept as data: shown through :func:`~custody_lab.core.text.visible` or escaped by
:mod:`custody_lab.views.html`, it never decides anything.
"""

from __future__ import annotations

__all__ = [
    "ARCHIVE_FORMAT",
    "DESIGN_INPUTS",
    "GIVEN_INVENTORY",
    "CapstoneError",
    "DesignRow",
    "Fix",
    "allow_call",
    "archive_lines",
    "audit_server",
    "change_one_input",
    "consent_line",
    "design_table",
    "edit_once",
    "everything_server",
    "live_receipt",
    "python_server",
    "review_design",
    "write_archive",
]

import difflib
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..core.errors import CaseError, CustodyLabError
from ..core.model import FIELDS, SHAPES, Case, Decision, Policy
from ..core.paths import data_path
from ..core.receipts import canonical_json, digest
from ..core.router import route
from ..core.text import visible

if TYPE_CHECKING:  # the live layer (and mcp) load only when a server is audited
    from ..live.audit_report import AuditReport, CapabilityAudit
    from ..live.presentation import Consent

#: The name and version written into every archive's header.
ARCHIVE_FORMAT = "custody-lab-capstone-archive/1"

#: The given server's inventory: six capabilities of a small notes server, four refused as designed.
GIVEN_INVENTORY = data_path("capstone", "notes-server.csv")

#: The inputs a design fix may change: every case field except its id and its free text.
DESIGN_INPUTS: tuple[str, ...] = tuple(f.name for f in FIELDS if f.name != "id" and f.kind != "text")


class CapstoneError(CustodyLabError, ValueError):
    """A capstone step was given something it cannot use; ``.where`` names the capability, line
    or file, ``.field`` the input or archive field."""

    def __init__(self, message: str, *, where: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.where = where
        self.field = field


# -- 1. design review ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """The one design input changed to fix a refusal: which, from what, to what."""

    field: str
    before: Any
    after: Any

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "before": self.before, "after": self.after}


def change_one_input(case: Case, change: Mapping[str, Any]) -> tuple[Case, Fix]:
    """``case`` with exactly one design input changed, and the :class:`Fix` that says which.

    Example:
        >>> big = Case.from_dict({"id": "export", "initiator": "model", "operation": "generate",
        ...     "shape": "embedded-resource", "uri": "export://all.md", "mime": "text/markdown",
        ...     "bytes": 52000, "current": True, "allowed": True, "sideEffects": False, "provenance": "n@1"})
        >>> fixed, fix = change_one_input(big, {"shape": "resource-link"})
        >>> route(fixed).outcome, fix.before
        ('resource-link', 'embedded-resource')

    Raises:
        CapstoneError: not exactly one input, not a design input (``id``, ``title`` and
            ``description`` decide nothing), a value equal to the current one, or a value the
            case model refuses (the message names the capability and the field).
    """
    where = case.id
    if not isinstance(change, Mapping) or len(change) != 1:
        names = ", ".join(repr(k) for k in change) if isinstance(change, Mapping) else repr(change)
        raise CapstoneError(
            f"capability {where!r}: a fix changes exactly one design input, as {{'field': value}}; got {names}",
            where=where,
        )
    ((name, value),) = change.items()
    if name not in DESIGN_INPUTS:
        raise CapstoneError(
            f"capability {where!r}: {name!r} is not a design input; the inputs are {', '.join(DESIGN_INPUTS)}",
            where=where,
            field=str(name),
        )
    before = case.get(name)
    if before == value and type(before) is type(value):
        raise CapstoneError(f"capability {where!r}: {name!r} is {before!r} already; change it", where=where, field=name)
    try:
        fixed = Case.from_dict({**case.to_dict(), name: value})
    except CaseError as e:
        raise CapstoneError(f"capability {where!r}: {e}", where=where, field=name) from e
    return fixed, Fix(name, before, value)


@dataclass(frozen=True)
class DesignRow:
    """One capability of the design review: as designed, as fixed, and what the router decides."""

    row: int  #: the capability's position in the inventory, from 1 (its CSV line is ``row + 1``)
    designed: Case
    case: Case  #: the case as reviewed (``designed`` with the fix applied, if any)
    before: Decision
    decision: Decision
    fix: Fix | None = None
    reason: str | None = None

    @property
    def status(self) -> Literal["accepted", "fixed", "refused"]:
        if not self.decision.accepted:
            return "refused"
        return "fixed" if self.fix is not None else "accepted"


def _unknown(kind: str, names: Iterable[str], known: Sequence[str]) -> None:
    missing = [n for n in names if n not in known]
    if missing:
        raise CapstoneError(
            f"{kind} name {', '.join(repr(visible(n)) for n in missing)}, which the inventory does not have; "
            f"its capabilities are {', '.join(known)}",
            where=missing[0],
        )


def review_design(
    cases: Sequence[Case],
    *,
    fixes: Mapping[str, Mapping[str, Any]] | None = None,
    reasons: Mapping[str, str] | None = None,
    policy: Policy | None = None,
) -> tuple[DesignRow, ...]:
    """Route every capability, apply each one-input fix, and keep the written reasons.

    Args:
        cases: the inventory (``cl.load_cases(path)``).
        fixes: capability id -> ``{"input": new value}`` (exactly one input each).
        reasons: capability id -> why it stays refused (the rubric asks one for every refusal).
        policy: the host policy (the seed's by default).

    Raises:
        CapstoneError: a fix or reason names a capability the inventory lacks, two capabilities
            share an id, or a fix is not one design input (see :func:`change_one_input`).
    """
    fixes, reasons = dict(fixes or {}), dict(reasons or {})
    ids = [c.id for c in cases]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise CapstoneError(f"the inventory names {', '.join(map(repr, twice))} more than once", where=twice[0])
    _unknown("fixes", fixes, ids)
    _unknown("reasons", reasons, ids)
    rows = []
    for n, designed in enumerate(cases, start=1):
        case, fix = designed, None
        if designed.id in fixes:
            case, fix = change_one_input(designed, fixes[designed.id])
        before = route(designed, policy)
        rows.append(DesignRow(n, designed, case, before, route(case, policy), fix, reasons.get(designed.id)))
    return tuple(rows)


def design_table(rows: Iterable[DesignRow]) -> list[dict[str, Any]]:
    """The review as rows for a table: outcome as designed, the fix, the outcome now, the reason.

    Text from the inventory is passed through :func:`~custody_lab.core.text.visible` (a table
    renderer escapes it again for HTML).
    """
    out = []
    for r in rows:
        fix = f"{r.fix.field}: {r.fix.before!r} → {r.fix.after!r}" if r.fix else ""
        out.append(
            {
                "row": r.row,
                "id": visible(r.case.id),
                "as designed": r.before.outcome,
                "fix (one input)": visible(fix),
                "now": r.decision.outcome,
                "status": r.status,
                "reason": visible(r.reason or ""),
            }
        )
    return out


# -- 2. the live audit -----------------------------------------------------------------------------


def allow_call(consent: Consent) -> str:
    """A consent (the host's record, :class:`~custody_lab.live.presentation.Consent`) as
    ``custody-lab audit --allow-calls`` writes it: the tool's name, and its arguments as JSON.

    Example:
        >>> from custody_lab.live.presentation import Consent
        >>> allow_call(Consent("word_count", {"id": "7"}, "learner")), allow_call(Consent("export", {}, "learner"))
        ('word_count={"id":"7"}', 'export')
    """
    arguments = dict(consent.arguments)
    return f"{consent.tool}={canonical_json(arguments)}" if arguments else consent.tool


def consent_line(consent: Consent) -> dict[str, Any]:
    """A consent as its archive line."""
    return {
        "kind": "consent",
        "tool": consent.tool,
        "approvedBy": consent.approved_by,
        "arguments": dict(consent.arguments),
    }


def python_server(path: str | Path) -> list[str]:
    """The command that starts a server file with this Python (its ``mcp`` SDK included)."""
    return [sys.executable, str(Path(path).resolve())]


def everything_server(root: str | Path | None = None) -> tuple[list[str] | None, str]:
    """The MCP project's reference "everything" server over stdio, if ``node`` and the pinned
    package (``npm ci --prefix tests/interop``) are here: ``(command, "")``, else ``(None, why)``."""
    import shutil

    base = Path(root) if root is not None else data_path().parent
    script = base / "tests" / "interop" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"
    node = shutil.which("node")
    if node is None:
        return None, "node is not installed here, so the reference server cannot start (skipped)"
    if not (script / "index.js").is_file():
        return None, f"the pinned reference server is not installed ({script}); run npm ci --prefix tests/interop"
    return [node, str(script / "index.js"), "stdio"], ""


def audit_server(
    command: Sequence[str],
    *,
    consents: Sequence[Consent] = (),
    template_values: Sequence[str] = (),
    timeout: float = 10.0,
) -> AuditReport:
    """Audit a stdio server as ``custody-lab audit`` does, calling only the tools consented to.

    It runs :func:`~custody_lab.live.audit.audit_command` in a worker thread, so it also works in a
    notebook cell (whose kernel already runs an event loop).

    Raises:
        AuditError: the server did not start or misbehaved (the message says how).
        CapstoneError: two consents name the same tool.
    """
    from ..live.audit import audit_command

    tools = [c.tool for c in consents]
    twice = sorted({t for t in tools if tools.count(t) > 1})
    if twice:
        raise CapstoneError(f"consent given twice for {', '.join(map(repr, twice))}: give one each", where=twice[0])
    allow = [allow_call(c) for c in consents]
    run = partial(
        audit_command, list(command), allow_calls=allow, template_values=list(template_values), timeout=timeout
    )
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def edit_once(path: str | Path, old: str, new: str) -> str:
    """Replace the one occurrence of ``old`` in a file by ``new``; return the change as a diff.

    Raises:
        CapstoneError: ``old`` occurs zero or several times (the message says how often).
    """
    target = Path(path)
    text = target.read_text(encoding="utf-8")
    count = text.count(old)
    if count != 1:
        raise CapstoneError(
            f"{target.name}: the text to replace occurs {count} times; it must occur once", where=str(target)
        )
    changed = text.replace(old, new)
    target.write_text(changed, encoding="utf-8")
    diff = difflib.unified_diff(text.splitlines(), changed.splitlines(), target.name, target.name, lineterm="", n=1)
    return "\n".join(diff)


# -- 3. the archive ---------------------------------------------------------------------------------


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


def archive_lines(
    rows: Sequence[DesignRow],
    report: AuditReport,
    consents: Sequence[Consent] = (),
    *,
    reasons: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    inventory: str | Path | None = None,
) -> list[dict[str, Any]]:
    """The archive as a list of JSON-ready lines (see the module docstring for their shape).

    ``reasons`` gives the written reason for a live capability that stays refused or unread
    (keyed by its name as the audit lists it); design reasons come with ``rows``.
    """
    reasons = dict(reasons or {})
    known = {c.name for c in report.capabilities}
    _unknown("reasons", reasons, sorted(known))
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
    for cap in report.capabilities:
        lines.append(
            {
                "kind": "live",
                "capability": cap.kind,
                "name": cap.name,
                "exercised": cap.exercised,
                "why": cap.why,
                "receipt": live_receipt(cap),
                "gaps": [g.field for g in cap.gaps],
                "reason": reasons.get(cap.name),
            }
        )
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
