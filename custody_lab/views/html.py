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
    "CHART_THEME_STYLE",
    "LIGHT_CHART_CLASS",
    "FONT",
    "KINDS",
    "NOWRAP",
    "ROW_STYLES",
    "SCROLL_STYLE",
    "TABS_CLASS",
    "TABS_STYLE",
    "TONES",
    "UNTRUSTED_LABEL",
    "Kind",
    "Markup",
    "Tone",
    "ViewError",
    "box",
    "cell",
    "code",
    "escape",
    "field_table",
    "pre",
    "rows_html",
    "scroll",
    "small",
    "table",
    "tone",
    "untrusted",
    "untrusted_block",
]

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from ..core.errors import CustodyLabError
from ..core.text import visible, visible_format

#: The font of every box and table.
FONT = "font-family:sans-serif"
#: The padding, margin and font every box shares.
BOX = f"padding:6px 10px;margin:2px 0;border-radius:6px;{FONT}"

Kind = Literal["ok", "error", "note", "info", "untrusted", "plain", "muted"]
#: Colours and borders by meaning. Each kind differs in its border style as well as its colour
#: (solid, dashed, dotted, left bar), so the meaning survives greyscale and colour blindness.
KINDS: dict[str, str] = {
    "ok": "background:#e6f4ea;border:2px solid #1e7e34;color:#0b3d17",
    "error": "background:#fdecea;border:2px dashed #b3261e;color:#5c0f0a",
    "note": "background:#fef9c3;border:2px solid #a16207;color:#422006",
    "info": "border-left:6px solid #1f4e8c;color:inherit",
    "untrusted": "border:2px dotted #8a6d00;color:inherit",
    "plain": "color:inherit",
    # JupyterLab's secondary text colour (4.6:1 on the light theme's white, more on the dark
    # theme's near-black); the fixed grey is for pages without JupyterLab's variables.
    "muted": "color:var(--jp-ui-font-color2, #555555)",
}

#: A table cell whose words stay on one line ("✓ passed" never splits into "✓" and "passed").
NOWRAP = "white-space:nowrap"

#: Table rows that stand out: the step that fired (the error box's colours), a changed row, a row
#: that does not count (not reached).
ROW_STYLES: dict[str, str] = {
    # A row with its own background sets its own text colour too, so it reads in the dark theme.
    "error": "background:#fdecea;color:#5c0f0a;font-weight:bold;outline:2px solid #b3261e",
    "changed": "background:#fff4d6;color:#422006;font-weight:bold",
    "muted": "color:var(--jp-ui-font-color2, #555555)",
}

#: Text colours for a verdict inside a box; the words (✓ / ✗) carry the meaning, colour repeats it.
#: Each tone carries its own light background, so the pair keeps its contrast in either theme.
TONES: dict[str, str] = {
    "ok": "color:#14532d;background:#e6f4ea",
    "error": "color:#7f1d1d;background:#fdecea",
    "muted": "color:var(--jp-ui-font-color2, #555555)",
}
Tone = Literal["ok", "error", "muted"]

#: The class of a lab ``Tab`` whose unselected titles use the body text colour: ipywidgets draws them
#: in ``--jp-ui-font-color2`` on ``--jp-layout-color2``, 4.4:1 in JupyterLab's light theme and 4.2:1
#: in its dark one (WCAG AA asks 4.5:1). The one place the lab needs a rule, not an inline style: a
#: tab title is ipywidgets' own element. :data:`TABS_STYLE` holds the rule, as HTML.
TABS_CLASS = "custody-tabs"
TABS_STYLE = (
    f"<style>.jupyter-widgets.jupyter-widget-tab.{TABS_CLASS} > .lm-TabBar .lm-TabBar-tab:not(.lm-mod-current)"
    "{color:var(--jp-ui-font-color1, #111111)}</style>"
)

#: The class of a chart drawn in the light theme (no ``theme=``, no ``$CUSTODY_LAB_THEME``): on a
#: page in a dark JupyterLab theme, :data:`CHART_THEME_STYLE` turns it dark (inverts its lightness and
#: turns the hues back), so a chart follows the theme the learner picked in JupyterLab, which the
#: kernel cannot see. JupyterLab and Voila mark the page with ``data-jp-theme-light``.
LIGHT_CHART_CLASS = "custody-chart-light"
CHART_THEME_STYLE = (
    f"<style>body[data-jp-theme-light='false'] .{LIGHT_CHART_CLASS}{{filter:invert(1) hue-rotate(180deg)}}</style>"
)

UNTRUSTED_LABEL = (
    "<b>⚠ UNTRUSTED DATA</b> — written by the server, shown as text; it never changes what the lab decides"
)


def escape(value: object) -> str:
    r"""Any value as HTML text: ``<``, ``>``, ``&`` and both quotes escaped (``None`` -> ``""``).

    Characters that are not markup but hide or reorder text — bidi controls, zero-width and tag
    characters, other format characters, U+2028/U+2029 — are shown as escapes here too
    (:func:`custody_lab.core.text.visible_format`; controls are left alone, so a lab text's line
    breaks and tabs stay layout), so server text that reaches a page through ``escape`` rather than :func:`untrusted`
    still cannot hide in it. The lab's own text holds none of them.

    Example:
        >>> escape('<img src=x onerror="alert(1)">')
        '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
        >>> escape("ok\u2028\U000e0041")
        'ok\\u2028\\U000e0041'
    """
    return "" if value is None else html.escape(visible_format(value), quote=True)


def untrusted(value: object) -> str:
    r"""Untrusted text as HTML: controls, bidi overrides and zero-width characters made visible
    (:func:`custody_lab.core.text.visible`), then escaped (``None`` -> ``""``).

    A right-to-left override is not markup, so escaping alone lets it reorder what a reader sees
    (``invoice\u202egnp.exe`` reads as ``invoiceexe.png``); here it is shown as ``\u202e``.

    Example:
        >>> untrusted("invoice\u202egnp.exe <b>")
        'invoice\\u202egnp.exe &lt;b&gt;'
    """
    return "" if value is None else escape(visible(value))


#: What a ``<pre>`` block keeps as layout: line breaks and tabs.
_LAYOUT = re.compile(r"(\r?\n|\t)")


def _untrusted_lines(text: str) -> str:
    """:func:`untrusted` for a block of text that keeps its line breaks and tabs (a ``<pre>``)."""
    return "".join(part if _LAYOUT.fullmatch(part) else untrusted(part) for part in _LAYOUT.split(text))


class ViewError(CustodyLabError, ValueError):
    """A view asked to draw or show something it cannot (the message names the argument)."""


class Markup(str):
    """HTML the lab built itself (its untrusted parts already escaped): tables keep it as is.

    Every other value put into a table cell is escaped; wrapping a string in ``Markup`` is the one
    way to say "this is markup", and only code of the views layer does it.
    """


def cell(value: object) -> str:
    r"""A table cell's content: :class:`Markup` as it is, anything else through :func:`untrusted`
    (tables show data: catalog entries, inventories, what a server listed).

    Example:
        >>> cell("<b>"), cell(Markup("<b>x</b>")), cell("a\u200bb")
        ('&lt;b&gt;', '<b>x</b>', 'a\\u200bb')
    """
    return value if isinstance(value, Markup) else untrusted(value)


def code(value: object) -> Markup:
    r"""A value as ``<code>`` text, through :func:`untrusted` (ids, URIs and MIME types are often
    a case's or a server's words).

    Example:
        >>> code("a<b"), code("kb://\u202eevil")
        ('<code>a&lt;b</code>', '<code>kb://\\u202eevil</code>')
    """
    return Markup(f"<code>{untrusted(value)}</code>")


def tone(text: str, kind: Tone, *, bold: bool = False) -> Markup:
    """Escaped text in a verdict colour (the text itself should say ✓ or ✗).

    Example:
        >>> tone("✓ ready", "ok")
        '<span style="color:#14532d;background:#e6f4ea">✓ ready</span>'
    """
    weight = ";font-weight:bold" if bold else ""
    return Markup(f'<span style="{TONES[kind]}{weight}">{escape(text)}</span>')


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


#: A box that scrolls sideways: ``contain:inline-size`` keeps its content's width out of the width
#: of the boxes around it (a widget's HTML is a flex item, which would otherwise grow to hold a wide
#: table or picture and spill past the output area).
SCROLL_STYLE = "overflow-x:auto;max-width:100%;contain:inline-size"


def scroll(content_html: str) -> str:
    """HTML (a table, a ``<pre>``) in a box of its own that scrolls sideways when it is wider than
    the output area, so no column is hidden and nothing spills outside it.

    Example:
        >>> scroll("<table></table>")
        '<div class="custody-scroll" style="overflow-x:auto;max-width:100%;contain:inline-size"><table></table></div>'
    """
    return f'<div class="custody-scroll" style="{SCROLL_STYLE}">{content_html}</div>'


def small(text_html: str) -> str:
    """Secondary text in a box (already HTML)."""
    return f"<small>{text_html}</small>"


def pre(text: str, *, wrap: bool = True) -> str:
    r"""Untrusted text as a ``<pre>`` block: line breaks and tabs kept, every other control
    character, bidi override and zero-width character made visible, then escaped; ``wrap=False``
    keeps columns aligned (a caret under a character, a hex dump).

    Example:
        >>> pre("a\u202eb\n<i>\x1b")
        '<pre style="white-space:pre-wrap;margin:4px 0;background:none">a\\u202eb\n&lt;i&gt;\\x1b</pre>'
    """
    style = "white-space:pre-wrap;margin:4px 0" if wrap else "margin:4px 0"
    return f'<pre style="{style};background:none">{_untrusted_lines(text)}</pre>'


def field_table(rows: Iterable[tuple[str, object]], *, none: str = "<i>(none)</i>", cls: str | None = None) -> str:
    """A two-column table of name -> value, every name and value escaped (``None`` shown as none).

    Example:
        >>> t = field_table([("title", "<b>x</b>"), ("mimeType", None)])
        >>> "<td>&lt;b&gt;x&lt;/b&gt;</td>" in t and "<td><i>(none)</i></td>" in t
        True
    """
    body = "".join(
        f'<tr><th style="text-align:left;padding-right:8px">{escape(k)}</th><td>'
        + (none if v is None else cell(v))
        + "</td></tr>"
        for k, v in rows
    )
    klass = f' class="{escape(cls)}"' if cls else ""
    return f'<table{klass} style="{FONT}">{body}</table>'


def table(
    rows: Iterable[Sequence[object]],
    head: Sequence[str] | None = None,
    *,
    cls: str | None = None,
    style: str = "",
) -> str:
    """A table with an optional header row; every cell escaped unless it is :class:`Markup`.

    Example:
        >>> table([("<b>", code(1))], head=["name", "value"])
        '<table><thead><tr><th>name</th><th>value</th></tr></thead><tbody><tr><td>&lt;b&gt;</td><td><code>1</code></td></tr></tbody></table>'
    """
    klass = f' class="{escape(cls)}"' if cls else ""
    css = f' style="{style}"' if style else ""
    thead = "<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr></thead>" if head else ""
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table{klass}{css}>{thead}<tbody>{body}</tbody></table>"


def rows_html(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None) -> str:
    """Row mappings as a table (columns: ``columns``, or the first row's keys); ``None`` shows empty.

    Example:
        >>> rows_html([{"a": "<b>", "b": None}])
        '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>&lt;b&gt;</td><td></td></tr></tbody></table>'
    """
    cols = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    return table(([r.get(c) for c in cols] for r in rows), head=cols)


def untrusted_block(
    content_html: str,
    *,
    source: str | None = None,
    cls: str = "custody-untrusted",
    label: str = UNTRUSTED_LABEL,
) -> str:
    """Server-written content under the visible "untrusted data" label.

    ``content_html`` must already be made safe (use :func:`pre`, :func:`field_table` or
    :func:`untrusted`); ``source`` (a URI, made visible and escaped here) says where it came from;
    ``label`` (HTML) says whose words.

    Example:
        >>> b = untrusted_block(pre("<script>x</script>"), source="tickets://T-501")
        >>> "UNTRUSTED DATA" in b and "&lt;script&gt;" in b and "<script>" not in b
        True
    """
    origin = f" (from {code(source)})" if source is not None else ""
    return box(f"{label}{origin}{content_html}", "untrusted", cls=cls)
