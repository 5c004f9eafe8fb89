"""Columns held as Python objects (``object`` or ``string[python]``), reduced with few visits.

Such a column has no buffer of characters to read (:mod:`~custody_lab.whatif.arrow_text` has
one): each value is its own Python object, and what the sweep asks of it — which enumeration
code, missing or blank — is answered by C loops over the objects, never a Python call per row.

- **Few distinct objects.** Many such columns repeat a handful of objects: pandas' CSV parser
  reuses one object per distinct cell, a categorical converted to ``object`` repeats its
  categories, Python literals are shared. The array's own buffer holds each object's address;
  read as integers, they are factorized at integer speed and each distinct *object* is decided
  once, by the same test a single value gets. Identity only changes the cost, never the answer:
  equal strings that are separate objects are decided separately, and alike.
- **Otherwise**, every value is visited in C: an enumeration by one hash lookup into its closed
  set (after pandas' type inference proves every present value is a ``str``), a text column by
  two comparisons that find the few strings that *could* be blank (below ``"!"`` or from
  ``"\\x85"`` on, :data:`FIRST_WIDE_SPACE`), which ``str.isspace`` then decides.

The lab's host policy: a value of only whitespace is blank, as the router's ``ScalarOps.blank``
says (the same ``str.isspace``).
"""

from __future__ import annotations

__all__ = ["FIRST_WIDE_SPACE", "blank_strings", "enum_codes", "per_object", "text_masks"]

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

#: Python's whitespace (``str.isspace``, which the router's ``ScalarOps.blank`` uses too) is the
#: ASCII characters up to ``" "`` and others from NEXT LINE (U+0085) on; tests/test_loading_edges.py
#: checks that against every code point.
FIRST_WIDE_SPACE = "\x85"

#: A column's first rows decide whether it is worth factorizing its objects' addresses: more
#: distinct objects than _FEW among them, and it is not.
_SAMPLE, _FEW = 4096, 64
#: After factorizing, more distinct objects than this are decided value by value instead.
_MANY = 4096
#: Rows per block of the address lookup.
_BLOCK = 1 << 16


def _addresses(values: np.ndarray) -> np.ndarray:
    """Each object's address as an unsigned integer, read from a contiguous object array's own
    buffer (not a copy; the array keeps the objects alive while the addresses are in use)."""
    return np.frombuffer(values, dtype=np.uintp)


def _slots(sample: np.ndarray) -> tuple[int, np.ndarray] | None:
    """A direct-mapped table for a few addresses: ``(bits, addresses by slot)`` such that each
    address has its own slot ``(address >> 4) & (2**bits - 1)`` (objects are 16-byte aligned),
    or ``None`` when no small table separates them."""
    for bits in (8, 10, 12, 14):
        slot = (sample >> 4) & ((1 << bits) - 1)
        if len(np.unique(slot)) == len(sample):
            table = np.zeros(1 << bits, dtype=np.uintp)
            table[slot] = sample
            return bits, table
    return None


def per_object(values: np.ndarray, decide: Callable[[Any], Any], dtype: Any) -> np.ndarray | None:
    """``decide(value)`` for every row, called once per distinct *object* (as a ``dtype``
    column), when an object array repeats few distinct objects; ``None`` when it holds many.

    The distinct objects of the first rows get a slot each in a small table; every row's
    address is looked up there by a shift, a mask and one comparison that proves the row holds
    that very object (block by block, so the temporaries stay in the CPU cache). A column with
    other objects further down is factorized by address instead.

    Example:
        >>> a, b = "model", "application"
        >>> per_object(np.array([a, b, a, a], dtype=object), len, np.int8).tolist()
        [5, 11, 5, 5]
    """
    values = np.ascontiguousarray(values)
    if values.dtype != np.dtype(object) or not len(values):
        return None
    address = _addresses(values)
    head = address[:_SAMPLE]
    sample = pd.unique(head)
    if len(sample) > _FEW:
        return None
    found = _slots(sample)
    if found is not None:
        bits, table = found
        mask = (1 << bits) - 1
        answers = np.zeros(len(table), dtype=dtype)
        answers[(sample >> 4) & mask] = [decide(values[int(np.argmax(head == a))]) for a in sample]
        out = np.empty(len(values), dtype=dtype)
        for start in range(0, len(values), _BLOCK):
            block = address[start : start + _BLOCK]
            slot = np.right_shift(block, 4)
            np.bitwise_and(slot, mask, out=slot)
            index = slot.view(np.intp)
            if not np.array_equal(table.take(index), block):  # an object not among the first rows'
                break
            answers.take(index, out=out[start : start + _BLOCK])
        else:
            return out
    codes, distinct = pd.factorize(address)
    if len(distinct) > _MANY:
        return None
    # Codes are numbered in order of first appearance: each distinct object's first row.
    first = np.zeros(len(distinct), dtype=np.intp)
    seen = np.unique(codes[:_SAMPLE], return_index=True)
    first[seen[0]] = seen[1]
    for code in np.setdiff1d(np.arange(len(distinct)), seen[0], assume_unique=True):
        first[code] = int(np.argmax(codes == code))
    return np.array([decide(v) for v in values[first]], dtype=dtype).take(codes)


def _lookup(choices: tuple[str, ...]) -> Callable[[np.ndarray], np.ndarray] | None:
    """A C hash lookup of each value into ``choices`` (its index, or -1), or ``None`` when this
    pandas has none (pandas' own object hash table, as ``pd.factorize`` uses)."""
    try:
        table = importlib.import_module("pandas._libs.hashtable").PyObjectHashTable(len(choices))
    except (ImportError, AttributeError):  # pragma: no cover - pandas is pinned
        return None
    table.map_locations(np.array(choices, dtype=object))
    return lambda values: np.asarray(table.lookup(values))


def _all_text(values: np.ndarray, *, skipna: bool) -> bool:
    return pd.api.types.infer_dtype(values, skipna=skipna) in ("string", "empty")


def enum_codes(
    values: np.ndarray, choices: tuple[str, ...], choice: Callable[[tuple[str, ...], Any], int], *, strings: bool
) -> np.ndarray | None:
    """Each value's code in ``choices`` (-1 for anything else, missing included), or ``None``
    when only ``choice(choices, value)`` row by row can say (a present value that is not a
    ``str``). ``strings``: the column's dtype already guarantees text or missing.

    Example:
        >>> from custody_lab.whatif.validation import _choice
        >>> enum_codes(np.array(["model", "nobody", None], dtype=object), ("application", "model"),
        ...     _choice, strings=False).tolist()
        [1, -1, -1]
    """
    codes = per_object(values, lambda v: choice(choices, v), np.int8)
    if codes is not None:
        return codes
    lookup = _lookup(choices)
    if lookup is None or not (strings or _all_text(values, skipna=True)):
        return None
    # Every present value is a str, so a hash-and-equality hit is exactly "a str equal to a
    # choice"; missing values are in no table.
    return lookup(values).astype(np.int8)


def blank_strings(values: np.ndarray) -> np.ndarray:
    """Which strings of an object array (no missing values) are empty or only whitespace.

    A blank string is empty or starts with a whitespace character: below ``"!"`` (the ASCII
    ones) or at or after :data:`FIRST_WIDE_SPACE` (the others). Two comparisons, done in C,
    find those candidates; ``str.isspace`` decides each, so the answer is Python's exactly.

    Raises:
        TypeError: when a value is not a string (it does not compare with one).

    Example:
        >>> blank_strings(np.array(["", " ", "a", "\\u3000", "\\xe9", " a"], dtype=object)).tolist()
        [True, True, False, True, False, False]
    """
    out = np.zeros(len(values), dtype=bool)
    if not len(values):
        return out
    low = np.less(values, "!")
    candidates = np.flatnonzero(np.logical_or(low, np.greater_equal(values, FIRST_WIDE_SPACE), out=low))
    if candidates.size:
        out[candidates] = [v == "" or v.isspace() for v in values[candidates]]
    return out


_TEXT, _MISSING, _BLANK, _NOT_TEXT = 0, 1, 2, 3


def _kind(value: Any) -> int:
    """One value of a text column: text, missing (as ``pd.isna`` says), blank, or not text."""
    if isinstance(value, str):
        return _BLANK if value == "" or value.isspace() else _TEXT
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return _MISSING
    return _NOT_TEXT


def text_masks(values: np.ndarray, *, na_value: Any = None) -> tuple[np.ndarray, np.ndarray] | None:
    """``(missing, blank-but-present)`` per value of an object array, or ``None`` when a
    present value is not a ``str``. ``na_value``: the one missing object a ``string[python]``
    column holds (its dtype's), else ``None`` for any object column.

    Example:
        >>> na, blank = text_masks(np.array(["u://x", None, " ", float("nan")], dtype=object))
        >>> na.tolist(), blank.tolist()
        ([False, True, False, True], [False, False, True, False])
    """
    n = len(values)
    values = np.ascontiguousarray(values)
    kind = per_object(values, _kind, np.int8)
    if kind is not None:
        if (kind == _NOT_TEXT).any():
            return None
        return kind == _MISSING, kind == _BLANK
    if na_value is not None:  # a string[python] column: its values are str or its missing value
        na = _addresses(values) == id(na_value)
        present = values[~na] if na.any() else values
        try:
            empty = blank_strings(present)
        except TypeError:  # another missing object than the dtype's own: take the general path
            pass
        else:
            if present is values:
                return np.zeros(n, dtype=bool), empty
            out = np.zeros(n, dtype=bool)
            out[~na] = empty
            return na, out
    if _all_text(values, skipna=False):  # every value a str: nothing is missing
        return np.zeros(n, dtype=bool), blank_strings(values)
    na = np.asarray(pd.isna(values), dtype=bool)
    if not _all_text(values[~na], skipna=False):
        return None
    out = np.zeros(n, dtype=bool)
    out[~na] = blank_strings(values[~na])
    return na, out
