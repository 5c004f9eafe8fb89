"""One answer to "is this MIME type text?" (custody_lab.protocol.mime) and its three callers."""

from __future__ import annotations

import pytest

from custody_lab.blobs import encode, read_contents
from custody_lab.protocol import mime
from custody_lab.protocol.catalog import transport_of

TEXT = [
    "text/plain",
    "text/markdown",
    "text/html",
    "Text/Plain; Charset=UTF-8",
    "TEXT/CSV",
    "  text/plain ; charset=utf-8",
    "application/json",
    "Application/JSON; charset=utf-8",
    "application/xml",
    "image/svg+xml",
    "IMAGE/SVG+XML",
    "application/ld+json",
    "application/vnd.api+json; ext=bulk",
    "application/atom+xml",
    "application/openapi+yaml",
    *sorted(mime.TEXT_APPLICATION_TYPES),
]
NOT_TEXT = [
    None,
    "",
    "   ",
    "text",
    "text/",
    "/plain",
    "image/png",
    "IMAGE/PNG",
    "application/pdf",
    "application/octet-stream",
    "application/zip",
    "application/epub+zip",
    "application/jsonx",
    "application/json-patch",
    "application/xml-dtd",
    "application/vnd.ms-excel",
    "audio/mpeg",
    "video/mp4",
    "font/woff2",
    "json",
]


@pytest.mark.parametrize("mime_type", TEXT)
def test_textual_types_are_text_in_any_case_and_with_parameters(mime_type: str) -> None:
    assert mime.is_text(mime_type), f"is_text({mime_type!r}): expected True, got False"


@pytest.mark.parametrize("mime_type", NOT_TEXT)
def test_binary_absent_and_malformed_types_are_not_text(mime_type: str | None) -> None:
    assert not mime.is_text(mime_type), f"is_text({mime_type!r}): expected False, got True"


@pytest.mark.parametrize(
    ("mime_type", "expected"),
    [
        ("Text/Plain; Charset=UTF-8", "text/plain"),
        ("IMAGE/PNG", "image/png"),
        (" application/json ;charset=utf-8", "application/json"),
        ("application/ld+json", "application/ld+json"),
        (None, ""),
        ("", ""),
    ],
)
def test_essence_drops_parameters_whitespace_and_case(mime_type: str | None, expected: str) -> None:
    actual = mime.essence(mime_type)
    assert actual == expected, f"essence({mime_type!r}): expected {expected!r}, got {actual!r}"


def test_every_listed_application_type_is_an_application_type_in_lower_case() -> None:
    listed = sorted(mime.TEXT_APPLICATION_TYPES)
    assert listed, "the list of textual application types is empty"
    odd = [t for t in listed if not t.startswith("application/") or t != t.lower()]
    assert not odd, f"listed types that are not lower-case application/*: {odd}"


# The three callers used to keep three lists that disagreed: the catalog's transport missed TOML,
# YAML's x- spelling and the JavaScript aliases; the agent context missed JavaScript and SQL, was
# case-sensitive and did not see a suffix followed by parameters. Each now asks mime.is_text.
@pytest.mark.parametrize(
    "mime_type",
    [
        "application/toml",
        "application/x-yaml",
        "application/ecmascript",
        "application/sql",
        "application/javascript",
        "Text/Markdown",
        "application/ld+json; charset=utf-8",
    ],
)
def test_catalog_transport_sends_every_textual_type_as_text(mime_type: str) -> None:
    actual = transport_of(mime_type, b"x = 1\n")
    assert actual == "text", f"transport_of({mime_type!r}, b'x = 1'): expected 'text', got {actual!r}"


@pytest.mark.parametrize("mime_type", ["IMAGE/PNG", "application/pdf", None])
def test_catalog_transport_sends_binary_and_undeclared_types_as_blob(mime_type: str | None) -> None:
    actual = transport_of(mime_type, b"x = 1\n")
    assert actual == "blob", f"transport_of({mime_type!r}, b'x = 1'): expected 'blob', got {actual!r}"


def test_catalog_transport_sends_invalid_utf8_of_a_textual_type_as_blob() -> None:
    actual = transport_of("text/plain", b"\xff\xfe")
    assert actual == "blob", f"transport_of('text/plain', b'\\xff\\xfe'): expected 'blob', got {actual!r}"


@pytest.mark.parametrize("mime_type", ["application/toml", "Application/TOML", "application/x-yaml"])
def test_read_contents_accepts_plain_text_declared_as_a_textual_application_type(mime_type: str) -> None:
    reading = read_contents({"uri": "file:///a", "mimeType": mime_type, "blob": encode(b"key = 'value'\n")})
    actual = (reading.mime_mismatch, reading.mismatch_reason)
    assert actual == (False, None), f"{mime_type} over plain text: expected (False, None), got {actual}"


@pytest.mark.parametrize("mime_type", ["application/toml", "Text/Plain; Charset=utf-8", "image/svg+xml"])
def test_read_contents_flags_binary_bytes_declared_as_a_textual_type(mime_type: str) -> None:
    reading = read_contents({"uri": "file:///a", "mimeType": mime_type, "blob": encode(bytes(range(1, 40)) * 3)})
    assert reading.mime_mismatch, (
        f"{mime_type} over control bytes: expected a mismatch, got {reading.mismatch_reason!r}"
    )
    assert "not text" in (reading.mismatch_reason or ""), (
        f"{mime_type}: reason should say 'not text', got {reading.mismatch_reason!r}"
    )
