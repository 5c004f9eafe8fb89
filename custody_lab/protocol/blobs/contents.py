"""Reading one MCP ``resources/read`` contents item: decode it, sniff it, check it, preview it.

A contents item has a ``uri``, usually a ``mimeType``, and exactly one of ``text`` (a string) or
``blob`` (base64, :mod:`.base64_codec`). :func:`read_contents` returns a :class:`ContentsReading`
that says which field carried the bytes, what they look like (:mod:`.sniffing`) and whether that
contradicts the declared type; :func:`hex_preview` shows bytes that are not text.
"""

from __future__ import annotations

__all__ = ["ContentsReading", "hex_preview", "read_contents"]

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from .base64_codec import DEFAULT_MAX_BYTES, decode_report
from .errors import BlobError
from .sniffing import MAX_JSON_DEPTH, as_text, json_verdict, judge, sniff_decoded, starts_like_json


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
            ``"conflicting-fields"``, ``"wrong-type"``, ``"bad-text"``); ``"too-deep"`` when the
            text (or the decoded blob) is JSON nested more than
            :data:`~custody_lab.protocol.blobs.sniffing.MAX_JSON_DEPTH` levels deep; or the
            :func:`decode` error when the blob is malformed.

    Example:
        >>> from custody_lab.protocol.blobs import encode
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
        text = as_text(data)
        base64_chars = report.chars
        ratio = base64_chars / len(data) if data else None
        notes = report.notes

    # One look at JSON-like text decides both the refusal and (for the same text) the sniff.
    verdict = json_verdict(text) if text is not None and starts_like_json(text) else (False, False)
    if verdict[0]:
        raise BlobError(
            f"contents item {uri!r} field {kind!r} holds JSON nested more than {MAX_JSON_DEPTH} levels "
            "deep; the lab does not parse it (nesting that deep is how a hostile server exhausts a "
            "parser's stack)",
            reason="too-deep",
        )
    sniff_text = text if kind == "blob" else as_text(data)  # a blob's text is as_text(data) already
    sniffed = sniff_decoded(data, sniff_text, verdict[1] if sniff_text == text else None) if data else None
    mismatch, reason = judge(declared, sniffed, data, text)
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
        raise BlobError(f"hex_preview(): limit cannot be negative, got {limit}", reason="bad-argument")
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
        left_out = len(data) - limit
        lines.append(f"... {left_out} more byte{'' if left_out == 1 else 's'}")
    return "\n".join(lines)
