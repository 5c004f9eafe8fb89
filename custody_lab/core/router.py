"""The router: walk the rule table in order; the first rule that fires decides.

Inside the seed's input domain and under the default policy this decides exactly as the seed's
Node ``route`` (seed 000, "Runnable artifact"); the differential test in ``tests/`` checks that on
thousands of random cases.

Live mode decides through this same loop: given the facts the recorder observed about an exchange
(``exchange=``, plain data keyed by :data:`~custody_lab.core.rules.EXCHANGE_FACTS`), the router
walks :data:`~custody_lab.core.rules.LIVE_RULES` instead of ``RULES``, with the same trace.
"""

from __future__ import annotations

__all__ = ["custody_of", "route"]

from collections.abc import Mapping
from typing import Any

from .errors import CaseError
from .model import Case, Custody, Decision, Policy, TraceStep
from .rules import EXCHANGE_FACTS, LIVE_RULES, RULES, ScalarOps

_OPS = ScalarOps()
_DEFAULT_POLICY = Policy()


def custody_of(case: Case, policy: Policy) -> Custody:
    """The custody record every decision carries, accepted or not."""
    return Custody(
        actor=case.initiator,
        permission_checked=True,
        uri=case.uri,
        mime=case.mime,
        provenance=case.provenance,
        bytes=case.bytes,
        retrieved_at=policy.now,
        side_effects=case.side_effects,
    )


class _ExchangeView:
    """A case's fields and an exchange's facts under one ``[key]`` lookup (for the rules)."""

    def __init__(self, case: Case, exchange: Mapping[str, object]) -> None:
        unknown = [k for k in exchange if k not in EXCHANGE_FACTS]
        if unknown:
            raise CaseError(
                f"unknown exchange fact {unknown[0]!r} (the facts are: {', '.join(EXCHANGE_FACTS)})", str(unknown[0])
            )
        self._case, self._exchange = case, exchange

    def __getitem__(self, key: str) -> Any:
        if key in EXCHANGE_FACTS:
            return self._exchange.get(key)
        return self._case[key]


def route(
    case: Case | Mapping[str, object],
    policy: Policy | None = None,
    *,
    exchange: Mapping[str, object] | None = None,
) -> Decision:
    """Decide one case: the selected shape, or the first rule that rejects it.

    Args:
        case: a :class:`Case`, or a mapping in the seed's camelCase keys (validated first).
        policy: the host policy; the seed's (4096-byte embed limit) when omitted.
        exchange: live mode only: what the recorder observed about the exchange (keys from
            ``EXCHANGE_FACTS``; an absent key was not observed). The router then walks
            ``LIVE_RULES``, which adds the exchange checks around the case rules.

    Returns:
        A :class:`Decision` whose ``trace`` lists every rule as passed, failed or not-reached.

    Raises:
        CaseError: when a mapping is not a valid case, or ``exchange`` names an unknown fact.

    Example:
        >>> d = route({"id": "big", "initiator": "model", "operation": "mutate",
        ...     "shape": "embedded-resource", "uri": "draft://9", "mime": "application/json",
        ...     "bytes": 9000, "current": True, "allowed": True, "sideEffects": True,
        ...     "provenance": "draft-tool@3"})
        >>> d.accepted, d.rejection
        (False, 'embed-over-budget')
        >>> hung = {"id": "t", "initiator": "model", "operation": "calculate",
        ...     "shape": "structured-tool-result", "bytes": 0, "current": True, "allowed": True,
        ...     "sideEffects": False}
        >>> route(hung, exchange={"timedOut": True}).rejection
        'server-timeout'
    """
    if not isinstance(case, Case):
        case = Case.from_dict(case)
    policy = policy or _DEFAULT_POLICY
    facts: Any = case if exchange is None else _ExchangeView(case, exchange)
    steps: list[TraceStep] = []
    rejection: str | None = None
    for r in RULES if exchange is None else LIVE_RULES:
        if rejection is not None:
            steps.append(TraceStep(r.code, "not-reached", r.test))
        elif r.fires(facts, policy, _OPS):
            rejection = r.code
            steps.append(TraceStep(r.code, "failed", r.test))
        else:
            steps.append(TraceStep(r.code, "passed", r.test))
    return Decision(
        id=case.id,
        accepted=rejection is None,
        selected=case.shape if rejection is None else None,
        rejection=rejection,
        custody=custody_of(case, policy),
        trace=tuple(steps),
    )
