"""The one home of the lab's HTML: boxes, their inline styles, escaping and untrusted-data blocks.

Every widget, every ``_repr_html_`` and every notebook helper builds its HTML from these pieces,
so a box looks the same everywhere and every string that came from a case file, a catalog or a
server goes through :func:`escape` once, here. Inline styles (not CSS classes) because notebook
outputs, Voila pages and exported HTML carry no stylesheet of ours; each box also has a class, so
tests and the browser can find it.

Nothing here imports ipywidgets: the functions return strings, and tests check the strings.
"""

from __future__ import annotations

__all__ = [
    "BOX",
    "KINDS",
    "UNTRUSTED_LABEL",
    "box",
    "escape",
    "field_table",
    "pre",
    "small",
    "untrusted_block",
]

import html
from collections.abc import Iterable
from typing import Literal

#: The padding, margin and font every box shares.
BOX = "padding:6px 10px;margin:2px 0;border-radius:6px;font-family:sans-serif"

Kind = Literal["ok", "error", "note", "info", "untrusted", "plain"]
#: Colours and borders by meaning. Each kind differs in its border style as well as its colour
#: (solid, dashed, dotted, left bar), so the meaning survives greyscale and colour blindness.
KINDS: dict[str, str] = {
    "ok": "background:#e6f4ea;border:2px solid #1e7e34;color:#0b3d17",
    "error": "background:#fdecea;border:2px dashed #b3261e;color:#5c0f0a",
    "note": "background:#fef9c3;border:2px solid #a16207;color:#422006",
    "info": "border-left:6px solid #1f4e8c;color:inherit",
    "untrusted": "border:2px dotted #8a6d00;color:inherit",
    "plain": "color:inherit",
}

UNTRUSTED_LABEL = (
    "<b>⚠ UNTRUSTED DATA</b> — written by the server, shown as text; it never changes what the lab decides"
)


def escape(value: object) -> str:
    """Any value as HTML text: ``<``, ``>``, ``&`` and both quotes escaped (``None`` -> ``""``).

    Example:
        >>> escape('<img src=x onerror="alert(1)">')
        '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return "" if value is None else html.escape(str(value), quote=True)


def box(body: str, kind: Kind = "plain", *, cls: str | None = None, style: str = "") -> str:
    """A ``<div>`` with the shared box style and the colours of ``kind``.

    ``body`` is HTML the caller built (escape untrusted parts first); ``cls`` names the box for
    tests and the browser; ``style`` adds declarations after the defaults.

    Example:
        >>> box("<b>✓ Read</b>", "ok", cls="custody-read")[:60]
        '<div class="custody-read" style="background:#e6f4ea;border:2'
    """
    css = f"{KINDS[kind]};{BOX}" + (f";{style}" if style else "")
    klass = f' class="{escape(cls)}"' if cls else ""
    return f'<div{klass} style="{css}">{body}</div>'


def small(text_html: str) -> str:
    """Secondary text in a box (already HTML)."""
    return f"<small>{text_html}</small>"


def pre(text: str) -> str:
    """Untrusted text as an escaped, wrapping ``<pre>`` block."""
    return f'<pre style="white-space:pre-wrap;margin:4px 0">{escape(text)}</pre>'


def field_table(rows: Iterable[tuple[str, object]], *, none: str = "<i>(none)</i>") -> str:
    """A two-column table of name -> value, every name and value escaped (``None`` shown as none).

    Example:
        >>> t = field_table([("title", "<b>x</b>"), ("mimeType", None)])
        >>> "<td>&lt;b&gt;x&lt;/b&gt;</td>" in t and "<td><i>(none)</i></td>" in t
        True
    """
    body = "".join(
        f'<tr><th style="text-align:left;padding-right:8px">{escape(k)}</th><td>'
        + (none if v is None else escape(v))
        + "</td></tr>"
        for k, v in rows
    )
    return f"<table>{body}</table>"


def untrusted_block(content_html: str, *, source: str | None = None, cls: str = "custody-untrusted") -> str:
    """Server-written content under the visible "untrusted data" label.

    ``content_html`` must already be escaped (use :func:`pre` or :func:`field_table`);
    ``source`` (a URI, escaped here) says where it came from.

    Example:
        >>> b = untrusted_block(pre("<script>x</script>"), source="tickets://T-501")
        >>> "UNTRUSTED DATA" in b and "&lt;script&gt;" in b and "<script>" not in b
        True
    """
    origin = f" (from <code>{escape(source)}</code>)" if source is not None else ""
    return box(f"{UNTRUSTED_LABEL}{origin}{content_html}", "untrusted", cls=cls)
