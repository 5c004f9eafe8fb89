"""Routing decisions (notebook 01): predict an outcome, find the rule that fires first, read a trace.

========  =====  =====================================================================
id        level  task
========  =====  =====================================================================
route-01  1      predict: approve-draft at 4097 bytes (one byte over the embed limit)
route-02  1      predict: the handbook marked not current, nothing else changed
route-03  2      a case with two problems: which code goes into the receipt
route-04  2      a refused case's trace: the status of a rule above, at and below the one that fired
========  =====  =====================================================================

route-01 and route-02 are predict-then-check exercises: their ``given`` is a
:class:`~custody_lab.teaching.exercise_sets._changes.CaseChange`, which
:class:`~custody_lab.teaching.predict.PredictPanel` applies to the case explorer after the
learner has written a prediction. Every reference answer is computed by the router
(:func:`custody_lab.core.router.route`) from the seed fixture, never typed in by hand; every
mistake detector guards the answer's type itself (the gate in ``tests/teaching/test_exercises.py``).
"""

from __future__ import annotations

__all__ = ["EXERCISES", "PREDICTIONS"]

import json
from collections.abc import Callable

from ...core.model import SHAPES
from ...core.rules import RULES
from ..exercises import Exercise, Mistake
from ._changes import CaseChange, code_of, outcome_codes, same_code, several_codes

_RULE_CODES = tuple(r.code for r in RULES)
_OUTCOME = "the outcome: the selected shape, or the rejection code"


def _same_outcome(answer: object, expected: object) -> bool:
    """The typed outcome equals the router's; ``accepted`` also counts for an accepted case."""
    typed = code_of(answer)
    return typed == expected or (typed == "accepted" and expected in SHAPES)


def _other_rule(reference: CaseChange) -> Mistake:
    """A rejection code the change did not make true (any rule but the one that fires)."""
    fired = reference.decision().rejection
    return Mistake(
        "a-rule-the-change-did-not-touch",
        lambda a: (c := code_of(a)) in _RULE_CODES and c != fired,
        "That rule tests an input this change did not touch. Read each rule's test in the table "
        "and ask which of them the changed input can make true.",
        example=next(c for c in _RULE_CODES if c != fired),
    )


def _not_an_outcome() -> Mistake:
    return Mistake(
        "not-an-outcome",
        lambda a: (c := code_of(a)) is not None and c not in (*outcome_codes(), "accepted"),
        "Give one outcome exactly as the explorer writes it: a shape from the shapes table, or a "
        "code from the rule table's code column.",
        example="too big",
    )


def _first_rule(change: CaseChange) -> str:
    """Why a changed case gets its code, read from the rule table: the first rule that fires, and its test."""
    code = change.decision().rejection
    place, rule = next((n, r) for n, r in enumerate(RULES, 1) if r.code == code)
    inputs = ", ".join(f"{key} {json.dumps(value)}" for key, value in change.changes.items())
    return f"with {inputs}, rule {place} of the table is the first that fires, because {rule.test}"


# --------------------------------------------------------------------------------------------
# route-01 and route-02: predict, then check
# --------------------------------------------------------------------------------------------

#: The one-input changes the predict panels apply, by exercise id.
PREDICTIONS: dict[str, CaseChange] = {
    "route-01": CaseChange("approve-draft", {"bytes": 4097}),
    "route-02": CaseChange("handbook", {"current": False}),
}

_ROUTE_01 = Exercise(
    id="route-01",
    title="Predict: one byte more",
    why=_first_rule(PREDICTIONS["route-01"]),
    level=1,
    prompt=(
        "The **approve-draft** case embeds a 760-byte draft in the tool result. Change one input: "
        "**bytes** becomes **4097**. Before you press the button, write the outcome you expect: "
        "the selected shape if it is accepted, or the rejection code if it is refused."
    ),
    input_label="approve-draft with bytes 760 → 4097",
    wanted=_OUTCOME,
    parse="text",
    given=lambda: PREDICTIONS["route-01"],
    reference=lambda: PREDICTIONS["route-01"].decision().outcome,
    compare=_same_outcome,
    mistakes=(
        Mistake(
            "thought-it-still-fits",
            lambda a: code_of(a) in ("embedded-resource", "accepted"),
            "Compare 4097 with the policy's embed limit, and read the embed rule's test: is a size "
            "equal to the limit refused, and what about one byte more?",
            example="embedded-resource",
        ),
        Mistake(
            "router-switched-to-a-link",
            lambda a: code_of(a) == "resource-link",
            "The router never changes the declared shape: it accepts the shape the case declares or "
            "refuses it with a code. Recommending a link is the advisor's job (notebook 02).",
            example="resource-link",
        ),
        _other_rule(PREDICTIONS["route-01"]),
        _not_an_outcome(),
    ),
    hints=(
        "Find the embed rule in the table and read its test word by word: which input does it compare, and with what?",
        "Compare the changed size with the policy's embed limit, then ask whether any rule above "
        "the embed rule could fire for this change.",
    ),
)

_ROUTE_02 = Exercise(
    id="route-02",
    title="Predict: stale, but is it refused?",
    why=(
        "stale-content needs two conditions, content that is not current and a case that requires current "
        "content; the handbook does not require it, so no rule fires and the declared shape stands"
    ),
    level=1,
    prompt=(
        "The **handbook** is an application read of a listed resource. Change one input: "
        "**current** becomes **false** (leave **requiresCurrent** as it is). Write the outcome you "
        "expect before you press the button."
    ),
    input_label="handbook with current true → false",
    wanted=_OUTCOME,
    parse="text",
    given=lambda: PREDICTIONS["route-02"],
    reference=lambda: PREDICTIONS["route-02"].decision().outcome,
    compare=_same_outcome,
    mistakes=(
        Mistake(
            "stale-means-refused",
            lambda a: code_of(a) == "stale-content",
            "Read the stale-content rule's test to the end: it has two conditions. Which of them "
            "did this change make true, and who asked for current content?",
            example="stale-content",
        ),
        Mistake(
            "the-shape-moved",
            lambda a: (c := code_of(a)) in SHAPES and c != PREDICTIONS["route-02"].baseline().shape,
            "Neither the address nor the size changed, and the router never swaps the declared shape: "
            "an accepted case keeps the shape it declared.",
            example="templated-resource",
        ),
        _other_rule(PREDICTIONS["route-02"]),
        _not_an_outcome(),
    ),
    hints=(
        "Read the rule about freshness: how many conditions must hold before it refuses a case?",
        "This change touched one input only. Which rules mention that input at all, and does any "
        "of them fire on it alone?",
    ),
)


# --------------------------------------------------------------------------------------------
# route-03: two problems, one code
# --------------------------------------------------------------------------------------------

_TWO_PROBLEMS = CaseChange("handbook", {"allowed": False, "sideEffects": True})


def _first_rejection() -> object:
    return _TWO_PROBLEMS.decision().rejection


_ROUTE_03 = Exercise(
    id="route-03",
    title="Two problems: which rule fires first?",
    why=_first_rule(_TWO_PROBLEMS),
    level=2,
    prompt=(
        "Take the **handbook** and change two inputs: the caller is not allowed to read it "
        "(**allowed** false) and the read changes state (**sideEffects** true). Each change alone "
        "refuses the handbook. Which rejection code goes into the receipt? (The case is "
        '`input_for("route-03").case()`; decide from the rule table first, then route it.)'
    ),
    input_label="the handbook with allowed=false and sideEffects=true",
    wanted="one rejection code",
    parse="text",
    given=lambda: _TWO_PROBLEMS,
    reference=_first_rejection,
    compare=same_code,
    mistakes=(
        Mistake(
            "the-later-rule",
            lambda a: code_of(a) == "resource-mislabeled-side-effect",
            "That rule would fire too, but the router stops at the first rule that fires. Compare "
            "the two rules' places in the order column.",
            example="resource-mislabeled-side-effect",
        ),
        Mistake(
            "both-codes",
            several_codes,
            "A receipt carries one rejection code: the first rule that fires decides, and the rules "
            "after it are not reached.",
            example=["permission-denied", "resource-mislabeled-side-effect"],
        ),
        Mistake(
            "accepted-anyway",
            lambda a: code_of(a) in (*SHAPES, "accepted"),
            "Each of the two changes refuses the handbook on its own, so this case cannot be "
            "accepted: name the code of the refusal.",
            example="listed-resource",
        ),
        _other_rule(_TWO_PROBLEMS),
    ),
    hints=(
        "Write down each rule the two changes make true, then look up their places in the order column.",
        "The router walks the table from the top and stops at the first rule that fires: which of the two comes first?",
    ),
)


# --------------------------------------------------------------------------------------------
# route-04: read a trace
# --------------------------------------------------------------------------------------------

_DENIED = CaseChange("handbook", {"allowed": False})
#: The three rules route-04 asks about: one above the rule that fires, that rule, one below it.
_ASKED = ("side-effects-unknown", "permission-denied", "stale-content")
_STATUSES = ("passed", "failed", "not-reached")


def _statuses() -> dict[str, str]:
    """The status of each asked rule in the denied handbook's trace (the router's own trace)."""
    trace = {s.code: s.status for s in _DENIED.decision().trace}
    return {code: trace[code] for code in _ASKED}


def _typed_statuses(answer: object) -> dict[str, str] | None:
    """A dict answer as ``{rule code: status}``, both read by :func:`code_of`; ``None`` otherwise."""
    if not isinstance(answer, dict):
        return None
    out = {}
    for key, value in answer.items():
        k, v = code_of(key), code_of(value)
        if k is None or v is None:
            return None
        out[k] = v.replace(" ", "-")
    return out


def _same_statuses(answer: object, expected: object) -> bool:
    return _typed_statuses(answer) == expected


def _status_mistake(name: str, test: Callable[[dict[str, str]], bool], hint: str, example: object) -> Mistake:
    return Mistake(name, lambda a: (t := _typed_statuses(a)) is not None and test(t), hint, example=example)


_ROUTE_04 = Exercise(
    id="route-04",
    title="Read a trace: passed, failed or never checked?",
    why=(
        "the rules are checked in order and the first that fires ends the walk: the read is declared free of "
        "side effects, so side-effects-unknown passes; allowed is false, so permission-denied fires; the "
        "rules below it are never evaluated"
    ),
    level=2,
    prompt=(
        "The seed's **denied-handbook** variant is the handbook with **allowed** false. Its trace "
        "lists every rule with a status: `passed` (checked, did not fire), `failed` (the rule fired "
        "and refused the case) or `not-reached` (never evaluated). Give the status of each of these "
        "three rules, as a dict: "
        '`{"side-effects-unknown": ..., "permission-denied": ..., "stale-content": ...}`.'
    ),
    input_label="the trace of the handbook with allowed=false",
    wanted="a dict of three rule codes and their statuses",
    kind="mapping",
    given=lambda: _DENIED,
    reference=_statuses,
    compare=_same_statuses,
    mistakes=(
        _status_mistake(
            "a-later-rule-called-passed",
            lambda t: t.get("stale-content") == "passed",
            "A rule after the one that fired is never evaluated, so it cannot have passed: the router "
            "stops at the first rule that fires.",
            {"side-effects-unknown": "passed", "permission-denied": "failed", "stale-content": "passed"},
        ),
        _status_mistake(
            "an-earlier-rule-called-not-reached",
            lambda t: t.get("side-effects-unknown") == "not-reached",
            "Compare that rule's place in the order column with the rule that fired: the router "
            "checks every rule above it on the way down, and each of them passed or the case would "
            "have been refused there.",
            {"side-effects-unknown": "not-reached", "permission-denied": "failed", "stale-content": "not-reached"},
        ),
        _status_mistake(
            "the-rule-that-fired-called-not-reached",
            lambda t: t.get("permission-denied") in ("not-reached", "passed"),
            "Which rule tests the one input this variant changed? That rule fired: its status says so.",
            {"side-effects-unknown": "passed", "permission-denied": "passed", "stale-content": "not-reached"},
        ),
        _status_mistake(
            "not-a-status",
            lambda t: any(v not in _STATUSES for v in t.values()),
            "Use the trace's own words for each status: passed, failed or not-reached.",
            {"side-effects-unknown": "ok", "permission-denied": "refused", "stale-content": "skipped"},
        ),
        _status_mistake(
            "not-the-three-rules",
            lambda t: set(t) != set(_ASKED),
            "Give exactly the three rules the task names, each with its status.",
            {"permission-denied": "failed"},
        ),
    ),
    hints=(
        "Find the rule that fired for this case first: the rules above it and the rules below it "
        "each share one status.",
        "Read the trace from the top and stop at the rule that fired. For a rule above it: what "
        "must it have said for the router to walk on? For a rule below it: did the router get "
        "there at all?",
    ),
)


EXERCISES = (_ROUTE_01, _ROUTE_02, _ROUTE_03, _ROUTE_04)
