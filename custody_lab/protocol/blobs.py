"""Base64 blobs in MCP ``resources/read`` results: decode them strictly, explain every refusal.

An MCP server answers ``resources/read`` with *contents items*. Each item has a ``uri``, usually a
``mimeType``, and exactly one of ``text`` (a string) or ``blob`` (bytes written as base64 text).

Base64 in plain words
---------------------
JSON can only carry text, so binary bytes are spelled with 64 safe characters: ``A``-``Z``,
``a``-``z``, ``0``-``9``, ``+`` and ``/``. Each character stands for 6 bits. Three bytes are 24
bits, which is exactly four characters, so the text is always about 4/3 of the byte count (a third
larger). When the byte count is not a multiple of three, the last group of four characters is short
of data and is filled with ``=``: one leftover byte needs two characters plus ``==``, two leftover
bytes need three characters plus ``=``. A well-formed blob therefore has a length that is a multiple
of four, with at most two ``=`` and only at the very end.

Because of this the decoded size can be computed from the text alone, before decoding anything:
``3 * (characters / 4) - (number of '=')``. This module uses that to refuse oversized blobs before
spending any memory on them.

Decisions this module takes
---------------------------
* Whitespace (space, tab, CR, LF) is accepted anywhere, as MIME base64 allows (email wraps lines at
  76 characters); :func:`decode_report` counts what it removed.
* Missing padding is refused rather than guessed; the message says how many ``=`` to add.
* The URL-safe alphabet (``-`` and ``_``) is refused: MCP blobs use the standard one.
* A pasted ``data:`` URL prefix is refused with a hint to keep only what follows the comma.
* Non-canonical endings (``"QR=="``, whose unused low bits are not zero) are refused, although
  Python's own decoder accepts them silently. In a custody lab the text of a blob and its bytes
  must correspond one to one: otherwise two different blobs would carry the same bytes (and the
  same SHA-256), and a receipt could not tell which text was actually sent.
* The declared ``mimeType`` is never trusted silently: :func:`read_contents` sniffs the bytes and
  reports any disagreement.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_BYTES",
    "BlobError",
    "BlobTypeError",
    "ContentsReading",
    "DecodeResult",
    "decode",
    "decode_report",
    "decoded_size",
    "encode",
    "hex_preview",
    "overhead",
    "read_contents",
    "sniff_mime",
]

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.errors import CustodyLabError
from .mime import essence, is_text

#: Blobs whose decoded size exceeds this are refused unless the caller raises the limit (10 MiB).
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_WHITESPACE = " \t\r\n"
_STRIP_WHITESPACE = str.maketrans("", "", _WHITESPACE)
#: The first character that is neither base64, padding nor accepted whitespace.
_OFFENDING = re.compile(r"[^A-Za-z0-9+/= \t\r\n]")
#: After the first '=', anything that is not '=' or whitespace means padding sits in the middle.
_AFTER_PADDING = re.compile(r"[^= \t\r\n]")
_DATA_URL = re.compile(r"[ \t\r\n]*(data:)", re.IGNORECASE)

#: Extra advice for characters that usually mean "copied the wrong thing".
_CHARACTER_HINTS = {
    '"': "quotation marks usually mean the JSON string's quotes were copied too; keep only its contents",
    "'": "quotation marks usually mean the string's quotes were copied too; keep only its contents",
    "\\": "a backslash usually means JSON escapes (\\/ or \\n) are still in the text; "
    "parse the JSON instead of copying its raw text",
    "%": "'%' suggests the blob was percent-encoded for a URL; unescape it first",
    ",": "a comma suggests a data: URL or a list was pasted; keep only the base64 itself",
    "\xa0": "this is a non-breaking space, usually from copying out of a web page or document",
    "\x0b": "only space, tab, CR and LF are accepted as whitespace",
    "\x0c": "only space, tab, CR and LF are accepted as whitespace",
}


class BlobError(CustodyLabError, ValueError):
    """A blob or a contents item is malformed; the message says what, where, and what was expected.

    Attributes:
        position: index into the blob text (the original string, whitespace included) of the first
            offending character, or ``None`` when the problem is the blob as a whole (its length or
            size) or a contents item's field.
        reason: a short machine code: ``"bad-character"``, ``"url-safe"``, ``"data-url"``,
            ``"bad-padding"``, ``"bad-length"``, ``"non-canonical"``, ``"too-large"``,
            ``"not-text"``, ``"not-bytes"``, ``"bad-text"``, ``"missing-field"``,
            ``"conflicting-fields"`` or ``"wrong-type"``.
    """

    def __init__(self, message: str, *, reason: str, position: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.position = position


class BlobTypeError(BlobError, TypeError):
    """A :class:`BlobError` for a value of the wrong type: ``except TypeError`` catches it too."""


@dataclass(frozen=True)
class DecodeResult:
    """What :func:`decode_report` found.

    Attributes:
        data: the decoded bytes.
        size: ``len(data)``.
        chars: base64 characters counted, padding included and whitespace excluded, so that
            ``chars + whitespace_removed == len(blob)`` and ``chars == overhead(size)``.
        whitespace_removed: spaces, tabs, CRs and LFs that were skipped.
        notes: plain sentences about anything lenient that happened (accepted line breaks...).
    """

    data: bytes = field(repr=False)
    size: int
    chars: int
    whitespace_removed: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ContentsReading:
    """One ``resources/read`` contents item, decoded and checked against its declared type.

    Attributes:
        uri: the item's ``uri``.
        kind: ``"text"`` or ``"blob"``: which field carried the content.
        declared_mime: the ``mimeType`` as given, or ``None`` when absent.
        sniffed_mime: what the bytes look like (see :func:`sniff_mime`), or ``None``.
        mime_mismatch: ``True`` when the bytes contradict the declared type.
        mismatch_reason: why they disagree; also set (with ``mime_mismatch`` false) when the
            declared type could not be confirmed, for example when it is missing.
        data: the UTF-8 encoding of ``text``, or the decoded blob.
        size_bytes: ``len(data)``.
        base64_chars: base64 characters in the blob (whitespace excluded); ``None`` for text.
        overhead_ratio: ``base64_chars / size_bytes`` (about 4/3); ``None`` for text or when empty.
        sha256: hex SHA-256 of ``data``.
        text: the text, or the decoded blob when it is valid UTF-8 text; otherwise ``None``.
        notes: what decoding accepted leniently (for example line breaks in the blob).
    """

    uri: str
    kind: str
    declared_mime: str | None
    sniffed_mime: str | None
    mime_mismatch: bool
    mismatch_reason: str | None
    data: bytes = field(repr=False)
    size_bytes: int
    base64_chars: int | None
    overhead_ratio: float | None
    sha256: str
    text: str | None = field(repr=False)
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------------


def overhead(n_bytes: int) -> int:
    """Base64 characters needed for ``n_bytes`` bytes: ``4 * ceil(n / 3)``, padding included.

    Example:
        >>> overhead(105), overhead(3), overhead(4), overhead(0)
        (140, 4, 8, 0)
    """
    if n_bytes < 0:
        raise ValueError(f"a byte count cannot be negative, got {n_bytes}")
    return 4 * ((n_bytes + 2) // 3)


def _count_whitespace(blob: str) -> int:
    return sum(blob.count(c) for c in _WHITESPACE)


def _tail_start(blob: str) -> int:
    """Where the run of '=' and whitespace that ends the blob begins (C speed, no Python loop)."""
    return len(blob.rstrip(_WHITESPACE + "="))


def _trailing_padding(blob: str) -> int:
    """How many '=' end the blob, looking through interleaved whitespace."""
    return blob.count("=", _tail_start(blob))


def _last_data_position(blob: str) -> int | None:
    """Index of the last character that is neither '=' nor whitespace."""
    return _tail_start(blob) - 1 if _tail_start(blob) else None


def _require_text(blob: object, what: str) -> str:
    if not isinstance(blob, str):
        hint = ""
        if isinstance(blob, bytes | bytearray):
            hint = " (decode it with .decode('ascii') first)"
        raise BlobTypeError(
            f"{what} takes the blob as text (str), got {type(blob).__name__}{hint}",
            reason="not-text",
        )
    return blob


def decoded_size(blob: str) -> int:
    """The exact decoded byte length, from the text length and padding alone, without decoding.

    Whitespace is ignored. The alphabet is not checked (that is :func:`decode`'s job); unpadded
    blobs are sized as if padded.

    Args:
        blob: base64 text.

    Returns:
        ``3 * data_characters // 4`` where data characters exclude whitespace and trailing ``=``.

    Raises:
        BlobError: reason ``"bad-length"`` when one character is left over after the groups of
            four, which no byte count can produce.

    Example:
        >>> decoded_size("QUJD"), decoded_size("QUI="), decoded_size("QQ=="), decoded_size("")
        (3, 2, 1, 0)
        >>> decoded_size("QUJD\\nRA==")
        4
    """
    _require_text(blob, "decoded_size()")
    data_chars = len(blob) - _count_whitespace(blob) - _trailing_padding(blob)
    if data_chars % 4 == 1:
        raise BlobError(
            f"the blob has {_plural(data_chars, 'data character', 'data characters')}, one more "
            "than a multiple of 4: a single leftover character carries only 6 bits, not enough "
            "for a byte; the blob is probably truncated or has a stray character",
            reason="bad-length",
        )
    return 3 * data_chars // 4


# --------------------------------------------------------------------------------------------
# Encoding and decoding
# --------------------------------------------------------------------------------------------


def encode(data: bytes) -> str:
    """Base64 text for ``data``: standard alphabet, padded, on one line.

    Raises:
        BlobError: reason ``"not-bytes"`` (also a ``TypeError``) when given text or anything else
            that is not bytes-like.

    Example:
        >>> encode(b"MCP")
        'TUNQ'
        >>> encode(b"\\xfb\\xff")
        '+/8='
    """
    if isinstance(data, str):
        raise BlobTypeError(
            "encode bytes, not text: use s.encode('utf-8') to turn a str into bytes first",
            reason="not-bytes",
        )
    if not isinstance(data, bytes | bytearray | memoryview):
        raise BlobTypeError(
            f"encode bytes, not {type(data).__name__}: expected bytes, bytearray or memoryview",
            reason="not-bytes",
        )
    return base64.b64encode(data).decode("ascii")


def _excerpt(blob: str, position: int, width: int = 12) -> str:
    start = max(0, position - width)
    end = min(len(blob), position + width + 1)
    left = "..." if start > 0 else ""
    right = "..." if end < len(blob) else ""
    return f"{left}{blob[start:end]!r}{right}"


def _check_data_url(blob: str) -> None:
    match = _DATA_URL.match(blob)
    head = blob[:256]
    if match is None and ";base64," not in head.lower():
        return
    start = match.start(1) if match else 0
    comma = blob.find(",", start)
    prefix = blob[start : comma + 1] if comma >= 0 else blob[start : start + 40]
    after = (
        f"paste only what follows the comma (the base64 starts at position {comma + 1})"
        if comma >= 0
        else "paste only the base64 that follows the comma"
    )
    raise BlobError(
        f"this is a data: URL ({prefix!r} at position {start}), not a bare blob: an MCP blob "
        f"carries only the base64 text, and the type goes in mimeType; {after}",
        reason="data-url",
        position=start,
    )


def _check_characters(blob: str) -> None:
    match = _OFFENDING.search(blob)
    if match is None:
        return
    position = match.start()
    char = blob[position]
    if char in "-_":
        raise BlobError(
            f"the blob uses the URL-safe base64 alphabet ({char!r} at position {position}, near "
            f"{_excerpt(blob, position)}): MCP blobs use the standard alphabet, with '+' and '/' "
            "where URL-safe base64 has '-' and '_'; convert it with "
            "blob.translate(str.maketrans('-_', '+/')) and add any missing '=' padding",
            reason="url-safe",
            position=position,
        )
    hint = _CHARACTER_HINTS.get(char)
    if hint is None and char.isspace():
        hint = "only space, tab, CR and LF are accepted as whitespace"
    raise BlobError(
        f"character {char!r} at position {position} (near {_excerpt(blob, position)}) is not "
        "base64: expected A-Z, a-z, 0-9, '+' or '/', with '=' only as padding at the end"
        + (f"; {hint}" if hint else ""),
        reason="bad-character",
        position=position,
    )


def _check_padding(blob: str, compact_length: int) -> None:
    first_eq = blob.find("=")
    pad = 0
    if first_eq >= 0:
        stray = _AFTER_PADDING.search(blob, first_eq)
        if stray is not None:
            before = blob[: stray.start()]
            whole_groups = (len(before) - _count_whitespace(before)) % 4 == 0
            joined = " (two blobs joined together?)" if whole_groups else ""
            raise BlobError(
                f"'=' at position {first_eq} is followed by more data ({blob[stray.start()]!r} at "
                f"position {stray.start()}){joined}: '=' is padding and may only appear at the end",
                reason="bad-padding",
                position=first_eq,
            )
        pad = _trailing_padding(blob)
        if pad > 2:
            third = first_eq
            for _ in range(2):
                third = blob.find("=", third + 1)
            raise BlobError(
                f"the blob ends with {pad} '=' but base64 never needs more than 2 (the third is at position {third})",
                reason="bad-padding",
                position=third,
            )
    data_chars = compact_length - pad
    remainder = data_chars % 4
    if remainder == 1:
        raise BlobError(
            f"the blob has {_plural(data_chars, 'data character', 'data characters')}, one more "
            f"than a multiple of 4 (the last one is at position {_last_data_position(blob)}): a "
            "single leftover character carries only 6 bits, not enough for a byte; the blob is "
            "probably truncated or has a stray character",
            reason="bad-length",
            position=None,
        )
    needed = (4 - remainder) % 4
    if pad != needed:
        if pad == 0:
            message = (
                f"the blob is missing its padding: {data_chars} characters is not a multiple of 4; "
                f"add {needed} '=' at the end ({'=' * needed!r}) so the length becomes "
                f"{data_chars + needed}"
            )
        elif needed == 0:
            message = (
                f"the blob has {pad} '=' at the end (from position {first_eq}) but needs none: "
                f"its {data_chars} data characters are already a multiple of 4"
            )
        else:
            message = (
                f"the blob ends with {pad} '=' (from position {first_eq}) but needs {needed}: "
                f"{data_chars} data characters leave {remainder} in the last group of 4"
            )
        raise BlobError(message, reason="bad-padding", position=first_eq if pad else None)


def _check_canonical(blob: str, compact: str) -> None:
    pad = len(compact) - len(compact.rstrip("="))
    if pad == 0:
        return
    last = compact[-pad - 1]
    value = _ALPHABET.index(last)
    unused_bits = 4 if pad == 2 else 2
    mask = (1 << unused_bits) - 1
    if value & mask == 0:
        return
    canonical = _ALPHABET[value & ~mask]
    position = _last_data_position(blob)
    raise BlobError(
        f"character {last!r} at position {position} sets {unused_bits} leftover bits that carry no "
        f"data: an encoder writes {canonical!r} there; this module refuses non-canonical blobs "
        "so that each blob text stands for exactly one byte string (Python's decoder would "
        f"silently give the same bytes for {last!r} and {canonical!r})",
        reason="non-canonical",
        position=position,
    )


def _line_breaks(blob: str) -> int:
    return blob.count("\n") + blob.count("\r") - blob.count("\r\n")


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def decode_report(blob: str, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> DecodeResult:
    """Decode a blob strictly and report what was accepted along the way.

    The checks run in this order, and the first failure is raised: text type, ``data:`` prefix,
    decoded size against ``max_bytes`` (computed from the length, so an oversized blob is refused
    before any character is examined or decoded), alphabet, padding and length, canonical ending.

    Args:
        blob: base64 text, standard alphabet, padded; whitespace anywhere is accepted.
        max_bytes: largest decoded size accepted; ``None`` for no limit.

    Returns:
        A :class:`DecodeResult`.

    Raises:
        BlobError: with ``reason`` and ``position`` telling what was wrong and where.

    Example:
        >>> r = decode_report("TUNQ\\nTUNQ\\n")
        >>> r.data, r.size, r.chars, r.whitespace_removed
        (b'MCPMCP', 6, 8, 2)
        >>> r.notes
        ('accepted 2 line breaks, as MIME base64 allows',)
    """
    _require_text(blob, "decode()")
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes cannot be negative, got {max_bytes}")
    _check_data_url(blob)

    whitespace = _count_whitespace(blob)
    compact_length = len(blob) - whitespace
    size = 3 * (compact_length - _trailing_padding(blob)) // 4
    if max_bytes is not None and size > max_bytes:
        raise BlobError(
            f"the blob would decode to {size:,} bytes ({compact_length:,} base64 characters), more "
            f"than the limit of {max_bytes:,} bytes; it was refused without decoding (raise "
            "max_bytes if you really expect content this large)",
            reason="too-large",
        )

    _check_characters(blob)
    _check_padding(blob, compact_length)
    compact = blob.translate(_STRIP_WHITESPACE) if whitespace else blob
    _check_canonical(blob, compact)

    try:
        data = base64.b64decode(compact, validate=True)
    except binascii.Error as e:  # unreachable after the checks above, but never swallowed
        raise BlobError(f"the base64 decoder refused the blob: {e}", reason="bad-character") from e

    notes: list[str] = []
    breaks = _line_breaks(blob)
    if breaks:
        lines = _plural(breaks, "line break", "line breaks")
        notes.append(f"accepted {lines}, as MIME base64 allows")
    for char, one, many in ((" ", "space", "spaces"), ("\t", "tab", "tabs")):
        if count := blob.count(char):
            notes.append(f"accepted {_plural(count, one, many)} inside the blob and ignored them")
    if not compact:
        notes.append("the blob is empty: it decodes to zero bytes")
    return DecodeResult(
        data=data,
        size=len(data),
        chars=compact_length,
        whitespace_removed=whitespace,
        notes=tuple(notes),
    )


def decode(blob: str, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> bytes:
    """Decode a standard, padded base64 blob; refuse anything doubtful with a :class:`BlobError`.

    See :func:`decode_report` for the checks and their order. Non-canonical endings such as
    ``"QR=="`` are refused (reason ``"non-canonical"``) so that a blob's text and its bytes
    correspond one to one.

    Example:
        >>> decode("TUNQ")
        b'MCP'
        >>> decode("TUNQ\\r\\nTUNQ")
        b'MCPMCP'
        >>> decode("TUN")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        custody_lab.protocol.blobs.BlobError: the blob is missing its padding: ... add 1 '=' at the end ...
        >>> decode("TU-Q")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        custody_lab.protocol.blobs.BlobError: the blob uses the URL-safe base64 alphabet ('-' at...
    """
    return decode_report(blob, max_bytes=max_bytes).data


# --------------------------------------------------------------------------------------------
# Sniffing
# --------------------------------------------------------------------------------------------

#: (signature test, MIME type, how to describe bytes that start this way)
_SIGNATURES: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png", "a PNG image (\\x89PNG)"),
    (b"\xff\xd8\xff", "image/jpeg", "a JPEG image (FF D8 FF)"),
    (b"GIF87a", "image/gif", "a GIF image (GIF87a)"),
    (b"GIF89a", "image/gif", "a GIF image (GIF89a)"),
    (b"%PDF-", "application/pdf", "a PDF (%PDF-)"),
    (b"PK\x03\x04", "application/zip", "a ZIP archive (PK\\x03\\x04)"),
    (b"PK\x05\x06", "application/zip", "an empty ZIP archive (PK\\x05\\x06)"),
    (b"PK\x07\x08", "application/zip", "a spanned ZIP archive (PK\\x07\\x08)"),
    (b"\x1f\x8b", "application/gzip", "gzip data (1F 8B)"),
)
_WEBP_DESCRIPTION = "a WebP image (RIFF....WEBP)"
#: The signature each binary type should start with, for "does not start with" messages.
_EXPECTED_SIGNATURE = {
    "image/png": "the PNG signature (89 50 4E 47 0D 0A 1A 0A)",
    "image/jpeg": "the JPEG signature (FF D8 FF)",
    "image/gif": "the GIF signature (GIF87a or GIF89a)",
    "application/pdf": "the PDF signature (%PDF-)",
    "application/zip": "the ZIP signature (PK\\x03\\x04)",
    "application/gzip": "the gzip signature (1F 8B)",
    "image/webp": "the WebP signature (RIFF....WEBP)",
}
_TEXT_SNIFFS = frozenset({"text/plain", "application/json", "application/xml", "image/svg+xml"})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]")
#: One XML prolog / processing instruction, comment or DOCTYPE, after optional whitespace.
_XML_MISC = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE\b[^>\[]*(?:\[.*?\])?\s*>)", re.DOTALL | re.IGNORECASE)
_SVG_ROOT = re.compile(r"\s*<svg[\s>/]")
_SNIFF_HEAD = 64 * 1024


def _as_text(data: bytes) -> str | None:
    """The bytes as text if they are UTF-8 with no NUL and at most 1% other control characters."""
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    controls = sum(1 for _ in _CONTROL.finditer(text))
    if controls * 100 > len(text):
        return None
    return text


def _markup_type(text: str) -> str | None:
    """image/svg+xml or application/xml for markup, looking past a prolog, comments and DOCTYPE."""
    head = text[:_SNIFF_HEAD].lstrip("\ufeff")
    saw_prolog = head.lstrip().startswith("<?xml")
    position = 0
    while (match := _XML_MISC.match(head, position)) is not None and match.end() > position:
        position = match.end()
    if _SVG_ROOT.match(head, position):
        return "image/svg+xml"
    return "application/xml" if saw_prolog else None


def _is_json_container(text: str) -> bool:
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped.startswith(("{", "[")):
        return False
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict | list)


def _binary_signature(data: bytes) -> tuple[str, str] | None:
    for magic, mime, description in _SIGNATURES:
        if data.startswith(magic):
            return mime, description
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp", _WEBP_DESCRIPTION
    return None


def sniff_mime(data: bytes) -> str | None:
    """Guess a MIME type from the bytes themselves, ignoring any declared type.

    Binary signatures are checked first (PNG, JPEG, GIF87a/89a, PDF, ZIP, gzip, WebP). Then, if the
    bytes are UTF-8 text: SVG (``<svg`` root, possibly after a BOM, whitespace, an XML prolog,
    comments or a DOCTYPE), other XML (``<?xml`` prolog), JSON (an object or array that parses),
    and finally ``text/plain`` (no NUL, at most 1% control characters other than tab, CR, LF).

    Returns:
        The MIME type, or ``None`` for empty or unrecognised binary data.

    Example:
        >>> sniff_mime(b"%PDF-1.7\\n"), sniff_mime(b'{"a": 1}'), sniff_mime(b"hello\\n")
        ('application/pdf', 'application/json', 'text/plain')
        >>> sniff_mime(b"<?xml version='1.0'?>\\n<svg xmlns='http://www.w3.org/2000/svg'/>")
        'image/svg+xml'
        >>> sniff_mime(b"\\x00\\x01\\x02") is None
        True
    """
    if isinstance(data, str):
        raise BlobTypeError("sniff bytes, not text: use s.encode('utf-8') first", reason="not-bytes")
    data = bytes(data)
    if not data:
        return None
    signature = _binary_signature(data)
    if signature is not None:
        return signature[0]
    text = _as_text(data)
    if text is None:
        return None
    markup = _markup_type(text)
    if markup is not None:
        return markup
    if _is_json_container(text):
        return "application/json"
    return "text/plain"


# --------------------------------------------------------------------------------------------
# Declared vs sniffed
# --------------------------------------------------------------------------------------------

_ALIASES = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "image/x-png": "image/png",
    "application/x-gzip": "application/gzip",
    "application/x-zip-compressed": "application/zip",
    "application/x-zip": "application/zip",
    "application/x-pdf": "application/pdf",
    "text/xml": "application/xml",
    "text/json": "application/json",
}
_ZIP_CONTAINER_PREFIXES = (
    "application/vnd.openxmlformats-officedocument.",  # docx, xlsx, pptx
    "application/vnd.oasis.opendocument.",  # odt, ods, odp
)
_ZIP_CONTAINERS = frozenset(
    {"application/java-archive", "application/vnd.android.package-archive", "application/x-zip"}
)


def _normalise(mime: str) -> str:
    base = essence(mime)
    return _ALIASES.get(base, base)


def _is_zip_container(mime: str) -> bool:
    return mime.endswith("+zip") or mime in _ZIP_CONTAINERS or mime.startswith(_ZIP_CONTAINER_PREFIXES)


def _first_bytes(data: bytes, n: int = 8) -> str:
    return " ".join(f"{b:02X}" for b in data[:n])


def _describe(sniffed: str | None, data: bytes, text: str | None) -> str:
    signature = _binary_signature(data)
    if signature is not None:
        return f"the bytes start like {signature[1]}"
    if sniffed == "image/svg+xml":
        return "the bytes are an SVG document"
    if sniffed == "application/xml":
        return "the bytes are XML (they start with an <?xml prolog)"
    if sniffed == "application/json":
        return "the bytes are JSON text"
    if sniffed == "text/plain" and text is not None:
        return f"the bytes are plain UTF-8 text (starting {text[:24]!r})"
    binary = f"the bytes are binary and match no known signature (first bytes: {_first_bytes(data)})"
    if b"\x00" in data:
        return binary
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        return binary
    return "the bytes are UTF-8 but full of control characters, so not readable text"


def _judge(declared: str | None, sniffed: str | None, data: bytes, text: str | None) -> tuple[bool, str | None]:
    """(mismatch, reason) for a declared type against what the bytes look like."""
    description = _describe(sniffed, data, text)
    if declared is None:
        return False, f"no declared type (mimeType is absent); {description}"
    if not data:
        return False, f"empty content: nothing to check the declared {declared} against"
    mime = _normalise(declared)
    if sniffed == mime:
        return False, None
    if mime == "application/octet-stream":
        return False, f"declared the generic application/octet-stream; {description}"

    if sniffed is not None and sniffed not in _TEXT_SNIFFS:  # a binary signature matched
        if sniffed == "application/zip" and _is_zip_container(mime):
            return False, None
        if sniffed == "application/gzip" and mime.endswith("+gzip"):
            return False, None
        return True, f"declared {declared} but {description}"

    if sniffed is not None:  # the bytes are text of some kind
        if mime == "image/svg+xml":
            if sniffed == "application/xml":
                return False, None
            return True, (f"declared {declared} but the text has no <svg> root element; {description}")
        if mime in _EXPECTED_SIGNATURE or mime.startswith(("image/", "audio/", "video/", "font/")):
            return True, f"declared {declared} but {description}"
        if mime == "application/json" or mime.endswith("+json"):
            try:
                json.loads(text or "")
            except ValueError as e:
                return True, f"declared {declared} but the text does not parse as JSON ({e})"
            return False, None
        if mime == "application/xml" or mime.endswith("+xml"):
            markup = (text or "").lstrip("\ufeff \t\r\n").startswith("<")
            if sniffed in ("application/xml", "image/svg+xml") or markup:
                return False, None
            return True, (f"declared {declared} but the text does not start with '<', so it is not XML; {description}")
        if is_text(mime):
            return False, None
        return False, f"cannot confirm {declared} from the bytes; {description}"

    # sniffed is None: binary of no known kind, or text full of control characters
    if is_text(mime):
        return True, f"declared {declared} but the bytes are not text: {description}"
    if mime in _EXPECTED_SIGNATURE:
        return True, (
            f"declared {declared} but the bytes do not start with {_EXPECTED_SIGNATURE[mime]}; "
            f"they start {_first_bytes(data)}"
        )
    return False, (f"cannot confirm {declared} from the bytes (no signature check for it); {description}")


def _field(item: Mapping, name: str) -> str | None:
    """A string field of a contents item; ``None`` when absent or null; BlobError otherwise."""
    value = item.get(name)
    if value is None or isinstance(value, str):
        return value
    raise BlobError(
        f"contents item field {name!r} must be a string, got {type(value).__name__} ({value!r:.60})",
        reason="wrong-type",
    )


def read_contents(item: Mapping, *, max_bytes: int | None = DEFAULT_MAX_BYTES) -> ContentsReading:
    """Read one ``resources/read`` contents item and check its bytes against its declared type.

    ``text`` and ``blob`` are mutually exclusive; a field that is present but ``null`` counts as
    absent (serialisers often write it), and so does a ``null`` ``mimeType``.

    Args:
        item: a mapping with ``uri``, optional ``mimeType``, and exactly one of ``text`` or
            ``blob``.
        max_bytes: passed to :func:`decode` for blobs.

    Returns:
        A :class:`ContentsReading`.

    Raises:
        BlobError: naming the field when the item is malformed (reasons ``"missing-field"``,
            ``"conflicting-fields"``, ``"wrong-type"``, ``"bad-text"``), or the :func:`decode`
            error when the blob is malformed.

    Example:
        >>> item = {"uri": "file:///a.png", "mimeType": "image/png", "blob": encode(b"%PDF-1.7")}
        >>> r = read_contents(item)
        >>> r.kind, r.sniffed_mime, r.mime_mismatch
        ('blob', 'application/pdf', True)
        >>> r.mismatch_reason
        'declared image/png but the bytes start like a PDF (%PDF-)'
    """
    if not isinstance(item, Mapping):
        raise BlobError(
            f"a contents item must be a mapping with 'uri' and 'text' or 'blob', got {type(item).__name__}",
            reason="wrong-type",
        )
    uri = _field(item, "uri")
    if not uri:
        raise BlobError(
            "contents item has no 'uri' field (or it is empty): every resources/read contents item "
            "names the resource it came from",
            reason="missing-field",
        )
    declared = _field(item, "mimeType")
    if declared is not None and not declared.strip():
        raise BlobError(
            "contents item field 'mimeType' is empty: omit it or give a type such as 'image/png'",
            reason="wrong-type",
        )
    text_value = _field(item, "text")
    blob_value = _field(item, "blob")
    if text_value is not None and blob_value is not None:
        raise BlobError(
            f"contents item {uri!r} has both 'text' and 'blob': a contents item carries exactly "
            "one, 'text' for a string or 'blob' for base64 bytes",
            reason="conflicting-fields",
        )
    if text_value is None and blob_value is None:
        raise BlobError(
            f"contents item {uri!r} has neither 'text' nor 'blob': a contents item carries exactly "
            "one, 'text' for a string or 'blob' for base64 bytes",
            reason="missing-field",
        )

    notes: tuple[str, ...] = ()
    if text_value is not None:
        kind = "text"
        try:
            data = text_value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise BlobError(
                f"contents item {uri!r} field 'text' has a lone surrogate "
                f"{text_value[e.start]!r} at position {e.start}, which cannot be encoded as UTF-8",
                reason="bad-text",
                position=e.start,
            ) from e
        text: str | None = text_value
        base64_chars: int | None = None
        ratio: float | None = None
    else:
        assert blob_value is not None  # one of the two is set (checked above)
        kind = "blob"
        report = decode_report(blob_value, max_bytes=max_bytes)
        data = report.data
        text = _as_text(data)
        base64_chars = report.chars
        ratio = base64_chars / len(data) if data else None
        notes = report.notes

    sniffed = sniff_mime(data)
    mismatch, reason = _judge(declared, sniffed, data, text)
    return ContentsReading(
        uri=uri,
        kind=kind,
        declared_mime=declared,
        sniffed_mime=sniffed,
        mime_mismatch=mismatch,
        mismatch_reason=reason,
        data=data,
        size_bytes=len(data),
        base64_chars=base64_chars,
        overhead_ratio=ratio,
        sha256=hashlib.sha256(data).hexdigest(),
        text=text,
        notes=notes,
    )


# --------------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------------


def hex_preview(data: bytes, limit: int = 64) -> str:
    """A classic ``hexdump -C`` view of the first ``limit`` bytes.

    Each line shows the offset, 16 bytes in hex (two groups of 8) and the same bytes as ASCII,
    with anything unprintable shown as ``.``. A last line says how many bytes were left out.

    Example:
        >>> print(hex_preview(b"\\x89PNG\\r\\n\\x1a\\n"))
        00000000  89 50 4e 47 0d 0a 1a 0a                           |.PNG....|
        >>> print(hex_preview(bytes(range(65, 85)), limit=16))
        00000000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  |ABCDEFGHIJKLMNOP|
        ... 4 more bytes
    """
    if limit < 0:
        raise ValueError(f"limit cannot be negative, got {limit}")
    data = bytes(data)
    shown = data[:limit]
    lines = []
    for offset in range(0, len(shown), 16):
        chunk = shown[offset : offset + 16]
        left = " ".join(f"{b:02x}" for b in chunk[:8])
        right = " ".join(f"{b:02x}" for b in chunk[8:])
        hex_part = f"{left:<23}  {right:<23}"
        ascii_part = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{offset:08x}  {hex_part}  |{ascii_part}|")
    if len(data) > limit:
        lines.append(f"... {_plural(len(data) - limit, 'more byte', 'more bytes')}")
    return "\n".join(lines)
