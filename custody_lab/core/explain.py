"""Cause and effect, in words: what changed between two cases and whether the outcome flipped.

This is what "change one input at a time" means as data. The case explorer shows it; tests and
notebooks can compute it without a widget.
"""

from __future__ import annotations

__all__ = ["Change", "diff", "flip_sentence", "outcome_label", "value_text"]

from dataclasses import dataclass
from typing import Any

from .model import FIELDS, Case, Decision
from .receipts import canonical_json


@dataclass(frozen=True)
class Change:
    """One input that differs from the baseline."""

    field: str
    before: Any
    after: Any

    def __str__(self) -> str:
        return f"{self.field} {value_text(self.before)} → {value_text(self.after)}"


def value_text(value: Any) -> str:
    """A value as the case file would write it (``true``, ``null``, ``"kb://x"``, ``1800``).

    Example:
        >>> value_text(True), value_text(None), value_text(1800), value_text("kb://x")
        ('true', 'null', '1800', '"kb://x"')
    """
    return canonical_json(value)


def diff(baseline: Case, case: Case) -> list[Change]:
    """The inputs of ``case`` that differ from ``baseline``, in the field table's order.

    Example:
        >>> from custody_lab import load_fixture
        >>> base = load_fixture().case("approve-draft")
        >>> [str(c) for c in diff(base, base.with_changes(bytes=9000))]
        ['bytes 760 → 9000']
    """
    changes = []
    for spec in FIELDS:
        a, b = baseline.get(spec.name), case.get(spec.name)
        if a != b or type(a) is not type(b):
            changes.append(Change(spec.name, a, b))
    return changes


def outcome_label(decision: Decision, other: Decision | None = None) -> str:
    """``"accepted"`` or the rejection code; the shape itself when both sides were accepted."""
    if decision.accepted:
        if other is not None and other.accepted and other.selected != decision.selected:
            return str(decision.selected)
        return "accepted"
    return str(decision.rejection)


def flip_sentence(changes: list[Change], before: Decision, after: Decision) -> str:
    """One sentence: what changed, and whether that flipped the outcome.

    Example:
        >>> from custody_lab import load_fixture, route
        >>> base = load_fixture().case("approve-draft")
        >>> big = base.with_changes(bytes=9000)
        >>> flip_sentence(diff(base, big), route(base), route(big))
        'bytes 760 → 9000 flipped accepted → embed-over-budget'
    """
    if not changes:
        return f"no input differs from the baseline; outcome {outcome_label(after)}"
    what = ", ".join(str(c) for c in changes)
    if before.outcome == after.outcome:
        return f"{what}: outcome unchanged ({after.outcome})"
    return f"{what} flipped {outcome_label(before, after)} → {outcome_label(after, before)}"
