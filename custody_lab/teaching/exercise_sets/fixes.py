"""Refuse and fix (notebook 01): name the rule that refused a case, and the one honest change
that would make it acceptable, or say that none exists.

======  =====  ======================================================================
id      level  the refused case
======  =====  ======================================================================
fix-01  2      a 38,400-byte CSV export embedded in the tool result that wrote it
fix-02  2      an inbox listed as a resource, whose every read marks the tickets read
fix-03  2      an on-call status panel that needs current data and holds a stale copy
======  =====  ======================================================================

The answer is ``{"rule": <rejection code>, "change": <one input of the case, or "none">}``. An
input is a *fact* when changing it would make the receipt describe a different world than the
real one (the export really is that large; the read really marks tickets as read; the panel
really needs current data; the host does not grant itself permissions). Every other input is a
*design choice* or an action the host can honestly take (the shape, a fresh read).

Whether a change is honest is decided in one place for the whole lab,
:func:`custody_lab.teaching.capstone.judgement.sound_fix_inputs` (the capstone's rubric and
``capstone-04`` call it too); a scenario only adds the facts its situation states (who asked
for the export, say). The rule is the case's rejection code (:func:`custody_lab.core.router.route`)
and the change is the one input that rule finds, or ``"none"``. A scenario where two inputs would
do is refused when the module loads.
"""

from __future__ import annotations

__all__ = ["CHANGEABLE", "EXERCISES", "SCENARIOS", "FixScenario", "dishonest_fixes", "honest_fixes"]

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...core.model import SHAPES, Case, Policy
from ...core.router import route
from ...core.rules import RULES
from ..capstone.judgement import sound_fix_inputs
from ..exercises import Exercise, ExerciseError, Mistake
from ._changes import code_of

_RULE_CODES = tuple(r.code for r in RULES)

#: The inputs a learner might change, each with the values tried (camelCase, as the case writes
#: them): :func:`dishonest_fixes` tries them to find the tempting changes of a fact.
CHANGEABLE: dict[str, tuple[Any, ...]] = {
    "initiator": ("application", "model"),
    "shape": SHAPES,
    "bytes": (512, Policy().embed_limit_bytes),
    "current": (True, False),
    "requiresCurrent": (True, False),
    "allowed": (True, False),
    "sideEffects": (False, True),
}


@dataclass(frozen=True)
class FixScenario:
    """A refused case, in words and as a case, and which of its inputs are facts.

    Attributes:
        id: the exercise id.
        title: a short heading.
        what: the situation in two or three sentences.
        case: the case as the host declared it (seed keys, camelCase).
        facts: the inputs that state the truth about the world; changing one would be dishonest.
        why_facts: one sentence per fact, used in the hint for changing it.
    """

    id: str
    title: str
    what: str
    case: Mapping[str, Any]
    facts: tuple[str, ...]
    why_facts: Mapping[str, str]

    def as_case(self) -> Case:
        """The case as the host declared it."""
        return Case.from_dict(dict(self.case))

    def rule(self) -> str:
        """The rejection code the router writes (a scenario the router accepts is built wrong)."""
        rejection = route(self.as_case()).rejection
        if rejection is None:
            raise ExerciseError(f"{self.id}: the router accepts this case; a fix exercise needs a refusal")
        return rejection


def _accepted_by_changing(case: Case, key: str) -> bool:
    return any(
        value != case.to_dict().get(key) and route(case.with_changes(**{key: value})).accepted
        for value in CHANGEABLE[key]
    )


def honest_fixes(scenario: FixScenario) -> tuple[str, ...]:
    """The inputs whose honest change alone makes the router accept the case: the lab's one rule
    (:func:`~custody_lab.teaching.capstone.judgement.sound_fix_inputs`) with the scenario's facts.

    Example:
        >>> honest_fixes(SCENARIOS[1]), honest_fixes(SCENARIOS[2])
        ((), ('current',))
    """
    return sound_fix_inputs(scenario.as_case(), Policy(), frozenset(scenario.facts))


def dishonest_fixes(scenario: FixScenario) -> tuple[str, ...]:
    """The inputs whose change alone would make the router accept the case, but not honestly: the
    tempting wrong answers.

    Example:
        >>> dishonest_fixes(SCENARIOS[2])
        ('requiresCurrent',)
    """
    case = scenario.as_case()
    honest = honest_fixes(scenario)
    return tuple(key for key in CHANGEABLE if key not in honest and _accepted_by_changing(case, key))


_COMMON: dict[str, Any] = {"current": True, "allowed": True, "requiresCurrent": False}

SCENARIOS: tuple[FixScenario, ...] = (
    FixScenario(
        "fix-01",
        "An export that does not fit",
        "The model calls the shop's `export_orders` tool for last week's orders. The server writes "
        "a 38,400-byte CSV and returns it embedded in the tool result.",
        {
            **_COMMON,
            "id": "weekly-export",
            "initiator": "model",
            "operation": "generate",
            "shape": "embedded-resource",
            "uri": "exports://orders/2026-W36.csv",
            "mime": "text/csv",
            "bytes": 38400,
            "sideEffects": False,
            "provenance": "export-tool@5",
        },
        ("bytes", "initiator", "sideEffects", "allowed", "current", "requiresCurrent"),
        {
            "bytes": "The export really is that large: a smaller number would hide the refusal, not "
            "fix the design (and the receipt would lie about what entered the context).",
            "initiator": "The model asked for this export; saying the application did would not make it true.",
        },
    ),
    FixScenario(
        "fix-02",
        "An inbox that marks itself read",
        "The host lists the support inbox as a resource and reads it at the start of every "
        "session. The server marks every ticket it returns as read, so each read changes state.",
        {
            **_COMMON,
            "id": "unread-inbox",
            "initiator": "application",
            "operation": "read",
            "shape": "listed-resource",
            "uri": "tickets://inbox/unread",
            "mime": "application/json",
            "bytes": 3100,
            "sideEffects": True,
            "provenance": "ticket-server@2",
        },
        ("sideEffects", "bytes", "allowed", "current", "requiresCurrent"),
        {
            "sideEffects": "Every read really marks the tickets as read: declaring the read free of "
            "side effects would make the receipt lie, and the state would still change.",
        },
    ),
    FixScenario(
        "fix-03",
        "A status panel with an old copy",
        "The on-call panel must show the payment service's current health, so the host asks for "
        "current content. The copy it holds was read before the server announced a change.",
        {
            **_COMMON,
            "id": "payments-health",
            "initiator": "application",
            "operation": "read-subscribed",
            "shape": "listed-resource",
            "uri": "status://payments/health",
            "mime": "application/json",
            "bytes": 420,
            "sideEffects": False,
            "provenance": "status-server@31",
            "current": False,
            "requiresCurrent": True,
        },
        ("requiresCurrent", "bytes", "allowed", "sideEffects", "initiator"),
        {
            "requiresCurrent": "The on-call panel really needs the current state: dropping the "
            "requirement would hide the staleness, not remove it.",
        },
    ),
)


# --------------------------------------------------------------------------------------------
# Reading an answer
# --------------------------------------------------------------------------------------------

_INPUTS = {k.lower(): k for k in (*CHANGEABLE, "uri", "mime", "provenance", "operation", "id")}
_NONE_WORDS = ("none", "no-change", "nothing", "no-honest-change")


def _input_name(value: object) -> str | None:
    """An input as typed (``requires_current``, ``requiresCurrent``, ``side effects``) in the
    case's camelCase, ``"none"`` for no change, the typed text when it is no input, else ``None``."""
    typed = code_of(value)
    if typed is None:
        return None
    if typed.replace(" ", "-") in _NONE_WORDS:
        return "none"
    squashed = typed.replace("-", "").replace(" ", "")
    return _INPUTS.get(squashed, typed)


def _read(answer: object) -> tuple[str | None, str | None] | None:
    if not isinstance(answer, dict):
        return None
    keys = {str(k).strip().lower(): v for k, v in answer.items()}
    if "rule" not in keys or "change" not in keys:
        return None
    return code_of(keys["rule"]), ("none" if keys["change"] is None else _input_name(keys["change"]))


def _matches(answer: object, expected: object) -> bool:
    return isinstance(expected, dict) and _read(answer) == (expected["rule"], expected["change"])


def _when(test: Callable[[tuple[str | None, str | None]], bool]) -> Callable[[object], bool]:
    def detect(answer: object) -> bool:
        got = _read(answer)
        return got is not None and test(got)

    return detect


def _changes_input(name: str) -> Callable[[tuple[str | None, str | None]], bool]:
    """A test on a read answer: its change names this input."""
    return lambda got: got[1] == name


def _mistakes(s: FixScenario, change: str) -> tuple[Mistake, ...]:
    rule = s.rule()
    other_rule = next(c for c in _RULE_CODES if c != rule)
    found = [
        Mistake(
            "not-two-named-labels",
            lambda a: not isinstance(a, dict) or _read(a) is None,
            'Give it as two named labels in a dict: {"rule": "<rejection code>", "change": "<one '
            'input of the case, or none>"}.',
            example=[rule, change],
        ),
        Mistake(
            "another-rule",
            _when(lambda g: g[0] in _RULE_CODES and g[0] != rule),
            "That rule does not refuse this case: route it (input_for gives the case) and read its "
            "trace to find the step that failed.",
            example={"rule": other_rule, "change": change},
        ),
    ]
    for fact, why in s.why_facts.items():
        found.append(
            Mistake(
                f"changed-a-fact-{fact.lower()}",
                _when(_changes_input(fact)),
                why
                + (
                    " Is there a design choice whose change alone would be enough?"
                    if change == "none"
                    else " Which input is a design choice the host or the server can honestly change?"
                ),
                example={"rule": rule, "change": fact},
            )
        )
    if change == "none":
        for key in ("shape", "initiator"):
            found.append(
                Mistake(
                    f"half-a-redesign-{key}",
                    _when(_changes_input(key)),
                    f"Change only the {key} and route the case again: it is still refused. Is there "
                    "any one input whose honest change is enough?",
                    example={"rule": rule, "change": key},
                )
            )
    else:
        found.append(
            Mistake(
                "no-change-where-one-exists",
                _when(lambda g: g[1] == "none"),
                "One input of this case is a design choice or an action the host can take, and "
                "changing it alone makes the router accept the case. Try each input that is not a "
                "fact of the situation.",
                example={"rule": rule, "change": "none"},
            )
        )
    found.append(
        Mistake(
            "not-an-input",
            _when(lambda g: g[1] is not None and g[1] != "none" and g[1] not in _INPUTS.values()),
            "Name the change with one input of the case as the case writes it (shape, bytes, "
            "current, requiresCurrent, allowed, sideEffects, initiator), or none.",
            example={"rule": rule, "change": "the embed limit"},
        )
    )
    return tuple(found)


def _why(s: FixScenario, change: str) -> str:
    """The answer's reason, read from the rule table and the scenario's facts."""
    rule = next(r for r in RULES if r.code == s.rule())
    lies = dishonest_fixes(s)
    lie = f"; changing {' or '.join(lies)} would get it accepted by stating something untrue" if lies else ""
    if change == "none":
        return f"{rule.code} fires because {rule.test}{lie}, and no design choice alone gets the case accepted"
    return (
        f"{rule.code} fires because {rule.test}; {change} is a design choice or an action the host can take, "
        f"not a fact, and changing it alone gets the case accepted{lie}"
    )


def _exercise(s: FixScenario) -> Exercise:
    fixes = honest_fixes(s)
    if len(fixes) > 1:
        raise ExerciseError(f"{s.id}: several honest one-input fixes {fixes}; the exercise needs one or none")
    change = fixes[0] if fixes else "none"
    return Exercise(
        id=s.id,
        title=f"Refuse and fix: {s.title.lower()}",
        why=_why(s, change),
        level=2,
        prompt=(
            f'{s.what} The router refuses the case (`input_for("{s.id}")` is the case as the host '
            "declared it). Which rule refuses it, and which **one** input, honestly changed, would "
            "make it acceptable? An input that states a fact of the situation may not be changed. "
            'If no single honest change exists, say `"none"`. Answer with a dict: '
            '`{"rule": ..., "change": ...}`.'
        ),
        input_label=f"the refused case {s.case['id']}",
        wanted='a dict {"rule": ..., "change": ...}',
        kind="mapping",
        given=lambda: dict(s.case),
        reference=lambda: {"rule": s.rule(), "change": change},
        compare=_matches,
        mistakes=_mistakes(s, change),
        hints=(
            "Route the case first and read the rule that failed. Then ask, input by input: is this a "
            "fact of the situation, or a choice someone made?",
            "Change one non-fact input at a time with case.with_changes(...) and route again: which "
            "one, if any, gets the case accepted?",
        ),
    )


EXERCISES = tuple(_exercise(s) for s in SCENARIOS)
