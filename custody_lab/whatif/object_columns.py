"""Columns held as Python objects (``object`` or ``string[python]``), reduced with few visits.

Such a column has no buffer of characters to read (:mod:`~custody_lab.whatif.arrow_text` has
one): each value is its own Python object, and what the sweep asks of it — which enumeration
code, missing or blank — is answered by C loops over the objects, never a Python call per row.

- **Few distinct objects.** Many such columns repeat a handful of objects: pandas' CSV parser
  reuses one object per distinct cell, a categorical converted to ``object`` repeats its
  categories, Python literals are shared. Each distinct *object* is then decided once
  (:func:`~custody_lab.whatif._identity.per_object`, which groups the rows by object address).
- **Otherwise**, every value is visited in C: an enumeration by one hash lookup into its closed
  set (after pandas' type inference proves every present value is a ``str``), a text column by
  two comparisons that find the few strings that *could* be blank (a first character at or below
  :data:`~custody_lab.core.blank.ASCII_SPACE_MAX` or at or above
  :data:`~custody_lab.core.blank.WIDE_SPACE_MIN`), which :func:`~custody_lab.core.blank.is_blank`
  then decides: what is blank is the core's one definition.
"""

from __future__ import annotations

__all__ = ["blank_strings", "enum_codes", "text_masks"]

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..core.blank import ASCII_SPACE_MAX, WIDE_SPACE_MIN, is_blank
from ._identity import per_object, rows_holding

#: A string below this one starts with a character at or below the last ASCII whitespace (or is
#: empty): a blank candidate.
_ABOVE_ASCII_SPACE = chr(ord(ASCII_SPACE_MAX) + 1)


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

    A blank string is empty or starts with a whitespace character: at or below
    :data:`~custody_lab.core.blank.ASCII_SPACE_MAX` (the ASCII ones) or at or above
    :data:`~custody_lab.core.blank.WIDE_SPACE_MIN` (the others). Two comparisons, done in C,
    find those candidates; :func:`~custody_lab.core.blank.is_blank` decides each.

    Raises:
        TypeError: when a value is not a string (it does not compare with one).

    Example:
        >>> blank_strings(np.array(["", " ", "a", "\\u3000", "\\xe9", " a"], dtype=object)).tolist()
        [True, True, False, True, False, False]
    """
    out = np.zeros(len(values), dtype=bool)
    if not len(values):
        return out
    low = np.less(values, _ABOVE_ASCII_SPACE)
    candidates = np.flatnonzero(np.logical_or(low, np.greater_equal(values, WIDE_SPACE_MIN), out=low))
    if candidates.size:
        out[candidates] = [is_blank(v) for v in values[candidates]]
    return out


_TEXT, _MISSING, _BLANK, _NOT_TEXT = 0, 1, 2, 3


def _kind(value: Any) -> int:
    """One value of a text column: text, missing (as ``pd.isna`` says), blank, or not text."""
    if isinstance(value, str):
        return _BLANK if is_blank(value) else _TEXT
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
        na = rows_holding(values, na_value)
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
