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
    "CHECKED_BEFORE_THE_EXCHANGE",
    "EXCHANGE_FACTS",
    "EXCHANGE_RULES",
    "HOST_FACTS",
    "HOST_RULES",
    "INVALID_PARAMS",
    "LEGACY_RESOURCE_NOT_FOUND",
    "LIVE_RULES",
    "RESOURCE_NOT_FOUND_CODES",
    "RULES",
    "SHAPE_LOOKS",
    "Fires",
    "Look",
    "Ops",
    "Rule",
    "ScalarOps",
    "Stage",
    "UnknownRuleError",
    "outcome_look",
    "rule",
    "rule_codes",
]

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .blank import is_blank
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
        # The lab's host policy: a URI, MIME type or provenance of only whitespace names nothing.
        return a is None or (isinstance(a, str) and is_blank(a))


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

#: Where a rule sits in live mode's order: ``"content"`` rules read the case (every rule of
#: ``RULES``); ``"exchange"`` rules ask whether the exchange came back at all and run before the
#: content rules (a refused or failed exchange has nothing to route); ``"promise"`` rules ask
#: whether the exchange kept what it promised and run after them; ``"host"`` rules read what a host
#: profile did with a result (:data:`HOST_RULES`).
Stage = Literal["content", "exchange", "promise", "host"]


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
        stage: where live mode checks it (see :data:`Stage`); ``"content"`` for the case rules.
    """

    code: str
    test: str
    source: str
    quote: str
    seed: bool
    fires: Fires
    look: Look
    stage: Stage = "content"


def _shape_of_the_other_initiator(c: Any, ops: Any) -> Any:
    # The shapes split into two disjoint families, so a shape is legal exactly when "the
    # application initiates" and "the shape is a resource shape" are both true or both false.
    return ops.xor(ops.eq(c["initiator"], "application"), ops.isin(c["shape"], APPLICATION_SHAPES))


#: The ordered rule table. The first rule that fires decides; if none fires the case is accepted
#: with ``selected`` = its declared shape.
RULES: tuple[Rule, ...] = (
    Rule(
        code="custody-incomplete",
        test="the URI, MIME type or provenance is absent, empty or only whitespace",
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
        look=Look("effects?", "++", "#f7c9a6"),
    ),
    Rule(
        code="permission-denied",
        test="the caller is not allowed to read or call it",
        source="seed 000 · Recheck authority at every read boundary",
        quote="Discovery is not authority.",
        seed=True,
        fires=lambda c, p, ops: ops.not_(c["allowed"]),
        look=Look("denied", "||", "#a9461d"),
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

#: The facts live mode's recorder observed about one exchange, by name, with what each holds. The
#: exchange rules read them beside the case's fields; a fact that was not observed is ``None``.
EXCHANGE_FACTS: dict[str, str] = {
    "timedOut": "true when the wait for the server's answer ran out and was cancelled",
    "errorCode": "the JSON-RPC error code the server answered with, or null",
    "toolError": "true when the tool ran and its result says isError",
    "requestedUri": "the URI the client asked to read (null for a tool call)",
    "declaredSideEffects": "what the tool declared in the lab's _meta key org.custody-lab/sideEffects: "
    "true, false or null (a readOnlyHint declares nothing)",
    "observedSideEffects": "whether the server's state digest changed across the exchange, or null",
    "followUpAllowed": "whether the gate let the client follow the returned link (null: no link followed)",
    "followUpAccepted": "whether the follow-up read of that link was accepted (null: not read)",
    "elicitation": "what the host sent back to the server's elicitation (MCP 2026-07-28, inside an "
    "input-required result): accept, decline or cancel (null: the server asked nothing)",
    "formAsksSecret": "true when a form-mode elicitation asked for a password, API key, token or payment "
    "credentials (the lab's host policy reads its fields and message); null when no form was asked",
}

#: JSON-RPC 2.0 §5.1 "Invalid params": a missing resource under MCP 2026-07-28 (SEP-2164); what
#: the SDK 2.3 server answers for an unknown resource, whatever the negotiated revision.
INVALID_PARAMS = -32602
#: A missing resource under MCP 2025-06-18 and 2025-11-25 ("Resource not found", in the
#: implementation-defined server-error range; retired by 2026-07-28, never reused).
LEGACY_RESOURCE_NOT_FOUND = -32002
#: Both codes mean "no such resource" on a read: clients SHOULD accept both (2026-07-28).
RESOURCE_NOT_FOUND_CODES: tuple[int, int] = (INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND)


def _is_false(ops: Any, a: Any) -> Any:
    # "said false", which is not the same as "not said" (None)
    return ops.and_(ops.not_(ops.missing(a)), ops.not_(a))


#: Live mode's own checks on the exchange: the same ``Rule`` type, read by the same loop as
#: ``RULES``, in the order given (``stage`` says whether before or after the content rules).
EXCHANGE_RULES: tuple[Rule, ...] = (
    Rule(
        code="server-timeout",
        test="the server did not answer within the time limit; the wait was cancelled",
        source="seed 000 · Ship a context-custody receipt",
        quote="Store rejection reasons as first-class outcomes.",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["timedOut"]),
        look=Look("timeout", "..//", "#9e9ac8"),
        stage="exchange",
    ),
    Rule(
        code="secret-asked-in-form",
        test="a form-mode elicitation asked for a password, API key, token or payment credentials "
        "(MCP 2026-07-28 says servers MUST use URL mode for these); the lab's host policy declined it unshown",
        source="seed 000 · MCP resources vs tool results start with control",
        quote="The host still owns permission checks, disclosure, size limits, and treatment of returned content "
        "as untrusted data.",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["formAsksSecret"]),
        look=Look("secret form", "..oo", "#6a51a3"),
        stage="exchange",
    ),
    Rule(
        code="consent-not-given",
        test="the call changes state and the person declined or cancelled the server's elicitation: "
        "the call is not executed and nothing it returns is approved",
        source="seed 000 · MCP resources vs tool results start with control",
        quote="That distinction changes consent and timing.",
        seed=False,
        fires=lambda c, p, ops: ops.and_(
            ops.isin(c["elicitation"], ("decline", "cancel")), ops.is_true(c["declaredSideEffects"])
        ),
        look=Look("no consent", "..XX", "#54278f"),
        stage="exchange",
    ),
    Rule(
        code="resource-not-found",
        test=(
            "a resource read was answered -32602 (MCP 2026-07-28) or -32002 (2025-06-18, 2025-11-25): no such resource"
        ),
        source="seed 004 · One Pattern, Many Resources",
        quote='The server answers with error `-32602`, "Resource not found".',
        seed=False,
        fires=lambda c, p, ops: ops.and_(
            ops.eq(c["initiator"], "application"), ops.isin(c["errorCode"], RESOURCE_NOT_FOUND_CODES)
        ),
        look=Look("not found", "..\\\\", "#bcbddc"),
        stage="exchange",
    ),
    Rule(
        code="server-error",
        test="the server answered with a protocol error",
        source="seed 000 · Ship a context-custody receipt",
        quote="Store rejection reasons as first-class outcomes.",
        seed=False,
        fires=lambda c, p, ops: ops.not_(ops.missing(c["errorCode"])),
        look=Look("server error", "..||", "#807dba"),
        stage="exchange",
    ),
    Rule(
        code="tool-error",
        test="the tool ran and reported an error (isError)",
        source="seed 000 · Run six context-delivery cases",
        quote="rejection quality is part of the interface.",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["toolError"]),
        look=Look("tool error", "..--", "#dadaeb"),
        stage="exchange",
    ),
    Rule(
        code="uri-mismatch",
        test="the server answered with contents for a different URI than the one requested",
        source="seed 000 · Run six context-delivery cases",
        quote="confirm the receipt carries the original URI and MIME type.",
        seed=False,
        fires=lambda c, p, ops: ops.and_(
            ops.not_(ops.missing(c["requestedUri"])), ops.not_(ops.eq(c["uri"], c["requestedUri"]))
        ),
        look=Look("wrong URI", "..++", "#fdae6b"),
        stage="promise",
    ),
    Rule(
        code="read-only-hint-violated",
        test="the tool declared itself free of side effects (the lab's _meta key, not a readOnlyHint) "
        "but the server's state changed",
        source="seed 000 · Separate listed resources from URI templates",
        quote="those hints do not override host policy.",
        seed=False,
        fires=lambda c, p, ops: ops.and_(
            _is_false(ops, c["declaredSideEffects"]), ops.is_true(c["observedSideEffects"])
        ),
        look=Look("effects lied", "..xx", "#fd8d3c"),
        stage="promise",
    ),
    Rule(
        code="link-follow-up-denied",
        test="the tool returned a link the caller may not read; the link is kept and explained, "
        "and nothing is fetched by a privileged path",
        source="seed 000 · Recheck authority at every read boundary",
        quote="The client should preserve the link, explain the blocked follow-up",
        seed=False,
        fires=lambda c, p, ops: _is_false(ops, c["followUpAllowed"]),
        look=Look("link denied", "..**", "#f16913"),
        stage="promise",
    ),
    Rule(
        code="link-follow-up-failed",
        test="following the link (a second read through the gate) was rejected",
        source="seed 000 · Distinguish resource links from embedded content",
        quote="Do not silently dereference a resource link and then log only the tool name.",
        seed=False,
        fires=lambda c, p, ops: _is_false(ops, c["followUpAccepted"]),
        look=Look("link failed", "..OO", "#d94801"),
        stage="promise",
    ),
)

#: Rules of ``RULES`` live mode checks before anything runs (seed 000: authority is rechecked at
#: every read boundary, and an operation whose side effects nobody can state is rejected "before
#: execution"), so a refused exchange is refused for that reason, not for the custody it never got.
CHECKED_BEFORE_THE_EXCHANGE: tuple[str, ...] = ("permission-denied", "side-effects-unknown")

#: What the host lens (:mod:`custody_lab.protocol.host_lens`) observed about how one host profile read
#: one result, by name. Each is ``True`` or ``False``; the host rules read them.
HOST_FACTS: dict[str, str] = {
    "linkReadUnchecked": "a resource link's contents entered context without a second permission check",
    "linkUriUnlogged": "a resource link was followed and the host's log names only the tool, not the link's URI",
    "linkLaundered": "a link the caller may not read was fetched anyway, by the host's own privileged path",
    "embedUnauthorised": "an embedded resource's bytes entered context without the caller's permission being checked",
    "cutUnrecorded": "contents were cut to fit the content budget and neither the model nor the log was told",
    "budgetsCombined": "the host logs one combined number (or none) instead of each budget on its own line",
    "userBlockToModel": 'a block annotated audience ["user"] entered the model\'s context',
}

#: The custody rules a host keeps or breaks when it places a result into a model's context. They are
#: ``Rule`` s like the others (same type, same ``rule(code)`` look-up), read over :data:`HOST_FACTS`
#: instead of a case; they do not decide a case and are not in live mode's order.
HOST_RULES: tuple[Rule, ...] = (
    Rule(
        code="link-dereferenced-silently",
        test="the host read a resource link's contents without a second permission check, "
        "or logged the follow-up under the tool's name only",
        source="seed 000 · Distinguish resource links from embedded content",
        quote="Do not silently dereference a resource link and then log only the tool name.",
        seed=False,
        fires=lambda c, p, ops: ops.or_(ops.is_true(c["linkReadUnchecked"]), ops.is_true(c["linkUriUnlogged"])),
        look=Look("silent link", "/o", "#e08214"),
        stage="host",
    ),
    Rule(
        code="link-laundered",
        test="the caller may not read the linked resource, and the host fetched it anyway",
        source="seed 000 · Recheck authority at every read boundary",
        quote="avoid laundering it through a privileged background fetch.",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["linkLaundered"]),
        look=Look("laundered", "/x", "#b35806"),
        stage="host",
    ),
    Rule(
        code="embed-not-authorised",
        test="an embedded resource's bytes reached the model with no check that the caller may read its URI",
        source="seed 000 · Recheck authority at every read boundary",
        quote="An embedded resource should be authorized before embedding;",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["embedUnauthorised"]),
        look=Look("embed unchecked", "\\o", "#8073ac"),
        stage="host",
    ),
    Rule(
        code="cut-not-recorded",
        test="the host cut contents to fit its budget and recorded the cut nowhere",
        source="seed 000 · Budget large context without hiding truncation",
        quote="\u201cSuccess\u201d cannot mean silently dropping the end of a document.",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["cutUnrecorded"]),
        look=Look("silent cut", "-o", "#542788"),
        stage="host",
    ),
    Rule(
        code="budgets-not-separate",
        test="the host's log gives one number for tool definitions, catalog and content together",
        source="seed 000 · Budget large context without hiding truncation",
        quote="Log each budget separately so a small tool schema does not conceal a giant embedded result,",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["budgetsCombined"]),
        look=Look("one number", "+o", "#998ec3"),
        stage="host",
    ),
    Rule(
        code="user-block-to-model",
        test='a block the server annotated audience ["user"] entered the model\'s context '
        "(the lab's host policy: such a block is shown to the person, not sent to the model)",
        source="the lab's host policy",
        quote="the lab's host policy",
        seed=False,
        fires=lambda c, p, ops: ops.is_true(c["userBlockToModel"]),
        look=Look("user block", "|o", "#d8daeb"),
        stage="host",
    ),
)

_BY_CODE = {r.code: r for r in RULES + EXCHANGE_RULES + HOST_RULES}

#: Live mode's whole order, walked by the same loop as ``RULES``: the checks made before anything
#: runs, the exchange checks, the remaining content rules, then the exchange's promises.
LIVE_RULES: tuple[Rule, ...] = (
    *(_BY_CODE[code] for code in CHECKED_BEFORE_THE_EXCHANGE),
    *(r for r in EXCHANGE_RULES if r.stage == "exchange"),
    *(r for r in RULES if r.code not in CHECKED_BEFORE_THE_EXCHANGE),
    *(r for r in EXCHANGE_RULES if r.stage == "promise"),
)


class UnknownRuleError(CustodyLabError, KeyError):
    """No rule has this code; the message lists the codes there are."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def rule(code: str) -> Rule:
    """The rule with this rejection code (a case rule or one of live mode's exchange rules).

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
    """Every rejection code of ``RULES``, in the order the rules are checked (live codes aside)."""
    return tuple(r.code for r in RULES)
