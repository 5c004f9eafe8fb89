"""The advisor: recommend a custody shape from what a capability needs, with the reasons.

It follows seed 000 ("Choose a link when the payload is large, independently permissioned,
reusable, or likely to change. Choose an embed when the returned bytes are the bounded evidence
needed to interpret this specific execution. Choose structured content when downstream code needs
a declared result shape") and seed 001's size × reuse table:

========  =====  ==============================================
size      reuse  recommended shape
========  =====  ==============================================
small     low    either — embedded is simpler
small     high   resource_link — the client caches once
large     low    resource_link — defer the fetch until needed
large     high   resource_link — the canonical win
========  =====  ==============================================
"""

from __future__ import annotations

__all__ = ["HIGH_REUSE", "Advice", "advise", "advise_case", "size_reuse_table"]

from dataclasses import dataclass

from .errors import CaseError
from .model import INITIATORS, OPERATIONS, Case, Policy
from .router import route

#: Content read this many times or more in one session counts as "frequently reused".
HIGH_REUSE = 2


@dataclass(frozen=True)
class Advice:
    """A recommended shape (or ``None`` when no shape can be honest) and why."""

    shape: str | None
    reasons: tuple[str, ...]
    rejection: str | None = None


def advise(
    initiator: str,
    operation: str = "read",
    *,
    side_effects: bool = False,
    payload_bytes: int = 0,
    reuse: int = 1,
    separate_permission: bool = False,
    validated_fields: bool = False,
    address_known: bool = True,
    changes_often: bool = False,
    policy: Policy | None = None,
) -> Advice:
    """Recommend one of the five shapes for a need, with the reasons in plain words.

    Args:
        initiator: "application" (the host reads) or "model" (the model calls a tool).
        operation: what runs (read, read-template, generate, calculate, mutate, ...).
        side_effects: whether it changes state.
        payload_bytes: how large the content is.
        reuse: how many times the same content is used in one session.
        separate_permission: whether the content needs its own permission check.
        validated_fields: whether downstream code needs a declared result shape.
        address_known: whether the exact URI is known up front (else a template).
        changes_often: whether the content is likely to change after it is returned.
        policy: supplies the inline (embed) budget; the seed's 4096 bytes by default.

    Example:
        >>> advise("model", "generate", payload_bytes=18000).shape
        'resource-link'
    """
    if initiator not in INITIATORS:
        raise CaseError(f"initiator must be one of {', '.join(map(repr, INITIATORS))}; got {initiator!r}", "initiator")
    if operation not in OPERATIONS:
        raise CaseError(f"operation must be one of {', '.join(map(repr, OPERATIONS))}; got {operation!r}", "operation")
    if isinstance(payload_bytes, bool) or not isinstance(payload_bytes, int) or payload_bytes < 0:
        raise CaseError(f"payload_bytes must be a whole number ≥ 0; got {payload_bytes!r}", "bytes")
    if isinstance(reuse, bool) or not isinstance(reuse, int) or reuse < 1:
        raise CaseError(f"reuse must be a whole number ≥ 1; got {reuse!r}", "reuse")
    limit = (policy or Policy()).embed_limit_bytes
    large = payload_bytes > limit
    high = reuse >= HIGH_REUSE

    if initiator == "application":
        resource = "listed-resource" if address_known else "templated-resource"
        refusal = _refusal(initiator, operation, resource, side_effects, payload_bytes, policy)
        if refusal is not None:
            return Advice(
                None,
                (
                    "the application initiates it, so it would be a resource — but it changes state;",
                    "a read must never change anything: make it a tool the model calls, with the mutation declared",
                ),
                rejection=refusal,
            )
        if address_known:
            return Advice(
                "listed-resource",
                (
                    "the application chooses it and it only reads: a resource",
                    "its address is known up front, so list it for people to browse and attach",
                ),
            )
        return Advice(
            "templated-resource",
            (
                "the application chooses it and it only reads: a resource",
                "the address depends on a parameter (one of many records), so publish a URI "
                "template instead of listing every instance",
            ),
        )

    reasons = ["the model asks for an operation, so it is a tool and its result carries the context"]
    if validated_fields:
        reasons.append("downstream code needs declared fields to validate: structured content")
        return Advice("structured-tool-result", tuple(reasons))
    why_link = []
    if large:
        why_link.append(f"{payload_bytes} bytes exceed the {limit}-byte inline budget")
    if high:
        why_link.append(f"the same content is reused {reuse} times, so a client cache pays off")
    if separate_permission:
        # seed 000: "An embedded resource should be authorized before embedding"; a link leaves the
        # read to the host's gate, which checks this caller when (and if) the link is followed.
        why_link.append(
            "it needs a permission of its own, beyond the tool call's: a link leaves that check to "
            "the host's gate on the follow-up read"
        )
    if changes_often:
        # seed 001: a link keeps the resource's URI, so the client can re-read it and hear of
        # changes (notifications/resources/updated); an embed is a copy frozen at call time.
        why_link.append("it is likely to change, so the client should re-read it later instead of keeping a stale copy")
    if why_link:
        reasons.append("return a link: " + "; ".join(why_link))
        return Advice("resource-link", tuple(reasons))
    reasons.append(
        f"{payload_bytes} bytes fit the {limit}-byte budget, are used once, need no permission of "
        "their own and will not change: embed them as the bounded evidence of this execution "
        "(seed 001: either shape works for small content used once; embedding is simpler)"
    )
    return Advice("embedded-resource", tuple(reasons))


def _refusal(
    initiator: str, operation: str, shape: str, side_effects: bool, payload_bytes: int, policy: Policy | None
) -> str | None:
    """What the rule table says of the shape the advisor would pick: ``None`` or the rejection code.

    The advisor does not keep its own copy of a rule: it routes the need (with its custody facts
    present) and reports the code the router gives.
    """
    probe = Case(
        id="advisor-probe",
        initiator=initiator,  # type: ignore[arg-type]  # validated by advise()
        operation=operation,
        shape=shape,  # type: ignore[arg-type]
        uri="advisor://probe",
        mime="application/octet-stream",
        bytes=payload_bytes,
        current=True,
        allowed=True,
        side_effects=side_effects,
        provenance="advisor",
    )
    return route(probe, policy).rejection


def advise_case(case: Case, *, reuse: int = 1, policy: Policy | None = None) -> Advice:
    """Advice for a case's own facts (operation ``calculate`` implies validated fields;
    ``read-template`` implies an address not known up front)."""
    return advise(
        case.initiator,
        case.operation,
        side_effects=bool(case.side_effects),
        payload_bytes=case.bytes,
        reuse=reuse,
        validated_fields=case.operation in ("calculate", "validate"),
        address_known=case.operation != "read-template",
        policy=policy,
    )


def size_reuse_table(
    small: int = 512, large: int = 18000, high_reuse: int = 5, policy: Policy | None = None
) -> list[dict[str, object]]:
    """Seed 001's four rows, answered by the advisor (model-initiated content)."""
    rows = []
    for size_label, size in (("small", small), ("large", large)):
        for reuse_label, reuse in (("low", 1), ("high", high_reuse)):
            a = advise("model", "generate", payload_bytes=size, reuse=reuse, policy=policy)
            rows.append(
                {
                    "size": size_label,
                    "bytes": size,
                    "reuse": reuse_label,
                    "times": reuse,
                    "shape": a.shape,
                    "why": a.reasons[-1],
                }
            )
    return rows
