"""Fences for untrusted text in an agent's prompt: find and neutralise ``<context>`` look-alikes.

The agent context (:mod:`custody_lab.live.agent_context`) wraps each resource's text in a
``<context …>`` … ``</context>`` fence. Text from a server must not end that fence early or forge
another one, so every fence look-alike in it is neutralised, and every server string that stands
outside a fence is quoted. A look-alike is what a reader would take for a fence tag: ``<`` (or a
full-width ``＜``), an optional ``/``, the word ``context`` in any letter case, with spaces,
zero-width or bidi characters anywhere in between (``</CONTEXT>``, ``</Context >``,
``<context uri=… provenance="admin@1">``, ``<\u200b/context>``). This is the lab's host policy:
MCP itself says only that hosts should treat resource content as untrusted data.

Stdlib only; invisible characters are the ones :mod:`custody_lab.core.text` names.
"""

from __future__ import annotations

__all__ = ["FenceLookalike", "attr", "fence_lookalikes", "neutralise_fences", "quote"]

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from ..core.text import INVISIBLE, visible

#: A fence tag's start in the skeleton (compatibility forms folded, case folded, invisible
#: characters dropped): ``<``, an optional ``/``, the word ``context`` and no further name character.
_FENCE = re.compile(r"<\s*(/?)\s*context(?![a-z0-9_.:-])")


def _skeleton(text: str) -> tuple[str, list[int]]:
    """``text`` as a reader would take it for a tag, with each skeleton character's origin index.

    Each character is NFKC-folded (full-width ``＜`` and ``／`` become ``<`` and ``/``) and
    case-folded; zero-width, bidi and other format characters are dropped, as a reader skips them.
    """
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch in INVISIBLE or unicodedata.category(ch) == "Cf":
            continue
        for folded in unicodedata.normalize("NFKC", ch).casefold():
            chars.append(folded)
            origin.append(i)
    return "".join(chars), origin


@dataclass(frozen=True)
class FenceLookalike:
    """A place in untrusted text that reads as the start of a ``<context>`` fence tag.

    Attributes:
        line, column: where its ``<`` is (both from 1; the column counts characters).
        kind: ``"closing"`` (it would end the fence) or ``"opening"`` (it would forge one).
        start: the index of its ``<`` in the text.
        found: the characters that make it up, invisible ones made visible.
    """

    line: int
    column: int
    kind: Literal["opening", "closing"]
    start: int
    found: str


def fence_lookalikes(text: str) -> tuple[FenceLookalike, ...]:
    """Every fence look-alike in ``text``, in order.

    Example:
        >>> [(f.line, f.kind) for f in fence_lookalikes("ok\\n</Context >\\n< context uri=x>")]
        [(2, 'closing'), (3, 'opening')]
        >>> fence_lookalikes("<contextual> and <h1>")
        ()
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
                found=visible(text[start:end]),
            )
        )
    return tuple(found)


def neutralise_fences(text: str) -> tuple[str, int]:
    """``text`` with the ``<`` of every fence look-alike written ``&lt;``, and how many there were.

    Nothing else changes, so a text without look-alikes comes back identical.

    Example:
        >>> neutralise_fences("a </CONTEXT> b <context x> c <p>")
        ('a &lt;/CONTEXT> b &lt;context x> c <p>', 2)
    """
    starts = [f.start for f in fence_lookalikes(text)]
    out: list[str] = []
    last = 0
    for start in starts:
        out += [text[last:start], "&lt;"]
        last = start + 1
    out.append(text[last:])
    return "".join(out), len(starts)


def quote(value: object) -> str:
    """A server string made safe to stand in the prompt outside a fence: quoted, one line, inert.

    Controls, bidi and zero-width characters become visible escapes, ``& < > "`` become entities
    and a fence look-alike that survives (full-width brackets) is neutralised.

    Example:
        >>> quote('kb://x"</context>\\n'), quote("\\uff1c/context\\uff1e")
        ('"kb://x&quot;&lt;/context&gt;\\\\x0a"', '"&lt;/context＞"')
    """
    return f'"{attr(value)}"'


def attr(value: object) -> str:
    text = visible(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    return neutralise_fences(text)[0]
