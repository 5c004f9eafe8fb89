"""Resource or tool? (notebook 02): a capability in a few words; pick the primitive, the shape and
the fact that decides it.

==============  =====  ==============================================================
id              level  the capability
==============  =====  ==============================================================
primitive-01    1      a help-centre article the host attaches to a question
primitive-02    1      an order record, one of many, read by its order number
primitive-03    2      the live length of the support queue on the host's dashboard
primitive-04    2      a refund the model decides to issue; code checks the receipt
primitive-05    2      an extract of the admins' audit log, which needs its own check
primitive-06    2      a short summary of this conversation, generated once
primitive-07    2      a monthly report the model generates, 60,000 bytes
==============  =====  ==============================================================

Seed 000 ("MCP resources vs tool results start with control", "Choose by freshness and side
effects") and seed 004 ("Using a tool where a resource fits"): who initiates and whether the
capability changes state pick the **primitive** (a resource the application reads, or a tool the
model calls); the other facts pick the **shape** within it. The learner answers
``{"primitive": ..., "shape": ..., "decided_by": ...}``.

Every reference is computed: the shape is :func:`custody_lab.core.advisor.advise` on the
scenario's facts, the primitive follows from the shape, and the accepted ``decided_by`` are found
by the advisor alone (one rule for every ``primitive-*``): each shape fact is flipped on its own,
the primitive's facts (initiator, side effects) and the others kept, and **every** fact whose flip
changes the advisor's shape decides it, whether or not the description states it (the summary of
``primitive-06`` would become a link if it changed often, so ``changes_often`` decides it too). The
revealed reference names the first deciding fact the description states. A scenario with no stated
deciding fact, or whose every fact decides, is refused when the module loads. The scenarios'
answers cover all five shapes (``tests/teaching/exercise_sets/test_primitive_exercises.py``).
"""

from __future__ import annotations

__all__ = ["DECIDERS", "EXERCISES", "PRIMITIVE_DECIDERS", "SCENARIOS", "SHAPE_DECIDERS", "Scenario", "deciding_facts"]

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...core.advisor import HIGH_REUSE, advise
from ...core.model import APPLICATION_SHAPES, SHAPES, Policy
from ..exercises import Exercise, ExerciseError, Mistake
from ._changes import code_of

#: The facts that pick the primitive: who initiates, and whether it changes state.
PRIMITIVE_DECIDERS: tuple[str, ...] = ("initiator", "side_effects")
#: The facts that pick the shape within a primitive (the advisor's other inputs).
SHAPE_DECIDERS: tuple[str, ...] = (
    "address_known",
    "validated_fields",
    "payload_bytes",
    "reuse",
    "separate_permission",
    "changes_often",
)
#: The vocabulary a learner names ``decided_by`` from.
DECIDERS: tuple[str, ...] = PRIMITIVE_DECIDERS + SHAPE_DECIDERS
_KEYS = ("primitive", "shape", "decided_by")
#: What a hint asks the learner to examine for each shape fact (never which fact decides).
_QUESTION: dict[str, str] = {
    "address_known": "whether its address can be written down before it is needed",
    "validated_fields": "whether code checks the answer field by field",
    "payload_bytes": "its size, next to the host's inline budget",
    "reuse": "how many times the same content is read",
    "separate_permission": "whether reading it needs a permission of its own",
    "changes_often": "whether it changes after it is returned",
}


@dataclass(frozen=True)
class Scenario:
    """One capability: its description, the advisor's facts, and which of them the text states.

    Attributes:
        id: the exercise id.
        title: a short heading.
        what: the capability in a few sentences (the learner's only input).
        facts: keyword arguments of :func:`~custody_lab.core.advisor.advise`.
        stated: the facts the description states (the ones ``decided_by`` may name).
        level: the exercise's level.
    """

    id: str
    title: str
    what: str
    facts: Mapping[str, Any]
    stated: tuple[str, ...]
    level: int = 2

    def shape(self) -> str:
        """The advisor's shape for the facts (a scenario the advisor refuses is built wrong)."""
        shape = advise(**self.facts).shape
        if shape is None:
            raise ExerciseError(f"{self.id}: the advisor refuses this capability; a primitive exercise needs a shape")
        return shape

    def primitive(self) -> str:
        """``"resource"`` for an application shape, ``"tool"`` for a shape of a tool's result."""
        return "resource" if self.shape() in APPLICATION_SHAPES else "tool"


def _flipped(name: str, value: object) -> object:
    """The other side of one fact: a bool negated, a size moved across the embed limit, reuse
    moved across :data:`~custody_lab.core.advisor.HIGH_REUSE`."""
    if name == "payload_bytes":
        limit = Policy().embed_limit_bytes
        return 512 if isinstance(value, int) and value > limit else 4 * limit
    if name == "reuse":
        return 1 if isinstance(value, int) and value >= HIGH_REUSE else HIGH_REUSE
    return not value


def deciding_facts(scenario: Scenario) -> tuple[str, ...]:
    """The shape facts whose flip (the others kept) changes the advisor's shape, stated or not,
    in the order of :data:`SHAPE_DECIDERS`.

    Example:
        >>> deciding_facts(SCENARIOS[0])
        ('address_known',)
        >>> "changes_often" in deciding_facts(SCENARIOS[5])
        True
    """
    base = scenario.shape()
    found = []
    for name in SHAPE_DECIDERS:
        facts = dict(scenario.facts)
        facts[name] = _flipped(name, facts.get(name, _DEFAULTS[name]))
        if advise(**facts).shape != base:
            found.append(name)
    return tuple(found)


def _taught_fact(scenario: Scenario) -> str:
    """The deciding fact the revealed reference names: the first one the description states."""
    return next(f for f in deciding_facts(scenario) if f in scenario.stated)


_DEFAULTS: dict[str, Any] = {
    "address_known": True,
    "validated_fields": False,
    "payload_bytes": 0,
    "reuse": 1,
    "separate_permission": False,
    "changes_often": False,
}


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "primitive-01",
        "A help-centre article",
        "The support host keeps one help-centre article, *How returns work* (about 2,600 bytes of "
        "Markdown). When a customer's question mentions returns, the host itself attaches that "
        "article to the model's context. Reading it changes nothing.",
        {"initiator": "application", "operation": "read", "payload_bytes": 2600, "address_known": True},
        ("initiator", "side_effects", "payload_bytes", "address_known"),
        level=1,
    ),
    Scenario(
        "primitive-02",
        "An order record by its number",
        "The shop has about 40,000 orders. When an agent opens a ticket, the host reads the record "
        "of the order the ticket names (about 900 bytes of JSON) and attaches it; which order that "
        "is depends on the ticket, so nobody can write its address down in advance.",
        {"initiator": "application", "operation": "read-template", "payload_bytes": 900, "address_known": False},
        ("initiator", "side_effects", "payload_bytes", "address_known"),
        level=1,
    ),
    Scenario(
        "primitive-03",
        "The live length of the support queue",
        "The host's dashboard shows how many tickets are waiting right now, from one fixed address "
        "on the support server. The number changes every few seconds; the host re-reads it when the "
        "server says it changed. Reading it changes nothing.",
        {"initiator": "application", "operation": "read-subscribed", "payload_bytes": 60, "changes_often": True},
        ("initiator", "side_effects", "changes_often", "address_known", "payload_bytes"),
    ),
    Scenario(
        "primitive-04",
        "A refund",
        "A customer's parcel arrived broken. The model decides to refund the order; the server "
        "issues the refund (money moves) and answers with a small confirmation (refund id, amount, "
        "status), which the host's code checks field by field before it tells the customer.",
        {
            "initiator": "model",
            "operation": "mutate",
            "side_effects": True,
            "payload_bytes": 180,
            "validated_fields": True,
        },
        ("initiator", "side_effects", "payload_bytes", "validated_fields"),
    ),
    Scenario(
        "primitive-05",
        "An extract of the audit log",
        "While it investigates a complaint, the model asks the server for the admin actions taken on "
        "one account today. The server writes a 1,900-byte extract of its audit log. Only admins may "
        "read the audit log, so whoever reads that extract must pass its own permission check. It "
        "is read once.",
        {
            "initiator": "model",
            "operation": "generate",
            "payload_bytes": 1900,
            "reuse": 1,
            "separate_permission": True,
        },
        ("initiator", "side_effects", "payload_bytes", "reuse", "separate_permission"),
    ),
    Scenario(
        "primitive-06",
        "A summary of this conversation",
        "The model asks the server to summarise the conversation so far. The server writes a "
        "700-byte summary that only makes sense as the result of this one call, and the model uses "
        "it once, to answer. Nobody else reads it; it needs no permission of its own.",
        {"initiator": "model", "operation": "generate", "payload_bytes": 700, "reuse": 1},
        ("initiator", "side_effects", "payload_bytes", "reuse", "separate_permission"),
    ),
    Scenario(
        "primitive-07",
        "A monthly report",
        "The model asks the server to generate last month's sales report: 60,000 bytes of HTML, "
        "written once and read once, which needs no permission beyond the tool call itself.",
        {"initiator": "model", "operation": "generate", "payload_bytes": 60000, "reuse": 1},
        ("initiator", "side_effects", "payload_bytes", "reuse", "separate_permission"),
    ),
)


# --------------------------------------------------------------------------------------------
# Reading an answer
# --------------------------------------------------------------------------------------------


def _fact_name(value: object) -> str | None:
    typed = code_of(value)
    return None if typed is None else typed.replace("-", "_").replace(" ", "_")


def _read(answer: object) -> tuple[str | None, str | None, str | None] | None:
    """A dict answer as ``(primitive, shape, decided_by)``, each normalised; ``None`` when the
    answer is not a dict with the three keys."""
    if not isinstance(answer, dict):
        return None
    keys = {str(k).strip().lower().replace("-", "_").replace(" ", "_"): v for k, v in answer.items()}
    if not all(k in keys for k in _KEYS):
        return None
    primitive = code_of(keys["primitive"])
    shape = code_of(keys["shape"])
    return (
        primitive.removeprefix("a ") if primitive is not None else None,
        shape.replace(" ", "-") if shape is not None else None,
        _fact_name(keys["decided_by"]),
    )


def _matches(answer: object, expected: object) -> bool:
    got = _read(answer)
    if got is None or not isinstance(expected, dict):
        return False
    return got[0] == expected["primitive"] and got[1] == expected["shape"] and got[2] in expected["decided_by"]


# --------------------------------------------------------------------------------------------
# Mistakes
# --------------------------------------------------------------------------------------------


def _when(test: Callable[[tuple[str | None, str | None, str | None]], bool]) -> Callable[[object], bool]:
    def detect(answer: object) -> bool:
        got = _read(answer)
        return got is not None and test(got)

    return detect


def _mistakes(s: Scenario) -> tuple[Mistake, ...]:
    shape, primitive, deciding = s.shape(), s.primitive(), deciding_facts(s)
    other_primitive = "tool" if primitive == "resource" else "resource"

    def answer(p: str = primitive, sh: str = shape, d: str = _taught_fact(s)) -> dict[str, str]:
        return {"primitive": p, "shape": sh, "decided_by": d}

    found = [
        Mistake(
            "not-three-named-labels",
            lambda a: not isinstance(a, dict) or _read(a) is None,
            "Give a dict with three keys, primitive, shape and decided_by: "
            '{"primitive": "...", "shape": "...", "decided_by": "..."}.',
            example=primitive,
        ),
        Mistake(
            "primitive-and-shape-disagree",
            _when(
                lambda g: (
                    g[1] in SHAPES
                    and g[0] in ("resource", "tool")
                    and (g[1] in APPLICATION_SHAPES) != (g[0] == "resource")
                )
            ),
            "Your primitive and your shape do not go together: listed and templated resources are "
            "resources the application reads; a link, an embed and a structured result travel in "
            "a tool's result.",
            example=answer(p=other_primitive),
        ),
    ]
    tool_shape = next(x for x in SHAPES if x not in APPLICATION_SHAPES)
    resource_shape = APPLICATION_SHAPES[0]
    if primitive == "resource" and s.facts.get("changes_often"):
        found.append(
            Mistake(
                "a-tool-because-it-is-live",
                _when(lambda g: g[0] == "tool"),
                "Freshness is not control (seed 000: a live dashboard snapshot is not automatically "
                "a tool). Who decides that this number enters the context, and does reading it "
                "change anything?",
                example=answer(p="tool", sh=tool_shape),
            )
        )
    elif primitive == "resource":
        found.append(
            Mistake(
                "a-tool-for-what-the-app-reads",
                _when(lambda g: g[0] == "tool"),
                "Seed 004's first common mistake: using a tool where a resource fits. Who decides "
                "that this enters the context here, the model or the host, and does reading it "
                "change anything?",
                example=answer(p="tool", sh=tool_shape),
            )
        )
    elif s.facts.get("side_effects"):
        found.append(
            Mistake(
                "a-resource-for-a-side-effect",
                _when(lambda g: g[0] == "resource"),
                "This changes state: money moves. A resource read must never change anything (seed "
                "004, the lab's host policy; the router refuses it as resource-mislabeled-side-effect).",
                example=answer(p="resource", sh=resource_shape),
            )
        )
    else:
        found.append(
            Mistake(
                "a-resource-for-what-the-model-asks",
                _when(lambda g: g[0] == "resource"),
                "Nobody chose this content in advance: the model asks for an operation in the middle "
                "of its work and the server computes the content. Who controls that primitive?",
                example=answer(p="resource", sh=resource_shape),
            )
        )
    found += _shape_mistakes(s, answer)
    found += [
        Mistake(
            "a-primitive-fact-as-the-reason",
            _when(lambda g: g[0] == primitive and g[1] == shape and g[2] in PRIMITIVE_DECIDERS),
            "Who initiates and whether it changes state pick the primitive, your first label. "
            "decided_by names the fact that picks the shape within that primitive.",
            example=answer(d="initiator"),
        ),
        Mistake(
            "not-a-fact-of-the-list",
            _when(lambda g: g[2] not in DECIDERS),
            "Name decided_by with one fact of the list exactly as written: " + ", ".join(DECIDERS) + ".",
            example=answer(d="size"),
        ),
    ]

    def names(fact: str) -> Callable[[tuple[str | None, str | None, str | None]], bool]:
        return lambda g: g[0] == primitive and g[1] == shape and g[2] == fact

    found += [
        Mistake(
            f"a-fact-that-would-not-change-it-{fact.replace('_', '-')}",
            _when(names(fact)),
            f"You named {fact}. Look at what the description tells you about {_QUESTION[fact]}; suppose "
            "it were the other way round, everything else kept: would the shape you chose change? "
            "A fact decides the shape only if flipping it would.",
            example=answer(d=fact),
        )
        for fact in SHAPE_DECIDERS
        if fact not in deciding
    ]
    return tuple(found)


def _shape_mistakes(s: Scenario, answer: Callable[..., dict[str, str]]) -> list[Mistake]:
    """The typical wrong shape within the right primitive, one or two per scenario."""
    shape = s.shape()
    facts = s.facts
    out: list[Mistake] = []

    def wrong(name: str, sh: str, hint: str) -> None:
        out.append(Mistake(name, _when(lambda g: g[1] == sh), hint, example=answer(sh=sh)))

    if shape == "templated-resource":
        wrong(
            "listed-where-the-address-is-not-known",
            "listed-resource",
            "A listed resource is one concrete address offered for browsing. Can the host write "
            "this record's address down before it knows the ticket? (Seed 004: listing a million "
            "records is impossible.)",
        )
    if shape == "listed-resource":
        wrong(
            "a-template-for-one-known-address",
            "templated-resource",
            "A template describes a family of addresses with a parameter. How many addresses does "
            "this capability have, and is each known up front?",
        )
    if shape == "structured-tool-result":
        wrong(
            "an-embed-that-code-must-check",
            "embedded-resource",
            "The host's code checks the answer field by field. Which shape declares fields (with "
            "an outputSchema) for code to validate, rather than a document for the model to read?",
        )
    if shape == "resource-link" and facts.get("separate_permission"):
        wrong(
            "an-embed-that-skips-the-permission",
            "embedded-resource",
            "The extract is small, but an embed hands its bytes over inside the tool result, past "
            "the check only admins pass (seed 000: choose a link when the payload is independently "
            "permissioned, so the follow-up read is checked on its own).",
        )
    if shape == "resource-link" and int(facts.get("payload_bytes", 0)) > Policy().embed_limit_bytes:
        wrong(
            "an-embed-over-the-budget",
            "embedded-resource",
            "Compare the report's size with the host's inline budget (the embed limit): the router "
            "would refuse that embed as embed-over-budget.",
        )
    if shape in ("resource-link", "embedded-resource"):
        wrong(
            "structured-for-a-document",
            "structured-tool-result",
            "Structured content is for fields code must validate; nothing here validates fields: "
            "the model reads a document.",
        )
    if shape == "embedded-resource":
        wrong(
            "a-link-with-no-reason-for-one",
            "resource-link",
            "Seed 000 gives four reasons for a link: large, reused, separately permissioned, likely "
            "to change. Which of them does this summary have?",
        )
    return out


def _why(s: Scenario) -> str:
    """The answer's reason: the advisor's own reasons for the scenario's facts, and the fact that decides."""
    return "; ".join(advise(**s.facts).reasons) + f" (what decides the shape: {' or '.join(deciding_facts(s))})"


def _exercise(s: Scenario) -> Exercise:
    deciding = deciding_facts(s)
    if not set(deciding) & set(s.stated) or len(deciding) == len(SHAPE_DECIDERS):
        raise ExerciseError(f"{s.id}: a stated fact must decide the shape and another must not; {deciding} decide it")
    return Exercise(
        id=s.id,
        title=f"Resource or tool? {s.title}",
        why=_why(s),
        level=s.level,
        prompt=(
            f"{s.what}\n\nIs it a **resource** or a **tool**, which of the five shapes carries it, and "
            "which one fact decides the shape? Answer with a dict: "
            '`{"primitive": "resource" or "tool", "shape": ..., "decided_by": ...}`, where '
            "`decided_by` is one of " + ", ".join(f"`{d}`" for d in DECIDERS) + "."
        ),
        input_label=f"the capability “{s.title.lower()}”",
        wanted='a dict {"primitive": ..., "shape": ..., "decided_by": ...}',
        kind="mapping",
        given=lambda: {"capability": s.what, "decided_by is one of": list(DECIDERS)},
        reference=lambda: {"primitive": s.primitive(), "shape": s.shape(), "decided_by": _taught_fact(s)},
        expected=lambda: {"primitive": s.primitive(), "shape": s.shape(), "decided_by": deciding_facts(s)},
        compare=_matches,
        mistakes=_mistakes(s),
        hints=(
            "First the primitive: who decides that this enters the context, and does it change "
            "state? Then the shape within it, then the fact whose flip would change that shape.",
            "Write down what the description says about each fact of the table, then flip them one "
            "at a time, keeping the others: which flip moves the shape?",
        ),
    )


EXERCISES = tuple(_exercise(s) for s in SCENARIOS)
