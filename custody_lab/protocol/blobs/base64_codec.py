"""Base64 blobs in MCP ``resources/read`` results: encode, size and decode them strictly, explaining every refusal.

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

The declared ``mimeType`` is never trusted silently: :mod:`.contents` sniffs the decoded bytes
(:mod:`.sniffing`) and reports any disagreement.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_BYTES", "DecodeResult", "decode", "decode_report", "decoded_size", "encode", "overhead"]

import base64
import re
from dataclasses import dataclass, field

from .errors import BlobError, BlobTypeError

#: Blobs whose decoded size exceeds this are refused unless the caller raises the limit (10 MiB).
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_WHITESPACE = " \t\r\n"
_WHITESPACE_BYTES = _WHITESPACE.encode("ascii")
#: Every character a blob may hold: base64, padding and accepted whitespace.
_VALID_BYTES = (_ALPHABET + "=" + _WHITESPACE).encode("ascii")
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
        raise BlobError(f"overhead(): a byte count cannot be negative, got {n_bytes}", reason="bad-argument")
    return 4 * ((n_bytes + 2) // 3)


def _count_whitespace(blob: str) -> int:
    if blob.isascii():  # a flag of the string: then one C pass over its bytes
        raw = blob.encode("ascii")
        return len(raw) - len(raw.translate(None, _WHITESPACE_BYTES))
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
    if blob.isascii() and not blob.encode("ascii").translate(None, _VALID_BYTES):
        return  # nothing left once every valid character is deleted (one C pass)
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
        raise BlobError(f"decode(): max_bytes cannot be negative, got {max_bytes}", reason="bad-argument")
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
    # Every character is valid by now, so ASCII: whitespace is deleted from the bytes in C.
    compact = blob.encode("ascii").translate(None, _WHITESPACE_BYTES).decode("ascii") if whitespace else blob
    _check_canonical(blob, compact)

    # The checks above leave only alphabet characters and correct padding, so the decoder cannot
    # refuse (tests/protocol/blobs/test_blobs.py proves it over arbitrary text); a refusal would be a bug here.
    data = base64.b64decode(compact, validate=True)

    notes: list[str] = []
    breaks = _line_breaks(blob) if whitespace else 0
    if breaks:
        lines = _plural(breaks, "line break", "line breaks")
        notes.append(f"accepted {lines}, as MIME base64 allows")
    for char, one, many in ((" ", "space", "spaces"), ("\t", "tab", "tabs")):
        if whitespace and (count := blob.count(char)):
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
        custody_lab.protocol.blobs.errors.BlobError: the blob is missing its padding: ... add 1 '=' at the end ...
        >>> decode("TU-Q")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        custody_lab.protocol.blobs.errors.BlobError: the blob uses the URL-safe base64 alphabet ('-' at...
    """
    return decode_report(blob, max_bytes=max_bytes).data
