"""The template reader's HTML and the widget (its pure logic is tested in tests/protocol/test_template_reading.py)."""

from __future__ import annotations

import json

import pytest

from custody_lab.core.paths import DATA_DIR
from custody_lab.protocol.catalog import Catalog, TemplateEntry
from custody_lab.protocol.template_reading import preview, read_preview, read_template, template_variables
from custody_lab.views.template_html import outcome_html, preview_html, problem_html, variables_html
from custody_lab.views.widgets.controls import FULL
from custody_lab.views.widgets.template_reader import CUSTOM, TemplateReader

HOSTILE = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert('owned')</script>"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture
def reader(catalog) -> TemplateReader:
    return TemplateReader(Catalog.load())


def visible(widget) -> bool:
    return widget.layout.display != "none"


# --------------------------------------------------------------------------------------------
# What the HTML shows of a refused value or a reserved expansion
# --------------------------------------------------------------------------------------------


def test_a_lone_surrogate_is_refused_with_a_plain_message_and_reads_nothing():
    fresh = Catalog.load()
    current = preview("orders://{order_id}", {"order_id": "A-\ud800"})
    assert current.unencodable == ("order_id",) and current.uri is None and not current.ready
    outcome = read_preview(fresh, current)
    assert outcome.status == "not-ready" and not fresh.reads
    assert "\ud800" not in preview_html(current), "the HTML must stay encodable"


def test_reserved_expansion_lets_a_slash_through_and_the_reader_warns_about_it():
    assert preview("kb://{+path}", {"path": "../x"}).uri == "kb://../x"
    page = variables_html(template_variables("kb://{+path}"))
    assert "reserved expansion" in page and "untrusted input" in page


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def test_reading_an_order_gives_its_record_and_the_matched_parameters(catalog):
    outcome = read_template(catalog, "orders://{order_id}", {"order_id": "A-1002"})
    assert outcome.status == "read" and outcome.result is not None
    assert outcome.result.params == {"order_id": "A-1002"}
    assert json.loads(outcome.result.text or "")["id"] == "A-1002"
    page = outcome_html(outcome)
    for part in ("✓ Read", "orders://A-1002", "orders://{order_id}", "UNTRUSTED DATA", "&quot;A-1002&quot;"):
        assert part in page, f"{part!r} missing from the read HTML"


def test_a_missing_order_is_error_32602_with_the_uri(catalog):
    outcome = read_template(catalog, "orders://{order_id}", {"order_id": "A-9999"})
    assert outcome.status == "not-found" and outcome.result is None
    assert outcome.error_object == {"code": -32602, "message": "Resource not found", "data": {"uri": "orders://A-9999"}}
    page = outcome_html(outcome)
    for part in ("-32602", "Resource not found", "orders://A-9999", "no record has order_id"):
        assert part in page, f"{part!r} missing from {page!r}"


def test_nothing_is_read_while_a_required_variable_is_empty():
    fresh = Catalog.load()
    outcome = read_template(fresh, "orders://{order_id}", {"order_id": ""})
    assert outcome.status == "not-ready" and not fresh.reads
    assert "Nothing was read" in outcome_html(outcome) and "order_id is required" in outcome.message


def test_an_image_is_drawn_from_its_bytes_and_other_blobs_are_not(catalog):
    logo = read_template(catalog, "assets://{name}", {"name": "logo.png"})
    assert logo.image is not None and logo.image[1] == "png" and logo.image[0][:4] == b"\x89PNG"
    assert "drawn below as a picture" in outcome_html(logo)
    pdf = read_template(catalog, "assets://{name}", {"name": "brochure.pdf"})
    assert pdf.status == "read" and pdf.image is None
    assert "hex preview" in outcome_html(pdf) and "25 50 44 46" in outcome_html(pdf)


def test_hostile_resource_text_is_escaped_and_labelled(catalog):
    outcome = read_template(catalog, "tickets://{id}", {"id": "T-501"})
    page = outcome_html(outcome)
    assert outcome.status == "read" and "UNTRUSTED DATA" in page
    assert "<script>" not in page and "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.mark.parametrize("value", [SCRIPT, HOSTILE, '"><b>x</b>', "A-1002'onmouseover='x"])
def test_hostile_values_are_escaped_in_the_preview_and_the_error(value, catalog):
    current = preview("orders://{order_id}", {"order_id": value})
    pages = [preview_html(current), outcome_html(read_preview(catalog, current))]
    for page in pages:
        for raw in ("<script", "<img", "<b>x", "'onmouseover"):
            assert raw not in page, f"{value!r}: {raw!r} reached the HTML unescaped"


def test_a_hostile_template_is_escaped_in_the_error_box():
    template = f"orders://{HOSTILE}{{id}}"
    page = problem_html(preview(template, {}).problem)  # type: ignore[arg-type]
    assert "<img" not in page and "&lt;img" in page, page


# --------------------------------------------------------------------------------------------
# The widget, driven by code
# --------------------------------------------------------------------------------------------


def test_the_reader_lists_the_catalog_templates_and_opens_on_the_first(reader, catalog):
    values = [value for _, value in reader.picker.options]
    assert values[:-1] == [t.uri_template for t in catalog.templates] and values[-1] == CUSTOM
    assert reader.picker.value == catalog.templates[0].uri_template == reader.template_box.value
    assert list(reader.inputs) == ["order_id"]


@pytest.mark.parametrize(
    ("template", "names", "required"),
    [
        ("orders://{order_id}", ["order_id"], [True]),
        ("crm://customer/{id}", ["id"], [True]),
        ("logs://{service}/{day}{?level}", ["service", "day", "level"], [True, True, False]),
    ],
)
def test_picking_a_template_gives_one_box_per_variable(reader, template, names, required):
    reader.picker.value = template
    assert reader.template_box.value == template and list(reader.inputs) == names
    marks = [box.description.endswith(" *") for box in reader.inputs.values()]
    assert marks == required, f"{template}: required marks {marks}"
    assert all(box.placeholder for box in reader.inputs.values())


def test_fill_preview_and_read_an_order(reader):
    reader.pick("orders://{order_id}")
    reader.inputs["order_id"].value = "A-1002"
    assert reader.preview.uri == "orders://A-1002"
    assert "orders://A-1002" in reader.preview_view.value and "ready to read" in reader.preview_view.value
    reader.read_button.click()
    assert reader.outcome is not None and reader.outcome.status == "read"
    assert "✓ Read" in reader.output.value and "DOCK-TB4" in reader.output.value
    assert not visible(reader.image)


def test_the_preview_follows_every_keystroke(reader):
    reader.pick("logs://{service}/{day}{?level}")
    seen = []
    for name, value in (("service", "api"), ("day", "2026-09-04"), ("level", "warn")):
        reader.inputs[name].value = value
        seen.append(reader.preview.uri)
    assert seen == ["logs://api/", "logs://api/2026-09-04", "logs://api/2026-09-04?level=warn"], seen


def test_reading_a_missing_order_shows_32602_with_the_uri(reader):
    reader.fill(order_id="A-9999")
    reader.read_button.click()
    assert reader.outcome.status == "not-found"
    for part in ("-32602", "Resource not found", "orders://A-9999"):
        assert part in reader.output.value, f"{part!r} missing"


def test_a_required_box_left_empty_shows_a_plain_message_and_reads_nothing(reader):
    reader.pick("logs://{service}/{day}{?level}")
    reader.fill(service="api")
    reader.read_button.click()
    assert reader.outcome.status == "not-ready" and not reader.catalog.reads
    assert "Nothing was read" in reader.output.value and "day is required" in reader.output.value


def test_an_invalid_template_shows_a_caret_keeps_the_inputs_and_recovers(reader):
    reader.fill(order_id="A-1002")
    reader.template_box.value = "orders://{order-id}"
    assert reader.picker.value == CUSTOM
    assert "not valid" in reader.problem.value and "^ position 15" in reader.problem.value
    assert reader.inputs["order_id"].value == "A-1002", "the last good inputs are kept"
    reader.read_button.click()
    assert reader.outcome.status == "not-ready" and not reader.catalog.reads
    reader.template_box.value = "orders://{order_id}"
    assert reader.problem.value == "" and reader.picker.value == "orders://{order_id}"
    assert reader.preview.uri == "orders://A-1002", "the value typed before comes back"


def test_a_custom_template_can_read_a_listed_image_and_draws_it(reader):
    reader.pick("assets://{name}")
    assert reader.picker.value == CUSTOM and "not in the catalog" in reader.about.value
    reader.fill(name="logo.png")
    reader.read_button.click()
    assert reader.outcome.status == "read" and visible(reader.image)
    assert reader.image.format == "png" and bytes(reader.image.value)[:8] == b"\x89PNG\r\n\x1a\n"
    reader.fill(name="shipping")  # now a URI that names nothing
    reader.pick("kb://{name}")
    reader.read_button.click()
    assert reader.outcome.status == "read" and not visible(reader.image), "the picture is hidden again"


def test_a_new_template_error_clears_the_previous_reads_result_and_picture(reader):
    reader.pick("assets://{name}")
    reader.fill(name="logo.png")
    reader.read_button.click()
    assert reader.outcome.status == "read" and visible(reader.image), "precondition: a picture was read"
    before = reader.output.value
    reader.template_box.value = "assets://{name"
    assert "not valid" in reader.problem.value, reader.problem.value
    left = (reader.outcome, visible(reader.image), bytes(reader.image.value), reader.output.value == before)
    assert left == (None, False, b"", False), (
        f"after 'assets://{{name' (invalid): expected (outcome None, picture hidden, no bytes, result gone), got {left}"
    )
    assert "press Read" in reader.output.value, reader.output.value
    reader.template_box.value = "assets://{name}"
    reader.read_button.click()
    assert reader.outcome.status == "read" and visible(reader.image), "a fixed template reads and draws again"


def test_the_readers_boxes_never_run_past_a_narrow_output_area(reader):
    boxes = {"picker": reader.picker, "template": reader.template_box, **reader.inputs}
    widths = {name: (w.layout.width, w.layout.max_width) for name, w in boxes.items()}
    fixed = {name: wm for name, wm in widths.items() if wm[1] != FULL}
    assert not fixed, f"boxes without max_width {FULL} (cut off at 640 CSS px): {fixed}"


def test_a_value_with_dot_dot_slash_cannot_reach_another_resource_through_the_widget(reader):
    reader.pick("crm://customer/{id}")
    reader.fill(id="../../kb/shipping")
    assert reader.preview.uri == "crm://customer/..%2F..%2Fkb%2Fshipping"
    reader.read_button.click()
    assert reader.outcome.status == "not-found" and "Brightgrid ships" not in reader.output.value


def test_hostile_values_are_escaped_in_every_html_value_of_the_widget(reader):
    reader.pick("crm://customer/{id}")
    reader.fill(id=SCRIPT + "/../")
    reader.read_button.click()
    pages = [reader.about.value, reader.problem.value, reader.preview_view.value, reader.output.value]
    assert any("&lt;script&gt;" in page for page in pages), "the value should be shown, escaped"
    for page in pages:
        assert "<script" not in page, page


def test_a_hostile_catalog_entry_is_shown_escaped():
    entry = TemplateEntry(
        uri_template="orders://{order_id}",
        name="order",
        title=HOSTILE,
        description=SCRIPT,
        mime_type="application/json",
        records="records/orders.json",
        keys=("order_id",),
    )
    catalog = Catalog((), (entry,), data_dir=DATA_DIR)
    reader = TemplateReader(catalog)
    label = reader.picker.options[0][0]
    assert HOSTILE in label, "a dropdown label is text, not HTML"
    assert "<img" not in reader.about.value and "<script" not in reader.about.value
    assert "&lt;img src=x onerror=alert(1)&gt;" in reader.about.value
    reader.fill(order_id="A-1001")
    reader.read_button.click()
    assert reader.outcome.status == "read"


def test_an_empty_catalog_gives_a_custom_only_reader():
    reader = TemplateReader(Catalog((), (), data_dir=DATA_DIR))
    assert reader.picker.value == CUSTOM and reader.template_box.value == ""
    assert reader.read().status == "not-ready" and "Type or pick a template" in reader.output.value
    reader.pick("orders://{order_id}")
    reader.fill(order_id="A-1002")
    assert reader.read().status == "not-found"
