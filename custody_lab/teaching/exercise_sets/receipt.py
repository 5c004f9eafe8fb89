"""Receipts and the custody matrix (notebook 02): a missing custody fact, its refusal, a region.

==========  =====  ===================================================================
id          level  task
==========  =====  ===================================================================
receipt-01  1      which custody field is missing from this receipt
receipt-02  2      that receipt's case is also denied: which rule refuses it
receipt-03  2      where on the matrix a need falls: the shape the advisor recommends
==========  =====  ===================================================================

The receipts are the router's own (:func:`custody_lab.core.router.route`), and the region is the
advisor's answer (:func:`custody_lab.core.advisor.advise`), so every reference answer is computed
by the package. That a receipt must name its URI, MIME type and provenance is the lab's host
policy (seed 000, "Ship a context-custody receipt"), not an MCP rule: under MCP 2026-07-28 a tool
result's ``structuredContent`` carries neither a ``uri`` nor a ``mimeType``.
"""

from __future__ import annotations

__all__ = ["EXERCISES"]

from typing import Any

from ...core.advisor import advise
from ...core.model import SHAPES
from ...core.rules import RULES
from ..exercises import Exercise, Mistake
from ._changes import CaseChange, code_of, same_code, several_codes

_RULE_CODES = tuple(r.code for r in RULES)

# --------------------------------------------------------------------------------------------
# receipt-01: which custody field is missing
# --------------------------------------------------------------------------------------------

_GAP = CaseChange("customer-record", {"provenance": None})


def _custody() -> dict[str, Any]:
    """The custody block of the receipt the router writes for the record without its source."""
    custody: dict[str, Any] = _GAP.decision().to_dict()["custody"]
    return custody


def _missing_key() -> object:
    missing = [key for key, value in _custody().items() if value is None or value == ""]
    assert len(missing) == 1, f"receipt-01 is built with exactly one gap; found {missing}"
    return missing[0]


_RECEIPT_01 = Exercise(
    id="receipt-01",
    title="Find the missing custody field",
    why=(
        "the custody block names the URI, MIME type, size and time, but nothing says which server (and which "
        "build of it) produced the bytes, so a reviewer cannot trace where they came from"
    ),
    level=1,
    prompt=(
        "A customer record was read through a template, and the host wrote this custody block "
        '(`input_for("receipt-01")`). One custody fact is missing: nobody filled it in. Which '
        "one? Give its key exactly as the receipt writes it."
    ),
    input_label="the custody block of the customer-record receipt",
    wanted="one key of the custody block",
    parse="text",
    given=_custody,
    reference=_missing_key,
    compare=same_code,
    mistakes=(
        Mistake(
            "false-is-not-missing",
            lambda a: code_of(a) == "sideeffects",
            "false is an answer: someone declared that this read changes nothing. A missing fact "
            "is one nobody filled in, and the receipt writes it as null.",
            example="sideEffects",
        ),
        Mistake(
            "a-field-with-a-value",
            lambda a: (
                (c := code_of(a)) is not None
                and c in {k.lower() for k, v in _custody().items() if v is not None and k != "sideEffects"}
            ),
            "That key has a value in this receipt. Look for the key whose value is null.",
            example="uri",
        ),
        Mistake(
            "not-a-receipt-key",
            lambda a: (c := code_of(a)) is not None and c not in {k.lower() for k in _custody()},
            "Give the key as the receipt writes it: one of the keys of the custody block, such as actor or bytes.",
            example="source",
        ),
    ),
    hints=(
        "Go through the custody block key by key and ask of each value: did somebody fill this in?",
        "A value of false or 0 is an answer someone gave; a missing fact is written as null.",
    ),
)


# --------------------------------------------------------------------------------------------
# receipt-02: the same gap, and the copy is stale too
# --------------------------------------------------------------------------------------------

#: Both problems are content rules, so the code is the same in either rule order: the router's
#: table (custody-incomplete first) and live mode's (permission-denied and side-effects-unknown
#: checked before the exchange, then the content rules in the table's order).
_GAP_AND_STALE = CaseChange("customer-record", {"provenance": None, "current": False, "requiresCurrent": True})


def _gap_rejection() -> object:
    return _GAP_AND_STALE.decision().rejection


_RECEIPT_02 = Exercise(
    id="receipt-02",
    title="Which rule refuses a receipt with a gap?",
    why=(
        "both custody-incomplete and stale-content would fire, and custody-incomplete comes first in the rule"
        " table: the first rule that fires decides"
    ),
    level=2,
    prompt=(
        "The same customer record, still without its missing custody fact; this time the copy the "
        "host holds is also stale, and the agent asked for current content. Two rules could refuse "
        "it, and both test the content itself, not the exchange, so the answer is the same whether "
        "a host checks permission and side effects before it sends anything (as live mode does, "
        "notebook 07) or walks the whole table in order (as `cl.route` does). Which rejection code "
        "will the receipt carry? Decide from notebook 01's table (*The rules, in order*), then route "
        '`input_for("receipt-02").case()` to check.'
    ),
    input_label="the customer record with the custody gap, stale, current content required",
    wanted="one rejection code",
    parse="text",
    given=lambda: _GAP_AND_STALE,
    reference=_gap_rejection,
    compare=same_code,
    mistakes=(
        Mistake(
            "stale-first",
            lambda a: code_of(a) == "stale-content",
            "Staleness would refuse it too, but is its rule the earlier of the two? Find the rule "
            "that tests whether the custody facts exist at all, and compare the two places in notebook 01's table.",
            example="stale-content",
        ),
        Mistake(
            "both-codes",
            several_codes,
            "A receipt carries one rejection code: the first rule that fires decides.",
            example=["stale-content", "permission-denied"],
        ),
        Mistake(
            "accepted-anyway",
            lambda a: code_of(a) in (*SHAPES, "accepted"),
            "A receipt with a custody gap, for stale content that had to be current, is refused: name the code.",
            example="templated-resource",
        ),
        Mistake(
            "a-rule-about-something-else",
            lambda a: (c := code_of(a)) in _RULE_CODES and c not in ("stale-content", _gap_rejection()),
            "That rule tests an input nobody changed here: only the custody fact and the freshness did.",
            example="permission-denied",
        ),
    ),
    hints=(
        "Name the two rules the two problems make true, then compare their places in notebook 01's table "
        "(*The rules, in order*).",
        "Live mode checks permission and side effects first, but both of these are content rules, which "
        "it keeps in notebook 01's order: the earlier of the two decides.",
    ),
)


# --------------------------------------------------------------------------------------------
# receipt-03: where on the matrix a need falls
# --------------------------------------------------------------------------------------------

#: A weekly summary the model generates: 2,500 bytes, read five times in one session.
_NEED: dict[str, Any] = {"initiator": "model", "operation": "generate", "payload_bytes": 2500, "reuse": 5}


def _region() -> object:
    return advise(**_NEED).shape


_RECEIPT_03 = Exercise(
    id="receipt-03",
    title="Where does this need fall on the matrix?",
    why=(
        "2,500 bytes fit the 4,096-byte inline budget, but the same summary is read five times, and from the "
        "second use on a client cache pays off"
    ),
    level=2,
    prompt=(
        "The model calls a tool that generates a 2,500-byte weekly summary, and the same summary is "
        "read **five times** in one session. Under the seed's policy (embed limit 4096 bytes), "
        "which shape does the advisor recommend, that is, in which region of the matrix does this "
        'need fall? (The need is `input_for("receipt-03")`; `cl.advise(**need)` answers it.)'
    ),
    input_label="a 2,500-byte generated summary reused 5 times",
    wanted="one of the five shapes",
    parse="text",
    given=lambda: dict(_NEED),
    reference=_region,
    compare=same_code,
    mistakes=(
        Mistake(
            "size-only",
            lambda a: code_of(a) == "embedded-resource",
            "2,500 bytes do fit the embed budget, but size is only one column of seed 001's size × "
            "reuse table. Read the other column.",
            example="embedded-resource",
        ),
        Mistake(
            "an-application-row",
            lambda a: code_of(a) in ("listed-resource", "templated-resource"),
            "The model asks for this operation, so it is a tool result: the resource rows of the "
            "matrix belong to what the application reads.",
            example="listed-resource",
        ),
        Mistake(
            "structured-for-everything",
            lambda a: code_of(a) == "structured-tool-result",
            "Structured content is for results that code validates field by field; this summary is "
            "read, not validated.",
            example="structured-tool-result",
        ),
        Mistake(
            "a-rejection-code",
            lambda a: code_of(a) in _RULE_CODES,
            "The advisor recommends a shape; a rejection code is what the router writes when it refuses a case.",
            example="embed-over-budget",
        ),
    ),
    hints=(
        "Ask two questions of the need: does it fit the embed budget, and how often is the same content used?",
        "Seed 001's size × reuse table has a row for a small result read many times: which shape does it give?",
    ),
)

EXERCISES = (_RECEIPT_01, _RECEIPT_02, _RECEIPT_03)
