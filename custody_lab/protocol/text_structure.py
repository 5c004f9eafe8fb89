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
import html
import io
import re
from collections import Counter

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


#: One piece of an HTML document (the HTML Standard's tokenizer, §13.2.5, in the parts a heading
#: outline needs): a comment, a marked section, a declaration or processing instruction, an end
#: tag, a start tag (quoted attribute values may hold ``>``), or text (with any ``<`` that starts
#: none of these, so ``<<<<`` is one piece, as it is one run of text). Every construct that is
#: never closed runs to the end of the document, so no alternative fails after reading far: each
#: character is read once.
_HTML_PIECE = re.compile(
    r"""<!--.*?(?:-->|\Z)
      | <!\[.*?(?:\]\]>|\Z)
      | <[!?][^>]*+(?:>|\Z)
      | </(?P<end>[a-zA-Z][^\t\n\r\f />]*+)[^>]*+(?:>|\Z)
      | <(?P<start>[a-zA-Z][^\t\n\r\f />]*+)(?P<attrs>(?:[^>"']++|"[^"]*+(?:"|\Z)|'[^']*+(?:'|\Z))*+)(?:>|\Z)
      | (?P<text>(?:[^<]++|<(?!/?[a-zA-Z]|[!?]))++|<)""",
    re.DOTALL | re.VERBOSE,
)
#: Elements whose content is raw text, read to their end tag without looking for tags (§13.1.2).
_RAW_TEXT = frozenset(("script", "style"))
_HEADING_TAGS = {f"h{n}": n for n in range(1, 7)}


def _html_headings(text: str) -> list[tuple[int, str]]:
    """``<h1>``-``<h6>`` of an HTML document, with character references decoded, in one pass."""
    found: list[tuple[int, str]] = []
    level: int | None = None
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        m = _HTML_PIECE.match(text, pos)
        assert m is not None  # the text alternative matches any character
        pos = m.end()
        if m.lastgroup == "text":
            if level is not None:
                parts.append(html.unescape(m.group("text")))
        elif m.group("start") is not None:
            tag = m.group("start").lower()
            if tag in _HEADING_TAGS:
                level, parts = _HEADING_TAGS[tag], []
                if m.group("attrs").rstrip().endswith("/"):  # <h2/>: a start tag and its end tag
                    found.append((level, ""))
                    level = None
            elif tag in _RAW_TEXT:  # its text is data up to its own end tag, never tags
                close = re.compile(rf"</{tag}(?=[\t\n\r\f />])", re.IGNORECASE).search(text, pos)
                stop = len(text) if close is None else close.start()
                if level is not None:
                    parts.append(text[pos:stop])
                pos = stop
        elif m.group("end") is not None:
            if level is not None and m.group("end").lower() == f"h{level}":
                found.append((level, " ".join("".join(parts).split())))
                level = None
    return found


_ATX = re.compile(r" {0,3}(#{1,6}+)\s")


def _atx_title(line: str) -> tuple[int, str] | None:
    """An ATX heading line as ``(level, title)``, read without backtracking: after the ``#``
    marks and the white space that follows them, the title runs to the end of the line, less its
    trailing white space and, when white space comes before it, a closing run of ``#``."""
    m = _ATX.match(line)
    if m is None:
        return None
    body = line[m.end(1) :].strip()
    bare = body.rstrip("#")
    if bare != body and bare[-1:].isspace():  # a closing sequence, after white space
        body = bare.rstrip()
    return len(m.group(1)), body


def headings(text: str, mime: str) -> list[tuple[int, str]]:
    """The headings of a document as ``(level, title)``: HTML ``<h1>``-``<h6>`` for
    ``text/html``, ATX headings (``# Title``) for anything else. Linear in the text's length
    (each character is read a bounded number of times, whatever the markup).

    Example:
        >>> headings("# A\\ntext\\n## B ##\\n", "text/markdown"), headings("<h2>C &amp; D</h2>", "text/html")
        ([(1, 'A'), (2, 'B')], [(2, 'C & D')])
    """
    if mime == "text/html":
        return _html_headings(text)
    return [found for line in text.splitlines() if (found := _atx_title(line)) is not None]
