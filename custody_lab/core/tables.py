"""The one reader of case tables: case files, inventories and what-if grids, CSV or JSON.

``custody-lab route`` (through :mod:`custody_lab.core.loading`) and ``custody-lab sweep`` (through
:mod:`custody_lab.whatif.io`) read every file here, so a file means the same thing to both:

- Text is UTF-8. A leading byte-order mark (what spreadsheet programs write for "CSV UTF-8") is
  accepted and dropped. A CSV line that is not UTF-8 or holds a NUL byte is a problem of its row.
- A CSV header names case fields (the seed's camelCase keys, :data:`~custody_lab.core.model.FIELDS`).
  A column that is not a case field, or a column named twice, refuses the whole file at line 1,
  naming the column, the columns that are allowed and a close name when there is one: nothing is
  silently dropped.
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
    "Entry",
    "Table",
    "csv_cell",
    "format_of",
    "load_policy",
    "parse_table",
    "read_table",
    "read_text",
]

import csv
import difflib
import functools
import io
import json
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from .errors import CaseError, CaseFileError, PolicyError, Problem
from .model import FIELD_SPECS, Policy, describe, short

#: The keys a JSON case file object may have.
TOP_KEYS = ("fixture", "policy", "cases", "adversarial")
FORMATS = ("json", "csv")
#: A quoted CSV cell may run over at most this many lines: a quote that is never closed costs one
#: row, not the rest of the file.
MAX_RECORD_LINES = 100
_ASCII_DIGITS = frozenset("0123456789")
_JSON_WS = re.compile(r"[ \t\n\r]*")  # RFC 8259 §2: the four whitespace characters
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*+"|[\[\]{}]')
_JSON_SCALAR = re.compile(r"[^,\]}\s]*")


class Entry:
    """One entry of a table: where it is (``"cases.csv line 4"``), its value (a case mapping with
    the cells converted, or the JSON value as written), or the problems that kept it from being
    read (bad cells, the wrong number of cells, a duplicate key) — with a CSV row's bad cells,
    ``value`` holds the cells that could be read, so their problems are found too; entries keep
    the file's order. ``offset`` is how far into the file (in bytes) the entry ends, for progress
    reports.

    ``where`` may be given as a function that computes it: a JSON file's line numbers are only
    counted when some entry's location is asked for (a file without problems never needs them).
    """

    __slots__ = ("_where", "offset", "problems", "value")

    def __init__(
        self, where: str | Callable[[], str], value: Any, problems: tuple[Problem, ...] = (), offset: int = 0
    ) -> None:
        self._where = where
        self.value = value
        self.problems = problems
        self.offset = offset

    @property
    def where(self) -> str:
        if not isinstance(self._where, str):
            self._where = self._where()
        return self._where

    def place(self) -> Entry:
        """The entry's location alone (its value dropped), for a loader that keeps it for later."""
        return Entry(self._where, None, (), self.offset)

    def __repr__(self) -> str:
        return f"Entry({self.where!r}, {self.value!r}, {self.problems!r}, {self.offset})"


@dataclass(frozen=True)
class Table:
    """What a file held, before each case is validated.

    Attributes:
        source: the file name used in every location.
        entries: the cases, in file order (a CSV file's are read as they are iterated: iterate
            once).
        variants: a JSON case file's ``adversarial`` entries (each ``{"id", "from", "change"}``).
        problems: the problems of the file as a whole (an unknown column, invalid JSON, a bad
            policy); a bad row's problems are on its entry.
        policy: the JSON case file's ``policy``, when it has a valid one.
        size: the file's size in bytes (what ``Entry.offset`` counts towards).
    """

    source: str
    entries: Iterable[Entry] = ()
    variants: tuple[Entry, ...] = ()
    problems: tuple[Problem, ...] = ()
    policy: Policy | None = None
    size: int = 0


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
    if fmt not in FORMATS:
        raise CaseFileError(str(p), [Problem(str(p), None, "expected a .json or .csv file")])
    return fmt


def _int_cell(name: str, text: str) -> int:
    body = text[1:] if text[:1] in "+-" else text
    if body and set(body) <= _ASCII_DIGITS and len(body) <= 20:
        return int(text)
    if "_" in text:
        hint = " (write it without '_' separators)"
    elif body and set(body) <= _ASCII_DIGITS:
        hint = " (that is far more than any size)"
    elif any(ch.isdigit() for ch in text):
        hint = " (write it with the digits 0-9 only: no decimal point, exponent or other scripts' digits)"
    else:
        hint = ""
    raise CaseError(f"field {name!r} must be {FIELD_SPECS[name].expected()}; got {short(text)}{hint}", name)


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
            raise CaseError(f"field {name!r} must be true or false (in any letter case); got {short(text)}", name)
        return low == "true"
    if spec.kind == "int":
        return _int_cell(name, text)
    return raw


def _header_problems(header: list[str], where: str) -> list[Problem]:
    problems = []
    allowed = ", ".join(FIELD_SPECS)
    for i, col in enumerate(header):
        if header.index(col) != i:
            problems.append(Problem(where, col, f"column {short(col)} appears more than once"))
            continue
        if col in FIELD_SPECS:
            continue
        close = difflib.get_close_matches(col, list(FIELD_SPECS), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        shown = short(col) if col else f"with no name (column {i + 1})"
        problems.append(
            Problem(
                where,
                col,
                f"unknown column {shown}: {hint}a case table holds only case fields ({allowed}); "
                "put descriptive text in 'title' or 'description'",
            )
        )
    return problems


# ---------------------------------------------------------------------------------------------
# CSV: line by line, each record's lines known, so a bad record costs its own row only


class _RecordTooLong(Exception):
    """Raised by :class:`_Lines` (inside the csv reader) when one record runs over too many lines."""


class _Lines:
    """The lines of a CSV file, decoded one at a time and numbered; the lines a bad record took
    can be given back, so that they are read again as rows of their own."""

    def __init__(self, raw: Iterable[bytes | str]) -> None:
        self._raw = iter(raw)
        self._back: deque[tuple[int, str]] = deque()
        self.count = 0
        self.offset = 0  # bytes read so far
        self.taken: list[tuple[int, str]] = []  # (number, text) of the current record's lines
        self.flaws: dict[int, str] = {}  # line number -> what is wrong with the line itself

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if len(self.taken) >= MAX_RECORD_LINES:
            raise _RecordTooLong
        if self._back:
            item = self._back.popleft()
        else:
            item = self._read(next(self._raw))
        self.taken.append(item)
        return item[1]

    def _read(self, raw: bytes | str) -> tuple[int, str]:
        self.count += 1
        number = self.count
        if isinstance(raw, str):
            text = raw
            self.offset += len(raw)
        else:
            self.offset += len(raw)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                text = raw.decode("utf-8", "replace")
                column = len(raw[: e.start].decode("utf-8", "replace")) + 1
                self.flaws[number] = f"the line is not UTF-8 (byte 0x{raw[e.start]:02x} at column {column})"
        if number == 1:
            text = text.removeprefix("\ufeff")
        nul = text.find("\x00")
        if nul >= 0 and number not in self.flaws:
            self.flaws[number] = f"the line holds a NUL byte at column {nul + 1} (is it a text file, saved as UTF-8?)"
        return number, text

    def start_record(self) -> None:
        self.taken = []

    def give_back(self) -> None:
        """Return every line of the current record but its first, to be read again."""
        self._back.extendleft(reversed(self.taken[1:]))
        del self.taken[1:]


def _csv_error(e: Exception, spanned: int) -> str:
    after = f"; the {spanned - 1} line(s) after it are read as rows of their own" if spanned > 1 else ""
    if isinstance(e, _RecordTooLong):
        return f"a quoted cell is not closed within {MAX_RECORD_LINES} lines (an unmatched '\"'){after}"
    message = str(e)
    if "field limit" in message:
        what = f"a cell is longer than {csv.field_size_limit():,} characters (the csv module's field limit)"
        return what + (" — probably an unmatched '\"'" if spanned > 1 else "") + after
    if "unexpected end of data" in message:
        return f"a quoted cell is not closed before the end of the file (an unmatched '\"'){after}"
    return f"not valid CSV: {message}{after}"


def _next_record(lines: _Lines, reader: Any) -> list[str] | Exception | None:
    """The next record's cells, the error that ended it, or ``None`` at the end of the file."""
    lines.start_record()
    try:
        return next(reader)  # type: ignore[no-any-return]
    except StopIteration:
        return None
    except (csv.Error, _RecordTooLong) as e:
        return e


def _csv_entries(lines: _Lines, reader: Any, header: list[str], source: str) -> Iterator[Entry]:
    while True:
        row = _next_record(lines, reader)
        if row is None:
            return
        first = lines.taken[0][0] if lines.taken else lines.count
        where = f"{source} line {first}"
        if isinstance(row, Exception):
            spanned = len(lines.taken)
            lines.give_back()
            flaw = lines.flaws.pop(first, None)
            problems = [Problem(where, None, flaw)] if flaw else []
            problems.append(Problem(where, None, _csv_error(row, spanned)))
            yield Entry(where, None, tuple(problems), lines.offset)
            continue
        flaws = [lines.flaws.pop(n) for n, _ in lines.taken if n in lines.flaws]
        if flaws:
            yield Entry(where, None, tuple(Problem(where, None, f) for f in flaws), lines.offset)
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(lines.taken) > 1:  # quoted line breaks: only free text may hold them
            broken = [
                h for h, cell in zip(header, row) if FIELD_SPECS[h].kind != "text" and ("\n" in cell or "\r" in cell)
            ]
            if broken:
                message = (
                    f"the cell of {broken[0]!r} runs over lines {first}-{lines.taken[-1][0]}: only 'title' and "
                    "'description' may hold line breaks (an unmatched '\"'?); the lines after the first are read again"
                )
                lines.give_back()
                yield Entry(where, None, (Problem(where, broken[0], message),), lines.offset)
                continue
        if len(row) != len(header):
            message = f"row has {len(row)} values but the header names {len(header)} columns"
            if len(lines.taken) > 1:  # a quoted cell ran over lines: they may be rows of their own
                message += (
                    f" (its quoted cells run over {len(lines.taken)} lines; the lines after the first are read again)"
                )
                lines.give_back()
            yield Entry(where, None, (Problem(where, None, message),), lines.offset)
            continue
        mapping: dict[str, Any] = {}
        problems = []
        for name, cell in zip(header, row):
            try:
                value = csv_cell(name, cell)
            except CaseError as e:
                problems.append(Problem(where, e.field, str(e)))
                continue
            if value is not None:
                mapping[name] = value
        yield Entry(where, mapping, tuple(problems), lines.offset)  # with problems: the cells that could be read


def _parse_csv(raw: Iterable[bytes | str], source: str, size: int) -> Table:
    lines = _Lines(raw)
    reader = csv.reader(lines, strict=True)
    first = _next_record(lines, reader)
    where = f"{source} line 1"
    if first is None:
        return Table(source, problems=(Problem(source, None, "the CSV file is empty: expected a header row"),))
    flaw = lines.flaws.pop(1, None)
    if flaw is not None:
        return Table(source, problems=(Problem(where, None, flaw),))
    if isinstance(first, Exception):
        return Table(source, problems=(Problem(where, None, f"the header: {_csv_error(first, 1)}"),))
    header = [h.strip() for h in first]
    problems = _header_problems(header, where)
    if problems:  # the whole file is refused: no row means what its author meant
        return Table(source, problems=tuple(problems))
    return Table(source, _csv_entries(lines, reader, header, source), size=size)


# ---------------------------------------------------------------------------------------------
# JSON: scanned once, left to right


def _skip_value(text: str, i: int) -> int:
    """The end of the JSON value at ``i``, found without building it (for a value too deep or too
    large to decode)."""
    if text[i] not in "[{":
        m = _JSON_SCALAR.match(text, i)
        return m.end() if m and m.end() > i else i + 1
    depth = 0
    for m in _JSON_TOKEN.finditer(text, i):
        ch = m.group()[0]
        if ch == '"':
            continue
        depth += 1 if ch in "[{" else -1
        if depth == 0:
            return m.end()
    return len(text)


class _JsonDoc:
    """One JSON text, scanned once from left to right; each value is decoded by the standard
    library's C scanner, with hooks that note duplicate keys and non-JSON constants."""

    def __init__(self, text: str, source: str, size: int) -> None:
        self.text = text
        self.source = source
        self.scale = size / len(text) if text else 0.0
        self._dups: list[str] = []
        self._constants: list[str] = []
        decoder = json.JSONDecoder(object_pairs_hook=self._pairs, parse_constant=self._constant)
        self._decode = decoder.raw_decode
        self._line = 1
        self.counted = 0

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in self._dups:
                    self._dups.append(key)
                seen.add(key)
        return d

    def _constant(self, name: str) -> float:
        if name not in self._constants:
            self._constants.append(name)
        return float(name)

    def line(self, pos: int) -> int:
        """The line of ``pos``; positions are asked for in increasing order (counted once)."""
        if pos < self.counted:
            self._line, self.counted = 1, 0
        self._line += self.text.count("\n", self.counted, pos)
        self.counted = pos
        return self._line

    def ws(self, i: int) -> int:
        return _JSON_WS.match(self.text, i).end()  # type: ignore[union-attr]

    def fail(self, i: int, message: str) -> NoReturn:
        raise json.JSONDecodeError(message, self.text, i)

    def value(self, i: int) -> tuple[Any, int, list[tuple[str | None, str]]]:
        """The value at ``i``, where it ends, and what is wrong with it as (field, message) pairs.

        Raises:
            json.JSONDecodeError: for text that is not JSON at all (the file is refused).
        """
        self._dups.clear()
        self._constants.clear()
        try:
            value, end = self._decode(self.text, i)
        except json.JSONDecodeError:
            raise
        except RecursionError:
            limit = sys.getrecursionlimit()
            return None, _skip_value(self.text, i), [(None, f"nested too deep (Python reads about {limit} levels)")]
        except ValueError:  # an integer longer than int() reads
            digits = sys.get_int_max_str_digits()
            return None, _skip_value(self.text, i), [(None, f"holds an integer of more than {digits:,} digits")]
        problems: list[tuple[str | None, str]] = [
            (key, f"key {short(key)} is written twice in one object (which one counts is not defined)")
            for key in self._dups
        ]
        problems += [(None, f"{c} is not a JSON value (RFC 8259 has no NaN or Infinity)") for c in self._constants]
        return value, end, problems

    def end(self, i: int) -> None:
        i = self.ws(i)
        if i != len(self.text):
            self.fail(i, "Extra data")

    def array(self, i: int, name: str) -> tuple[list[Entry], int]:
        """The entries of the array whose '[' is at ``i``, and where it ends.

        The whole array is decoded by one call of the C scanner; only when the hooks noted a
        problem (or a value is too deep or too large) is it scanned element by element, to put
        each problem on its element. Line numbers are counted the first time one is asked for.
        """
        self._dups.clear()
        self._constants.clear()
        try:
            values, end = self._decode(self.text, i)
        except (RecursionError, ValueError) as e:
            if isinstance(e, json.JSONDecodeError):
                raise
            return self.elements(i, name)
        if self._dups or self._constants or not isinstance(values, list):
            return self.elements(i, name)
        lines: list[str] = []

        def where(k: int) -> str:
            if not lines:
                lines.extend(e.where for e in self.elements(i, name)[0])
            return lines[k]

        step = (end - i) / max(len(values), 1)
        return [
            Entry(functools.partial(where, k), v, (), int((i + step * (k + 1)) * self.scale))
            for k, v in enumerate(values)
        ], end

    def elements(self, i: int, name: str) -> tuple[list[Entry], int]:
        """:meth:`array`, element by element: each value decoded alone, its line counted."""
        text = self.text
        entries: list[Entry] = []
        i = self.ws(i + 1)
        if text.startswith("]", i):
            return entries, i + 1
        while True:
            value, end, bad = self.value(i)
            where = f"{self.source} line {self.line(i)} ({name}[{len(entries)}])"
            problems = tuple(Problem(where, f, m) for f, m in bad)
            entries.append(Entry(where, None if bad else value, problems, int(end * self.scale)))
            i = self.ws(end)
            if text.startswith(",", i):
                i = self.ws(i + 1)
            elif text.startswith("]", i):
                return entries, i + 1
            else:
                self.fail(i, "Expecting ',' delimiter")

    def table(self) -> Table:
        i = self.ws(0)
        if self.text.startswith("[", i):
            entries, end = self.array(i, "cases")
            self.end(end)
            return Table(self.source, tuple(entries), size=int(len(self.text) * self.scale))
        if self.text.startswith("{", i):
            return self.members(i)
        value, end, _ = self.value(i)
        self.end(end)
        message = f"a case file must hold a list of cases or an object with 'cases'; got {describe(value)}"
        return Table(self.source, problems=(Problem(self.source, None, message),))

    def members(self, i: int) -> Table:
        """A case file object ``{"cases": [...], "adversarial": [...], "policy": {...}}`` at ``i``."""
        text, source = self.text, self.source
        problems: list[Problem] = []
        seen: dict[str, int] = {}
        lists: dict[str, list[Entry]] = {"cases": [], "adversarial": []}
        policy: Policy | None = None
        i = self.ws(i + 1)
        while not text.startswith("}", i):
            if not text.startswith('"', i):
                self.fail(i, "Expecting property name enclosed in double quotes")
            line = self.line(i)
            key, i = self._decode(text, i)
            i = self.ws(i)
            if not text.startswith(":", i):
                self.fail(i, "Expecting ':' delimiter")
            i = self.ws(i + 1)
            if key in seen:
                message = f"the top-level key {short(key)} is written twice (first on line {seen[key]}): a file has one"
                problems.append(Problem(f"{source} line {line}", key, message))
                i = self.value(i)[1]
            elif key not in TOP_KEYS:
                seen[key] = line
                message = f"unknown top-level key {short(key)} (expected: {', '.join(TOP_KEYS)})"
                problems.append(Problem(source, key, message))
                i = self.value(i)[1]
            elif key in lists and text.startswith("[", i):
                seen[key] = line
                lists[key], i = self.array(i, key)
            else:
                seen[key] = line
                value, i, bad = self.value(i)
                if key in lists:
                    problems.append(Problem(source, key, f"{key!r} must be a list; got {describe(value)}"))
                elif key == "policy":
                    problems += [Problem(f"{source} line {line} (policy)", f, m) for f, m in bad]
                    if not bad:
                        try:
                            policy = Policy.from_dict(value)
                        except PolicyError as e:
                            problems.append(Problem(f"{source} (policy)", e.field, str(e)))
            i = self.ws(i)
            if text.startswith(",", i):
                i = self.ws(i + 1)
                if text.startswith("}", i):
                    self.fail(i, "Expecting property name enclosed in double quotes")
            elif not text.startswith("}", i):
                self.fail(i, "Expecting ',' delimiter")
        self.end(i + 1)
        size = int(len(text) * self.scale)
        return Table(source, tuple(lists["cases"]), tuple(lists["adversarial"]), tuple(problems), policy, size)


def _parse_json(text: str, source: str, size: int) -> Table:
    doc = _JsonDoc(text, source, size)
    try:
        return doc.table()
    except json.JSONDecodeError as e:
        where = f"{source} line {e.lineno} column {e.colno}"
        return Table(source, problems=(Problem(where, None, f"not valid JSON: {e.msg}"),))


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
        return _parse_json(text.removeprefix("\ufeff"), source, len(text))
    if fmt == "csv":
        return _parse_csv(io.StringIO(text, newline="\n"), source, len(text))
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
        return _parse_json(text, p.name, p.stat().st_size)
    try:
        handle = p.open("rb")
        size = p.stat().st_size
    except OSError as e:
        raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {e}")]) from e
    table = _parse_csv(_closing(handle), p.name, size)
    if not isinstance(table.entries, Iterator):
        handle.close()
    return table


def _closing(handle: io.BufferedReader) -> Iterator[bytes]:
    with handle:
        yield from handle


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
    try:
        text = read_text(path)
    except CaseFileError as e:
        raise PolicyError(f"cannot read policy file {path}: {e.problems[0].message}") from e
    doc = _JsonDoc(text, str(path), len(text))
    try:
        data, end, bad = doc.value(doc.ws(0))
        doc.end(end)
    except json.JSONDecodeError as e:
        raise PolicyError(f"cannot read policy file {path}: not valid JSON: {e}") from e
    if bad:
        field, message = bad[0]
        raise PolicyError(f"policy file {path}: {message}", field)
    try:
        return Policy.from_dict(data)
    except PolicyError as e:
        raise PolicyError(f"policy file {path}: {e}", e.field) from e
