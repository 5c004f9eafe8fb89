"""Context that flows the other way (notebook 09): consent, secrets, caching, tasks, presentation.

========  =====  =========================================================================
id        level  task
========  =====  =========================================================================
flows-01  2      the person cancels the confirmation of ``delete_note`` (note 7): the receipt's
                 outcome
flows-02  2      the session holds an accept for deleting note 7; the model asks to delete
                 note 8: what the host sends back
flows-03  2      five forms: which ones the lab's host declines unshown (a secret in form mode)
flows-04  2      a read completed in two steps whose final result claims a day, ``public``:
                 what may be cached
flows-05  1      a task created, produced and fetched at three times: which time is its freshness
flows-06  2      a ``ui://`` page's "Approve" button, an icon, the model, the person answering
                 the elicitation: which can approve the deletion
========  =====  =========================================================================

Every reference is computed by the package: the exchanges run against ``LabServer(flows=True)``
in this process (once per kernel), the forms go through
:func:`~custody_lab.live.elicitation.asks_for_secret`, the caching and freshness answers through
the receipt builders of :mod:`~custody_lab.live.flow_receipts`. Every statement names MCP 2026-07-28
(or the revision given); what the host does beyond the specification is the lab's host policy.
"""

from __future__ import annotations

__all__ = [
    "APPROVERS",
    "CACHE_OPTIONS",
    "EXERCISES",
    "FORMS",
    "FRESHNESS_OPTIONS",
    "HOST_SENDS",
    "delete_outcome",
    "sent_for_note_8",
]

import functools
from collections.abc import Callable, Mapping
from typing import Any

from ..exercises import Exercise, Mistake
from . import _answers as ans
from .live import run_exchange

_DANA = {"person": "Dana Ruiz"}


def _run_delete(action: str | None, note_id: str = "7") -> tuple[str, str | None, bool]:
    """Delete ``note_id`` on a fresh flows server with Dana's answer ``action`` for note 7 (``None``:
    nobody answered): ``(outcome, the action the host sent, whether the note is gone)``."""
    from ...live.elicitation import Answer
    from ...live.lab_server import LabServer
    from ...live.session import LabSession

    async def exchange() -> tuple[str, str | None, bool]:
        content = {"confirm": True} if action == "accept" else None
        answers = [] if action is None else [Answer("delete_note", action, _DANA, content, {"note_id": "7"})]  # type: ignore[arg-type]
        lab = LabServer(flows=True)
        async with LabSession(lab, answers=answers, timeout=5.0) as s:
            receipt = await s.call("delete_note", {"note_id": note_id})
        sent = receipt.receipt.get("exchange", {}).get("elicitation")
        return receipt.outcome, sent, note_id in lab.state.deleted_notes

    return run_exchange(exchange)


@functools.cache
def delete_outcome(action: str | None) -> tuple[str, str | None, bool]:
    """The outcome of deleting note 7 when Dana answered ``action`` (``None``: nobody answered).

    Example:
        >>> delete_outcome("accept")
        ('structured-tool-result', 'accept', True)
    """
    return _run_delete(action)


@functools.cache
def sent_for_note_8() -> str:
    """What the host sends back when the model asks to delete note 8 and only note 7 was answered.

    Example:
        >>> sent_for_note_8()
        'decline'
    """
    from ...live.elicitation import Answer
    from ...live.lab_server import LabServer
    from ...live.session import LabSession

    async def exchange() -> str:
        answers = [Answer("delete_note", "accept", _DANA, {"confirm": True}, {"note_id": "7"})]
        async with LabSession(LabServer(flows=True), answers=answers, timeout=5.0) as s:
            await s.call("delete_note", {"note_id": "8"})
            return str(s.desk.log[-1]["sent"]["action"])

    return run_exchange(exchange)


def _code(answer: object) -> str | None:
    return ans.code(answer)


def _picked(*codes: str) -> Callable[[object], bool]:
    return lambda answer: _code(answer) in codes


def _options(options: tuple[ans.Option[Any], ...]) -> str:
    return "\n".join(f"- `{o.code}`: {o.text}" for o in options)


# --------------------------------------------------------------------------------------------
# flows-01: cancel is not yes
# --------------------------------------------------------------------------------------------

_FLOWS_01 = Exercise(
    id="flows-01",
    title="Dana closes the dialog",
    why=(
        "delete_note changes state and the person did not accept (cancel is 'dismissed without choosing', "
        "MCP 2026-07-28): the server leaves the note and the host refuses the exchange as consent-not-given"
    ),
    level=2,
    prompt=(
        "The model proposes `delete_note` with `{'note_id': '7'}`. The server answers `input_required` with "
        "a form-mode elicitation: *Delete note 7? This cannot be undone.* The host shows it to Dana Ruiz, "
        "who closes the dialog without choosing; the host sends `cancel` and the client retries. "
        "Predict the receipt's outcome: a shape or a rejection code, as text."
    ),
    input_label="delete_note(note_id='7'), the person answered cancel",
    wanted="a shape or a rejection code, as text",
    parse="text",
    kind="code",
    reference=lambda: delete_outcome("cancel")[0],
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "cancel-is-not-no",
            _picked("structured-tool-result"),
            "Only `accept` is the person's yes. `decline` says no and `cancel` says nothing; which of the "
            "three lets a call that changes state run?",
            example="structured-tool-result",
        ),
        Mistake(
            "server-failed",
            _picked("tool-error", "server-error"),
            "The server did not fail: it answered the retry normally. Look at what the person sent and what "
            "kind of call this is.",
            example="tool-error",
        ),
        Mistake(
            "secret-form",
            _picked("secret-asked-in-form"),
            "Read the form's one field: does it ask for a password, a key, a token or a card?",
            example="secret-asked-in-form",
        ),
    ),
    hints=(
        "Look at two facts: whether the call changes state, and which of accept, decline, cancel the host sent.",
        "The live rules have one that reads exactly those two facts.",
    ),
)


# --------------------------------------------------------------------------------------------
# flows-02: an answer answers one request
# --------------------------------------------------------------------------------------------

HOST_SENDS: tuple[ans.Option[str], ...] = (
    ans.Option("accept", "accept, with `confirm: true`: Dana already said yes to a deletion", lambda s: s == "accept"),
    ans.Option("decline", "decline: nobody answered this request", lambda s: s == "decline"),
    ans.Option("cancel", "cancel: the host dismisses it for her", lambda s: s == "cancel"),
    ans.Option("ask-the-model", "whatever the model says to send", lambda s: False),
)

_FLOWS_02 = Exercise(
    id="flows-02",
    title="Yes to note 7, then note 8",
    why=(
        "Dana's accept names delete_note with note_id 7; a request about note 8 is another request, and "
        "the lab's host never answers for the user: it declines"
    ),
    level=2,
    prompt=(
        "Earlier in the session Dana Ruiz accepted *Delete note 7?* and the host recorded her answer for "
        "`delete_note` with `{'note_id': '7'}`. Now the model proposes `delete_note` with "
        "`{'note_id': '8'}` and the server asks *Delete note 8?*. Dana is away. What does the lab's host "
        "send back? Answer with the code of one option, as text.\n\n" + _options(HOST_SENDS)
    ),
    input_label="delete_note(note_id='8') with only note 7's answer on record",
    wanted="the code of one option, as text",
    parse="text",
    reference=lambda: ans.the_one("flows-02", HOST_SENDS, sent_for_note_8()),
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "one-yes-for-all",
            _picked("accept"),
            "An accept approves the one interaction it answered (MCP 2026-07-28): that tool with those "
            "arguments. Is this the same request?",
            example="accept",
        ),
        Mistake(
            "model-answers",
            _picked("ask-the-model"),
            "The model proposed the deletion; letting it answer the confirmation would approve its own "
            "proposal. Who may answer an elicitation?",
            example="ask-the-model",
        ),
        Mistake(
            "cancel-for-her",
            _picked("cancel"),
            "Cancel means a person dismissed the request. Nobody did anything here: what does the host "
            "say when nobody answered?",
            example="cancel",
        ),
        *ans.one_option_mistakes([o.code for o in HOST_SENDS], many="accept, decline", other="yes"),
    ),
    hints=(
        "Compare the arguments Dana answered with the arguments of this request.",
        "The lab's host sends only what a person answered for that request; otherwise it says no.",
    ),
)


# --------------------------------------------------------------------------------------------
# flows-03: which forms ask for a secret
# --------------------------------------------------------------------------------------------


def _form(message: str, **properties: Mapping[str, Any]) -> dict[str, Any]:
    return {"mode": "form", "message": message, "requestedSchema": {"type": "object", "properties": properties}}


#: Five forms a server might send (flows-03), by letter.
FORMS: dict[str, dict[str, Any]] = {
    "A": _form("Archive note 7 as well?", archive={"type": "boolean"}),
    "B": _form("Connect your repository", github_token={"type": "string", "title": "Token"}),
    "C": _form("Which report format?", format={"type": "string", "enum": ["pdf", "html"]}),
    "D": _form("Unlock the vault", pin={"type": "string", "description": "4 digits"}),
    "E": _form("Where should we send the export?", email={"type": "string", "format": "email"}),
}


def _secret_forms() -> list[str]:
    from ...live.elicitation import asks_for_secret

    return [letter for letter, form in FORMS.items() if asks_for_secret(form) is not None]


def _letters(answer: object) -> frozenset[str] | None:
    found = ans.names(answer)
    return None if found is None else frozenset(n.upper() for n in found)


def _forms_prompt() -> str:
    rows = []
    for letter, form in FORMS.items():
        fields = ", ".join(
            f"`{name}`"
            + (
                f" ({spec.get('title') or spec.get('description')})"
                if spec.get("title") or spec.get("description")
                else ""
            )
            for name, spec in form["requestedSchema"]["properties"].items()
        )
        rows.append(f"- **{letter}**: *{form['message']}*, field {fields}")
    return "\n".join(rows)


_FLOWS_03 = Exercise(
    id="flows-03",
    title="Which forms may not be shown?",
    why=(
        "MCP 2026-07-28 forbids form mode for passwords, API keys, access tokens and payment credentials; "
        "a token and a PIN are such secrets, an email address and a yes/no are not"
    ),
    level=2,
    prompt=(
        "Five servers each send one form-mode elicitation. Which ones does the lab's host decline "
        "unshown, because they ask for a secret that belongs in URL mode? Answer with the list of "
        'letters, e.g. `["A", "C"]`.\n\n' + _forms_prompt()
    ),
    input_label="five form-mode elicitations",
    wanted="a list of letters",
    reference=_secret_forms,
    compare=lambda a, e: _letters(a) is not None and _letters(a) == _letters(e),
    kind="list",
    mistakes=(
        Mistake(
            "refuse-everything",
            lambda a: (found := _letters(a)) is not None and len(found) >= 4,
            "A host that declines every form leaves the user no say; decline only what must not travel "
            "through the client.",
            example=["A", "B", "C", "D", "E"],
        ),
        Mistake(
            "personal-is-secret",
            lambda a: "E" in (_letters(a) or ()),
            "An email address is personal data, and a form may ask for it (the person can decline); the "
            "specification names passwords, API keys, tokens and payment credentials.",
            example=["B", "D", "E"],
        ),
        Mistake(
            "missed-the-pin",
            lambda a: (found := _letters(a)) is not None and "B" in found and "D" not in found,
            "Read form D's field again: what does a PIN unlock?",
            example=["B"],
        ),
        Mistake(
            "missed-the-token",
            lambda a: (found := _letters(a)) is not None and "D" in found and "B" not in found,
            "Read form B's field name and title: what is a GitHub token?",
            example=["D"],
        ),
    ),
    hints=(
        "For each form, read the field names, titles and descriptions: what would the person type?",
        "Ask whether that value, once typed, lets someone act as the person somewhere else.",
    ),
)


# --------------------------------------------------------------------------------------------
# flows-04: what may be cached after a two-step read
# --------------------------------------------------------------------------------------------

CACHE_OPTIONS: tuple[ans.Option[Mapping[str, Any]], ...] = (
    ans.Option(
        "neither",
        "neither the first result nor the final one",
        lambda b: not b["firstResult"]["cacheable"] and not b["finalResult"]["cached"],
    ),
    ans.Option(
        "final-for-a-day",
        "the final result, for the day it claims",
        lambda b: not b["firstResult"]["cacheable"] and b["finalResult"]["cached"],
    ),
    ans.Option("first-only", "the first (`input_required`) result", lambda b: b["firstResult"]["cacheable"]),
    ans.Option("both", "both, each for the day the final result claims", lambda b: False),
)


def _two_step_block() -> Mapping[str, Any]:
    from ...live.flow_receipts import input_required_block

    entry = {
        "key": "region",
        "shown": {"mode": "form", "message": "Which region's price list?", "fields": ["region"]},
        "secret": None,
        "sent": {"action": "accept", "content": {"region": "EU"}},
        "answeredBy": _DANA,
        "why": "answered by a person",
    }
    return input_required_block([entry], {"ttlMs": 86_400_000, "cacheScope": "public"})


_FLOWS_04 = Exercise(
    id="flows-04",
    title="A day's freshness after a question",
    why=(
        "an input_required result is not cacheable, and a result reached by a retry carrying inputResponses "
        "or requestState MUST NOT be cached whatever ttlMs it claims (MCP 2026-07-28, caching)"
    ),
    level=2,
    prompt=(
        "A client reads `prices://list/current`. The server first answers `input_required` (a form: "
        "*Which region's price list?*); Dana answers `EU`, and the retry gets the price list with "
        '`"ttlMs": 86400000, "cacheScope": "public"`. What may the client keep in its response cache '
        "for this read? Answer with the code of one option, as text.\n\n" + _options(CACHE_OPTIONS)
    ),
    input_label="resources/read prices://list/current, completed in two steps",
    wanted="the code of one option, as text",
    parse="text",
    reference=lambda: ans.the_one("flows-04", CACHE_OPTIONS, _two_step_block()),
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "trusted-the-ttl",
            _picked("final-for-a-day"),
            "The day is the server's claim about the price list, but the cache key is the URI alone: "
            "would the next reader, who never answered EU, get Dana's region?",
            example="final-for-a-day",
        ),
        Mistake(
            "cached-the-question",
            _picked("first-only", "both"),
            "The first result is a question, not content: what would serving it from a cache do to the next read?",
            example="first-only",
        ),
        *ans.one_option_mistakes([o.code for o in CACHE_OPTIONS], many="neither, both", other="ttlMs"),
    ),
    hints=(
        "Ask what the final result depended on that the cache key (the URI) does not hold.",
        "The caching page of MCP 2026-07-28 treats both steps of such an exchange the same way.",
    ),
)


# --------------------------------------------------------------------------------------------
# flows-05: a deferred result's freshness
# --------------------------------------------------------------------------------------------

FRESHNESS_OPTIONS: tuple[ans.Option[Mapping[str, Any]], ...] = (
    ans.Option("created", "10:00:00, when the task was created", lambda t: t["freshnessFrom"] == "createdAt"),
    ans.Option("produced", "10:00:05, when the export was produced", lambda t: t["freshnessFrom"] == "producedAt"),
    ans.Option("fetched", "10:03:00, when the client fetched it", lambda t: t["freshnessFrom"] == "fetchedAt"),
)


def _task() -> Mapping[str, Any]:
    from ...live.flow_receipts import task_block

    entry = {
        "created": {"taskId": "task-4", "createdAt": "2026-12-07T10:00:00Z"},
        "polls": ["working", "completed"],
        "final": {"status": "completed", "lastUpdatedAt": "2026-12-07T10:00:05Z"},
    }
    return task_block(entry, "2026-12-07T10:03:00Z")


_FLOWS_05 = Exercise(
    id="flows-05",
    title="When is a deferred export fresh from?",
    why="a deferred result is as fresh as the moment it was produced (the completed task's lastUpdatedAt)",
    level=1,
    prompt=(
        '`export_orders` answers `resultType: "task"` (the tasks extension, MCP 2026-07-28). The task '
        "was created at 10:00:00, `tasks/get` found it `completed` with `lastUpdatedAt` 10:00:05, and "
        "the client fetched that result at 10:03:00. From which moment is the export's content current? "
        "Answer with the code of one option, as text.\n\n" + _options(FRESHNESS_OPTIONS)
    ),
    input_label="a task created 10:00:00, completed 10:00:05, fetched 10:03:00",
    wanted="the code of one option, as text",
    parse="text",
    reference=lambda: ans.the_one("flows-05", FRESHNESS_OPTIONS, _task()),
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "fetched-is-fresh",
            _picked("fetched"),
            "Fetching copies what was made earlier; nothing was read from the orders at 10:03:00.",
            example="fetched",
        ),
        Mistake(
            "created-is-fresh",
            _picked("created"),
            "At creation the task had only started; when did the export read the orders?",
            example="created",
        ),
        *ans.one_option_mistakes([o.code for o in FRESHNESS_OPTIONS], many="created, produced", other="10:00"),
    ),
    hints=(
        "Ask when the content was read from its source, not when the request was made or answered.",
        "A completed task's lastUpdatedAt is when it reached that state.",
    ),
)


# --------------------------------------------------------------------------------------------
# flows-06: who can approve
# --------------------------------------------------------------------------------------------


def _approval_facts() -> tuple[str, str]:
    """The deletion's outcome with nobody answering (a page was clicked) and with Dana's accept."""
    return delete_outcome(None)[0], delete_outcome("accept")[0]


APPROVERS: tuple[ans.Option[tuple[str, str]], ...] = (
    ans.Option(
        "page-button",
        "the `ui://` page's *✅ Approve deleting note 7* button, which Dana clicked",
        lambda o: o[0] != "consent-not-given",  # the click alone (nobody answering) would have deleted it
    ),
    ans.Option("icon", "the tool's icon, a green tick", lambda o: False),
    ans.Option(
        "elicitation-answer",
        "Dana's `accept` to the server's *Delete note 7?* elicitation, sent by the host",
        lambda o: o[0] == "consent-not-given" and o[1] != "consent-not-given",
    ),
    ans.Option("model", "the model, which proposed the deletion", lambda o: False),
)

_FLOWS_06 = Exercise(
    id="flows-06",
    title="The page that says Approve",
    why=(
        "an MCP Apps page and an icon are server-supplied presentation the host renders in a sandbox; "
        "only the person's answer, sent by the host, is an approval on the wire"
    ),
    level=2,
    prompt=(
        "`show_notes` points at `ui://notes/panel.html` (MCP Apps, `text/html;profile=mcp-app`); the "
        "host renders it in a sandboxed frame, and Dana clicks its *✅ Approve deleting note 7* button. "
        "Then the model proposes `delete_note` for note 7. Which of these can approve the deletion? "
        "Answer with the code of one option, as text.\n\n" + _options(APPROVERS)
    ),
    input_label="the notes panel, its icon, the model and the elicitation for note 7",
    wanted="the code of one option, as text",
    parse="text",
    reference=lambda: ans.the_one("flows-06", APPROVERS, _approval_facts()),
    compare=lambda a, e: _code(a) == e,
    mistakes=(
        Mistake(
            "the-page-approved",
            _picked("page-button"),
            "The page is the server's HTML in the host's sandbox; its button can send the host a message, "
            "but who wrote the button, and what record does the host keep of a person's yes?",
            example="page-button",
        ),
        Mistake(
            "the-icon-approved",
            _picked("icon"),
            "An icon is an image the server names (MCP 2025-11-25 and later): presentation, never a decision.",
            example="icon",
        ),
        Mistake(
            "the-model-approved",
            _picked("model"),
            "The model proposed the call; proposing is not approving (seed 000 keeps the actors apart).",
            example="model",
        ),
        *ans.one_option_mistakes([o.code for o in APPROVERS], many="icon, model", other="Dana"),
    ),
    hints=(
        "Ask which of these the host itself records as a person's answer to this request.",
        "Everything a server draws stays inside the presentation boundary of notebook 08.",
    ),
)


EXERCISES: tuple[Exercise, ...] = (_FLOWS_01, _FLOWS_02, _FLOWS_03, _FLOWS_04, _FLOWS_05, _FLOWS_06)
