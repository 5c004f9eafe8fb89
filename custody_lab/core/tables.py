"""The one reader of case tables: case files, inventories and what-if grids, CSV or JSON.

``custody-lab route`` (through :mod:`custody_lab.core.loading`) and ``custody-lab sweep`` (through
:mod:`custody_lab.whatif.io`) read every file here, so a file means the same thing to both:

- Text is UTF-8. A leading byte-order mark (what spreadsheet programs write for "CSV UTF-8") is
  accepted and dropped.
- A CSV header names case fields (the seed's camelCase keys, :data:`~custody_lab.core.model.FIELDS`).
  A column that is not a case field refuses the whole file at line 1, naming the column, the
  columns that are allowed and a close name when there is one: nothing is silently dropped.
- A column that is absent is absent on every row; an empty cell is absent; ``null`` (any case) is
  absent for the fields where absence is a custody gap (``uri``, ``mime``, ``sideEffects``,
  ``provenance``).
- ``true`` / ``false`` in any letter case are booleans; anything else in a flag column is refused.
- ``bytes`` is written with the ASCII digits 0-9 (an optional sign is read, and a negative number
  refused by the field check). ``1_000``, ``1e3``, ``12.5`` and other scripts' digits (``١٢٣``,
  ``１２``) are refused with the line and the field, never guessed at.
- A JSON file holds a list of case objects, or an object ``{"cases": [...], "adversarial": [...],
  "policy": {...}}``; each entry's location is its line and index.

The reader converts cells and reports every problem by line; validating a whole case
(:meth:`Case.from_dict`) is the loader's step, done once per row for both commands.
"""

from __future__ import annotations

__all__ = ["Entry", "Table", "csv_cell", "format_of", "load_policy", "parse_table", "read_table", "read_text"]

import csv
import difflib
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import CaseError, CaseFileError, PolicyError, Problem
from .model import FIELD_SPECS, Policy

#: The keys a JSON case file object may have.
TOP_KEYS = ("fixture", "policy", "cases", "adversarial")
FORMATS = ("json", "csv")
_ASCII_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class Entry:
    """One entry of a table: where it is (``"cases.csv line 4"``) and its value (a case mapping
    with the cells converted, or the JSON value as written), or the problem that kept the row
    from being read (a bad cell, the wrong number of cells); entries keep the file's order."""

    where: str
    value: Any
    problem: Problem | None = None


@dataclass(frozen=True)
class Table:
    """What a file held, before each case is validated.

    Attributes:
        source: the file name used in every location.
        entries: the cases, in file order.
        variants: a JSON case file's ``adversarial`` entries (each ``{"id", "from", "change"}``).
        problems: the problems of the file as a whole (an unknown column, invalid JSON, a bad
            policy); a bad row's problem is on its entry.
        policy: the JSON case file's ``policy``, when it has a valid one.
    """

    source: str
    entries: tuple[Entry, ...] = ()
    variants: tuple[Entry, ...] = ()
    problems: tuple[Problem, ...] = ()
    policy: Policy | None = None


def read_text(path: str | Path) -> str:
    """A file's text as UTF-8, with a leading byte-order mark dropped.

    Raises:
        CaseFileError: when the file cannot be read or is not UTF-8.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "bom.csv"
        >>> _ = p.write_bytes(b"\\xef\\xbb\\xbfid\\n")
        >>> read_text(p)
        'id\\n'
    """
    p = Path(path)
    try:
        return p.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {e}")]) from e


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
    if fmt not in FORMATS:
        raise CaseFileError(str(p), [Problem(str(p), None, "expected a .json or .csv file")])
    return fmt


def _int_cell(name: str, text: str) -> int:
    body = text[1:] if text[:1] in "+-" else text
    if body and set(body) <= _ASCII_DIGITS:
        return int(text)
    if "_" in text:
        hint = " (write it without '_' separators)"
    elif any(ch.isdigit() for ch in text):
        hint = " (write it with the digits 0-9 only: no decimal point, exponent or other scripts' digits)"
    else:
        hint = ""
    raise CaseError(f"field {name!r} must be {FIELD_SPECS[name].expected()}; got {text!r}{hint}", name)


def csv_cell(name: str, raw: str) -> Any:
    """One CSV cell of case field ``name``, read by the rules in this module's docstring.

    Returns ``None`` for "absent" (the caller leaves the key out), a bool, an int, or the text.

    Raises:
        CaseError: for a flag that is not true/false and a size that is not plain digits; its
            ``field`` is ``name``.

    Example:
        >>> csv_cell("current", " TRUE "), csv_cell("bytes", "1800"), csv_cell("uri", "null")
        (True, 1800, None)
        >>> csv_cell("bytes", "1_000")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        custody_lab.core.errors.CaseError: field 'bytes' must be ...; got '1_000' (write it without '_' separators)
    """
    spec = FIELD_SPECS[name]
    text = raw.strip()
    if text == "" or (spec.nullable and text.lower() == "null"):
        return None
    if spec.kind == "bool":
        low = text.lower()
        if low not in ("true", "false"):
            raise CaseError(f"field {name!r} must be true or false (in any letter case); got {text!r}", name)
        return low == "true"
    if spec.kind == "int":
        return _int_cell(name, text)
    return raw


def _header_problems(header: list[str], where: str) -> list[Problem]:
    problems = []
    allowed = ", ".join(FIELD_SPECS)
    for i, col in enumerate(header):
        if header.index(col) != i:
            problems.append(Problem(where, col, f"column {col!r} appears more than once"))
            continue
        if col in FIELD_SPECS:
            continue
        close = difflib.get_close_matches(col, list(FIELD_SPECS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        shown = repr(col) if col else f"with no name (column {i + 1})"
        problems.append(
            Problem(
                where,
                col,
                f"unknown column {shown}: {hint}a case table holds only case fields ({allowed}); "
                "put descriptive text in 'title' or 'description'",
            )
        )
    return problems


def _parse_csv(text: str, source: str) -> Table:
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        return Table(source, problems=(Problem(source, None, "the CSV file is empty: expected a header row"),))
    except csv.Error as e:
        return Table(source, problems=(Problem(f"{source} line 1", None, f"not valid CSV: {e}"),))
    problems = _header_problems(header, f"{source} line 1")
    if problems:  # the whole file is refused: no row means what its author meant
        return Table(source, problems=tuple(problems))
    entries: list[Entry] = []
    start = reader.line_num + 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in row):
                continue
            where = f"{source} line {line}"
            if len(row) != len(header):
                message = f"row has {len(row)} values but the header names {len(header)} columns"
                entries.append(Entry(where, None, Problem(where, None, message)))
                continue
            try:
                mapping = {h: csv_cell(h, cell) for h, cell in zip(header, row)}
            except CaseError as e:
                entries.append(Entry(where, None, Problem(where, e.field, str(e))))
                continue
            entries.append(Entry(where, {k: v for k, v in mapping.items() if v is not None}))
    except csv.Error as e:
        where = f"{source} line {start}"
        entries.append(Entry(where, None, Problem(where, None, f"not valid CSV: {e}")))
    return Table(source, tuple(entries), problems=tuple(problems))


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _array_items(text: str, start: int, decoder: json.JSONDecoder) -> Iterator[int]:
    """Yield the line of each element of the JSON array whose '[' is at ``start``."""
    i = _skip_ws(text, start + 1)
    if i < len(text) and text[i] == "]":
        return
    while True:
        _, end = decoder.raw_decode(text, i)
        yield _line_of(text, i)
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        return


def _object_members(text: str, start: int, decoder: json.JSONDecoder) -> Iterator[tuple[str, int]]:
    """Yield (key, value start index) for each member of the JSON object at ``start``."""
    i = _skip_ws(text, start + 1)
    if i < len(text) and text[i] == "}":
        return
    while True:
        key, end = decoder.raw_decode(text, i)
        i = _skip_ws(text, end)
        i = _skip_ws(text, i + 1)  # past ':'
        yield key, i
        _, end = decoder.raw_decode(text, i)
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        return


def _lines_of_array(text: str, key: str | None) -> list[int]:
    """Line numbers of the elements of the top-level array (or of ``obj[key]``)."""
    decoder = json.JSONDecoder()
    start = _skip_ws(text, 0)
    if key is not None:
        for k, pos in _object_members(text, start, decoder):
            if k == key:
                start = pos
                break
        else:
            return []
    return list(_array_items(text, start, decoder))


def _parse_json(text: str, source: str) -> Table:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        return Table(
            source, problems=(Problem(f"{source} line {e.lineno} column {e.colno}", None, f"not valid JSON: {e.msg}"),)
        )
    problems: list[Problem] = []
    policy: Policy | None = None
    raw_variants: Any = []
    if isinstance(data, list):
        raw_cases, key = data, None
    elif isinstance(data, Mapping):
        for k in data:
            if k not in TOP_KEYS:
                problems.append(
                    Problem(source, str(k), f"unknown top-level key {k!r} (expected: {', '.join(TOP_KEYS)})")
                )
        raw_cases, raw_variants, key = data.get("cases", []), data.get("adversarial", []), "cases"
        if "policy" in data:
            try:
                policy = Policy.from_dict(data["policy"])
            except PolicyError as e:
                problems.append(Problem(f"{source} (policy)", e.field, str(e)))
        for name, value in (("cases", raw_cases), ("adversarial", raw_variants)):
            if not isinstance(value, list):
                problems.append(Problem(source, name, f"{name!r} must be a list"))
        raw_cases = raw_cases if isinstance(raw_cases, list) else []
        raw_variants = raw_variants if isinstance(raw_variants, list) else []
    else:
        problems.append(Problem(source, None, "a case file must hold a list of cases or an object with 'cases'"))
        return Table(source, problems=tuple(problems))
    lines = _lines_of_array(text, key)
    var_lines = _lines_of_array(text, "adversarial") if raw_variants else []

    def where(i: int, lines_: list[int], name: str) -> str:
        line = f" line {lines_[i]}" if i < len(lines_) else ""
        return f"{source}{line} ({name}[{i}])"

    return Table(
        source,
        tuple(Entry(where(i, lines, key or "cases"), m) for i, m in enumerate(raw_cases)),
        tuple(Entry(where(i, var_lines, "adversarial"), v) for i, v in enumerate(raw_variants)),
        tuple(problems),
        policy,
    )


def parse_table(text: str, *, fmt: str, source: str = "<text>") -> Table:
    """Parse case-table text in ``fmt`` (``"json"`` or ``"csv"``); bad rows are reported, not raised.

    Raises:
        CaseFileError: for a format that is neither.

    Example:
        >>> t = parse_table("\\ufeffid,bytes\\na,1_000\\nb,12\\n", fmt="csv", source="g.csv")
        >>> [(e.where, e.value, e.problem and e.problem.field) for e in t.entries]
        [('g.csv line 2', None, 'bytes'), ('g.csv line 3', {'id': 'b', 'bytes': 12}, None)]
    """
    if fmt == "json":
        return _parse_json(text.removeprefix("\ufeff"), source)
    if fmt == "csv":
        return _parse_csv(text.removeprefix("\ufeff"), source)
    raise CaseFileError(source, [Problem(source, None, f"unknown case file format {fmt!r}: expected 'json' or 'csv'")])


def read_table(path: str | Path) -> Table:
    """Read a case file, inventory or grid (``.csv`` or ``.json``); see :func:`parse_table`."""
    p = Path(path)
    fmt = format_of(p)
    return parse_table(read_text(p), fmt=fmt, source=p.name)


def load_policy(path: str | Path) -> Policy:
    """Read a policy JSON file such as ``data/policies/strict.json`` (the one policy loader).

    Raises:
        PolicyError: naming the file, and the field when a value is wrong.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> load_policy(data_path("policies", "strict.json")).embed_limit_bytes
        2048
    """
    try:
        data = json.loads(read_text(path))
    except CaseFileError as e:
        raise PolicyError(f"cannot read policy file {path}: {e.problems[0].message}") from e
    except json.JSONDecodeError as e:
        raise PolicyError(f"cannot read policy file {path}: not valid JSON: {e}") from e
    try:
        return Policy.from_dict(data)
    except PolicyError as e:
        raise PolicyError(f"policy file {path}: {e}", e.field) from e
