"""Inventory CSV files read column by column (pyarrow), decided exactly as the row-by-row reader.

:func:`custody_lab.core.loading.read_cases` reads a CSV line by line and validates every row as a
:class:`~custody_lab.core.model.Case`: right for reporting every bad row by line and field, and
about 35 s for a million rows. :func:`read_csv_frame` reads the same file with pyarrow's CSV
reader, every cell as text, and checks each column at once with the same cell rules
(:func:`~custody_lab.core.csv_table.csv_cell`) and field checks
(:func:`~custody_lab.core.model.check_value`): a column's common values are checked by
vectorised comparisons, and every other distinct value goes through those two functions
themselves, once per distinct value, so a value means here exactly what it means there.

It returns ``None`` — "use the row-by-row reader" — whenever it cannot prove the file is one the
row-by-row reader accepts whole: any problem at all (that reader then produces the row-numbered
messages), and every file whose *syntax* only that reader handles exactly (a quote anywhere but
around a whole cell, a line break inside quotes, NUL bytes, bare carriage returns, a blank id).
So a fast answer is always the frame :func:`~custody_lab.whatif.io.to_frame` would build from
the cases that reader returns, and every refusal carries the same messages.
"""

from __future__ import annotations

__all__ = ["read_csv_frame"]

import csv
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..core.blank import ASCII_SPACE_MAX, strip_blank
from ..core.csv_table import csv_cell
from ..core.errors import CaseError
from ..core.loading import Progress
from ..core.model import FIELD_SPECS, FIELDS, MAX_BYTES, check_value
from .arrow_text import arrow_text_masks, mark_without_blanks

_BOM = b"\xef\xbb\xbf"
#: The file is parsed in pieces of about this size: the parser's working memory stays a small
#: part of the file, and each column comes out in a few large chunks.
_PIECE_BYTES = 16 << 20


class _NotFast(Exception):
    """The file needs the row-by-row reader (a problem to report, or syntax only it reads)."""


def _cell_value(name: str, raw: str) -> Any:
    """One cell as the row-by-row reader reads it: ``csv_cell``, then the field's own check."""
    try:
        value = csv_cell(name, raw)
        if value is None:
            if FIELD_SPECS[name].required:
                raise _NotFast
            return None
        return check_value(FIELD_SPECS[name], value)
    except CaseError as e:
        raise _NotFast from e


def _per_distinct(col: pa.ChunkedArray, name: str, convert: Callable[[str, str], Any]) -> tuple[list[Any], np.ndarray]:
    """The column's distinct values converted once each, and each row's index into them."""
    encoded = pc.dictionary_encode(col).combine_chunks()
    values = [convert(name, v) for v in encoded.dictionary.to_pylist()]
    return values, encoded.indices.to_numpy(zero_copy_only=False)


def _enum(col: pa.ChunkedArray, name: str) -> Any:
    choices = FIELD_SPECS[name].choices
    values, index = _per_distinct(col, name, _cell_value)
    table = np.array([choices.index(v) for v in values], dtype=np.int8)
    return pd.Categorical.from_codes(table.take(index), dtype=pd.CategoricalDtype(list(choices)))


def _bool(col: pa.ChunkedArray, name: str) -> Any:
    values, index = _per_distinct(col, name, _cell_value)
    if name == "requiresCurrent":  # absent means false (as in Case.from_dict)
        values = [bool(v) for v in values]
    if any(v is None for v in values):
        known = np.array([bool(v) for v in values], dtype=bool).take(index)
        unknown = np.array([v is None for v in values], dtype=bool).take(index)
        return pd.arrays.BooleanArray(known, unknown)
    out = np.array(values, dtype=bool).take(index)
    return pd.array(out, dtype="boolean") if name == "sideEffects" else out


def _bytes(col: pa.ChunkedArray) -> np.ndarray:
    plain = pc.match_substring_regex(col, r"^[0-9]{1,10}$")  # the common case: digits only
    if pc.all(plain).as_py():
        out = pc.cast(col, pa.int64()).to_numpy()
    else:
        values, index = _per_distinct(col, "bytes", _cell_value)
        out = np.array(values, dtype=np.int64).take(index)
    if out.size and (out.min() < 0 or out.max() > MAX_BYTES):
        raise _NotFast
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


def _longest(col: pa.ChunkedArray) -> int:
    """The longest cell of a string column in bytes, read from its offsets (no pass over the text).

    Example:
        >>> _longest(pa.chunked_array([["a", "abc"], [], ["ab"]]))
        3
    """
    longest = 0
    for chunk in col.chunks:
        if len(chunk):
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + len(chunk) + 1]
            longest = max(longest, int(np.diff(offsets).max()))
    return longest


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


#: A field as both readers read it alike: unquoted without any quote, or quoted whole with its
#: quotes doubled inside and no line break (a line break in a quoted cell is the row-by-row
#: reader's to read: only ``title`` and ``description`` may hold one).
_FIELD = rb'(?:[^",\r\n]*|"(?:[^"\r\n]|"")*")'
_QUOTED_LINE = re.compile(rb"%s(?:,%s)*\r?" % (_FIELD, _FIELD))
_LINE_WITH_QUOTE = re.compile(rb'^[^"\n]*"[^\n]*', re.MULTILINE)


def _plain_quotes(raw: bytes) -> bool:
    r"""Every line with a quote is a row of well-formed fields (so pyarrow and Python's strict csv
    reader split it into the same cells).

    Example:
        >>> _plain_quotes(b'a,"b, c",d\n'), _plain_quotes(b'a,"b"c\n'), _plain_quotes(b'a,"b\nc"\n')
        (True, False, False)
    """
    if b'"' not in raw:
        return True
    return all(_QUOTED_LINE.fullmatch(m.group()) for m in _LINE_WITH_QUOTE.finditer(raw))


def _header(data: memoryview) -> list[str]:
    end = bytes(data[:65536]).find(b"\n")
    line = bytes(data[: end if end >= 0 else len(data)]).decode("utf-8", "strict").rstrip("\r")
    return [strip_blank(h) for h in line.split(",")]


def _convert(cols: dict[str, pa.ChunkedArray], n: int) -> pd.DataFrame:
    """The frame from the file's text columns; each column is dropped once it is converted."""
    _, id_blank = arrow_text_masks(cols["id"].chunks)
    if id_blank.any():  # a blank id is a problem, or a row of blank cells that is skipped
        raise _NotFast
    limit = csv.field_size_limit()
    if n and max(_longest(col) for col in cols.values()) > limit:
        raise _NotFast
    if pc.count_distinct(cols["id"]).as_py() != n:
        raise _NotFast  # a duplicate id
    data: dict[str, Any] = {}
    for spec in FIELDS:
        col = cols.pop(spec.name, None)
        if col is None:
            if spec.required:
                raise _NotFast
            if spec.name == "requiresCurrent":
                data[spec.name] = np.zeros(n, dtype=bool)
            elif spec.name == "sideEffects":
                data[spec.name] = pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
            else:  # an absent text column: all null, built by Arrow (not a million Python Nones)
                data[spec.name] = pa.chunked_array([pa.nulls(n, pa.string())]).to_pandas()
        elif spec.kind == "enum":
            data[spec.name] = _enum(col, spec.name)
        elif spec.kind == "int":
            data[spec.name] = _bytes(col)
        elif spec.kind == "bool":
            data[spec.name] = _bool(col, spec.name)
        else:
            data[spec.name] = _text(col, spec.name) if spec.name != "id" else col.to_pandas()
    return pd.DataFrame({k: (v.array if isinstance(v, pd.Series) else v) for k, v in data.items()})


def _parts(raw: bytes, start: int, count: int) -> list[tuple[int, int]]:
    """``raw[start:]`` cut into about ``count`` pieces at line ends (every line end is a row end
    here: no quoted cell holds a line break), as (start, stop) offsets; the first has the header."""
    cuts, size = [start], len(raw)
    for k in range(1, count):
        at = raw.find(b"\n", max(start + (size - start) * k // count, cuts[-1]))
        if at < 0:
            break
        cuts.append(at + 1)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def read_csv_frame(path: str | Path, progress: Progress | None = None) -> pd.DataFrame | None:
    """The sweep frame of an inventory CSV read column by column, or ``None`` when the file must
    go through the row-by-row reader (see the module docstring: any problem, unusual quoting, NUL
    bytes, bare carriage returns, a blank id, an empty file).

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
        return None  # the row-by-row reader reports it
    if b"\x00" in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")) or not _plain_quotes(raw):
        return None
    start = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        header = _header(memoryview(raw)[start:])
    except UnicodeDecodeError:
        return None
    if len(set(header)) != len(header) or any(h not in FIELD_SPECS for h in header):
        return None
    names = [f"c{i}" for i in range(len(header))]
    parse = pacsv.ParseOptions(quote_char='"', double_quote=True, newlines_in_values=False, ignore_empty_lines=True)
    convert = pacsv.ConvertOptions(
        column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False, null_values=[]
    )
    total, tables = len(raw), []
    if progress is not None:
        progress(0, total)
    try:
        pieces = max(total // _PIECE_BYTES, 10 if progress is not None else 1)
        for i, (a, b) in enumerate(_parts(raw, start, pieces)):
            options = pacsv.ReadOptions(column_names=names, skip_rows=1 if i == 0 else 0)
            piece = pa.py_buffer(memoryview(raw)[a:b])
            # Parsed in parallel blocks, then one chunk a column per piece (the sweep reads a
            # column's chunks one by one: few large ones are faster than many small ones).
            tables.append(pacsv.read_csv(pa.BufferReader(piece), options, parse, convert).combine_chunks())
            del piece
            if progress is not None and b < total:
                progress(b, total)
        del raw  # the cells are in Arrow's own buffers now
        table = pa.concat_tables(tables)
        n, columns = table.num_rows, dict(zip(header, table.columns))
        del tables, table
        if not n:
            return None
        frame = _convert(columns, n)
    except (pa.ArrowInvalid, _NotFast):
        return None
    if progress is not None:
        progress(total, total)
    return frame
