"""The rubric's ``calls-consented`` step: every call that was made has a person's or the host's consent.

"Made" is re-derived from the receipts (:func:`~.against_audit.performed_calls`), never taken from
a flag. An approver is structured (:mod:`custody_lab.live.approvers`; the lab's host policy): a
named person, ``{"person": "Dana Ruiz"}``, or a policy the host has, ``{"hostPolicy":
"standing-approval"}``, as the host's :class:`~custody_lab.live.presentation.ConsentLog` records
it. Free text (``"Claude"``, ``"the agent"``, ``"gpt-4o"``, ``"auto-approve policy"``) is no
approver, and neither is a person's name that is blank, invisible, names a machine (the server, a
hint, the model, an agent) or names the audited server (MCP says clients MUST treat tool
annotations as untrusted unless the server is trusted, since 2025-03-26; still so in 2026-07-28).
"""

from __future__ import annotations

__all__ = ["consent_problems"]

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.text import visible
from ...live.approvers import APPROVER_RULE, approver_problem
from .against_audit import performed_calls
from .archive_shape import normal_id
from .judgement import says_nothing

if TYPE_CHECKING:
    from ...live.audit_report import AuditReport


def _not_an_approver(approver: object, servers: Sequence[str]) -> str | None:
    """Why ``approver`` is no approver: not one in form (:func:`~custody_lab.live.approvers.approver_problem`),
    a person's name a reader cannot see, or one that names the audited server."""
    why = approver_problem(approver)
    if why is not None:
        return f"{why}; {APPROVER_RULE}"
    assert isinstance(approver, Mapping)  # approver_problem found it one
    name = approver.get("person")
    if not isinstance(name, str):
        return None  # a policy the host has
    unseen = says_nothing(name, words=2)
    if unseen is not None:
        return f"is a person whose name {unseen}"
    folded = normal_id(name).casefold()
    named = [
        s for s in servers if s.strip() and re.search(rf"(?<!\w){re.escape(normal_id(s).casefold())}(?!\w)", folded)
    ]
    if named:
        return (
            f"names the audited server ({visible(repr(named[0]))}), not a person or the host: consent is given "
            "by a person or the host, never by the server, its hints or the model that asks"
        )
    return None


def consent_problems(lines: Sequence[Mapping[str, Any]], audit: AuditReport | None) -> list[str]:
    """Every tool call that was made (:func:`performed_calls`) has one consent line naming a
    person or the host (the lab's host policy)."""
    problems = []
    consents: dict[str, int] = {}  # tool -> the line of its one valid consent
    first: dict[str, int] = {}  # tool -> the line of its first consent, valid or not
    header = lines[0]
    servers = [str(header["server"].get("name") or "")]
    if audit is not None and isinstance(audit.server, Mapping):
        servers.append(str(audit.server.get("name") or ""))
    for n, line in enumerate(lines, start=1):
        if line["kind"] != "consent":
            continue
        who = f"line {n} (consent {visible(repr(line['tool']))})"
        tool = normal_id(line["tool"])
        if tool != line["tool"]:
            problems.append(
                f"{who}: the tool's name differs from {visible(repr(tool))} only by white space or invisible "
                "characters, so it names no tool the audit called (field 'tool')"
            )
            continue
        if tool in first:
            consents.pop(tool, None)  # two consents for one tool: neither is the one the audit took
            problems.append(
                f"{who}: a second consent for {visible(repr(tool))} (the first is line {first[tool]}); "
                "the audit takes one consent a tool, so neither stands (field 'tool')"
            )
            continue
        first[tool] = n
        approver = line["approvedBy"]
        why = _not_an_approver(approver, servers)
        if why is not None:
            problems.append(f"{who}: the approving actor {visible(repr(approver))} {why} (field 'approvedBy')")
            continue
        consents[tool] = n
    calls, contradictions = performed_calls(lines, audit)
    problems += contradictions
    for name, where in calls.items():
        if name not in consents:
            problems.append(f"{where}: the tool was called without a consent line (field 'consent')")
    return problems
