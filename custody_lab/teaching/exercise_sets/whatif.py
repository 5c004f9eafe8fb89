"""What-if exercises (notebook 06): custody decisions over a whole inventory at once.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
whatif-01 2      which single inputs, each changed alone, get ``fetch-attachment`` accepted
whatif-02 2      how many, and which, support-desk capabilities change under the strict policy
whatif-03 1      which capability a 2048-byte inline budget refuses (predict the slider)
========  =====  ===================================================================

Every reference and every mistake's trigger value is computed with the what-if layer
(:func:`~custody_lab.whatif.flips.flips`, :func:`~custody_lab.whatif.compare.compare`,
:func:`~custody_lab.whatif.sweep.sweep`) over ``data/inventories/support-desk.csv``; nothing is typed
in by hand. pandas is imported the first time an answer is needed, not when the exercises register
(so a check in notebook 04 does not pay for it). Every mistake detector guards the answer's type
itself; the gate in ``tests/teaching/test_exercises.py`` proves it.
"""

from __future__ import annotations

__all__: list[str] = ["EXERCISES"]

import functools
from typing import Any

from ...core.model import SHAPES, Policy
from ...core.paths import data_path
from ...core.tables import load_policy
from ..exercises import Exercise, Mistake
from . import _answers as ans

#: The capability of whatif-01 and the budget of whatif-03 (the slider's first stop in notebook 06).
_ATTACHMENT = "fetch-attachment"
_SLIDER_LIMIT = 2048


@functools.cache
def _inventory() -> Any:
    from ...whatif.io import load_inventory  # pandas, loaded on first use

    return load_inventory(data_path("inventories", "support-desk.csv"))


@functools.cache
def _strict() -> Policy:
    return load_policy(data_path("policies", "strict.json"))


def _changed_ids(policy: Policy) -> tuple[str, ...]:
    from ...whatif.compare import compare

    return tuple(compare(_inventory(), None, policy).changes["id"])


@functools.cache
def _refused_ids(policy: Policy | None) -> frozenset[str]:
    from ...whatif.sweep import sweep

    swept = sweep(_inventory(), policy)
    return frozenset(swept[~swept["accepted"]]["id"])


# --------------------------------------------------------------------------------------------
# whatif-01: which single inputs flip fetch-attachment to accepted
# --------------------------------------------------------------------------------------------


@functools.cache
def _attachment_flips() -> Any:
    from ...whatif.flips import flips

    inventory = _inventory()
    return flips(inventory[inventory["id"] == _ATTACHMENT])


def _inputs_that_accept() -> list[str]:
    table = _attachment_flips()
    return sorted(set(table[table["outcome_after"].isin(SHAPES)]["input"]))


def _inputs_that_refuse_otherwise() -> frozenset[str]:
    table = _attachment_flips()
    return frozenset(table[~table["outcome_after"].isin(SHAPES)]["input"]) - set(_inputs_that_accept())


def _partial(answer: object) -> bool:
    names = ans.names(answer)
    return names is not None and 0 < len(names) < len(_inputs_that_accept()) and names <= set(_inputs_that_accept())


_WHATIF_01 = Exercise(
    id="whatif-01",
    title="Which single inputs would get the screenshot in?",
    why=(
        "the screenshot is refused for its size as an embed, so only the inputs that bear on that, its bytes "
        "or a shape that does not carry the bytes inline, accept it when changed on their own"
    ),
    level=2,
    prompt=(
        "`fetch-attachment` is refused under the seed's policy (a 4096-byte inline budget). Run "
        "`flips` on that one row and read its `outcome_after` column: which inputs, **each changed "
        "on its own**, would get the capability **accepted** (an outcome that is a shape, not a "
        'rejection code)? Answer with a list of column names, such as `["current"]`.'
    ),
    input_label="the fetch-attachment row of data/inventories/support-desk.csv, under the seed's policy",
    wanted="a list of the inventory's column names",
    given=lambda: _ATTACHMENT,
    reference=_inputs_that_accept,
    compare=lambda a, e: ans.names(a) == ans.names(e),
    hints=(
        "Each row of the flips table is one input changed alone. Keep the rows whose "
        "`outcome_after` is one of the five shapes, and drop the ones that end in another code.",
        "Ask why the row is refused today, and which of its own columns could remove that reason "
        "without tripping another rule.",
    ),
    mistakes=(
        Mistake(
            "named-one-of-them",
            _partial,
            "That input does it, but it is not the only one: look through every row of the flips "
            "table whose outcome after the change is a shape.",
            example=["bytes"],
        ),
        Mistake(
            "counted-other-refusals",
            lambda a: (n := ans.names(a)) is not None and bool(n & _inputs_that_refuse_otherwise()),
            "Some of those inputs change the outcome only to another refusal (read `outcome_after`: "
            "a rejection code is still a refusal). Keep only the changes that end in a shape.",
            example=["bytes", "allowed"],
        ),
        Mistake(
            "named-the-policy",
            lambda a: (n := ans.names(a)) is not None and bool(n & {"embedLimitBytes", "embed_limit_bytes", "policy"}),
            "The inline budget is the host's policy, not an input of the capability: flips changes "
            "the capability's own columns and keeps the policy still.",
            example=["embedLimitBytes"],
        ),
        Mistake(
            "handed-it-to-the-application",
            lambda a: (n := ans.names(a)) is not None and "initiator" in n,
            "Changing who initiates does not get this row past the rule that refuses it now: the "
            "rules are checked in order and the first that fails decides. `initiator` has no row "
            "in this capability's flips table.",
            example=["initiator"],
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# whatif-02: which capabilities change under the strict policy
# --------------------------------------------------------------------------------------------


def _strict_changes() -> list[str]:
    return sorted(_changed_ids(_strict()))


def _unchanged_accepted() -> frozenset[str]:
    accepted = set(_inventory()["id"]) - _refused_ids(None) - _refused_ids(_strict()) - set(_changed_ids(_strict()))
    return frozenset(accepted)


def _ids(answer: object) -> frozenset[str] | None:
    """The answer as a set of inventory ids; ``None`` unless every name is an id of the inventory."""
    names = ans.names(answer)
    return names if names is not None and names <= set(_inventory()["id"]) else None


_WHATIF_02 = Exercise(
    id="whatif-02",
    title="Which capabilities does the strict host change?",
    why=(
        "the strict host halves the inline budget and requires current content: the 3,100-byte ticket summary"
        " no longer fits inline, and the shipping times, synced nightly, are not current"
    ),
    level=2,
    prompt=(
        "`data/policies/strict.json` is a stricter host. Read it, then look at the inventory table "
        "(sizes, shapes, `current`, `requiresCurrent`): **how many, and which, of the fifteen "
        "capabilities change outcome** when the host moves from the seed's policy to the strict "
        "one? Predict first, then check with `compare(inventory, None, strict)`. Answer with the "
        'list of their ids, such as `["ticket", "queue-status"]`.'
    ),
    input_label="data/inventories/support-desk.csv, seed policy → data/policies/strict.json",
    wanted="a list of capability ids from the inventory's id column",
    reference=_strict_changes,
    compare=lambda a, e: _ids(a) == ans.names(e),
    hints=(
        "strict.json changes two settings. For each, go down the inventory and mark the rows that "
        "setting would refuse, then keep only those accepted under the seed's policy.",
        "A row changes outcome only if it was accepted before and one of the two new settings "
        "refuses it; a row refused already keeps its outcome.",
    ),
    mistakes=(
        Mistake(
            "gave-a-count",
            lambda a: ans.whole_number(a) is not None,
            "Name them: give the list of ids, not how many there are (the length of your list is the count).",
            example=6,
        ),
        Mistake(
            "not-inventory-ids",
            lambda a: ans.names(a) is not None and _ids(a) is None,
            "Use the ids exactly as they are written in the inventory's id column.",
            example=["the SLA dashboard"],
        ),
        Mistake(
            "listed-refusals-that-were-there-already",
            lambda a: (n := _ids(a)) is not None and bool(n & _refused_ids(None)),
            "Some of those are refused under the seed's policy already and stay refused for the same "
            "reason: their outcome does not change. Keep only the rows whose outcome is different.",
            example=["fetch-attachment", "sla-dashboard"],
        ),
        Mistake(
            "applied-one-setting",
            lambda a: (n := _ids(a)) is not None and 0 < len(n) and n < set(_strict_changes()),
            "strict.json changes two settings at once; a capability can change because of either of them.",
            example=["summarize-ticket"],
        ),
        Mistake(
            "listed-rows-that-keep-their-outcome",
            lambda a: (n := _ids(a)) is not None and bool(n & _unchanged_accepted()),
            "Some of those are accepted under both policies: a size under the new budget, a shape that "
            "does not put bytes inline, or content that is current keeps its outcome.",
            example=["kb-returns-policy", "draft-reply"],
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# whatif-03: the slider at 2048 bytes
# --------------------------------------------------------------------------------------------


def _refused_at_slider() -> str:
    (only,) = _changed_ids(Policy(embed_limit_bytes=_SLIDER_LIMIT))
    return only


def _row(capability: str) -> dict[str, Any]:
    inventory = _inventory()
    rows = inventory[inventory["id"] == capability].to_dict("records")
    return rows[0] if rows else {}


def _is_row(answer: object, test: Any) -> bool:
    name = ans.text(answer)
    return name is not None and name != _refused_at_slider() and bool(_row(name)) and bool(test(_row(name)))


_WHATIF_03 = Exercise(
    id="whatif-03",
    title="Predict the slider: a 2048-byte budget",
    why=(
        "lowering only the budget touches only accepted embeds between 2,048 and 4,096 bytes, and the "
        "3,100-byte ticket summary is the one such embed"
    ),
    level=1,
    prompt=(
        f"Before you touch the panel: the host lowers its inline budget from 4096 to "
        f"**{_SLIDER_LIMIT}** bytes and changes nothing else. Which capability of the inventory "
        "changes outcome? Answer with its `id`, then drag the slider to see."
    ),
    input_label=f"data/inventories/support-desk.csv with embedLimitBytes {_SLIDER_LIMIT}",
    wanted="one capability id from the inventory's id column",
    parse="text",
    reference=_refused_at_slider,
    compare=ans.same_text,
    hints=(
        "The inline budget limits only one shape. Find the rows of that shape, then compare each "
        "one's bytes with the new budget.",
        "Keep only the rows accepted today: of the rows of that shape, which is larger than 2048 "
        "bytes but no larger than 4096?",
    ),
    mistakes=(
        Mistake(
            "picked-one-already-refused",
            lambda a: _is_row(a, lambda r: r["id"] in _refused_ids(None)),
            "That capability is refused already under 4096 bytes, and the lower budget leaves its "
            "outcome as it is. Look among the capabilities that are accepted today.",
            example=_ATTACHMENT,
        ),
        Mistake(
            "budget-on-a-shape-that-is-not-inline",
            lambda a: _is_row(a, lambda r: r["shape"] != "embedded-resource" and r["bytes"] > _SLIDER_LIMIT),
            "It is over 2048 bytes, but its shape does not put the bytes inline in a tool result: "
            "the budget only limits one of the five shapes.",
            example="kb-returns-policy",
        ),
        Mistake(
            "embed-that-still-fits",
            lambda a: _is_row(a, lambda r: r["shape"] == "embedded-resource" and r["bytes"] <= _SLIDER_LIMIT),
            "Right shape, but look at its size: it still fits under 2048 bytes.",
            example="draft-reply",
        ),
        Mistake(
            "not-an-id",
            lambda a: (name := ans.text(a)) is not None and name != "" and not _row(name),
            "Give the `id` of one row of the inventory (the first column of the table), exactly as written.",
            example="the screenshot",
        ),
    ),
)

EXERCISES = (_WHATIF_01, _WHATIF_02, _WHATIF_03)
