"""Where a CSV file's records start and end, read from its bytes at numpy speed (no per-line regex).

The column-wise inventory reader (:mod:`custody_lab.whatif.inventory_csv`) hands a file to
pyarrow's parser only when both readers split it into the same cells; this module decides that
and numbers the records, in one pass over the bytes a megabyte at a time:

- **Quotes** follow RFC 4180 exactly as Python's strict ``csv`` reader reads them: a quote opens
  a cell only at the cell's start (after a comma, a line end or at the file's start), a quote
  inside a quoted cell is doubled (``""``), and a closing quote is followed by a comma, a line end,
  the doubled quote or the end of the file. Whether a byte is inside a quoted cell is the parity
  of the quotes before it, so every line break is told apart — a record's end, or a line break
  inside a quoted cell (which both readers keep in the cell's value).
- **Records**: each starts after a line break outside quotes; an empty line (nothing, or the
  ``\\r`` of ``\\r\\n``) between records is skipped, as both readers skip it. A record's line number
  is the line it starts on (the row-by-row reader's ``line N``), however many lines it spans.

Example:
    >>> raw = b'h\\r\\na,"x\\ny"\\r\\n\\r\\nb,2\\n'
    >>> layout = CsvLayout(raw, 0)
    >>> layout.well_formed, layout.quoted_breaks, layout.rows.tolist(), layout.most_lines
    (True, True, [2, 5], 2)
    >>> CsvLayout(b'h\\na,"b"c\\n', 0).well_formed, CsvLayout(b'h\\na,b"c\\n', 0).well_formed
    (False, False)
"""

from __future__ import annotations

__all__ = ["CsvLayout"]

import numpy as np

_STEP = 1 << 20  # bytes scanned at a time: the comparison's temporary stays small
_QUOTE, _COMMA, _LF, _CR = 0x22, 0x2C, 0x0A, 0x0D


def _positions(data: np.ndarray, byte: int) -> np.ndarray:
    """Every position of ``byte`` in ``data``, a megabyte at a time."""
    found = [np.flatnonzero(data[k : k + _STEP] == byte) + k for k in range(0, data.size, _STEP)]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _quotes_well_formed(data: np.ndarray, quotes: np.ndarray, start: int) -> bool:
    """Every quote opens a cell at its start, closes it before a separator, or is doubled inside it."""
    if quotes.size % 2:
        return False  # a quoted cell is still open at the end of the file
    if not quotes.size:
        return True
    opening, closing = quotes[0::2], quotes[1::2]
    before = data[np.maximum(opening - 1, 0)]
    doubled = np.zeros(opening.size, dtype=bool)
    doubled[1:] = closing[:-1] == opening[1:] - 1  # ``""`` inside a quoted cell: closes, reopens
    opens_a_cell = (opening == start) | (before == _COMMA) | (before == _LF) | doubled
    after = data[np.minimum(closing + 1, data.size - 1)]
    ends_a_cell = (closing + 1 == data.size) | np.isin(after, (_COMMA, _LF, _CR, _QUOTE))
    return bool(opens_a_cell.all() and ends_a_cell.all())


class CsvLayout:
    """The records of a CSV file's bytes ``raw`` (from ``start``, after any byte-order mark).

    Attributes:
        well_formed: every quote is where RFC 4180 puts one (else the row-by-row reader reads it).
        quoted_breaks: some quoted cell holds a line break.
        rows: the line number each record after the header starts on (the empty lines skipped).
        longest: the most bytes a record spans (a bound on its longest cell).
        most_lines: the most lines one record spans.
    """

    def __init__(self, raw: bytes, start: int) -> None:
        data = np.frombuffer(raw, dtype=np.uint8)
        breaks = _positions(data, _LF)
        quotes = _positions(data, _QUOTE) if b'"' in raw else np.zeros(0, dtype=np.intp)
        self.well_formed = _quotes_well_formed(data, quotes, start)
        inside = (np.searchsorted(quotes, breaks) & 1).astype(bool) if quotes.size else np.zeros(breaks.size, bool)
        self.quoted_breaks = bool(inside.any())
        record_end = np.flatnonzero(~inside)  # which line breaks end a record
        self._ends = breaks[record_end]
        starts = np.concatenate(([start], self._ends + 1))
        stops = np.concatenate((self._ends, [data.size]))
        numbers = np.concatenate(([1], record_end + 2))  # a record's first line
        spans = np.diff(np.concatenate(([-1], record_end, [breaks.size])))  # lines per record
        if starts[-1] == data.size:  # the file ends with a line end: no record after it
            starts, stops, numbers, spans = starts[:-1], stops[:-1], numbers[:-1], spans[:-1]
        length = stops - starts
        self.longest = int(length.max()) if length.size else 0
        self.most_lines = int(spans.max()) if spans.size else 0
        last = max(data.size - 1, 0)
        empty = (length == 0) | ((length == 1) & (data[np.minimum(starts, last)] == _CR)) if data.size else length == 0
        empty[:1] = True  # the header is not a row
        self.rows: np.ndarray = numbers[~empty]

    def __len__(self) -> int:
        """How many rows (non-empty records after the header) there are."""
        return len(self.rows)

    def parts(self, raw: bytes, start: int, count: int) -> list[tuple[int, int]]:
        """``raw[start:]`` cut into about ``count`` pieces at record ends, as (start, stop) offsets;
        the first holds the header."""
        size = len(raw)
        wanted = [start + (size - start) * k // count for k in range(1, count)]
        at = np.searchsorted(self._ends, wanted)
        cuts = sorted({start, *(int(self._ends[i]) + 1 for i in at if i < self._ends.size), size})
        return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
