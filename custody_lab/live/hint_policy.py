"""What a host may do on a server's hint without asking anyone: the lab's host policy.

A server describes its capabilities with hints. MCP defines two kinds:

- **tool annotations** (``Tool.annotations``, since MCP 2025-03-26): ``readOnlyHint`` (default
  ``false``), ``destructiveHint`` (default ``true``), ``idempotentHint`` (default ``false``) and
  ``openWorldHint`` (default ``true``). Their schema says clients should never make tool use
  decisions on annotations from untrusted servers, and since MCP 2025-03-26 (so in the current
  2026-07-28 too) the Tools page says clients MUST consider them untrusted unless they come from a
  trusted server;
- **annotations** on resources, templates and content blocks (``audience``, ``priority`` from 0
  to 1, since MCP 2024-11-05; ``lastModified``, since 2025-06-18; all in 2026-07-28): what the server
  suggests about who the content is for, how much it matters and when it changed. The
  specification lets clients use them to filter, prioritise and display; none of them is checked.

Nothing checks a hint before the exchange (the hostile server's ``lookup_weather`` claims
``readOnlyHint: true``, declares itself free of side effects in the lab's ``_meta`` key, and
changes state anyway: ``read-only-hint-violated``, a rule on that declaration; the hint decided
nothing). So the lab's host
policy lets a hint shape only how the host *shows* what it already holds (the order, a label
that says whose claim it is), and never stand in for a person's consent to a tool call, the
permission gate, a freshness check or the decision to call again. The audit follows it: it
calls no tool the user did not name, whatever the tool claims (:mod:`custody_lab.live.audit`).

:data:`HOST_ACTIONS` lists the actions exercise ``hint-01`` asks about; :func:`may_act_alone`
decides each one from what it would do.
"""

from __future__ import annotations

__all__ = ["ALONE", "HOST_ACTIONS", "Effect", "HostAction", "may_act_alone", "unasked"]

from dataclasses import dataclass
from typing import Literal

#: What an action does with the hint it relies on (or, for ``gated-read``, without one).
Effect = Literal["order", "label", "gated-read", "call-tool", "repeat-call", "skip-gate", "count-as-current"]

#: The effects a host may carry out without asking: how it shows what it holds, and an
#: application read that passes the permission gate (the gate is the check; no hint is needed).
ALONE: frozenset[str] = frozenset({"order", "label", "gated-read"})


@dataclass(frozen=True)
class HostAction:
    """One thing a host might do, the hint it would rely on, and what doing it amounts to.

    Attributes:
        code: a short name (the exercise's answer vocabulary).
        text: the action, in the words a learner reads.
        hint: the server's hint it relies on (``None``: it relies on none).
        since: the MCP revision that defines that hint.
        effect: what the action does (:data:`Effect`).
    """

    code: str
    text: str
    hint: str | None
    since: str | None
    effect: Effect


def may_act_alone(action: HostAction) -> bool:
    """Whether the lab's host policy lets a host take ``action`` without asking anyone.

    Example:
        >>> [may_act_alone(a) for a in HOST_ACTIONS[:2]]
        [False, True]
    """
    return action.effect in ALONE


HOST_ACTIONS: tuple[HostAction, ...] = (
    HostAction(
        "call-read-only",
        "call `lookup_weather` as soon as the model proposes it, because its `readOnlyHint` is true",
        "readOnlyHint: true",
        "2025-03-26",
        "call-tool",
    ),
    HostAction(
        "order-by-priority",
        "list the resources the user attached in order of their `priority` annotation, highest first",
        "priority",
        "2024-11-05",
        "order",
    ),
    HostAction(
        "call-not-destructive",
        "call `approve_draft` without a confirmation, because its `destructiveHint` is false",
        "destructiveHint: false",
        "2025-03-26",
        "call-tool",
    ),
    HostAction(
        "repeat-idempotent",
        "call `approve_draft` a second time after a timeout without asking again, because its `idempotentHint` is true",
        "idempotentHint: true",
        "2025-03-26",
        "repeat-call",
    ),
    HostAction(
        "show-last-modified",
        "show a resource's `lastModified` beside it, labelled as the server's claim",
        "lastModified",
        "2025-06-18",
        "label",
    ),
    HostAction(
        "include-for-assistant",
        "put `secret://vault/keys` into the model's context without asking the permission gate, "
        'because its `audience` annotation includes `"assistant"`',
        "audience",
        "2024-11-05",
        "skip-gate",
    ),
    HostAction(
        "fresh-by-last-modified",
        "count a cached status as current because its `lastModified` is only a minute old",
        "lastModified",
        "2025-06-18",
        "count-as-current",
    ),
    HostAction(
        "gated-read",
        "read `kb://handbook/v4`, a resource the user attached, through the permission gate",
        None,
        None,
        "gated-read",
    ),
)


def unasked(actions: tuple[HostAction, ...] = HOST_ACTIONS) -> list[str]:
    """The codes of the actions a host may take without asking, in the order listed.

    Example:
        >>> unasked()
        ['order-by-priority', 'show-last-modified', 'gated-read']
    """
    return [a.code for a in actions if may_act_alone(a)]
