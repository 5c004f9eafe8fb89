"""The template reader: its pure logic (custody_lab.protocol.template_reading), its HTML and the widget."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.core.paths import DATA_DIR
from custody_lab.protocol.catalog import Catalog, TemplateEntry
from custody_lab.protocol.template_examples import (
    EXAMPLE_VALUES,
    TRICKY_CASES,
    compare_engines,
    describe_error,
    listing_cost,
    operator_examples,
)
from custody_lab.protocol.template_reading import (
    Preview,
    parse_error,
    preview,
    read_preview,
    read_template,
    template_problem,
    template_variables,
    values_from_inputs,
)
from custody_lab.uri_templates import UriTemplateError, match
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
# Which variables are required
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("orders://{order_id}", [("order_id", "path", True)]),
        ("crm://customer/{id}", [("id", "path", True)]),
        (
            "logs://{service}/{day}{?level}",
            [("service", "path", True), ("day", "path", True), ("level", "query", False)],
        ),
        (
            "files://docs{/path*}{?rev}{&mode}",
            [("path", "path", True), ("rev", "query", False), ("mode", "query", False)],
        ),
        ("kb://{+path}{#section}", [("path", "path", True), ("section", "fragment", False)]),
        ("logs://api{;day}{.fmt}", [("day", "matrix", False), ("fmt", "path", True)]),
        ("x://{id}{?id}", [("id", "path", True)]),  # path anywhere makes it required
    ],
)
def test_path_variables_are_required_and_query_variables_optional(template, expected):
    actual = [(v.name, v.role, v.required) for v in template_variables(template)]
    assert actual == expected, f"{template}: expected {expected}, got {actual}"


def test_every_catalog_template_has_at_least_one_required_variable(catalog):
    assert catalog.templates, "the catalog lists no templates"
    for entry in catalog.templates:
        variables = template_variables(entry.uri_template)
        assert any(v.required for v in variables), entry.uri_template
        assert [v.name for v in variables] == list(entry.variables)


def test_explode_prefix_and_reserved_are_reported():
    path, section, code = template_variables("x://{/path*}{#section}{code:3}")
    assert path.explode and not path.reserved and "comma-separated" in path.hint
    assert section.reserved and not section.required
    assert code.prefix == 3 and "first 3 characters" in code.hint


def test_an_invalid_template_has_no_variables_and_raises():
    with pytest.raises(UriTemplateError):
        template_variables("orders://{order-id}")


@pytest.mark.parametrize(
    ("inputs", "values", "missing"),
    [
        (
            {"service": "api", "day": "2026-09-04", "level": "warn"},
            {"service": "api", "day": "2026-09-04", "level": "warn"},
            (),
        ),
        ({"service": "api", "day": "", "level": ""}, {"service": "api", "day": None, "level": None}, ("day",)),
        ({"service": "   ", "day": "d"}, {"service": None, "day": "d", "level": None}, ("service",)),
        ({"service": " a b ", "day": "d"}, {"service": " a b ", "day": "d", "level": None}, ()),
        ({}, {"service": None, "day": None, "level": None}, ("service", "day")),
    ],
)
def test_empty_boxes_are_undefined_and_text_is_kept_as_typed(inputs, values, missing):
    got_values, got_missing = values_from_inputs(template_variables("logs://{service}/{day}{?level}"), inputs)
    assert (got_values, got_missing) == (values, missing), f"{inputs}: got {got_values}, {got_missing}"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a,b,c", ["a", "b", "c"]),
        (" guides , returns ", ["guides", "returns"]),
        ("a,,b", ["a", "b"]),
        (" , ", None),
        ("", None),
        ("one", ["one"]),
    ],
)
def test_an_exploded_variable_takes_a_comma_separated_list(text, value):
    values, _ = values_from_inputs(template_variables("files://docs{/path*}"), {"path": text})
    assert values["path"] == value, f"{text!r}: expected {value!r}, got {values['path']!r}"


# --------------------------------------------------------------------------------------------
# The preview and template errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "inputs", "uri"),
    [
        ("orders://{order_id}", {"order_id": "A-1002"}, "orders://A-1002"),
        ("crm://customer/{id}", {"id": "fixture 17/eu"}, "crm://customer/fixture%2017%2Feu"),
        ("logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04"}, "logs://api/2026-09-04"),
        (
            "logs://{service}/{day}{?level}",
            {"service": "api", "day": "2026-09-04", "level": "error"},
            "logs://api/2026-09-04?level=error",
        ),
        ("files://docs{/path*}", {"path": "guides, returns"}, "files://docs/guides/returns"),
        ("kb://{+path}", {"path": "handbook/v4"}, "kb://handbook/v4"),
    ],
)
def test_the_preview_is_the_engines_expansion(template, inputs, uri):
    current = preview(template, inputs)
    assert current.ready and current.uri == uri, f"{template} {inputs}: expected {uri!r}, got {current}"
    assert current.message == f"Ready to read {uri}."


def test_a_required_variable_left_empty_is_named_and_shows_the_uri_it_would_make():
    current = preview("logs://{service}/{day}{?level}", {"service": "api"})
    assert not current.ready and current.missing == ("day",)
    assert "day is required" in current.message and "'logs://api/'" in current.message, current.message


@pytest.mark.parametrize(
    ("template", "position"),
    [
        ("orders://{order-id}", 15),
        ("orders://{order_id", 9),
        ("x://a}", 5),
        ("x://{}", 5),
        ("kb://my docs/{id}", 7),
        ("x://{!a}", 5),
        ("x://{a:0}", 7),
    ],
)
def test_an_invalid_template_gives_a_problem_with_a_caret_under_the_position(template, position):
    current = preview(template, {})
    assert current.problem is not None and not current.ready and current.uri is None
    assert current.problem.position == position, f"{template}: {current.problem}"
    first, second = current.problem.caret().split("\n")
    assert first == template and second.index("^") == position, current.problem.caret()
    assert "in URI template" not in current.problem.reason, "the reason repeats the template"
    assert "not valid" in current.message


def test_a_value_error_at_expansion_is_a_problem_too():
    # a prefix on a list is refused at expansion (RFC 6570 §2.4.1); the form can give a list
    # only to an exploded variable, so build the case by hand
    error = None
    try:
        from custody_lab.uri_templates import expand

        expand("x://{a:2}", {"a": ["b", "c"]})
    except UriTemplateError as e:
        error = e
    assert error is not None
    problem = template_problem(error)
    assert problem.position == 5 and "prefix" in problem.reason


def test_control_characters_are_shown_visibly_and_the_caret_stays_aligned():
    problem = template_problem(parse_error("x://a\tb{c}"))
    first, second = problem.caret().split("\n")
    assert "\t" not in first and "␉" in first and second.index("^") == problem.position == 5


def test_parse_error_refuses_a_valid_template():
    with pytest.raises(ValueError, match="valid URI template"):
        parse_error("orders://{order_id}")


# --------------------------------------------------------------------------------------------
# What a value can do to the path: "/" is encoded, but "." and ".." make dot-segments
# --------------------------------------------------------------------------------------------

ESCAPES = [
    "../../kb/shipping",
    "../fixture-17",
    "fixture-17/../../kb/shipping",
    "a/b",
    "a?b=1",
    "a#frag",
    "...",
    "%2E%2E",
    "%2F..%2F",
    "fixture-17?x",
    "\\..\\kb",
]


@pytest.mark.parametrize("value", ESCAPES)
def test_a_value_with_dots_or_slashes_stays_inside_its_segment(value, catalog):
    current = preview("crm://customer/{id}", {"id": value})
    assert current.ready and current.uri is not None
    rest = current.uri[len("crm://customer/") :]
    for char in "/?#\\":
        assert char not in rest, f"{value!r} -> {current.uri!r}: {char!r} left unencoded"
    assert match("crm://customer/{id}", current.uri) == {"id": value}, "the value must come back whole"
    fresh = Catalog.load()
    outcome = read_preview(fresh, current)
    assert outcome.status == "not-found", f"{value!r} read something: {outcome}"
    assert list(fresh.reads) == [current.uri], "nothing but the previewed URI may be read"


@given(st.text(max_size=40) | st.sampled_from([".", ".."]))
def test_any_typed_value_stays_in_its_segment_or_is_refused_plainly(value):
    current = preview("crm://customer/{id}", {"id": value})  # never raises
    if not value.strip():
        assert current.missing == ("id",) and not current.ready
    elif value in (".", ".."):
        assert not current.ready and current.dot_segments and "Refused" in current.message
    elif current.unencodable:
        assert not current.ready and "lone surrogate" in current.message
    else:
        assert current.ready and current.uri is not None
        rest = current.uri[len("crm://customer/") :]
        assert not set(rest) & set("/?#\\<>\"' "), f"{value!r} -> {current.uri!r}"
        assert match("crm://customer/{id}", current.uri) == {"id": value}


def test_a_lone_surrogate_is_refused_with_a_plain_message_and_reads_nothing():
    fresh = Catalog.load()
    current = preview("orders://{order_id}", {"order_id": "A-\ud800"})
    assert current.unencodable == ("order_id",) and current.uri is None and not current.ready
    outcome = read_preview(fresh, current)
    assert outcome.status == "not-ready" and not fresh.reads
    assert "\ud800" not in preview_html(current), "the HTML must stay encodable"


DOT_SEGMENT_CASES = [
    ("crm://customer/{id}", {"id": ".."}, "crm://customer/..", "..", ("id",)),
    ("crm://customer/{id}", {"id": "."}, "crm://customer/.", ".", ("id",)),
    ("crm://customer/{id}/notes", {"id": ".."}, "crm://customer/../notes", "..", ("id",)),
    ("files://docs{/path*}", {"path": "guides, .., secrets"}, "files://docs/guides/../secrets", "..", ("path",)),
    ("files://docs{/a,b}", {"a": "x", "b": "."}, "files://docs/x/.", ".", ("b",)),  # b holds it, not a
    ("x://h/{a}{b}", {"a": ".", "b": "."}, "x://h/..", "..", ("a", "b")),  # neither holds it alone
    ("kb://handbook/{+path}", {"path": "v4/%2e%2E/hr"}, "kb://handbook/v4/%2e%2E/hr", "%2e%2E", ("path",)),
    ("{/id}", {"id": ".."}, "/..", "..", ("id",)),  # a relative reference has a path too
]


@pytest.mark.parametrize(("template", "inputs", "uri", "segment", "names"), DOT_SEGMENT_CASES)
def test_a_value_that_makes_a_dot_segment_is_found_with_its_variables(template, inputs, uri, segment, names):
    current = preview(template, inputs)
    found = current.dot_segments
    actual = (current.uri, [(f.segment, f.variables, current.uri[f.start : f.start + len(f.segment)]) for f in found])
    expected = (uri, [(segment, names, segment)])
    assert actual == expected, f"{template!r} with {inputs}: expected {expected}, got {actual}"
    assert not current.ready, f"{template!r} with {inputs}: a dot-segment must not be ready to read"


@pytest.mark.parametrize(
    ("template", "inputs"),
    [
        ("crm://customer/{id}", {"id": "../.."}),  # "/" encoded: one segment "..%2F.."
        ("crm://customer/{id}", {"id": "..."}),
        ("crm://customer/{id}.json", {"id": ".."}),  # "....json"
        ("crm://x-{id}", {"id": ".."}),
        ("orders://{order_id}", {"order_id": ".."}),  # the authority, not a path segment
        ("logs://{service}/today{?level}", {"service": "api", "level": ".."}),  # in the query
        ("kb://handbook/./{id}", {"id": "returns"}),  # the template's own text, not a value
    ],
)
def test_dots_that_make_no_dot_segment_of_a_value_are_not_flagged(template, inputs):
    current = preview(template, inputs)
    assert current.dot_segments == (), f"{template!r} with {inputs} -> {current.uri!r}: got {current.dot_segments}"


def test_reading_a_dot_segment_is_refused_naming_the_variable_value_and_host_policy():
    fresh = Catalog.load()
    current = preview("crm://customer/{id}", {"id": ".."})
    outcome = read_preview(fresh, current)
    expected_start = "Refused: id = '..' makes the path segment '..' of 'crm://customer/..', a dot-segment"
    actual = (outcome.status, list(fresh.reads), outcome.message.startswith(expected_start))
    assert actual == ("not-ready", [], True), f"expected ('not-ready', [], True), got {actual}: {outcome.message}"
    for words in ("RFC 3986 §5.2.4", "the lab's host policy", "MCP 2026-07-28", "servers to validate"):
        assert words in outcome.message, f"the refusal should say {words!r}: {outcome.message}"


def test_a_long_template_error_shows_80_characters_around_the_caret():
    template = "x://" + "a" * 5000 + "{id" + "b" * 5000
    problem = template_problem(parse_error(template))
    first, second = problem.caret().split("\n")
    actual = (len(first) <= 82, first[second.index("^")], problem.position, "in URI template" in problem.reason)
    assert actual == (True, "{", 5004, False), f"expected (True, '{{', 5004, False), got {actual}: {first!r}"


def test_a_five_thousand_digit_prefix_is_a_problem_not_a_crash():
    current = preview("orders://{order_id:" + "9" * 5000 + "}", {"order_id": "A-1"})
    actual = (current.ready, current.problem is not None and current.problem.position)
    assert actual == (False, 19), f"expected (False, 19), got {actual}"


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


def test_a_log_read_filters_by_the_optional_level(catalog):
    every = read_template(catalog, "logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04"})
    errors = read_template(
        catalog, "logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04", "level": "error"}
    )
    assert every.status == errors.status == "read"
    assert "level all" in (every.result.text or "") and "level error" in (errors.result.text or "")
    assert (errors.result.text or "").count("ERROR") == 2


def test_nothing_is_read_while_a_required_variable_is_empty():
    fresh = Catalog.load()
    outcome = read_template(fresh, "orders://{order_id}", {"order_id": ""})
    assert outcome.status == "not-ready" and not fresh.reads
    assert "Nothing was read" in outcome_html(outcome) and "order_id is required" in outcome.message


def test_nothing_is_read_for_an_invalid_template():
    fresh = Catalog.load()
    outcome = read_preview(fresh, preview("orders://{order-id}", {"order-id": "A-1002"}))
    assert outcome.status == "not-ready" and not fresh.reads and "not valid" in outcome.message


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


# --------------------------------------------------------------------------------------------
# Notebook 03 helpers
# --------------------------------------------------------------------------------------------

OPERATOR_TABLE = {
    "orders://{order_id}": "orders://A-1002",
    "kb://{name}": "kb://returns%20policy%2Fv2",
    "kb://{+name}": "kb://returns%20policy/v2",
    "kb://handbook/v4{#name}": "kb://handbook/v4#returns%20policy/v2",
    "files://report{.day}": "files://report.2026-09-04",
    "files://docs{/segments}": "files://docs/guides,returns",
    "files://docs{/segments*}": "files://docs/guides/returns",
    "logs://api{;day,level,empty}": "logs://api;day=2026-09-04;empty",
    "logs://api/2026-09-04{?level,limit}": "logs://api/2026-09-04?limit=50",
    "logs://api/2026-09-04{?empty}": "logs://api/2026-09-04?empty=",
    "logs://api/2026-09-04?page=2{&limit}": "logs://api/2026-09-04?page=2&limit=50",
    "orders://{order_id:1}": "orders://A",
    "search://orders{?filter*}": "search://orders?status=shipped&tier=plus",
    "search://orders{?filter}": "search://orders?filter=status,shipped,tier,plus",
}


def test_the_operator_table_says_what_the_notebook_claims():
    rows = operator_examples()
    assert rows, "no examples"
    actual = {row["template"]: row["expands to"] for row in rows}
    assert actual == OPERATOR_TABLE
    operators = {row["operator"].strip("{}").rstrip("*").replace("var", "").replace(":n", "") for row in rows}
    assert operators == {"", "+", "#", ".", "/", ";", "?", "&"}, f"every operator appears: {operators}"
    assert EXAMPLE_VALUES["level"] is None and EXAMPLE_VALUES["empty"] == ""


def test_listing_a_million_orders_costs_megabytes_against_one_template_entry(catalog):
    cost = listing_cost(catalog.template("orders://{order_id}"), {"order_id": "A-1002"})
    assert cost.item == {"uri": "orders://A-1002", "name": "order A-1002", "mimeType": "application/json"}
    assert cost.item_bytes == len(json.dumps(cost.item, separators=(",", ":")))
    assert cost.listing_bytes == 1_000_000 * cost.item_bytes > 50_000_000
    assert cost.template_bytes < 500 and cost.ratio > 100_000


class _FakeEngine:
    """Stands in for another engine: refuses every template whose text holds 'bad'."""

    def __init__(self, template: str) -> None:
        if "bad" in template:
            raise ValueError(f"I refuse {template!r}")
        self.template = template

    def expand(self, values):
        raise TypeError("values must be strings")

    def match(self, uri):
        return {"seen": uri}


def test_compare_engines_turns_exceptions_into_cells():
    rows = compare_engines(
        [("x://{a}", {"a": 1}, "x://1"), ("x://{bad}", {"bad": "v"}, "x://v")], _FakeEngine, other_name="fake"
    )
    assert len(rows) == 2
    assert rows[0]["lab: expand"] == "'x://1'" and rows[0]["fake: expand"].startswith("raises TypeError")
    assert rows[0]["fake: match"] == "{'seen': 'x://1'}"
    assert rows[1]["fake: expand"] == rows[1]["fake: match"] == "raises ValueError: I refuse 'x://{bad}'"
    assert set(rows[0]) == {"template", "values", "lab: expand", "fake: expand", "uri", "lab: match", "fake: match"}


def test_describe_error_is_short_and_names_the_position():
    text = describe_error(parse_error("kb://my docs/{id}"), limit=60)
    assert text.startswith("raises UriTemplateError at 7: character ' '") and len(text) == 60, text


# What notebook 03 says about the MCP SDK, row by row (it runs the SDK installed in the venv).
SDK_CLAIMS = {
    "orders://{order_id}": ("'orders://A%2F1'", "'orders://A%2F1'", "{'order_id': 'A/1'}", "{'order_id': 'A/1'}"),
    "files://{name}{.ext}": (
        "'files://report.tar.gz'",
        "'files://report.tar.gz'",
        "raises AmbiguousTemplateError",
        "{'ext': 'gz', 'name': 'report.tar'}",
    ),
    "logs://{service}{?level}": (
        "'logs://api?level=error'",
        "'logs://api?level=error'",
        "None",
        "{'service': 'api', 'level': 'error'}",
    ),
    "docs://{+path}": ("'docs://a/b?x=1'", "'docs://a/b?x=1'", "{'path': 'a/b?x=1'}", "None"),
    "orders://{order_id:4}": (
        "'orders://A-10'",
        "raises InvalidUriTemplate at 9: Prefix",
        "{'order_id': 'A-10'}",
        "raises InvalidUriTemplate at 9: Prefix",
    ),
    "search://{?tags*}": (
        "'search://?tags=red&tags=blue'",
        "raises InvalidUriTemplate at 9: Explode",
        "{'tags': ['red', 'blue']}",
        "raises InvalidUriTemplate at 9: Explode",
    ),
    "kb://my docs/{id}": (
        "raises UriTemplateError at 7",
        "'kb://my docs/a'",
        "raises UriTemplateError at 7",
        "{'id': 'a'}",
    ),
    "orders://{order-id}": (
        "raises UriTemplateError at 15",
        "raises InvalidUriTemplate at 9",
        "raises UriTemplateError at 15",
        "raises InvalidUriTemplate at 9",
    ),
}


def test_the_lab_and_the_mcp_sdk_differ_exactly_as_notebook_03_says():
    sdk = pytest.importorskip("mcp.shared.uri_template")
    rows = compare_engines(TRICKY_CASES, sdk.UriTemplate.parse)
    assert [row["template"] for row in rows] == list(SDK_CLAIMS), "TRICKY_CASES and the claims drifted"
    for row in rows:
        expected = SDK_CLAIMS[row["template"]]
        actual = (row["lab: expand"], row["SDK: expand"], row["lab: match"], row["SDK: match"])
        for want, got in zip(expected, actual):
            assert got.startswith(want), f"{row['template']}: expected a cell starting {want!r}, got {got!r}"


def test_preview_is_a_frozen_value():
    current = preview("orders://{order_id}", {"order_id": "A-1"})
    assert isinstance(current, Preview)
    with pytest.raises(AttributeError):
        current.uri = "x"  # type: ignore[misc]
