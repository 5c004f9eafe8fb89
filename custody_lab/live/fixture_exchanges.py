"""The six seed cases as real exchanges with the lab server (seed 000, "Run six context-delivery cases").

Example:
    >>> [x.case_id for x in FIXTURE_EXCHANGES][:2], FIXTURE_EXCHANGES[2].kind
    (['handbook', 'customer-record'], 'call')
"""

from __future__ import annotations

__all__ = ["FIXTURE_EXCHANGES", "Exchange"]

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Exchange:
    """One step of the live fixture: which case, and what the client does for it."""

    case_id: str
    kind: Literal["read", "call", "subscribed-read"]
    target: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


#: The six seed cases as real exchanges with the lab server (seed 000, "Run six ... cases").
FIXTURE_EXCHANGES: tuple[Exchange, ...] = (
    Exchange("handbook", "read", "kb://handbook/v4"),
    Exchange("customer-record", "read", "crm://customer/fixture-17"),
    Exchange("generated-report", "call", "generate_report", {"week": 7}),
    Exchange("risk-score", "call", "calculate_risk", {"customer": "crm://customer/fixture-17"}),
    Exchange("live-status", "subscribed-read", "status://service/current"),
    Exchange("approve-draft", "call", "approve_draft", {"draft_id": "9"}),
)
