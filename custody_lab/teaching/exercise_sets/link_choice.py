"""Link-or-embed judgement exercises (notebook 05): size × reuse × a permission of its own × change.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
link-03   2      from which call on is the link ahead on bytes (the lesson's byte
                 count, predicted before it is shown)
link-04   2      a reply draft written by this very call: link or embed?
link-05   3      a small handbook section only managers may read: link or embed?
link-06   3      a small incident status that changes while the reply waits
link-07   3      the caller's own invoice for a closed month: link or embed?
link-08   4      four results of one support turn: a shape for each
========  =====  ===================================================================

The rule is seed 000's ("Choose a link when the payload is large, independently permissioned,
reusable, or likely to change. Choose an embed when the returned bytes are the bounded evidence
needed to interpret this specific execution") with seed 001's size × reuse table, as the advisor
(:func:`custody_lab.core.advisor.advise`) applies it: every reference here is ``advise(...)`` of
the scenario's facts, never a typed-in shape. Both answers occur, and two scenarios are decided by
permission or by change while size and reuse say "embed", so a learner who always answers "link"
fails half of the lesson's link-or-embed exercises (``tests/teaching/exercise_sets/test_link_exercises.py``).

What MCP says and what the lab adds, kept apart (tools, "Resource Links" and "Embedded
Resources", 2025-06-18, 2025-11-25 and 2026-07-28 alike): a tool result may carry either block;
MCP does not say which to choose. The four questions and the 4,096-byte inline budget are the
lab's host policy, taken from the seeds.

Every mistake detector guards the answer's type itself; the gate in ``tests/teaching/test_exercises.py``
proves it.
"""

from __future__ import annotations

__all__ = ["EXERCISES", "NEEDS", "TURN", "advice_for"]

from collections.abc import Mapping
from typing import Any

from ...core.advisor import Advice, advise
from ...core.model import Policy
from ...protocol.link_or_embed import compare_shapes
from ..exercises import Exercise, Mistake
from . import _answers as ans

#: The seed's generated report consulted five times (link-01's facts): link-03 counts its bytes.
_REPORT = {"payload_bytes": 18000, "reuse": 5}
_BUDGET = 4096

#: Each scenario's facts, as the advisor reads them (``input_for`` shows them with the tool).
NEEDS: dict[str, dict[str, Any]] = {
    "link-04": {
        "tool": "draft_reply",
        "uri": "draft://reply/T-501/3",
        "mimeType": "text/plain",
        "payload_bytes": 1150,
        "reuse": 1,
        "separate_permission": False,
        "changes_often": False,
        "inline_budget": _BUDGET,
    },
    "link-05": {
        "tool": "find_policy_section",
        "uri": "hr://handbook/salary-bands",
        "mimeType": "text/markdown",
        "payload_bytes": 900,
        "reuse": 1,
        "separate_permission": True,
        "changes_often": False,
        "inline_budget": _BUDGET,
    },
    "link-06": {
        "tool": "incident_status",
        "uri": "status://incident/7781",
        "mimeType": "application/json",
        "payload_bytes": 420,
        "reuse": 1,
        "separate_permission": False,
        "changes_often": True,
        "inline_budget": _BUDGET,
    },
    "link-07": {
        "tool": "invoice_summary",
        "uri": "invoices://2026-08/A-1002",
        "mimeType": "text/plain",
        "payload_bytes": 1300,
        "reuse": 1,
        "separate_permission": False,
        "changes_often": False,
        "inline_budget": _BUDGET,
    },
}

#: link-08: four results of one support turn (the help article is quoted to four customers).
TURN: dict[str, dict[str, Any]] = {
    "help-article": {"payload_bytes": 2600, "reuse": 4},
    "refund-receipt": {"payload_bytes": 700, "reuse": 1},
    "audit-excerpt": {"payload_bytes": 1200, "reuse": 1, "separate_permission": True},
    "queue-length": {"payload_bytes": 60, "reuse": 1, "validated_fields": True},
}


def advice_for(facts: Mapping[str, Any]) -> Advice:
    """The advisor's answer for one scenario's facts (a model-initiated tool result).

    Example:
        >>> advice_for(NEEDS["link-05"]).shape
        'resource-link'
    """
    return advise(
        "model",
        "calculate" if facts.get("validated_fields") else "generate",
        payload_bytes=int(facts["payload_bytes"]),
        reuse=int(facts.get("reuse", 1)),
        separate_permission=bool(facts.get("separate_permission", False)),
        changes_often=bool(facts.get("changes_often", False)),
        validated_fields=bool(facts.get("validated_fields", False)),
        policy=Policy(embed_limit_bytes=int(facts.get("inline_budget", _BUDGET))),
    )


def _shape_reference(exercise_id: str) -> str | None:
    return advice_for(NEEDS[exercise_id]).shape


_SHAPE_CHOICE = 'Answer with a shape name: `"resource-link"`, `"embedded-resource"` or `"structured-tool-result"`.'


def _said(*shapes: str) -> Any:
    return lambda a: ans.shape_of(a) in shapes


def _not_a_tool_result(what: str) -> Mistake:
    return Mistake(
        "a-resource-not-a-tool-result",
        _said("listed-resource", "templated-resource"),
        f"The model called `{what}`, so its result comes back inside a tool result: a link, an embed "
        "or structured content, not a resource the application lists or templates.",
        example="listed-resource",
    )


def _shape_exercise(
    exercise_id: str, title: str, level: int, situation: str, label: str, hints: tuple[str, str], *mistakes: Mistake
) -> Exercise:
    need = NEEDS[exercise_id]
    return Exercise(
        id=exercise_id,
        title=title,
        why=advice_for(need).reasons[-1],
        level=level,
        prompt=(
            f'{situation} The host\'s inline budget is 4,096 bytes (`input_for("{exercise_id}")` has '
            f"the facts). **Decide first**: which shape should `{need['tool']}` return? {_SHAPE_CHOICE}"
        ),
        input_label=label,
        wanted='a shape name such as "structured-tool-result"',
        kind="text",
        parse="text",
        given=lambda: dict(need),
        reference=lambda: _shape_reference(exercise_id),
        compare=lambda a, e: ans.shape_of(a) == e,
        hints=hints,
        mistakes=(*mistakes, _not_a_tool_result(str(need["tool"]))),
    )


# --------------------------------------------------------------------------------------------
# link-03: the byte count, predicted (notebook 05's main demonstration)
# --------------------------------------------------------------------------------------------


def _break_even() -> int | None:
    return compare_shapes(_REPORT["payload_bytes"], _REPORT["reuse"], _BUDGET).break_even


_LINK_03 = Exercise(
    id="link-03",
    title="From which call on is the link ahead?",
    why=(
        "on the first call both shapes carry the payload once and the link adds its small block; from the "
        "second call on the embed pays the 18,000 bytes again while the client serves the link's repeat from "
        "its cache"
    ),
    level=2,
    prompt=(
        "The same weekly report: 18,000 bytes of HTML, consulted 5 times in one session. An embed "
        "puts the whole payload into context on every call; a link puts a small `resource_link` "
        "block there on every call, plus one `resources/read` of the payload on first use. "
        "**Predict**: from which call on has the link put fewer bytes into context *in total* than "
        "the embed? Answer with the call number (1 to 5), or `'never'`."
    ),
    input_label="an 18,000-byte report, 5 calls, embed every call vs one link block per call plus one fetch",
    wanted="a call number from 1 to 5",
    kind="number",
    reference=_break_even,
    compare=ans.same_number,
    hints=(
        "Write down the running totals call by call: the embed adds the payload each time; the "
        "link adds a small block each time and the payload only once.",
        "After the first call, both shapes have carried the payload once. Which one carried more "
        "besides it? Now add the second call to each.",
    ),
    mistakes=(
        Mistake(
            "the-link-wins-at-once",
            lambda a: ans.whole_number(a) == 1,
            "On the first call both shapes carry the payload once, and the link carries its small "
            "block on top: it is a little behind after call 1. Add the next call to each total.",
            example=1,
        ),
        Mistake(
            "the-link-never-wins",
            lambda a: (ans.code(a) or "") in ("none", "never"),
            "Count the second call: the embed pays the whole 18,000 bytes again, the link only its "
            "small block, because the client serves the repeat from its cache.",
            example="never",
        ),
        Mistake(
            "counted-bytes-not-calls",
            lambda a: (n := ans.number(a)) is not None and n > 5,
            "Answer with the number of the call (1 to 5) from which the link's running total is "
            "smaller, not with a number of bytes.",
            example=18000,
        ),
        Mistake(
            "waited-for-the-last-call",
            lambda a: ans.whole_number(a) in (3, 4, 5),
            "The link's extra cost is one small block per call; the embed's is a whole payload per "
            "repeat. How many repeats does it take for one payload to outweigh a few small blocks?",
            example=5,
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# link-04: a reply draft written by this call (embed: bounded evidence of this execution)
# --------------------------------------------------------------------------------------------

_LINK_04 = _shape_exercise(
    "link-04",
    "A reply draft written by this very call",
    2,
    "The model calls `draft_reply` for ticket T-501. The tool writes a 1,150-byte plain-text reply "
    "and returns it for the user to read once and approve. The draft exists only as this call's "
    "output: the user who asked for it may read it, nobody else reads it, and it never changes (an "
    "edit is a new call and a new draft). The server gives it the URI `draft://reply/T-501/3`.",
    "a 1,150-byte reply draft, used once, no permission of its own, never changing",
    (
        "Ask the four questions one by one: is it over the inline budget? Read more than once? Does "
        "it need a permission the tool call did not already check? Will it change?",
        "A link earns its second round trip when one of those questions says yes. Does any?",
    ),
    Mistake(
        "a-uri-makes-it-a-link",
        _said("resource-link"),
        "Having a URI does not make a link worth it: seed 000 warns against wrapping every small "
        "result in a URI merely to appear traceable. Check size, reuse, permission and change for "
        "this draft: what would a second round trip buy?",
        example="resource-link",
    ),
    Mistake(
        "structured-for-prose",
        _said("structured-tool-result"),
        "Structured content is for fields that code validates (a score, a status). A reply draft is "
        "prose the user reads.",
        example="structured-tool-result",
    ),
)


# --------------------------------------------------------------------------------------------
# link-05: a small section only managers may read (link: decided by permission, not size)
# --------------------------------------------------------------------------------------------

_LINK_05 = _shape_exercise(
    "link-05",
    "A small section only managers may read",
    3,
    "An employee's assistant calls `find_policy_section`, which any employee may call: it searches "
    "the whole HR handbook. For this question it finds the 900-byte section "
    "`hr://handbook/salary-bands`, which the host's gate lets only the managers' role read. The "
    "model reads it once; it changes once a year.",
    "a 900-byte section used once, readable only by managers, returned by a tool any employee may call",
    (
        "Size and reuse are two of the four questions. Which permission allowed the call, and is it "
        "the permission this section needs?",
        "Think about who checks what: an embed arrives inside the tool result; a link is followed "
        "with a read of its own. Where can the host's gate still ask about this caller?",
    ),
    Mistake(
        "small-so-embed",
        _said("embedded-resource"),
        "Size and reuse would allow an embed, but the call was allowed for any employee and the "
        "section is not: an embed hands the bytes over inside the result, before the host's gate "
        "has asked whether this caller may read that URI (seed 000: an embedded resource should be "
        "authorised before embedding). Which shape leaves that question to the gate?",
        example="embedded-resource",
    ),
    Mistake(
        "structured-for-a-section",
        _said("structured-tool-result"),
        "Structured content is for fields code validates. This is a handbook section the model "
        "reads, with an address and a permission of its own.",
        example="structured-tool-result",
    ),
)


# --------------------------------------------------------------------------------------------
# link-06: a status that changes while the reply waits (link: decided by change, not size)
# --------------------------------------------------------------------------------------------

_LINK_06 = _shape_exercise(
    "link-06",
    "A small status that changes while the reply waits",
    3,
    "The model calls `incident_status` to word a reply to a customer about an outage. It returns "
    "420 bytes of JSON for `status://incident/7781`, which the model reads once now. While the "
    "incident is open the on-call engineer updates the status every few minutes, and the reply goes "
    "out only after the next update. Any support agent may read it.",
    "a 420-byte incident status, used once, readable by any agent, updated every few minutes",
    (
        "Size, reuse and permission all look harmless here. What is different about these bytes a "
        "few minutes from now?",
        "An embed is a copy taken at call time. Which shape keeps the address, so the client can "
        "read again or hear that the resource was updated?",
    ),
    Mistake(
        "small-so-embed",
        _said("embedded-resource"),
        "Small and used once would allow an embed, but an embed is a copy frozen at call time: by "
        "the time the reply goes out the status has moved on. Which shape lets the client re-read "
        "it, or hear of the change through notifications/resources/updated?",
        example="embedded-resource",
    ),
    Mistake(
        "structured-for-a-changing-document",
        _said("structured-tool-result"),
        "Structured content is a value returned once, for code to validate; it does not change "
        "afterwards. Here the model words a reply from a status that keeps changing.",
        example="structured-tool-result",
    ),
)


# --------------------------------------------------------------------------------------------
# link-07: the caller's own invoice for a closed month (embed: the permission is the call's)
# --------------------------------------------------------------------------------------------

_LINK_07 = _shape_exercise(
    "link-07",
    "The caller's own invoice for a closed month",
    3,
    "A signed-in customer asks about last month's invoice. The model calls `invoice_summary`, "
    "which serves only the caller's own invoices (the host's gate checked exactly that before the "
    "call), and gets the 1,300-byte summary of `invoices://2026-08/A-1002`. The model quotes it "
    "once. August is closed: an invoice for a past month never changes.",
    "the caller's own 1,300-byte invoice summary for a closed month, quoted once",
    (
        "Customer data sounds sensitive, but the question is narrower: does reading this invoice "
        "need a permission that the check before the call did not already make?",
        "Go through the four questions for this invoice with the facts given: size against 4,096, "
        "how often it is read, which permission it needs, whether it can change.",
    ),
    Mistake(
        "sensitive-so-link",
        _said("resource-link"),
        "A link pays for a second authorisation when the content needs a permission the tool call "
        "did not already check. This tool can return only the caller's own invoices, and a closed "
        "month's invoice does not change. What would the follow-up read add?",
        example="resource-link",
    ),
    Mistake(
        "structured-for-a-quote",
        _said("structured-tool-result"),
        "The model quotes the summary to the customer; no code validates its fields here.",
        example="structured-tool-result",
    ),
)


# --------------------------------------------------------------------------------------------
# link-08: four results of one turn, a shape for each
# --------------------------------------------------------------------------------------------


def _turn_reference() -> dict[str, str | None]:
    return {item: advice_for(facts).shape for item, facts in TURN.items()}


def _turn_answer(answer: object) -> dict[str, str | None] | None:
    """A mapping with exactly the four result ids as keys, its values read as shapes; else ``None``."""
    if not isinstance(answer, Mapping):
        return None
    read = {str(k).strip(): ans.shape_of(v) for k, v in answer.items()}
    return read if set(read) == set(TURN) else None


def _every(shape: str) -> Any:
    return lambda a: (t := _turn_answer(a)) is not None and set(t.values()) == {shape}


def _only_wrong(item: str) -> Any:
    """The answer is right for every result but ``item``."""

    def detect(answer: object) -> bool:
        read, expected = _turn_answer(answer), _turn_reference()
        return (
            read is not None and read[item] != expected[item] and all(read[k] == expected[k] for k in TURN if k != item)
        )

    return detect


_LINK_08 = Exercise(
    id="link-08",
    title="Four results of one support turn",
    why="; ".join(f"{item}: {advice_for(facts).reasons[-1]}" for item, facts in TURN.items()),
    level=4,
    prompt=(
        'In one support shift the model calls four tools (`input_for("link-08")` has the facts; the '
        "inline budget is 4,096 bytes):\n\n"
        "- `help-article`: a 2,600-byte help-centre article the model quotes to 4 customers in turn;\n"
        "- `refund-receipt`: the 700-byte receipt of the refund this very call issued, read once;\n"
        "- `audit-excerpt`: 1,200 bytes of the admin audit log, read once, returned by a tool every "
        "agent may call while only admins may read the log;\n"
        "- `queue-length`: a 60-byte count that the host's escalation code compares with a threshold.\n\n"
        "**Decide first**: which shape should each result take? Answer with a dict from each id to "
        'a shape name, such as `{"help-article": "structured-tool-result", ...}`.'
    ),
    input_label="four tool results: a reused article, a one-off receipt, an admin-only excerpt, a checked count",
    wanted="a dict from the four result ids to shape names",
    kind="mapping",
    given=lambda: {item: dict(facts) for item, facts in TURN.items()},
    reference=_turn_reference,
    compare=lambda a, e: _turn_answer(a) == e,
    hints=(
        "Take the four results one at a time and ask the same four questions of each: over the "
        "budget? reused? a permission of its own? likely to change? Then: does code validate it?",
        "All four are under the inline budget, so size decides none of them. For each, which other question decides?",
    ),
    mistakes=(
        Mistake(
            "linked-everything",
            _every("resource-link"),
            "Not every result earns a link: a link costs a second round trip and buys caching, a "
            "permission check or a later refresh. Which of the four needs none of those?",
            example=dict.fromkeys(TURN, "resource-link"),
        ),
        Mistake(
            "embedded-everything",
            _every("embedded-resource"),
            "All four fit the budget, but size is only one of the questions: one result is read "
            "again and again, one needs a permission the call did not check, one is checked by code.",
            example=dict.fromkeys(TURN, "embedded-resource"),
        ),
        Mistake(
            "missed-the-reuse",
            _only_wrong("help-article"),
            "Look again at the help article: it fits the budget, but how many times does it enter context this shift?",
            example={**_turn_reference(), "help-article": "embedded-resource"},
        ),
        Mistake(
            "missed-the-permission",
            _only_wrong("audit-excerpt"),
            "Look again at the audit excerpt: the tool was open to every agent, the log is not. "
            "Which shape leaves the follow-up read to the host's gate?",
            example={**_turn_reference(), "audit-excerpt": "embedded-resource"},
        ),
        Mistake(
            "linked-the-receipt",
            _only_wrong("refund-receipt"),
            "Look again at the refund receipt: small, read once, about this very call, and it "
            "never changes. What would a link buy for it?",
            example={**_turn_reference(), "refund-receipt": "resource-link"},
        ),
        Mistake(
            "a-document-for-a-checked-value",
            _only_wrong("queue-length"),
            "Look again at the queue length: code compares it with a threshold. Which shape "
            "declares fields for code to validate?",
            example={**_turn_reference(), "queue-length": "embedded-resource"},
        ),
        Mistake(
            "not-the-four-ids",
            lambda a: isinstance(a, Mapping) and _turn_answer(a) is None,
            "Use exactly the four ids as keys: help-article, refund-receipt, audit-excerpt, queue-length.",
            example={"article": "resource-link"},
        ),
        Mistake(
            "one-shape-for-all",
            lambda a: ans.shape_of(a) is not None and ans.shape_of(a) != "",
            "Give a shape for each of the four results, as a dict from id to shape name.",
            example="resource-link",
        ),
    ),
)

#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_LINK_03, _LINK_04, _LINK_05, _LINK_06, _LINK_07, _LINK_08)
