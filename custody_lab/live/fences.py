"""Fences for untrusted text in an agent's prompt: find and neutralise ``<context>`` look-alikes.

The agent context (:mod:`custody_lab.live.agent_context`) wraps each resource's text in a
``<context …>`` … ``</context>`` fence. Text from a server must not end that fence early or forge
another one, so every fence look-alike in it is neutralised, and every server string that stands
outside a fence is quoted. A look-alike is what a reader would take for a fence tag: ``<`` (or a
full-width ``＜``), an optional ``/``, the word ``context`` in any letter case, with spaces,
zero-width or bidi characters anywhere in between (``</CONTEXT>``, ``</Context >``,
``<context uri=… provenance="admin@1">``, ``<\u200b/context>``). The word is read through a
confusables fold as well: NFKC, then a small explicit map of the Cyrillic, Greek and other letters
and brackets that look like ``<``, ``/`` and the letters of ``context`` (``‹/сontext>`` with a
Cyrillic ``с``, or a combining solidus drawn through ``<``: ``<\u0338context>`` shows as
``≮context>``), and Unicode tag characters (U+E0020–U+E007E) read as the ASCII they spell — a
closing written wholly in tag characters is invisible on screen yet decodes to ``</context>``.
An HTML character reference (``&lt;/context&gt;``) is not a look-alike: read as XML, as the fence
is, it is text, and the lab's own neutralisation writes ``&lt;`` for the same reason.

A neutralised look-alike has its ``<`` written ``&lt;``; a *disguised* one (any character of it
that is not plain ASCII: a look-alike letter, a tag, a full-width or invisible character) also has
each such character written as a visible escape (``&lt;/\\u0441ontext>``), and
:attr:`FenceLookalike.disguises` names what disguised it, so the receipt can flag it. This is the
lab's host policy: MCP itself says only that hosts should treat resource content as untrusted
data.

Stdlib only; invisible characters are the ones :mod:`custody_lab.core.text` names.
"""

from __future__ import annotations

__all__ = ["CONFUSABLES", "FenceLookalike", "attr", "fence_lookalikes", "neutralise_fences", "quote"]

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from ..core.text import INVISIBLE, visible

#: A fence tag's start in the skeleton (compatibility forms folded, case folded, invisible
#: characters dropped): ``<``, an optional ``/``, the word ``context`` and no further name character.
_FENCE = re.compile(r"<\s*(/?)\s*context(?![a-z0-9_.:-])")


#: Characters that look like ``<``, ``/`` or a letter of ``context`` and that NFKC leaves alone
#: (after Unicode's confusables list, UTS #39, cut to what a fence tag needs): each maps to the
#: ASCII character a reader takes it for.
CONFUSABLES: dict[str, str] = {
    # "<": modifier and syllabics arrows, single angle quotation mark, ornaments, math and CJK brackets
    **dict.fromkeys("\u02c2\u1438\u16b2\u2039\u276c\u276e\u27e8\u3008\u29fc", "<"),
    # "/": division and fraction slashes, box-drawing and math diagonals, Coptic, Hanunoo, CJK; and
    # the combining solidus overlays, drawn through the "<" before them ("<\u0338" shows as "≮")
    **dict.fromkeys("\u2215\u2044\u2571\u27cb\u29f8\u3033\u2cc6\u1735\u30ce\u4e3f\u0337\u0338", "/"),
    # "</" in one character: NOT LESS-THAN, which "<" and a combining long solidus compose to (NFC)
    "\u226e": "</",
    # c: Cyrillic es, Greek lunate sigma, small capital C, Coptic sima, Cherokee tli
    **dict.fromkeys("\u0441\u0421\u03f2\u03f9\u1d04\u2ca5\u2ca4\u13df\uabaf", "c"),
    # o: Cyrillic o, Greek omicron, Armenian oh, small capital O, Coptic o
    **dict.fromkeys("\u043e\u041e\u03bf\u039f\u0585\u0555\u1d0f\u2c9f\u2c9e", "o"),
    # n: Greek capital nu, Armenian vo, small capital N
    **dict.fromkeys("\u039d\u0578\u0274", "n"),
    # t: Cyrillic te, Greek tau, small capital T
    **dict.fromkeys("\u0442\u0422\u03c4\u03a4\u1d1b", "t"),
    # e: Cyrillic ie, Greek capital epsilon, small capital E, Cyrillic che with descender, estimated
    **dict.fromkeys("\u0435\u0415\u0395\u1d07\u04bd\u212e", "e"),
    # x: Cyrillic ha, Greek chi, multiplication sign
    **dict.fromkeys("\u0445\u0425\u03c7\u03a7\u00d7", "x"),
}


def _read_as(ch: str) -> tuple[str, str | None]:
    """What a reader takes ``ch`` for in a tag, and the disguise that makes it so (``None``: none)."""
    code = ord(ch)
    if 0xE0020 <= code <= 0xE007E:
        return chr(code - 0xE0000), "tag characters"
    if ch in INVISIBLE or unicodedata.category(ch) == "Cf":
        return "", "invisible characters"
    if ch in CONFUSABLES:
        return CONFUSABLES[ch], "look-alike letters"
    folded = unicodedata.normalize("NFKC", ch)
    read = "".join(CONFUSABLES.get(f, f) for f in folded.casefold())
    read = "".join(CONFUSABLES.get(f, f) for f in read)
    if folded != ch:
        return read, "compatibility forms"
    if read != ch.casefold() or any(f in CONFUSABLES for f in folded):
        return read, "look-alike letters"
    return read, None


def _skeleton(text: str) -> tuple[str, list[int]]:
    """``text`` as a reader would take it for a tag, with each skeleton character's origin index.

    Each character is read through :func:`_read_as`: tag characters as the ASCII they spell,
    zero-width, bidi and other format characters dropped (a reader skips them), compatibility forms
    NFKC-folded (full-width ``＜`` and ``／`` become ``<`` and ``/``), look-alike letters mapped by
    :data:`CONFUSABLES`, and everything case-folded.
    """
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            read = ch.lower()
        else:
            read = _read_as(ch)[0]
        for folded in read:
            chars.append(folded)
            origin.append(i)
    return "".join(chars), origin


def _disguises(span: str) -> tuple[str, ...]:
    """What in a look-alike's characters is not plain ASCII, named (sorted; empty when none is)."""
    found = {_read_as(ch)[1] or "other non-ASCII characters" for ch in span if not ch.isascii()}
    return tuple(sorted(found))


@dataclass(frozen=True)
class FenceLookalike:
    """A place in untrusted text that reads as the start of a ``<context>`` fence tag.

    Attributes:
        line, column: where its ``<`` is (both from 1; the column counts characters).
        kind: ``"closing"`` (it would end the fence) or ``"opening"`` (it would forge one).
        start: the index of its ``<`` in the text.
        found: the characters that make it up, each one that is not plain ASCII as a visible escape.
        end: the index just after its last character (the last letter of ``context``).
        disguises: what disguised it, when anything did (``"look-alike letters"``,
            ``"tag characters"``, ``"compatibility forms"``, ``"invisible characters"``); empty
            for a look-alike written in plain ASCII (``</CONTEXT >``).
    """

    line: int
    column: int
    kind: Literal["opening", "closing"]
    start: int
    found: str
    end: int = -1
    disguises: tuple[str, ...] = ()


def fence_lookalikes(text: str) -> tuple[FenceLookalike, ...]:
    """Every fence look-alike in ``text``, in order.

    Example:
        >>> [(f.line, f.kind) for f in fence_lookalikes("ok\\n</Context >\\n< context uri=x>")]
        [(2, 'closing'), (3, 'opening')]
        >>> fence_lookalikes("<contextual> and <h1>")
        ()
        >>> [(f.found, f.disguises) for f in fence_lookalikes("\u2039/\u0441ontext>")]
        [('\\\\u2039/\\\\u0441ontext', ('look-alike letters',))]
    """
    skeleton, origin = _skeleton(text)
    found: list[FenceLookalike] = []
    for m in _FENCE.finditer(skeleton):
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        line_start = text.rfind("\n", 0, start) + 1
        found.append(
            FenceLookalike(
                line=text.count("\n", 0, start) + 1,
                column=start - line_start + 1,
                kind="closing" if m.group(1) else "opening",
                start=start,
                found="".join(map(_shown, text[start:end])),
                end=end,
                disguises=_disguises(text[start:end]),
            )
        )
    return tuple(found)


def _shown(ch: str) -> str:
    """A character of a disguised look-alike as the prompt shows it: plain ASCII as it is, anything
    else as a visible escape (``\\u0441``)."""
    return ch if ch.isascii() else _escape(ch)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def neutralise_fences(text: str) -> tuple[str, int]:
    """``text`` with the ``<`` of every fence look-alike written ``&lt;``, and how many there were.

    In a disguised look-alike (:attr:`FenceLookalike.disguises`) every character that is not plain
    ASCII is also written as a visible escape, so the prompt shows the disguise instead of a tag.
    Nothing else changes, so a text without look-alikes comes back identical.

    Example:
        >>> neutralise_fences("a </CONTEXT> b <context x> c <p>")
        ('a &lt;/CONTEXT> b &lt;context x> c <p>', 2)
        >>> neutralise_fences("\u2039/\u0441ontext>")
        ('&lt;/\\\\u0441ontext>', 1)
    """
    found = fence_lookalikes(text)
    out: list[str] = []
    last = 0
    for f in found:
        end = f.end
        while end < len(text) and not text[end].isascii() and _read_as(text[end])[0].strip() in ("", ">"):
            end += 1  # a disguised space or ">" after the name (a tag ">", a full-width "＞") is shown too
        first = text[f.start]
        # a first character that reads as more than "<" ("≮" reads "</") is shown too, after the "&lt;"
        shown_first = _shown(first) if not first.isascii() and len(_read_as(first)[0]) > 1 else ""
        out += [text[last : f.start], "&lt;", shown_first, "".join(map(_shown, text[f.start + 1 : end]))]
        last = end
    out.append(text[last:])
    return "".join(out), len(found)


def quote(value: object) -> str:
    """A server string made safe to stand in the prompt outside a fence: quoted, one line, inert.

    Controls, bidi and zero-width characters become visible escapes, ``& < > "`` become entities
    and a fence look-alike that survives (full-width brackets) is neutralised.

    Example:
        >>> quote('kb://x"</context>\\n'), quote("\\uff1c/context\\uff1e")
        ('"kb://x&quot;&lt;/context&gt;\\\\x0a"', '"&lt;/context\\\\uff1e"')
    """
    return f'"{attr(value)}"'


def attr(value: object) -> str:
    text = visible(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    return neutralise_fences(text)[0]
