"""Context-budget exercises (notebook 05): three budgets logged separately, and what one number hides.

==========  =====  ==================================================================
id          level  task
==========  =====  ==================================================================
budget-01   2      a host with many tools: which budget is over its own limit
budget-02   3      a giant resource list under one combined limit: how many bytes of
                   the selected ticket reach the model
==========  =====  ==================================================================

The ledger and its budgets are :mod:`custody_lab.protocol.budgets` (the limits are the lab's host
policy; MCP 2026-07-28 sets none). The worked example of notebook 05 is built here too
(:func:`worked_example`), from the tool the hostile server lists as ``export_everything`` and the
9,000-odd-byte result it embeds (``tests/protocol/test_budgets_authorise.py`` checks both against the live
hostile server), so the notebook, the exercises and the tests share one scenario.

Every mistake detector guards the answer's type itself; the gate in ``tests/teaching/test_exercises.py``
proves it.
"""

from __future__ import annotations

__all__ = [
    "EXERCISES",
    "EXPORT_RESULT_URI",
    "EXPORT_TOOL",
    "HANDBOOK",
    "TICKET",
    "crowded_example",
    "export_block",
    "warehouse_example",
    "warehouse_tools",
    "worked_example",
]

import functools
import json
from typing import Any

from ...protocol.budgets import BUDGETS, Ledger, every_record_listed, reached
from ...protocol.catalog import Catalog
from ..exercises import Exercise, Mistake
from . import _answers as ans

#: ``export_everything`` as the hostile server's ``tools/list`` returns it (SDK 2.3, 2026-07-28).
EXPORT_TOOL: dict[str, Any] = {
    "name": "export_everything",
    "description": "Export all the data inline.",
    "inputSchema": {"type": "object", "properties": {}, "title": "export_everythingArguments"},
    "annotations": {"readOnlyHint": True},
    "_meta": {"org.custody-lab/sideEffects": False},
}
EXPORT_RESULT_URI = "export://all"
#: The handbook the user selected (seed 000's first case).
HANDBOOK = "kb://handbook/v4"
#: The ticket the agent selected in budget-02's turn (another document than the worked example's).
TICKET = "tickets://T-501"


def export_block() -> dict[str, Any]:
    """The embedded ``resource`` block ``export_everything`` returns (its text: 8,992 bytes of JSON)."""
    text = json.dumps({"rows": "x" * 8980})
    return {"type": "resource", "resource": {"uri": EXPORT_RESULT_URI, "mimeType": "application/json", "text": text}}


@functools.cache
def _catalog() -> Catalog:
    return Catalog.load()


def worked_example() -> Ledger:
    """One turn: a small tool schema, the lab's resource listing, the handbook, a giant embed.

    Example:
        >>> worked_example().hidden()
        ('content',)
    """
    catalog = _catalog()
    return (
        Ledger()
        .log_tool(EXPORT_TOOL)
        .log_listing(catalog.list_resources())
        .log_contents(catalog.read(HANDBOOK).item, "selected by the user")
        .log_contents(export_block(), "embedded by export_everything")
    )


def crowded_example(records: int = 200, selected: str = HANDBOOK) -> Ledger:
    """One turn where a server lists every customer record one by one before the selected document
    (the handbook unless ``selected`` names another catalog resource).

    Example:
        >>> crowded_example().over(), crowded_example(selected=TICKET).over()
        (('resource-catalog',), ('resource-catalog',))
    """
    catalog = _catalog()
    template = next(t for t in catalog.list_templates()["resourceTemplates"] if t["name"] == "customer")
    listing = every_record_listed(template, ({"id": f"c-{i:04d}"} for i in range(1, records + 1)))
    return (
        Ledger()
        .log_tool(EXPORT_TOOL)
        .log_listing(listing)
        .log_contents(catalog.read(selected).item, "selected by the user")
    )


# --------------------------------------------------------------------------------------------
# budget-01: a host with many tools
# --------------------------------------------------------------------------------------------

_TABLES = ("orders", "customers", "invoices", "refunds", "shipments", "tickets", "returns", "payouts")
_REGIONS = ("eu", "us", "apac", "latam", "mena")
_CUSTOMER = "crm://customer/fixture-17"


def warehouse_tools() -> list[dict[str, Any]]:
    """Forty export tools (one per table and region), each defined in full as ``tools/list`` shows it.

    Example:
        >>> tools = warehouse_tools()
        >>> len(tools), tools[0]["name"]
        (40, 'export_orders_eu')
    """
    return [
        {
            "name": f"export_{table}_{region}",
            "description": f"Export the {table} table of the {region} region as JSON rows.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "since": {"type": "string", "format": "date"},
                    "limit": {"type": "integer", "minimum": 1},
                },
            },
            "annotations": {"readOnlyHint": True},
        }
        for table in _TABLES
        for region in _REGIONS
    ]


def warehouse_example(*, deferred: bool = False) -> Ledger:
    """Forty tool definitions (in full, or deferred), the lab's listing, and one embedded record.

    Example:
        >>> warehouse_example().over(), warehouse_example(deferred=True).over()
        (('tool-definitions',), ())
    """
    catalog = _catalog()
    ledger = Ledger()
    for tool in warehouse_tools():
        ledger = ledger.log_tool(tool, deferred=deferred)
    record = {"type": "resource", "resource": dict(catalog.read(_CUSTOMER).item)}
    return ledger.log_listing(catalog.list_resources()).log_contents(record, "embedded by a lookup tool")


def _budget_names(answer: object) -> frozenset[str] | None:
    names = ans.names(answer)
    return None if names is None else frozenset(n.lower() for n in names)


def _said_none(answer: object) -> bool:
    empty = isinstance(answer, list | tuple | set | frozenset) and len(answer) == 0
    return empty or (ans.text(answer) or "").lower() in ("none", "nothing", "no budget")


_BUDGET_01 = Exercise(
    id="budget-01",
    title="Forty tools: which budget is over?",
    why=(
        "forty full tool definitions fill the tool-definitions budget past its own limit although the "
        "combined number is under the three limits added up: each budget is checked against its own room"
    ),
    level=2,
    prompt=(
        "A host connects to a warehouse server with forty export tools and loads every tool "
        "definition in full. The turn also carries the lab's `resources/list` and one embedded "
        'customer record (`input_for("budget-01")` is the ledger). The combined number is within '
        "the three limits added up. **Predict first**: which budget is over its own limit? Answer "
        'with a list of budget names (`"tool-definitions"`, `"resource-catalog"`, `"content"`), '
        "or an empty list if none is."
    ),
    input_label="40 full tool definitions, the lab's resources/list, one embedded customer record",
    wanted="a list of budget names",
    kind="list",
    given=warehouse_example,
    reference=lambda: list(warehouse_example().over()),
    compare=lambda a, e: isinstance(e, list) and _budget_names(a) == frozenset(e),
    hints=(
        "Read the ledger line by line: each budget has its own limit. Which line's bytes are "
        "larger than its own limit?",
        "The combined number can hide one line over its own limit. For each line of the ledger, "
        "where do its bytes come from in this turn, and how do they compare with that line's own "
        "limit?",
    ),
    mistakes=(
        Mistake(
            "trusted-the-combined-number",
            _said_none,
            "The combined number is within the three limits added up, and that is exactly what "
            "one number hides: look at each budget against its own limit.",
            example=[],
        ),
        Mistake(
            "blamed-the-embed",
            lambda a: _budget_names(a) == frozenset({"content"}),
            "The embedded record is under a thousand bytes, well within the content limit. The "
            "bytes went somewhere else: forty definitions, each with a schema.",
            example=["content"],
        ),
        Mistake(
            "blamed-the-listing",
            lambda a: _budget_names(a) == frozenset({"resource-catalog"}),
            "The lab's listing has ten entries, within the resource-catalog limit. Which budget holds forty entries?",
            example=["resource-catalog"],
        ),
        Mistake(
            "named-every-budget",
            lambda a: (names := _budget_names(a)) is not None and names >= frozenset(BUDGETS),
            "Not all three: only one line of the ledger is over its own limit.",
            example=list(BUDGETS),
        ),
        Mistake(
            "named-the-combined-line",
            lambda a: (names := _budget_names(a)) is not None and any(n.startswith("combined") for n in names),
            "The combined line is within its limit; answer with the name of a budget whose own line is over.",
            example=["combined"],
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# budget-02: a giant resource list under one combined limit
# --------------------------------------------------------------------------------------------


def _crowded_ticket() -> Ledger:
    return crowded_example(selected=TICKET)


def _ticket_bytes() -> tuple[int, int]:
    """Bytes of the ticket that reach the model: one combined limit, then three budgets."""
    ledger = _crowded_ticket()
    return reached(ledger.admit_combined(), TICKET), reached(ledger.admit(), TICKET)


def _ticket_size() -> int:
    return int(_catalog().read(TICKET).size)


def _pair(answer: object) -> tuple[float, float] | None:
    """A two-item list or tuple of numbers; ``None`` otherwise."""
    if not isinstance(answer, list | tuple) or len(answer) != 2:
        return None
    first, second = (ans.number(a) for a in answer)
    return None if first is None or second is None else (first, second)


def _same_pair(answer: object, expected: object) -> bool:
    return _pair(answer) == expected


_BUDGET_02 = Exercise(
    id="budget-02",
    title="A giant list before the selected document",
    why=(
        "host A fills one combined limit in order and the 200 listed records use up the room before the "
        "ticket comes; host B fills each budget from its own room, so the listing cannot push the ticket out"
    ),
    level=3,
    prompt=(
        "A support agent selected the ticket `tickets://T-501`. Before it, the turn carries one "
        "small tool definition and a `resources/list` from a server that lists each of its 200 "
        'customer records one by one (`input_for("budget-02")` is the ledger, with every size). Host A '
        "keeps **one combined limit**, the three limits added up (16,384 bytes): it fills the "
        "context in order and cuts it where the limit runs out. Host B keeps **three budgets**, "
        "each filled only from its own room. **Predict first**: how many bytes of the ticket "
        "reach the model under host A, and under host B? Answer with a tuple `(a, b)`."
    ),
    input_label="one tool definition, 200 listed customer records, then the selected ticket",
    wanted="a tuple of two numbers of bytes: (host A, host B)",
    given=_crowded_ticket,
    reference=_ticket_bytes,
    compare=_same_pair,
    hints=(
        "Walk the ledger in order and keep a running total: for host A against the one combined "
        "limit, for host B against each budget's own limit.",
        "Add up the listing's bytes first. Is anything of host A's combined limit left when the "
        "ticket's turn comes? And which of host B's budgets does the listing spend?",
    ),
    mistakes=(
        Mistake(
            "small-means-it-fits",
            lambda a: (p := _pair(a)) is not None and p[0] == _ticket_size(),
            "The ticket is small, but a combined limit does not care what is small: the entries "
            "before it spend the room first. What had the listing spent when host A reached it?",
            example=(497, 497),
        ),
        Mistake(
            "separate-budgets-crowd-it-out-too",
            lambda a: (p := _pair(a)) is not None and p[1] == 0,
            "Host B gives the listing its own budget: when the listing runs out of room, the rest "
            "of it goes to the next page, and the content budget is untouched.",
            example=(0, 0),
        ),
        Mistake(
            "cut-the-ticket-in-the-middle",
            lambda a: (p := _pair(a)) is not None and 0 < p[0] < _ticket_size(),
            "Each entry is admitted whole or not at all, and host A cuts where its limit first "
            "runs out. Did the listing itself fit?",
            example=(250, 497),
        ),
        Mistake(
            "one-number-only",
            lambda a: ans.number(a) is not None,
            "Give both hosts' answers as a tuple: host A first, then host B.",
            example=497,
        ),
    ),
)

#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_BUDGET_01, _BUDGET_02)
