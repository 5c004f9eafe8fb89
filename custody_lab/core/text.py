"""Untrusted text made visible: what a terminal or a page would otherwise obey or hide.

Text from a case file or a server is data. Before it reaches a terminal its control characters
are shown as escapes (an ANSI ``ESC [2J`` would clear the learner's screen; a carriage return
would overwrite the line that says what was refused); before it reaches a page, the characters
that are not markup but change what a reader sees — bidirectional overrides, zero-width and tag
characters, the line and paragraph separators U+2028/U+2029 — are shown as escapes too. HTML
escaping itself is :func:`custody_lab.views.html.escape`.

One home for both, so the CLI, the audit, the live report and the untrusted-data blocks agree.
"""

from __future__ import annotations

__all__ = [
    "BLANK_RANGES",
    "INVISIBLE",
    "hidden_characters",
    "is_hidden",
    "shorten",
    "terminal_json",
    "visible",
    "visible_controls",
    "visible_format",
]

import json
import re
import unicodedata
from typing import Any

#: Characters that are not controls but reorder, split or hide text: the bidirectional marks,
#: embeddings, overrides and isolates (Unicode UAX #9); zero-width space/joiners, word joiner and the
#: invisible operators; the byte-order mark used inside text; the soft hyphen; the line and
#: paragraph separators U+2028/U+2029 (a terminal, an editor or JavaScript breaks the line there, so
#: one id would print as two lines); the Mongolian vowel separator, the deprecated format characters
#: U+206A–U+206F and the interlinear annotation marks; and the whole Unicode tag block
#: U+E0000–U+E007F, whose characters render as nothing yet spell ASCII to a reader that decodes them
#: (``\U000e003c`` is a tag ``<``). :func:`visible` also escapes any other character of the
#: general categories Cf, Zl and Zp that this Python's Unicode database knows, so a format
#: character added in a newer Unicode version is shown too.
INVISIBLE: frozenset[str] = frozenset(
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f"
    "\ufeff\ufff9\ufffa\ufffb"
) | frozenset(map(chr, range(0xE0000, 0xE0080)))

#: The general categories whose characters are shown as escapes: controls (Cc), format characters
#: (Cf), the line separator (Zl), the paragraph separator (Zp), and lone surrogates (Cs: JSON's
#: ``"\ud800"`` parses to one, and printing it raises UnicodeEncodeError instead of showing it).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
#: Every character that may need an escape (all printable ASCII and the ordinary space never do).
_CANDIDATE = re.compile(r"[^\x20-\x7e]")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _is_hidden(ch: str) -> bool:
    """Whether ``ch`` is a control, or a character that reorders, splits or hides text."""
    return ch in INVISIBLE or unicodedata.category(ch) in _HIDDEN_CATEGORIES


#: Code points that show nothing and are not white space: Unicode's default-ignorable code points
#: (``DerivedCoreProperties.txt``, ``Default_Ignorable_Code_Point``: the soft hyphen, the combining
#: grapheme joiner, zero-width characters, bidi controls, variation selectors, tag characters...)
#: and the blanks Unicode files as letters or symbols (the Hangul fillers U+115F, U+1160, U+3164,
#: U+FFA0, and the braille blank U+2800), which a word count would otherwise read as words.
BLANK_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def is_hidden(ch: str) -> bool:
    """Whether a reader cannot see ``ch``: a control other than newline and tab, a format,
    private-use or unassigned code point, or one of :data:`BLANK_RANGES`.

    Example:
        >>> is_hidden("\\u3164"), is_hidden("\\u200b"), is_hidden(" "), is_hidden("a")
        (True, True, False, False)
    """
    if ch in "\n\t":
        return False
    code = ord(ch)
    if ch in INVISIBLE or any(low <= code <= high for low, high in BLANK_RANGES):
        return True
    return unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cn")


def hidden_characters(text: str) -> list[str]:
    """The characters of ``text`` a reader cannot see (:func:`is_hidden`: controls other than
    newline and tab, zero-width spaces, bidi controls, Hangul fillers...), each as its escape.

    Example:
        >>> hidden_characters("admins\\u200b only"), hidden_characters("two\\nlines")
        (['\\\\u200b'], [])
    """
    return sorted({_escape(ch) for ch in text if is_hidden(ch)})


def _is_control_or_break(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def visible_controls(text: object) -> str:
    """Text with every C0 and C1 control character (and DEL), and the line and paragraph separators
    U+2028/U+2029, written as an escape.

    Tabs and newlines are controls too (``\\x09``, ``\\x0a``): one server string is always one
    line of output, and a terminal column is not the server's to move.

    Example:
        >>> visible_controls("ok\\x1b[2Jgone\\r\\x9b\\u2028")
        'ok\\\\x1b[2Jgone\\\\x0d\\\\x9b\\\\u2028'
    """
    return _CANDIDATE.sub(lambda m: _escape(m[0]) if _is_control_or_break(m[0]) else m[0], str(text))


def visible(text: object) -> str:
    """Text with control characters, bidi controls, zero-width, tag and other format characters, and
    the line/paragraph separators written as escapes.

    Use it for anything a person reads that came from a case file or a server (a terminal line, an
    untrusted-data block); it never changes letters, digits, punctuation or ordinary spaces.

    Example:
        >>> visible("admin\\u202egnp.exe\\u200b")
        'admin\\\\u202egnp.exe\\\\u200b'
        >>> visible("id-1\\u2028forged line"), visible("ok\\U000e003c")
        ('id-1\\\\u2028forged line', 'ok\\\\U000e003c')
        >>> visible("Käse — ok")
        'Käse — ok'
    """
    return _CANDIDATE.sub(lambda m: _escape(m[0]) if _is_hidden(m[0]) else m[0], str(text))


def visible_format(text: object) -> str:
    """Text with every character :func:`visible` escapes written as an escape, except the controls.

    For text that keeps its layout (a page's own line breaks and tabs) but must not hide or reorder
    anything: bidi controls, zero-width, tag and other format characters, U+2028/U+2029.

    Example:
        >>> visible_format("a\\tb\\u202ec\\u2028d")
        'a\\tb\\\\u202ec\\\\u2028d'
    """
    return _CANDIDATE.sub(
        lambda m: _escape(m[0]) if _is_hidden(m[0]) and unicodedata.category(m[0]) != "Cc" else m[0], str(text)
    )


#: What JSON text may still hold raw after ``json.dumps(..., ensure_ascii=False)``: DEL, the C1
#: controls and every character :func:`visible` escapes (JSON escapes C0 itself).
_JSON_CANDIDATE = re.compile(r"[^\x00-\x7e]")


def _json_escape(match: re.Match[str]) -> str:
    ch = match[0]
    if not _is_hidden(ch):
        return ch
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character beyond U+FFFF as its UTF-16 surrogate pair (RFC 8259 §7)
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def terminal_json(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON (one line with ``indent=None``), every character :func:`visible` escapes escaped.

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 controls but leaves DEL, the C1 controls
    (``\\x9b`` is a terminal's one-byte CSI), bidi overrides, U+2028/U+2029 and tag characters raw;
    here they become ``\\u`` escapes (a surrogate pair beyond U+FFFF), so the output is the same JSON
    value and is safe to print.

    Example:
        >>> print(terminal_json({"name": "a\\x1b[2J\\x9b\\u202e\\u2028\\U000e0041"}))
        {
          "name": "a\\u001b[2J\\u009b\\u202e\\u2028\\udb40\\udc41"
        }
    """
    return _JSON_CANDIDATE.sub(_json_escape, json.dumps(value, indent=indent, ensure_ascii=False))


def shorten(value: object, limit: int = 160) -> object:
    """Long strings cut visibly (``…[+N chars]``), in nested dicts and lists too; nothing else changes.

    Example:
        >>> shorten({"text": "abcdefgh", "n": [1, "ok"]}, limit=3)
        {'text': 'abc…[+5 chars]', 'n': [1, 'ok']}
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}…[+{len(value) - limit} chars]"
    if isinstance(value, dict):
        return {k: shorten(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [shorten(v, limit) for v in value]
    return value
