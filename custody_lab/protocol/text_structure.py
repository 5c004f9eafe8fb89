"""Structure read out of text formats for the transforms: CSV rows, document headings, safe cuts.

:mod:`custody_lab.protocol.transforms` records what each transform did; this module only reads:
a CSV table by RFC 4180's rules (``csv`` in strict mode, every row as wide as the header), the
headings of a Markdown (CommonMark ATX headings, ``#`` to ``######``) or HTML (``<h1>``-``<h6>``)
document, and where bytes may be cut without splitting a UTF-8 character. Each refusal is a
:class:`TextStructureError` naming the row or byte. Standard library only.
"""

from __future__ import annotations

__all__ = ["MAX_LISTED_NAMES", "TextStructureError", "csv_table", "headings", "utf8_cut"]

import csv
import io
import re
from collections import Counter
from html.parser import HTMLParser

from ..core.errors import CustodyLabError

#: A refusal names at most this many header names one by one (in column order); it counts the rest.
MAX_LISTED_NAMES = 10


class TextStructureError(CustodyLabError, ValueError):
    """The text is not the structure it should be; the message names the row or byte."""


def csv_table(data: bytes) -> tuple[list[str], list[list[str]]]:
    """The header and the data rows of a UTF-8 CSV file (a byte-order mark is fine; blank lines
    are skipped).

    Raises:
        TextStructureError: not UTF-8, a quote never closed, no header, a duplicate or blank
            header name, or a data row with a different number of cells than the header.

    Example:
        >>> csv_table(b"id,n\\na,1\\n\\nb,2\\n")
        (['id', 'n'], [['a', '1'], ['b', '2']])
        >>> csv_table(b"id,n\\na\\n")
        Traceback (most recent call last):
        ...
        custody_lab.protocol.text_structure.TextStructureError: data row 1 has 1 cell(s); the header has 2
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise TextStructureError(f"not UTF-8 at byte {e.start}") from e
    try:
        table = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as e:
        raise TextStructureError(f"not CSV: {e}") from e
    if not table:
        raise TextStructureError("the file has no header line")
    header, body = table[0], [row for row in table[1:] if row]
    counts = Counter(header)  # one pass: a header of 40,000 names is not searched 40,000 times
    bad = list(dict.fromkeys(c for c in header if counts[c] > 1 or not c.strip()))  # by first position
    if bad:
        more = f" and {len(bad) - MAX_LISTED_NAMES:,} more" if len(bad) > MAX_LISTED_NAMES else ""
        raise TextStructureError(
            f"header names must be unique and not blank; these are not: {bad[:MAX_LISTED_NAMES]}{more}"
        )
    for number, row in enumerate(body, start=1):
        if len(row) != len(header):
            raise TextStructureError(f"data row {number} has {len(row)} cell(s); the header has {len(header)}")
    return header, body


def utf8_cut(data: bytes, limit: int) -> int:
    """The largest cut at or under ``limit`` that does not split a UTF-8 character.

    Example:
        >>> utf8_cut("né".encode(), 2), utf8_cut(b"abc", 10)
        (1, 3)
    """
    cut = min(limit, len(data))
    while 0 < cut < len(data) and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut


class _Headings(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._level: int | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self._level, self._text = int(tag[1]), []

    def handle_endtag(self, tag: str) -> None:
        if self._level is not None and tag == f"h{self._level}":
            self.found.append((self._level, " ".join("".join(self._text).split())))
            self._level = None

    def handle_data(self, data: str) -> None:
        if self._level is not None:
            self._text.append(data)


def headings(text: str, mime: str) -> list[tuple[int, str]]:
    """The headings of a document as ``(level, title)``: HTML ``<h1>``-``<h6>`` for
    ``text/html``, ATX headings (``# Title``) for anything else.

    Example:
        >>> headings("# A\\ntext\\n## B ##\\n", "text/markdown"), headings("<h2>C &amp; D</h2>", "text/html")
        ([(1, 'A'), (2, 'B')], [(2, 'C & D')])
    """
    if mime == "text/html":
        parser = _Headings()
        parser.feed(text)
        parser.close()
        return parser.found
    found = (re.match(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$", line) for line in text.splitlines())
    return [(len(m.group(1)), m.group(2)) for m in found if m]
