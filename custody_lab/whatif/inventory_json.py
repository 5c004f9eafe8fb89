"""JSON inventories checked column by column, decided exactly as the row-by-row loader decides.

:func:`custody_lab.core.loading.read_cases` validates every JSON case with
:meth:`~custody_lab.core.model.Case.from_dict`: right for reporting each bad entry by line and
field, and most of the time a large file takes to load. :func:`json_columns` takes the same
parsed table (:func:`custody_lab.core.tables.read_table`) and checks each field's column at once:
every distinct ``(type, value)`` of a column goes through the field's own check
(:func:`~custody_lab.core.model.check_value`) once, so a value means here exactly what it means
there (``1`` and ``True`` and ``1.0`` are told apart by their type, as that check does).

It returns ``None`` — "use the row-by-row loader" — for any table that loader would not accept
whole: a problem of the file or of an entry, adversarial variants, an entry that is not an
object, an unknown or missing key, a value its field refuses, a repeated id, no entries at all.
So a fast answer is always the columns of the cases that loader returns, and every refusal
carries its messages. :func:`json_frame` makes the same decisions a slice of a JSON list at a
time (the ids compared over the whole file), so a large inventory's parsed objects never all
live at once.
"""

from __future__ import annotations

__all__ = ["json_columns", "json_frame"]

import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.blank import is_blank
from ..core.errors import CaseError
from ..core.json_table import SLICE_BYTES, list_slices
from ..core.model import FIELD_SPECS, FIELDS, MAX_BYTES, FieldSpec, check_value
from ..core.table_entry import Table
from .memory import trim_c_heap

_ABSENT = object()
_ABSENT_TYPE = type(_ABSENT)


def _text(spec: FieldSpec, values: list[Any], kinds: set[type]) -> list[Any] | None:
    """A text field's column (str, or None where allowed), checked as ``check_value`` checks
    each value: a required id not blank, no lone surrogate (only non-ASCII text can hold one)."""
    absent, null = _ABSENT_TYPE in kinds, type(None) in kinds
    if not kinds <= {str, type(None), _ABSENT_TYPE} or (spec.required and (absent or null)):
        return None
    if null and not spec.nullable and spec.required:  # pragma: no cover - refused just above
        return None
    strings = values if kinds == {str} else [v for v in values if type(v) is str]
    if spec.kind == "str" and not spec.nullable and any(map(is_blank, strings)):
        return None
    if not "".join(strings).isascii():
        try:
            for v in strings:
                if not v.isascii():
                    check_value(spec, v)
        except CaseError:
            return None
    return [None if v is _ABSENT else v for v in values] if absent else values


def _column(maps: list[Any], name: str) -> list[Any] | None:
    """One field's column, each value as :meth:`Case.from_dict` would keep it, or ``None``."""
    spec = FIELD_SPECS[name]
    values = list(map(operator.methodcaller("get", name, _ABSENT), maps))
    kinds = set(map(type, values))
    if spec.kind in ("str", "text"):
        return _text(spec, values, kinds)
    if kinds == {int} and spec.kind == "int":  # whole numbers: only the range to check
        return values if 0 <= min(values) and max(values) <= MAX_BYTES else None
    try:  # by type too: 1, 1.0 and True are equal but differ (one type: the values alone)
        distinct = (
            {(kind, v) for kind in kinds for v in set(values)}
            if len(kinds) == 1
            else set(zip(map(type, values), values))
        )
    except TypeError:  # a list or an object as a value: the loader names it
        return None
    kept: dict[tuple[type, Any], Any] = {}
    for kind, value in distinct:
        if value is _ABSENT:
            if spec.required:
                return None
            kept[kind, value] = False if name == "requiresCurrent" else None
            continue
        try:
            checked = check_value(spec, value)
        except CaseError:
            return None
        kept[kind, value] = False if checked is None and name == "requiresCurrent" else checked
    if all(kept[k] is k[1] or (k[0] is str and kept[k] == k[1]) for k in kept):
        return values  # kept as written (an enumeration's equal string is as good as its own)
    return [kept[type(v), v] for v in values]


def _columns(maps: list[Any]) -> dict[str, list[Any]] | None:
    """The case fields of entries' values as columns, or ``None``: each must be an object with
    only case fields, every value as its field's check keeps it (ids not yet compared)."""
    if not all(type(m) is dict for m in maps):
        return None
    if not set().union(*maps) <= FIELD_SPECS.keys():
        return None
    columns: dict[str, list[Any]] = {}
    for spec in FIELDS:
        column = _column(maps, spec.name)
        if column is None:
            return None
        columns[spec.name] = column
    return columns


def json_columns(table: Table) -> dict[str, list[Any]] | None:
    """The case fields as columns (one value a case, as :meth:`Case.from_dict` keeps it) of a
    parsed JSON case table, or ``None`` when the row-by-row loader must read it.

    Example:
        >>> from custody_lab.core.tables import parse_table
        >>> case = ('{"id": "a", "initiator": "model", "operation": "read", "shape": "resource-link",'
        ...     ' "bytes": 10.0, "current": true, "allowed": true, "sideEffects": null}')
        >>> cols = json_columns(parse_table(f"[{case}]", fmt="json"))
        >>> cols["bytes"], cols["uri"], cols["requiresCurrent"]
        ([10], [None], [False])
        >>> json_columns(parse_table(f"[{case.replace('10.0', 'true')}]", fmt="json")) is None
        True
    """
    if table.problems or table.variants:
        return None
    entries = list(table.entries)
    if not entries or any(e.problems for e in entries):
        return None
    columns = _columns([e.value for e in entries])
    if columns is None or len(set(columns["id"])) != len(entries):
        return None
    return columns


def json_frame(
    path: str | Path,
    build: Callable[[dict[str, list[Any]]], pd.DataFrame],
    *,
    slice_bytes: int = SLICE_BYTES,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame | None:
    """A JSON list of cases as the frame ``build`` makes of :func:`json_columns`' columns, read a
    slice at a time (:func:`~custody_lab.core.json_table.list_slices`): each slice's cases are
    checked and built into a small frame before the next slice is parsed, so the file's objects
    never live at once (the peak memory is the frames, not a dict a case). ``None`` for anything
    :func:`json_columns` would refuse, and for any file that is not a plain list (a case file
    object, a problem of the file or an entry): the caller reads it whole, as before.

    The ids are compared over the whole file, after the last slice (``slice_bytes``: the bytes
    read at a time; ``progress(done, total)``: called with the bytes read as each slice is read).

    Example:
        >>> import tempfile, pathlib
        >>> from custody_lab.whatif.io import _frame
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "inv.json"
        >>> case = ('{"id": "a", "initiator": "model", "operation": "read", "shape": "resource-link",'
        ...     ' "bytes": 10, "current": true, "allowed": true, "sideEffects": null}')
        >>> other = case.replace('"a"', '"b"')
        >>> _ = p.write_text(f"[{case}, {other}]")
        >>> json_frame(p, _frame)["id"].tolist()
        ['a', 'b']
        >>> _ = p.write_text(f"[{case}, {case}]")
        >>> json_frame(p, _frame) is None
        True
    """
    frames = []
    for values in list_slices(path, slice_bytes, progress):
        columns = None if values is None else _columns(values)
        if columns is None:
            return None
        frames.append(build(columns))
        del values, columns
    if not frames:
        return None
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    del frames
    trim_c_heap()  # the slices' objects: freed, but kept by the C heap until asked
    if not frame["id"].is_unique:
        return None
    for name in frame.columns:  # a text column in one piece, as a whole-file read makes it (the
        if isinstance(frame[name].dtype, pd.StringDtype):  # sweep reads one buffer, not one a slice)
            data = frame[name].array.__arrow_array__()
            if data.num_chunks > 1:
                frame[name] = pd.array(data.combine_chunks(), dtype=frame[name].dtype)
    return frame
