"""The text of a simple PDF, page by page, read with the standard library only.

Seed 000 ("Preserve URI, MIME type, and provenance") names "PDF to text" as a transform a host
records as a new step. The lab does that transform for real, on real PDF bytes, and refuses what
it cannot read instead of guessing:

* the file structure of ISO 32000-1 §7.5 (objects found by ``N G obj ... endobj``, so a stale
  cross-reference table does not matter), the page tree of §7.7.3 (``/Root`` → ``/Pages`` →
  ``/Kids``, in order), content streams uncompressed or ``/FlateDecode`` (§7.4.4, ``zlib``);
* the text-showing operators of §9.4.3 (``Tj``, ``TJ``, ``'``, ``"``); a line break for ``T*``,
  ``'``, ``"`` and a ``Td``/``TD``/``Tm`` that moves down the page, a space for a ``TJ`` gap of
  250 thousandths of an em or more;
* string bytes read as Latin-1, which is what the standard 14 fonts' encodings give for ASCII
  text (§9.6.2.2, Annex D).

Refused, each with a :class:`PdfError` naming the object or byte position: encrypted files
(§7.6), object streams (§7.5.7), filters other than ``/FlateDecode``, composite (``Type0``) fonts
whose glyph codes need a ``ToUnicode`` map (§9.10), nesting deeper than :data:`MAX_DEPTH`.

**Bounded** (the lab's host policy: what a file costs is set by its size and these budgets, never by
what it claims to inflate to or how often it repeats itself): a file larger than
:data:`MAX_PDF_BYTES` is refused before it is read, and the page content the reader decodes and
reads is at most :data:`MAX_CONTENT_BYTES` in all — every byte a ``/FlateDecode`` filter produces
and every use of a stream counts, so one stream referenced ten times costs ten times, and the
decompressor is never asked for more than what is left. Either refusal is a :class:`PdfBudgetError`
naming its budget. Every scan is linear: each byte of the file is read by the object scanner a
bounded number of times (an object is read up to its own ``endobj`` and a stream's bytes are
skipped, never re-read from every ``obj`` inside them), strings are scanned from one special
character to the next, and :attr:`PdfBudget.scanned` counts the bytes the scanners examined, so that
a test can see it stay a small multiple of the input. The module is pure: standard library only."""

from __future__ import annotations

__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_DEPTH",
    "MAX_PDF_BYTES",
    "PdfBudget",
    "PdfBudgetError",
    "PdfError",
    "PdfText",
    "extract_text",
]

import binascii
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..core.errors import CustodyLabError

#: The largest file the reader reads, in bytes; a larger one is refused unread.
MAX_PDF_BYTES = 2 * 1024 * 1024
#: The most page-content bytes one reading decodes and reads, in all: each ``/FlateDecode``
#: output and each use of a stream count (a stream used ten times counts ten times).
MAX_CONTENT_BYTES = 512 * 1024
#: The deepest nesting of arrays and dictionaries the reader follows.
MAX_DEPTH = 64
#: The most digits an integer may have (ISO 32000-1 Annex C limits integers to 32 bits).
_MAX_DIGITS = 20


class PdfError(CustodyLabError, ValueError):
    """The bytes are not a PDF the lab can read; the message names the object or byte position.

    Attributes:
        position: the byte offset at fault, or ``None`` when the fault is a whole object.
    """

    def __init__(self, message: str, position: int | None = None) -> None:
        self.position = position
        super().__init__(message if position is None else f"{message} (at byte {position})")


class PdfBudgetError(PdfError):
    """The file would cost more than a budget allows; the message names the budget.

    Attributes:
        budget: ``"MAX_PDF_BYTES"`` (the file's size) or ``"MAX_CONTENT_BYTES"`` (the page
            content decoded and read).
        limit: the budget's size in bytes.
    """

    def __init__(self, message: str, budget: str, limit: int) -> None:
        self.budget, self.limit = budget, limit
        super().__init__(message)


@dataclass
class PdfBudget:
    """What one reading may spend, and what it spent (readable after a refusal too).

    Attributes:
        max_pdf_bytes: the largest file read (:data:`MAX_PDF_BYTES` by default).
        max_content_bytes: the page content decoded and read (:data:`MAX_CONTENT_BYTES`).
        content_bytes: the page-content bytes spent so far.
        largest_request: the most bytes the decompressor was asked for in one call.
        scanned: the bytes the scanners examined: tokens, strings, and the searches for object
            headers, ``endobj`` and ``endstream`` (a linear reader keeps it a small multiple of
            the file's size plus ``content_bytes``).

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> spent = PdfBudget()
        >>> extract_text(data_path("resources", "brochure.pdf").read_bytes(), budget=spent).pages
        ('Brightgrid brochure',)
        >>> 0 < spent.content_bytes < 100
        True
    """

    max_pdf_bytes: int = MAX_PDF_BYTES
    max_content_bytes: int = MAX_CONTENT_BYTES
    content_bytes: int = 0
    largest_request: int = 0
    scanned: int = 0

    @property
    def content_left(self) -> int:
        return self.max_content_bytes - self.content_bytes

    def spend(self, count: int, what: str) -> None:
        """Count ``count`` page-content bytes; refuse when they pass the budget."""
        if count > self.content_left:
            raise PdfBudgetError(
                f"{what}: the page content would pass {self.max_content_bytes:,} decoded bytes, the reader's "
                "content budget (MAX_CONTENT_BYTES; every use of a stream counts)",
                "MAX_CONTENT_BYTES",
                self.max_content_bytes,
            )
        self.content_bytes += count


@dataclass(frozen=True, slots=True)
class _Ref:
    """An indirect reference ``N G R``."""

    number: int
    generation: int


@dataclass(frozen=True, slots=True)
class _Name:
    """A PDF name such as ``/Type`` (without the slash)."""

    value: str


@dataclass(frozen=True, slots=True)
class _Op:
    """An operator in a content stream (``Tj``, ``BT``...)."""

    value: str


@dataclass(frozen=True)
class PdfText:
    """The text of each page, in page order.

    Attributes:
        pages: one string per page.
    """

    pages: tuple[str, ...]

    @property
    def page_count(self) -> int:
        return len(self.pages)


_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
#: One token of PDF object syntax (§7.2-§7.3), after any white space (§7.2.2, Table 1) and
#: comments. A "regular" byte is neither white space nor a delimiter. Every quantifier that could
#: run far is possessive, so an alternative that fails gives up at once instead of backtracking.
_TOKEN = re.compile(
    rb"""(?:[\x00\t\n\f\r ]++ | %[^\r\n]*+)*+
    (?: (?P<ref>([+-]?\d++)\s++(\d++)\s++R(?![^\s()<>\[\]{}/%]))
      | (?P<int>[+-]?\d++)(?![^\x00\t\n\f\r ()<>\[\]{}/%])
      | (?P<real>[+-]?(?:\d++\.\d*+|\.\d++))(?![^\x00\t\n\f\r ()<>\[\]{}/%])
      | (?P<name>/[^\x00\t\n\f\r ()<>\[\]{}/%]*+)
      | (?P<word>[^\x00\t\n\f\r ()<>\[\]{}/%]++)
      | (?P<lit>\((?P<body>[^()\\]*+)\))
      | (?P<dict><<) | (?P<end_dict>>>)
      | <(?P<hex>[0-9A-Fa-f]*+)> | (?P<spaced_hex><(?P<digits>[^>]*+)>)
      | (?P<array>\[) | (?P<end_array>\])
      | (?P<string>\() | (?P<open_hex><)
      | (?P<eof>\Z) | (?P<bad>.))""",
    re.DOTALL | re.VERBOSE,
)
_G = _TOKEN.groupindex
_REF, _INT, _REAL, _NAME, _WORD, _LIT, _BODY = (_G[k] for k in ("ref", "int", "real", "name", "word", "lit", "body"))
_DICT, _END_DICT, _HEX, _SPACED_HEX, _DIGITS, _ARRAY, _END_ARRAY = (
    _G[k] for k in ("dict", "end_dict", "hex", "spaced_hex", "digits", "array", "end_array")
)
_STRING, _OPEN_HEX, _EOF_TOKEN = _G["string"], _G["open_hex"], _G["eof"]
_STRING_STOP = re.compile(rb"[()\\]")
_OCTAL = re.compile(rb"[0-7]{1,3}")
_SPACES = b" \t\n\r\f\v"  # what ``\s`` matches in bytes: white space is allowed among hex digits
_WORDS: dict[bytes, Any] = {b"true": True, b"false": False, b"null": None}
_EOF = object()  # the end of the data, outside any array or dictionary
#: The operators that show text or move to a new line (ISO 32000-1 §9.4.2, §9.4.3), and the most
#: operands any of them reads (``Td``: two; the others: the last one).
_TEXT_OPS = frozenset(("Tj", "TJ", "'", '"', "T*", "Td", "TD", "Tm", "ET"))
_KEEP = 2


class _DictItems(list[Any]):
    """The keys and values of a dictionary being read, in order (a list, told apart from an array's)."""


class _Reading:
    """One reading's budget and its interned names and operators (a name used a thousand times is
    one object)."""

    def __init__(self, budget: PdfBudget) -> None:
        self.budget = budget
        self.names: dict[bytes, _Name] = {}
        self.ops: dict[bytes, Any] = dict(_WORDS)


class _Lexer:
    """Objects of PDF syntax (ISO 32000-1 §7.2-§7.3) from ``pos`` up to ``end``.

    ``pos`` is where the last object returned ends; :meth:`cost` is how many bytes the lexer
    examined (what it read, and what a string scan read again).
    """

    def __init__(self, data: bytes, pos: int, end: int, reading: _Reading) -> None:
        self.data, self.pos, self.end, self.reading = data, pos, end, reading
        self._origin, self._extra = pos, 0
        self._sink: Callable[[str, list[Any]], None] | None = None
        self._values = self._scan()

    def cost(self) -> int:
        return self.pos - self._origin + self._extra

    def value(self) -> Any:
        """The next object; ``N G R`` becomes a :class:`_Ref`, a bare word an :class:`_Op`."""
        found = next(self._values)
        if found is _EOF:
            raise PdfError("the object ends too early", self.pos)
        return found

    def run(self, on_operator: Callable[[str, list[Any]], None]) -> None:
        """Read a content stream to its end: each operator in :data:`_TEXT_OPS` is passed to
        ``on_operator`` with its operands (the last :data:`_KEEP` of them: no text operator takes
        more), every other operator only drops its operands."""
        self._sink = on_operator
        for _ in self._values:
            pass

    def _fail(self, message: str, m: re.Match[bytes]) -> PdfError:
        self.pos = m.end()
        return PdfError(message, m.start(m.lastindex or 0))

    def _scan(self) -> Iterator[Any]:
        data, end = self.data, self.end
        names, ops = self.reading.names, self.reading.ops
        stack: list[list[Any]] = []  # the items so far of each open array and dictionary (a _DictItems)
        tokens = _TOKEN.finditer(data, self.pos, end)
        sink, operands, text_ops = self._sink, [], _TEXT_OPS
        while True:
            resume = -1  # where to scan on from after a string read by its own scanner
            for m in tokens:
                k = m.lastindex
                item: Any
                if k == _INT:
                    text = m.group(k)
                    if len(text) > _MAX_DIGITS:
                        raise self._fail(f"a number has more than {_MAX_DIGITS} digits", m)
                    item = int(text)
                elif k == _WORD:
                    raw = m.group(k)
                    item = ops.get(raw, ops)
                    if item is ops:
                        item = ops[raw] = _Op(raw.decode("latin-1"))
                elif k == _NAME:
                    raw = m.group(k)
                    item = names.get(raw)
                    if item is None:
                        item = names[raw] = _Name(raw[1:].decode("latin-1"))
                elif k == _LIT:
                    item = m.group(_BODY)
                elif k == _REAL:
                    item = float(m.group(k))
                elif k == _ARRAY or k == _DICT:
                    if len(stack) >= MAX_DEPTH:
                        raise self._fail(f"the file nests arrays or dictionaries deeper than {MAX_DEPTH}", m)
                    stack.append([] if k == _ARRAY else _DictItems())
                    continue
                elif k == _END_ARRAY and stack and stack[-1].__class__ is list:
                    item = stack.pop()
                elif k == _END_DICT and stack and stack[-1].__class__ is _DictItems:
                    items = stack.pop()
                    if len(items) % 2:
                        raise self._fail("a dictionary key has no value", m)
                    item = {items[i].value: items[i + 1] for i in range(0, len(items), 2)}
                elif k == _HEX or k == _SPACED_HEX:
                    digits = m.group(k) if k == _HEX else m.group(_DIGITS).translate(None, _SPACES)
                    try:
                        item = binascii.unhexlify(digits + b"0" * (len(digits) % 2))
                    except binascii.Error as e:
                        raise self._fail("a hex string holds a character that is not a hex digit", m) from e
                elif k == _REF:
                    number, generation = m.group(2, 3)
                    if len(number) > _MAX_DIGITS or len(generation) > _MAX_DIGITS:
                        raise self._fail(f"a number has more than {_MAX_DIGITS} digits", m)
                    item = _Ref(int(number), int(generation))
                elif k == _STRING:
                    item, resume = self._literal(m.start(k))
                elif k == _OPEN_HEX:
                    raise self._fail("a hex string is never closed", m)
                elif k == _EOF_TOKEN:
                    if stack:
                        raise self._fail("the object ends too early", m)
                    self.pos = m.end()
                    yield _EOF
                    return
                else:  # a stray delimiter: ) > ] } { or a closing bracket of the other kind
                    raise self._fail(f"unexpected character {chr(data[m.end() - 1])!r}", m)
                if stack:
                    items = stack[-1]
                    if items.__class__ is _DictItems and not len(items) % 2 and item.__class__ is not _Name:
                        raise self._fail("a dictionary key is not a name", m)
                    items.append(item)
                elif sink is None:
                    self.pos = m.end() if resume < 0 else resume
                    yield item
                elif item.__class__ is not _Op:
                    operands.append(item)
                    if len(operands) > 4 * _KEEP:
                        del operands[:-_KEEP]
                else:
                    if item.value in text_ops:
                        sink(item.value, operands[-_KEEP:])
                    operands.clear()
                if resume >= 0:
                    break
            if resume < 0:  # pragma: no cover - the eof token ends every scan
                return
            tokens = _TOKEN.finditer(data, resume, end)

    def _literal(self, start: int) -> tuple[bytes, int]:
        """A literal string (§7.3.4.2) from its ``(``, and where it ends: balanced parentheses,
        escapes, octal codes; scanned from one special character to the next."""
        data, end = self.data, self.end
        out, depth, i = bytearray(), 1, start + 1
        while True:
            stop = _STRING_STOP.search(data, i, end)
            if stop is None or (data[stop.start()] == 0x5C and stop.start() + 1 >= end):
                self.pos, self._extra = end, self._extra + end - start
                raise PdfError("a string is never closed", start)
            j = stop.start()
            out += data[i:j]
            ch = data[j]
            if ch == 0x5C:  # a backslash
                nxt = data[j + 1]
                octal = _OCTAL.match(data, j + 1, end)
                if octal:
                    out.append(int(octal.group(), 8) & 0xFF)
                    i = octal.end()
                elif nxt in b"\r\n":  # a backslash before an end of line continues the string
                    i = j + (3 if data.startswith(b"\r\n", j + 1, end) else 2)
                else:
                    out += _ESCAPES.get(nxt, bytes([nxt]))
                    i = j + 2
                continue
            depth += 1 if ch == 0x28 else -1
            if depth == 0:
                self._extra += j + 1 - start
                return bytes(out), j + 1
            out.append(ch)
            i = j + 1


_OBJ = re.compile(rb"(?<![0-9])(\d{1,10})\s+(\d{1,10})\s+obj\b")
_STREAM = re.compile(rb"\s*stream(\r\n|\n|\r)")
_ENDSTREAM = re.compile(rb"\s*endstream")
#: An object: its value and, for a stream, where its (still encoded) bytes start and how many.
_Objects = dict[int, tuple[Any, tuple[int, int] | None]]


def _objects(data: bytes, reading: _Reading) -> _Objects:
    """Every indirect object, scanned once from the start: an object is read up to its own
    ``endobj`` (one that cannot be read is skipped to there), and a stream's bytes are skipped."""
    budget = reading.budget
    found: dict[int, tuple[Any, int | None]] = {}
    lengths: dict[int, Any] = {}
    size, pos, bound = len(data), 0, -1
    while True:
        match = _OBJ.search(data, pos)
        budget.scanned += (match.end() if match else size) - pos
        if match is None:
            break
        if bound < match.end():  # the next endobj: the furthest this object's value may reach
            at = data.find(b"endobj", match.end())
            bound = size if at < 0 else at
            budget.scanned += bound - match.end()
        lexer = _Lexer(data, match.end(), bound, reading)
        try:
            value = lexer.value()
        except PdfError:
            pos = bound + len(b"endobj")  # "N G obj" inside another object's bytes, or a broken object
            continue
        finally:
            budget.scanned += lexer.cost()
        number, pos = int(match.group(1)), lexer.pos
        stream = _STREAM.match(data, lexer.pos)
        if stream and isinstance(value, dict):
            start, length = stream.end(), value.get("Length")
            lengths[number] = length
            found[number] = (value, start)
            ends = _ENDSTREAM.match(data, start + length) if isinstance(length, int) and length >= 0 else None
            if ends is None:  # an indirect or wrong /Length: the bytes run to the next endstream
                at = data.find(b"endstream", start)
                ends_at = size if at < 0 else at
                budget.scanned += ends_at - start
                pos = ends_at
            else:
                pos = ends.end()
        else:
            found[number] = (value, None)
    objects: _Objects = {number: (value, None) for number, (value, _) in found.items()}
    for number, length in lengths.items():
        value, offset = found[number]
        start = 0 if offset is None else offset  # every object in lengths is a stream: never None
        count = found.get(length.number, (None, None))[0] if isinstance(length, _Ref) else length
        if not isinstance(count, int) or isinstance(count, bool) or count < 0 or count > size - start:
            raise PdfError(f"object {number}: its stream /Length is not a usable byte count ({count!r})")
        objects[number] = (value, (start, count))
    return objects


def _resolve(objects: _Objects, value: Any) -> Any:
    if isinstance(value, _Ref):
        if value.number not in objects:
            raise PdfError(f"object {value.number} is referenced but not in the file")
        return objects[value.number][0]
    return value


def _decoded(data: bytes, objects: _Objects, ref: Any, reading: _Reading, cache: dict[int, bytes]) -> bytes:
    """A content stream's bytes, decoded; each use is counted against the content budget."""
    number = ref.number if isinstance(ref, _Ref) else None
    if number is None or objects.get(number, (None, None))[1] is None:
        raise PdfError(f"a page's /Contents is not a stream reference ({ref!r})")
    budget = reading.budget
    if number in cache:  # decoded before: this use still counts
        budget.spend(len(cache[number]), f"object {number}")
        return cache[number]
    head, span = objects[number]
    assert span is not None
    filters = _resolve(objects, head.get("Filter"))
    names = [f.value for f in (filters if isinstance(filters, list) else [filters]) if isinstance(f, _Name)]
    for name in names:
        if name != "FlateDecode":
            raise PdfError(f"object {number}: the /{name} filter is not one the lab reads (only /FlateDecode)")
    raw: bytes | memoryview = memoryview(data)[span[0] : span[0] + span[1]]
    if not names:
        budget.spend(len(raw), f"object {number}")
    for _ in names:
        ask = budget.content_left + 1  # one byte more than is left: enough to know it would not fit
        budget.largest_request = max(budget.largest_request, ask)
        try:
            raw = zlib.decompressobj().decompress(raw, ask)
        except zlib.error as e:
            raise PdfError(f"object {number}: its /FlateDecode stream does not inflate ({e})") from e
        budget.spend(len(raw), f"object {number}: its /FlateDecode stream")
    cache[number] = out = bytes(raw)
    return out


def _pages(objects: _Objects, root: Any) -> list[dict[str, Any]]:
    """The page tree's leaves in order, walked with a stack (a deep tree costs no recursion)."""
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, _Ref):
            if node.number in seen:
                raise PdfError(f"object {node.number}: the page tree loops back on itself")
            seen.add(node.number)
        value = _resolve(objects, node)
        if not isinstance(value, dict):
            raise PdfError(f"a page tree node is not a dictionary ({node!r})")
        kind = value.get("Type")
        if kind == _Name("Page"):
            found.append(value)
            continue
        kids = _resolve(objects, value.get("Kids"))
        if kind != _Name("Pages") or not isinstance(kids, list):
            raise PdfError(f"a page tree node is neither /Page nor /Pages with /Kids ({node!r})")
        todo.extend(reversed(kids))
    return found


def _check_fonts(objects: _Objects, page: dict[str, Any], index: int, checked: set[int]) -> None:
    resources = _resolve(objects, page.get("Resources"))
    fonts = _resolve(objects, resources.get("Font")) if isinstance(resources, dict) else None
    if not isinstance(fonts, dict) or id(fonts) in checked:  # pages that share a font dictionary: once
        return
    for name, font in fonts.items():
        if isinstance(font := _resolve(objects, font), dict) and font.get("Subtype") == _Name("Type0"):
            raise PdfError(
                f"page {index + 1}: font /{name} is a composite (Type0) font; its codes need a ToUnicode map"
            )
    checked.add(id(fonts))


def _show(operands: list[Any], op: str) -> str:
    if op == "TJ" and operands and isinstance(operands[-1], list):
        return "".join(
            item.decode("latin-1") if isinstance(item, bytes) else " " if item <= -250 else ""
            for item in operands[-1]
            if isinstance(item, bytes | int | float)
        )
    text = operands[-1] if operands and isinstance(operands[-1], bytes) else b""
    return text.decode("latin-1")


def _page_text(content: bytes, reading: _Reading) -> str:
    """The text a content stream shows (ISO 32000-1 §9.4), a line per text line."""
    lexer = _Lexer(content, 0, len(content), reading)
    parts: list[str] = []

    def on_operator(op: str, operands: list[Any]) -> None:
        moves_down = op in ("Td", "TD") and len(operands) >= 2 and operands[-1] != 0
        if op in ("T*", "'", '"') or moves_down or (op == "Tm" and parts and not parts[-1].endswith("\n")):
            parts.append("\n")
        if op in ("Tj", "TJ", "'", '"'):
            parts.append(_show(operands, op))
        elif op == "ET":
            parts.append("\n")

    try:
        lexer.run(on_operator)
    finally:
        reading.budget.scanned += lexer.cost()
    return re.sub(r"\n{2,}", "\n", "".join(parts)).strip("\n")


def extract_text(data: bytes, *, budget: PdfBudget | None = None) -> PdfText:
    """The text of every page of a PDF.

    Args:
        data: the file's bytes.
        budget: the budgets to read under, and where the reading's spending is counted (by
            default :data:`MAX_PDF_BYTES` and :data:`MAX_CONTENT_BYTES`).

    Raises:
        PdfBudgetError: the file is larger than its budget, or its page content decodes to more
            (the message names the budget).
        PdfError: not a PDF, encrypted, compressed object streams, an unknown filter, a composite
            font, or a broken page tree; the message names the object or byte position.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> extract_text(data_path("resources", "brochure.pdf").read_bytes()).pages
        ('Brightgrid brochure',)
    """
    spent = PdfBudget() if budget is None else budget
    if len(data) > spent.max_pdf_bytes:
        raise PdfBudgetError(
            f"the file is {len(data):,} bytes, more than the {spent.max_pdf_bytes:,} the reader reads "
            "(its input budget, MAX_PDF_BYTES)",
            "MAX_PDF_BYTES",
            spent.max_pdf_bytes,
        )
    if not data.startswith(b"%PDF-"):
        raise PdfError("the bytes do not start with the %PDF- header", 0)
    return _extract(bytes(data), _Reading(spent))


def _extract(data: bytes, reading: _Reading) -> PdfText:
    objects = _objects(data, reading)
    if re.search(rb"/Encrypt\b", data):
        raise PdfError("the file is encrypted (/Encrypt); the lab does not decrypt PDFs")
    if any(isinstance(v, dict) and v.get("Type") == _Name("ObjStm") for v, _ in objects.values()):
        raise PdfError("the file keeps objects in compressed object streams (/ObjStm), which the lab does not read")
    catalogs = [v for v, _ in objects.values() if isinstance(v, dict) and v.get("Type") == _Name("Catalog")]
    if len(catalogs) != 1:
        raise PdfError(f"expected one /Catalog object, found {len(catalogs)}")
    pages = _pages(objects, catalogs[0].get("Pages"))
    texts = []
    fonts: set[int] = set()
    cache: dict[int, bytes] = {}
    for index, page in enumerate(pages):
        _check_fonts(objects, page, index, fonts)
        contents = page.get("Contents")
        if isinstance(contents, _Ref) and objects.get(contents.number, (None, None))[1] is None:
            contents = _resolve(objects, contents)  # an indirect array of streams
        refs = contents if isinstance(contents, list) else [] if contents is None else [contents]
        streams = b"\n".join(_decoded(data, objects, ref, reading, cache) for ref in refs)
        texts.append(_page_text(streams, reading) if streams else "")
    return PdfText(tuple(texts))
