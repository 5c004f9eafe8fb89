"""Authorise-before-embedding exercises (notebook 05): an embed the caller may not read.

=============  =====  ===============================================================
id             level  task
=============  =====  ===============================================================
authorise-01   2      the user approved the tool call; its result embeds another
                      customer's record: which rejection code does the receipt carry
authorise-02   3      whose policy failed, and what happens to the bytes
=============  =====  ===============================================================

Both references are computed by :func:`custody_lab.protocol.budgets.authorise_embed`, which
routes the embed through the one rule table. What is MCP's and what is the lab's, kept apart: a
tool result may carry an embedded ``resource`` (tools, "Embedded Resources", 2025-06-18 through
2026-07-28), and the tools specification's Security Considerations say servers MUST implement
proper access controls; that the host withholds the bytes and writes ``permission-denied`` is the
lab's host policy (seed 000: "An embedded resource should be authorized before embedding").

The re-read refused after permission is revoked is the same gate at a later boundary; it is
taught in notebook 07 and checked by ``live-01``, not repeated here.
"""

from __future__ import annotations

__all__ = ["CALLER_RECORD", "EMBEDDED_URI", "EXERCISES", "TOOL", "caller_may_read", "embed_block", "embed_verdict"]

import functools
import json
from typing import Any

from ...core.model import SHAPES
from ...protocol.budgets import EmbedVerdict, authorise_embed
from ..exercises import Exercise, Mistake
from . import _answers as ans

#: The tool the user approved, the record its caller may read, and the record it embedded.
TOOL = "summarize_ticket"
CALLER_RECORD = "crm://customer/fixture-17"
EMBEDDED_URI = "crm://customer/fixture-99"


def caller_may_read(uri: str) -> bool:
    """The support agent's gate: of the customer records, only its own customer's.

    Example:
        >>> caller_may_read(CALLER_RECORD), caller_may_read(EMBEDDED_URI), caller_may_read("kb://shipping")
        (True, False, True)
    """
    return uri == CALLER_RECORD or not uri.startswith("crm://customer/")


def embed_block() -> dict[str, Any]:
    """What ``summarize_ticket`` returned: another customer's record, embedded."""
    record = {"id": "fixture-99", "name": "Another customer", "email": "someone@example.test", "tier": "gold"}
    text = json.dumps(record, separators=(",", ":"))
    return {"type": "resource", "resource": {"uri": EMBEDDED_URI, "mimeType": "application/json", "text": text}}


@functools.cache
def embed_verdict() -> EmbedVerdict:
    """The host's decision on the embed (the rule table, via ``authorise_embed``).

    Example:
        >>> embed_verdict().decision.rejection
        'permission-denied'
    """
    return authorise_embed(embed_block(), tool=TOOL, may_read=caller_may_read, provenance="crm-fixture@99")


def _given() -> dict[str, Any]:
    return {
        "tool": TOOL,
        "approved_by": "user",
        "caller_may_read": f"{CALLER_RECORD} (and no other crm://customer/ record)",
        "result_content": [embed_block()],
    }


_CONSENT_HINT = (
    "The user approved *calling* `summarize_ticket`: that is consent to run the tool, not "
    f"permission to read `{EMBEDDED_URI}`. The host never chose to read that record; the server "
    "put it in the result without checking. Which rule asks whether the caller may read the URI?"
)

_AUTHORISE_01 = Exercise(
    id="authorise-01",
    title="The call was approved; the embed was not",
    why=(
        "the user approved the call, not the record: the embedded record is one this caller may not read, and"
        " the rule table's permission rule fires on the embed"
    ),
    level=2,
    prompt=(
        f"A support agent works on a ticket of customer `fixture-17`. The user approves a call to "
        f"`{TOOL}`; its result embeds the record `{EMBEDDED_URI}`, which this caller may not read "
        f'(`input_for("authorise-01")` has the result and the gate). The host routes the embed '
        "through the lab's rule table. **Predict first**: which rejection code does the receipt "
        "carry? Answer with the code, as text."
    ),
    input_label=f"{TOOL}'s result embedding {EMBEDDED_URI}, for a caller who may read only {CALLER_RECORD}",
    wanted="a rejection code, as text",
    kind="code",
    parse="text",
    given=_given,
    reference=lambda: embed_verdict().decision.rejection,
    compare=lambda a, e: ans.code(a) == e,
    hints=(
        "Walk the rule table from the top: the first rule that fires decides. Which of its "
        "questions has the answer 'no' for this caller and this URI?",
        "Put the URI the result embeds beside the record this caller's ticket is about, then read "
        "what the gate lets this caller read.",
    ),
    mistakes=(
        Mistake(
            "the-user-consented",
            lambda a: ans.code(a) in (*SHAPES, "accepted", "none", "ok"),
            _CONSENT_HINT,
            example="embedded-resource",
        ),
        Mistake(
            "treated-it-as-a-link",
            lambda a: ans.code(a) in ("link-follow-up-denied", "link-follow-up-failed"),
            "Those codes are for a resource_link the client was asked to follow. Nothing was "
            "followed here: the server put the bytes in the result itself. Which case rule asks "
            "about the caller's permission?",
            example="link-follow-up-denied",
        ),
        Mistake(
            "blamed-the-size",
            lambda a: ans.code(a) == "embed-over-budget",
            "The record is under a hundred bytes, well within the 4,096-byte embed limit; and the "
            "permission rule comes before the size rule anyway.",
            example="embed-over-budget",
        ),
        Mistake(
            "blamed-the-shape",
            lambda a: ans.code(a) == "control-shape-mismatch",
            "A tool result the model asked for may be an embed: initiator and shape agree.",
            example="control-shape-mismatch",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# authorise-02: whose policy failed
# --------------------------------------------------------------------------------------------


_Option = ans.Option[EmbedVerdict]  # one choice and the observation that makes it true


_OPTIONS = (
    _Option(
        "consented",
        "nothing failed: the user approved the tool call, so what its result embeds may be shown",
        lambda v: v.revealed,
    ),
    _Option(
        "server-should-have-checked",
        "the server's: it should have checked the caller's permission before embedding; the host "
        "withholds the bytes and the receipt records the refusal",
        lambda v: v.server_should_have_checked and not v.revealed and v.receipt.get("rejection") == "permission-denied",
    ),
    _Option(
        "host-read-it",
        "the host's: it read a record the caller may not read",
        lambda v: v.receipt["custody"]["actor"] == "application",
    ),
    _Option(
        "show-with-a-warning",
        "the server's, but show the record with a warning: the bytes have arrived, so withholding "
        "them protects nothing",
        lambda v: v.revealed and v.server_should_have_checked,
    ),
)


def _whose_policy() -> str:
    return ans.the_one("authorise-02", _OPTIONS, embed_verdict())


_AUTHORISE_02 = Exercise(
    id="authorise-02",
    title="Whose policy failed?",
    why=(
        "seed 000: an embedded resource should be authorised before embedding; the server skipped that check,"
        " so the host withholds the bytes that arrived and records the refusal"
    ),
    level=3,
    prompt=(
        f"Same call as `authorise-01`: `{TOOL}` embedded `{EMBEDDED_URI}` for a caller who may not "
        "read it. Whose policy failed, and what happens to the bytes that arrived? Answer with "
        "the code of one option, as text.\n\n" + "\n".join(f"- `{o.code}`: {o.text}" for o in _OPTIONS)
    ),
    input_label=f"the embed of {EMBEDDED_URI} and its receipt",
    wanted="the code of one option, as text",
    parse="text",
    reference=_whose_policy,
    compare=lambda a, e: ans.code(a) == e,
    hints=(
        "Separate three things: what the user approved, who put the record into the result, and "
        "what the host did with it when it arrived.",
        "Read the receipt of `authorise-01`: which actor does it name, and did any byte of the record reach the model?",
    ),
    mistakes=(
        Mistake("consent-covers-the-embed", lambda a: ans.code(a) == "consented", _CONSENT_HINT, example="consented"),
        Mistake(
            "arrival-is-not-consent",
            lambda a: ans.code(a) == "show-with-a-warning",
            "Bytes that arrived are evidence that the server skipped its check, not consent to "
            "reveal them: the model has not seen them yet, and the host can still keep it that "
            "way. What does the receipt say was done?",
            example="show-with-a-warning",
        ),
        Mistake(
            "the-host-never-read-it",
            lambda a: ans.code(a) == "host-read-it",
            "The host sent no `resources/read`: the receipt's `actor` is the model, and the bytes "
            "came inside the tool's result. Who performed the read?",
            example="host-read-it",
        ),
        *ans.one_option_mistakes([o.code for o in _OPTIONS], many="consented, host-read-it", other="permission-denied"),
    ),
)

#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_AUTHORISE_01, _AUTHORISE_02)
