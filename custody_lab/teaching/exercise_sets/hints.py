"""Hint exercises (notebook 07): annotations and tool hints are a server's claims, not consent.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
hint-01   2      which of eight host actions may a host take without asking anyone
hint-02   1      how many of the hostile server's tools the audit calls when none is named
========  =====  ===================================================================

hint-01's reference is :func:`~custody_lab.live.hint_policy.unasked` over
:data:`~custody_lab.live.hint_policy.HOST_ACTIONS` (the lab's host policy: a hint may order and
label what the host shows, never replace consent, the gate or a freshness check). hint-02's is
counted from a real audit (:func:`~custody_lab.live.audit.audit_client`) of the in-process hostile
server, run once per kernel. MCP facts name their revision: tool annotations exist since
2025-03-26, and from that revision on (the current 2026-07-28 too) clients MUST consider them untrusted
unless they come from a trusted server.
"""

from __future__ import annotations

__all__: list[str] = ["AUDIT_OPTIONS", "EXERCISES", "HostileAudit", "hostile_audit"]

import functools
from collections.abc import Callable
from dataclasses import dataclass

from ...live.hint_policy import HOST_ACTIONS, unasked
from ..exercises import Exercise, Mistake
from . import _answers as ans
from .live import run_exchange


def _same_codes(answer: object, expected: object) -> bool:
    names = ans.names(answer)
    return names is not None and isinstance(expected, list) and names == frozenset(expected)


def _includes(code: str) -> Callable[[object], bool]:
    def detect(answer: object) -> bool:
        names = ans.names(answer)
        return names is not None and code in names

    return detect


def _unknown_code(answer: object) -> bool:
    names = ans.names(answer)
    return names is not None and not names <= {a.code for a in HOST_ACTIONS}


def _too_cautious(answer: object) -> bool:
    names = ans.names(answer)
    return names is not None and names < frozenset(unasked())


_HINT_01 = Exercise(
    id="hint-01",
    title="Which of these may a host do without asking?",
    why=(
        "annotations are untrusted hints (MCP 2025-03-26 and later): under the lab's host policy they may "
        "shape only how the host shows what it holds, and a gated read needs no hint; calling, repeating or "
        "skipping the gate on a hint needs a person or a check"
    ),
    level=2,
    prompt=(
        "A server's tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, "
        "`openWorldHint`; MCP 2025-03-26 and later) and its resource annotations (`audience`, "
        "`priority` since 2024-11-05, `lastModified` since 2025-06-18) are hints. Under the lab's host policy, "
        "which of these actions may a host take **without asking anyone** (no person's consent, "
        "no extra check)? Answer with the list of their codes.\n\n"
        + "\n".join(f"- `{a.code}`: {a.text}" for a in HOST_ACTIONS)
    ),
    input_label="eight host actions, each relying on a server's hint (or on none)",
    wanted="a list of action codes, as text",
    kind="list",
    reference=lambda: unasked(),
    compare=_same_codes,
    mistakes=(
        Mistake(
            "trusted-read-only-hint",
            _includes("call-read-only"),
            "`readOnlyHint` is the server's word, and nothing checks it before the call: the "
            "hostile server's `lookup_weather` claims it (and the lab's `_meta` declaration agrees) "
            "and changes state anyway (`read-only-hint-violated`). MCP 2025-03-26 and later: clients "
            "MUST consider tool annotations untrusted unless the server is trusted. A tool call waits for consent.",
            example=["call-read-only", "order-by-priority", "show-last-modified", "gated-read"],
        ),
        Mistake(
            "trusted-destructive-hint",
            _includes("call-not-destructive"),
            "`destructiveHint: false` says only that the server *thinks* the change is additive; it "
            "is still a change, the server could be wrong or lying, and a tool call waits for a "
            "person's consent under the lab's host policy.",
            example=["call-not-destructive", "gated-read"],
        ),
        Mistake(
            "trusted-idempotent-hint",
            _includes("repeat-idempotent"),
            "A consent covers the call it was given for. `idempotentHint` is a claim about repeats; "
            "the lab server's own `approve_draft` claims it and counts each approval in its ledger.",
            example=["repeat-idempotent", "order-by-priority", "show-last-modified", "gated-read"],
        ),
        Mistake(
            "trusted-the-audience",
            _includes("include-for-assistant"),
            "`audience` suggests who content is for; it grants nothing. The permission gate decides "
            "what this caller may read, at every read boundary (seed 000).",
            example=["include-for-assistant", "gated-read"],
        ),
        Mistake(
            "trusted-last-modified",
            _includes("fresh-by-last-modified"),
            "`lastModified` is the server's claim about its own content, and a cached copy cannot "
            "know about a change made after it was stored: the lab's host policy does not count a "
            "cached answer as current.",
            example=["fresh-by-last-modified", "order-by-priority", "show-last-modified", "gated-read"],
        ),
        Mistake(
            "not-an-action-code",
            _unknown_code,
            "Answer with the codes exactly as the task lists them, not with hint names or sentences.",
            example=["readOnlyHint", "gated-read"],
        ),
        Mistake(
            "too-cautious",
            _too_cautious,
            "Every action you chose is safe, but some are missing. A hint may still shape how the "
            "host shows what it already holds, as long as the display says whose claim it is.",
            example=["gated-read"],
        ),
    ),
    hints=(
        "Sort the actions by what they do: does the action run a tool, widen what the caller may "
        "read, decide freshness, or only change how the host shows something?",
        "Only actions that call no tool and rely on no hint to be safe qualify, plus those where "
        "the hint only orders or labels what is shown.",
    ),
)


# --------------------------------------------------------------------------------------------
# hint-02: what the audit calls
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HostileAudit:
    """What ``custody-lab audit`` did with the hostile server's tools when none was named.

    Attributes:
        tools: the tools the server lists.
        claims_read_only: those annotated ``readOnlyHint: true``.
        called: the tools the audit exercised.
        server_calls: the calls the hostile server itself counted (its own bookkeeping).
    """

    tools: tuple[str, ...]
    claims_read_only: tuple[str, ...]
    called: tuple[str, ...]
    server_calls: int


@functools.cache
def hostile_audit() -> HostileAudit:
    """Audit the in-process hostile server with no ``--allow-calls``.

    Example:
        >>> seen = hostile_audit()
        >>> len(seen.tools), len(seen.claims_read_only), seen.called, seen.server_calls
        (5, 4, (), 0)
    """
    from ...live.audit import audit_client
    from ...live.hostile_server import HostileServer
    from ...live.session import LabSession

    async def exchange() -> HostileAudit:
        hostile = HostileServer()
        async with LabSession(hostile, timeout=2.0) as s:
            report = await audit_client(s.client, timeout=2.0)
            listed = s.recorder.tools
        tools = [c for c in report.capabilities if c.kind == "tool"]
        return HostileAudit(
            tools=tuple(c.name for c in tools),
            claims_read_only=tuple(n for n, t in listed.items() if t.annotations and t.annotations.read_only_hint),
            called=tuple(c.name for c in tools if c.exercised),
            server_calls=sum(hostile.state.calls.values()),
        )

    return run_exchange(exchange)


_AuditOption = ans.Option[HostileAudit]  # one choice and the observation that makes it true


AUDIT_OPTIONS = (
    _AuditOption(
        "calls-read-only",
        "it calls the four tools that claim `readOnlyHint: true` and skips `run_anything`",
        lambda seen: bool(seen.called) and seen.called == seen.claims_read_only,
    ),
    _AuditOption(
        "calls-all",
        "it calls all five tools once, to see what each really does",
        lambda seen: bool(seen.called) and seen.called == seen.tools,
    ),
    _AuditOption(
        "calls-named-only",
        "it calls only the tools named with `--allow-calls`: here none, and the server counts no call",
        lambda seen: seen.called == () and seen.server_calls == 0,
    ),
)


def _what_the_audit_calls() -> str:
    return ans.the_one("hint-02", AUDIT_OPTIONS, hostile_audit(), "describe the audit")


def _code(answer: object) -> str | None:
    text = ans.text(answer)
    return None if text is None else text.lower()


_HINT_02 = Exercise(
    id="hint-02",
    title="The audit and the tools that claim to be read-only",
    why=(
        "the audit calls only the tools a person named with --allow-calls; a readOnlyHint is the server's "
        "claim, never permission to call"
    ),
    level=1,
    prompt=(
        "`custody-lab audit` runs against the hostile server with no `--allow-calls`. The server "
        "lists five tools, and four of them claim `readOnlyHint: true`. What does the audit do "
        "with the tools? Answer with the code of one option, as text.\n\n"
        + "\n".join(f"- `{o.code}`: {o.text}" for o in AUDIT_OPTIONS)
    ),
    input_label="the hostile server's five tools, audited with no --allow-calls",
    wanted="the code of one option, as text",
    parse="text",
    reference=_what_the_audit_calls,
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "trusted-the-read-only-claims",
            lambda a: _code(a) == "calls-read-only",
            "Four tools *claim* to be read-only; the hostile `lookup_weather` is one of them and "
            "changes state. Does the audit let a server's claim decide what it runs? Read the "
            "`why` column of the audit's tool rows.",
            example="calls-read-only",
        ),
        Mistake(
            "calls-to-find-out",
            lambda a: _code(a) == "calls-all",
            "A call may change state, and nobody can tell in advance which ones do: that is why "
            "the audit needs the user to name the tools it may call.",
            example=" Calls-All ",
        ),
        Mistake(
            "not-an-option",
            lambda a: (code := _code(a)) is not None and code != "" and code not in {o.code for o in AUDIT_OPTIONS},
            "Answer with the code of one option exactly as listed, not with a number or a tool name.",
            example="lookup_weather",
        ),
    ),
    hints=(
        "Ask what a tool call may do that a read may not, and who can know in advance which call does it.",
        "The audit's rule is about consent: which tools did you, the person running it, name?",
    ),
)

EXERCISES = (_HINT_01, _HINT_02)
