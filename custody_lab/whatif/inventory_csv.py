"""Inventory CSV files read column by column (pyarrow): one parse, the core's rules and messages.

:func:`read_csv_frame` reads a file with pyarrow's CSV reader, every cell as text, and checks each
column at once with the core's cell rules (:func:`~custody_lab.core.csv_table.csv_cell`) and field
checks (:func:`~custody_lab.core.model.check_value`): a column's common values are checked by
vectorised comparisons, and every other distinct value goes through those two functions
themselves, once per distinct value, so a value means here exactly what it means to ``route``.

When some row is not a valid case (a bad cell, a missing required field, a duplicate or blank
id, a blank row), the problems are found from **the same parse**: each row's cells, as pyarrow
split them, go through the core's row function (:func:`~custody_lab.core.csv_table.csv_row`) and
the one loader (:func:`~custody_lab.core.loading.load_table`), with the row's line number read
from the file's line ends. The file is not read again; the messages are the core's own.

A quoted cell may hold a line break (``title`` and ``description`` may): where each record
starts, and so its line number, is read from the file's bytes by
:class:`~custody_lab.whatif.csv_layout.CsvLayout`, which also proves every quote is where RFC 4180
puts one, at numpy speed.

It returns ``None`` — "the line-by-line reader reads this file" — only for a file whose *syntax*
only that reader reads exactly, decided before anything is parsed (a quote anywhere but around a
whole cell, a NUL byte, a bare carriage return, a record longer than the csv module's field
limit or over more lines than that reader joins, a quoted or blank header), one pyarrow's parser
refuses (text that is not UTF-8, a row with more or fewer cells than the header), or one with a
line break in a cell of any other column than ``title`` / ``description`` (that reader reports it
and reads the lines after it again): those files are then read once, by
:func:`~custody_lab.core.tables.read_table`.
"""

from __future__ import annotations

__all__ = ["read_csv_frame"]

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..core.blank import ASCII_SPACE_MAX, is_blank, strip_blank
from ..core.csv_table import MAX_RECORD_LINES, csv_cell, csv_row, header_problems
from ..core.errors import CaseError
from ..core.loading import LoadResult, Progress, load_table
from ..core.model import FIELD_SPECS, FIELDS, MAX_BYTES, check_value
from ..core.table_entry import Entry, Table
from .arrow_text import arrow_text_masks, mark_without_blanks
from .csv_layout import CsvLayout
from .memory import trim_c_heap

_BOM = b"\xef\xbb\xbf"
#: The file is parsed in pieces of about this size: the parser's working memory stays a small
#: part of the file, and each column comes out in a few large chunks.
_PIECE_BYTES = 16 << 20
#: Rows per block when a file's rows are handed to the core's row function (its problems).
_ROWS = 1 << 16


class _RowByRow(Exception):
    """Some row is not a valid case as it stands: its problems are found row by row (same parse)."""


def _cell_value(name: str, raw: str) -> Any:
    """One cell as the row-by-row reader reads it: ``csv_cell``, then the field's own check."""
    try:
        value = csv_cell(name, raw)
        if value is None:
            if FIELD_SPECS[name].required:
                raise _RowByRow
            return None
        return check_value(FIELD_SPECS[name], value)
    except CaseError as e:
        raise _RowByRow from e


#: At most this many exact spellings are looked for one comparison each before hashing the column.
_FEW_SPELLINGS = 2


def _per_distinct(col: pa.ChunkedArray, name: str) -> tuple[list[Any], np.ndarray]:
    """The column's distinct values read once each (:func:`_cell_value`), and each row's index.

    A flag, or a closed set of at most :data:`_FEW_SPELLINGS` values, written exactly as its
    values are spelled (``true`` / ``false``, ``model`` / ``application``) is found by a comparison
    a spelling, cheaper than hashing every cell; those spellings are read by :func:`_cell_value`
    too. Any other cell sends the column to the hash of its distinct values.

    Example:
        >>> _per_distinct(pa.chunked_array([["true", "false", "true"]]), "current")
        ([True, False], array([0, 1, 0], dtype=int8))
        >>> _per_distinct(pa.chunked_array([["true", " TRUE"]]), "current")[0]
        [True, True]
    """
    spec = FIELD_SPECS[name]
    spellings = ["true", "false"] if spec.kind == "bool" else list(spec.choices)
    if len(spellings) <= _FEW_SPELLINGS and len(col):
        index = np.full(len(col), -1, dtype=np.int8)
        for k, spelling in enumerate(spellings):
            index[pc.equal(col, spelling).to_numpy(zero_copy_only=False)] = k
        if index.min() >= 0:
            return [_cell_value(name, v) for v in spellings], index
    encoded = pc.dictionary_encode(col).combine_chunks()
    values = [_cell_value(name, v) for v in encoded.dictionary.to_pylist()]
    return values, encoded.indices.to_numpy(zero_copy_only=False)


def _enum(name: str, values: list[Any], index: np.ndarray) -> Any:
    choices = FIELD_SPECS[name].choices
    table = np.array([choices.index(v) for v in values], dtype=np.int8)
    return pd.Categorical.from_codes(table.take(index), dtype=pd.CategoricalDtype(list(choices)))


def _bool(name: str, values: list[Any], index: np.ndarray) -> Any:
    if name == "requiresCurrent":  # absent means false (as in Case.from_dict)
        values = [bool(v) for v in values]
    if any(v is None for v in values):
        known = np.array([bool(v) for v in values], dtype=bool).take(index)
        unknown = np.array([v is None for v in values], dtype=bool).take(index)
        return pd.arrays.BooleanArray(known, unknown)
    out = np.array(values, dtype=bool).take(index)
    return pd.array(out, dtype="boolean") if name == "sideEffects" else out


def _bytes(col: pa.ChunkedArray) -> np.ndarray:
    # The common case: one to ten ASCII digits (no sign, no space), read by a cast.
    length = pc.binary_length(col)
    if pc.all(pc.ascii_is_decimal(col)).as_py() and pc.min(length).as_py() >= 1 and pc.max(length).as_py() <= 10:
        out = pc.cast(col, pa.int64()).to_numpy()
    else:
        values, index = _per_distinct(col, "bytes")
        out = np.array(values, dtype=np.int64).take(index)
    if out.size and (out.min() < 0 or out.max() > MAX_BYTES):
        raise _RowByRow
    return out


def _text(col: pa.ChunkedArray, name: str) -> pd.Series:
    """Text: a blank cell is absent; for uri / mime / provenance so is ``null`` in any case."""
    _, blank = arrow_text_masks(col.chunks)
    if FIELD_SPECS[name].nullable:
        for i in np.flatnonzero(_may_be_null(col)):
            blank[i] = csv_cell(name, col[int(i)].as_py()) is None
    if blank.any():
        col = pa.chunked_array(_with_nulls(chunk, part) for chunk, part in _split(col, blank))
    return mark_without_blanks(col.to_pandas())  # every blank cell is missing now


def _ends_may_be(byte: np.ndarray, letters: bytes) -> np.ndarray:
    """A cell's first (last) byte allows ``null`` once stripped: one of ``letters``, or a byte that
    may be (part of) whitespace the core strips (:mod:`custody_lab.core.blank`: ASCII up to its
    last ASCII whitespace character, or any non-ASCII byte)."""
    return np.isin(byte, list(letters)) | (byte <= ord(ASCII_SPACE_MAX)) | (byte >= 0x80)


def _may_be_null(col: pa.ChunkedArray) -> np.ndarray:
    """Rows that could read as ``null`` (any letter case, any surrounding whitespace): at least four
    bytes, starting as ``n`` or whitespace may start and ending as ``l`` or whitespace may end. A
    superset, from two bytes a cell (its offsets), never a pass over the text; each candidate then
    goes through :func:`~custody_lab.core.csv_table.csv_cell` itself.

    Example:
        >>> _may_be_null(pa.chunked_array([["null", " NULL ", "kb://x", "nul", "nail"]])).tolist()
        [True, True, False, False, True]
    """
    out, at = np.zeros(len(col), dtype=bool), 0
    for chunk in col.chunks:
        k = len(chunk)
        data_buffer = chunk.buffers()[2]
        if k and data_buffer is not None and data_buffer.size:
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + k + 1]
            data = np.frombuffer(data_buffer, dtype=np.uint8)
            first = data[np.minimum(offsets[:-1], data.size - 1)]
            last = data[np.maximum(offsets[1:] - 1, 0)]
            out[at : at + k] = (np.diff(offsets) >= 4) & _ends_may_be(first, b"nN") & _ends_may_be(last, b"lL")
        at += k
    return out


def _split(col: pa.ChunkedArray, mask: np.ndarray) -> list[tuple[pa.Array, np.ndarray]]:
    out, at = [], 0
    for chunk in col.chunks:
        out.append((chunk, mask[at : at + len(chunk)]))
        at += len(chunk)
    return out


def _with_nulls(chunk: pa.Array, missing: np.ndarray) -> pa.Array:
    """The chunk with ``missing`` values made null: a new validity bitmap over the same offsets
    and characters (no copy of the text)."""
    if chunk.null_count or chunk.offset or not missing.any():
        return pc.if_else(pa.array(missing), pa.scalar(None, chunk.type), chunk)
    validity = pa.py_buffer(np.packbits(~missing, bitorder="little"))
    _, offsets, data = chunk.buffers()[:3]
    return pa.Array.from_buffers(chunk.type, len(chunk), [validity, offsets, data], int(missing.sum()))


def _header_line(raw: bytes, start: int) -> str:
    end = raw.find(b"\n", start)
    return raw[start : end if end >= 0 else len(raw)].decode("utf-8", "strict").rstrip("\r")


def _entries(
    header: list[str], cols: dict[str, pa.ChunkedArray], lines: CsvLayout, source: str, size: int
) -> Iterator[Entry]:
    """Every row's entry by the core's row function, from the cells this parse split (block by
    block, so the rows are never all Python strings at once). A row's offset, for progress
    reports, is its share of the file's size."""
    numbers = lines.rows
    n = len(numbers)
    for a in range(0, n, _ROWS):
        k = min(_ROWS, n - a)
        cells = zip(*(cols[h].slice(a, k).to_pylist() for h in header))
        for i, row in enumerate(cells, start=a):
            entry = csv_row(header, row, f"{source} line {numbers[i]}", size * (i + 1) // n)
            if entry is not None:
                yield entry


def _checked(cols: dict[str, pa.ChunkedArray], n: int) -> dict[str, Any]:
    """Every column checked, nothing converted yet (so a problem leaves every cell to read row by
    row): the distinct values of the closed sets and flags, and the sizes.

    Raises:
        _RowByRow: when some row is not a valid case as it stands.
    """
    if "id" not in cols or arrow_text_masks(cols["id"].chunks)[1].any():
        raise _RowByRow  # no id, a blank id, or a row of blank cells (which is skipped)
    if len(pc.unique(cols["id"])) != n:
        raise _RowByRow  # a duplicate id
    checked: dict[str, Any] = {}
    for spec in FIELDS:
        col = cols.get(spec.name)
        if col is None:
            if spec.required:
                raise _RowByRow
        elif spec.kind in ("enum", "bool"):
            checked[spec.name] = _per_distinct(col, spec.name)
        elif spec.kind == "int":
            checked[spec.name] = _bytes(col)
    return checked


def _convert(cols: dict[str, pa.ChunkedArray], n: int, checked: dict[str, Any]) -> pd.DataFrame:
    """The frame from the checked columns; each text column is dropped once it is converted."""
    data: dict[str, Any] = {}
    for spec in FIELDS:
        col = cols.pop(spec.name, None)
        if col is None:
            if spec.name == "requiresCurrent":
                data[spec.name] = np.zeros(n, dtype=bool)
            elif spec.name == "sideEffects":
                data[spec.name] = pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
            else:  # an absent text column: all null, built by Arrow (not a million Python Nones)
                data[spec.name] = pa.chunked_array([pa.nulls(n, pa.string())]).to_pandas()
        elif spec.kind == "enum":
            data[spec.name] = _enum(spec.name, *checked.pop(spec.name))
        elif spec.kind == "int":
            data[spec.name] = checked.pop(spec.name)
        elif spec.kind == "bool":
            data[spec.name] = _bool(spec.name, *checked.pop(spec.name))
        else:
            data[spec.name] = _text(col, spec.name) if spec.name != "id" else col.to_pandas()
    return pd.DataFrame({k: (v.array if isinstance(v, pd.Series) else v) for k, v in data.items()})


def _syntax_only_the_line_reader_reads(raw: bytes) -> bool:
    return b"\x00" in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n"))


def _line_break_outside_free_text(header: list[str], columns: dict[str, pa.ChunkedArray]) -> bool:
    """Some cell of a column other than ``title`` / ``description`` holds a line break (the
    row-by-row reader reports it and reads the lines after it again: its reading, not ours)."""
    # A line feed alone is looked for: a carriage return is in the file only as part of "\r\n".
    return any(FIELD_SPECS[h].kind != "text" and pc.any(pc.match_substring(columns[h], "\n")).as_py() for h in header)


def read_csv_frame(path: str | Path, progress: Progress | None = None) -> pd.DataFrame | LoadResult | None:
    """An inventory CSV read column by column: its sweep frame when every row is a valid case, the
    loader's result (every problem, by line and field, and the good cases) when some row is not,
    or ``None`` when the file's syntax is the line-by-line reader's to read (see the module
    docstring: NUL bytes, bare carriage returns, unusual quoting, text that is not UTF-8, ...).

    ``progress(done, total)`` (bytes of the file) is called as each tenth of the file is parsed,
    and at the end.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> frame = read_csv_frame(data_path("inventories", "support-desk.csv"))
        >>> frame["id"].iloc[0], frame["uri"].dtype.storage
        ('kb-returns-policy', 'pyarrow')
    """
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return None  # the line-by-line reader reports it
    if _syntax_only_the_line_reader_reads(raw):
        return None
    start = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        line = _header_line(raw, start)
    except UnicodeDecodeError:
        return None
    if '"' in line or is_blank(line):
        return None
    source, header = Path(path).name, [strip_blank(h) for h in line.split(",")]
    problems = header_problems(header, f"{source} line 1")
    if problems:  # the whole file is refused, as the line-by-line reader refuses it
        return load_table(Table(source, problems=tuple(problems)))
    lines = CsvLayout(raw, start)
    trim_c_heap()  # the layout's temporaries: freed, but kept by the heap through the parse (the peak)
    if not lines.well_formed or lines.longest > csv.field_size_limit() or lines.most_lines > MAX_RECORD_LINES:
        return None  # a quote where only that reader reads it exactly, or a cell it may refuse as too long
    names = [f"c{i}" for i in range(len(header))]
    parse = pacsv.ParseOptions(
        quote_char='"', double_quote=True, newlines_in_values=lines.quoted_breaks, ignore_empty_lines=True
    )
    convert = pacsv.ConvertOptions(
        column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False, null_values=[]
    )
    total, tables = len(raw), []
    if progress is not None:
        progress(0, total)
    try:
        pieces = max(total // _PIECE_BYTES, 10 if progress is not None else 1)
        for i, (a, b) in enumerate(lines.parts(raw, start, pieces)):
            options = pacsv.ReadOptions(column_names=names, skip_rows=1 if i == 0 else 0)
            piece = pa.py_buffer(memoryview(raw)[a:b])
            # Parsed in parallel blocks, then one chunk a column per piece (the sweep reads a
            # column's chunks one by one: few large ones are faster than many small ones).
            tables.append(pacsv.read_csv(pa.BufferReader(piece), options, parse, convert).combine_chunks())
            del piece
            if progress is not None and b < total:
                progress(b, total)
    except pa.ArrowInvalid:
        return None  # not UTF-8, or a row with more or fewer cells than the header
    del raw  # the cells are in Arrow's own buffers now
    table = pa.concat_tables(tables)
    n, columns = table.num_rows, dict(zip(header, table.columns))
    del tables, table
    if n != len(lines):  # pragma: no cover - pyarrow split the rows otherwise than the lines
        return None
    if lines.quoted_breaks and _line_break_outside_free_text(header, columns):
        return None
    try:
        checked = _checked(columns, n) if n else None
    except _RowByRow:
        checked = None
    if checked is None:  # some row is not a valid case (or there is none): its problems, same parse
        return load_table(Table(source, _entries(header, columns, lines, source, total), size=total), progress)
    frame = _convert(columns, n, checked)
    if progress is not None:
        progress(total, total)
    return frame
