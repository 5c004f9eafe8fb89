"""The CSV half of the case-table reader (see :mod:`custody_lab.core.tables` for what a file may
hold): line by line, each record's lines known, so a bad record costs its own row only.

The rules and messages of a CSV file live here once, in two layers:

- the **syntax** of the file (a line that is not UTF-8 or holds a NUL, an unclosed quote, a cell
  over the csv module's field limit, a bare carriage return, a quoted line break outside free
  text), which only :func:`parse_csv`, the line-by-line reader, reads and reports;
- the **header, rows and cells** (:func:`header_problems`, :func:`csv_row`, :func:`csv_cell`):
  what a record's cells mean, whoever split the file into cells. :func:`parse_csv` calls them for
  each record, and so does the column-wise inventory reader
  (:mod:`custody_lab.whatif.inventory_csv`) for the cells of the file it parsed itself, so a
  problem of a row is found by the same function and worded by the same sentence on both paths.
"""

from __future__ import annotations

__all__ = [
    "MAX_RECORD_LINES",
    "blank_row",
    "csv_cell",
    "csv_row",
    "header_problems",
    "parse_csv",
]

import csv
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .blank import is_blank, strip_blank
from .errors import CaseError, Problem
from .model import FIELD_SPECS, MAX_EXPLAINED_COLUMNS, close_field, short, unit_hint
from .table_entry import Entry, Table

#: A quoted CSV cell may run over at most this many lines: a quote that is never closed costs one
#: row, not the rest of the file.
MAX_RECORD_LINES = 100
_ASCII_DIGITS = frozenset("0123456789")


def _int_cell(name: str, text: str) -> int:
    body = text[1:] if text[:1] in "+-" else text
    if body and set(body) <= _ASCII_DIGITS and len(body) <= 20:
        return int(text)
    if unit_hint(text):
        hint = unit_hint(text)
    elif "_" in text:
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
    text = strip_blank(raw)
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


def header_problems(header: Sequence[str], where: str) -> list[Problem]:
    """What is wrong with a header of (stripped) column names: a column named twice, a column that
    is not a case field (with a close name when there is one). Any problem refuses the whole file.

    One pass over the header: the first :data:`MAX_EXPLAINED_COLUMNS` problems are explained one
    by one, in column order (the close-name search runs for those only), and the rest are counted
    in one last problem ("and 39,990 more unknown columns"), so a header of 40,000 columns costs
    a pass, not 40,000 searches.

    Example:
        >>> [p.message for p in header_problems(["id", "bytes", "id"], "g.csv line 1")]
        ["column 'id' appears more than once"]
        >>> problems = header_problems(["id", *(f"x{i}" for i in range(40_000))], "g.csv line 1")
        >>> len(problems), problems[-1].message
        (11, 'and 39,990 more unknown columns (the first 10 problems of the header are explained one by one)')
    """
    problems: list[Problem] = []
    allowed = ", ".join(FIELD_SPECS)
    seen: set[str] = set()
    unknown = repeated = 0  # problems counted, not explained
    for i, col in enumerate(header):
        if col in seen:
            if len(problems) < MAX_EXPLAINED_COLUMNS:
                problems.append(Problem(where, col, f"column {short(col)} appears more than once"))
            else:
                repeated += 1
            continue
        seen.add(col)
        if col in FIELD_SPECS:
            continue
        if len(problems) >= MAX_EXPLAINED_COLUMNS:
            unknown += 1
            continue
        close = close_field(col)
        hint = f"did you mean {close!r}? " if close else ""
        shown = short(col) if col else f"with no name (column {i + 1})"
        problems.append(
            Problem(
                where,
                col,
                f"unknown column {shown}: {hint}unknown columns are refused, not ignored: a case table holds "
                f"only case fields ({allowed}); put descriptive text in 'title' or 'description'",
            )
        )
    rest: list[str] = []
    if unknown:
        rest.append(f"{unknown:,} more unknown column{'s' if unknown != 1 else ''}")
    if repeated:
        rest.append(f"{repeated:,} more column{'s' if repeated != 1 else ''} named more than once")
    if rest:
        problems.append(
            Problem(
                where,
                None,
                f"and {' and '.join(rest)} (the first {MAX_EXPLAINED_COLUMNS} problems of the header are explained "
                "one by one)",
            )
        )
    return problems


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
    if "new-line character seen in unquoted field" in message:
        return "a line ends with a bare carriage return (\\r): save the file with \\n or \\r\\n line ends"
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
        if len(lines.taken) > 1 and not blank_row(row):  # quoted line breaks: only free text may hold them
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
            if len(row) != len(header):  # a quoted cell ran over lines: they may be rows of their own
                message = _count_message(row, header) + (
                    f" (its quoted cells run over {len(lines.taken)} lines; the lines after the first are read again)"
                )
                lines.give_back()
                yield Entry(where, None, (Problem(where, None, message),), lines.offset)
                continue
        entry = csv_row(header, row, where, lines.offset)
        if entry is not None:
            yield entry


def blank_row(cells: Sequence[str]) -> bool:
    """A record of blank cells only (or none): not a row, skipped.

    Example:
        >>> blank_row([" ", "", "\u3000"]), blank_row(["", "x"])
        (True, False)
    """
    return all(map(is_blank, cells))


def _count_message(cells: Sequence[str], header: Sequence[str]) -> str:
    return f"row has {len(cells)} values but the header names {len(header)} columns"


def csv_row(header: Sequence[str], cells: Sequence[str], where: str, offset: int = 0) -> Entry | None:
    """One record's entry from its cells, by :func:`csv_cell`; ``None`` for a blank row (skipped).

    A record with more or fewer cells than the header is a problem of its row; a cell
    :func:`csv_cell` refuses is a problem of its field, and the entry keeps the cells that could be
    read (so the loader finds their problems too). ``offset``: where the record ends in the file,
    in bytes (for progress reports).

    Example:
        >>> e = csv_row(["id", "bytes", "current"], ["a", "1_000", "TRUE"], "g.csv line 2")
        >>> e.value, [p.field for p in e.problems]
        ({'id': 'a', 'current': True}, ['bytes'])
        >>> csv_row(["id", "bytes"], ["", " "], "g.csv line 3") is None
        True
    """
    if blank_row(cells):
        return None
    if len(cells) != len(header):
        return Entry(where, None, (Problem(where, None, _count_message(cells, header)),), offset)
    mapping: dict[str, Any] = {}
    problems = []
    for name, cell in zip(header, cells):
        try:
            value = csv_cell(name, cell)
        except CaseError as e:
            problems.append(Problem(where, e.field, str(e)))
            continue
        if value is not None:
            mapping[name] = value
    return Entry(where, mapping, tuple(problems), offset)  # with problems: the cells that could be read


def parse_csv(raw: Iterable[bytes | str], source: str, size: int) -> Table:
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
    header = [strip_blank(h) for h in first]
    problems = header_problems(header, where)
    if problems:  # the whole file is refused: no row means what its author meant
        return Table(source, problems=tuple(problems))
    return Table(source, _csv_entries(lines, reader, header, source), size=size)
