"""The router: walk the rule table in order; the first rule that fires decides.

Inside the seed's input domain and under the default policy this decides exactly as the seed's
Node ``route`` (seed 000, "Runnable artifact"); the differential test in ``tests/`` checks that on
thousands of random cases.
"""

from __future__ import annotations

__all__ = ["custody_of", "route", "route_all"]

from collections.abc import Iterable, Mapping

from .model import Case, Custody, Decision, Policy, TraceStep
from .rules import RULES, ScalarOps

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


def route(case: Case | Mapping[str, object], policy: Policy | None = None) -> Decision:
    """Decide one case: the selected shape, or the first rule that rejects it.

    Args:
        case: a :class:`Case`, or a mapping in the seed's camelCase keys (validated first).
        policy: the host policy; the seed's (4096-byte embed limit) when omitted.

    Returns:
        A :class:`Decision` whose ``trace`` lists every rule as passed, failed or not-reached.

    Raises:
        CaseError: when a mapping is not a valid case.

    Example:
        >>> d = route({"id": "big", "initiator": "model", "operation": "mutate",
        ...     "shape": "embedded-resource", "uri": "draft://9", "mime": "application/json",
        ...     "bytes": 9000, "current": True, "allowed": True, "sideEffects": True,
        ...     "provenance": "draft-tool@3"})
        >>> d.accepted, d.rejection
        (False, 'embed-over-budget')
    """
    if not isinstance(case, Case):
        case = Case.from_dict(case)
    policy = policy or _DEFAULT_POLICY
    steps: list[TraceStep] = []
    rejection: str | None = None
    for r in RULES:
        if rejection is not None:
            steps.append(TraceStep(r.code, "not-reached", r.test))
        elif r.fires(case, policy, _OPS):
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


def route_all(cases: Iterable[Case | Mapping[str, object]], policy: Policy | None = None) -> list[Decision]:
    """Route many cases one by one (see :func:`custody_lab.sweep.sweep` for whole grids)."""
    return [route(c, policy) for c in cases]
