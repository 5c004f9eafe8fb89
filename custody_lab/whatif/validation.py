"""Validation of a sweep frame: one :class:`~custody_lab.core.errors.CaseError` naming the column
and its first bad rows, and the frame reduced to the columns the rules read.

The domain is the one :meth:`Case.from_dict` checks (:data:`custody_lab.core.model.FIELDS`), column
by column: an unknown initiator, negative or fractional bytes, 1/0 in a flag column or a missing
required column raise; nothing is coerced. A ``uri`` / ``mime`` / ``provenance`` column that is
absent means absent on every row (``custody-incomplete``, as ``route`` decides a case without
them), unless the caller asks for ``assume_present=True``. A value of only whitespace is blank,
as the router's ``ScalarOps.blank`` says (the lab's host policy, :mod:`custody_lab.core.blank`).
"""

from __future__ import annotations

__all__ = ["as_policy", "columns_of"]

import difflib
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..core.blank import is_blank
from ..core.errors import CaseError
from ..core.model import FIELD_SPECS, INITIATORS, MAX_BYTES, OPERATIONS, SHAPES, Policy
from ._identity import per_object, rows_holding_either
from .arrow_text import column_codes, column_text_masks, known_masks
from .columns import OUTPUT_COLUMNS, TEXT_FIELDS, Codes, Cols, Text, Tri, all_false, everywhere, nothing
from .object_columns import enum_codes, text_masks

_REQUIRED = ("initiator", "shape", "bytes", "current", "allowed", "sideEffects")
#: How close an extra column's name must be to a case field to be refused as its misspelling.
_CUTOFF = 0.85
#: The case fields a name of each length can be that close to: difflib's ratio is 2·M / (a + b)
#: for M matching characters, and M is at most the shorter length (so a name of another length
#: is never compared, and a frame of many extra columns costs a dictionary look-up a column).
_NEAR_BY_LENGTH: dict[int, list[str]] = {
    n: near
    for n in range(1, 2 * max(map(len, FIELD_SPECS)) + 1)
    if (near := [f for f in FIELD_SPECS if 2 * min(n, len(f)) / (n + len(f)) >= _CUTOFF])
}
_SHOW = 5  # how many bad rows an error message quotes


def _show(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "missing"
    return repr(value.item() if isinstance(value, np.generic) else value)


def _bad_rows(frame: pd.DataFrame, name: str, bad: np.ndarray, problem: str) -> CaseError:
    positions = np.flatnonzero(bad)
    labels = frame.index[positions[:_SHOW]]
    values = frame[name].iloc[positions[:_SHOW]].tolist()
    where = frame.index.name if frame.index.name in ("line", "row") else "row"
    shown = "; ".join(f"{where} {lab!r}: {_show(v)}" for lab, v in zip(labels, values))
    more = f" (and {len(positions) - _SHOW} more)" if len(positions) > _SHOW else ""
    return CaseError(f"column {name!r} {problem}: {len(positions)} bad row(s) — {shown}{more}", name)


def _expected(name: str) -> str:
    return f"must hold {FIELD_SPECS[name].expected()}"


def _choice(choices: tuple[str, ...], value: Any) -> int:
    """The code of ``value`` in ``choices``, or -1 (only a string equal to a choice is one)."""
    return choices.index(value) if isinstance(value, str) and value in choices else -1


def _enum(frame: pd.DataFrame, name: str, choices: tuple[str, ...]) -> Codes:
    s = frame[name]
    if isinstance(s.dtype, pd.CategoricalDtype):
        raw = s.array.codes
        cats = tuple(s.dtype.categories)
        if cats == choices:
            if not len(raw) or raw.min() >= 0:  # a reduction: no per-row mask unless something is missing
                return Codes(raw, choices)
            codes, bad = raw, raw < 0
        else:  # map each category to its code once; the last slot catches -1 (missing)
            table = np.array([choices.index(c) if c in choices else -1 for c in cats] + [-1], dtype=np.int8)
            codes = table.take(raw)
            bad = codes < 0
    else:
        # Python objects: their few distinct objects decided once each, or one C hash lookup a
        # value (object_columns); Arrow strings by Arrow's comparison or hash kernels (arrow_text).
        # Anything else: factorize, then map the few distinct values to codes once; a missing
        # value (-1) takes the last slot, which is "bad".
        found = column_codes(s, choices)
        if found is None:
            found = enum_codes(s.to_numpy(dtype=object), choices, _choice, strings=_is_str(s.dtype))
        if found is None:
            found, distinct = pd.factorize(s.to_numpy(dtype=object))
            table = np.array([_choice(choices, v) for v in distinct] + [-1], dtype=np.int8)
            found = table.take(found)
        codes = found
        if not len(codes) or codes.min() >= 0:  # a reduction: no per-row mask unless a value is bad
            return Codes(codes.astype(np.int8, copy=False), choices)
        bad = codes < 0
    if bad.any():
        raise _bad_rows(frame, name, bad, _expected(name))
    return Codes(codes.astype(np.int8, copy=False), choices)


def _per_value(frame: pd.DataFrame, name: str, ok: Any) -> np.ndarray:
    """Bad-row mask for an object column, checked value by value (the slow, rare path)."""
    return np.fromiter((not ok(v) for v in frame[name].to_numpy(dtype=object)), dtype=bool, count=len(frame))


def _is_whole(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer()


def _bytes(frame: pd.DataFrame) -> np.ndarray:
    name, s = "bytes", frame["bytes"]
    dt = s.dtype
    if dt.kind == "b" or isinstance(dt, pd.BooleanDtype):
        raise _bad_rows(frame, name, np.ones(len(s), dtype=bool), _expected(name) + ", not booleans")
    if dt.kind in "iu" and not isinstance(dt, pd.api.extensions.ExtensionDtype):
        arr = s.to_numpy()
    elif dt.kind in "iuf":  # numpy floats, or a nullable Int/Float column
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~np.isfinite(values) | (values != np.floor(values))
        if bad.any():
            raise _bad_rows(frame, name, bad, _expected(name))
        arr = values if dt.kind == "f" else s.to_numpy(dtype=np.int64)
    elif dt == np.dtype(object):
        bad = _per_value(frame, name, _is_whole)
        if bad.any():
            hint = (
                " (text is not a number: remove the quotes)" if any(isinstance(v, str) for v in s[bad].tolist()) else ""
            )
            raise _bad_rows(frame, name, bad, _expected(name) + hint)
        arr = np.array([int(v) for v in s.tolist()], dtype=object)
    else:
        hint = " (text is not a number: remove the quotes)" if pd.api.types.is_string_dtype(dt) else ""
        raise _bad_rows(frame, name, np.ones(len(s), dtype=bool), _expected(name) + hint)
    arr = np.asarray(arr)
    if arr.dtype.kind == "i" and arr.dtype.itemsize >= 4 and arr.size:
        # One reduction: as unsigned (32 or 64 bits), a negative number is larger than any size.
        in_range = int(arr.view(arr.dtype.str.replace("i", "u")).max()) <= MAX_BYTES
    else:
        in_range = not arr.size or (arr.min() >= 0 and arr.max() <= MAX_BYTES)
    if not in_range:
        raise _bad_rows(
            frame, name, np.asarray((arr < 0) | (arr > MAX_BYTES), dtype=bool), f"must be from 0 to {MAX_BYTES} (1 GiB)"
        )
    return arr.astype(np.int64, copy=False)


_FALSE, _TRUE, _UNKNOWN, _NOT_FLAG = 0, 1, 2, 3


def _flag_kind(value: Any) -> int:
    """One value of a flag column: False, True, missing (as ``pd.isna`` says) or not a flag."""
    if isinstance(value, (bool, np.bool_)):
        return _TRUE if value else _FALSE
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return _UNKNOWN
    return _NOT_FLAG


def _flag_masks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(true, missing)`` of an object flag column, each value read as :func:`_flag_kind` reads
    it, or ``None`` when it holds many distinct objects or something not a flag (the
    value-by-value check then names those rows).

    ``True`` and ``False`` are singletons, so the rows holding exactly those two objects are
    found by their addresses alone (two integer comparisons a row, no Python call); the rest
    (``NaN`` / ``None``, a ``numpy.bool_``, a stray value) is decided object by object, each
    distinct object once.

    Example:
        >>> [m.tolist() for m in _flag_masks(np.array([True, False, None, np.nan, np.True_], dtype=object))]
        [[True, False, False, False, True], [False, False, True, True, False]]
        >>> _flag_masks(np.array([True, 1], dtype=object)) is None  # 1 == True, but it is not a flag
        True
    """
    values = np.ascontiguousarray(values)
    true, other = rows_holding_either(values, True, False)  # other: neither the True nor the False object
    rows = np.flatnonzero(other)
    if not rows.size:
        return true, nothing(len(values))
    kinds = per_object(values[rows], _flag_kind, np.int8)
    if kinds is None or (kinds == _NOT_FLAG).any():
        return None
    if (kinds == _UNKNOWN).all():  # the usual rest: NaN or None
        return true, other
    true[rows] = kinds == _TRUE
    missing = np.zeros(len(values), dtype=bool)
    missing[rows] = kinds == _UNKNOWN
    return true, missing


def _bool(frame: pd.DataFrame, name: str, na: str) -> Any:
    """A boolean column. ``na``: "error" (must be given), "false" (missing = False) or "unknown"."""
    s = frame[name]
    dt = s.dtype
    n = len(s)
    if dt == np.dtype(bool):
        value, missing = s.to_numpy(), None
    elif isinstance(dt, pd.BooleanDtype):
        value = s.to_numpy(dtype=bool, na_value=False)
        missing = s.isna().to_numpy()
    elif dt == np.dtype(object) and (masks := _flag_masks(s.to_numpy(dtype=object))) is not None:
        value, missing = masks  # True/False objects by address, the rest each distinct object once
    elif dt == np.dtype(object):
        raw = s.to_numpy(dtype=object)
        missing = pd.isna(raw)
        known = raw[~missing]
        if pd.api.types.infer_dtype(known, skipna=False) not in ("boolean", "empty"):
            bad = _per_value(frame, name, lambda v: pd.isna(v) or isinstance(v, (bool, np.bool_)))
            if bad.any():
                raise _bad_rows(frame, name, bad, _expected(name))
        value = np.zeros(n, dtype=bool)
        value[~missing] = known.astype(bool)
    elif s.isna().all():  # e.g. an all-empty column read from a CSV (float NaN)
        value, missing = np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
    else:
        raise _bad_rows(frame, name, s.notna().to_numpy(), _expected(name))
    if missing is not None and missing.any():
        if na == "error":
            raise _bad_rows(frame, name, missing, _expected(name) + " on every row (a missing value is not false)")
        if na == "unknown":
            return Tri(value, missing)
    if na == "unknown":
        return Tri(value, nothing(n))
    return value


def _is_str(dt: Any) -> bool:
    """A pandas string dtype: its values are text or its missing value, nothing else."""
    return isinstance(dt, pd.StringDtype)


def _text_masks(na: np.ndarray, empty: np.ndarray) -> Text:
    """Masks that are all False become broadcast False, which the rules skip at no cost."""
    none = nothing(len(na))
    return Text(na if not all_false(na) and na.any() else none, empty if not all_false(empty) and empty.any() else none)


def _not_text(frame: pd.DataFrame, name: str) -> np.ndarray:
    return _per_value(frame, name, lambda v: pd.isna(v) or isinstance(v, str))


def _refuse_non_text(frame: pd.DataFrame, name: str) -> None:
    bad = _not_text(frame, name)
    if bad.any():
        raise _bad_rows(frame, name, bad, "must hold text (or be missing)")


def _text(frame: pd.DataFrame, name: str, assume_present: bool) -> Text:
    n = len(frame)
    if name not in frame.columns:  # absent: missing on every row, unless asked to assume it
        return Text(nothing(n) if assume_present else everywhere(n), nothing(n))
    s = frame[name]
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        if len(dt.categories) and dt.categories.inferred_type not in ("string", "empty"):
            _refuse_non_text(frame, name)
        raw = s.array.codes
        none = nothing(n)
        if not n:
            return Text(none, none)
        na = raw < 0 if raw.min() < 0 else none
        blank = np.flatnonzero([isinstance(c, str) and is_blank(c) for c in dt.categories])
        if not blank.size:
            empty = none
        elif blank.size == 1:
            empty = raw == blank[0]
        else:
            empty = np.isin(raw, blank)
        return _text_masks(na, empty)
    known = known_masks(s)
    if known is not None:  # built without blanks (load_inventory): the null bitmap says it all
        return _text_masks(*known)
    masks = column_text_masks(s)
    if masks is not None:  # pyarrow strings: the null bitmap and the offsets, not the values
        return _text_masks(*masks)
    if _is_str(dt) or dt == np.dtype(object):  # Python objects (object_columns)
        masks = text_masks(s.to_numpy(dtype=object), na_value=dt.na_value if isinstance(dt, pd.StringDtype) else None)
        if masks is None:  # a present value that is not text: quote those rows
            raise _bad_rows(frame, name, _not_text(frame, name), "must hold text (or be missing)")
        return _text_masks(*masks)
    if s.isna().all():
        return Text(np.ones(n, dtype=bool), np.zeros(n, dtype=bool))
    raise _bad_rows(frame, name, s.notna().to_numpy(), "must hold text (or be missing)")


def columns_of(frame: Any, *, assume_present: bool = False) -> Cols:
    """Validate a sweep frame and reduce it to what the rules need.

    Args:
        frame: a frame of cases (see :mod:`custody_lab.whatif.sweep` for its columns).
        assume_present: an absent ``uri`` / ``mime`` / ``provenance`` column means present on
            every row (otherwise: missing on every row, as for ``route``).

    Raises:
        CaseError: naming the first bad column and its first bad rows.

    Example:
        >>> frame = pd.DataFrame({"initiator": ["model"], "shape": ["resource-link"],
        ...     "bytes": [10], "current": [True], "allowed": [True], "sideEffects": [None]})
        >>> cols = columns_of(frame)
        >>> cols.n, cols.fields["sideEffects"].unknown.tolist(), cols.fields["uri"].na.tolist()
        (1, [True], [True])
    """
    if not isinstance(frame, pd.DataFrame):
        raise CaseError(f"sweep needs a pandas DataFrame of cases; got {type(frame).__name__}", None)
    columns = [str(c) for c in frame.columns]
    counts = Counter(columns)  # one pass: a frame of 40,000 columns is not searched 40,000 times
    if len(counts) != len(columns):
        dup = next(c for c in columns if counts[c] > 1)
        raise CaseError(f"column {dup!r} appears more than once", dup)
    names = set(columns)
    for col in columns:
        if col in FIELD_SPECS or col in OUTPUT_COLUMNS:
            continue
        near = _NEAR_BY_LENGTH.get(len(col))  # only a name of about a field's length can be close to it
        close = difflib.get_close_matches(col, near, n=1, cutoff=_CUTOFF) if near else []
        if close and close[0] not in names:
            raise CaseError(
                f"column {col!r} is not a case field; did you mean {close[0]!r}? "
                f"(case fields: {', '.join(FIELD_SPECS)})",
                col,
            )
    missing = [c for c in _REQUIRED if c not in names]
    if missing:
        name = missing[0]
        extra = " (use a missing value, not a missing column, for 'nobody said')" if name == "sideEffects" else ""
        raise CaseError(
            f"missing required column {name!r}: it must hold {FIELD_SPECS[name].expected()}{extra}; "
            f"missing: {', '.join(map(repr, missing))}",
            name,
        )
    n = len(frame)
    fields: dict[str, Any] = {
        "initiator": _enum(frame, "initiator", INITIATORS),
        "shape": _enum(frame, "shape", SHAPES),
        "bytes": _bytes(frame),
        "current": _bool(frame, "current", "error"),
        "allowed": _bool(frame, "allowed", "error"),
        "sideEffects": _bool(frame, "sideEffects", "unknown"),
        "requiresCurrent": (_bool(frame, "requiresCurrent", "false") if "requiresCurrent" in names else nothing(n)),
    }
    if "operation" in names:
        fields["operation"] = _enum(frame, "operation", OPERATIONS)
    for name in TEXT_FIELDS:
        fields[name] = _text(frame, name, assume_present)
    given = frozenset(c for c in ("operation", "requiresCurrent", *TEXT_FIELDS) if c in names)
    return Cols(n, fields, given)


def as_policy(policy: Policy | Mapping[str, Any] | None) -> Policy:
    """A :class:`Policy` from a policy, its dict form (``{"embedLimitBytes": 2048}``) or ``None``
    (the seed's).

    Raises:
        PolicyError: when the dict form is invalid.

    Example:
        >>> as_policy({"embedLimitBytes": 2048}).embed_limit_bytes, as_policy(None) == Policy()
        (2048, True)
    """
    if policy is None:
        return Policy()
    if isinstance(policy, Policy):
        return policy
    return Policy.from_dict(policy)
