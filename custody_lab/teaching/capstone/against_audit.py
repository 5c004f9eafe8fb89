"""The rubric's ``matches-the-audit`` step: the design against what the live audit saw.

The archive's live lines are the audit's words copied into a file; the rubric does not take them on
trust. :func:`rederive_live` rebuilds every live line from the audit report
(:class:`~custody_lab.live.audit_report.AuditReport`) and names each line a hand or a script
changed after the audit. :func:`audit_findings` then holds each design row against its
*counterpart* on the server (:func:`counterpart`): the tool whose name is the row's id (``-`` read
as ``_``, case ignored), else the listed resource whose URI is the row's URI, else the template the
row's URI matches (RFC 6570, with the lab's matcher). A row the design accepts must be offered by
the server and, once exercised, behave as designed: the same outcome, the same URI, the same side
effects, and no more bytes inline than the design says. A tool that declares side effects is not
called by the audit (the lab's host policy: nothing runs without consent); its listing must then
declare them (``_meta`` ``org.custody-lab/sideEffects``: MCP 2026-07-28 has no such field).
"""

from __future__ import annotations

__all__ = ["audit_findings", "counterpart", "rederive_live"]

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.model import APPLICATION_SHAPES, Case, Decision, Policy
from ...core.text import visible
from ...protocol.uri_templates import UriTemplateError, match
from .archive import live_line

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


def rederive_live(lines: Sequence[tuple[int, Mapping[str, Any]]], report: AuditReport) -> list[str]:
    """Every live line that is not what the audit recorded (``lines``: (line number, live line))."""
    problems = []
    expected = [live_line(cap) for cap in report.capabilities]
    for (n, line), want in zip(lines, expected, strict=False):
        who = f"line {n} (live {visible(repr(line.get('name')))})"
        differ = [k for k in want if k != "reason" and _plain(line.get(k)) != _plain(want[k])]
        if differ:
            problems.append(f"{who}: field {differ[0]!r} is not what the live audit recorded (edited after the audit?)")
    for want in expected[len(lines) :]:
        problems.append(
            f"the live audit recorded {visible(want['capability'])} {visible(repr(want['name']))}; "
            "the archive has no line for it"
        )
    for n, line in lines[len(expected) :]:
        problems.append(
            f"line {n} (live {visible(repr(line.get('name')))}): the live audit recorded no such capability"
        )
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
    for cap in report.capabilities:
        if cap.kind in ("resource", "template", "tool") and cap.name not in matched:
            problems.append(
                f"the server offers {cap.kind} {visible(repr(cap.name))}, which no inventory row stands for: "
                "the design review must cover everything the server offers"
            )
    return problems, matched


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
