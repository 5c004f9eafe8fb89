"""Untrusted text made visible: what a terminal or a page would otherwise obey or hide.

Text from a case file or a server is data. Before it reaches a terminal its control characters
are shown as escapes (an ANSI ``ESC [2J`` would clear the learner's screen; a carriage return
would overwrite the line that says what was refused); before it reaches a page, the characters
that are not markup but change what a reader sees — bidirectional overrides and zero-width
characters — are shown as escapes too. HTML escaping itself is :func:`custody_lab.views.html.escape`.

One home for both, so the CLI, the audit, the live report and the untrusted-data blocks agree.
"""

from __future__ import annotations

__all__ = ["INVISIBLE", "shorten", "terminal_json", "visible", "visible_controls"]

import json
import unicodedata
from typing import Any

#: Characters that are not controls but reorder or hide text: the bidirectional embeddings,
#: overrides and isolates (Unicode UAX #9), zero-width space/joiners, word joiner, the byte-order
#: mark used inside text, and the soft hyphen.
INVISIBLE: frozenset[str] = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff\u00ad"
)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible_controls(text: object) -> str:
    """Text with every C0 and C1 control character (and DEL) written as an escape.

    Tabs and newlines are controls too (``\\x09``, ``\\x0a``): one server string is always one
    line of output, and a terminal column is not the server's to move.

    Example:
        >>> visible_controls("ok\\x1b[2Jgone\\r\\x9b")
        'ok\\\\x1b[2Jgone\\\\x0d\\\\x9b'
    """
    return "".join(_escape(ch) if unicodedata.category(ch) == "Cc" else ch for ch in str(text))


def visible(text: object) -> str:
    """Text with control characters, bidi overrides and zero-width characters written as escapes.

    Use it for anything a person reads that came from a case file or a server (a terminal line, an
    untrusted-data block); it never changes letters, digits, punctuation or ordinary spaces.

    Example:
        >>> visible("admin\\u202egnp.exe\\u200b")
        'admin\\\\u202egnp.exe\\\\u200b'
        >>> visible("Käse — ok")
        'Käse — ok'
    """
    return "".join(_escape(ch) if ch in INVISIBLE or unicodedata.category(ch) == "Cc" else ch for ch in str(text))


_JSON_UNSAFE = {
    code: f"\\u{code:04x}" for code in [*range(0x7F, 0xA0), *(ord(ch) for ch in INVISIBLE if ord(ch) <= 0xFFFF)]
}


def terminal_json(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON (one line with ``indent=None``), every C0/C1 control and bidi/zero-width escaped.

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 controls but leaves DEL, the C1 controls
    (``\\x9b`` is a terminal's one-byte CSI) and bidi overrides raw; here they become ``\\u`` escapes,
    so the output is the same JSON value and is safe to print.

    Example:
        >>> print(terminal_json({"name": "a\\x1b[2J\\x9b\\u202e"}))
        {
          "name": "a\\u001b[2J\\u009b\\u202e"
        }
    """
    return json.dumps(value, indent=indent, ensure_ascii=False).translate(_JSON_UNSAFE)


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
