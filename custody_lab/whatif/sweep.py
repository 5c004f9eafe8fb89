"""What-if analysis: route a whole frame of cases at once, with the router's own rule table.

A designer asks "what if": what happens to every capability of my server if the embed limit drops
to 2 KiB, if half the resources go stale, if a tool starts changing state? :func:`sweep` answers for
a whole table of cases at once, and decides **exactly** as :func:`custody_lab.route` does row by
row, because it evaluates the same rule table (:data:`custody_lab.core.rules.RULES`) through
:class:`~custody_lab.whatif.columns.VectorOps`. The rule order and predicates live only in
``rules.py``; the first rule that fires on a row decides it (seed 000, "Runnable artifact": the
router returns at the first failed check).

The input frame has the case fields as columns, in the seed's camelCase keys
(``data/cases.json``):

=================  ========  ==========================================================
column             needed?   values
=================  ========  ==========================================================
``initiator``      required  ``application`` / ``model`` (categorical or text)
``shape``          required  one of the five shapes (categorical or text)
``bytes``          required  whole numbers from 0 to 1 GiB (integer column)
``current``        required  True / False (no missing values)
``allowed``        required  True / False (no missing values)
``sideEffects``    required  True / False / missing (missing = nobody said → the
                             ``side-effects-unknown`` rule fires, as in ``route``)
``requiresCurrent`` optional True / False; absent or missing means False (as in ``Case``)
``operation``      optional  one of the operations; checked, never decisive
``uri``, ``mime``, optional  text; a missing or empty value fires ``custody-incomplete`` exactly
``provenance``               as ``route`` does, and so does an **absent column** (a case without
                             a URI has none). ``assume_present=True`` reads an absent column as
                             "present on every row", for design frames that ask about initiators,
                             shapes and sizes alone (:func:`~custody_lab.whatif.grid.grid` fills
                             these columns in for you).
``id`` and others  optional  carried through to the output untouched
=================  ========  ==========================================================

Values outside that domain raise one :class:`~custody_lab.core.errors.CaseError` naming the
column and the first bad rows (:mod:`custody_lab.whatif.validation`). The fast path is a frame
whose ``initiator`` and ``shape`` are categoricals (what :func:`~custody_lab.whatif.grid.grid` and
:func:`~custody_lab.whatif.io.load_inventory` produce): the rules then compare small integer
codes. Plain text columns work too; they are mapped to codes once.
"""

from __future__ import annotations

__all__ = ["outcome_codes", "outcome_counts", "sweep"]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError
from ..core.model import SHAPES, Policy
from ..core.rules import RULES
from .columns import (
    OUTCOME_DTYPE,
    OUTPUT_COLUMNS,
    REJECTION_DTYPE,
    SHAPE_DTYPE,
    Cols,
    VectorOps,
    all_false,
    blocks,
    nothing,
)
from .validation import as_policy, columns_of


def _column_of(mask: Any, n: int) -> np.ndarray:
    """A rule's result as a column of n booleans (a scalar result is broadcast, not copied)."""
    mask = np.asarray(mask, dtype=bool)
    if mask.shape == (n,):
        return mask
    if mask.ndim == 0 and not mask:
        return nothing(n)
    return np.broadcast_to(mask, (n,))


_OPS = VectorOps()


def _bit_dtype(n_rules: int) -> Any:
    """The smallest unsigned type with a bit per rule plus one for "no rule fired"."""
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if n_rules < np.iinfo(dtype).bits:
            return dtype
    return None


_BITS = _bit_dtype(len(RULES))


def _rule_index(cols: Cols, policy: Policy) -> np.ndarray:
    """Per row of one block, the index in RULES of the first rule that fires, or ``len(RULES)``."""
    n, view, n_rules = cols.n, cols.fields, len(RULES)
    if _BITS is not None:
        # Bit i is set when rule i fires; bit n_rules is always set ("accepted"). The lowest set
        # bit is the first rule in table order that fires: isolate it (x & -x) and count the bits
        # below it. Branch-free, so it costs the same whatever the mix of outcomes. Each rule's
        # mask is folded in as soon as it is computed (the next one reuses its memory, still in
        # the CPU cache), and every step writes into one of two arrays.
        bits = np.full(n, 1 << n_rules, dtype=_BITS)
        tmp = np.empty(n, dtype=_BITS)
        for i, rule in enumerate(RULES):
            m = _column_of(rule.fires(view, policy, _OPS), n)
            if all_false(m):
                continue
            flag = m.view(np.uint8) if _BITS is np.uint8 else m.astype(_BITS)
            np.multiply(flag, _BITS(1 << i), out=tmp)  # (a multiply vectorises better than a shift)
            np.bitwise_or(bits, tmp, out=bits)
        np.bitwise_and(bits, np.negative(bits, out=tmp), out=bits)  # the lowest set bit
        np.subtract(bits, _BITS(1), out=bits)
        count = np.bitwise_count(bits, out=bits)  # 0..n_rules
        return count.view(np.int8) if count.dtype == np.uint8 else count.astype(np.int8)
    masks = [_column_of(r.fires(view, policy, _OPS), n) for r in RULES]
    index = np.full(n, n_rules, dtype=np.int8)
    for i in reversed(range(n_rules)):
        np.copyto(index, i, where=masks[i])
    return index


@dataclass(frozen=True, eq=False)
class _Decisions:
    """Per row: the outcome's code in OUTCOMES; with ``full``, also accepted / selected / rejection
    (without it those three are empty)."""

    outcome: np.ndarray
    accepted: np.ndarray
    selected: np.ndarray  # a code into SHAPES, or -1
    rejection: np.ndarray  # a code into the rule codes, or -1


def _decide(cols: Cols, policy: Policy, *, full: bool = False) -> _Decisions:
    """Evaluate the rule table block by block; every output is computed while the block is hot."""
    n, n_rules, n_shapes = cols.n, np.int8(len(RULES)), np.int8(len(SHAPES))
    m = n if full else 0
    out = _Decisions(
        np.empty(n, dtype=np.int8), np.empty(m, dtype=bool), np.empty(m, dtype=np.int8), np.empty(m, dtype=np.int8)
    )
    for rows, block in blocks(cols):
        index = _rule_index(block, policy)
        shape = block.fields["shape"].codes
        accepted = np.equal(index, n_rules, out=out.accepted[rows]) if full else index == n_rules
        # Branch-free, with masks of all bits: refused is -1 (0xFF) on a refused row, 0 on an
        # accepted one; ``x | refused`` is then x or -1, and ``x & refused`` is 0 or x.
        refused = accepted.view(np.int8) - np.int8(1)
        # accepted: the shape's code (0..4); refused: the rule's code after the shapes (5..).
        after = np.add(index, n_shapes)
        np.maximum(shape, np.bitwise_and(after, refused, out=after), out=out.outcome[rows])
        if full:
            np.bitwise_or(shape, refused, out=out.selected[rows])  # the shape, or -1
            np.bitwise_or(index, np.invert(refused, out=refused), out=out.rejection[rows])  # the rule, or -1
    return out


def outcome_codes(cols: Cols, policy: Policy) -> np.ndarray:
    """Per row, the code of its outcome in :data:`~custody_lab.whatif.columns.OUTCOMES`."""
    return _decide(cols, policy).outcome


def _attach(frame: pd.DataFrame, decisions: _Decisions) -> pd.DataFrame:
    added = pd.DataFrame(
        {
            "accepted": decisions.accepted,
            "selected": pd.Categorical.from_codes(decisions.selected, dtype=SHAPE_DTYPE, validate=False),
            "rejection": pd.Categorical.from_codes(decisions.rejection, dtype=REJECTION_DTYPE, validate=False),
            "outcome": pd.Categorical.from_codes(decisions.outcome, dtype=OUTCOME_DTYPE, validate=False),
        },
        index=frame.index,
        copy=False,  # the arrays are new and ours: no need for pandas to copy them again
    )
    kept = (
        frame.drop(columns=[c for c in OUTPUT_COLUMNS if c in frame.columns])
        if any(c in frame.columns for c in OUTPUT_COLUMNS)
        else frame
    )
    return pd.concat([kept, added], axis=1)


def sweep(
    frame: pd.DataFrame, policy: Policy | Mapping[str, Any] | None = None, *, assume_present: bool = False
) -> pd.DataFrame:
    """Route every row of a frame of cases at once, exactly as :func:`custody_lab.route` would.

    Args:
        frame: one case a row, the case fields as camelCase columns (see the module docstring
            for which are required).
        policy: a :class:`Policy` or its dict form (``{"embedLimitBytes": 2048}``); the seed's
            when omitted.
        assume_present: read an absent ``uri`` / ``mime`` / ``provenance`` column as "present on
            every row" (a design frame without custody records). Off by default: an absent
            column is absent, as it is for ``route``.

    Returns:
        A new frame: the input columns, then ``accepted`` (bool), ``selected`` (the shape, or
        missing), ``rejection`` (the rule code, or missing) and ``outcome`` (the shape or the
        code), the last three categoricals. Output columns already in ``frame`` are replaced.

    Raises:
        CaseError: one error naming the first bad column and its first bad rows.
        PolicyError: when the policy is invalid.

    Example:
        >>> frame = pd.DataFrame({"initiator": ["model", "model"],
        ...     "shape": ["embedded-resource", "embedded-resource"], "bytes": [760, 9000],
        ...     "current": [True, True], "allowed": [True, True], "sideEffects": [True, True]})
        >>> sweep(frame, assume_present=True)["outcome"].tolist()
        ['embedded-resource', 'embed-over-budget']
        >>> sweep(frame)["outcome"].tolist()  # no uri, mime or provenance: custody is incomplete
        ['custody-incomplete', 'custody-incomplete']
    """
    cols = columns_of(frame, assume_present=assume_present)
    policy = as_policy(policy)
    return _attach(frame, _decide(cols, policy, full=True))


def outcome_counts(swept: pd.DataFrame, *, by: str | None = None) -> pd.DataFrame:
    """How many rows got each outcome (in rule-table order), with their share.

    Args:
        swept: a frame returned by :func:`sweep`.
        by: optionally an input column; the result then has one column of counts per value.

    Raises:
        CaseError: for a frame without an ``outcome`` column, or a ``by`` column it lacks.

    Example:
        >>> from custody_lab.whatif.grid import grid
        >>> out = sweep(grid(initiator="model", shape="embedded-resource", bytes=[100, 5000],
        ...     current=True, allowed=True, sideEffects=False, requiresCurrent=False))
        >>> outcome_counts(out)["cases"].to_dict()
        {'embedded-resource': 1, 'embed-over-budget': 1}
    """
    if "outcome" not in swept.columns:
        raise CaseError("outcome_counts needs a frame returned by sweep (no 'outcome' column)", "outcome")
    if by is not None and by not in swept.columns:
        raise CaseError(f"outcome_counts cannot count by {by!r}: the frame has no such column", by)
    if by is not None:
        table = pd.crosstab(swept["outcome"], swept[by], dropna=False)
        return table.loc[table.sum(axis=1) > 0]
    counts = swept["outcome"].value_counts(sort=False)
    counts = counts[counts > 0]
    total = int(counts.sum())
    return pd.DataFrame({"cases": counts.astype(int), "share": counts / total if total else counts * 0.0}).rename_axis(
        "outcome"
    )
