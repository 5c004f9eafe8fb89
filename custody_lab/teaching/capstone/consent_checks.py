"""The rubric's ``calls-consented`` step: every call that was made has a person's or the host's consent.

"Made" is re-derived from the receipts (:func:`~.against_audit.performed_calls`), never taken from
a flag. An approver is a person or the host in the host's consent log
(:class:`~custody_lab.live.presentation.ConsentLog`; the lab's host policy): blank, invisible or
placeholder text is no approver, and neither is the server, one of its hints or the model that asks
(MCP 2025-06-18 onwards: clients MUST treat tool annotations as untrusted unless the server is trusted).
"""

from __future__ import annotations

__all__ = ["NOT_AN_APPROVER", "consent_problems"]

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.text import visible
from .against_audit import performed_calls
from .archive_shape import normal_id
from .judgement import says_nothing

if TYPE_CHECKING:
    from ...live.audit_report import AuditReport

#: Words that name no person or host in an approval: the server, its hints and annotations, or
#: the model that asked for the call (compared case-folded, word by word).
NOT_AN_APPROVER: frozenset[str] = frozenset(
    "server servers hint hints readonlyhint destructivehint idempotenthint openworldhint annotation "
    "annotations model llm assistant".split()
)


def _not_an_approver(approver: str, servers: Sequence[str]) -> str | None:
    """Why ``approver`` is the server, a hint or the model instead of a person or the host."""
    folded = normal_id(approver).casefold()
    named = [
        s for s in servers if s.strip() and re.search(rf"(?<!\w){re.escape(normal_id(s).casefold())}(?!\w)", folded)
    ]
    if named:
        return f"names the audited server ({visible(repr(named[0]))}), not a person or the host"
    said = sorted(set(re.findall(r"[a-z]+", folded)) & NOT_AN_APPROVER)
    if said:
        return f"names {', '.join(map(repr, said))}, not a person or the host"
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
        why = says_nothing(approver, words=1)
        if why is None and isinstance(approver, str):
            why = _not_an_approver(approver, servers)
            if why is not None:
                why += (
                    ": consent is given by a person or the host, never by the server, its hints (MCP 2025-06-18 "
                    "onwards: clients MUST treat tool annotations as untrusted) or the model that asks"
                )
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
