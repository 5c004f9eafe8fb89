"""Edges of custody_lab.protocol.blobs.sniffing: linear markup sniffing and the JSON nesting limit."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from custody_lab.blobs import BlobError, encode, read_contents, sniff_mime
from custody_lab.protocol.blobs.sniffing import (
    MAX_JSON_DEPTH,
    SNIFF_HEAD_CHARS,
    _markup_type,
    _parsed_deeper_than,
    json_verdict,
    judge,
    nests_deeper_than,
)

from ...timing import scaled

SVG = '<svg xmlns="http://www.w3.org/2000/svg"/>'

# ------------------------------------------------------------ markup sniffing

MARKUP_TABLE = [
    ("doctype with an internal subset holding ']'", '<!DOCTYPE svg [ <!ENTITY x "]"> ]>' + SVG, "image/svg+xml"),
    ("lower-case doctype", "<!doctype svg>\n" + SVG, "image/svg+xml"),
    ("doctype keyword glued to a name is not a doctype", "<!DOCTYPEsvg>" + SVG, "text/plain"),
    ("unclosed doctype", "<!DOCTYPE svg " + SVG, "text/plain"),
    ("unclosed internal subset", "<!DOCTYPE svg [ " + SVG, "text/plain"),
    ("unclosed comment before the root", "<!-- note " + SVG, "text/plain"),
    ("unclosed processing instruction", "<?xml version='1.0' " + SVG, "application/xml"),
    ("two comments and a PI", "<!--a--> <?pi x?>\n<!--b-->" + SVG, "image/svg+xml"),
    ("svg root needs a delimiter", "<svgx/>", "text/plain"),
    (
        "prolog then a root past the sniffed head",
        "<?xml version='1.0'?><!--" + "x" * SNIFF_HEAD_CHARS + "-->" + SVG,
        "application/xml",
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), MARKUP_TABLE, ids=[row[0] for row in MARKUP_TABLE])
def test_markup_sniffing_looks_past_prologs_comments_and_doctypes_within_the_head(
    label: str, text: str, expected: str
) -> None:
    actual = sniff_mime(text.encode())
    assert actual == expected, f"{label}: input={text[:60]!r} expected={expected} actual={actual}"


# The regular expression the sniffer used before it became linear: the oracle for small inputs.
_OLD_MISC = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE\b[^>\[]*(?:\[.*?\])?\s*>)", re.DOTALL | re.IGNORECASE)
_OLD_SVG_ROOT = re.compile(r"\s*<svg[\s>/]")


def _old_markup_type(text: str) -> str | None:
    head = text.lstrip("\ufeff")
    saw_prolog = head.lstrip().startswith("<?xml")
    position = 0
    while (found := _OLD_MISC.match(head, position)) is not None and found.end() > position:
        position = found.end()
    if _OLD_SVG_ROOT.match(head, position):
        return "image/svg+xml"
    return "application/xml" if saw_prolog else None


MARKUP_PIECES = [
    "<?xml",
    "<?",
    "?>",
    "<!--",
    "-->",
    "<!DOCTYPE",
    "<!doctype",
    "<!DOCTYPEx",
    " ",
    "\n",
    "[",
    "]",
    ">",
    "<svg",
    "<svg>",
    "<svg/>",
    "x",
    '"',
    "-",
    "\ufeff",
]


@pytest.mark.slow  # a long property run (400 examples)
@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(MARKUP_PIECES), max_size=14).map("".join))
@example("<!DOCTYPE x[]x]><svg>")  # the subset ends at the first "]" that a ">" follows
@example("<!DOCTYPEx><svg>")
@example("\ufeff <?xml?> <!-- -- --> <!doctype [ ] > <svg/>")
def test_the_linear_markup_scan_decides_like_the_old_regular_expression(text: str) -> None:
    expected, actual = _old_markup_type(text), _markup_type(text)
    assert actual == expected, f"input={text!r} expected={expected} actual={actual}"


#: Each head as the Python expression that builds it (the subprocess builds them itself).
ADVERSARIAL_HEADS = {
    "doctype of spaces": 'b"<!DOCTYPE" + b" " * (1 << 20)',
    "doctype subset of spaces": 'b"<!DOCTYPE x [" + b"] " * (1 << 19)',
    "prolog never closed": 'b"<?xml" + b"?" * (1 << 20)',
    "comments back to back": 'b"<!---->" * (1 << 17)',
    "json opening brackets": 'b"{" + b"[" * (1 << 20)',
    "json closing brackets": 'b"[" * 300 + b"]" * (1 << 20)',
    "escaped quotes in a string": "b'[\"' + b'\\\\\"' * (1 << 19)",
}


def test_sniffing_adversarial_one_mebibyte_heads_finishes_instead_of_hanging() -> None:
    # Before the scan became linear a 64 KiB "<!DOCTYPE" of spaces took seconds and 1 MiB would
    # take many minutes; the subprocess timeout turns such a hang into a failure.
    script = textwrap.dedent(
        f"""
        import json
        from custody_lab.blobs import sniff_mime
        heads = {ADVERSARIAL_HEADS!r}
        print(json.dumps({{name: sniff_mime(eval(expression)) for name, expression in heads.items()}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=scaled(120), check=False
    )
    assert done.returncode == 0, f"sniffing adversarial heads failed: {done.stderr[-2000:]}"
    actual = json.loads(done.stdout)
    expected = {
        name: "application/xml" if name == "prolog never closed" else "text/plain" for name in ADVERSARIAL_HEADS
    }
    assert actual == expected, f"expected={expected} actual={actual}"


# ------------------------------------------------------------ JSON nesting


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a', max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(0, 6))
def test_nesting_depth_counts_only_brackets_outside_strings(value: object, limit: int) -> None:
    text = json.dumps(value)
    expected, actual = _depth(value) > limit, nests_deeper_than(text, limit)
    assert actual == expected, f"input={text!r} limit={limit} depth={_depth(value)} expected={expected} actual={actual}"


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("[" * 3 + "]" * 3, 3, False),  # exactly at the limit
        ("[" * 4 + "]" * 4, 3, True),  # one past it
        ("[[]," * 10 + "]" * 10, 3, True),  # depth builds up across siblings' leftovers
        ("[[],[],[],[],[]]", 2, False),  # many brackets, shallow
        ('["\\"[[[[["]', 1, False),  # an escaped quote does not end the string
        ('{"a": "[[[[[[', 1, False),  # an unclosed string swallows the rest
        ('{"a": [{"b": [[]]}]}', 4, True),
    ],
)
def test_nesting_depth_at_and_around_the_limit(text: str, limit: int, expected: bool) -> None:
    actual = nests_deeper_than(text, limit)
    assert actual == expected, f"input={text!r} limit={limit} expected={expected} actual={actual}"


@settings(max_examples=150, deadline=None)
@given(json_values, st.integers(0, 12), st.booleans())
def test_the_depth_of_parsed_json_counts_only_brackets_outside_strings(value: object, limit: int, ascii: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii)
    expected, actual = _depth(value) > limit, _parsed_deeper_than(text.encode("utf-8", "surrogatepass"), limit)
    assert actual == expected, f"input={text!r} limit={limit} depth={_depth(value)} expected={expected} actual={actual}"


@pytest.mark.parametrize("depth", [7, 8, 9, 10, 11, 12, 40])
@pytest.mark.parametrize("strings", ["", '"]]", "x\\\\", "[\\"', "é{"])
def test_the_depth_of_parsed_json_on_each_side_of_the_passes(depth: int, strings: str) -> None:
    """Deeper than the passes that remove innermost pairs: the rest is summed; brackets, escaped
    quotes and backslashes inside strings are the strings' characters."""
    value: object = [strings, {"k": [strings]}]
    for _ in range(depth - 3):
        value = [strings, value, [strings]]
    text = json.dumps(value, ensure_ascii=False)
    for limit in (depth - 1, depth, depth + 1, 10):
        actual = _parsed_deeper_than(text.encode(), limit)
        assert actual == (depth > limit), f"input={text[:60]!r}... depth={depth} limit={limit} actual={actual}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": [' + "[]," * 300 + "[]]}", (False, True)),  # many brackets, an object that parses
        ("[" + "{}," * 300 + '"[[["]', (False, True)),
        ('"' + "[" * 300 + '"', (False, False)),  # a string is not a container
        ('{"a": ' + "[" * 300 + "]" * 300 + "}", (True, False)),
        ('{"a": [' + "[]," * 300 + "[]]", (False, False)),  # does not parse
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), (True, False)),
        ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, (False, True)),
    ],
)
def test_json_verdict_with_many_brackets(text: str, expected: tuple[bool, bool]) -> None:
    actual = json_verdict(text)
    assert actual == expected, f"input={text[:40]!r}... expected={expected} actual={actual}"


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_json_exactly_at_the_depth_limit_is_read_and_sniffed_as_json() -> None:
    reading = read_contents({"uri": "mem://ok", "mimeType": "application/json", "text": _nested(MAX_JSON_DEPTH)})
    actual = (reading.sniffed_mime, reading.mime_mismatch, reading.mismatch_reason)
    expected = ("application/json", False, None)
    assert actual == expected, f"input={MAX_JSON_DEPTH} nested arrays expected={expected} actual={actual}"


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 100_000])
@pytest.mark.parametrize("field", ["text", "blob"])
def test_json_one_level_past_the_limit_is_refused_with_a_blob_error_naming_the_field(depth: int, field: str) -> None:
    text = " \n" + _nested(depth)
    item = {"uri": "mem://deep", field: text if field == "text" else encode(text.encode())}
    with pytest.raises(BlobError) as caught:
        read_contents(item)
    message = str(caught.value)
    actual = (caught.value.reason, f"field {field!r}" in message, f"more than {MAX_JSON_DEPTH} levels" in message)
    expected = ("too-deep", True, True)
    assert actual == expected, f"{field} nested {depth} deep: expected={expected} actual={actual} ({message})"


def test_deep_brackets_in_text_that_does_not_open_like_json_are_read_as_text() -> None:
    text = "notes: " + _nested(MAX_JSON_DEPTH + 10)
    reading = read_contents({"uri": "mem://notes", "mimeType": "text/plain", "text": text})
    actual = (reading.sniffed_mime, reading.mime_mismatch)
    assert actual == ("text/plain", False), f"input={text[:20]!r}... expected=('text/plain', False) actual={actual}"


def test_judging_deep_json_directly_says_it_cannot_confirm_the_type() -> None:
    text = _nested(MAX_JSON_DEPTH + 1)
    actual = judge("application/json", sniff_mime(text.encode()), text.encode(), text)
    expected = (False, f"cannot confirm application/json: the text nests more than {MAX_JSON_DEPTH} levels deep")
    assert actual == expected, f"input={MAX_JSON_DEPTH + 1} nested arrays expected={expected} actual={actual}"


@pytest.mark.parametrize(
    ("text", "sniffed"),
    [
        ("[" * 256 + "]" * 256, "application/json"),  # as deep as allowed
        ("[" * 255 + "[]," * 9 + "[]" + "]" * 255, "application/json"),  # the same, with more brackets
        ('{"a":' * 256 + "1" + "}" * 256, "application/json"),
        ("[" + '"[[[[",' * 300 + "[[1]]]", "application/json"),  # brackets in strings are words
        ("[" + "[1]," * 300 + "[]]", "application/json"),  # many brackets, two levels
        ("[" + "[1]," * 300 + "[]", "text/plain"),  # the same, unclosed: it does not parse
    ],
)
def test_json_with_many_brackets_is_judged_by_its_depth_as_parsed(text, sniffed):
    assert sniff_mime(text.encode()) == sniffed
    assert read_contents({"uri": "x://doc", "text": text}).sniffed_mime == sniffed


@pytest.mark.parametrize(
    "text",
    [
        "[" * 257 + "]" * 257,  # parses, one level too deep
        "[" * 256 + "[]," * 9 + "[]" + "]" * 256,
        '{"a":' * 257 + "1" + "}" * 257,
        "[" * 300 + "1",  # does not parse: the scan finds it
        "[" + '"]]]",' * 300 + "[" * 257,  # closing brackets in strings do not undo the depth
        "[" * 100_000 + "]" * 100_000,  # past the parser's own limit
    ],
)
def test_json_nested_too_deep_is_text_to_the_sniffer_and_refused_by_read_contents(text):
    assert sniff_mime(text.encode()) == "text/plain"
    with pytest.raises(BlobError) as err:
        read_contents({"uri": "x://doc", "blob": base64.b64encode(text.encode()).decode()})
    assert err.value.reason == "too-deep"
