"""The blob viewer and the link-or-embed calculator, driven programmatically."""

from __future__ import annotations

import pytest

from custody_lab.blobs import encode
from custody_lab.protocol.catalog import Catalog
from custody_lab.views.widgets.blob_viewer import PASTE, BlobViewer, reading_summary_html
from custody_lab.views.widgets.link_or_embed_calculator import LinkOrEmbedCalculator

LOGO_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAMElEQVR42mPkndLxn4ECwMRA"
    "IRh4A1jQBT5ll+PVwDe1c7iFwagBWNIBejyPgDAAAO2SBnj02loiAAAAAElFTkSuQmCC"
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture
def viewer(catalog) -> BlobViewer:
    return BlobViewer(catalog)


def visible(widget) -> bool:
    return widget.layout.display != "none"


# --------------------------------------------------------------------------------------------
# Picking catalog resources
# --------------------------------------------------------------------------------------------


def test_picking_the_logo_draws_it_and_shows_the_sizes(viewer):
    viewer.pick("assets://logo.png")
    assert viewer.shown == "image" and visible(viewer.image)
    assert not visible(viewer.text_view) and not visible(viewer.hex_view)
    assert viewer.image.format == "png" and bytes(viewer.image.value)[:8] == b"\x89PNG\r\n\x1a\n"
    summary = viewer.summary.value
    for part in ("105 bytes", "140", "1.333", "image/png", "✓ the bytes match"):
        assert part in summary, f"{part!r} missing from the summary"
    assert viewer.blob_box.value == LOGO_BASE64 and viewer.mime_box.value == "image/png"


def test_the_viewer_opens_on_the_logo(catalog):
    viewer = BlobViewer(catalog)
    assert viewer.source.value == "assets://logo.png" and viewer.shown == "image"


def test_picking_a_text_resource_shows_escaped_text(viewer):
    viewer.pick("kb://shipping")
    assert viewer.shown == "text" and visible(viewer.text_view)
    assert "Brightgrid ships" in viewer.text_view.value
    assert "<code>text</code>" in viewer.summary.value and viewer.blob_box.value == ""


def test_picking_a_pdf_shows_a_hex_preview(viewer):
    viewer.pick("assets://brochure.pdf")
    assert viewer.shown == "hex" and "25 50 44 46" in viewer.hex_view.value
    assert "application/pdf" in viewer.summary.value


def test_the_dropdown_lists_every_catalog_resource_and_a_paste_option(viewer, catalog):
    values = [v for _, v in viewer.source.options]
    assert values[:-1] == [e.uri for e in catalog.resources] and values[-1] == PASTE


def test_the_hostile_ticket_is_shown_escaped_and_labelled_untrusted(viewer):
    viewer.pick("tickets://T-501")
    page = viewer.text_view.value
    assert "UNTRUSTED DATA" in page
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page


# --------------------------------------------------------------------------------------------
# Pasting blobs
# --------------------------------------------------------------------------------------------


def test_pasting_the_logo_blob_draws_it(viewer):
    viewer.pick("kb://shipping")
    viewer.paste(LOGO_BASE64, "image/png")
    assert viewer.source.value == PASTE and viewer.shown == "image"
    assert viewer.reading.size_bytes == 105 and viewer.reading.uri == "pasted://blob"


def test_pasting_a_data_url_shows_the_error_plainly_and_keeps_the_last_content(viewer):
    viewer.pick("assets://logo.png")
    viewer.paste("data:image/png;base64," + LOGO_BASE64, "image/png")
    page = viewer.error.value
    assert "data: URL" in page and "reason: data-url" in page and "position: 0" in page
    assert "paste only what follows the comma" in page
    assert viewer.last_error is not None and viewer.last_error.reason == "data-url"
    assert viewer.shown == "image" and viewer.reading.size_bytes == 105, "last good content kept"


@pytest.mark.parametrize(
    ("blob", "reason"),
    [("TUNQ!", "bad-character"), ("TUN", "bad-padding"), ("TU-Q", "url-safe"), ("QR==", "non-canonical")],
)
def test_every_decode_error_is_shown_with_its_reason(viewer, blob, reason):
    viewer.paste(blob, "text/plain")
    assert f"reason: {reason}" in viewer.error.value, viewer.error.value
    assert "Could not decode this blob" in viewer.error.value


def test_a_good_paste_after_an_error_clears_the_error(viewer):
    viewer.paste("TUN", "")
    assert viewer.error.value
    viewer.paste("TUNQ", "")
    assert viewer.error.value == "" and viewer.last_error is None and viewer.reading.text == "MCP"


def test_pasting_a_pdf_declared_as_png_shows_the_mismatch(viewer):
    pdf = Catalog.load().read("assets://brochure.pdf").data
    viewer.paste(encode(pdf), "image/png")
    summary = viewer.summary.value
    assert "⚠ MISMATCH" in summary and "declared image/png but the bytes start like a PDF" in summary
    assert viewer.shown == "hex", "a PDF is never drawn as an image, whatever its label says"


def test_pasting_hostile_text_escapes_it(viewer):
    viewer.paste(encode(b"<img src=x onerror=alert(1)> hello"), "<b>text/plain</b>")
    assert viewer.shown == "text"
    for page in (viewer.text_view.value, viewer.summary.value):
        assert "<img" not in page and "<b>text/plain</b>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in viewer.text_view.value


def test_svg_is_shown_as_text_never_drawn(viewer):
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    viewer.paste(encode(svg), "image/svg+xml")
    assert viewer.shown == "text" and "SVG is shown as text" in viewer.text_view.value
    assert "<script>" not in viewer.text_view.value


def test_an_empty_paste_asks_for_a_blob_without_an_error(viewer):
    viewer.paste("   ", "")
    assert "Nothing to show yet" in viewer.error.value and viewer.last_error is None


def test_whitespace_in_a_pasted_blob_is_accepted_and_noted(viewer):
    viewer.paste(LOGO_BASE64[:76] + "\n" + LOGO_BASE64[76:], "image/png")
    assert viewer.shown == "image" and "accepted 1 line break" in viewer.summary.value


def test_binary_declared_as_text_is_flagged(viewer):
    viewer.paste(encode(bytes(range(256))), "text/plain")
    assert "⚠ MISMATCH" in viewer.summary.value and viewer.shown == "hex"


def test_the_summary_is_computable_without_a_widget(catalog):
    page = reading_summary_html(catalog.read("assets://logo.png").reading())
    assert "105 bytes" in page and "140" in page


# --------------------------------------------------------------------------------------------
# The link-or-embed calculator
# --------------------------------------------------------------------------------------------


def test_the_calculator_starts_on_the_seed_report_and_recommends_a_link(catalog):
    calc = LinkOrEmbedCalculator(catalog=catalog)
    assert calc.costs is not None and calc.costs.shape == "resource-link"
    assert "resource-link" in calc.advice.value and "90,505" in calc.table.value
    assert bytes(calc.plot.value)[:8] == b"\x89PNG\r\n\x1a\n"
    assert calc.check is not None and calc.check.ok


def test_moving_the_sliders_redraws(catalog):
    calc = LinkOrEmbedCalculator(catalog=catalog)
    before = bytes(calc.plot.value)
    calc.size.value = 300
    calc.reuse.value = 1
    assert calc.costs.shape == "embedded-resource" and "embedded-resource" in calc.advice.value
    assert bytes(calc.plot.value) != before
    calc.budget.value = 512
    calc.size.value = 1000
    assert calc.costs.shape == "resource-link" and "over the 512-byte inline budget" in calc.advice.value
    calc.binary.value = True
    assert calc.costs.binary and "base64" in calc.advice.value


def test_the_calculator_flags_a_registered_resource_under_another_uri_and_not_an_unlisted_one(catalog):
    calc = LinkOrEmbedCalculator(catalog=catalog)
    calc.uri_box.value = "report://weekly-7"  # the link keeps the report's name
    assert calc.check.verdict == "registered-under-another-uri", calc.check
    assert "ANOTHER URI" in calc.uri_check.value and "report://synthetic/weekly-7" in calc.uri_check.value
    calc.uri_box.value, calc.name_box.value = "export://weekly-7/2026-09-04.csv", "weekly-7-export"
    assert calc.check.verdict == "unlisted" and "VALID UNDER MCP" in calc.uri_check.value
    assert "report://synthetic/weekly-7" not in calc.uri_check.value, calc.uri_check.value
    calc.block_type.value = "resource"
    calc.uri_box.value = "kb://shipping"
    assert calc.check.ok and calc.check.block_type == "resource"


def test_the_permission_and_change_boxes_change_the_advice_not_the_bytes(catalog):
    calc = LinkOrEmbedCalculator(300, 1, catalog=catalog, uri="kb://shipping", name="shipping")
    assert calc.costs.shape == "embedded-resource" and calc.check.verdict == "same-uri"
    bytes_before = (calc.costs.embed_total, calc.costs.link_total)
    calc.separate_permission.value = True
    assert calc.costs.shape == "resource-link" and "permission of its own" in calc.advice.value
    calc.separate_permission.value = False
    calc.changes_often.value = True
    assert calc.costs.shape == "resource-link" and "likely to change" in calc.advice.value
    assert (calc.costs.embed_total, calc.costs.link_total) == bytes_before
    calc.changes_often.value = False
    assert calc.costs.shape == "embedded-resource"


def test_the_calculator_escapes_a_hostile_uri(catalog):
    calc = LinkOrEmbedCalculator(catalog=catalog)
    calc.uri_box.value = "<img src=x onerror=alert(1)>"
    assert "<img" not in calc.uri_check.value and "&lt;img" in calc.uri_check.value


def test_picking_a_uri_the_catalog_does_not_list_names_it_and_keeps_the_selection(viewer):
    """Issue 39 §3: ``pick("nope://…")`` raised a raw TraitError."""
    before = viewer.source.value
    viewer.pick("nope://x<script>\x1b[2J")
    assert viewer.source.value == before
    shown = viewer.error.value
    assert "nope://x&lt;script&gt;\\x1b[2J" in shown and "<script>" not in shown and "\x1b" not in shown, shown
    known = [v for _, v in viewer.source.options if v != PASTE]
    assert known and all(k in shown for k in known), shown
    viewer.pick(known[0])  # a listed one is still picked, and the message goes
    assert viewer.source.value == known[0] and "nope://" not in viewer.error.value
