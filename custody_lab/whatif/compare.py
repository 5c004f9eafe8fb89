"""Compare two policies over the same cases: which outcomes change, and the counts before and after."""

from __future__ import annotations

__all__ = ["Comparison", "compare", "compare_outcomes"]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError
from ..core.model import Policy
from .columns import OUTCOME_DTYPE, OUTCOMES
from .sweep import outcome_codes
from .validation import as_policy, columns_of


@dataclass(frozen=True, eq=False)
class Comparison:
    """What changes between two policies over the same cases.

    Attributes:
        before: the first policy; after: the second.
        changes: the cases whose outcome changes: ``id``, ``before``, ``after``.
        summary: per outcome, how many cases get it ``before`` and ``after`` and the ``change``.
        transitions: per (``before``, ``after``) pair among the changes, how many ``cases``.
        cases: how many cases were compared.
    """

    before: Policy
    after: Policy
    changes: pd.DataFrame
    summary: pd.DataFrame
    transitions: pd.DataFrame
    cases: int

    @property
    def changed(self) -> int:
        """How many cases change outcome."""
        return len(self.changes)

    def __str__(self) -> str:
        return f"{self.changed} of {self.cases} case(s) change outcome"


def compare(
    frame: pd.DataFrame,
    policy_a: Policy | Mapping[str, Any] | None,
    policy_b: Policy | Mapping[str, Any] | None,
    *,
    assume_present: bool = False,
) -> Comparison:
    """Which cases change outcome between two policies, and the counts before and after.

    Args:
        frame: the cases, one a row (see :func:`~custody_lab.whatif.sweep.sweep`).
        policy_a: the policy before (a :class:`Policy`, its dict form, or ``None`` for the seed's).
        policy_b: the policy after.
        assume_present: read an absent ``uri`` / ``mime`` / ``provenance`` column as present on
            every row (as for :func:`~custody_lab.whatif.sweep.sweep`).

    Example:
        >>> from custody_lab import load_fixture
        >>> from custody_lab.whatif.io import to_frame
        >>> c = compare(to_frame(load_fixture().cases), None, {"embedLimitBytes": 512})
        >>> c.changes.values.tolist()
        [['approve-draft', 'embedded-resource', 'embed-over-budget']]
    """
    cols = columns_of(frame, assume_present=assume_present)
    a, b = as_policy(policy_a), as_policy(policy_b)
    return compare_outcomes(frame, a, b, outcome_codes(cols, a), outcome_codes(cols, b))


def _ids_at(frame: pd.DataFrame, rows: np.ndarray) -> Any:
    """The ids (the ``id`` column, else the index labels) of the given rows, in their own column
    type: only those rows are taken, none turned into Python objects."""
    if "id" in frame.columns:
        return frame["id"].array.take(rows)
    return frame.index.take(rows).array


def compare_outcomes(
    frame: pd.DataFrame, before_policy: Policy, after_policy: Policy, before: np.ndarray, after: np.ndarray
) -> Comparison:
    """The :class:`Comparison` of outcome codes already decided for the frame's rows under two
    policies (what :func:`compare` builds once it has swept both; a panel that keeps the first
    policy's codes sweeps only the second).

    Args:
        frame: the cases the codes are for (their ``id`` column, else index, names the changes).
        before_policy: the policy ``before`` was decided under; after_policy: ``after``'s.
        before: per row, the code of its outcome in :data:`~custody_lab.whatif.columns.OUTCOMES`.
        after: the same, under ``after_policy``.

    Example:
        >>> frame = pd.DataFrame({"id": ["a", "b"]})
        >>> c = compare_outcomes(frame, Policy(), Policy(), np.array([0, 1]), np.array([0, 2]))
        >>> c.changed, c.changes["id"].tolist()
        (1, ['b'])
    """
    before, after = np.asarray(before), np.asarray(after)
    if not len(before) == len(after) == len(frame):
        raise CaseError(f"outcome codes: {len(before)} before and {len(after)} after for {len(frame)} rows", None)
    a, b = before_policy, after_policy
    changed = np.flatnonzero(before != after)
    changes = pd.DataFrame(
        {
            "id": _ids_at(frame, changed),
            "before": pd.Categorical.from_codes(before.take(changed), dtype=OUTCOME_DTYPE),
            "after": pd.Categorical.from_codes(after.take(changed), dtype=OUTCOME_DTYPE),
        }
    )
    k = len(OUTCOMES)
    count_a = np.bincount(before, minlength=k)
    count_b = np.bincount(after, minlength=k)
    summary = pd.DataFrame(
        {"before": count_a, "after": count_b, "change": count_b - count_a},
        index=pd.CategoricalIndex(OUTCOMES, dtype=OUTCOME_DTYPE, name="outcome"),
    )
    summary = summary.loc[(count_a > 0) | (count_b > 0)]
    transitions = (
        changes.groupby(["before", "after"], observed=True).size().rename("cases").reset_index()
        if len(changes)
        else pd.DataFrame(
            {"before": changes["before"], "after": changes["after"], "cases": pd.Series([], dtype=np.int64)}
        )
    )
    return Comparison(a, b, changes, summary, transitions, len(frame))
