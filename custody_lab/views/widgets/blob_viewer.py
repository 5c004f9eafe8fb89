"""The blob viewer: pick a catalog resource or paste a base64 blob, and see what it really is.

A thin view over :func:`custody_lab.blobs.read_contents` and :class:`custody_lab.protocol.catalog.Catalog`:
it shows the decoded size, the base64 characters and their 4/3 overhead, the declared MIME type
against the sniffed one (a disagreement is flagged in words), and the content: an image drawn as a
picture, text as escaped text under the "untrusted data" label, anything else as a hex dump.

What is drawn follows the *sniffed* type, never the declared one: a PDF labelled ``image/png`` is
shown as hex, and SVG is shown as text (an image from a server could carry script).

Bad input never raises into the notebook: a :class:`~custody_lab.blobs.BlobError` is shown
plainly (its reason and position) and the viewer keeps the last content that decoded.
"""

from __future__ import annotations

__all__ = ["PASTE", "BlobViewer", "reading_summary_html"]

import ipywidgets as widgets

from ...core.text import visible
from ...protocol.blobs import BlobError, ContentsReading, hex_preview, read_contents
from ...protocol.catalog import Catalog, ResourceNotFound
from ...protocol.template_reading import DRAWN_IMAGES
from ..catalog_html import untrusted_text_html
from ..html import Markup, box, code, field_table, pre, scroll, small, tone, untrusted
from .controls import FULL, READ_ON_SUBMIT, fit, fits_words, wrapping_row

#: The dropdown value meaning "use the pasted blob".
PASTE = "(paste)"
#: The ``uri`` given to a pasted blob's contents item.
_PASTED_URI = "pasted://blob"
#: Sniffed types shown as text (anything else that is not drawn is shown as hex).
_TEXT_TYPES = {"text/plain", "application/json", "application/xml", "image/svg+xml"}


def reading_summary_html(reading: ContentsReading) -> str:
    """Sizes, overhead and declared vs sniffed MIME type of one contents item, as escaped HTML.

    Example:
        >>> from custody_lab.blobs import encode, read_contents
        >>> r = read_contents({"uri": "x://a", "mimeType": "image/png", "blob": encode(b"%PDF-1.7")})
        >>> "MISMATCH" in reading_summary_html(r)
        True
    """
    rows: list[tuple[str, object]] = [
        ("uri", code(reading.uri)),
        ("carried as", Markup(f"{code('blob')} (base64 text)") if reading.kind == "blob" else code("text")),
        ("decoded size", Markup(f"<b>{reading.size_bytes:,} bytes</b>")),
    ]
    if reading.base64_chars is not None:
        ratio = (
            f"{reading.overhead_ratio:.3f} characters per byte (base64's 4/3 ≈ 1.333)"
            if reading.overhead_ratio is not None
            else "n/a for empty content"
        )
        rows.append(("base64 characters", f"{reading.base64_chars:,} — {ratio}"))
    rows.append(("declared mimeType", code(reading.declared_mime or "(none)")))
    rows.append(("sniffed from the bytes", code(reading.sniffed_mime or "(unknown)")))
    if reading.mime_mismatch:
        verdict = Markup(f"{tone('⚠ MISMATCH', 'error', bold=True)} — {untrusted(reading.mismatch_reason or '')}")
    elif reading.mismatch_reason:
        verdict = Markup(f"? not confirmed — {untrusted(reading.mismatch_reason)}")
    else:
        verdict = tone("✓ the bytes match the declared type", "ok", bold=True)
    rows.append(("verdict", verdict))
    rows.append(("sha256", code(reading.sha256[:16] + "…")))
    rows.extend(("note", note) for note in reading.notes)
    return box(field_table(rows), cls="custody-blob-summary")


def _error_html(error: BlobError | ResourceNotFound) -> str:
    if isinstance(error, BlobError):
        where = "" if error.position is None else f" · position: {error.position}"
        detail = f"reason: {error.reason}{where}"
        head = "Could not decode this blob"
    else:
        detail = f"code {error.code}"
        head = "Could not read this resource"
    return box(
        f"<b>⚠ {head}:</b> {untrusted(str(error))}<br>"
        + small(f"{untrusted(detail)}. The viewer still shows the last content that decoded."),
        "error",
        cls="custody-error",
    )


class BlobViewer(widgets.VBox):
    """Pick a catalog resource or paste a base64 blob; see its size, its real type and its content.

    Attributes:
        catalog: the :class:`~custody_lab.protocol.catalog.Catalog` the dropdown lists.
        source: the ``Dropdown`` of resources (plus :data:`PASTE`).
        blob_box: the ``Textarea`` for a pasted blob.
        mime_box: the ``Text`` box for the declared MIME type of a pasted blob.
        show_button: decodes what is in the two boxes.
        summary: ``HTML`` with sizes, overhead and declared vs sniffed type.
        error: ``HTML`` with the last error (empty when the last input was good).
        image: the ``Image`` (shown for PNG, JPEG, GIF and WebP bytes).
        text_view: ``HTML`` with escaped text under the "untrusted data" label.
        hex_view: ``HTML`` with a hex dump, for anything else.
        reading: the last good :class:`~custody_lab.blobs.ContentsReading`, or ``None``.
        last_error: the last error, or ``None``.
        shown: which view is visible: ``"image"``, ``"text"``, ``"hex"`` or ``None``.

    Example:
        >>> viewer = BlobViewer()
        >>> viewer.pick("assets://logo.png")
        >>> viewer.shown, viewer.reading.size_bytes
        ('image', 105)
    """

    def __init__(self, catalog: Catalog | None = None, uri: str | None = "assets://logo.png") -> None:
        self.catalog = catalog or Catalog.load()
        self.reading: ContentsReading | None = None
        self.last_error: BlobError | ResourceNotFound | None = None
        self.shown: str | None = None
        options = [
            (f"{visible(entry.uri)}  ({self.catalog.kind_of(entry)})", entry.uri) for entry in self.catalog.resources
        ]
        options.append(("paste a base64 blob below…", PASTE))
        start = uri if uri in {v for _, v in options} else PASTE
        self.source = widgets.Dropdown(
            options=options,
            value=start,
            description="Resource:",
            layout=fit("460px"),
        )
        self.blob_box = widgets.Textarea(
            placeholder="paste base64 text here (only what goes in a blob field)",
            description="Blob:",
            layout=fit(FULL, height="90px"),
            **READ_ON_SUBMIT,  # Show reads it: the value reaches the kernel before the click
        )
        self.mime_box = widgets.Text(
            placeholder="e.g. image/png",
            description="Declared MIME:",
            style={"description_width": "initial"},
            layout=fit("300px"),
            **READ_ON_SUBMIT,
        )
        self.show_button = widgets.Button(description="Show", button_style="primary", icon="eye", layout=fits_words())
        self.summary = widgets.HTML()
        self.error = widgets.HTML()
        self.image = widgets.Image(
            format="png", width="160", layout=widgets.Layout(display="none", border="1px solid #ccc")
        )
        self.text_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self.hex_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self.source.observe(self._on_source, names="value")
        self.show_button.on_click(lambda _b: self.show_pasted())
        super().__init__(
            [
                self.source,
                self.blob_box,
                wrapping_row([self.mime_box, self.show_button]),
                self.error,
                self.summary,
                self.image,
                self.text_view,
                self.hex_view,
            ]
        )
        if start != PASTE:
            self._show_resource(start)

    # ---- actions ------------------------------------------------------------------------

    def pick(self, uri: str) -> None:
        """Select a catalog resource (as choosing it in the dropdown does); a URI the catalog does
        not list is named in the error box, and the selection stays as it was."""
        known = [v for _, v in self.source.options if v != PASTE]
        if uri not in known:
            listed = ", ".join(code(k) for k in known)
            self.error.value = box(
                f"The catalog lists no resource {code(str(uri))}: pick one of {listed}, or paste a blob below.",
                "error",
            )
            return
        if self.source.value == uri:
            self._show_resource(uri)
        else:
            self.source.value = uri

    def paste(self, blob: str, mime_type: str = "") -> None:
        """Put a blob and a declared MIME type in the boxes and press Show."""
        self.blob_box.value = blob
        self.mime_box.value = mime_type
        self.show_button.click()

    def show_pasted(self) -> None:
        """Decode the pasted blob with its declared type and show it."""
        if self.source.value != PASTE:
            self.source.unobserve(self._on_source, names="value")
            self.source.value = PASTE
            self.source.observe(self._on_source, names="value")
        blob = self.blob_box.value
        if not blob.strip():
            self.error.value = box(
                "Nothing to show yet: paste base64 text into the Blob box, then press Show.", "muted"
            )
            return
        mime = self.mime_box.value.strip() or None
        item = {"uri": _PASTED_URI, "blob": blob}
        if mime is not None:
            item["mimeType"] = mime
        self._show_item(item)

    # ---- internals ----------------------------------------------------------------------

    def _on_source(self, change: dict) -> None:
        if change["new"] != PASTE:
            self._show_resource(change["new"])

    def _show_resource(self, uri: str) -> None:
        try:
            result = self.catalog.read(uri)
        except ResourceNotFound as err:
            self._fail(err)
            return
        item = result.item
        if "blob" in item:
            self.blob_box.value = item["blob"]
            self.mime_box.value = item.get("mimeType", "")
        else:
            self.blob_box.value = ""
            self.mime_box.value = ""
        self._show_item(item)

    def _fail(self, err: BlobError | ResourceNotFound) -> None:
        self.last_error = err
        self.error.value = _error_html(err)

    def _show_item(self, item: dict[str, str]) -> None:
        try:
            reading = read_contents(item)
        except BlobError as err:
            self._fail(err)
            return
        self.reading = reading
        self.last_error = None
        self.error.value = ""
        self.summary.value = reading_summary_html(reading)
        drawn = DRAWN_IMAGES.get(reading.sniffed_mime or "")
        if drawn is not None:
            self.image.format = drawn
            self.image.value = reading.data
            self._only("image")
        elif reading.text is not None and reading.sniffed_mime in _TEXT_TYPES:
            note = ""
            if reading.sniffed_mime == "image/svg+xml":
                note = box(small("SVG is shown as text, not drawn: an image from a server can carry script."))
            self.text_view.value = note + untrusted_text_html(reading.text, reading.uri)
            self._only("text")
        else:
            self.hex_view.value = box(
                "<b>hex preview</b> (first bytes; the content is not text and not a picture the viewer draws)"
                + scroll(pre(hex_preview(reading.data, 256), wrap=False))  # columns kept, scrolls in its box
            )
            self._only("hex")

    def _only(self, which: str) -> None:
        self.shown = which
        for name, view in (("image", self.image), ("text", self.text_view), ("hex", self.hex_view)):
            view.layout.display = None if name == which else "none"
