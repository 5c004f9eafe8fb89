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
(§7.6), object streams (§7.5.7), filters other than ``/FlateDecode``, a stream that inflates past
:data:`MAX_INFLATED`, composite (``Type0``) fonts whose glyph codes need a ``ToUnicode`` map
(§9.10), nesting too deep to read. The module is pure: standard library only.
"""

from __future__ import annotations

__all__ = ["MAX_INFLATED", "PdfError", "PdfText", "extract_text"]

import re
import zlib
from dataclasses import dataclass
from typing import Any

from ..core.errors import CustodyLabError


class PdfError(CustodyLabError, ValueError):
    """The bytes are not a PDF the lab can read; the message names the object or byte position.

    Attributes:
        position: the byte offset at fault, or ``None`` when the fault is a whole object.
    """

    def __init__(self, message: str, position: int | None = None) -> None:
        self.position = position
        super().__init__(message if position is None else f"{message} (at byte {position})")


@dataclass(frozen=True)
class _Ref:
    """An indirect reference ``N G R``."""

    number: int
    generation: int


@dataclass(frozen=True)
class _Name:
    """A PDF name such as ``/Type`` (without the slash)."""

    value: str


@dataclass(frozen=True)
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


#: The most bytes one compressed content stream may inflate to (a small file must not fill memory).
MAX_INFLATED = 16 * 1024 * 1024
_WHITE = b" \t\r\n\f\x00"
_DELIM = b"()<>[]{}/%"
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}


class _Lexer:
    """Tokens of PDF object syntax (ISO 32000-1 §7.2-§7.3) from ``pos`` on."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data, self.pos = data, pos

    def skip(self) -> None:
        """Move past white space and comments."""
        data = self.data
        while self.pos < len(data):
            if data[self.pos] in _WHITE:
                self.pos += 1
            elif data[self.pos] == ord("%"):
                while self.pos < len(data) and data[self.pos] not in b"\r\n":
                    self.pos += 1
            else:
                return

    def value(self) -> Any:
        """The next object; ``N G R`` becomes a :class:`_Ref`, a bare word an :class:`_Op`."""
        self.skip()
        data, start = self.data, self.pos
        if start >= len(data):
            raise PdfError("the object ends too early", start)
        ch = data[start]
        if ch == ord("("):
            return self._literal()
        if data.startswith(b"<<", start):
            return self._dict()
        if ch == ord("<"):
            end = data.find(b">", start)
            if end < 0:
                raise PdfError("a hex string is never closed", start)
            digits = re.sub(rb"\s", b"", data[start + 1 : end]).decode("latin-1")
            self.pos = end + 1
            try:
                return bytes.fromhex(digits + "0" * (len(digits) % 2))
            except ValueError as e:
                raise PdfError("a hex string holds a character that is not a hex digit", start) from e
        if ch == ord("["):
            self.pos += 1
            items: list[Any] = []
            while True:
                self.skip()
                if self.data[self.pos : self.pos + 1] == b"]":
                    self.pos += 1
                    return items
                items.append(self.value())
        if ch == ord("/"):
            self.pos += 1
            return _Name(self._word().decode("latin-1"))
        word = self._word()
        if not word:
            raise PdfError(f"unexpected character {chr(ch)!r}", start)
        if re.fullmatch(rb"[+-]?\d+", word):
            return self._maybe_ref(int(word))
        if re.fullmatch(rb"[+-]?(\d+\.\d*|\.\d+)", word):
            return float(word)
        return {b"true": True, b"false": False, b"null": None}.get(word, _Op(word.decode("latin-1")))

    def _word(self) -> bytes:
        start = self.pos
        while self.pos < len(self.data) and self.data[self.pos] not in _WHITE + _DELIM:
            self.pos += 1
        return self.data[start : self.pos]

    def _maybe_ref(self, number: int) -> int | _Ref:
        found = re.compile(rb"\s+(\d+)\s+R(?![^\s()<>\[\]{}/%])").match(self.data, self.pos)
        if found is None:
            return number
        self.pos = found.end()
        return _Ref(number, int(found.group(1)))

    def _dict(self) -> dict[str, Any]:
        self.pos += 2
        out: dict[str, Any] = {}
        while True:
            self.skip()
            if self.data.startswith(b">>", self.pos):
                self.pos += 2
                return out
            key = self.value()
            if not isinstance(key, _Name):
                raise PdfError("a dictionary key is not a name", self.pos)
            out[key.value] = self.value()

    def _literal(self) -> bytes:
        data, start = self.data, self.pos
        out, depth, i = bytearray(), 1, start + 1
        while i < len(data):
            ch = data[i]
            if ch == ord("\\") and i + 1 < len(data):
                nxt = data[i + 1]
                octal = re.compile(rb"[0-7]{1,3}").match(data, i + 1)
                if octal:
                    out.append(int(octal.group(), 8) & 0xFF)
                    i = octal.end()
                    continue
                if nxt in b"\r\n":  # a backslash before an end of line continues the string
                    i += 3 if data[i + 1 : i + 3] == b"\r\n" else 2
                    continue
                out += _ESCAPES.get(nxt, bytes([nxt]))
                i += 2
                continue
            depth += (ch == ord("(")) - (ch == ord(")"))
            if depth == 0:
                self.pos = i + 1
                return bytes(out)
            out.append(ch)
            i += 1
        raise PdfError("a string is never closed", start)


_OBJ = re.compile(rb"(?<![0-9])(\d+)\s+(\d+)\s+obj\b")


def _objects(data: bytes) -> dict[int, tuple[Any, bytes | None]]:
    """Every indirect object: its value and, for a stream, its raw (still encoded) bytes."""
    found: dict[int, tuple[Any, bytes | None]] = {}
    lengths: dict[int, Any] = {}
    for match in _OBJ.finditer(data):
        lexer = _Lexer(data, match.end())
        try:
            value = lexer.value()
        except PdfError:
            continue  # "N G obj" inside a stream's bytes, not an object header
        stream = re.compile(rb"\s*stream(\r\n|\n|\r)").match(data, lexer.pos)
        raw: bytes | None = None
        if stream and isinstance(value, dict):
            lengths[int(match.group(1))] = value.get("Length")
            raw = data[stream.end() :]  # cut to /Length below, once every object is known
        found[int(match.group(1))] = (value, raw)
    for number, length in lengths.items():
        value, raw = found[number]
        size = found.get(length.number, (None, None))[0] if isinstance(length, _Ref) else length
        if not isinstance(size, int) or raw is None or size < 0 or size > len(raw):
            raise PdfError(f"object {number}: its stream /Length is not a usable byte count ({size!r})")
        found[number] = (value, raw[:size])
    return found


def _resolve(objects: dict[int, tuple[Any, bytes | None]], value: Any) -> Any:
    if isinstance(value, _Ref):
        if value.number not in objects:
            raise PdfError(f"object {value.number} is referenced but not in the file")
        return objects[value.number][0]
    return value


def _decoded(objects: dict[int, tuple[Any, bytes | None]], ref: Any) -> bytes:
    number = ref.number if isinstance(ref, _Ref) else None
    if number is None or objects.get(number, (None, None))[1] is None:
        raise PdfError(f"a page's /Contents is not a stream reference ({ref!r})")
    head, raw = objects[number]
    assert raw is not None
    filters = _resolve(objects, head.get("Filter"))
    names = [f.value for f in (filters if isinstance(filters, list) else [filters]) if isinstance(f, _Name)]
    for name in names:
        if name != "FlateDecode":
            raise PdfError(f"object {number}: the /{name} filter is not one the lab reads (only /FlateDecode)")
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(raw, MAX_INFLATED + 1)
        except zlib.error as e:
            raise PdfError(f"object {number}: its /FlateDecode stream does not inflate ({e})") from e
        if len(raw) > MAX_INFLATED:
            raise PdfError(f"object {number}: its /FlateDecode stream inflates to more than {MAX_INFLATED:,} bytes")
    return raw


def _pages(objects: dict[int, tuple[Any, bytes | None]], node: Any, seen: set[int]) -> list[dict[str, Any]]:
    if isinstance(node, _Ref):
        if node.number in seen:
            raise PdfError(f"object {node.number}: the page tree loops back on itself")
        seen.add(node.number)
    value = _resolve(objects, node)
    if not isinstance(value, dict):
        raise PdfError(f"a page tree node is not a dictionary ({node!r})")
    kind = value.get("Type")
    if kind == _Name("Page"):
        return [value]
    kids = _resolve(objects, value.get("Kids"))
    if kind != _Name("Pages") or not isinstance(kids, list):
        raise PdfError(f"a page tree node is neither /Page nor /Pages with /Kids ({node!r})")
    return [page for kid in kids for page in _pages(objects, kid, seen)]


def _check_fonts(objects: dict[int, tuple[Any, bytes | None]], page: dict[str, Any], index: int) -> None:
    resources = _resolve(objects, page.get("Resources"))
    fonts = _resolve(objects, resources.get("Font")) if isinstance(resources, dict) else None
    for name, font in (fonts if isinstance(fonts, dict) else {}).items():
        if isinstance(font := _resolve(objects, font), dict) and font.get("Subtype") == _Name("Type0"):
            raise PdfError(
                f"page {index + 1}: font /{name} is a composite (Type0) font; its codes need a ToUnicode map"
            )


def _show(operands: list[Any], op: str) -> str:
    if op == "TJ" and operands and isinstance(operands[-1], list):
        return "".join(
            item.decode("latin-1") if isinstance(item, bytes) else " " if item <= -250 else ""
            for item in operands[-1]
            if isinstance(item, bytes | int | float)
        )
    text = operands[-1] if operands and isinstance(operands[-1], bytes) else b""
    return text.decode("latin-1")


def _page_text(content: bytes) -> str:
    """The text a content stream shows (ISO 32000-1 §9.4), a line per text line."""
    lexer = _Lexer(content)
    operands: list[Any] = []
    parts: list[str] = []
    while True:
        lexer.skip()
        if lexer.pos >= len(content):
            break
        token = lexer.value()
        if not isinstance(token, _Op):
            operands.append(token)
            continue
        op = token.value
        moves_down = op in ("Td", "TD") and len(operands) >= 2 and operands[-1] != 0
        if op in ("T*", "'", '"') or moves_down or (op == "Tm" and parts and not parts[-1].endswith("\n")):
            parts.append("\n")
        if op in ("Tj", "TJ", "'", '"'):
            parts.append(_show(operands, op))
        elif op == "ET":
            parts.append("\n")
        operands = []
    return re.sub(r"\n{2,}", "\n", "".join(parts)).strip("\n")


def extract_text(data: bytes) -> PdfText:
    """The text of every page of a PDF.

    Raises:
        PdfError: not a PDF, encrypted, compressed object streams, an unknown filter, a composite
            font, or a broken page tree; the message names the object or byte position.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> extract_text(data_path("resources", "brochure.pdf").read_bytes()).pages
        ('Brightgrid brochure',)
    """
    if not data.startswith(b"%PDF-"):
        raise PdfError("the bytes do not start with the %PDF- header", 0)
    try:
        return _extract(data)
    except RecursionError as e:
        raise PdfError("the file nests arrays or dictionaries too deeply to read") from e


def _extract(data: bytes) -> PdfText:
    objects = _objects(data)
    if re.search(rb"/Encrypt\b", data):
        raise PdfError("the file is encrypted (/Encrypt); the lab does not decrypt PDFs")
    if any(isinstance(v, dict) and v.get("Type") == _Name("ObjStm") for v, _ in objects.values()):
        raise PdfError("the file keeps objects in compressed object streams (/ObjStm), which the lab does not read")
    catalogs = [v for v, _ in objects.values() if isinstance(v, dict) and v.get("Type") == _Name("Catalog")]
    if len(catalogs) != 1:
        raise PdfError(f"expected one /Catalog object, found {len(catalogs)}")
    pages = _pages(objects, catalogs[0].get("Pages"), set())
    texts = []
    for index, page in enumerate(pages):
        _check_fonts(objects, page, index)
        contents = page.get("Contents")
        if isinstance(contents, _Ref) and objects.get(contents.number, (None, None))[1] is None:
            contents = _resolve(objects, contents)  # an indirect array of streams
        refs = contents if isinstance(contents, list) else [] if contents is None else [contents]
        streams = b"\n".join(_decoded(objects, ref) for ref in refs)
        texts.append(_page_text(streams))
    return PdfText(tuple(texts))
