"""Agent-context exercises (notebook 08): what an autonomous agent's prompt may hold, and how.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
agent-01  2      which resources and templates go behind the one ``read_mcp_resource``
                 tool (the rest is prompt context, or not context at all)
agent-02  2      which line of a hostile handover note first tries to end the fence
agent-03  3      complete the receipt: how many bytes of that note entered the prompt
========  =====  ===================================================================

Every reference is computed with the package: agent-01 with
:func:`~custody_lab.live.agent_context.classify_resources` over the lab server's own listing
(:meth:`~custody_lab.live.lab_server.LabServer.listing`), agent-02 and agent-03 with
:func:`~custody_lab.live.fences.fence_lookalikes` and
:func:`~custody_lab.live.fences.neutralise_fences` over
:data:`~custody_lab.live.hostile_server.HANDOVER_NOTE`, the text the hostile server serves at
``notes://handover``. The live layer (and ``mcp``) is imported the first time an answer is
needed, not when the exercises register. Where a rule is the lab's own (the fence rewrite, the
``_meta`` marker for changing content) the prompts say "the lab's host policy".
"""

from __future__ import annotations

__all__: list[str] = ["EXERCISES"]

import functools
from typing import Any

from ..exercises import Exercise, Mistake
from . import _answers as ans

#: The listed resources that are not the answer to agent-01 in one typical way each.
_LEDGER, _LOGO = "state://lab/ledger", "assets://logo.png"


def _same_names(answer: object, expected: object) -> bool:
    names = ans.names(answer)
    return names is not None and isinstance(expected, list) and names == frozenset(expected)


# --------------------------------------------------------------------------------------------
# agent-01: what goes behind the read tool
# --------------------------------------------------------------------------------------------


@functools.cache
def _placements() -> tuple[Any, ...]:
    from ...live.agent_context import classify_resources  # mcp, loaded on first use
    from ...live.lab_server import LabServer

    return classify_resources(*LabServer().listing())


def _listing() -> list[dict[str, Any]]:
    """The lab server's listing as a learner reads it: URI or template, type, description, _meta."""
    from ...live.lab_server import LabServer

    resources, templates = LabServer().listing()
    rows = [
        {"uri": r.uri, "mimeType": r.mime_type, "description": r.description, "_meta": dict(r.meta or {})}
        for r in resources
    ]
    rows += [{"uriTemplate": t.uri_template, "mimeType": t.mime_type, "description": t.description} for t in templates]
    return rows


def _behind_the_tool() -> list[str]:
    return sorted(p.target for p in _placements() if p.where == "read tool")


def _where(where: str) -> frozenset[str]:
    return frozenset(p.target for p in _placements() if p.where == where)


def _templates_only() -> frozenset[str]:
    return frozenset(p.target for p in _placements() if p.kind == "template")


def _detect_names(test: Any) -> Any:
    def detect(answer: object) -> bool:
        names = ans.names(answer)
        return names is not None and bool(test(names))

    return detect


_AGENT_01 = Exercise(
    id="agent-01",
    title="Prompt context or read on demand?",
    why=(
        "seed 003: only static resources, a known URI with fixed content, go into the system prompt; a "
        "template names no single URI and the status changes during incidents, while the ledger is not "
        "context at all"
    ),
    level=2,
    prompt=(
        'An autonomous agent starts from the lab server\'s listing (`input_for("agent-01")`: '
        "each listed resource with its `uri`, each template with its `uriTemplate`). Seed 003 puts "
        "*static* resources in the system prompt, read once, and everything else behind the one "
        "`read_mcp_resource` tool. Static means a known URI **and** fixed content. The state "
        "ledger is for observing side effects, not context. Which URIs and templates go **behind "
        'the tool**? Answer with a list of strings, e.g. `["a://x", "b://{y}"]`.'
    ),
    input_label="the lab server's resources/list and resources/templates/list",
    wanted="a list of URIs and URI templates",
    kind="list",
    given=_listing,
    reference=_behind_the_tool,
    compare=_same_names,
    mistakes=(
        Mistake(
            "only-the-templates",
            _detect_names(lambda names: names == _templates_only()),
            "A known URI is only half of 'static'. Read the descriptions and the _meta of the "
            "listed resources: is there one whose content changes while the agent runs? Read once "
            "into the prompt, it would go stale.",
            example=["crm://customer/{id}"],
        ),
        Mistake(
            "included-the-ledger",
            _detect_names(lambda names: _LEDGER in names),
            "The state ledger is not context for the model at all: it exists so the client can "
            "observe side effects by its digest. Leave it out of both places.",
            example=["state://lab/ledger", "crm://customer/{id}"],
        ),
        Mistake(
            "binary-behind-the-tool",
            _detect_names(lambda names: _LOGO in names),
            "The logo's URI and content are both fixed, so it is static. A binary resource is "
            "referenced by its URI in the prompt (a text prompt cannot carry a PNG); a tool would "
            "not make it readable as text either.",
            example=["assets://logo.png", "crm://customer/{id}"],
        ),
        Mistake(
            "static-documents-behind-the-tool",
            _detect_names(lambda names: bool(names & (_where("system prompt") - {_LOGO}))),
            "That puts a static document behind the tool too. Seed 003 places fixed content in "
            "the prompt once (zero tool calls); only what cannot be resolved up front, or would "
            "not stay true, waits for the model to ask.",
            example=["kb://handbook/v4", "status://service/current", "crm://customer/{id}"],
        ),
    ),
    hints=(
        "Sort each entry by two questions: is its URI known before the conversation, and does its content stay fixed?",
        "An entry goes behind the tool when either answer is no; the ledger is no context at all.",
    ),
)


# --------------------------------------------------------------------------------------------
# agent-02: the line that tries to leave the fence
# --------------------------------------------------------------------------------------------


def _note() -> str:
    from ...live.hostile_server import HANDOVER_NOTE

    return HANDOVER_NOTE


def _numbered_note() -> str:
    return "\n".join(f"{i:>2} | {line}" for i, line in enumerate(_note().split("\n"), start=1))


@functools.cache
def _lookalikes() -> tuple[Any, ...]:
    from ...live.fences import fence_lookalikes

    return fence_lookalikes(_note())


def _first_closing_line() -> int:
    return next(f.line for f in _lookalikes() if f.kind == "closing")


def _second_closing_line() -> int:
    return [f.line for f in _lookalikes() if f.kind == "closing"][1]


def _first_opening_line() -> int:
    return next(f.line for f in _lookalikes() if f.kind == "opening")


def _first_order_line() -> int:
    return next(i for i, line in enumerate(_note().split("\n"), start=1) if line.startswith("SYSTEM:"))


def _is_line(line: Any) -> Any:
    return lambda answer: ans.same_number(answer, line())


_AGENT_02 = Exercise(
    id="agent-02",
    title="Which line tries to leave the fence?",
    why=(
        "the first line holding a closing-fence look-alike (any letter case, spaces inside) is where the "
        "model would believe the data ended; the lines before it are the note itself"
    ),
    level=2,
    prompt=(
        'The hostile server\'s `notes://handover` is a shift note (`input_for("agent-02")` prints '
        "it with line numbers). The agent context places it inside a `<context …>` … `</context>` "
        "fence. Which line is the **first** that, left as it is, would make the model believe the "
        "data ended before the note did? Answer with its line number (the first line is 1)."
    ),
    input_label="the text of notes://handover, lines numbered from one",
    wanted="a line number (a whole number, counted from one)",
    kind="number",
    given=_numbered_note,
    reference=_first_closing_line,
    compare=ans.same_number,
    mistakes=(
        Mistake(
            "the-orders-line",
            _is_line(_first_order_line),
            "That line gives orders, but inside an intact fence an order is only data the model "
            "reads. Look above it: which line would first end the fence, so that the orders "
            "stand outside it?",
            example=15,
        ),
        Mistake(
            "the-forged-opening",
            _is_line(_first_opening_line),
            "That line forges a new fence (with a provenance it cannot have). A second fence can "
            "only open once the real one has been closed: the line you want comes before it.",
            example=14,
        ),
        Mistake(
            "counted-from-zero",
            lambda a: ans.same_number(a, _first_closing_line() - 1),
            "Count the lines from one, as the printed numbers do: the first line is line 1.",
            example=12,
        ),
        Mistake(
            "missed-the-spaced-tag",
            lambda a: ans.same_number(a, _second_closing_line()),
            "That one closes a fence, but an earlier line does too: a reader (and the lab's host "
            "policy) takes a tag in mixed letter case, with a space before its '>', as the same tag.",
            example=17,
        ),
    ),
    hints=(
        "Read the note as the model would: where does it first look as if the `<context …>` block has ended?",
        "A closing tag counts whatever its letter case or spacing; the first such line is the one.",
    ),
)


# --------------------------------------------------------------------------------------------
# agent-03: complete the receipt — how many bytes entered the prompt
# --------------------------------------------------------------------------------------------


def _arrived_bytes() -> int:
    return len(_note().encode("utf-8"))


def _entered_bytes() -> int:
    from ...live.fences import neutralise_fences

    return len(neutralise_fences(_note())[0].encode("utf-8"))


def _entered_characters() -> int:
    from ...live.fences import neutralise_fences

    return len(neutralise_fences(_note())[0])


def _case_sensitive_bytes() -> int:
    """What a rewrite of only the exact lower-case ``<context`` / ``</context`` would give."""
    note = _note()
    return _arrived_bytes() + 3 * (note.count("<context") + note.count("</context"))


_AGENT_03 = Exercise(
    id="agent-03",
    title="Complete the receipt: what entered the prompt",
    why=(
        "the host rewrites the < of each fence look-alike as &lt;, three bytes more each time, so the bytes "
        "that entered are the note's UTF-8 bytes plus three per rewrite"
    ),
    level=3,
    prompt=(
        "Seed 000: if content is transformed, record the transform as a new step, and a receipt "
        "says what bytes entered context. The lab's host policy rewrites the `<` of every fence "
        "look-alike (any letter case, spaces inside) as `&lt;` before the note enters the prompt. "
        "The note arrives as UTF-8 text. Predict the `bytes` of the `fence-neutralised` transform "
        "step in its receipt: how many bytes of the note entered the prompt? (The budget is large "
        "enough that nothing is cut.)"
    ),
    input_label="the text of notes://handover",
    wanted="a number of bytes (a whole number)",
    kind="number",
    given=_note,
    reference=_entered_bytes,
    compare=ans.same_number,
    mistakes=(
        Mistake(
            "the-arrived-bytes",
            lambda a: ans.same_number(a, _arrived_bytes()),
            "That is what arrived (the receipt's custody bytes). The rewrite changed the text "
            "before it entered the prompt: each '<' written '&lt;' is three bytes longer.",
            example=766,
        ),
        Mistake(
            "counted-characters",
            lambda a: ans.same_number(a, _entered_characters()),
            "That counts characters. Receipts count UTF-8 bytes, and this note has characters "
            "outside ASCII (the dash in its title takes three bytes).",
            example=773,
        ),
        Mistake(
            "only-exact-lowercase-tags",
            lambda a: ans.same_number(a, _case_sensitive_bytes()),
            "You rewrote only the tags spelled exactly '<context' or '</context'. The host "
            "matches look-alikes in any letter case and with spaces inside: count them all.",
            example=769,
        ),
    ),
    hints=(
        "Start from the bytes that arrived, then add what the rewrite adds for each look-alike it neutralises.",
        "Count every fence look-alike (opening and closing, any case, spaces inside); each `<` "
        "becomes four characters, `&lt;`.",
    ),
)


EXERCISES: tuple[Exercise, ...] = (_AGENT_01, _AGENT_02, _AGENT_03)
