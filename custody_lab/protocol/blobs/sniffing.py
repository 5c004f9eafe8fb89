"""Sniffing: what MIME type the bytes themselves look like, and whether they contradict a declared one.

Seed 000, "Preserve URI, MIME type, and provenance": the declared ``mimeType`` travels with the
content but is the server's claim, not a fact; :func:`sniff_mime` reads the bytes (binary
signatures first, then text: SVG, XML, JSON, plain text) and :func:`judge` compares the claim with
them. Whether a declared type is text at all is :func:`custody_lab.protocol.mime.is_text`.
"""

from __future__ import annotations

__all__ = [
    "CONTROL_LIMIT_PERCENT",
    "MAX_JSON_DEPTH",
    "SNIFF_HEAD_CHARS",
    "as_text",
    "json_verdict",
    "judge",
    "nests_deeper_than",
    "starts_like_json",
    "sniff_decoded",
    "sniff_mime",
]

import json
import re
from itertools import accumulate

from ..mime import essence, is_text
from .errors import BlobTypeError

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
#: Text may hold at most this percentage of control characters (other than tab, CR, LF); more
#: means binary that happens to be valid UTF-8.
CONTROL_LIMIT_PERCENT = 1
#: each byte mapped to 1 when it is a control character counted against text (every C0 control
#: but tab, LF and CR; and DEL), else to 0
_CONTROL_FLAGS = bytes(int(b < 0x20 and b not in (0x09, 0x0A, 0x0D) or b == 0x7F) for b in range(256))
#: Markup sniffing reads at most this many characters: a prolog, comments and a DOCTYPE longer
#: than that leave the bytes "text/plain" (or "application/xml" after an ``<?xml`` prolog).
SNIFF_HEAD_CHARS = 64 * 1024
#: JSON nested deeper than this is not parsed: sniffing calls it text, and
#: :func:`~custody_lab.protocol.blobs.contents.read_contents` refuses it (a hostile server can
#: nest 100,000 deep to exhaust a recursive parser; real documents stay far below 256 levels).
MAX_JSON_DEPTH = 256
# Every pattern below is linear: no two of its repeats can match the same character, so a
# failing match never backtracks over what it read (a 64 KiB ``<!DOCTYPE`` of spaces once took
# seconds with ``[^>\[]*`` followed by ``\s*``).
_SPACE = re.compile(r"\s*")
_DOCTYPE_NAME = re.compile(r"[^>\[]*")  # up to the '>' that ends it or the '[' of an internal subset
_SUBSET_END = re.compile(r"\]\s*>")
_SVG_ROOT = re.compile(r"<svg[\s>/]")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)  # an unclosed string runs to the end
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def as_text(data: bytes) -> str | None:
    """The bytes as text if they are UTF-8 with no NUL and few other control characters.

    "Few" is at most :data:`CONTROL_LIMIT_PERCENT` percent of the characters (tab, CR and LF do
    not count): 1 control character in 100 is still text, 2 in 100 are not.

    Example:
        >>> as_text(b"\\x01" + b"a" * 99) is not None, as_text(b"\\x01\\x02" + b"a" * 98), as_text(b"\\xff")
        (True, None, None)
    """
    raw = bytes(data)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if b"\x00" in raw:
        return None
    # Counted on the bytes, in C: in UTF-8 a C0 control or DEL is one byte of its own value, and
    # no byte of a longer character is below 0x80, so each such byte is one control character.
    controls = raw.translate(_CONTROL_FLAGS).count(1)
    if controls * 100 > CONTROL_LIMIT_PERCENT * len(text):
        return None
    return text


def _end_of(pattern: re.Pattern[str], text: str, position: int) -> int:
    """Where ``pattern`` (one that may match nothing) stops matching from ``position``."""
    found = pattern.match(text, position)
    return position if found is None else found.end()


def _after_misc(head: str, position: int) -> int | None:
    """Where one XML processing instruction, comment or DOCTYPE starting at ``position`` ends.

    ``None`` when none starts there or it is not closed within ``head``. Each branch finds its end
    with one forward search (XML 1.0 §2.6 PIs, §2.5 comments, §2.8 the DOCTYPE and its internal
    subset in ``[...]``).
    """
    if head.startswith("<?", position):
        end = head.find("?>", position + 2)
        return None if end < 0 else end + 2
    if head.startswith("<!--", position):
        end = head.find("-->", position + 4)
        return None if end < 0 else end + 3
    after_keyword = position + len("<!DOCTYPE")
    if head[position:after_keyword].upper() != "<!DOCTYPE":
        return None
    following = head[after_keyword : after_keyword + 1]
    if following.isalnum() or following == "_":  # "<!DOCTYPEX" is not a DOCTYPE
        return None
    stop = _end_of(_DOCTYPE_NAME, head, after_keyword)
    if stop == len(head):
        return None
    if head[stop] == ">":
        return stop + 1
    subset_end = _SUBSET_END.search(head, stop + 1)  # head[stop] is "[": the subset ends at "]" ... ">"
    return None if subset_end is None else subset_end.end()


def _markup_type(text: str) -> str | None:
    """image/svg+xml or application/xml for markup, looking past a prolog, comments and DOCTYPE.

    Reads at most :data:`SNIFF_HEAD_CHARS` characters, each of them once.
    """
    head = text[:SNIFF_HEAD_CHARS].lstrip("\ufeff")
    saw_prolog = head.lstrip().startswith("<?xml")
    position = 0
    while True:
        start = _end_of(_SPACE, head, position)
        end = _after_misc(head, start)
        if end is None:
            break
        position = end
    start = _end_of(_SPACE, head, position)
    if _SVG_ROOT.match(head, start):
        return "image/svg+xml"
    return "application/xml" if saw_prolog else None


def starts_like_json(text: str) -> bool:
    """Whether ``text`` opens a JSON object or array (after a BOM and JSON whitespace)."""
    return text.lstrip("\ufeff \t\r\n").startswith(("{", "["))


def nests_deeper_than(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON ``text`` nests arrays and objects more than ``limit`` levels deep.

    Brackets inside strings do not count. One pass, without parsing, so it is safe on any input:
    linear time, no recursion (an unclosed string simply runs to the end).

    Example:
        >>> nests_deeper_than("[[1]]", 2), nests_deeper_than("[[[1]]]", 2), nests_deeper_than('["[[["]', 1)
        (False, True, False)
    """
    if text.count("[") + text.count("{") <= limit:  # the usual case: too few brackets to be deep
        return False
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return next(filter(limit.__lt__, accumulate(map(_STEP.__getitem__, brackets))), None) is not None


def json_verdict(text: str) -> tuple[bool, bool]:
    """For text that starts like JSON: whether it nests more than :data:`MAX_JSON_DEPTH` levels
    (as :func:`nests_deeper_than` says), and whether it is an object or array that parses and
    nests no deeper (a JSON container).

    Few brackets: :func:`nests_deeper_than` answers at once and a shallow text is parsed. Many: the
    text is parsed first (CPython's ``json``, each object reduced to its size: whether it parses
    is all that is asked), and the depth of a text that parses is read from its brackets outside
    strings (:func:`_parsed_deeper_than`, a few C passes); text that does not parse is scanned. The
    parser raises ``RecursionError`` before its stack runs out (that text is scanned too).

    Example:
        >>> json_verdict("[[1]]"), json_verdict("[" * 300), json_verdict("[" * 300 + "]" * 300)
        ((False, True), (True, False), (True, False))
        >>> json_verdict('{"a": "]]' + "[" * 300 + '"}'), json_verdict('"[' + "[" * 300 + '"')
        ((False, True), (False, False))
    """
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # too few brackets to be deep
        return False, _parses_as_container(text)
    stripped = text.lstrip("\ufeff \t\r\n")
    try:
        value = json.loads(stripped, object_pairs_hook=len)
    except RecursionError:  # deeper than the interpreter lets the parser go: scanned instead
        return nests_deeper_than(text), False
    except ValueError:
        return nests_deeper_than(text), False
    deep = _parsed_deeper_than(text.encode("utf-8", "surrogatepass"), MAX_JSON_DEPTH)
    return deep, not deep and (isinstance(value, list) or stripped.startswith("{"))


def _parses_as_container(text: str) -> bool:
    stripped = text.lstrip("\ufeff \t\r\n")
    try:
        value = json.loads(stripped, object_pairs_hook=len)  # an object parses to its size
    except ValueError:
        return False
    return isinstance(value, list) or stripped.startswith("{")


#: Brackets become "(" and ")"; all but quotes and brackets are deleted first.
_NEST = bytes.maketrans(b"[{]}", b"(())")
_NOT_NEST = bytes(b for b in range(256) if b not in b'[{]}"')
_NEST_STEP = {ord("("): 1, ord(")"): -1}
#: Innermost pairs removed by whole-string passes before the rest is summed bracket by bracket.
_PASSES = 8


def _parsed_deeper_than(raw: bytes, limit: int) -> bool:
    """Whether the UTF-8 of a text that parsed as JSON nests more than ``limit`` levels.

    In valid JSON a backslash only starts an escape inside a string, so removing each ``\\\\``
    and then each ``\\"`` leaves exactly the quotes that delimit strings: a bracket is outside
    every string when an even number of them come before it, and its brackets are the values'
    nesting. Of the quotes and brackets alone, two adjacent quotes are removed at once (the
    count before every other one changes by two, so none changes sides), and only strings that
    hold a bracket are left to split on their quotes. Each pass that removes
    every innermost ``()`` lowers the deepest level by exactly one, so a document a few levels
    deep is decided by a few passes; what is left after :data:`_PASSES` is summed bracket by
    bracket. No byte of a multi-byte UTF-8 character is a quote, backslash or bracket.

    Example:
        >>> _parsed_deeper_than(b'[{"a": "[[[\\\\\\"[["}]', 2), _parsed_deeper_than(b"[[[[]]]]", 3)
        (False, True)
    """
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    nest = raw.translate(None, _NOT_NEST).replace(b'""', b"")
    if b'"' in nest:
        nest = b"".join(nest.split(b'"')[::2])
    nest = nest.translate(_NEST)
    passes = min(_PASSES, limit)
    for _ in range(passes):
        if not nest:
            return False
        nest = nest.replace(b"()", b"")
    rest = limit - passes  # the levels left above the passes' reach
    return next(filter(rest.__lt__, accumulate(map(_NEST_STEP.__getitem__, nest))), None) is not None


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
    comments or a DOCTYPE, within the first :data:`SNIFF_HEAD_CHARS` characters), other XML
    (``<?xml`` prolog), JSON (an object or array that parses and nests at most
    :data:`MAX_JSON_DEPTH` levels), and finally ``text/plain`` (no NUL, at most
    :data:`CONTROL_LIMIT_PERCENT` percent control characters other than tab, CR, LF). Time is
    linear in the length of ``data``.

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
    return sniff_decoded(data, as_text(data))


def sniff_decoded(data: bytes, text: str | None, json_container: bool | None = None) -> str | None:
    """:func:`sniff_mime` of non-empty ``data`` whose :func:`as_text` is ``text``; a caller that
    already has :func:`json_verdict` of that text passes its ``container`` (else it is found).

    Example:
        >>> data = b'{"a": [1]}'
        >>> sniff_decoded(data, as_text(data)), sniff_decoded(data, as_text(data), json_verdict('{"a": [1]}')[1])
        ('application/json', 'application/json')
    """
    signature = _binary_signature(data)
    if signature is not None:
        return signature[0]
    if text is None:
        return None
    markup = _markup_type(text)
    if markup is not None:
        return markup
    if json_container is None:
        json_container = starts_like_json(text) and json_verdict(text)[1]
    if json_container:
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


def judge(declared: str | None, sniffed: str | None, data: bytes, text: str | None) -> tuple[bool, str | None]:
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
            if nests_deeper_than(text or ""):  # read_contents refuses these before judging
                return False, f"cannot confirm {declared}: the text nests more than {MAX_JSON_DEPTH} levels deep"
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
