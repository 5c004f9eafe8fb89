"""Tests for custody_lab.blobs: strict base64, sniffing, and resources/read contents items."""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.blobs import (
    DEFAULT_MAX_BYTES,
    BlobError,
    decode,
    decode_report,
    decoded_size,
    encode,
    hex_preview,
    overhead,
    read_contents,
    sniff_mime,
)

LOGO_PATH = Path(__file__).resolve().parents[3] / "data" / "resources" / "logo.png"
#: The course material's logo, exactly as printed there.
LOGO_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAMElEQVR42mPkndLxn4ECwMRA"
    "IRh4A1jQBT5ll+PVwDe1c7iFwagBWNIBejyPgDAAAO2SBnj02loiAAAAAElFTkSuQmCC"
)


def logo_bytes() -> bytes:
    return LOGO_PATH.read_bytes()


def expect_blob_error(blob: str, **kwargs: object) -> BlobError:
    with pytest.raises(BlobError) as info:
        decode(blob, **kwargs)
    return info.value


# --------------------------------------------------------------------------------------------
# Round trips and sizes
# --------------------------------------------------------------------------------------------


@given(st.binary(max_size=512))
def test_decoding_an_encoded_byte_string_gives_back_the_same_bytes(data: bytes) -> None:
    blob = encode(data)
    assert decode(blob) == data, f"input={data!r} blob={blob!r} actual={decode(blob)!r}"


@given(st.binary(max_size=512))
def test_decoded_size_of_an_encoding_equals_the_original_length(data: bytes) -> None:
    blob = encode(data)
    actual = decoded_size(blob)
    assert actual == len(data), f"blob={blob!r} expected={len(data)} actual={actual}"


@given(st.binary(max_size=512))
def test_encoding_matches_the_standard_library_and_the_overhead_formula(data: bytes) -> None:
    blob = encode(data)
    assert blob == base64.b64encode(data).decode("ascii"), f"input={data!r} actual={blob!r}"
    assert len(blob) == overhead(len(data)), f"input length={len(data)} blob length={len(blob)}"
    assert "\n" not in blob


@given(st.binary(max_size=300), st.data())
def test_whitespace_inserted_anywhere_is_ignored_and_counted(data: bytes, draw: st.DataObject) -> None:
    blob = encode(data)
    pieces = []
    inserted = 0
    for char in blob:
        ws = draw.draw(st.sampled_from(["", "", "", " ", "\t", "\n", "\r\n"]))
        pieces.append(ws + char)
        inserted += len(ws)
    noisy = "".join(pieces) + draw.draw(st.sampled_from(["", "\n", "\r\n"]))
    report = decode_report(noisy)
    assert report.data == data, f"input={noisy!r} expected={data!r} actual={report.data!r}"
    assert report.whitespace_removed == len(noisy) - len(blob), f"input={noisy!r} report={report}"
    assert report.chars == len(blob), f"input={noisy!r} chars expected={len(blob)} actual={report.chars}"
    assert decoded_size(noisy) == len(data), f"input={noisy!r}"


STANDARD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


@given(st.text(alphabet=STANDARD_ALPHABET + "=", max_size=16))
def test_decode_agrees_with_the_standard_library_whenever_it_accepts(blob: str) -> None:
    try:
        ours = decode(blob)
    except BlobError:
        return  # stricter than the standard library is allowed; disagreeing is not
    assert ours == base64.b64decode(blob, validate=True), f"input={blob!r} ours={ours!r}"
    assert encode(ours) == blob, f"input={blob!r} is accepted, so it must be the canonical encoding"


@pytest.mark.parametrize(
    ("n_bytes", "expected_chars"),
    [(0, 0), (1, 4), (2, 4), (3, 4), (4, 8), (5, 8), (6, 8), (105, 140), (1024, 1368)],
)
def test_overhead_is_four_characters_per_started_group_of_three_bytes(n_bytes: int, expected_chars: int) -> None:
    actual = overhead(n_bytes)
    assert actual == expected_chars, f"input={n_bytes} expected={expected_chars} actual={actual}"


def test_overhead_refuses_a_negative_byte_count() -> None:
    with pytest.raises(ValueError, match="negative"):
        overhead(-1)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: overhead(-1), "overhead()"),
        (lambda: decode("QQ==", max_bytes=-1), "max_bytes"),
        (lambda: decode_report("QQ==", max_bytes=-5), "max_bytes"),
        (lambda: hex_preview(b"abc", limit=-1), "limit"),
    ],
    ids=["overhead", "decode", "decode_report", "hex_preview"],
)
def test_a_negative_size_or_limit_is_a_blob_error_naming_the_argument(call: Any, named: str) -> None:
    with pytest.raises(BlobError) as info:
        call()
    actual = (info.value.reason, named in str(info.value), isinstance(info.value, ValueError))
    assert actual == ("bad-argument", True, True), (
        f"expected ('bad-argument', names {named!r}, ValueError), got {actual}: {info.value}"
    )


@pytest.mark.parametrize(
    ("blob", "expected"),
    [
        ("", 0),
        ("QQ==", 1),
        ("QUI=", 2),
        ("QUJD", 3),
        ("QUJDRA==", 4),
        ("QUJD\r\nRA==\n", 4),
        ("QQ", 1),  # sized as if padded; decode() refuses it
        ("QUI", 2),
        ("Q Q = =", 1),
    ],
)
def test_decoded_size_comes_from_length_and_padding_alone(blob: str, expected: int) -> None:
    actual = decoded_size(blob)
    assert actual == expected, f"input={blob!r} expected={expected} actual={actual}"


def test_decoded_size_refuses_a_single_leftover_character() -> None:
    with pytest.raises(BlobError) as info:
        decoded_size("QUJDR")
    assert info.value.reason == "bad-length", f"actual reason={info.value.reason}"


# --------------------------------------------------------------------------------------------
# Errors: reason, position and a key phrase
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blob", "reason", "position", "phrase"),
    [
        ("QUJD!RA=", "bad-character", 4, "'!' at position 4"),
        ("ab\u00e9c", "bad-character", 2, "'é' at position 2"),
        ("QU JD\n*RA==", "bad-character", 6, "'*' at position 6"),
        ('"QUJD"', "bad-character", 0, "quotation marks"),
        ("QU\\/D", "bad-character", 2, "backslash"),
        ("QUJD%2B", "bad-character", 4, "percent-encoded"),
        ("QQ\u00a0==", "bad-character", 2, "non-breaking space"),
        ("QUJD\x0bRA==", "bad-character", 4, "'\\x0b' at position 4"),
        ("TU-Q", "url-safe", 2, "URL-safe"),
        ("TUNQ_w", "url-safe", 4, "'+' and '/'"),
        ("data:image/png;base64,iVBORw0KGgo=", "data-url", 0, "follows the comma"),
        ("  DATA:text/plain;base64,QQ==", "data-url", 2, "data: URL"),
        ("image/png;base64,QQ==", "data-url", 0, "follows the comma"),
        ("QQ==QQ==", "bad-padding", 2, "two blobs joined"),
        ("QQ=A", "bad-padding", 2, "only appear at the end"),
        ("Q===", "bad-padding", 3, "never needs more than 2"),
        ("QQ=", "bad-padding", 2, "needs 2"),
        ("QUJD=", "bad-padding", 4, "needs none"),
        ("QQ", "bad-padding", None, "add 2 '='"),
        ("QUJDRA", "bad-padding", None, "add 2 '='"),
        ("QUI", "bad-padding", None, "add 1 '='"),
        ("Q", "bad-length", None, "one more than a multiple of 4"),
        ("QUJDR", "bad-length", None, "truncated"),
        ("QR==", "non-canonical", 1, "encoder writes 'Q'"),
        ("QUJ=", "non-canonical", 2, "encoder writes 'I'"),
        ("QUJD\nQR==\n", "non-canonical", 6, "non-canonical"),
    ],
)
def test_a_malformed_blob_is_refused_with_its_reason_position_and_an_explanation(
    blob: str, reason: str, position: int | None, phrase: str
) -> None:
    error = expect_blob_error(blob)
    summary = (
        f"input={blob!r} expected=({reason}, {position}, {phrase!r}) actual=({error.reason}, {error.position}, {error})"
    )
    assert error.reason == reason, summary
    assert error.position == position, summary
    assert phrase in str(error), summary


def test_the_first_offending_character_is_reported_when_there_are_several() -> None:
    error = expect_blob_error("QUJD\n QU!D?QQ==")
    actual = (error.reason, error.position)
    assert actual == ("bad-character", 8), f"expected=('bad-character', 8) actual={actual}: {error}"


def test_a_blob_error_is_a_value_error() -> None:
    assert issubclass(BlobError, ValueError)


@pytest.mark.parametrize("value", [b"QQ==", 42, None])
def test_decode_refuses_anything_but_text(value: object) -> None:
    with pytest.raises(TypeError) as info:
        decode(value)  # type: ignore[arg-type]
    error = info.value
    assert isinstance(error, BlobError), f"input={value!r} actual={error!r}"
    assert error.reason == "not-text", f"input={value!r} expected=not-text actual={error.reason}"


@pytest.mark.parametrize("value", ["hello", 3, [1, 2]])
def test_encode_refuses_anything_but_bytes_and_says_how_to_get_them(value: object) -> None:
    with pytest.raises(BlobError) as info:
        encode(value)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError), f"input={value!r}: the error should also be a TypeError"
    assert info.value.reason == "not-bytes", f"input={value!r} actual={info.value.reason}"
    if isinstance(value, str):
        assert "encode bytes, not text: use s.encode('utf-8')" in str(info.value), str(info.value)


def test_encode_accepts_bytearray_and_memoryview() -> None:
    assert encode(bytearray(b"MCP")) == encode(memoryview(b"MCP")) == "TUNQ"


# --------------------------------------------------------------------------------------------
# Whitespace
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blob", "data", "whitespace", "note"),
    [
        ("TUNQ\nTUNQ\nTUNQ\n", b"MCPMCPMCP", 3, "accepted 3 line breaks, as MIME base64 allows"),
        ("TUNQ\r\nTUNQ\r\n", b"MCPMCP", 4, "accepted 2 line breaks, as MIME base64 allows"),
        ("TUNQ\n", b"MCP", 1, "accepted 1 line break, as MIME base64 allows"),
        (" TUNQ TUNQ ", b"MCPMCP", 3, "accepted 3 spaces inside the blob and ignored them"),
        ("TUNQ\tTUNQ", b"MCPMCP", 1, "accepted 1 tab inside the blob and ignored them"),
        ("TU\nNQ\tTU NQ", b"MCPMCP", 3, "accepted 1 line break, as MIME base64 allows"),
    ],
)
def test_whitespace_is_accepted_and_reported(blob: str, data: bytes, whitespace: int, note: str) -> None:
    report = decode_report(blob)
    assert report.data == data, f"input={blob!r} expected={data!r} actual={report.data!r}"
    removed = report.whitespace_removed
    assert removed == whitespace, f"input={blob!r} expected={whitespace} actual={removed}"
    assert note in report.notes, f"input={blob!r} expected note={note!r} actual={report.notes}"
    assert report.chars + report.whitespace_removed == len(blob)


def test_a_blob_without_whitespace_has_no_notes() -> None:
    report = decode_report("TUNQ")
    actual = (report.data, report.size, report.chars, report.whitespace_removed, report.notes)
    assert actual == (b"MCP", 3, 4, 0, ()), f"input='TUNQ' actual={actual}"


def test_an_empty_blob_decodes_to_no_bytes_and_says_so() -> None:
    report = decode_report("")
    assert report.data == b"" and report.size == 0
    assert any("empty" in note for note in report.notes), report.notes


# --------------------------------------------------------------------------------------------
# Size limit, checked before decoding
# --------------------------------------------------------------------------------------------


@pytest.fixture
def decoder_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the base64 decoder ran on a blob that should be refused unread")

    monkeypatch.setattr(base64, "b64decode", forbidden)
    monkeypatch.setattr(binascii, "a2b_base64", forbidden)


def test_a_huge_blob_is_refused_from_its_length_before_its_characters_are_checked_or_decoded(
    decoder_forbidden: None,
) -> None:
    # The last character is not base64: had the characters been examined before the size, the
    # reason would be "bad-character". The decoder fixture proves nothing was decoded.
    blob = "A" * (40 * 1024 * 1024 - 1) + "!"
    error = expect_blob_error(blob, max_bytes=1024)
    assert error.reason == "too-large", (
        f"input=40 MiB of 'A' then '!' expected=too-large actual={error.reason}: {error}"
    )
    assert "31,457,280" in str(error) and "1,024" in str(error), f"both figures expected in: {error}"


def test_a_blob_one_byte_over_the_limit_is_refused_and_one_at_the_limit_is_not() -> None:
    data = bytes(range(100))
    assert decode(encode(data), max_bytes=100) == data
    error = expect_blob_error(encode(data), max_bytes=99)
    summary = f"expected=(too-large, None) actual=({error.reason}, {error.position}) {error}"
    assert (error.reason, error.position) == ("too-large", None), summary
    assert "100 bytes" in str(error) and "99 bytes" in str(error), str(error)


def test_the_size_check_comes_before_the_character_check(decoder_forbidden: None) -> None:
    error = expect_blob_error("!!!!" * 10, max_bytes=3)
    assert error.reason == "too-large", f"actual={error.reason}"


def test_the_default_limit_is_ten_mebibytes() -> None:
    assert DEFAULT_MAX_BYTES == 10 * 1024 * 1024
    assert decoded_size("A" * overhead(DEFAULT_MAX_BYTES + 3)) > DEFAULT_MAX_BYTES


def test_no_limit_when_max_bytes_is_none() -> None:
    assert decode("AAAA" * 10, max_bytes=None) == bytes(30)


# --------------------------------------------------------------------------------------------
# The logo from the course material
# --------------------------------------------------------------------------------------------


def test_the_logo_blob_is_140_characters_for_105_bytes() -> None:
    assert len(LOGO_BASE64) == 140, f"expected=140 actual={len(LOGO_BASE64)}"
    assert decoded_size(LOGO_BASE64) == 105, f"expected=105 actual={decoded_size(LOGO_BASE64)}"
    data = decode(LOGO_BASE64)
    assert len(data) == 105, f"expected=105 actual={len(data)}"
    assert overhead(105) == 140


def test_the_logo_file_holds_exactly_the_course_bytes() -> None:
    assert logo_bytes() == decode(LOGO_BASE64), f"{LOGO_PATH} differs from the course base64"
    assert encode(logo_bytes()) == LOGO_BASE64


def test_the_logo_is_a_well_formed_16_by_16_png() -> None:
    data = logo_bytes()
    assert sniff_mime(data) == "image/png", f"actual={sniff_mime(data)}"
    position, chunks = 8, []
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in chunk {kind!r}"
        chunks.append(kind)
        position += 12 + length
    assert chunks == [b"IHDR", b"IDAT", b"IEND"], f"actual chunks={chunks}"
    assert struct.unpack(">II", data[16:24]) == (16, 16)


def test_reading_the_logo_as_a_contents_item_agrees_with_its_declared_type() -> None:
    item = {"uri": "file:///resources/logo.png", "mimeType": "image/png", "blob": LOGO_BASE64}
    reading = read_contents(item)
    actual = (reading.kind, reading.sniffed_mime, reading.mime_mismatch)
    assert actual == ("blob", "image/png", False), reading
    assert reading.mismatch_reason is None, reading.mismatch_reason
    assert (reading.size_bytes, reading.base64_chars) == (105, 140), reading
    assert reading.overhead_ratio == pytest.approx(4 / 3), reading.overhead_ratio
    assert reading.sha256 == hashlib.sha256(logo_bytes()).hexdigest()
    assert reading.text is None, "a PNG is not text"


# --------------------------------------------------------------------------------------------
# Sniffing
# --------------------------------------------------------------------------------------------

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'

SNIFF_TABLE = [
    ("png (logo)", None, "image/png"),
    ("jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
    ("gif87a", b"GIF87a\x01\x00\x01\x00\x80\x00\x00", "image/gif"),
    ("gif89a", b"GIF89a\x01\x00\x01\x00\x80\x00\x00", "image/gif"),
    ("pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "application/pdf"),
    ("zip", b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "application/zip"),
    ("empty zip", b"PK\x05\x06" + bytes(18), "application/zip"),
    ("gzip", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", "application/gzip"),
    ("webp", b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00", "image/webp"),
    ("riff but not webp", b"RIFF\x1a\x00\x00\x00WAVEfmt ", None),
    ("svg", SVG, "image/svg+xml"),
    ("svg with whitespace", b"\n  " + SVG, "image/svg+xml"),
    ("svg with bom", b"\xef\xbb\xbf" + SVG, "image/svg+xml"),
    ("svg after prolog", b'<?xml version="1.0" encoding="UTF-8"?>\n' + SVG, "image/svg+xml"),
    (
        "svg after prolog, comment and doctype",
        b'<?xml version="1.0"?>\n<!-- drawn by hand -->\n'
        b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
        b'  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' + SVG,
        "image/svg+xml",
    ),
    ("xml", b'<?xml version="1.0"?><resource uri="file:///a"/>', "application/xml"),
    ("json object", b'{"jsonrpc": "2.0", "id": 1}', "application/json"),
    ("json array", b" [1, 2, 3]\n", "application/json"),
    ("json scalar is just text", b"42", "text/plain"),
    ("broken json is just text", b'{"a": 1', "text/plain"),
    ("utf-8 text", "Grüße, MCP!\n\tindented\r\n".encode(), "text/plain"),
    ("text with one escape in many", b"log line \x1b[0m" + b"x" * 200, "text/plain"),
    ("nul byte", b"abc\x00def", None),
    ("mostly control characters", b"\x01\x02\x03\x04abc", None),
    ("invalid utf-8", b"\xc3\x28\xa0\xa1", None),
    ("empty", b"", None),
]


@pytest.mark.parametrize(("label", "data", "expected"), SNIFF_TABLE, ids=[row[0] for row in SNIFF_TABLE])
def test_sniffing_recognises_each_format_from_its_first_bytes(
    label: str, data: bytes | None, expected: str | None
) -> None:
    data = logo_bytes() if data is None else data
    actual = sniff_mime(data)
    assert actual == expected, f"{label}: input={data[:32]!r} expected={expected} actual={actual}"


def test_sniffing_refuses_text() -> None:
    with pytest.raises(TypeError):
        sniff_mime("%PDF-")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# read_contents
# --------------------------------------------------------------------------------------------

PDF = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n"
GZIP = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
BINARY = bytes(range(256))
JPEG_START = b"\xff\xd8\xff\xe0"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@pytest.mark.parametrize(
    ("item", "mismatch", "reason_phrase"),
    [
        (
            {"uri": "file:///a.png", "mimeType": "image/png", "blob": encode(PDF)},
            True,
            "declared image/png but the bytes start like a PDF (%PDF-)",
        ),
        (
            {"uri": "file:///a.txt", "mimeType": "text/plain", "blob": encode(BINARY)},
            True,
            "declared text/plain but the bytes are not text",
        ),
        (
            {"uri": "file:///a.txt", "mimeType": "text/plain", "blob": encode(logo_bytes())},
            True,
            "declared text/plain but the bytes start like a PNG",
        ),
        ({"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello, context"}, False, None),
        (
            {"uri": "file:///a.txt", "mimeType": "text/plain; charset=utf-8", "blob": encode(b"hi\n")},
            False,
            None,
        ),
        ({"uri": "file:///a.md", "mimeType": "text/markdown", "text": "# Title\n"}, False, None),
        ({"uri": "file:///a.csv", "mimeType": "text/csv", "text": "a,b\n1,2\n"}, False, None),
        ({"uri": "file:///a.json", "mimeType": "application/json", "text": '{"a": 1}'}, False, None),
        ({"uri": "file:///a.json", "mimeType": "application/json", "text": "42"}, False, None),
        (
            {"uri": "file:///a.json", "mimeType": "application/json", "text": "{not json"},
            True,
            "does not parse as JSON",
        ),
        ({"uri": "file:///a.svg", "mimeType": "image/svg+xml", "text": SVG.decode()}, False, None),
        (
            {"uri": "file:///a.svg", "mimeType": "image/svg+xml", "text": '<?xml version="1.0"?><note/>'},
            False,
            None,
        ),
        ({"uri": "file:///a.xml", "mimeType": "application/xml", "text": SVG.decode()}, False, None),
        ({"uri": "file:///a.xml", "mimeType": "text/xml", "text": "<root/>"}, False, None),
        (
            {"uri": "file:///a.png", "mimeType": "image/png", "text": "not a picture"},
            True,
            "declared image/png but the bytes are plain UTF-8 text",
        ),
        (
            {"uri": "file:///a.png", "mimeType": "image/png", "blob": encode(BINARY)},
            True,
            "do not start with the PNG signature",
        ),
        ({"uri": "file:///a.jpg", "mimeType": "image/jpg", "blob": encode(JPEG_START)}, False, None),
        (
            {"uri": "file:///a.docx", "mimeType": DOCX, "blob": encode(b"PK\x03\x04rest")},
            False,
            None,
        ),
        (
            {"uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": encode(PDF)},
            False,
            "generic application/octet-stream; the bytes start like a PDF",
        ),
        (
            {"uri": "file:///a.mp3", "mimeType": "audio/mpeg", "blob": encode(BINARY)},
            False,
            "cannot confirm audio/mpeg",
        ),
        ({"uri": "file:///a.txt", "text": "hello"}, False, "no declared type"),
        ({"uri": "file:///a.pdf", "blob": encode(PDF)}, False, "no declared type"),
        ({"uri": "file:///a.pdf", "mimeType": None, "blob": encode(PDF)}, False, "no declared type"),
        ({"uri": "file:///empty", "mimeType": "image/png", "blob": ""}, False, "empty content"),
        (  # RFC 8460 registers application/tlsrpt+gzip: gzip bytes under a +gzip suffix agree
            {"uri": "file:///r.gz", "mimeType": "application/tlsrpt+gzip", "blob": encode(GZIP)},
            False,
            None,
        ),
        (
            {"uri": "file:///r.gz", "mimeType": "application/tlsrpt+json", "blob": encode(GZIP)},
            True,
            "declared application/tlsrpt+json but the bytes start like gzip data",
        ),
        (
            {"uri": "file:///a.svg", "mimeType": "image/svg+xml", "text": "just words"},
            True,
            "declared image/svg+xml but the text has no <svg> root element",
        ),
        (
            {"uri": "file:///a.xml", "mimeType": "application/xml", "text": "just words"},
            True,
            "does not start with '<', so it is not XML",
        ),
        ({"uri": "file:///a.atom", "mimeType": "application/atom+xml", "text": "  <feed/>"}, False, None),
        (
            {"uri": "file:///a.bin", "mimeType": "application/x-lab-custom", "text": "plain words"},
            False,
            "cannot confirm application/x-lab-custom from the bytes; the bytes are plain UTF-8 text",
        ),
        (
            {"uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": encode(b"\xc3\x28\xa0")},
            False,
            "the bytes are binary and match no known signature (first bytes: C3 28 A0)",
        ),
        (
            {"uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": encode(b"\x01\x02ab")},
            False,
            "the bytes are UTF-8 but full of control characters",
        ),
    ],
)
def test_the_declared_type_is_checked_against_the_bytes(item: dict, mismatch: bool, reason_phrase: str | None) -> None:
    reading = read_contents(item)
    summary = (
        f"input={item!r} expected=({mismatch}, {reason_phrase!r}) "
        f"actual=({reading.mime_mismatch}, {reading.mismatch_reason!r})"
    )
    assert reading.mime_mismatch is mismatch, summary
    if reason_phrase is None:
        assert reading.mismatch_reason is None, summary
    else:
        assert reason_phrase in (reading.mismatch_reason or ""), summary


def test_a_text_item_is_read_as_its_utf8_bytes() -> None:
    reading = read_contents({"uri": "mem://note", "mimeType": "text/plain", "text": "Grüße"})
    expected = "Grüße".encode()
    actual = (reading.kind, reading.data, reading.size_bytes, reading.text)
    wanted = ("text", expected, 7, "Grüße")
    assert actual == wanted, f"expected={wanted} actual={actual}"
    assert (reading.base64_chars, reading.overhead_ratio) == (None, None), reading
    assert reading.sha256 == hashlib.sha256(expected).hexdigest()
    assert reading.sniffed_mime == "text/plain"


def test_a_blob_that_is_utf8_text_also_gives_its_text_and_notes() -> None:
    reading = read_contents({"uri": "mem://note", "mimeType": "text/plain", "blob": "aGVs\nbG8=\n"})
    assert (reading.kind, reading.data, reading.text) == ("blob", b"hello", "hello"), reading
    assert (reading.base64_chars, reading.overhead_ratio) == (8, 8 / 5), reading
    assert "accepted 2 line breaks, as MIME base64 allows" in reading.notes, reading.notes


def test_a_contents_reading_is_frozen() -> None:
    reading = read_contents({"uri": "mem://x", "text": "x"})
    with pytest.raises(AttributeError):
        reading.uri = "mem://y"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("item", "reason", "named"),
    [
        (
            {"uri": "mem://x", "text": "a", "blob": "QQ=="},
            "conflicting-fields",
            ["'text'", "'blob'", "both"],
        ),
        ({"uri": "mem://x"}, "missing-field", ["'text'", "'blob'", "neither"]),
        ({"uri": "mem://x", "text": None, "blob": None}, "missing-field", ["'text'", "'blob'"]),
        ({"text": "a"}, "missing-field", ["'uri'"]),
        ({"uri": "", "text": "a"}, "missing-field", ["'uri'"]),
        ({"uri": 7, "text": "a"}, "wrong-type", ["'uri'", "int"]),
        ({"uri": "mem://x", "text": b"a"}, "wrong-type", ["'text'", "bytes"]),
        ({"uri": "mem://x", "blob": ["QQ=="]}, "wrong-type", ["'blob'", "list"]),
        ({"uri": "mem://x", "mimeType": 3, "text": "a"}, "wrong-type", ["'mimeType'"]),
        ({"uri": "mem://x", "mimeType": " ", "text": "a"}, "wrong-type", ["'mimeType'", "empty"]),
        ({"uri": "mem://x", "text": "bad \ud800 surrogate"}, "bad-text", ["'text'", "surrogate"]),
    ],
)
def test_a_malformed_contents_item_is_refused_naming_the_field(item: dict, reason: str, named: list[str]) -> None:
    with pytest.raises(BlobError) as info:
        read_contents(item)
    error = info.value
    summary = f"input={item!r} expected=({reason}, {named}) actual=({error.reason}, {error})"
    assert info.value.reason == reason, summary
    for phrase in named:
        assert phrase in str(info.value), summary


def test_a_contents_item_must_be_a_mapping() -> None:
    with pytest.raises(BlobError, match="mapping"):
        read_contents(["uri", "text"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("blob", "reason"),
    [
        ("data:image/png;base64," + LOGO_BASE64, "data-url"),
        ("QR==", "non-canonical"),
        ("TU-Q", "url-safe"),
    ],
)
def test_a_contents_item_with_a_bad_blob_raises_the_decode_error(blob: str, reason: str) -> None:
    with pytest.raises(BlobError) as info:
        read_contents({"uri": "mem://x", "mimeType": "image/png", "blob": blob})
    actual = info.value.reason
    assert actual == reason, f"input={blob[:40]!r} expected={reason} actual={actual}"


def test_read_contents_passes_the_size_limit_to_the_decoder() -> None:
    with pytest.raises(BlobError) as info:
        read_contents({"uri": "mem://x", "blob": LOGO_BASE64}, max_bytes=100)
    assert info.value.reason == "too-large"


# --------------------------------------------------------------------------------------------
# hex_preview
# --------------------------------------------------------------------------------------------


def test_hex_preview_shows_offset_hex_and_ascii_like_hexdump() -> None:
    lines = hex_preview(logo_bytes(), limit=32).splitlines()
    expected = [
        "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|",
        "00000010  00 00 00 10 00 00 00 10  08 06 00 00 00 1f f3 ff  |................|",
        "... 73 more bytes",
    ]
    assert lines == expected, f"expected={expected} actual={lines}"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", ""),
        (b"MCP", "00000000  4d 43 50".ljust(60) + "|MCP|"),
        (b"\x00\x7f~ ", "00000000  00 7f 7e 20".ljust(60) + "|..~ |"),
    ],
)
def test_hex_preview_pads_short_lines_and_hides_unprintables(data: bytes, expected: str) -> None:
    actual = hex_preview(data)
    assert actual == expected, f"input={data!r} expected={expected!r} actual={actual!r}"


def test_hex_preview_lines_all_line_up_at_column_60() -> None:
    lines = hex_preview(bytes(range(40))).splitlines()
    assert [line.index("|") for line in lines] == [60, 60, 60], lines


def test_hex_preview_with_the_default_limit_shows_64_bytes() -> None:
    text = hex_preview(bytes(100))
    assert len(text.splitlines()) == 5 and text.endswith("... 36 more bytes"), text


# --------------------------------------------------------------------------------------------
# Edges that review found untested
# --------------------------------------------------------------------------------------------


@given(st.text(alphabet=STANDARD_ALPHABET + "=-_ \t\r\n!\u00e9", max_size=24))
def test_decode_of_any_text_returns_bytes_or_raises_a_blob_error(blob: str) -> None:
    # decode() calls the standard decoder without a safety net: the checks before it must leave
    # nothing it could refuse. A binascii.Error escaping here would fail this test.
    try:
        data = decode(blob)
    except BlobError as e:
        assert e.position is None or 0 <= e.position < len(blob), f"input={blob!r} position={e.position}"
        return
    assert isinstance(data, bytes), f"input={blob!r} actual={data!r}"


def test_a_data_url_without_a_comma_is_refused_with_advice_to_keep_the_base64() -> None:
    error = expect_blob_error("data:image/png;base64")
    actual = (error.reason, error.position, "paste only the base64 that follows the comma" in str(error))
    assert actual == ("data-url", 0, True), f"input='data:image/png;base64' actual={actual}: {error}"


@pytest.mark.parametrize("space", ["\u2003", "\u2028", "\x1c"])
def test_a_whitespace_character_outside_the_four_accepted_ones_is_named(space: str) -> None:
    blob = "TU" + space + "NQ"
    error = expect_blob_error(blob)
    actual = (error.reason, error.position, "only space, tab, CR and LF are accepted" in str(error))
    assert actual == ("bad-character", 2, True), f"input={blob!r} actual={actual}: {error}"


# The sniffer's threshold: text may hold at most 1 % control characters (other than tab, CR, LF),
# counted in characters. These rows sit below, at and just above it, and between 1 % and 10 %, so
# that ">" turned into ">=", a changed constant or counting bytes instead of characters fails.
CONTROL_ROWS = [
    ("0.9 %", b"\x01" * 9 + b"a" * 991, "text/plain"),
    ("exactly 1 %", b"\x01" * 10 + b"a" * 990, "text/plain"),
    ("1 in 100", b"\x1b" + b"a" * 99, "text/plain"),
    ("1.1 %", b"\x01" * 11 + b"a" * 989, None),
    ("2 in 100", b"\x1b\x7f" + b"a" * 98, None),
    ("5 %", b"\x0b" * 5 + b"a" * 95, None),
    ("9.9 %", b"\x0c" * 99 + b"a" * 901, None),
    ("10 %", b"\x1f" * 10 + b"a" * 90, None),
    ("1.5 % of characters, 0.76 % of bytes", b"\x01" * 3 + "é".encode() * 197, None),
    ("1 % of characters, 0.5 % of bytes", b"\x01" * 2 + "é".encode() * 198, "text/plain"),
    ("tabs, CRs and LFs do not count", b"\t\r\n" * 30 + b"a" * 10, "text/plain"),
]


@pytest.mark.parametrize(("label", "data", "expected"), CONTROL_ROWS, ids=[row[0] for row in CONTROL_ROWS])
def test_sniffing_calls_text_with_at_most_one_percent_control_characters_text(
    label: str, data: bytes, expected: str | None
) -> None:
    actual = sniff_mime(data)
    assert actual == expected, (
        f"{label}: input={data[:16]!r}... ({len(data)} bytes) expected={expected} actual={actual}"
    )
    reading = read_contents({"uri": "mem://x", "mimeType": "text/plain", "blob": encode(data)})
    readable = (reading.text is not None, reading.mime_mismatch)
    wanted = (expected is not None, expected is None)
    assert readable == wanted, f"{label}: read as text/plain expected (text, mismatch)={wanted} actual={readable}"


UPPER_CASE_ROWS = [
    ("IMAGE/PNG", "image/png", "png"),
    ("Image/Png", "image/png", "pdf"),
    ("Text/Plain; Charset=utf-8", "text/plain; charset=utf-8", "text"),
    ("TEXT/PLAIN", "text/plain", "binary"),
    ("APPLICATION/JSON", "application/json", "broken json"),
    ("Image/SVG+XML", "image/svg+xml", "svg"),
    ("APPLICATION/X-ZIP-COMPRESSED", "application/x-zip-compressed", "zip"),
]
UPPER_CASE_BYTES = {
    "png": (LOGO_PATH.read_bytes()),
    "pdf": b"%PDF-1.7\n",
    "text": "Grüße\n".encode(),
    "binary": bytes(range(256)),
    "broken json": b'{"a": ',
    "svg": b'<svg xmlns="http://www.w3.org/2000/svg"/>',
    "zip": b"PK\x03\x04rest",
}


@pytest.mark.parametrize(("upper", "lower", "content"), UPPER_CASE_ROWS, ids=[row[0] for row in UPPER_CASE_ROWS])
def test_a_declared_type_in_upper_case_is_judged_like_its_lower_case_form(upper: str, lower: str, content: str) -> None:
    data = UPPER_CASE_BYTES[content]
    shouted = read_contents({"uri": "mem://x", "mimeType": upper, "blob": encode(data)})
    quiet = read_contents({"uri": "mem://x", "mimeType": lower, "blob": encode(data)})
    actual = (shouted.mime_mismatch, (shouted.mismatch_reason or "").replace(upper, lower))
    expected = (quiet.mime_mismatch, quiet.mismatch_reason or "")
    assert actual == expected, f"{upper} over {content}: expected {expected} (as {lower}) actual={actual}"
    assert shouted.declared_mime == upper, f"the declared type is kept as written: {shouted.declared_mime!r}"


DEEP_JSON = "[" * 100_000 + "]" * 100_000


def test_json_nested_too_deeply_to_parse_is_sniffed_as_plain_text_not_a_crash() -> None:
    actual = sniff_mime(DEEP_JSON.encode())
    assert actual == "text/plain", f"input=100000 nested arrays expected=text/plain actual={actual}"


def test_a_declared_json_that_nests_too_deeply_is_refused_with_a_blob_error_naming_the_field() -> None:
    with pytest.raises(BlobError) as caught:
        read_contents({"uri": "mem://deep", "mimeType": "application/json", "text": DEEP_JSON})
    actual = (caught.value.reason, "'text'" in str(caught.value), "256 levels" in str(caught.value))
    expected = ("too-deep", True, True)
    assert actual == expected, f"input=100000 nested arrays expected={expected} actual={actual} ({caught.value})"
