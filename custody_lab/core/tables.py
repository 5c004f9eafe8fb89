"""The one reader of case tables: case files, inventories and what-if grids, CSV or JSON.

``custody-lab route`` (through :mod:`custody_lab.core.loading`) and ``custody-lab sweep`` (through
:mod:`custody_lab.whatif.io`) read every file here, so a file means the same thing to both:

- Text is UTF-8. A leading byte-order mark (what spreadsheet programs write for "CSV UTF-8") is
  accepted and dropped. A CSV line that is not UTF-8 or holds a NUL byte is a problem of its row.
- A CSV header names case fields (the seed's camelCase keys, :data:`~custody_lab.core.model.FIELDS`).
  A column that is not a case field, or a column named twice, refuses the whole file at line 1,
  naming the column, the columns that are allowed and a close name when there is one: nothing is
  silently dropped. The header is read in one pass: its first
  :data:`~custody_lab.core.csv_table.MAX_EXPLAINED_COLUMNS` problems are explained one by one, in
  column order, and the rest counted in one more ("and 39,990 more unknown columns").
- A column that is absent is absent on every row; an empty cell is absent; ``null`` (any case) is
  absent for the fields where absence is a custody gap (``uri``, ``mime``, ``sideEffects``,
  ``provenance``).
- ``true`` / ``false`` in any letter case are booleans; anything else in a flag column is refused.
- ``bytes`` is written with the ASCII digits 0-9 (an optional sign is read, and a negative number
  refused by the field check). ``1_000``, ``1e3``, ``12.5`` and other scripts' digits (``١٢٣``,
  ``１２``) are refused with the line and the field, never guessed at.
- No CSV row is ever merged into another: an unclosed quote, a cell over the csv module's field
  limit, a quoted cell running over more than :data:`MAX_RECORD_LINES` lines, a row shorter or
  longer than the header are each a problem of the row where it starts, and the lines after it
  are read as rows of their own.
- A JSON file holds a list of case objects, or an object ``{"cases": [...], "adversarial": [...],
  "policy": {...}}``; each entry's location is its line and index. A key written twice in one
  object, ``NaN`` / ``Infinity`` (not JSON: RFC 8259 §6), an integer longer than Python reads
  (4,300 digits) and nesting deeper than Python's parser goes are problems of their entry; a
  second top-level ``"cases"`` (or any key written twice at the top) is a problem of the file.

The reader converts cells and reports every problem by line; validating a whole case
(:meth:`Case.from_dict`) is the loader's step, done once per row for both commands. A JSON file is
scanned once from left to right (line numbers are counted as the scan goes), so reading it takes
a small multiple of ``json.loads``; a CSV file is read line by line, never held whole.
"""

from __future__ import annotations

__all__ = [
    "MAX_RECORD_LINES",
    "TOP_KEYS",
    "Entry",
    "Table",
    "csv_cell",
    "format_of",
    "load_policy",
    "parse_table",
    "read_json_file",
    "read_table",
    "read_text",
]

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .csv_table import MAX_RECORD_LINES, csv_cell, parse_csv
from .errors import CaseFileError, PolicyError, Problem
from .json_table import TOP_KEYS, JsonDoc, parse_json
from .model import Policy
from .table_entry import Entry, Table

_FORMATS = ("json", "csv")


def _not_utf8(data: bytes, e: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, e.start) + 1
    column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
    return f"not UTF-8: byte 0x{data[e.start]:02x} at line {line}, column {column} (save the file as UTF-8)"


def read_text(path: str | Path) -> str:
    """A file's text as UTF-8, with a leading byte-order mark dropped.

    Raises:
        CaseFileError: when the file cannot be read or is not UTF-8 (naming the line).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "bom.csv"
        >>> _ = p.write_bytes(b"\\xef\\xbb\\xbfid\\n")
        >>> read_text(p)
        'id\\n'
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {e}")]) from e
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {_not_utf8(data, e)}")]) from e


def format_of(path: str | Path) -> str:
    """``"json"`` or ``"csv"`` from the file's suffix.

    Raises:
        CaseFileError: for any other suffix.

    Example:
        >>> format_of("grid.CSV")
        'csv'
    """
    p = Path(path)
    fmt = p.suffix.lower()[1:]
    if fmt not in _FORMATS:
        raise CaseFileError(str(p), [Problem(str(p), None, "expected a .json or .csv file")])
    return fmt


def parse_table(text: str, *, fmt: str, source: str = "<text>") -> Table:
    """Parse case-table text in ``fmt`` (``"json"`` or ``"csv"``); bad rows are reported, not raised.

    Raises:
        CaseFileError: for a format that is neither.

    Example:
        >>> t = parse_table("\\ufeffid,bytes\\na,1_000\\nb,12\\n", fmt="csv", source="g.csv")
        >>> [(e.where, e.value, [p.field for p in e.problems]) for e in t.entries]
        [('g.csv line 2', {'id': 'a'}, ['bytes']), ('g.csv line 3', {'id': 'b', 'bytes': 12}, [])]
    """
    if fmt == "json":
        return parse_json(text.removeprefix("\ufeff"), source, len(text))
    if fmt == "csv":
        return parse_csv(io.StringIO(text, newline="\n"), source, len(text))
    raise CaseFileError(source, [Problem(source, None, f"unknown case file format {fmt!r}: expected 'json' or 'csv'")])


def read_table(path: str | Path) -> Table:
    """Read a case file, inventory or grid (``.csv`` or ``.json``); see :func:`parse_table`.

    A CSV file is read line by line as its entries are iterated (and closed at the end).

    Raises:
        CaseFileError: when the file cannot be opened, or a JSON file is not UTF-8.
    """
    p = Path(path)
    fmt = format_of(p)
    if fmt == "json":
        text = read_text(p)
        return parse_json(text, p.name, p.stat().st_size)
    try:
        handle = p.open("rb")
        size = p.stat().st_size
    except OSError as e:
        raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {e}")]) from e
    table = parse_csv(_closing(handle), p.name, size)
    if not isinstance(table.entries, Iterator):
        handle.close()
    return table


def _closing(handle: io.BufferedReader) -> Iterator[bytes]:
    with handle:
        yield from handle


def read_json_file(path: str | Path, what: str, error: type[PolicyError] = PolicyError) -> Any:
    """One JSON document from a data file, read as a case file's JSON is: UTF-8, one value, no key
    twice, no NaN, nothing nested deeper or numbered longer than Python reads (the policy loader and
    the host profiles' loader both read their files with it).

    Raises:
        PolicyError (or ``error``, a subclass): ``"<what> <path>: ..."``, with the field at fault.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> read_json_file(data_path("policies", "strict.json"), "policy file")["embedLimitBytes"]
        2048
    """
    try:
        text = read_text(path)
    except CaseFileError as e:
        raise error(f"cannot read {what} {path}: {e.problems[0].message}") from e
    doc = JsonDoc(text, str(path), len(text))
    try:
        data, end, bad = doc.value(doc.ws(0))
        doc.end(end)
    except json.JSONDecodeError as e:
        raise error(f"cannot read {what} {path}: not valid JSON: {e}") from e
    if bad:
        field, message = bad[0]
        raise error(f"{what} {path}: {message}", field)
    return data


def load_policy(path: str | Path) -> Policy:
    """Read a policy JSON file such as ``data/policies/strict.json`` (the one policy loader).

    The file is read as a case file's JSON is: UTF-8, one object, no key twice, no NaN, nothing
    nested deeper or numbered longer than Python reads.

    Raises:
        PolicyError: naming the file, and the field when a value is wrong.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> load_policy(data_path("policies", "strict.json")).embed_limit_bytes
        2048
    """
    data = read_json_file(path, "policy file")
    try:
        return Policy.from_dict(data)
    except PolicyError as e:
        raise PolicyError(f"policy file {path}: {e}", e.field) from e
