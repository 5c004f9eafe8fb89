"""The columns of a sweep as the rules see them, and the rules' algebra over whole columns.

:func:`~custody_lab.whatif.sweep.sweep` evaluates the one rule table
(:data:`custody_lab.core.rules.RULES`) over numpy arrays: each rule's ``fires`` expression is run
once per block of rows through :class:`VectorOps`, an implementation of the rules' ``Ops``
algebra, on the reduced columns defined here (:class:`Codes` for closed sets, :class:`Tri` for
nullable flags, :class:`Text` for the custody text fields).
"""

from __future__ import annotations

__all__ = [
    "DECISIVE",
    "OUTCOMES",
    "OUTCOME_DTYPE",
    "OUTPUT_COLUMNS",
    "REJECTION_DTYPE",
    "SHAPE_DTYPE",
    "TEXT_FIELDS",
    "Codes",
    "Cols",
    "Text",
    "Tri",
    "VectorOps",
    "all_false",
    "blocks",
    "everywhere",
    "nothing",
    "row_ids",
]

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.model import FIELDS, SHAPES
from ..core.rules import rule_codes

#: Every outcome a row can get: the five shapes (accepted), then the rule codes in table order.
OUTCOMES: tuple[str, ...] = SHAPES + rule_codes()
SHAPE_DTYPE = pd.CategoricalDtype(list(SHAPES))
REJECTION_DTYPE = pd.CategoricalDtype(list(rule_codes()))
OUTCOME_DTYPE = pd.CategoricalDtype(list(OUTCOMES))
#: The custody text fields: a missing, empty or whitespace-only value fires ``custody-incomplete``.
TEXT_FIELDS = ("uri", "mime", "provenance")
#: The inputs a rule may read, in the seed's key order (the axes of a grid, the inputs of flips).
DECISIVE: tuple[str, ...] = tuple(f.name for f in FIELDS if f.name != "id" and f.kind != "text")
#: The columns :func:`~custody_lab.whatif.sweep.sweep` adds (replaced when already there).
OUTPUT_COLUMNS = ("accepted", "selected", "rejection", "outcome")


@dataclass(frozen=True, eq=False)
class Codes:
    """A closed-set column as small integer codes into ``categories`` (validated: no -1)."""

    codes: np.ndarray
    categories: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Tri:
    """A nullable boolean column: ``value`` (False where unknown) and the ``unknown`` mask."""

    value: np.ndarray
    unknown: np.ndarray


@dataclass(frozen=True, eq=False)
class Text:
    """A text column reduced to what the rules ask of it: missing (``na``) or ``empty`` (an
    empty string or one of only whitespace: blank, as :meth:`ScalarOps.blank` says)."""

    na: np.ndarray
    empty: np.ndarray


class VectorOps:
    """The rules' ``Ops`` algebra (:class:`custody_lab.core.rules.Ops`) over whole columns.

    Each method gets what a rule passes it: a column (:class:`Codes`, :class:`Tri`,
    :class:`Text` or a numpy array), a mask built by another method, or a policy value (a Python
    scalar, broadcast by numpy). Every result is a boolean array, one value per row.

    Example:
        >>> ops = VectorOps()
        >>> shape = Codes(np.array([0, 3, 4], dtype=np.int8), SHAPES)
        >>> ops.eq(shape, "embedded-resource").tolist()
        [False, True, False]
    """

    def not_(self, a: Any) -> np.ndarray:
        return np.logical_not(a)

    def and_(self, a: Any, b: Any) -> np.ndarray:
        return np.logical_and(a, b)

    def or_(self, a: Any, b: Any) -> Any:
        return _or_fast(a, b)

    def eq(self, a: Any, value: str) -> np.ndarray:
        if not isinstance(a, Codes):
            raise TypeError(f"eq compares a closed-set column with a value; got {type(a).__name__}")
        if value not in a.categories:
            return np.zeros(len(a.codes), dtype=bool)
        # Map the value to its code once; the comparison is then over small integers.
        return a.codes == a.categories.index(value)

    def isin(self, a: Any, values: Sequence[str]) -> np.ndarray:
        if not isinstance(a, Codes):
            raise TypeError(f"isin needs a closed-set column; got {type(a).__name__}")
        wanted = sorted({a.categories.index(v) for v in values if v in a.categories})
        top = len(a.categories) - 1
        if not wanted:
            return np.zeros(len(a.codes), dtype=bool)
        lo, hi = wanted[0], wanted[-1]
        if hi - lo + 1 == len(wanted):  # a run of consecutive codes: compare with its ends
            if lo == 0 and hi == top:
                return np.ones(len(a.codes), dtype=bool)
            if lo == 0:
                return a.codes <= hi
            if hi == top:
                return a.codes >= lo
            return (a.codes >= lo) & (a.codes <= hi)
        out = a.codes == wanted[0]
        for k in wanted[1:]:
            out |= a.codes == k
        return out

    def xor(self, a: Any, b: Any) -> np.ndarray:
        return np.not_equal(a, b)

    def gt(self, a: Any, b: Any) -> np.ndarray:
        return np.greater(a, b)

    def is_true(self, a: Any) -> np.ndarray:
        if isinstance(a, Tri):
            return a.value  # False where unknown, as ``x is True`` is for None
        return np.asarray(a, dtype=bool)

    def missing(self, a: Any) -> np.ndarray:
        if isinstance(a, Tri):
            return a.unknown
        if isinstance(a, Text):
            return a.na
        return np.zeros(np.shape(a), dtype=bool)

    def blank(self, a: Any) -> Any:
        if not isinstance(a, Text):
            raise TypeError(f"blank asks about a text column; got {type(a).__name__}")
        return _or_fast(a.na, a.empty)


@functools.lru_cache(maxsize=16)
def nothing(n: int) -> np.ndarray:
    """A read-only column of n False values that takes no memory (one value, stride 0)."""
    return np.broadcast_to(False, (n,))


@functools.lru_cache(maxsize=16)
def everywhere(n: int) -> np.ndarray:
    """A read-only column of n True values that takes no memory (one value, stride 0)."""
    return np.broadcast_to(True, (n,))


def all_false(a: Any) -> bool:
    """True for ``False`` or a zero-stride (broadcast) column of False: nothing to compute."""
    if isinstance(a, (bool, np.bool_)):
        return not a
    return isinstance(a, np.ndarray) and a.ndim == 1 and a.strides == (0,) and a.size > 0 and not a[0]


def _or_fast(a: Any, b: Any) -> Any:
    # Absent columns are broadcast False: or-ing with them is the other operand, unchanged.
    if all_false(b):
        return a
    if all_false(a):
        return b
    return np.logical_or(a, b)


@dataclass(frozen=True, eq=False)
class Cols:
    """A validated frame as the rules see it (decisive fields only)."""

    n: int
    fields: dict[str, Any]
    given: frozenset[str]  # the optional fields the frame actually had as columns


#: Rows per block: a block's masks (a byte per row each) stay in the CPU cache, so the cost per
#: row stays flat from a hundred thousand rows to ten million.
_BLOCK = 1 << 18


def _slice(col: Any, start: int, stop: int) -> Any:
    if isinstance(col, Codes):
        return Codes(col.codes[start:stop], col.categories)
    if isinstance(col, Tri):
        return Tri(col.value[start:stop], col.unknown[start:stop])
    if isinstance(col, Text):
        return Text(col.na[start:stop], col.empty[start:stop])
    return col[start:stop]


def blocks(cols: Cols) -> Iterator[tuple[slice, Cols]]:
    """The frame in blocks of rows (one block when it is small): a loop over blocks, not rows."""
    if cols.n <= _BLOCK:
        yield slice(0, cols.n), cols
        return
    for start in range(0, cols.n, _BLOCK):
        stop = min(start + _BLOCK, cols.n)
        yield (
            slice(start, stop),
            Cols(stop - start, {k: _slice(v, start, stop) for k, v in cols.fields.items()}, cols.given),
        )


def row_ids(frame: pd.DataFrame) -> np.ndarray:
    """Each row's name for reports: its ``id`` column, else its index label."""
    if "id" in frame.columns:
        return frame["id"].to_numpy(dtype=object)
    return frame.index.to_numpy(dtype=object)
