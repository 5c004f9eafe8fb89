"""What "blank" means: the one definition every reader and every rule path reads.

A ``uri``, ``mime`` or ``provenance`` that is absent, empty or only whitespace names nothing (the
lab's host policy: seed 000, "Ship a context-custody receipt", "If the host cannot name ...
identity ..., stop there"); a CSV cell of only whitespace is an absent value; a row of blank cells
is no row. "Whitespace" is exactly the characters of :data:`WHITESPACE` — today Python's own
(``str.isspace``: Unicode's White_Space plus the four ASCII information separators U+001C-U+001F)
— and nothing else: a zero-width space (U+200B) is a character, not whitespace.

:func:`is_blank` decides one text; the router's ``ScalarOps.blank`` and the case-table reader call
it (or :func:`strip_blank`). The vectorised paths of the what-if layer never restate the rule:
they read the bounds below, derived from :data:`WHITESPACE`, to find the few values that *could*
be blank (a first character at or below :data:`ASCII_SPACE_MAX`, or at or above
:data:`WIDE_SPACE_MIN`; in UTF-8, a first byte at or above :data:`WIDE_SPACE_MIN_LEAD`), and
:func:`is_blank` decides each. Changing what counts as blank is one edit: :data:`WHITESPACE`.
"""

from __future__ import annotations

__all__ = ["ASCII_SPACE_MAX", "WHITESPACE", "WIDE_SPACE_MIN", "WIDE_SPACE_MIN_LEAD", "is_blank", "strip_blank"]

#: Every character that counts as whitespace, in code point order.
WHITESPACE = (
    "\t\n\x0b\x0c\r"  # TAB, LINE FEED, VERTICAL TAB, FORM FEED, CARRIAGE RETURN
    "\x1c\x1d\x1e\x1f"  # the information separators (FILE ... UNIT SEPARATOR), as str.isspace says
    " "  # SPACE
    "\x85\xa0"  # NEXT LINE, NO-BREAK SPACE
    "\u1680"  # OGHAM SPACE MARK
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"  # EN QUAD ... HAIR SPACE
    "\u2028\u2029"  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    "\u202f\u205f\u3000"  # NARROW NO-BREAK SPACE, MEDIUM MATHEMATICAL SPACE, IDEOGRAPHIC SPACE
)

#: The largest ASCII whitespace character: an ASCII value can only be blank if it starts at or
#: below it (the empty string included).
ASCII_SPACE_MAX: str = max((c for c in WHITESPACE if c.isascii()), default="\x00")
#: The smallest non-ASCII whitespace character: a value starting with a non-ASCII character can
#: only be blank if that character is at or above it.
WIDE_SPACE_MIN: str = min((c for c in WHITESPACE if not c.isascii()), default="\U0010ffff")
#: The smallest first byte of a non-ASCII whitespace character in UTF-8 (lead bytes grow with
#: the code point, so it is :data:`WIDE_SPACE_MIN`'s).
WIDE_SPACE_MIN_LEAD: int = WIDE_SPACE_MIN.encode("utf-8", "surrogatepass")[0]


def strip_blank(text: str) -> str:
    """``text`` without the whitespace at either end.

    Example:
        >>> strip_blank("\\u3000 TRUE\\t"), strip_blank("\\u200bx ")
        ('TRUE', '\\u200bx')
    """
    return text.strip(WHITESPACE)


def is_blank(text: str) -> bool:
    """True for the empty string and for text of only whitespace (:data:`WHITESPACE`).

    Example:
        >>> is_blank(""), is_blank(" \\t\\u3000"), is_blank(" a "), is_blank("\\u200b")
        (True, True, False, False)
    """
    return not text.strip(WHITESPACE)
