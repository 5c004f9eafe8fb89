"""What-if analysis: route whole design grids at once, with the router's own rule table.

A designer asks "what if": what happens to every capability of my server if the embed limit drops
to 2 KiB, if half the resources go stale, if a tool starts changing state? :func:`sweep` answers for
a whole table of cases at once, and decides **exactly** as :func:`custody_lab.route` does row by
row, because it evaluates the same rule table (:data:`custody_lab.core.rules.RULES`): each rule's
``fires`` expression is run once over numpy arrays through :class:`VectorOps`, an implementation of
the rules' ``Ops`` algebra. The rule order and predicates live only in ``rules.py``; the first rule
that fires on a row decides it (seed 000, "Runnable artifact": the router returns at the first
failed check).

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
``uri``, ``mime``, optional  text. **An absent column means "present on every row"**: a design
``provenance``               grid is about initiators, shapes and sizes and often has no
                             addresses, so leaving the column out asks about the design
                             alone. When the column is there, a missing or empty value
                             fires ``custody-incomplete`` exactly as ``route`` does.
``id`` and others  optional  carried through to the output untouched
=================  ========  ==========================================================

Values outside that domain (an unknown initiator, negative or fractional bytes, 1/0 in a boolean
column, a missing required column) raise one :class:`~custody_lab.core.errors.CaseError` naming the
column and the first bad rows; nothing is coerced. The fast path is a frame whose ``initiator``
and ``shape`` are categoricals (what :func:`grid` and :func:`load_inventory` produce): the rules
then compare small integer codes. Plain text columns work too; they are mapped to codes once.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_AXES",
    "OUTCOMES",
    "OUTCOME_DTYPE",
    "PRESENT",
    "REJECTION_DTYPE",
    "SHAPE_DTYPE",
    "Codes",
    "Comparison",
    "Text",
    "Tri",
    "VectorOps",
    "compare",
    "flips",
    "grid",
    "load_inventory",
    "load_policy",
    "outcome_counts",
    "read_grid",
    "sweep",
    "to_frame",
]

import csv
import difflib
import functools
import json
import math
import sys
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError, CaseFileError, PolicyError, Problem
from ..core.loading import read_cases
from ..core.model import FIELD_SPECS, FIELDS, INITIATORS, MAX_BYTES, OPERATIONS, SHAPES, Case, Policy
from ..core.model import check_value as _check_value
from ..core.rules import RULES, rule_codes

#: Every outcome a row can get: the five shapes (accepted), then the rule codes in table order.
OUTCOMES: tuple[str, ...] = SHAPES + rule_codes()
SHAPE_DTYPE = pd.CategoricalDtype(list(SHAPES))
REJECTION_DTYPE = pd.CategoricalDtype(list(rule_codes()))
OUTCOME_DTYPE = pd.CategoricalDtype(list(OUTCOMES))
_INITIATOR_DTYPE = pd.CategoricalDtype(list(INITIATORS))
_OPERATION_DTYPE = pd.CategoricalDtype(list(OPERATIONS))

#: The value :func:`flips` writes for "a URI / MIME type / provenance is there" (any non-empty text).
PRESENT = "(present)"

#: The axes :func:`grid` uses for every field not given: every initiator × shape × size in
#: 0..20000 step 500 × every flag, including "nobody said" for side effects (9,840 rows).
DEFAULT_AXES: dict[str, tuple[Any, ...]] = {
    "initiator": INITIATORS,
    "shape": SHAPES,
    "bytes": tuple(range(0, 20001, 500)),
    "current": (True, False),
    "allowed": (True, False),
    "sideEffects": (False, True, None),
    "requiresCurrent": (False, True),
}

_SPEC = FIELD_SPECS
_REQUIRED = ("initiator", "shape", "bytes", "current", "allowed", "sideEffects")
_TEXT = ("uri", "mime", "provenance")
_DECISIVE = (
    "initiator",
    "operation",
    "shape",
    "uri",
    "mime",
    "bytes",
    "current",
    "allowed",
    "sideEffects",
    "provenance",
    "requiresCurrent",
)
_OUTPUT = ("accepted", "selected", "rejection", "outcome")
_SHOW = 5  # how many bad rows an error message quotes


# --------------------------------------------------------------------------------------------
# Columns as the rules see them


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
    """A text column reduced to what the rules ask of it: missing (``na``) or ``empty``."""

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
def _nothing(n: int) -> np.ndarray:
    """A read-only column of n False values that takes no memory (one value, stride 0)."""
    return np.broadcast_to(False, (n,))


def _column_of(mask: Any, n: int) -> np.ndarray:
    """A rule's result as a column of n booleans (a scalar result is broadcast, not copied)."""
    mask = np.asarray(mask, dtype=bool)
    if mask.shape == (n,):
        return mask
    if mask.ndim == 0 and not mask:
        return _nothing(n)
    return np.broadcast_to(mask, (n,))


def _all_false(a: Any) -> bool:
    """True for ``False`` or a zero-stride (broadcast) column of False: nothing to compute."""
    if isinstance(a, (bool, np.bool_)):
        return not a
    return isinstance(a, np.ndarray) and a.ndim == 1 and a.strides == (0,) and a.size > 0 and not a[0]


def _or_fast(a: Any, b: Any) -> Any:
    # Absent columns are broadcast False: or-ing with them is the other operand, unchanged.
    if _all_false(b):
        return a
    if _all_false(a):
        return b
    return np.logical_or(a, b)


_OPS = VectorOps()


def _bit_dtype(n_rules: int) -> Any:
    """The smallest unsigned type with a bit per rule plus one for "no rule fired"."""
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if n_rules < np.iinfo(dtype).bits:
            return dtype
    return None


_BITS = _bit_dtype(len(RULES))


@dataclass(frozen=True, eq=False)
class _Cols:
    """A validated frame as the rules see it (decisive fields only)."""

    n: int
    fields: dict[str, Any]
    given: frozenset[str]  # the optional fields the frame actually had as columns

    def view(self) -> dict[str, Any]:
        return self.fields


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


def _blocks(cols: _Cols) -> Iterator[tuple[slice, _Cols]]:
    """The frame in blocks of rows (one block when it is small): a loop over blocks, not rows."""
    if cols.n <= _BLOCK:
        yield slice(0, cols.n), cols
        return
    for start in range(0, cols.n, _BLOCK):
        stop = min(start + _BLOCK, cols.n)
        yield (
            slice(start, stop),
            _Cols(stop - start, {k: _slice(v, start, stop) for k, v in cols.fields.items()}, cols.given),
        )


def _rule_index(cols: _Cols, policy: Policy) -> np.ndarray:
    """Per row of one block, the index in RULES of the first rule that fires, or ``len(RULES)``."""
    n, view, n_rules = cols.n, cols.view(), len(RULES)
    masks = [_column_of(r.fires(view, policy, _OPS), n) for r in RULES]
    if _BITS is not None:
        # Bit i is set when rule i fires; bit n_rules is always set ("accepted"). The lowest set
        # bit is the first rule in table order that fires: isolate it (x & -x) and count the bits
        # below it. Branch-free, so it costs the same whatever the mix of outcomes.
        bits = np.full(n, 1 << n_rules, dtype=_BITS)
        tmp = np.empty(n, dtype=_BITS)
        for i, m in enumerate(masks):
            if _all_false(m):
                continue
            flag = m.view(np.uint8) if _BITS is np.uint8 else m.astype(_BITS)
            np.multiply(flag, _BITS(1 << i), out=tmp)  # (a multiply vectorises better than a shift)
            np.bitwise_or(bits, tmp, out=bits)
        lowest = bits & (_BITS(0) - bits)
        count = np.bitwise_count(lowest - _BITS(1))  # 0..n_rules
        return count.view(np.int8) if count.dtype == np.uint8 else count.astype(np.int8)
    index = np.full(n, n_rules, dtype=np.int8)
    for i in reversed(range(n_rules)):
        np.copyto(index, i, where=masks[i])
    return index


@dataclass(frozen=True, eq=False)
class _Decisions:
    """Per row: the outcome's code in OUTCOMES; with ``full``, also accepted / selected / rejection."""

    outcome: np.ndarray
    accepted: np.ndarray | None = None
    selected: np.ndarray | None = None  # a code into SHAPES, or -1
    rejection: np.ndarray | None = None  # a code into the rule codes, or -1


def _decide(cols: _Cols, policy: Policy, *, full: bool = False) -> _Decisions:
    """Evaluate the rule table block by block; every output is computed while the block is hot."""
    n, n_rules, n_shapes = cols.n, np.int8(len(RULES)), np.int8(len(SHAPES))
    out = _Decisions(
        np.empty(n, dtype=np.int8),
        *((np.empty(n, dtype=bool), np.empty(n, dtype=np.int8), np.empty(n, dtype=np.int8)) if full else ()),
    )
    for rows, block in _blocks(cols):
        index = _rule_index(block, policy)
        accepted = index == n_rules
        a = accepted.view(np.int8)
        shape = block.fields["shape"].codes
        # accepted: the shape's code; refused: the rule's code after the shapes (branch-free).
        np.add(index + n_shapes, a * (shape - (n_shapes + n_rules)), out=out.outcome[rows])
        if full:
            out.accepted[rows] = accepted
            np.subtract(a * (shape + np.int8(1)), np.int8(1), out=out.selected[rows])  # shape or -1
            np.subtract(index, a * (n_rules + np.int8(1)), out=out.rejection[rows])  # rule or -1
    return out


def _outcome_codes(cols: _Cols, policy: Policy) -> np.ndarray:
    """Per row, the code of its outcome in :data:`OUTCOMES`."""
    return _decide(cols, policy).outcome


# --------------------------------------------------------------------------------------------
# Validation: one CaseError naming the column and the first bad rows


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
    return f"must hold {_SPEC[name].expected()}"


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
    elif isinstance(s.dtype, pd.StringDtype) and s.dtype.storage == "pyarrow":
        # Arrow strings factorize fast; then the few distinct values are mapped to codes once.
        found, distinct = pd.factorize(s)
        table = np.array([choices.index(v) if v in choices else -1 for v in distinct] + [-1], dtype=np.int8)
        codes = table.take(found)
        bad = codes < 0
    else:
        codes = pd.Index(choices).get_indexer(s)
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
        return Tri(value, _nothing(n))
    return value


def _text_masks(na: np.ndarray, empty: np.ndarray) -> Text:
    """Masks that are all False become broadcast False, which the rules skip at no cost."""
    nothing = _nothing(len(na))
    return Text(
        na if not _all_false(na) and na.any() else nothing, empty if not _all_false(empty) and empty.any() else nothing
    )


def _refuse_non_text(frame: pd.DataFrame, name: str) -> None:
    bad = _per_value(frame, name, lambda v: pd.isna(v) or isinstance(v, str))
    if bad.any():
        raise _bad_rows(frame, name, bad, "must hold text (or be missing)")


def _text(frame: pd.DataFrame, name: str) -> Text:
    n = len(frame)
    if name not in frame.columns:
        nothing = _nothing(n)
        return Text(nothing, nothing)
    s = frame[name]
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        if len(dt.categories) and dt.categories.inferred_type not in ("string", "empty"):
            _refuse_non_text(frame, name)
        raw = s.array.codes
        nothing = _nothing(n)
        if not n:
            return Text(nothing, nothing)
        na = raw < 0 if raw.min() < 0 else nothing
        empty = raw == dt.categories.get_loc("") if "" in dt.categories else nothing
        return _text_masks(na, empty)
    if isinstance(dt, pd.StringDtype):
        if dt.storage == "python":  # comparing the object array itself is the quickest "== ''"
            return _text_masks(s.isna().to_numpy(), np.asarray(s.to_numpy(dtype=object) == "", dtype=bool))
        return _text_masks(s.isna().to_numpy(), (s == "").to_numpy(dtype=bool, na_value=False))
    if dt == np.dtype(object):
        raw = s.to_numpy(dtype=object)
        na = pd.isna(raw)
        if pd.api.types.infer_dtype(raw[~na], skipna=False) not in ("string", "empty"):
            _refuse_non_text(frame, name)
        return _text_masks(na, np.asarray(raw == "", dtype=bool))
    if s.isna().all():
        return Text(np.ones(n, dtype=bool), np.zeros(n, dtype=bool))
    raise _bad_rows(frame, name, s.notna().to_numpy(), "must hold text (or be missing)")


def _columns(frame: Any) -> _Cols:
    """Validate a sweep frame and reduce it to what the rules need."""
    if not isinstance(frame, pd.DataFrame):
        raise CaseError(f"sweep needs a pandas DataFrame of cases; got {type(frame).__name__}", None)
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) != len(columns):
        dup = next(c for c in columns if columns.count(c) > 1)
        raise CaseError(f"column {dup!r} appears more than once", dup)
    names = set(columns)
    for col in columns:
        if col in _SPEC or col in _OUTPUT:
            continue
        close = difflib.get_close_matches(col, list(_SPEC), n=1, cutoff=0.85)
        if close and close[0] not in names:
            raise CaseError(
                f"column {col!r} is not a case field; did you mean {close[0]!r}? (case fields: {', '.join(_SPEC)})",
                col,
            )
    missing = [c for c in _REQUIRED if c not in names]
    if missing:
        name = missing[0]
        extra = " (use a missing value, not a missing column, for 'nobody said')" if name == "sideEffects" else ""
        raise CaseError(
            f"missing required column {name!r}: it must hold {_SPEC[name].expected()}{extra}; "
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
        "requiresCurrent": (_bool(frame, "requiresCurrent", "false") if "requiresCurrent" in names else _nothing(n)),
    }
    if "operation" in names:
        fields["operation"] = _enum(frame, "operation", OPERATIONS)
    for name in _TEXT:
        fields[name] = _text(frame, name)
    given = frozenset(c for c in ("operation", "requiresCurrent", *_TEXT) if c in names)
    return _Cols(n, fields, given)


def _as_policy(policy: Policy | Mapping[str, Any] | None) -> Policy:
    if policy is None:
        return Policy()
    if isinstance(policy, Policy):
        return policy
    return Policy.from_dict(policy)


# --------------------------------------------------------------------------------------------
# sweep


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
        frame.drop(columns=[c for c in _OUTPUT if c in frame.columns])
        if any(c in frame.columns for c in _OUTPUT)
        else frame
    )
    return pd.concat([kept, added], axis=1)


def sweep(frame: pd.DataFrame, policy: Policy | Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Route every row of a frame of cases at once, exactly as :func:`custody_lab.route` would.

    Args:
        frame: one case a row, the case fields as camelCase columns (see the module docstring
            for which are required; an absent ``uri``/``mime``/``provenance`` column means
            "present on every row").
        policy: a :class:`Policy` or its dict form (``{"embedLimitBytes": 2048}``); the seed's
            when omitted.

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
        >>> sweep(frame)["outcome"].tolist()
        ['embedded-resource', 'embed-over-budget']
    """
    cols = _columns(frame)
    policy = _as_policy(policy)
    return _attach(frame, _decide(cols, policy, full=True))


def outcome_counts(swept: pd.DataFrame, *, by: str | None = None) -> pd.DataFrame:
    """How many rows got each outcome (in rule-table order), with their share.

    Args:
        swept: a frame returned by :func:`sweep`.
        by: optionally an input column; the result then has one column of counts per value.

    Example:
        >>> out = sweep(grid(initiator="model", shape="embedded-resource", bytes=[100, 5000],
        ...     current=True, allowed=True, sideEffects=False, requiresCurrent=False))
        >>> outcome_counts(out)["cases"].to_dict()
        {'embedded-resource': 1, 'embed-over-budget': 1}
    """
    if "outcome" not in swept.columns:
        raise CaseError("outcome_counts needs a frame returned by sweep (no 'outcome' column)", "outcome")
    if by is not None:
        table = pd.crosstab(swept["outcome"], swept[by], dropna=False)
        return table.loc[table.sum(axis=1) > 0]
    counts = swept["outcome"].value_counts(sort=False)
    counts = counts[counts > 0]
    total = int(counts.sum())
    return pd.DataFrame({"cases": counts.astype(int), "share": counts / total if total else counts * 0.0}).rename_axis(
        "outcome"
    )


# --------------------------------------------------------------------------------------------
# grid


def _axis_values(name: str, values: Any) -> list[Any]:
    if isinstance(values, (str, bytes, bool, int, float)) or values is None:
        values = [values]
    try:
        items = list(values)
    except TypeError as e:
        raise CaseError(f"grid axis {name!r} must be a value or a list of values; got {values!r}", name) from e
    if not items:
        raise CaseError(f"grid axis {name!r} has no values: give at least one", name)
    checked = []
    for v in items:
        if name == "requiresCurrent" and v is None:
            raise CaseError("grid axis 'requiresCurrent' must hold true or false, not None", name)
        checked.append(_check_value(_SPEC[name], v))  # the same checks as Case.from_dict
    return checked


def grid(**axes: Any) -> pd.DataFrame:
    """Every combination of the given input values, as a frame ready for :func:`sweep`.

    Each keyword is a case field (camelCase) and a list of values (a single value fixes the
    field). Fields not given take :data:`DEFAULT_AXES`; ``operation``, ``uri``, ``mime`` and
    ``provenance`` are columns only when given (an absent ``uri`` column means "present"; give
    ``uri=["u://x", None]`` to ask about missing addresses). Enum fields come out as categoricals.

    Raises:
        CaseError: for an unknown field or a value ``Case`` would refuse.

    Example:
        >>> g = grid(bytes=[0, 4096, 4097], current=True, allowed=True, sideEffects=False,
        ...     requiresCurrent=False)
        >>> len(g), list(g.columns)[:3]  # 2 initiators × 5 shapes × 3 sizes
        (30, ['initiator', 'shape', 'bytes'])
    """
    allowed = [n for n in _DECISIVE]
    for name in axes:
        if name not in allowed:
            close = difflib.get_close_matches(name, allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise CaseError(f"{name!r} is not a grid axis{hint} (axes: {', '.join(allowed)})", name)
    spec = {**DEFAULT_AXES, **axes}
    order = [n for n in _DECISIVE if n in spec]
    values = {n: _axis_values(n, spec[n]) for n in order}
    sizes = [len(values[n]) for n in order]
    total = math.prod(sizes)
    positions = np.arange(total, dtype=np.int64)
    data: dict[str, Any] = {}
    stride = total
    for name, size in zip(order, sizes):
        stride //= size
        pick = (positions // stride) % size if size > 1 else np.zeros(total, dtype=np.int64)
        vals = values[name]
        kind = _SPEC[name].kind
        if kind == "enum":
            choices = list(_SPEC[name].choices)
            table = np.array([choices.index(v) for v in vals], dtype=np.int8)
            data[name] = pd.Categorical.from_codes(table.take(pick), dtype=pd.CategoricalDtype(choices))
        elif kind == "int":
            data[name] = np.array(vals, dtype=np.int64).take(pick)
        elif kind == "bool" and any(v is None for v in vals):
            value = np.array([bool(v) for v in vals], dtype=bool)
            unknown = np.array([v is None for v in vals], dtype=bool)
            data[name] = pd.arrays.BooleanArray(value.take(pick), unknown.take(pick))
        elif kind == "bool":
            data[name] = np.array(vals, dtype=bool).take(pick)
        else:  # uri / mime / provenance: categorical text, missing where None
            cats = list(dict.fromkeys(v for v in vals if v is not None))
            table = np.array([cats.index(v) if v is not None else -1 for v in vals], dtype=np.int32)
            data[name] = pd.Categorical.from_codes(table.take(pick), dtype=pd.CategoricalDtype(cats))
    return pd.DataFrame(data)


# --------------------------------------------------------------------------------------------
# frames from cases; files in and out


def to_frame(cases: Iterable[Case | Mapping[str, Any]]) -> pd.DataFrame:
    """A sweep frame from cases (each validated by :meth:`Case.from_dict`), one row per case.

    Every field is a column in the seed's order; enum fields are categoricals, ``sideEffects`` a
    nullable boolean, the text fields pandas strings (missing where the case has none).

    Example:
        >>> from custody_lab import load_fixture
        >>> to_frame(load_fixture().cases)["shape"].tolist()[:2]
        ['listed-resource', 'templated-resource']
    """
    rows = [c if isinstance(c, Case) else Case.from_dict(c) for c in cases]
    data: dict[str, Any] = {}
    for spec in FIELDS:
        values = [c.get(spec.name) for c in rows]
        if spec.kind == "enum":
            data[spec.name] = pd.Categorical(values, categories=list(spec.choices))
        elif spec.kind == "int":
            data[spec.name] = np.array(values, dtype=np.int64)
        elif spec.name == "sideEffects":
            data[spec.name] = pd.array(values, dtype="boolean")
        elif spec.kind == "bool":
            data[spec.name] = np.array(values, dtype=bool)
        else:
            data[spec.name] = pd.array(values, dtype="str")
    return pd.DataFrame(data)


def load_inventory(path: str | Path) -> pd.DataFrame:
    """Read a designer's capability inventory (CSV or JSON, one row per resource or tool).

    The columns are the case fields (``data/cases.json``'s keys); describe a capability in the
    ``title`` and ``description`` columns, which are shown but never decide anything. Every row is
    validated by :meth:`Case.from_dict` (the loader of :mod:`custody_lab.core.loading`), so an
    inventory is refused for the same reasons a case file is. A column that is not a case field
    is reported once, by name, rather than silently dropped.

    Returns:
        A sweep frame (see :func:`to_frame`).

    Raises:
        CaseFileError: listing every problem (unknown columns, then each bad row with its line
            and field); ``.cases`` keeps the good rows.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> inv = load_inventory(data_path("inventories", "support-desk.csv"))
        >>> inv["id"].iloc[0]
        'kb-returns-policy'
    """
    p = Path(path)
    if p.suffix.lower() == ".csv":
        try:
            with p.open(encoding="utf-8", newline="") as f:
                header = next(csv.reader(f), [])
        except (OSError, UnicodeDecodeError) as e:
            raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {e}")]) from e
        problems = []
        for col in (h.strip() for h in header):
            if col not in _SPEC:
                close = difflib.get_close_matches(col, list(_SPEC), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                problems.append(
                    Problem(
                        f"{p.name} line 1",
                        col,
                        f"unknown column {col!r}: {hint}an inventory holds only case fields "
                        f"({', '.join(_SPEC)}); put descriptive text in 'title' or 'description'",
                    )
                )
        if problems:
            raise CaseFileError(str(p), problems)
    result = read_cases(p)
    if result.problems:
        raise CaseFileError(str(p), result.problems, result.cases)
    if not result.cases:
        raise CaseFileError(str(p), [Problem(p.name, None, "the inventory has no capabilities")])
    return to_frame(result.cases)


def load_policy(path: str | Path) -> Policy:
    """Read a policy JSON file such as ``data/policies/strict.json``.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> load_policy(data_path("policies", "strict.json")).embed_limit_bytes
        2048
    """
    try:
        return Policy.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PolicyError(f"cannot read policy file {path}: {e}") from e


def _csv_column(name: str, raw: pd.Series) -> pd.Series:
    """One CSV column, read as the case loader reads cells; anything else stays text for sweep
    to report (``true``/``false`` → booleans, whole numbers → ints, empty → missing)."""
    spec = _SPEC.get(name)
    if spec is None:
        return raw
    text = raw.str.strip()
    missing = text == ""
    if spec.nullable:
        missing |= text.str.lower() == "null"
    out = raw.astype(object)
    if spec.kind == "bool":
        low = text.str.lower()
        out = out.mask(low == "true", True).mask(low == "false", False)
    elif spec.kind == "int":
        whole = text.str.fullmatch(r"[+-]?\d{1,18}")
        out = out.astype(object)
        out[whole] = text[whole].astype(np.int64).astype(object)
    out[missing] = None
    if spec.kind == "int" and not missing.any() and whole.all():
        return out.astype(np.int64)
    if spec.kind == "bool" and not missing.any() and out.map(type).eq(bool).all():
        return out.astype(bool)
    return out


def _read_grid(path: str | Path) -> tuple[pd.DataFrame, Policy | None]:
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        try:
            with p.open(encoding="utf-8", newline="") as f:
                reader = csv.reader(f)
                header = [h.strip() for h in next(reader, [])]
                rows, lines, problems = [], [], []
                start = reader.line_num + 1
                for row in reader:
                    line, start = start, reader.line_num + 1
                    if not any(cell.strip() for cell in row):
                        continue
                    if len(row) != len(header):
                        problems.append(
                            Problem(
                                f"{p.name} line {line}",
                                None,
                                f"row has {len(row)} values but the header names {len(header)} columns",
                            )
                        )
                        continue
                    rows.append(row)
                    lines.append(line)
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the CSV file: {e}")]) from e
        if not header:
            raise CaseFileError(str(p), [Problem(str(p), None, "the CSV file is empty: expected a header row")])
        if problems:
            raise CaseFileError(str(p), problems)
        index = pd.Index(lines, name="line")
        columns = list(zip(*rows)) if rows else [() for _ in header]
        raw = {h: pd.Series(list(col), index=index, dtype="str") for h, col in zip(header, columns)}
        return pd.DataFrame({h: _csv_column(h, raw[h]) for h in header}, index=index), None
    if suffix == ".json":
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the JSON file: {e}")]) from e
        if isinstance(data, list) and all(isinstance(r, Mapping) for r in data):
            return pd.DataFrame.from_records(data), None
        if isinstance(data, Mapping) and "cases" in data:  # a case file: the loader validates it
            result = read_cases(p)
            if result.problems:
                raise CaseFileError(str(p), result.problems, result.cases)
            return to_frame(result.cases), result.policy
        raise CaseFileError(
            str(p), [Problem(str(p), None, "expected a list of case objects or a case file with 'cases'")]
        )
    raise CaseFileError(str(p), [Problem(str(p), None, "expected a .csv or .json grid")])


def read_grid(path: str | Path) -> pd.DataFrame:
    """Read a grid file for :func:`sweep`: a CSV with case-field columns, a JSON list of case
    objects, or a case file (``{"cases": [...]}``, validated by the case loader).

    CSV cells are read as the case loader reads them: ``true``/``false`` are booleans, whole
    numbers are numbers and an empty cell is missing; anything else stays text, so :func:`sweep`
    names the column and the bad lines (the frame's index is the CSV line number, named
    ``line``).
    """
    return _read_grid(path)[0]


# --------------------------------------------------------------------------------------------
# flips: one input at a time


def _probes(cols: _Cols, policy: Policy) -> list[tuple[str, list[Any]]]:
    limit = policy.embed_limit_bytes
    sizes = sorted({b for b in (0, limit - 1, limit, limit + 1, 1 << 20) if 0 <= b <= MAX_BYTES})
    probes: list[tuple[str, list[Any]]] = [("initiator", list(INITIATORS))]
    if "operation" in cols.given:
        probes.append(("operation", list(OPERATIONS)))
    probes += [
        ("shape", list(SHAPES)),
        ("bytes", sizes),
        ("current", [True, False]),
        ("allowed", [True, False]),
        ("sideEffects", [False, True, None]),
        ("requiresCurrent", [False, True]),
    ]
    probes += [(name, [None, PRESENT]) for name in _TEXT]
    return probes


def _same(col: Any, value: Any) -> np.ndarray:
    """Rows whose column already holds ``value`` (so changing it to ``value`` changes nothing)."""
    if isinstance(col, Codes):
        return col.codes == col.categories.index(value)
    if isinstance(col, Tri):
        return col.unknown if value is None else (~col.unknown & (col.value == value))
    if isinstance(col, Text):
        blank = col.na | col.empty
        return blank if value is None else ~blank
    return np.asarray(col == value, dtype=bool)


def _take(col: Any, idx: np.ndarray) -> Any:
    if isinstance(col, Codes):
        return Codes(col.codes.take(idx), col.categories)
    if isinstance(col, Tri):
        return Tri(col.value.take(idx), col.unknown.take(idx))
    if isinstance(col, Text):
        return Text(col.na.take(idx), col.empty.take(idx))
    return np.asarray(col).take(idx)


def _const(col: Any, value: Any, m: int) -> Any:
    if isinstance(col, Codes):
        return Codes(np.full(m, col.categories.index(value), dtype=np.int8), col.categories)
    if isinstance(col, Tri):
        return Tri(np.full(m, bool(value)), np.full(m, value is None))
    if isinstance(col, Text):
        return Text(np.full(m, value is None), np.zeros(m, dtype=bool))
    return np.full(m, value, dtype=np.asarray(col).dtype)


def _concat(parts: list[Any]) -> Any:
    first = parts[0]
    if isinstance(first, Codes):
        return Codes(np.concatenate([p.codes for p in parts]), first.categories)
    if isinstance(first, Tri):
        return Tri(np.concatenate([p.value for p in parts]), np.concatenate([p.unknown for p in parts]))
    if isinstance(first, Text):
        return Text(np.concatenate([p.na for p in parts]), np.concatenate([p.empty for p in parts]))
    return np.concatenate(parts)


def _display(frame: pd.DataFrame, cols: _Cols, name: str) -> np.ndarray:
    """The values ``flips`` shows in its ``from`` column, one per row of the frame."""
    col = cols.fields[name]
    if isinstance(col, Codes):
        return np.array(col.categories, dtype=object).take(col.codes)
    if isinstance(col, Tri):
        out = col.value.astype(object)
        out[col.unknown] = None
        return out
    if isinstance(col, Text):
        if name not in frame.columns:
            return np.full(cols.n, PRESENT, dtype=object)
        values = frame[name].to_numpy(dtype=object)
        return np.where(pd.isna(values), None, values)
    return np.asarray(col).astype(object)


def _ids(frame: pd.DataFrame) -> np.ndarray:
    if "id" in frame.columns:
        return frame["id"].to_numpy(dtype=object)
    return frame.index.to_numpy(dtype=object)


def flips(
    case_or_frame: Case | Mapping[str, Any] | Iterable[Case | Mapping[str, Any]] | pd.DataFrame,
    policy: Policy | Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Which single input, changed alone, changes each case's outcome — and to what.

    For every case and every input (initiator, operation, shape, bytes — 0, the embed limit and
    its neighbours, 1 MiB —, current, allowed, sideEffects including "nobody said",
    requiresCurrent, and uri/mime/provenance blanked or filled in), every other value is tried
    with all other inputs held still (seed 000, "Run six context-delivery cases": change one input
    at a time). All the variants are built as one table and swept once.

    Args:
        case_or_frame: a case, a mapping, a list of them, or a sweep frame.
        policy: the policy to decide under (the seed's when omitted).

    Returns:
        One row per flip: ``id`` (the ``id`` column, else the row label), ``input``, ``from``,
        ``to`` (``None`` = blank or "nobody said"; :data:`PRESENT` = any non-empty text),
        ``outcome_before`` and ``outcome_after``. Inputs that never change the outcome have no
        rows (``operation`` never does: no rule reads it).

    Example:
        >>> from custody_lab import load_fixture
        >>> f = flips(load_fixture().case("approve-draft"))
        >>> f.loc[f["input"] == "bytes", ["to", "outcome_after"]].values.tolist()
        [[4097, 'embed-over-budget'], [1048576, 'embed-over-budget']]
    """
    if isinstance(case_or_frame, (Case, Mapping)):
        frame = to_frame([case_or_frame])
    elif isinstance(case_or_frame, pd.DataFrame):
        frame = case_or_frame
    else:
        frame = to_frame(case_or_frame)
    cols = _columns(frame)
    policy = _as_policy(policy)
    before = _outcome_codes(cols, policy)
    ids = _ids(frame)
    pieces: list[tuple[str, Any, np.ndarray]] = []
    for name, values in _probes(cols, policy):
        for value in values:
            idx = np.flatnonzero(~_same(cols.fields[name], value))
            if len(idx):
                pieces.append((name, value, idx))
    if not pieces or cols.n == 0:
        return _flips_frame([], [], [], [], np.empty(0, np.int8), np.empty(0, np.int8))
    rows = np.concatenate([idx for _, _, idx in pieces])
    fields = {}
    for key, col in cols.fields.items():
        parts = [_const(col, value, len(idx)) if key == name else _take(col, idx) for name, value, idx in pieces]
        fields[key] = _concat(parts)
    after = _outcome_codes(_Cols(len(rows), fields, cols.given), policy)
    changed = after != before.take(rows)
    inputs = np.concatenate([np.full(len(idx), name, dtype=object) for name, _, idx in pieces])
    to = np.concatenate(
        [
            np.full(len(idx), None, dtype=object) if value is None else np.full(len(idx), value, dtype=object)
            for _, value, idx in pieces
        ]
    )
    shown = {name: _display(frame, cols, name) for name in {p[0] for p in pieces}}
    frm = np.concatenate([shown[name].take(idx) for name, _, idx in pieces])
    keep = np.flatnonzero(changed)
    keep = keep[np.argsort(rows[keep], kind="stable")]  # case order, then input order
    return _flips_frame(ids.take(rows[keep]), inputs[keep], frm[keep], to[keep], before.take(rows[keep]), after[keep])


def _flips_frame(ids: Any, inputs: Any, frm: Any, to: Any, before: np.ndarray, after: np.ndarray) -> pd.DataFrame:
    names = [n for n in _DECISIVE]
    return pd.DataFrame(
        {
            "id": pd.array(list(ids), dtype=object),
            "input": pd.Categorical(list(inputs), categories=names),
            "from": pd.array(list(frm), dtype=object),
            "to": pd.array(list(to), dtype=object),
            "outcome_before": pd.Categorical.from_codes(np.asarray(before, dtype=np.int8), dtype=OUTCOME_DTYPE),
            "outcome_after": pd.Categorical.from_codes(np.asarray(after, dtype=np.int8), dtype=OUTCOME_DTYPE),
        }
    )


# --------------------------------------------------------------------------------------------
# compare two policies


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
) -> Comparison:
    """Which cases change outcome between two policies, and the counts before and after.

    Example:
        >>> from custody_lab import load_fixture
        >>> c = compare(to_frame(load_fixture().cases), None, {"embedLimitBytes": 512})
        >>> c.changes.values.tolist()
        [['approve-draft', 'embedded-resource', 'embed-over-budget']]
    """
    cols = _columns(frame)
    a, b = _as_policy(policy_a), _as_policy(policy_b)
    before, after = _outcome_codes(cols, a), _outcome_codes(cols, b)
    changed = np.flatnonzero(before != after)
    changes = pd.DataFrame(
        {
            "id": pd.array(list(_ids(frame).take(changed)), dtype=object),
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
    return Comparison(a, b, changes, summary, transitions, cols.n)


class _CallableModule(types.ModuleType):
    """``custody_lab.sweep`` is both this module and its main function (DESIGN.md: ``cl.sweep``).

    Once the submodule is imported, Python binds the package attribute ``sweep`` to the module;
    making the module callable keeps ``cl.sweep(frame)`` working either way.
    """

    def __call__(self, frame: Any, policy: Policy | None = None) -> Any:
        return sweep(frame, policy)


sys.modules[__name__].__class__ = _CallableModule
