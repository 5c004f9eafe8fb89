"""The one table of rules.

Every check the lab applies to a case lives here once, in order, with the plain-language test a
learner reads and the seed sentence it comes from. The scalar router (:mod:`custody_lab.core.router`),
the vectorised sweep, the decision trace, the chart legend and the notebooks all read this table:
adding a rule is one edit.

A rule's ``fires`` function is written against a tiny algebra (``Ops``) instead of Python's
``and``/``not``, so the same expression can be evaluated on one case (plain Python values) or on a
whole column of cases at once (numpy arrays, in :mod:`custody_lab.sweep`).
"""

from __future__ import annotations

__all__ = [
    "RULES",
    "SHAPE_LOOKS",
    "Look",
    "Ops",
    "Rule",
    "ScalarOps",
    "UnknownRuleError",
    "outcome_look",
    "rule",
    "rule_codes",
]

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import CustodyLabError
from .model import APPLICATION_SHAPES


class Ops(Protocol):
    """The operations a rule may use; implemented for scalars here and for arrays in ``sweep``."""

    def not_(self, a: Any) -> Any: ...
    def and_(self, a: Any, b: Any) -> Any: ...
    def or_(self, a: Any, b: Any) -> Any: ...
    def eq(self, a: Any, value: str) -> Any: ...
    def isin(self, a: Any, values: Sequence[str]) -> Any: ...
    def xor(self, a: Any, b: Any) -> Any: ...
    def gt(self, a: Any, b: Any) -> Any: ...
    def is_true(self, a: Any) -> Any: ...
    def missing(self, a: Any) -> Any: ...
    def blank(self, a: Any) -> Any: ...


class ScalarOps:
    """``Ops`` over plain Python values (one case at a time)."""

    def not_(self, a: Any) -> bool:
        return not a

    def and_(self, a: Any, b: Any) -> bool:
        return bool(a) and bool(b)

    def or_(self, a: Any, b: Any) -> bool:
        return bool(a) or bool(b)

    def eq(self, a: Any, value: str) -> bool:
        return bool(a == value)

    def isin(self, a: Any, values: Sequence[str]) -> bool:
        return a in values

    def xor(self, a: Any, b: Any) -> bool:
        return bool(a) != bool(b)

    def gt(self, a: Any, b: Any) -> bool:
        return bool(a > b)

    def is_true(self, a: Any) -> bool:
        return a is True

    def missing(self, a: Any) -> bool:
        return a is None

    def blank(self, a: Any) -> bool:
        return a is None or a == ""


@dataclass(frozen=True)
class Look:
    """How an outcome is shown: a short label, a hatch pattern and a fill colour.

    Every plot and chart reads outcomes without colour too: the hatch and the label carry the
    meaning, the colour only helps. Accepted shapes are light and sparsely hatched; refusals
    darker and densely hatched, so the two families differ even in greyscale.
    """

    label: str
    hatch: str
    color: str


#: How each accepted outcome (the selected shape) is shown, in the order of ``SHAPES``.
SHAPE_LOOKS: dict[str, Look] = {
    "listed-resource": Look("listed", "", "#cfe8f3"),
    "templated-resource": Look("templated", "..", "#a6d5e8"),
    "resource-link": Look("link", "//", "#bfe3c6"),
    "embedded-resource": Look("embedded", "\\\\", "#8fcf9c"),
    "structured-tool-result": Look("structured", "oo", "#e6f2c2"),
}


# A rule sees the case's fields by camelCase key, the policy, and the ops.
Fires = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class Rule:
    """One check: its rejection code, what it tests in plain words, and where that comes from.

    Attributes:
        code: the rejection code written into the receipt when the rule fires.
        test: the condition that makes it fire, in the words a learner reads.
        source: the seed file and heading the rule comes from.
        quote: the seed's own sentence, short, so a reviewer can check the citation.
        seed: True for the five rules of the seed's Node ``route``; False for rules the lab adds
            (they only fire outside the seed's input domain or under a non-default policy).
        fires: ``fires(c, policy, ops)`` -> truthy when the rule rejects the case.
        look: how the refusal is shown in plots, charts and legends.
    """

    code: str
    test: str
    source: str
    quote: str
    seed: bool
    fires: Fires
    look: Look


def _shape_of_the_other_initiator(c: Any, ops: Any) -> Any:
    # The shapes split into two disjoint families, so a shape is legal exactly when "the
    # application initiates" and "the shape is a resource shape" are both true or both false.
    return ops.xor(ops.eq(c["initiator"], "application"), ops.isin(c["shape"], APPLICATION_SHAPES))


#: The ordered rule table. The first rule that fires decides; if none fires the case is accepted
#: with ``selected`` = its declared shape.
RULES: tuple[Rule, ...] = (
    Rule(
        code="custody-incomplete",
        test="the URI, MIME type or provenance is absent or empty",
        source="seed 000 · Ship a context-custody receipt",
        quote="If the host cannot name actor, authority, identity, size, freshness, and side effects, stop there.",
        seed=False,
        fires=lambda c, p, ops: ops.or_(ops.or_(ops.blank(c["uri"]), ops.blank(c["mime"])), ops.blank(c["provenance"])),
        look=Look("incomplete", "xx", "#f6c6a6"),
    ),
    Rule(
        code="side-effects-unknown",
        test="nobody has said whether the operation changes state",
        source="seed 000 · Choose by freshness and side effects",
        quote="If the system cannot say whether an operation has side effects, reject it before execution.",
        seed=False,
        fires=lambda c, p, ops: ops.missing(c["sideEffects"]),
        look=Look("effects?", "++", "#f2a97e"),
    ),
    Rule(
        code="permission-denied",
        test="the caller is not allowed to read or call it",
        source="seed 000 · Recheck authority at every read boundary",
        quote="Discovery is not authority.",
        seed=True,
        fires=lambda c, p, ops: ops.not_(c["allowed"]),
        look=Look("denied", "||", "#e58a62"),
    ),
    Rule(
        code="stale-content",
        test="the content is not current and current content is required",
        source="seed 000 · Choose by freshness and side effects",
        quote="prefer a resource when ... the application can make staleness visible",
        seed=True,
        fires=lambda c, p, ops: ops.and_(
            ops.not_(c["current"]),
            ops.or_(ops.is_true(c["requiresCurrent"]), p.require_current),
        ),
        look=Look("stale", "--", "#d9d9d9"),
    ),
    Rule(
        code="resource-mislabeled-side-effect",
        test="the application initiates it (a resource read) but it changes state",
        source="seed 000 · Choose by freshness and side effects",
        quote="a friendly label cannot repair a false control contract.",
        seed=True,
        fires=lambda c, p, ops: ops.and_(ops.eq(c["initiator"], "application"), ops.is_true(c["sideEffects"])),
        look=Look("mislabeled", "**", "#c9a0c8"),
    ),
    Rule(
        code="embed-over-budget",
        test="it is an embedded resource larger than the embed limit",
        source="seed 000 · Budget large context without hiding truncation",
        quote="Return a link when content ... exceeds the host's inline budget",
        seed=True,
        fires=lambda c, p, ops: ops.and_(
            ops.eq(c["shape"], "embedded-resource"), ops.gt(c["bytes"], p.embed_limit_bytes)
        ),
        look=Look("over budget", "XX", "#b0b0b0"),
    ),
    Rule(
        code="control-shape-mismatch",
        test="the shape does not belong to the initiator (resources for the application, tool results for the model)",
        source="seed 000 · MCP resources vs tool results start with control",
        quote="Resources are application-driven ... Tools are model-controlled",
        seed=True,
        fires=lambda c, p, ops: _shape_of_the_other_initiator(c, ops),
        look=Look("mismatch", "OO", "#e7b9b9"),
    ),
)

_BY_CODE = {r.code: r for r in RULES}


class UnknownRuleError(CustodyLabError, KeyError):
    """No rule has this code; the message lists the codes there are."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def rule(code: str) -> Rule:
    """The rule with this rejection code.

    Example:
        >>> rule("embed-over-budget").seed
        True
    """
    try:
        return _BY_CODE[code]
    except KeyError as e:
        raise UnknownRuleError(f"no rule {code!r}; the codes are {', '.join(_BY_CODE)}") from e


def outcome_look(outcome: str) -> Look:
    """How an outcome (a selected shape or a rejection code) is shown.

    Example:
        >>> outcome_look("embed-over-budget").label, outcome_look("resource-link").hatch
        ('over budget', '//')
    """
    if outcome in SHAPE_LOOKS:
        return SHAPE_LOOKS[outcome]
    return rule(outcome).look


def rule_codes() -> tuple[str, ...]:
    """Every rejection code, in the order the rules are checked."""
    return tuple(r.code for r in RULES)
