"""Blob exercises (notebooks 04 and 05): sizes, types, encoding, and link vs embed.

Rising in difficulty:

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
blob-01   1      decode the logo's blob and report its byte length
blob-02   2      name the real MIME type of an item whose declared type is wrong
blob-03   2      encode bytes for a ``blob`` field
blob-04   3      predict a blob's length in characters before encoding
blob-05   3      pick link or embed for a large report the model reuses
blob-06   4      fix the URI in a resource link (seed 001's same-URI invariant)
========  =====  ===================================================================

Every mistake detector guards the answer's type itself (an answer may be anything); the gate in
``tests/test_exercises.py`` proves it.
"""

from __future__ import annotations

__all__: list[str] = []

import base64
import functools
from typing import Any

from ...core.advisor import advise
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


BLOB_01 = Exercise(
    id="blob-01",
    title="How many bytes are in the logo?",
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
        Mistake(
            "number-as-text",
            lambda a: (t := ans.text(a)) is not None and t.isdigit(),
            "Give the number itself, not text: write it without quotes.",
            example="105",
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


BLOB_02 = Exercise(
    id="blob-02",
    title="What is this blob, really?",
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


BLOB_03 = Exercise(
    id="blob-03",
    title="Write a blob field",
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
            "added-a-line-break",
            lambda a: isinstance(a, str) and a != _encoded() and a.strip() == _encoded(),
            "The text is right but has extra whitespace, usually the newline that "
            "base64.encodebytes adds. A blob field holds the base64 alone.",
            example=base64.encodebytes(bytes.fromhex(_HEX)).decode("ascii"),
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


BLOB_04 = Exercise(
    id="blob-04",
    title="How long will the blob be?",
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


# --------------------------------------------------------------------------------------------
# blob-05: link or embed
# --------------------------------------------------------------------------------------------

_REPORT_NEED: dict[str, Any] = {
    "tool": "weekly_report",
    "uri": "report://synthetic/weekly-7",
    "mimeType": "text/html",
    "payload_bytes": 18000,
    "reuse": 5,
    "inline_budget": 4096,
}
_SHAPE_ALIASES = {
    "link": "resource-link",
    "resource-link": "resource-link",
    "embed": "embedded-resource",
    "embedded": "embedded-resource",
    "embedded-resource": "embedded-resource",
    "resource": "embedded-resource",  # the MCP content type of an embed is "resource"
    "structured": "structured-tool-result",
    "structured-content": "structured-tool-result",
    "structured-tool-result": "structured-tool-result",
    "listed-resource": "listed-resource",
    "templated-resource": "templated-resource",
}


def _shape(answer: object) -> str | None:
    text = ans.text(answer)
    if text is None:
        return None
    key = text.lower().replace("_", "-").replace(" ", "-")
    return _SHAPE_ALIASES.get(key, key)


def _report_shape() -> str | None:
    need = _REPORT_NEED
    return advise("model", "generate", payload_bytes=int(need["payload_bytes"]), reuse=int(need["reuse"])).shape


BLOB_05 = Exercise(
    id="blob-05",
    title="Link or embed the weekly report?",
    level=3,
    prompt=(
        "The model calls a `weekly_report` tool. The report is 18,000 bytes of HTML at "
        "`report://synthetic/weekly-7`, and the model will consult it 5 times in this session; "
        'the host\'s inline budget is 4,096 bytes (`input_for("blob-05")` has these facts). '
        'Which shape should the tool return? Answer with a shape name: `"resource-link"`, '
        '`"embedded-resource"` or `"structured-tool-result"`.'
    ),
    input_label="an 18,000-byte report reused 5 times, inline budget 4,096 bytes",
    wanted='a shape name such as "embedded-resource"',
    parse="text",
    given=lambda: dict(_REPORT_NEED),
    reference=_report_shape,
    compare=lambda a, e: _shape(a) == e,
    mistakes=(
        Mistake(
            "embedded-a-large-reused-report",
            lambda a: _shape(a) == "embedded-resource",
            "An embed puts all 18,000 bytes into context on every one of the 5 calls (about "
            "90,000 bytes), and each one is over the 4,096-byte budget. Large or reused content "
            "is the case where the client should fetch once and cache.",
            example="embedded-resource",
        ),
        Mistake(
            "structured-for-a-document",
            lambda a: _shape(a) == "structured-tool-result",
            "Structured content is for fields that code must validate (a score, a status). This "
            "is a document the model reads, with an address of its own.",
            example="structured-tool-result",
        ),
        Mistake(
            "a-resource-not-a-tool-result",
            lambda a: _shape(a) in ("listed-resource", "templated-resource"),
            "The model called a tool, so the report comes back inside a tool result: its shape "
            "is one of the tool-result shapes (link, embed, structured), not a resource the "
            "application lists.",
            example="listed-resource",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# blob-06: the same-URI invariant
# --------------------------------------------------------------------------------------------

_BAD_LINK = {
    "type": "resource_link",
    "uri": "report://weekly-7",
    "name": "weekly-report-7",
    "mimeType": "text/html",
}


BLOB_06 = Exercise(
    id="blob-06",
    title="Fix the link's URI",
    level=4,
    prompt=(
        'A tool returned the `resource_link` in `input_for("blob-06")`, but the client never '
        "finds it in its cache and never hears about updates. Look the report up in the "
        "catalog (`Catalog.load().list_resources()`, what `resources/list` answers) and give the URI "
        "the link **must** carry."
    ),
    input_label="the resource_link block naming report://weekly-7",
    wanted="the URI string the link must carry",
    parse="text",
    given=lambda: dict(_BAD_LINK),
    reference=lambda: "report://synthetic/weekly-7",
    compare=ans.same_text,
    mistakes=(
        Mistake(
            "kept-the-unregistered-uri",
            lambda a: ans.text(a) == _BAD_LINK["uri"],
            "That is the URI the broken link already carries. Find the URI the report is "
            "registered under in the catalog.",
            example="report://weekly-7",
        ),
        Mistake(
            "changed-the-uri",
            lambda a: (
                (t := ans.text(a)) is not None
                and t.startswith("report://synthetic/weekly-7")
                and t != "report://synthetic/weekly-7"
            ),
            "A query or a fragment makes a different URI, and a client caches it separately. "
            "Use the registered URI exactly, character for character.",
            example="report://synthetic/weekly-7?download=1",
        ),
        Mistake(
            "gave-the-file-path",
            lambda a: (t := ans.text(a)) is not None and "weekly-report-7.html" in t,
            "That is where the lab happens to keep the bytes, not the identity the server "
            "registers. The link must carry the resource's URI.",
            example="data/resources/weekly-report-7.html",
        ),
    ),
)


#: This set's exercises, in lesson order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (BLOB_01, BLOB_02, BLOB_03, BLOB_04, BLOB_05, BLOB_06)
