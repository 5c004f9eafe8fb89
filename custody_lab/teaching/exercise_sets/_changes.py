"""The input of a decision exercise: a fixture case with some of its inputs changed.

A prediction exercise (``route-01``) asks what the router decides for one seed case after a
one-input change; its ``given`` is a :class:`CaseChange`, which the predict-then-check panel
(:mod:`custody_lab.teaching.predict`) applies to a case explorer once the learner has written a
prediction. The reference answer is computed from the same value, by the router, so the panel and
the check can never disagree. One home for that value, shared by the decision sets (``route``,
``receipt``).
"""

from __future__ import annotations

__all__ = ["CaseChange", "code_of", "codes_of", "outcome_codes", "same_code", "several_codes"]

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...core.explain import diff
from ...core.loading import load_fixture
from ...core.model import SHAPES, Case, Decision, Policy
from ...core.router import route
from ...core.rules import RULES
from . import _answers as ans


@dataclass(frozen=True)
class CaseChange:
    """A seed case (by id) and the inputs changed from it, in the case's camelCase keys.

    Attributes:
        case_id: the fixture case the change starts from (``"approve-draft"``).
        changes: the changed inputs (``{"bytes": 4097}``), keyed as the case explorer's controls.

    Example:
        >>> change = CaseChange("approve-draft", {"bytes": 9000})
        >>> change.describe(), change.decision().rejection
        ('approve-draft: bytes 760 → 9000', 'embed-over-budget')
    """

    case_id: str
    changes: Mapping[str, Any] = field(default_factory=dict)

    def baseline(self) -> Case:
        """The fixture case before the change."""
        return load_fixture().case(self.case_id)

    def case(self) -> Case:
        """The case after the change (validated like any case)."""
        return self.baseline().with_changes(**self.changes)

    def decision(self, policy: Policy | None = None) -> Decision:
        """What the router decides for the changed case (the seed's policy by default)."""
        return route(self.case(), policy)

    def describe(self) -> str:
        """The change in the explorer's diff words: ``handbook: current true → false``."""
        changed = ", ".join(str(c) for c in diff(self.baseline(), self.case()))
        return f"{self.case_id}: {changed or 'no input changed'}"


def outcome_codes() -> tuple[str, ...]:
    """Every outcome a decision can show: the five shapes, then the rule table's codes in order.

    Example:
        >>> outcome_codes()[:2], "stale-content" in outcome_codes()
        (('listed-resource', 'templated-resource'), True)
    """
    return (*SHAPES, *(r.code for r in RULES))


def code_of(answer: object) -> str | None:
    """An outcome or key as typed: stripped, lower-case, without surrounding backticks or quotes,
    ``_`` read as ``-`` (MCP 2026-07-28 writes ``resource_link`` on the wire where the lab's shape
    is ``resource-link``); ``None`` when the answer is not text.

    Example:
        >>> code_of(" `Stale-Content` "), code_of("resource_link"), code_of(5)
        ('stale-content', 'resource-link', None)
    """
    typed = ans.text(answer)
    return None if typed is None else typed.strip("`'\" ").lower().replace("_", "-")


def codes_of(answer: object) -> list[str] | None:
    """A list or tuple of codes as :func:`code_of` reads each; ``None`` when it is not one.

    Example:
        >>> codes_of(["A", " b "]), codes_of("a, b")
        (['a', 'b'], None)
    """
    if not isinstance(answer, list | tuple):
        return None
    codes = [code_of(item) for item in answer]
    return None if any(c is None for c in codes) else [c for c in codes if c is not None]


def same_code(answer: object, expected: object) -> bool:
    """A ``compare`` for one code or key: the answer and the expected read alike by :func:`code_of`.

    Example:
        >>> same_code("`Permission-Denied`", "permission-denied"), same_code(["x"], "x")
        (True, False)
    """
    return code_of(answer) == code_of(str(expected))


def several_codes(answer: object) -> bool:
    """Whether the answer gives more than one code (a collection, or text with a comma) where a
    receipt carries one.

    Example:
        >>> several_codes(["a", "b"]), several_codes("a, b"), several_codes("a")
        (True, True, False)
    """
    return isinstance(answer, list | tuple | set | frozenset) or "," in (code_of(answer) or "")
