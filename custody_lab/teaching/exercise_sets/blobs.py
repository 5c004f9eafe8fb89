"""Blob exercises (notebook 04): sizes, types and encoding.

Rising in difficulty:

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
blob-01   1      decode the logo's blob and report its byte length
blob-02   2      name the real MIME type of an item whose declared type is wrong
blob-03   2      encode bytes for a ``blob`` field
blob-04   3      predict a blob's length in characters before encoding
========  =====  ===================================================================

Choosing a link or an embed (notebook 05) is :mod:`custody_lab.teaching.exercise_sets.links`.
Every mistake detector guards the answer's type itself (an answer may be anything); the gate in
``tests/teaching/test_exercises.py`` proves it.
"""

from __future__ import annotations

__all__: list[str] = ["EXERCISES"]

import base64
import functools

from ...protocol import mime
from ...protocol.blobs import decode, encode, overhead, sniff_mime
from ...protocol.catalog import Catalog
from ..exercises import Exercise, Mistake
from . import _answers as ans


@functools.cache
def _catalog() -> Catalog:
    return Catalog.load()


# --------------------------------------------------------------------------------------------
# blob-01: decode a blob and report its byte length
# --------------------------------------------------------------------------------------------


def _logo_blob() -> str:
    return _catalog().read("assets://logo.png").item["blob"]


def _logo_size() -> int:
    return len(decode(_logo_blob()))


_BLOB_01 = Exercise(
    id="blob-01",
    title="How many bytes are in the logo?",
    why="base64 writes every 3 bytes as 4 characters: decode the blob first, then count the bytes, not the text",
    level=1,
    prompt=(
        '`input_for("blob-01")` is the `blob` field that `resources/read` returned for '
        "`assets://logo.png`: base64 text. How many **bytes** does it decode to? "
        "Use `decode` from `custody_lab.blobs`, then count."
    ),
    input_label="the blob of assets://logo.png",
    wanted="the number of bytes the blob decodes to (a whole number)",
    given=_logo_blob,
    reference=_logo_size,
    compare=ans.same_number,
    hints=(
        "The blob is text; the question is about the bytes that text stands for.",
        "decode() turns the base64 text into bytes; len() of those bytes is the answer.",
    ),
    mistakes=(
        Mistake(
            "counted-base64-characters",
            lambda a: ans.same_number(a, len(_logo_blob())),
            "That is the number of base64 characters, not bytes: base64 spends 4 characters on "
            "every 3 bytes. Decode the blob first, then take len() of the bytes.",
            example=140,
        ),
        Mistake(
            "gave-the-bytes",
            lambda a: isinstance(a, bytes | bytearray),
            "That is the decoded content itself. The question asks how many bytes it holds: wrap it in len(...).",
            example=b"\x89PNG\r\n\x1a\n",
        ),
        Mistake(
            "counted-bits",
            lambda a: ans.same_number(a, 8 * _logo_size()),
            "That counts bits. A byte is 8 bits; len() of a bytes object already counts bytes.",
            example=840,
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# blob-02: the MIME type from the first bytes
# --------------------------------------------------------------------------------------------


def _mislabelled_item() -> dict[str, str]:
    pdf = _catalog().read("assets://brochure.pdf").data
    return {"uri": "assets://scan-2026-08-31", "mimeType": "image/png", "blob": encode(pdf)}


def _real_type() -> str | None:
    return sniff_mime(decode(_mislabelled_item()["blob"]))


def _mime(answer: object) -> str | None:
    text = ans.text(answer)
    return None if text is None else mime.essence(text)


_BLOB_02 = Exercise(
    id="blob-02",
    title="What is this blob, really?",
    why=(
        "a declared mimeType is the server's claim; the first bytes of the decoded blob are a file signature,"
        " and they are the evidence"
    ),
    level=2,
    prompt=(
        '`input_for("blob-02")` is a contents item whose `mimeType` says `image/png`. '
        "Don't trust the label: decode the blob, look at its first bytes (`hex_preview` helps) "
        'and answer with the MIME type the bytes actually are, as a string like `"text/plain"`.'
    ),
    input_label="the contents item of assets://scan-2026-08-31 (declared image/png)",
    wanted='a MIME type string such as "text/plain"',
    parse="text",
    given=_mislabelled_item,
    reference=_real_type,
    compare=lambda a, e: _mime(a) == e,
    hints=(
        "Ignore the declared mimeType and look at the first few decoded bytes: many formats start with a"
        " fixed signature.",
        "These bytes start with '%PDF'; name the registered MIME type of that format, written type/subtype.",
    ),
    mistakes=(
        Mistake(
            "trusted-the-declared-type",
            lambda a: _mime(a) == "image/png",
            "That is what the item declares, not what the bytes are. A PNG starts with "
            "89 50 4E 47 ('\\x89PNG'); look at what these bytes start with instead.",
            example="image/png",
        ),
        Mistake(
            "gave-the-signature",
            lambda a: isinstance(a, bytes | bytearray),
            "You found the signature bytes; now name the type they stand for, as a MIME type string (type/subtype).",
            example=b"%PDF-1.4",
        ),
        Mistake(
            "not-a-mime-type",
            lambda a: (m := _mime(a)) is not None and "/" not in m,
            "Right idea, but give a MIME type, written type/subtype (like image/png), not a "
            "file extension or a format name.",
            example="PDF",
        ),
        Mistake(
            "wrong-top-level-type",
            lambda a: (m := _mime(a)) is not None and m.endswith("/pdf"),
            "The subtype is right, the top-level type is not: a PDF is neither an image nor "
            "plain text, and its registered type lives under application/.",
            example="image/pdf",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# blob-03: encode bytes for a blob field
# --------------------------------------------------------------------------------------------

_HEX = "3e 3f bf ff 10"


def _raw_bytes() -> bytes:
    return bytes.fromhex(_HEX)


def _encoded() -> str:
    return encode(_raw_bytes())


def _hex_text_encodings() -> set[str]:
    forms = {_HEX, _HEX.replace(" ", ""), _HEX.upper(), _HEX.replace(" ", "").upper()}
    return {base64.b64encode(f.encode("ascii")).decode("ascii") for f in forms}


def _url_safe(answer: object) -> bool:
    text = ans.text(answer)
    if text is None or not ("-" in text or "_" in text):
        return False
    return text.translate(str.maketrans("-_", "+/")).rstrip("=") == _encoded().rstrip("=")


_BLOB_03 = Exercise(
    id="blob-03",
    title="Write a blob field",
    why=(
        "a blob is standard base64 (the + and / alphabet, = padding) of the raw bytes: five bytes make one "
        "full group of three and one padded group"
    ),
    level=2,
    prompt=(
        'A server must return five bytes, `3e 3f bf ff 10` in hex (`input_for("blob-03")` gives '
        "them as a `bytes` value), in the `blob` field of a contents item. Write the exact "
        "string that goes into that field."
    ),
    input_label="the bytes 3e 3f bf ff 10",
    wanted="the base64 text (a str) for those bytes",
    parse="text",
    given=_raw_bytes,
    reference=_encoded,
    compare=lambda a, e: isinstance(a, str) and a == e,
    hints=(
        "Turn the hex into the five bytes first, then encode those bytes with standard base64.",
        "bytes.fromhex('3e3fbfff10') gives the bytes; encode() from custody_lab.blobs (or "
        "base64.b64encode(...).decode('ascii')) gives the text, padding included.",
    ),
    mistakes=(
        Mistake(
            "url-safe-alphabet",
            _url_safe,
            "That is the URL-safe alphabet ('-' and '_'). MCP blobs use standard base64, with "
            "'+' and '/': use base64.b64encode or custody_lab.blobs.encode, not "
            "urlsafe_b64encode.",
            example=base64.urlsafe_b64encode(bytes.fromhex(_HEX)).decode("ascii"),
        ),
        Mistake(
            "missing-padding",
            lambda a: ans.text(a) == _encoded().rstrip("=") != _encoded(),
            "Almost: the padding is missing. Base64 text comes in groups of 4 characters and the "
            "last group is filled up with '='; a strict decoder refuses the text without it.",
            example=base64.b64encode(bytes.fromhex(_HEX)).decode("ascii").rstrip("="),
        ),
        Mistake(
            "returned-bytes",
            lambda a: isinstance(a, bytes | bytearray) and bytes(a).strip() == _encoded().encode(),
            "base64.b64encode returns bytes; a JSON blob field holds text. Add .decode('ascii').",
            example=base64.b64encode(bytes.fromhex(_HEX)),
        ),
        Mistake(
            "encoded-the-hex-text",
            lambda a: ans.text(a) in _hex_text_encodings(),
            "That encodes the hex *text* ('3e3f...' as characters), not the five bytes it "
            "describes. Turn the hex into bytes first (bytes.fromhex), then encode those.",
            example=base64.b64encode(_HEX.replace(" ", "").encode("ascii")).decode("ascii"),
        ),
        Mistake(
            "encoded-twice",
            lambda a: ans.text(a) == base64.b64encode(_encoded().encode("ascii")).decode("ascii"),
            "That is base64 of the base64: the bytes were encoded twice. Encode the raw bytes once.",
            example=base64.b64encode(base64.b64encode(bytes.fromhex(_HEX))).decode("ascii"),
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# blob-04: predict the length of a blob
# --------------------------------------------------------------------------------------------

_THUMBNAIL_BYTES = 2500


_BLOB_04 = Exercise(
    id="blob-04",
    title="How long will the blob be?",
    why=(
        "base64 writes each started group of 3 bytes as 4 characters, so 2,500 bytes make 834 groups, the "
        "last one padded"
    ),
    level=3,
    prompt=(
        "A tool will embed a 2,500-byte JPEG thumbnail as a `blob`. Before encoding anything, "
        'how many **characters** will the blob field hold? (`input_for("blob-04")` is the byte '
        "count.) Work it out from how base64 groups bytes, then check it with `overhead`."
    ),
    input_label="a 2,500-byte thumbnail sent as a blob",
    wanted="the number of base64 characters (a whole number)",
    given=lambda: _THUMBNAIL_BYTES,
    reference=lambda: overhead(_THUMBNAIL_BYTES),
    compare=ans.same_number,
    hints=(
        "Base64 turns every group of 3 bytes into 4 characters, and a last short group is padded to 4 characters too.",
        "Count the 3-byte groups in 2,500 bytes, rounding up, then multiply by 4.",
    ),
    mistakes=(
        Mistake(
            "no-growth",
            lambda a: ans.same_number(a, _THUMBNAIL_BYTES),
            "Base64 is larger than the bytes it carries: every 3 bytes become 4 characters.",
            example=2500,
        ),
        Mistake(
            "ratio-upside-down",
            lambda a: (v := ans.number(a)) is not None and abs(v - _THUMBNAIL_BYTES * 3 / 4) <= 1,
            "That is 3/4 of the byte count; the ratio goes the other way, 4 characters for every 3 bytes.",
            example=1875,
        ),
        Mistake(
            "forgot-the-padding",
            lambda a: (
                (v := ans.number(a)) is not None
                and abs(v - _THUMBNAIL_BYTES * 4 / 3) <= 1
                and v != overhead(_THUMBNAIL_BYTES)
            ),
            "Close. Base64 writes whole groups of 4 characters: count the 3-byte groups rounding "
            "UP (the last group is short and padded with '='), then multiply by 4.",
            example=3334,
        ),
    ),
)


#: This set's exercises, in lesson order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_BLOB_01, _BLOB_02, _BLOB_03, _BLOB_04)
