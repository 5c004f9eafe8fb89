"""Flips: which single input, changed alone, changes a case's outcome — and to what."""

from __future__ import annotations

__all__ = ["flips"]

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..core.model import INITIATORS, MAX_BYTES, OPERATIONS, SHAPES, Case, Policy
from .columns import DECISIVE, OUTCOME_DTYPE, TEXT_FIELDS, Codes, Cols, Text, Tri, row_ids
from .grid import PRESENT
from .io import to_frame
from .sweep import outcome_codes
from .validation import as_policy, columns_of


def _probes(cols: Cols, policy: Policy) -> list[tuple[str, list[Any]]]:
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
    probes += [(name, [None, PRESENT]) for name in TEXT_FIELDS]
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


def _display(frame: pd.DataFrame, cols: Cols, name: str) -> np.ndarray:
    """The values ``flips`` shows in its ``from`` column, one per row of the frame."""
    col = cols.fields[name]
    if isinstance(col, Codes):
        return np.array(col.categories, dtype=object).take(col.codes)
    if isinstance(col, Tri):
        out = col.value.astype(object)
        out[col.unknown] = None
        return out
    if isinstance(col, Text):
        if name not in frame.columns:  # absent: present only when the caller assumed so
            return np.full(cols.n, None if col.na.all() else PRESENT, dtype=object)
        values = frame[name].to_numpy(dtype=object)  # a new array: ours to change
        values[pd.isna(values)] = None
        return values
    return np.asarray(col).astype(object)


def flips(
    case_or_frame: Case | Mapping[str, Any] | Iterable[Case | Mapping[str, Any]] | pd.DataFrame,
    policy: Policy | Mapping[str, Any] | None = None,
    *,
    assume_present: bool = False,
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
        assume_present: for a frame, read an absent ``uri`` / ``mime`` / ``provenance`` column
            as present on every row (see :func:`~custody_lab.whatif.sweep.sweep`).

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
    cols = columns_of(frame, assume_present=assume_present)
    policy = as_policy(policy)
    before = outcome_codes(cols, policy)
    ids = row_ids(frame)
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
    after = outcome_codes(Cols(len(rows), fields, cols.given), policy)
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
    return pd.DataFrame(
        {
            "id": pd.array(list(ids), dtype=object),
            "input": pd.Categorical(list(inputs), categories=list(DECISIVE)),
            "from": pd.array(list(frm), dtype=object),
            "to": pd.array(list(to), dtype=object),
            "outcome_before": pd.Categorical.from_codes(np.asarray(before, dtype=np.int8), dtype=OUTCOME_DTYPE),
            "outcome_after": pd.Categorical.from_codes(np.asarray(after, dtype=np.int8), dtype=OUTCOME_DTYPE),
        }
    )
