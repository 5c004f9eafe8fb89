"""The rubric's ``matches-the-audit`` step: the design against what the live audit saw.

The archive's live lines are the audit's words copied into a file; the rubric does not take them on
trust. :func:`rederive_live` rebuilds every live line from the audit report
(:class:`~custody_lab.live.audit_report.AuditReport`) and names each line a hand or a script
changed after the audit. :func:`audit_findings` then holds each design row against its
*counterpart* on the server (:func:`counterpart`): the tool whose name is the row's id (``-`` read
as ``_``, case ignored), else the listed resource whose URI is the row's URI, else the template the
row's URI matches (RFC 6570, with the lab's matcher). A row the design accepts must be offered by
the server and, once exercised, behave as designed: the same outcome, the same URI, the same side
effects, and no more bytes inline than the design says; every resource link it returns must be one
the server resolves when the audit reads it (MCP 2026-07-28, server/tools §Resource Links: "a URI
that can be subscribed to or fetched by the client"). A tool that declares side effects is not
called by the audit (the lab's host policy: nothing runs without consent); its listing must then
declare them (``_meta`` ``org.custody-lab/sideEffects``: MCP 2026-07-28 has no such field).
"""

from __future__ import annotations

__all__ = [
    "audit_findings",
    "audit_problems",
    "counterpart",
    "performed",
    "performed_calls",
    "read_changes",
    "rederive_live",
]

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.model import APPLICATION_SHAPES, Case, Decision, Policy
from ...core.receipts import canonical_json
from ...core.text import visible
from ...protocol.uri_templates import UriTemplateError, match
from .archive import live_line
from .archive_shape import json_problem

if TYPE_CHECKING:
    from ...live.audit_report import AuditReport, CapabilityAudit

_INLINE = ("embedded-resource", "structured-tool-result")


def _tool_name(name: str) -> str:
    return name.replace("_", "-").casefold()


def counterpart(case: Case, report: AuditReport) -> CapabilityAudit | None:
    """The capability of the audited server that implements the inventory row ``case``, or ``None``."""
    caps = report.capabilities
    if case.initiator == "model" or case.shape not in APPLICATION_SHAPES:
        return next((c for c in caps if c.kind == "tool" and _tool_name(c.name) == _tool_name(case.id)), None)
    if case.uri is None:
        return None
    listed = next((c for c in caps if c.kind == "resource" and c.name == case.uri), None)
    if listed is not None:
        return listed
    for cap in caps:
        if cap.kind != "template":
            continue
        try:
            if match(cap.name, case.uri) is not None:
                return cap
        except UriTemplateError:
            continue
    return None


def performed(cap: CapabilityAudit) -> bool:
    """Whether the audit's record shows ``cap`` was exercised, whatever its ``exercised`` flag says:
    content arrived (a content digest, content blocks, a structured check, a tool error), or the
    exchange has an outcome and was not skipped (the audit gives a skipped one its gate's outcome).

    Example:
        >>> from custody_lab.live.audit_report import CapabilityAudit
        >>> performed(CapabilityAudit("tool", "rm", False, "not called", "structured-tool-result", ()))
        True
    """
    if cap.exercised:
        return True
    details = cap.details if isinstance(cap.details, Mapping) else {}
    if any(details.get(k) for k in ("contentDigest", "blocks", "structured")) or details.get("toolError") is not None:
        return True
    return cap.outcome is not None and not cap.skipped


def performed_calls(lines: Sequence[Mapping[str, Any]], report: AuditReport | None) -> tuple[dict[str, str], list[str]]:
    """Every tool call that was made, re-derived from the receipts and not from a flag: a live tool
    line that holds a receipt (or says it was exercised), and, when the audit report is given,
    every tool the report shows was called (:func:`performed`), with or without a line for it.

    Returns the called tools (name -> where the call shows) and each contradiction between a
    flag and the record (a line or a report row marked not exercised that holds a call's result).
    """
    calls: dict[str, str] = {}
    problems: list[str] = []
    for n, line in enumerate(lines, start=1):
        if line.get("kind") != "live" or line.get("capability") != "tool":
            continue
        who = f"line {n} (live {visible(repr(line['name']))})"
        if line["receipt"] is not None and not line["exercised"]:
            problems.append(
                f"{who}: marked exercised false, but it holds the call's receipt: the call was made, and the "
                "flag does not decide it (field 'exercised')"
            )
        if line["receipt"] is not None or line["exercised"]:
            calls.setdefault(line["name"], who)
    for cap in report.capabilities if report is not None else ():
        if cap.kind != "tool" or not performed(cap):
            continue
        name = visible(repr(cap.name))
        if not cap.exercised:
            problems.append(
                f"the audit report marks tool {name} not exercised, but its record holds what the call "
                f"returned (outcome {visible(cap.outcome)}): the call was made"
            )
        calls.setdefault(cap.name, f"the audit report's tool {name} (called, outcome {visible(cap.outcome)})")
    return calls, problems


_KINDS = ("resource", "template", "tool", "link", "prompt")


def audit_problems(report: object) -> list[str]:
    """Each part of ``report`` that is not what the audit writes (empty: the rubric can use it).

    The rubric re-derives the live lines from the report, so a report built or edited by hand is
    checked first: every value must be of the written type and plain JSON (no NaN, no nesting
    deeper than :data:`~.archive_shape.MAX_DEPTH`), and a problem names where.
    """
    from ...live.audit_report import AuditReport, CapabilityAudit, FieldSupport

    if not isinstance(report, AuditReport):
        return [
            f"the audit report is {visible(type(report).__name__)}, neither the AuditReport audit_server returns "
            "nor the JSON custody-lab audit --json writes"
        ]
    problems = []
    if not isinstance(report.server, Mapping) or json_problem(report.server) is not None:
        problems.append("the audit report's server is not an object of plain JSON values")
    if not (report.protocol_version is None or isinstance(report.protocol_version, str)):
        problems.append("the audit report's protocol version is not text")
    if not isinstance(report.incomplete, tuple | list) or not all(isinstance(x, str) for x in report.incomplete):
        problems.append("the audit report's incomplete is not a list of text")
    if not isinstance(report.reread, Mapping) or json_problem(dict(report.reread)) is not None:
        problems.append("the audit report's reread is not an object of plain JSON values")
    if not isinstance(report.capabilities, tuple | list):
        return [*problems, "the audit report's capabilities are not a list"]
    for i, cap in enumerate(report.capabilities):
        where = f"the audit report's capabilities[{i}]"
        if not isinstance(cap, CapabilityAudit):
            problems.append(f"{where} is not a CapabilityAudit")
            continue
        wrong = [
            name
            for name, ok in (
                ("kind", cap.kind in _KINDS),
                ("name", isinstance(cap.name, str)),
                ("exercised", isinstance(cap.exercised, bool)),
                ("skipped", isinstance(cap.skipped, bool)),
                ("why", isinstance(cap.why, str)),
                ("outcome", cap.outcome is None or isinstance(cap.outcome, str)),
                ("details", isinstance(cap.details, Mapping)),
                (
                    "fields",
                    isinstance(cap.fields, tuple | list)
                    and all(isinstance(f, FieldSupport) and isinstance(f.field, str) for f in cap.fields),
                ),
            )
            if not ok
        ]
        if wrong:
            problems.append(f"{where}: field {wrong[0]!r} is not of the type the audit writes")
            continue
        unsafe = json_problem(dict(cap.details))
        if unsafe is not None:
            problems.append(f"{where} ({cap.kind} {visible(repr(cap.name))}): details: {unsafe}")
    return problems


def rederive_live(lines: Sequence[tuple[int, Mapping[str, Any]]], report: AuditReport) -> list[str]:
    """Every live line that is not what the audit recorded (``lines``: (line number, live line)).

    Lines are paired with the report's capabilities by kind and name (in order, for a name the
    report lists more than once), so a line deleted, added or moved is named as such; a paired
    line must be the audit's byte for byte (its canonical JSON: ``true`` is not ``1``).
    """
    problems = []
    pending: dict[tuple[object, object], list[tuple[int, Mapping[str, Any]]]] = {}
    for n, line in lines:
        pending.setdefault((line.get("capability"), line.get("name")), []).append((n, line))
    for cap in report.capabilities:
        want = live_line(cap)
        waiting = pending.get((cap.kind, cap.name))
        if not waiting:
            called = ", which it called" if cap.kind == "tool" and performed(cap) else ""
            problems.append(
                f"the live audit recorded {visible(cap.kind)} {visible(repr(cap.name))}{called}; "
                "the archive has no line for it"
            )
            continue
        n, line = waiting.pop(0)
        who = f"line {n} (live {visible(repr(line.get('name')))})"
        differ = [k for k in want if k != "reason" and canonical_json(line.get(k)) != canonical_json(want[k])]
        if differ:
            problems.append(f"{who}: field {differ[0]!r} is not what the live audit recorded (edited after the audit?)")
    recorded = {(c.kind, c.name) for c in report.capabilities}
    for key, rest in pending.items():
        for n, line in rest:
            who = f"line {n} (live {visible(repr(line.get('name')))})"
            if key in recorded:
                problems.append(
                    f"{who}: one line more for {visible(key[0])} {visible(repr(key[1]))} than the live audit "
                    "recorded; a copy cannot stand in for another capability"
                )
            else:
                problems.append(f"{who}: the live audit recorded no such capability")
    return problems


def _plain(value: object) -> object:
    """A value as JSON reads it back (tuples are lists), so a written archive compares equal."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def audit_findings(
    rows: Sequence[tuple[Case, Decision]], report: AuditReport, policy: Policy
) -> tuple[list[str], set[str]]:
    """Each contradiction between the reviewed design and the live audit; and the names of the
    server's capabilities some row stands for."""
    problems: list[str] = []
    matched: set[str] = set()
    for case, decision in rows:
        cap = counterpart(case, report)
        who = f"capability {visible(repr(case.id))}"
        if cap is None:
            if decision.accepted:
                offered = ", ".join(visible(c.name) for c in report.capabilities if c.kind != "link") or "nothing"
                problems.append(
                    f"{who}: the design accepts it, but the audited server offers nothing that matches it "
                    f"(tools by name, resources by URI or template; it offers {offered})"
                )
            continue
        matched.add(cap.name)
        if decision.accepted:
            problems += _compare(who, case, decision, cap, policy)
            problems += _links(who, cap)
    # a followed link speaks through the design row of the tool that returned it
    matched |= {c.name for c in report.capabilities if c.kind == "link" and _link_source(c) in matched}
    for cap in report.capabilities:
        if cap.kind in ("resource", "template", "tool") and cap.name not in matched:
            problems.append(
                f"the server offers {cap.kind} {visible(repr(cap.name))}, which no inventory row stands for: "
                "the design review must cover everything the server offers"
            )
    return problems, matched


def _link_source(cap: CapabilityAudit) -> object:
    return cap.details.get("from") if isinstance(cap.details, Mapping) else None


def _links(who: str, cap: CapabilityAudit) -> list[str]:
    """Each resource link an exercised tool returned that the server could not resolve (a finding),
    or that the audit did not follow (still to do). MCP 2026-07-28, server/tools §Resource Links:
    the tool returns "a URI that can be subscribed to or fetched by the client"."""
    if cap.kind != "tool" or not cap.exercised or not isinstance(cap.details, Mapping):
        return []
    name = visible(repr(cap.name))
    out = []
    for block in cap.details.get("blocks") or ():
        if not isinstance(block, Mapping) or block.get("type") != "resource_link":
            continue
        uri = visible(repr(block.get("uri")))
        followed = block.get("followed")
        if not isinstance(followed, Mapping) or followed.get("resolved") is None:
            why = (
                followed.get("notFollowed")
                if isinstance(followed, Mapping)
                else "it was not followed: custody-lab audit reads links with --follow-links"
            )
            out.append(
                f"still to do: {who}: the result of {name} links {uri}, but the audit did not read it "
                f"({visible(why)}), so nothing shows the server serves it"
            )
        elif followed.get("resolved") is not True:
            said = followed.get("error") or "it returned no contents"
            out.append(
                f"{who}: the result of {name} links {uri}, which the server does not serve (the audit's read "
                f"of it: {visible(said)}): a resource link is a URI the client can fetch or subscribe to "
                "(MCP 2026-07-28, server/tools, Resource Links)"
            )
    return out


def _compare(who: str, case: Case, decision: Decision, cap: CapabilityAudit, policy: Policy) -> list[str]:
    name = visible(repr(cap.name))
    if not cap.exercised:
        if cap.kind != "tool":
            return [f"still to do: {who}: the audit did not read {name} ({visible(cap.why)}), so nothing checks it"]
        value = (cap.details.get("declared") or {}).get("sideEffects") if isinstance(cap.details, dict) else None
        if case.side_effects is False and value is True:
            return [
                f"{who}: the design declares no side effects, but the server's listing of {name} declares "
                "them (_meta org.custody-lab/sideEffects: true): the declaration contradicts the server"
            ]
        if case.side_effects is not True:
            return [
                f"still to do: {who}: the audit did not call {name} ({visible(cap.why)}), so nothing checks "
                "its result against the design"
            ]
        declared = next((f for f in cap.fields if f.field == "sideEffects"), None)
        if value is False or declared is None or declared.supplied is not True:
            return [
                f"{who}: the design declares side effects, but the server's listing of {name} does not "
                f"({visible(declared.how if declared else 'no declaration')}"
                f"{': it declares none' if value is False else ''})"
            ]
        return []
    out = []
    if cap.outcome != decision.outcome:
        out.append(
            f"{who}: the design is accepted as {decision.outcome}, but the live audit of {name} saw "
            f"{visible(cap.outcome)}: the server does not do what the design says"
        )
    custody = cap.details.get("custody") if isinstance(cap.details, dict) else None
    if not isinstance(custody, Mapping):
        return out
    live_uri = custody.get("uri")
    if isinstance(live_uri, str) and case.uri is not None and live_uri != case.uri:
        out.append(
            f"{who}: the design names URI {visible(repr(case.uri))}, the server's result {visible(repr(live_uri))}"
        )
    live_effects = custody.get("sideEffects")
    if isinstance(live_effects, bool) and case.side_effects is not None and live_effects != case.side_effects:
        out.append(
            f"{who}: the design declares sideEffects {case.side_effects}, the live audit of {name} recorded "
            f"{live_effects}: the declaration contradicts the server"
        )
    weighed = custody.get("bytes")
    limit = policy.embed_limit_bytes
    if case.shape in _INLINE and isinstance(weighed, int) and case.bytes <= limit < weighed:
        out.append(
            f"{who}: the design says {case.bytes} bytes, under the embed limit of {limit} B, but the live "
            f"audit counted {weighed} bytes inline: the number was changed, not the payload"
        )
    return out


def _with_side_effects(report: AuditReport) -> list[str]:
    """The tools the audit called whose record shows side effects (a change they explain)."""
    out = []
    for cap in report.capabilities:
        if cap.kind != "tool" or not performed(cap):
            continue
        custody = cap.details.get("custody") if isinstance(cap.details, Mapping) else None
        if not isinstance(custody, Mapping) or custody.get("sideEffects") is not False:
            out.append(cap.name)
    return out


def read_changes(rows: Sequence[tuple[Case, Decision]], report: AuditReport) -> list[str]:
    """Each read the audit saw change between its two looks (a listed resource read twice, the
    resource index listed twice: :mod:`custody_lab.live.audit_reread`), as a finding against the
    design, which reads it free of side effects (seed 004: reads are side-effect free and
    deterministic). A change is explained, and no finding, when a tool the audit called between the
    two looks has side effects on record (recorded, or not known to be free of them); an audit
    that did not get to its second look is still to do for each read the design accepts."""
    reread = report.reread if isinstance(report.reread, Mapping) else {}
    explained = _with_side_effects(report)
    if explained:
        return []
    reads = [(c, d) for c, d in rows if d.accepted and c.operation in ("read", "read-template")]
    if not reread or reread.get("stopped"):
        if not reads:
            return []
        return [
            "still to do: the audit did not read the listed resources a second time (it did not get that far), "
            "so nothing shows its reads left the server as they found it"
        ]
    said = "only reads and calls free of side effects ran between the audit's two looks"
    out = []
    by_uri = {cap.name: cap for cap in report.capabilities if cap.kind == "resource"}
    for case, _decision in reads:
        cap = by_uri.get(case.uri) if case.uri is not None else None
        again = cap.details.get("reread") if cap is not None and isinstance(cap.details, Mapping) else None
        if isinstance(again, Mapping) and again.get("changed") is True:
            out.append(
                f"capability {visible(repr(case.id))}: the design reads it free of side effects, but the audit's "
                f"two reads of {visible(repr(cap.name if cap else case.uri))} differ, and {said}: a read "
                "changed state, or is not deterministic (seed 004)"
            )
    gone, added = reread.get("indexGone") or [], reread.get("indexAdded") or []
    if gone or added:
        what = ", ".join(visible(repr(u)) for u in [*gone, *added])
        out.append(
            f"the server's resource index changed during the audit ({what} {'gone' if gone else 'new'}"
            f"{' and more' if gone and added else ''}), and {said}: a read changed state (seed 004: reads are "
            "side-effect free)"
        )
    return out
